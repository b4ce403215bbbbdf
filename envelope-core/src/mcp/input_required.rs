//! A tool's requests to its client on MCP 2026-07-28, which has no server-to-client requests:
//! input-required results (SEP-2322, "multi round-trip requests").
//!
//! A tool that asks ([`crate::Context::sample`], [`crate::Context::elicit`],
//! [`crate::Context::ask`]) in a stateless 2026-07-28 `tools/call` has its call stopped where
//! it waits, and the call answers:
//!
//! ```json
//! {
//!   "resultType": "input_required",
//!   "inputRequests": {"<key>": {"method": "elicitation/create", "params": {...}}},
//!   "requestState": "<sealed>"
//! }
//! ```
//!
//! with every request the tool made before it had to wait (several, when it asks them together:
//! `tokio::join!`). The client answers each and calls the tool again with the same arguments,
//! `inputResponses: {"<key>": <result>}` and the `requestState` as it was. The tool then runs
//! again from its start, and each ask whose key has an answer (this round's or an earlier
//! round's, which the state carries) gets it at once; an ask without one makes a new round.
//!
//! `requestState` is `base64url(JSON {"tool", "responses", "exp"}) "." base64url(HMAC-SHA256)`
//! under the server's key (random per process unless set with
//! [`super::McpServer::with_input_state_key`]), valid 10 minutes: a state that fails its check,
//! names another tool or expired is refused `-32602` and nothing runs. An answer that is not a
//! JSON object is refused `-32602` too.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use hmac::{KeyInit, Mac};
use rmcp::ErrorData;
use serde_json::{Map, Value, json};
use sha2::Sha256;

use crate::context::{ClientAsk, ClientError};

/// How long a sealed request state holds, in seconds.
const STATE_TTL_SECS: u64 = 600;

/// One round of a stateless call that may ask its client: the answers it has, and the requests
/// it made that have none.
pub(super) struct Round {
    tool: String,
    responses: Map<String, Value>,
    requested: Mutex<BTreeMap<String, Value>>,
    /// The first answer that is not an object (its key).
    malformed: Mutex<Option<String>>,
    /// Told when a request is made that has no answer.
    waiting: tokio::sync::Notify,
    /// The number of asks made without a key, for their keys.
    unnamed: Mutex<u32>,
}

impl Round {
    /// The round of a call of `tool`: the answers of earlier rounds (from `state`, checked
    /// under `key`) and of this one. `Err`: `state` fails its check (`-32602`).
    pub(super) fn open(
        key: &[u8],
        tool: &str,
        state: Option<&str>,
        answers: Option<&BTreeMap<String, Value>>,
    ) -> Result<Arc<Round>, ErrorData> {
        let mut responses = match state {
            Some(state) => unseal(key, tool, state)?,
            None => Map::new(),
        };
        for (k, v) in answers.into_iter().flatten() {
            responses.insert(k.clone(), v.clone());
        }
        Ok(Arc::new(Round {
            tool: tool.to_owned(),
            responses,
            requested: Mutex::new(BTreeMap::new()),
            malformed: Mutex::new(None),
            waiting: tokio::sync::Notify::new(),
            unnamed: Mutex::new(0),
        }))
    }

    /// The answer to `ask` under `key` (`None`: the next `"<capability>_<n>"`), or, without
    /// one, the request recorded and `None` (the call then waits for the next round).
    pub(super) fn answer(
        &self,
        ask: ClientAsk,
        key: Option<&str>,
        params: Value,
    ) -> Option<Result<Value, ClientError>> {
        let key = match key {
            Some(key) => key.to_owned(),
            None => {
                let mut n = lock(&self.unnamed);
                *n += 1;
                format!("{}_{}", ask.capability(), *n)
            }
        };
        if let Some(answer) = self.responses.get(&key) {
            if answer.is_object() {
                return Some(Ok(answer.clone()));
            }
            lock(&self.malformed).get_or_insert(key);
            return Some(Err(ClientError::Failed { code: -32602, message: "the answer is not an object".into() }));
        }
        lock(&self.requested).insert(key, json!({"method": ask.method(), "params": params}));
        self.waiting.notify_one();
        None
    }

    /// How many answers the round holds (of earlier rounds and of this one).
    pub(super) fn answers(&self) -> usize {
        self.responses.len()
    }

    /// Completes once the call made a request that has no answer.
    pub(super) async fn wait(&self) {
        self.waiting.notified().await;
    }

    /// The `-32602` refusal of a call given an answer that is not an object, if it was.
    pub(super) fn malformed(&self) -> Option<ErrorData> {
        lock(&self.malformed).as_ref().map(|key| not_a_result(key))
    }

    /// The `InputRequiredResult` of this round: its requests, and every answer so far sealed.
    pub(super) fn input_required(&self, key: &[u8]) -> Result<rmcp::model::InputRequiredResult, ErrorData> {
        let requested = std::mem::take(&mut *lock(&self.requested));
        let requests = serde_json::from_value(Value::Object(requested.into_iter().collect()))
            .map_err(|e| ErrorData::internal_error(format!("an input request does not read: {e}"), None))?;
        let state = seal(key, &self.tool, &self.responses);
        Ok(rmcp::model::InputRequiredResult::new(Some(requests), Some(state)))
    }
}

