//! The direct path of MCP, one for stdio and Streamable HTTP: the conditions under which a
//! `tools/call` is answered by an [`McpServer`] itself, without rmcp's per-request service,
//! written once. A message takes it when all of these hold:
//!
//! - it is a [`PlainCall`] ([`plain_call`]): the one shape that means the same to
//!   [`read_message`](super::frame::read_message) and to rmcp, read in one pass;
//! - the server answers that tool itself ([`server_answers`]): no default log level, and a
//!   tool that waits for no approval, answers no content blocks, asks the client nothing and
//!   runs as no task;
//! - the transport lets it ([`over_stdio`], [`over_http`]): the protocol version the call is
//!   answered under is known without rmcp, and no notification can precede the reply.
//!
//! Every other message, and everything else of the protocol, is rmcp's. The call itself is
//! made by [`super::call_tool::call_directly`], whose reply is the bytes rmcp writes.

use std::sync::Arc;

use rmcp::model::{ProtocolVersion, RequestId};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::{Value, value::RawValue};

use super::McpServer;

/// A `tools/call` request in its plainest shape, read in one pass: the top level exactly
/// `jsonrpc` `"2.0"`, `id` (a string, or an integer that fits `i64`), `method` `"tools/call"`
/// and `params`, each once; `params` exactly `name` (a string) and `arguments` (optional; any
/// JSON value, kept as the text sent), each once. Such a message means the same to
/// [`read_message`](super::frame::read_message) and to rmcp, so a transport may answer it without rmcp
/// ([`super::call_tool::call_directly`]) when the server and the session let it.
#[derive(Debug)]
pub(crate) struct PlainCall {
    pub(crate) id: RequestId,
    pub(crate) name: String,
    /// The exact text of `arguments` (`None`: not sent, or `null`).
    pub(crate) arguments: Option<Arc<str>>,
    /// Whether `params` carries a 2026-07-28 request's own `_meta` (MCP 2026-07-28, "Base
    /// Protocol / Lifecycle": each request names its version and the client's capabilities):
    /// `io.modelcontextprotocol/protocolVersion` `"2026-07-28"`,
    /// `io.modelcontextprotocol/clientCapabilities` that rmcp reads, and at most
    /// `io.modelcontextprotocol/clientInfo` besides, each once.
    pub(crate) self_contained: bool,
}

/// Reads `bytes` (one line, or one body) as a [`PlainCall`]; `None` for any other message, or
/// any other shape (a member more, or twice; a `_meta` other than a 2026-07-28 request's own
/// ([`PlainCall::self_contained`]); a number `id` written as a float), which [`read_message`](super::frame::read_message)
/// then reads as it reads every message.
pub(crate) fn plain_call(bytes: &[u8]) -> Option<PlainCall> {
    let text = std::str::from_utf8(bytes).ok()?;
    // As `read_message` reads it: without byte order marks and the whitespace around.
    let text = super::frame::message_text(text);
    let Plain { jsonrpc, id, method, params } = serde_json::from_str(text).ok()?;
    if jsonrpc.get() != r#""2.0""# || method.get() != r#""tools/call""# {
        return None;
    }
    let id = match id.get() {
        // `-0` is a float to `serde_json`'s `Value`, which `read_message` reads ids with; a
        // long id it refuses.
        "-0" => return None,
        raw if raw.len() > super::frame::MAX_ID_BYTES => return None,
        raw if raw.starts_with('"') => RequestId::String(serde_json::from_str::<String>(raw).ok()?.into()),
        raw => RequestId::Number(raw.parse().ok()?),
    };
    let PlainParams { name, arguments, self_contained } = params;
    Some(PlainCall { id, name, arguments: arguments.map(|raw| Arc::<str>::from(raw.get())), self_contained })
}

/// The top level of a [`PlainCall`], as sent.
struct Plain<'a> {
    jsonrpc: &'a RawValue,
    id: &'a RawValue,
    method: &'a RawValue,
    params: PlainParams<'a>,
}

