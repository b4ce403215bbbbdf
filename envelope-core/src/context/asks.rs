//! What a tool asks its client while it runs: a completion (sampling), values from the user
//! (elicitation), the client's roots; the `Context` methods that ask (the kinds of ask and
//! their answers are in `requests.rs`).

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use serde_json::Value;

use super::Context;
use super::requests::{ClientAsk, ClientError, ElicitAction, Elicitation};
use crate::words::render::json_type;
impl Context {
    /// Asks the client's model for a completion: an MCP `sampling/createMessage` request with
    /// `params` as sent (MCP 2025-11-25, "Client Features / Sampling":
    /// `{"messages": [{"role": "user", "content": {"type": "text", "text": ..}}], "maxTokens": N,
    /// ...}`), answered with the client's result (`{"role": "assistant", "content": {..},
    /// "model": .., "stopReason": ..}`).
    ///
    /// Refused with [`ClientError::MissingCapability`] (`"sampling"`) when the client did not
    /// declare the capability (SEP-2575's `-32021` names it), with
    /// [`ClientError::Unavailable`] when the call was not made over an MCP session that can
    /// carry a request to its client (an HTTP tool endpoint, [`crate::Toolbox::call`]), never by
    /// waiting; [`ClientError::Failed`] carries the client's JSON-RPC error; a cancelled call
    /// stops waiting with [`ClientError::Cancelled`].
    pub async fn create_message(&self, params: Value) -> Result<Value, ClientError> {
        self.ask_client(ClientAsk::Sampling, params).await
    }

    /// Asks the client's model to answer `prompt` (one user text message, at most `max_tokens`
    /// tokens; [`create_message`](Self::create_message)) and answers the text of its reply: the
    /// `content` block of type `text` (2025-11-25 may send a list of blocks: the first text
    /// block's). A reply with no text content (an image, no `content`, not an object) is
    /// [`ClientError::Unreadable`], never an empty answer; an empty text is `""`.
    pub async fn sample(&self, prompt: impl Into<String>, max_tokens: u32) -> Result<String, ClientError> {
        let params = serde_json::json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt.into()}}],
            "maxTokens": max_tokens,
        });
        let reply = self.create_message(params).await?;
        let is_text = |b: &&Value| b.get("type").and_then(Value::as_str) == Some("text");
        let block = match reply.get("content") {
            Some(Value::Array(blocks)) => blocks.iter().find(is_text),
            Some(block) => Some(block).filter(is_text),
            None => None,
        };
        match block.and_then(|b| b.get("text")).and_then(Value::as_str) {
            Some(text) => Ok(text.to_owned()),
            None => Err(ClientError::Unreadable {
                method: ClientAsk::Sampling.method(),
                why: format!("its content is {}, where a text block is read", content_words(reply.get("content"))),
            }),
        }
    }

    /// Asks the user for values: an MCP `elicitation/create` form request (MCP 2025-11-25,
    /// "Client Features / Elicitation"): `{"mode": "form", "message": message,
    /// "requestedSchema": schema}`, `schema` a flat object schema of primitive properties
    /// (with `default`s, SEP-1034; enums titled or not, single or multiple, SEP-1330). Refused as
    /// [`create_message`](Self::create_message) is, the capability named `"elicitation"`.
    pub async fn elicit(&self, message: impl Into<String>, schema: Value) -> Result<Elicitation, ClientError> {
        let params = serde_json::json!({"mode": "form", "message": message.into(), "requestedSchema": schema});
        let reply = self.ask_client(ClientAsk::Elicitation, params).await?;
        let action = action_of(&reply)?;
        let content = match reply.get("content") {
            None | Some(Value::Null) => None,
            Some(Value::Object(content)) => Some(content.clone()),
            Some(other) => {
                return Err(ClientError::Unreadable {
                    method: ClientAsk::Elicitation.method(),
                    why: format!(
                        "its content is {}; MCP defines it as an object of the values entered",
                        json_type(other)
                    ),
                });
            }
        };
        Ok(Elicitation { action, content })
    }

    /// Sends the user to `url` (an MCP `elicitation/create` request in URL mode, MCP 2025-11-25
    /// "Client Features / Elicitation", SEP-1036): `{"mode": "url", "message": message, "url":
    /// url, "elicitationId": elicitation_id}`, for what must not pass through the client (a
    /// sign-in, a payment, a credential). Answers the user's action: `Accept` means the user
    /// agreed to open the URL, not that what happens there is done; the server learns that on
    /// its own side, by `elicitation_id`. Refused as [`create_message`](Self::create_message)
    /// is, the capability named `"elicitation.url"` (a client that declared only
    /// `{"elicitation": {}}` takes form mode alone).
    pub async fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Result<ElicitAction, ClientError> {
        let params = serde_json::json!({
            "mode": "url", "message": message.into(), "url": url.into(), "elicitationId": elicitation_id.into(),
        });
        action_of(&self.ask_client(ClientAsk::UrlElicitation, params).await?)
    }

    /// Asks the client `ask` with `params` as sent, under `key`: the key of the request in a
    /// 2026-07-28 input-required result (SEP-2322, `inputRequests.<key>`; see
    /// [`crate::mcp`]), unused in a 2025 session, where the request goes to the client at once.
    /// Answers the client's result object; refused as [`create_message`](Self::create_message)
    /// is. Each ask of one call needs its own key.
    pub async fn ask(&self, key: &str, ask: ClientAsk, params: Value) -> Result<Value, ClientError> {
        self.ask_keyed(ask, Some(key), params).await
    }

    /// Whether this call can ask its client `ask`: the client declared the capability and the
    /// transport carries the request (a 2025 session, or a stateless 2026-07-28 call).
    pub fn can_ask(&self, ask: ClientAsk) -> bool {
        self.inner.live().sink.as_ref().is_some_and(|sink| sink.can_ask(ask))
    }

    async fn ask_client(&self, ask: ClientAsk, params: Value) -> Result<Value, ClientError> {
        self.ask_keyed(ask, None, params).await
    }

    async fn ask_keyed(&self, ask: ClientAsk, key: Option<&str>, params: Value) -> Result<Value, ClientError> {
        let Some(sink) = self.inner.live().sink.clone() else { return Err(ClientError::Unavailable) };
        let mut asked = sink.ask(ask, key, params);
        let mut cancelled = self.cancelled();
        std::future::poll_fn(|cx| {
            if Pin::new(&mut cancelled).poll(cx).is_ready() {
                return Poll::Ready(Err(ClientError::Cancelled));
            }
            asked.as_mut().poll(cx)
        })
        .await
    }
}

