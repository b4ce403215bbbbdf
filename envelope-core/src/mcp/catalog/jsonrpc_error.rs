//! Who may ask for a resource or a prompt, and how a failure of such a request leaves: a
//! JSON-RPC error whose `code` is the failure's row of the one code table
//! ([`Code::json_rpc_code`](crate::Code::json_rpc_code)), its `message` the envelope's
//! sentence, and its `data` the envelope with the name or URI asked for.

use rmcp::model::{ErrorCode, ErrorData};
use serde_json::Value;

use crate::Envelope;

/// The longest `data.uri` (or `data.name`) echoed, in characters: the request carried it, but
/// an error line stays within MCP's message budget.
const ECHO_CHARS: usize = 2048;

/// The JSON-RPC error of `envelope` (a refusal or a fault), for the request that asked for
/// `key` = `asked` (`uri`, `name`): `{"code": <the code's JSON-RPC code>, "message": <the
/// envelope's message>, "data": {<the envelope's keys>..., "uri": <asked>}}`. An `ok` envelope
/// (which no caller passes) would be -32603.
pub(crate) fn error(envelope: &Envelope, key: &str, asked: &str) -> ErrorData {
    let code = envelope.error_code().map_or(-32603, |c| c.json_rpc_code());
    let message = envelope.message().unwrap_or("the request failed").to_owned();
    let mut data = envelope.to_value();
    if let Value::Object(map) = &mut data {
        map.insert(key.to_owned(), Value::String(crate::words::cut::cut(asked, ECHO_CHARS)));
    }
    ErrorData::new(ErrorCode(code), message, Some(data))
}

/// The refusal of a request for `name` (a resource's URI, a prompt's name) by `cx`'s caller on
/// the toolbox's surface, as a tool's call is refused there: the surface's scopes the caller
/// lacks (`FORBIDDEN`), or no tenant on a surface that needs one. `None`: the caller may ask.
pub(crate) fn caller_refusal(toolbox: &crate::Toolbox, cx: &crate::Context, name: &str) -> Option<Envelope> {
    let surface = toolbox.surface()?;
    let missing = surface.missing_scopes(cx.caller());
    if !missing.is_empty() {
        return Some(crate::call::policy::missing_scopes(name, &missing));
    }
    if surface.needs_tenant() && cx.caller().tenant().is_none() {
        return Some(crate::call::policy::tenant_missing(name, surface.name()));
    }
    None
}