impl<'de> Deserialize<'de> for Plain<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Top;
        impl<'de> Visitor<'de> for Top {
            type Value = Plain<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a plain tools/call")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut jsonrpc, mut id, mut method, mut params) = (None, None, None, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    let slot = match key {
                        "jsonrpc" => &mut jsonrpc,
                        "id" => &mut id,
                        "method" => &mut method,
                        "params" if params.is_none() => {
                            params = Some(map.next_value::<PlainParams>()?);
                            continue;
                        }
                        _ => return Err(serde::de::Error::custom("not a plain tools/call")),
                    };
                    if slot.is_some() {
                        return Err(serde::de::Error::custom("a member sent twice"));
                    }
                    *slot = Some(map.next_value::<&'de RawValue>()?);
                }
                match (jsonrpc, id, method, params) {
                    (Some(jsonrpc), Some(id), Some(method), Some(params)) => Ok(Plain { jsonrpc, id, method, params }),
                    _ => Err(serde::de::Error::custom("a member missing")),
                }
            }
        }
        deserializer.deserialize_map(Top)
    }
}

/// The `params` of a [`PlainCall`]: `name` and `arguments`, and a 2026-07-28 request's own
/// `_meta`, each at most once, nothing else.
struct PlainParams<'a> {
    name: String,
    arguments: Option<&'a RawValue>,
    self_contained: bool,
}

impl<'de> Deserialize<'de> for PlainParams<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Params;
        impl<'de> Visitor<'de> for Params {
            type Value = PlainParams<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the params of a plain tools/call")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut name, mut arguments, mut meta) = (None, None, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "name" if name.is_none() => name = Some(map.next_value::<String>()?),
                        "arguments" if arguments.is_none() => {
                            arguments = Some(map.next_value::<Option<&'de RawValue>>()?);
                        }
                        "_meta" if meta.is_none() => meta = Some(map.next_value::<&'de RawValue>()?),
                        _ => return Err(serde::de::Error::custom("not the params of a plain tools/call")),
                    }
                }
                let name = name.ok_or_else(|| serde::de::Error::custom("no name"))?;
                let self_contained = match meta {
                    None => false,
                    Some(meta) if self_contained(meta) => true,
                    Some(_) => return Err(serde::de::Error::custom("not a 2026-07-28 request's own _meta")),
                };
                Ok(PlainParams { name, arguments: arguments.flatten(), self_contained })
            }
        }
        deserializer.deserialize_map(Params)
    }
}

/// Whether `meta` is a 2026-07-28 request's own `_meta`, as [`PlainCall::self_contained`]
/// describes it, read as rmcp's path reads it (`frame::read_tools_call`: into a `Value`, so a value
/// nested 128 levels deep or a number past a double declines it, as that path refuses it; then
/// the keys, and the capabilities as rmcp decodes them). Any other `_meta` (a `progressToken`,
/// a `logLevel`, a key of its own, another version, capabilities rmcp does not read) declines
/// it, and the call goes through rmcp.
fn self_contained(meta: &RawValue) -> bool {
    /// The keys a 2026-07-28 request's own `_meta` has, each once: a key sent twice (which
    /// rmcp's path refuses by name) or any other key declines it.
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct OwnMeta {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
        version: Value,
        #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
        capabilities: Value,
        #[serde(rename = "io.modelcontextprotocol/clientInfo", default)]
        #[allow(dead_code)] // read as a `Value`, as rmcp's path reads it, and not looked at
        info: Option<Value>,
    }
    // A key sent twice at any depth, or an object past 4,096 keys, which rmcp's path refuses.
    let scan = crate::read::sent::scan(meta.get());
    if !scan.duplicates.is_empty() || !scan.crowded.is_empty() {
        return false;
    }
    let Ok(meta) = serde_json::from_str::<OwnMeta>(meta.get()) else { return false };
    meta.version.as_str() == Some("2026-07-28")
        && rmcp::model::ClientCapabilities::deserialize(&meta.capabilities).is_ok()
}

/// Whether `server` answers a call of tool `name` itself: it has no default log level (its
/// calls would send log messages, which rmcp's path writes), and the tool waits for no
/// approval, answers no content blocks ([`super::content::Contents`]), is served by no server
/// that lets tools ask the client ([`McpServer::with_client_requests`]), and runs as no task.
pub(super) fn server_answers(server: &McpServer, name: &str) -> bool {
    server.default_level.is_none()
        && !server.toolbox.needs_confirmation(name)
        && !server.answers_blocks(name)
        && !server.asks_client
        && !server.is_task_tool(name)
}

/// What a stdio session has seen that decides its direct path.
pub(super) struct StdioSession<'v> {
    /// The client sent `logging/setLevel`: its calls send log messages, which rmcp's path writes.
    pub(super) logging: bool,
    /// The client sent `initialize`, and whether it sent it again (rmcp's `initialize` sets the
    /// peer's info: the calls after it see the version it names, which rmcp's path answers with).
    pub(super) initialized: bool,
    pub(super) reinitialized: bool,
    /// rmcp has answered the request that started the session.
    pub(super) started: bool,
    /// The version `initialize` negotiated, when the session started with one before
    /// 2026-07-28.
    pub(super) negotiated: Option<&'v str>,
}

