//! A provider's tool calls, as the model sent them, answered with that provider's tool-result
//! messages carrying the envelope.

use serde_json::{Value, json};

use super::Provider;
use crate::call::registry::{Toolbox, UnknownToolWords};
use crate::context::Context;
use crate::outcome::envelope::Envelope;
use crate::outcome::refusal::Refusal;
use crate::words::render;

/// The answer to one tool call: the provider's tool-result message and the envelope it carries.
#[derive(Clone, Debug)]
pub struct ToolResult {
    message: Value,
    envelope: Envelope,
}

impl ToolResult {
    /// The provider's tool-result message (see the table of the [module](super)).
    pub fn message(&self) -> &Value {
        &self.message
    }

    /// The message, owned.
    pub fn into_message(self) -> Value {
        self.message
    }

    /// The envelope the message carries (in the toolbox's wire format), for a loop that logs
    /// or counts outcomes.
    pub fn envelope(&self) -> &Envelope {
        &self.envelope
    }
}

/// The arguments as the call carries them.
enum Args<'a> {
    /// Not sent (read as `{}`).
    Absent,
    /// OpenAI's JSON text.
    Text(&'a str),
    /// Anthropic's `input`, Gemini's `args` (or a non-string OpenAI `arguments`).
    Value(&'a Value),
}

/// The parts of one tool call.
struct Call<'a> {
    /// The id the result must echo; `None` when the call has none.
    id: Option<&'a Value>,
    /// Whether the provider needs the id to match the result to its call (not Gemini's).
    needs_id: bool,
    name: Option<&'a Value>,
    args: Args<'a>,
}

impl<'a> Call<'a> {
    fn read(provider: Provider, call: &'a Value) -> Self {
        let args = |v: Option<&'a Value>| match v {
            None | Some(Value::Null) => Args::Absent,
            Some(Value::String(s)) if matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses) => {
                Args::Text(s)
            }
            Some(v) => Args::Value(v),
        };
        match provider {
            Provider::OpenAiChat => {
                let function = call.get("function");
                Call {
                    id: call.get("id"),
                    needs_id: true,
                    name: function.and_then(|f| f.get("name")),
                    args: args(function.and_then(|f| f.get("arguments"))),
                }
            }
            Provider::OpenAiResponses => Call {
                id: call.get("call_id"),
                needs_id: true,
                name: call.get("name"),
                args: args(call.get("arguments")),
            },
            Provider::Anthropic => {
                Call { id: call.get("id"), needs_id: true, name: call.get("name"), args: args(call.get("input")) }
            }
            Provider::Gemini => {
                let call = call.get("functionCall").unwrap_or(call);
                Call { id: call.get("id"), needs_id: false, name: call.get("name"), args: args(call.get("args")) }
            }
        }
    }
}