/// The `action` of an elicitation's answer; [`ClientError::Unreadable`] quoting what came
/// instead (cut to 40 characters).
fn action_of(reply: &Value) -> Result<ElicitAction, ClientError> {
    let why = match reply.get("action") {
        Some(Value::String(a)) if a == "accept" => return Ok(ElicitAction::Accept),
        Some(Value::String(a)) if a == "decline" => return Ok(ElicitAction::Decline),
        Some(Value::String(a)) if a == "cancel" => return Ok(ElicitAction::Cancel),
        Some(other) => format!("its action is {}", crate::words::cut::cut(&other.to_string(), 40)),
        None if reply.is_object() => "it has no action".to_owned(),
        None => format!("it is {}, not an object", json_type(reply)),
    };
    Err(ClientError::Unreadable {
        method: ClientAsk::Elicitation.method(),
        why: format!("{why}; MCP's actions are \"accept\", \"decline\" and \"cancel\""),
    })
}

/// A sampling reply's `content` in words, for a reply with no text to read: `an image block`,
/// `missing`, `a string`.
fn content_words(content: Option<&Value>) -> String {
    match content {
        None | Some(Value::Null) => "missing".to_owned(),
        Some(Value::Object(block)) => match block.get("type").and_then(Value::as_str) {
            Some(kind) => format!("a block of type {}", crate::words::cut::cut(&format!("{kind:?}"), 40)),
            None => "an object without a type".to_owned(),
        },
        Some(Value::Array(blocks)) if blocks.is_empty() => "an empty list".to_owned(),
        Some(Value::Array(_)) => "a list without a text block".to_owned(),
        Some(other) => json_type(other).to_owned(),
    }
}
