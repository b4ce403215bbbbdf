//! One `tools/call` served: the `arguments` text (any shape, any depth) to the toolbox, a sync
//! body handed to the pool of sync bodies, and the envelope as a `CallToolResult`. Used by the
//! adapter ([`super::McpServer`]) and by the MRTR approval retry ([`super::mrtr`]); and by the
//! transports that answer a plain `tools/call` without rmcp's per-request service (stdio and
//! Streamable HTTP), through [`call_directly`], whose reply is written once into one buffer.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, ErrorData, RequestId};

use crate::call::pipeline::Started;
use crate::{Context, Envelope, Toolbox, call::UnknownTool};

/// The `CallToolResult` for one envelope: `structuredContent` is the envelope, the one text
/// block is its exact serialization, `isError` is [`Envelope::is_error`].
pub(super) fn call_tool_result(envelope: &Envelope) -> CallToolResult {
    let mut result = CallToolResult::default();
    result.content = vec![ContentBlock::text(envelope.to_json())];
    result.structured_content = Some(envelope.to_value());
    result.is_error = Some(envelope.is_error());
    result
}

/// [`call_tool_result`] for a tool that answers [`super::content::Contents`]: the blocks of
/// its `data` first, in the tool's order, then the envelope's text block, last (an answer that
/// is not ok has no blocks: its envelope's text alone).
pub(super) fn call_tool_result_with_blocks(envelope: &Envelope) -> CallToolResult {
    let mut result = call_tool_result(envelope);
    if !envelope.is_error()
        && let Some(mut blocks) = envelope.data().and_then(super::content::Contents::from_data)
    {
        blocks.append(&mut result.content);
        result.content = blocks;
    }
    result
}

/// A `tools/call` answered by a transport itself, without rmcp's per-request service: the call
/// made as [`super::McpServer::call_tool`] makes it ([`call_with_raw_arguments`]: the toolbox
/// reads the exact `arguments` text, a sync body runs off the runtime), then its JSON-RPC
/// response as the bytes rmcp writes ([`call_reply`]; without the ending newline). `complete`:
/// the result carries `"resultType":"complete"` (a 2026-07-28 peer; rmcp strips it for older
/// ones). A `-32602` refusal (an unknown tool, `arguments` not an object) is the `Err`, for the
/// transport to write as it writes rmcp's errors.
///
/// Dropping the future cancels the call's [`Context`] before the call is dropped, so a body
/// dropped with it (an async body at its next `.await`) finds its call cancelled, and a sync
/// body sees `cx.is_cancelled()`.
pub(super) async fn call_directly(
    toolbox: &Arc<Toolbox>,
    cx: &Context,
    id: &RequestId,
    name: &str,
    arguments: Option<Arc<str>>,
    complete: bool,
) -> Result<Vec<u8>, ErrorData> {
    let mut call = std::pin::pin!(call_with_raw_arguments(toolbox, cx, name, arguments));
    // Declared after the call, so dropped before it: the body dropped with this future finds
    // its call already cancelled.
    let guard = cx.cancel_on_drop();
    let envelope = call.as_mut().await;
    guard.disarm();
    cx.flush();
    Ok(call_reply(id, &envelope?, complete))
}