/// Answers one tool call of `provider`, as the model sent it, by calling the tool in `toolbox`:
/// the provider's tool-result message, its content the envelope in the toolbox's wire format
/// and with its code prefix (the same JSON as the MCP text content and the HTTP body).
///
/// - OpenAI Chat Completions: `{"id", "type": "function", "function": {"name", "arguments"}}`
///   → `{"role": "tool", "tool_call_id", "content": "<envelope JSON>"}`.
/// - OpenAI Responses: `{"type": "function_call", "call_id", "name", "arguments"}` →
///   `{"type": "function_call_output", "call_id", "output": "<envelope JSON>"}`.
/// - Anthropic: `{"type": "tool_use", "id", "name", "input"}` → `{"type": "tool_result",
///   "tool_use_id", "content": "<envelope JSON>", "is_error"}` (`true` for `invalid` and
///   `error`).
/// - Gemini: `{"functionCall": {"name", "args", "id"}}` (or the inner object) →
///   `{"functionResponse": {"id", "name", "response": <envelope>}}` (`id` when sent).
///
/// OpenAI's `arguments` is read as JSON text ([`Toolbox::call_json`]: a key sent twice is
/// refused, numbers are quoted as sent); empty text reads as `{}`. `null` for a parameter
/// reads as absent, so a strict-mode call's nulls leave optional parameters out.
///
/// Never fails: arguments that are not JSON (`arguments: "{\"a\": " is not JSON; ...`, the
/// value hidden when the tool has a `secret` parameter), a call without a name or id, a name
/// that is not a string, and arguments that are not an object each answer a
/// `VALIDATION_ERROR` refusal; a tool the toolbox does not have answers `NOT_FOUND`, listing
/// the tools (at most 20) and naming the closest. None of these runs a tool.
///
/// ```
/// use envelope_core::providers::{answer, Provider};
/// use envelope_core::{tool, Toolbox};
/// use serde_json::json;
///
/// /// Adds two small numbers.
/// #[tool]
/// fn add(#[validate(range = 0..=100)] a: u32, #[validate(range = 0..=100, default = 1)] b: u32) -> u32 {
///     a + b
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let toolbox = Toolbox::new().with(add::tool());
/// // What a strict-mode model sends: `null` for the parameter it leaves to its default.
/// let call = json!({"id": "call_1", "type": "function",
///                   "function": {"name": "add", "arguments": "{\"a\": 2, \"b\": null}"}});
/// let result = answer(&toolbox, Provider::OpenAiChat, &call).await;
/// assert_eq!(result.message(), &json!({"role": "tool", "tool_call_id": "call_1",
///                                      "content": r#"{"status":"ok","success":true,"data":3}"#}));
///
/// let block = json!({"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 200}});
/// let result = answer(&toolbox, Provider::Anthropic, &block).await;
/// assert_eq!(result.message()["is_error"], true);
/// assert_eq!(result.envelope().message().unwrap(),
///     "a: 200 is out of range; accepted: a whole number from 0 to 100. Send a value from 0 to 100.");
/// # });
/// ```
///
/// The call is made by [`Caller::anonymous`](crate::Caller::anonymous) on the surface
/// `"local"`; [`answer_in`] makes it in a [`Context`] of your own (the caller your agent runs
/// for: its scopes, its quotas, what its tools see).
pub async fn answer(toolbox: &Toolbox, provider: Provider, call: &Value) -> ToolResult {
    answer_in(toolbox, &Context::anonymous(), provider, call).await
}

/// [`answer`], made in `cx`: by its caller (a tool's `scopes` are checked against it, rate
/// limits and idempotency keys are counted under it), on its surface, and the tool's body sees
/// `cx`.
pub async fn answer_in(toolbox: &Toolbox, cx: &Context, provider: Provider, call: &Value) -> ToolResult {
    let parts = Call::read(provider, call);
    let envelope = toolbox.on_the_wire(run(toolbox, cx, &parts).await);
    let id = parts.id.cloned().unwrap_or_else(|| json!(""));
    let message = match provider {
        Provider::OpenAiChat => json!({"role": "tool", "tool_call_id": id, "content": envelope.to_json()}),
        Provider::OpenAiResponses => {
            json!({"type": "function_call_output", "call_id": id, "output": envelope.to_json()})
        }
        Provider::Anthropic => json!({
            "type": "tool_result",
            "tool_use_id": id,
            "content": envelope.to_json(),
            "is_error": envelope.is_error()
        }),
        Provider::Gemini => {
            let mut response = serde_json::Map::new();
            if let Some(id) = parts.id {
                response.insert("id".into(), id.clone());
            }
            response.insert("name".into(), parts.name.cloned().unwrap_or_else(|| json!("")));
            response.insert("response".into(), envelope.to_value());
            json!({"functionResponse": response})
        }
    };
    ToolResult { message, envelope }
}

async fn run(toolbox: &Toolbox, cx: &Context, call: &Call<'_>) -> Envelope {
    if call.needs_id && call.id.is_none_or(|id| id.as_str().is_none_or(str::is_empty)) {
        let refusal = Refusal::parameter("id").missing().accepted("the id the model gave the tool call");
        return refusal.fix("Send the tool call again as the model API returned it, with its id.").build().into();
    }
    let name = match call.name {
        Some(Value::String(name)) => name.as_str(),
        None | Some(Value::Null) => {
            let refusal = Refusal::parameter("name").missing().accepted(tool_names(toolbox));
            return refusal.fix("Call one of the listed tools by its name.").build().into();
        }
        Some(other) => {
            let refusal = Refusal::parameter("name").rejected(other).reason("is not a tool name");
            let refusal = refusal.accepted(tool_names(toolbox));
            return refusal.fix("Send the tool's name as a string.").build().into();
        }
    };
    // A name the toolbox does not show is answered by the pipeline as unknown (a hidden tool's
    // attempt recorded first), then worded here.
    let answered = match call.args {
        Args::Absent => toolbox.call_in(cx, name, None).await,
        Args::Text(text) if text.trim().is_empty() => toolbox.call_in(cx, name, None).await,
        // Text that is not JSON is refused by the call's reading (`args::not_json`).
        Args::Text(text) => toolbox.call_json_in(cx, name, text).await,
        Args::Value(v) => toolbox.call_in(cx, name, Some(v)).await,
    };
    answered.unwrap_or_else(|_| unknown_tool(toolbox, name))
}