/// `-32602` for an answer under `inputResponses.<key>` that is not an object (the client's
/// result, `{"action": "accept", "content": {...}}` for an elicitation), in an input-required
/// round or a `tasks/update`; the key cut to 40 characters.
pub(super) fn not_a_result(key: &str) -> ErrorData {
    let key = crate::words::cut::cut(key, 40);
    ErrorData::invalid_params(format!("inputResponses.{key} must be the client's result object"), None)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn tag(key: &[u8], body: &[u8]) -> Vec<u8> {
    let mut mac = <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(&[0u8; 32]).expect("any key length"));
    mac.update(b"envelope mcp input state v1\0");
    mac.update(body);
    mac.finalize().into_bytes().to_vec()
}

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// `base64url(JSON) "." base64url(HMAC)` of the answers of a call of `tool`.
pub(super) fn seal(key: &[u8], tool: &str, responses: &Map<String, Value>) -> String {
    let body = json!({"tool": tool, "responses": responses, "exp": now() + STATE_TTL_SECS}).to_string();
    format!("{}.{}", B64.encode(body.as_bytes()), B64.encode(tag(key, body.as_bytes())))
}

/// The answers sealed in `state` for `tool`; `-32602` when it fails its check, names another
/// tool or expired.
pub(super) fn unseal(key: &[u8], tool: &str, state: &str) -> Result<Map<String, Value>, ErrorData> {
    let refused =
        |why: &str| ErrorData::invalid_params(format!("requestState {why}; call the tool again without it"), None);
    let (body, mac) = state.split_once('.').ok_or_else(|| refused("is not one this server sealed"))?;
    let body = B64.decode(body).map_err(|_| refused("is not one this server sealed"))?;
    let mac = B64.decode(mac).map_err(|_| refused("is not one this server sealed"))?;
    let expected = tag(key, &body);
    // Constant time: a forger learns nothing from how long the check takes.
    let same = mac.len() == expected.len() && mac.iter().zip(&expected).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
    if !same {
        return Err(refused("failed its integrity check"));
    }
    let body: Value = serde_json::from_slice(&body).map_err(|_| refused("does not read"))?;
    if body.get("tool").and_then(Value::as_str) != Some(tool) {
        return Err(refused("belongs to another tool"));
    }
    if body.get("exp").and_then(Value::as_u64).is_none_or(|exp| exp < now()) {
        return Err(refused("expired"));
    }
    Ok(body.get("responses").and_then(Value::as_object).cloned().unwrap_or_default())
}

/// The JSON-RPC error of a call that needed a capability its client did not declare (SEP-2575,
/// MissingRequiredClientCapabilityError): code `-32021`, `data`
/// `{"requiredCapabilities": {"<capability>": {}}}`, a capability path nested
/// (`elicitation.url`: `{"elicitation": {"url": {}}}`).
pub(super) fn missing_capability(capability: &str) -> rmcp::model::ErrorData {
    let mut required = serde_json::Value::Object(serde_json::Map::new());
    for part in capability.rsplit('.') {
        let mut outer = serde_json::Map::new();
        outer.insert(part.to_owned(), required);
        required = serde_json::Value::Object(outer);
    }
    rmcp::model::ErrorData::new(
        rmcp::model::ErrorCode(-32021),
        format!("this call needs the client capability `{capability}`, which the client did not declare"),
        Some(serde_json::json!({"requiredCapabilities": required})),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_state_reads_back_and_a_changed_one_is_refused() {
        let key = [7u8; 32];
        let mut responses = Map::new();
        responses.insert("a".into(), json!({"action": "accept"}));
        let state = seal(&key, "t", &responses);
        assert_eq!(unseal(&key, "t", &state).unwrap(), responses);
        assert!(unseal(&key, "other", &state).unwrap_err().message.contains("another tool"));
        assert!(unseal(&[8u8; 32], "t", &state).unwrap_err().message.contains("integrity"));
        let tampered = format!("{state}-TAMPERED");
        assert_eq!(unseal(&key, "t", &tampered).unwrap_err().code.0, -32602);
        let (body, mac) = state.split_once('.').unwrap();
        let mut bytes = B64.decode(body).unwrap();
        bytes[2] ^= 1;
        assert!(unseal(&key, "t", &format!("{}.{mac}", B64.encode(bytes))).is_err());
    }

    #[test]
    fn a_round_answers_what_it_has_and_records_what_it_lacks() {
        let mut answers = BTreeMap::new();
        answers.insert("name".to_owned(), json!({"action": "accept", "content": {"name": "Ada"}}));
        answers.insert("bad".to_owned(), json!(12345));
        let round = Round::open(&[1; 32], "t", None, Some(&answers)).unwrap();
        let got = round.answer(ClientAsk::Elicitation, Some("name"), json!({})).unwrap().unwrap();
        assert_eq!(got["content"]["name"], "Ada");
        let sampling =
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
        assert!(round.answer(ClientAsk::Sampling, None, sampling).is_none());
        assert!(round.answer(ClientAsk::Elicitation, Some("bad"), json!({})).unwrap().is_err());
        assert!(round.malformed().unwrap().message.contains("inputResponses.bad"));
        let result = serde_json::to_value(round.input_required(&[1; 32]).unwrap()).unwrap();
        assert_eq!(result["resultType"], "input_required");
        assert_eq!(result["inputRequests"]["sampling_1"]["method"], "sampling/createMessage");
        let state = result["requestState"].as_str().unwrap();
        assert_eq!(unseal(&[1; 32], "t", state).unwrap().len(), 2);
    }
}