/// The JSON-RPC response to a `tools/call`, byte for byte what rmcp writes for
/// [`call_tool_result`] (`{"jsonrpc":"2.0","id":..,"result":{"resultType":"complete","content":
/// [{"type":"text","text":"<envelope>"}],"structuredContent":<envelope>,"isError":..}}`, without
/// `resultType` unless `complete`), with the envelope serialized once for both.
pub(super) fn call_reply(id: &RequestId, envelope: &Envelope, complete: bool) -> Vec<u8> {
    // Borrowed when the envelope was written with the tool's answer.
    let text = envelope.json();
    let mut out = Vec::with_capacity(text.len() * 2 + 160);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    // Writing a string or an integer into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, id);
    out.extend_from_slice(if complete {
        br#","result":{"resultType":"complete","content":[{"type":"text","text":"#.as_slice()
    } else {
        br#","result":{"content":[{"type":"text","text":"#
    });
    let _ = serde_json::to_writer(&mut out, &*text);
    out.extend_from_slice(br#"}],"structuredContent":"#);
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(if envelope.is_error() {
        br#","isError":true}}"#.as_slice()
    } else {
        br#","isError":false}}"#
    });
    out
}

fn unknown_tool(unknown: UnknownTool) -> ErrorData {
    ErrorData::invalid_params(unknown.to_string(), None)
}

/// A `tools/call` whose `arguments` arrive as JSON text of any shape and any depth (`None`: not
/// sent). An object is served; a string that holds an object is decoded and served for a tool
/// that is not strict; anything else is refused with `-32602`, because MCP defines `arguments`
/// as an object and such a request is malformed, not a call the tool could serve.
pub(super) async fn call_with_raw_arguments(
    toolbox: &Arc<Toolbox>,
    cx: &Context,
    name: &str,
    arguments: Option<Arc<str>>,
) -> Result<Envelope, ErrorData> {
    let Some(text) = arguments else {
        return served(run(toolbox, cx, name, None).await);
    };
    let lenient = toolbox.get(name).is_some_and(|tool| !tool.strict());
    let trimmed = text.trim_start();
    match trimmed.as_bytes().first() {
        Some(b'{') => served(run(toolbox, cx, name, Some(text)).await),
        Some(b'"') if lenient => match decoded_object(trimmed) {
            Some(object) => served(run(toolbox, cx, name, Some(object.into())).await),
            None => refused(run(toolbox, cx, name, Some(text)).await),
        },
        _ => refused(run(toolbox, cx, name, Some(text)).await),
    }
}

/// Calls tool `name` with the text of its arguments. A tool with a plain `fn` body runs on the
/// pool of sync bodies (`call::bodies`) once its arguments are read, so a slow body stalls no other call,
/// on a multi-thread or a current-thread runtime alike; an `async fn` tool runs on the runtime.
async fn run(
    toolbox: &Arc<Toolbox>,
    cx: &Context,
    name: &str,
    arguments: Option<Arc<str>>,
) -> Result<Envelope, UnknownTool> {
    // A name the toolbox does not show goes the async way: the pipeline answers it unknown.
    if !toolbox.get(name).is_some_and(crate::Tool::has_sync_body) {
        return call_now(toolbox, cx, name, arguments.as_deref()).await;
    }
    // The arguments are read here; only a body that will run leaves for a thread of the pool
    // of sync bodies, so a refusal costs no thread hop. A call sent without arguments takes
    // the same way, so its body too is answered at the tool's timeout.
    let started = match arguments.as_deref() {
        Some(text) => toolbox.call_json_started(cx, name, text).await?,
        None => toolbox.call_started(cx, name).await?,
    };
    match started {
        Started::Done(envelope) => Ok(envelope),
        Started::Body(body) => Ok(body.run_off_the_runtime(cx).await),
    }
}

async fn call_now(
    toolbox: &Toolbox,
    cx: &Context,
    name: &str,
    arguments: Option<&str>,
) -> Result<Envelope, UnknownTool> {
    match arguments {
        Some(text) => toolbox.call_json_in(cx, name, text).await,
        None => toolbox.call_in(cx, name, None).await,
    }
}

fn served(call: Result<Envelope, UnknownTool>) -> Result<Envelope, ErrorData> {
    call.map_err(unknown_tool)
}

/// `-32602` carrying the toolbox's refusal of the `arguments` value: its sentence as `message`,
/// the envelope as `data`.
fn refused(call: Result<Envelope, UnknownTool>) -> Result<Envelope, ErrorData> {
    let envelope = call.map_err(unknown_tool)?;
    match envelope.message() {
        Some(message) if envelope.is_error() => {
            Err(ErrorData::invalid_params(message.to_owned(), Some(envelope.to_value())))
        }
        // The toolbox served it after all: answer what it answered.
        _ => Ok(envelope),
    }
}

/// The text of the object a JSON string holds (`"{\"a\":1}"` → `{"a":1}`), if it holds one.
fn decoded_object(string_json: &str) -> Option<String> {
    // Not `container_in_string`, which builds a `Value`: this text goes to the walker, numbers as sent.
    let text: String = serde_json::from_str(string_json).ok()?;
    // `IgnoredAny` checks the syntax without building a value, so a deep object is no problem.
    let is_object = text.trim_start().starts_with('{') && serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
    is_object.then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::fault::Fault;
    use rmcp::model::{ResultType, ServerJsonRpcMessage, ServerResult};

    #[test]
    fn the_direct_reply_is_the_bytes_rmcp_writes() {
        let envelopes = [
            Envelope::ok(serde_json::json!({"rows": [{"key": "orders \"x\"\n", "calls": 1290, "ms": 1.5}]})),
            Envelope::from(Fault::backend("reading notes")),
        ];
        for id in [RequestId::Number(7), RequestId::Number(-3), RequestId::String("a\"b\u{e9}".into())] {
            for envelope in &envelopes {
                for complete in [true, false] {
                    let mut result = call_tool_result(envelope);
                    // rmcp sets it for a 2026-07-28 peer, strips it for an older one.
                    result.result_type = complete.then_some(ResultType::COMPLETE);
                    let rmcp = ServerJsonRpcMessage::response(ServerResult::CallToolResult(result), id.clone());
                    let expected = serde_json::to_string(&rmcp).unwrap();
                    assert_eq!(String::from_utf8(call_reply(&id, envelope, complete)).unwrap(), expected);
                }
            }
        }
    }

    #[test]
    fn a_string_that_holds_an_object_is_decoded() {
        assert_eq!(decoded_object(r#""{\"a\": 1}""#).as_deref(), Some(r#"{"a": 1}"#));
        assert_eq!(decoded_object(r#""[1]""#), None);
        assert_eq!(decoded_object(r#""{not json""#), None);
        assert_eq!(decoded_object("[1]"), None);
    }
}