/// `one of "get_top_queries", "search_analytics"` (at most 20 names, the rest counted).
fn tool_names(toolbox: &Toolbox) -> String {
    let names = toolbox.tools().iter().map(|t| t.name());
    if names.len() == 0 {
        return "none: this toolbox has no tools".to_owned();
    }
    let (listed, more) = crate::words::budget::name_list(names, |n| render::quoted_list([n]));
    if more > 0 { format!("one of {listed} (the tool definitions list them all)") } else { format!("one of {listed}") }
}

/// `NOT_FOUND`: the tools there are and the closest name (as the HTTP endpoints answer).
fn unknown_tool(toolbox: &Toolbox, name: &str) -> Envelope {
    const WORDS: UnknownToolWords = UnknownToolWords {
        reason: "is not a tool here",
        none: "none: this toolbox has no tools",
        one_of: "one of ",
        more: " (the tool definitions list them all)",
        fix: |s| match s {
            Some(s) => format!("Call \"{s}\"."),
            None => "Call one of the listed tools.".to_owned(),
        },
    };
    toolbox.unknown(name).refusal(name, &WORDS).into()
}

/// The tool calls of a whole model reply, in order:
///
/// - OpenAI Chat Completions: `choices[0].message.tool_calls` of a response, or `tool_calls`
///   of an assistant message;
/// - OpenAI Responses: the `function_call` items of a response's `output` (or of an array of
///   items);
/// - Anthropic: the `tool_use` blocks of a message's `content` (or of an array of blocks);
/// - Gemini: the parts holding a `functionCall` in `candidates[0].content.parts` of a response,
///   or in `parts` of a content.
///
/// A reply of another shape has none.
pub fn tool_calls(provider: Provider, reply: &Value) -> Vec<&Value> {
    fn items(v: Option<&Value>) -> &[Value] {
        v.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
    }
    match provider {
        Provider::OpenAiChat => {
            let message = reply.pointer("/choices/0/message").unwrap_or(reply);
            items(message.get("tool_calls")).iter().collect()
        }
        Provider::OpenAiResponses => {
            let output = if reply.is_array() { Some(reply) } else { reply.get("output") };
            items(output).iter().filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call")).collect()
        }
        Provider::Anthropic => {
            let content = if reply.is_array() { Some(reply) } else { reply.get("content") };
            items(content).iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use")).collect()
        }
        Provider::Gemini => {
            let content = reply.pointer("/candidates/0/content").unwrap_or(reply);
            items(content.get("parts")).iter().filter(|p| p.get("functionCall").is_some()).collect()
        }
    }
}

/// Answers every tool call of a model `reply` (see [`tool_calls`]), one after another, and gives
/// the messages to append to the conversation after the reply's own: OpenAI Chat Completions,
/// one `{"role": "tool", ...}` message per call; OpenAI Responses, one `function_call_output`
/// item per call; Anthropic, one `{"role": "user", "content": [<tool_result blocks>]}`; Gemini,
/// one `{"role": "user", "parts": [<functionResponse parts>]}`. Empty when the reply has no
/// tool call.
pub async fn answer_reply(toolbox: &Toolbox, provider: Provider, reply: &Value) -> Vec<Value> {
    answer_reply_in(toolbox, &Context::anonymous(), provider, reply).await
}

/// [`answer_reply`], each call made in `cx` (see [`answer_in`]).
pub async fn answer_reply_in(toolbox: &Toolbox, cx: &Context, provider: Provider, reply: &Value) -> Vec<Value> {
    let mut results = Vec::new();
    for call in tool_calls(provider, reply) {
        results.push(answer_in(toolbox, cx, provider, call).await.into_message());
    }
    if results.is_empty() {
        return results;
    }
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses => results,
        Provider::Anthropic => vec![json!({"role": "user", "content": results})],
        Provider::Gemini => vec![json!({"role": "user", "parts": results})],
    }
}