/// The protocol version under which a plain `tools/call` is answered over stdio without rmcp,
/// if it is: the version `initialize` negotiated when it is one before 2026-07-28 and the call
/// carries no `_meta`; 2026-07-28 when the call carries that version's own `_meta`
/// ([`PlainCall::self_contained`]) in a session that rmcp started on a 2026-07-28 request, with
/// no `initialize` sent (rmcp then reads the version and capabilities from each request).
/// Until rmcp has answered the request that starts its session, every call goes through rmcp,
/// so the session rmcp keeps is the one its client opened (a later `initialize`, a call without
/// `_meta`, are answered as in that session). `None` too once the client has sent
/// `logging/setLevel` or a second `initialize`.
pub(super) fn over_stdio<'v>(call: &PlainCall, session: &StdioSession<'v>) -> Option<&'v str> {
    if session.logging || session.reinitialized {
        return None;
    }
    if call.self_contained {
        (!session.initialized && session.started).then_some(ProtocolVersion::V_2026_07_28.as_str())
    } else {
        session.negotiated
    }
}

/// The protocol version whose plain `tools/call` Streamable HTTP answers without rmcp.
#[cfg(feature = "http")]
pub(super) const HTTP_VERSION: &str = "2026-07-28";

/// Whether a plain `tools/call` sent over Streamable HTTP with `headers` is answered without
/// rmcp: a 2026-07-28 request that carries that version's own `_meta`
/// ([`PlainCall::self_contained`]: no `progressToken`, no `logLevel`, so no notification can
/// precede the reply; no MRTR retry, `inputResponses` or `requestState`, which a plain call
/// cannot carry), with exactly one `MCP-Protocol-Version: 2026-07-28`, one
/// `Mcp-Method: tools/call` and one `Mcp-Name` equal to `params.name` (SEP-2243), and no
/// `Mcp-Param-*` header (rmcp checks those against the body as sent).
#[cfg(feature = "http")]
pub(super) fn over_http(call: &PlainCall, headers: &axum::http::HeaderMap) -> bool {
    let one = |name: &str| {
        let mut values = headers.get_all(name).iter();
        match (values.next(), values.next()) {
            (Some(value), None) => Some(value.as_bytes()),
            _ => None,
        }
    };
    call.self_contained
        && one("mcp-protocol-version") == Some(HTTP_VERSION.as_bytes())
        && one("mcp-method") == Some(b"tools/call".as_slice())
        && one("mcp-name") == Some(call.name.as_bytes())
        && !headers.keys().any(|name| name.as_str().starts_with("mcp-param-"))
}

#[cfg(test)]
mod tests {
    use rmcp::model::{GetExtensions, JsonRpcMessage};

    use super::super::frame::{Framing, Incoming, RawArguments, read_message};
    use super::*;

    /// A plain `tools/call` read in one pass means what [`read_message`] reads from it; every
    /// other shape is left to it.
    #[test]
    fn a_plain_call_is_read_as_read_message_reads_it() {
        let plain = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1e400,"b":[[[]]]}}}"#,
            "\u{feff} {\"params\":{\"arguments\":null,\"name\":\"t\\u00e9\"},\"method\":\"tools/call\",\"id\":\"x\\\"y\",\"jsonrpc\":\"2.0\"}\r\n",
            r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":"{\"a\":1}"}}"#,
        ];
        for line in plain {
            let call = plain_call(line.as_bytes()).unwrap_or_else(|| panic!("not plain: {line}"));
            let Incoming::Message(message) = read_message(line.as_bytes(), Framing::Line) else {
                panic!("not for rmcp: {line}")
            };
            let JsonRpcMessage::Request(request) = *message else { panic!("not a request: {line}") };
            let rmcp::model::ClientRequest::CallToolRequest(read) = &request.request else { panic!("{line}") };
            assert_eq!(call.id, request.id, "{line}");
            assert_eq!(call.name, read.params.name, "{line}");
            let raw = request.request.extensions().get::<RawArguments>().cloned().unwrap();
            assert_eq!(call.arguments, raw.0, "{line}");
        }
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","name":"u"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":-0,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}} x"#,
        ] {
            assert!(plain_call(line.as_bytes()).is_none(), "plain: {line}");
        }
    }
}
