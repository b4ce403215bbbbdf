//! Wire formats: the envelope contract, and the shapes of existing surfaces that clients already
//! parse, reproduced byte for byte.

use serde::ser::{SerializeMap, Serializer};
use serde_json::{Value, json};

use crate::outcome::code::Status;
use crate::outcome::refusal::Hints;

/// How envelopes are written on the wire (the HTTP body, MCP's text content and
/// `structuredContent`), set for a whole toolbox with
/// [`Toolbox::with_wire_format`](crate::Toolbox::with_wire_format). Each format has its own
/// `outputSchema` ([`Tool::output_schema`](crate::Tool::output_schema)). The HTTP status follows
/// the envelope, not the format ([`http::status`](crate::http::status)); MCP `isError` is true
/// for refusals and faults in every format.
///
/// | format | ok | refusal | fault | needs_confirmation |
/// |---|---|---|---|---|
/// | `Envelope` | `{"status":"ok","success":true,"data":…}` | `{"status":"invalid","success":false,"error_code":…,"message":…,"hints":{…},"retryable":false}` | `{"status":"error",…}` | `{"status":"needs_confirmation",…}` |
/// | `StatusHints` | `{"status":"ok","data":…}` | `{"status":"invalid","message":"<sentence>","hints":{"parameter":"hours_back"}}` | `{"status":"error","message":"…","hints":{"operation":"get_top_queries"}}` | `{"status":"needs_confirmation","message":…,"pending_action_id":…,"preview":…,"preview_hash":…}` |
/// | `SuccessFlag` | the data object itself (`{"count":2,"results":[…]}`); data that is not an object, or has its own `success` other than `true`, as `{"success":true,"data":…}` | `{"success":false,"refused":true,"error":"<sentence>"}` | `{"success":false,"refused":false,"error":"…"}` | `{"success":false,"refused":false,"error":…,"pending_action_id":…,"preview":…,"preview_hash":…}` |
/// | `ErrorCodeSummary` | `{"status":"ok","data":…}` | `{"status":"error","error_code":"ACME_VALIDATION_ERROR","summary":"<sentence>"}` | `{"status":"error","error_code":"ACME_BACKEND_ERROR","summary":"…"}` | `{"status":"needs_confirmation","error_code":"ACME_CONFIRMATION_REQUIRED","pending_action_id":…,"preview":{…},"preview_hash":…,"summary":…}` |
///
/// The three formats of existing surfaces carry no `hints.trace_id` (their shapes have no place
/// for it); a fault's log line still carries it. `error_code` carries the toolbox's prefix
/// ([`Toolbox::with_code_prefix`](crate::Toolbox::with_code_prefix)).
///
/// ```
/// use envelope_core::{Envelope, Fault, outcome::WireFormat};
///
/// let fault = Envelope::from(Fault::backend("get_top_queries")).with_code_prefix(Some("ACME_"));
/// assert_eq!(
///     fault.clone().with_wire_format(WireFormat::SuccessFlag).to_json(),
///     r#"{"success":false,"refused":false,"error":"get_top_queries failed: the server failed while serving a valid request. Retry later if the tool is idempotent; otherwise check whether it took effect."}"#
/// );
/// assert!(fault.with_wire_format(WireFormat::ErrorCodeSummary).to_json()
///     .starts_with(r#"{"status":"error","error_code":"ACME_BACKEND_ERROR","summary":"get_top_queries failed: "#));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WireFormat {
    /// The wire contract of DESIGN (the default): `status`, `success`, `data` or `error_code`,
    /// `message`, `hints`, `retryable`.
    #[default]
    Envelope,
    /// `status` (`ok`, `invalid`, `error`, `needs_confirmation`), `data` or `message` and
    /// `hints` holding only `parameter` (a refusal) or `operation` (a fault).
    StatusHints,
    /// `success: false` with `refused` (true for a refusal, false for a fault) and `error` (the
    /// sentence); a success is the tool's data object itself, with no `count` or `results` key
    /// added to a failure.
    SuccessFlag,
    /// One status word, `error`, for refusals and faults, told apart by `error_code`; the
    /// sentence is `summary`.
    ErrorCodeSummary,
}

/// The optional keys every status may carry, last in every format with room for them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Extra {
    pub(crate) warning: Option<String>,
    pub(crate) provenance: Option<Value>,
}

/// An envelope's parts, for the wire formats. Here, beneath the envelope, so that the envelope
/// module uses the formats and not the other way round.
pub(crate) enum Parts<'a> {
    Ok(&'a Value),
    Invalid { message: &'a str, hints: &'a Hints },
    Error { message: &'a str, operation: Option<&'a str> },
    Confirm { message: &'a str, pending_action_id: &'a str, preview: &'a Value, preview_hash: &'a str },
}

/// Writes an envelope of `status`, `code` (as on the wire, with its prefix) and `parts` in a
/// (non-default) wire `format`.
pub(crate) fn serialize<S: Serializer>(
    format: WireFormat,
    status: Status,
    code: Option<String>,
    parts: Parts<'_>,
    extra: Option<&Extra>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let code = code.as_deref().unwrap_or("");
    // A success written as the tool's own data object has no room for keys of envelope's.
    let room = !matches!((format, &parts), (WireFormat::SuccessFlag, Parts::Ok(Value::Object(fields)))
        if fields.get("success").is_none_or(|v| v == &Value::Bool(true)));
    let mut m = s.serialize_map(None)?;
    match (format, parts) {
        (WireFormat::SuccessFlag, Parts::Ok(data)) => match data {
            // An object of the tool's own `success: false` would read as a failure: wrapped.
            Value::Object(fields) if fields.get("success").is_none_or(|v| v == &Value::Bool(true)) => {
                for (k, v) in fields {
                    m.serialize_entry(k, v)?;
                }
            }
            _ => {
                m.serialize_entry("success", &true)?;
                m.serialize_entry("data", data)?;
            }
        },
        (_, Parts::Ok(data)) => {
            m.serialize_entry("status", "ok")?;
            m.serialize_entry("data", data)?;
        }
        (WireFormat::StatusHints, Parts::Invalid { message, hints, .. }) => {
            m.serialize_entry("status", "invalid")?;
            m.serialize_entry("message", message)?;
            if let Some(parameter) = hints.parameter() {
                m.serialize_entry("hints", &json!({ "parameter": parameter }))?;
            }
        }
        (WireFormat::StatusHints, Parts::Error { message, operation, .. }) => {
            m.serialize_entry("status", "error")?;
            m.serialize_entry("message", message)?;
            if let Some(op) = operation {
                m.serialize_entry("hints", &json!({ "operation": op }))?;
            }
        }
        (WireFormat::StatusHints, Parts::Confirm { message, pending_action_id, preview, preview_hash }) => {
            m.serialize_entry("status", "needs_confirmation")?;
            m.serialize_entry("message", message)?;
            m.serialize_entry("pending_action_id", pending_action_id)?;
            m.serialize_entry("preview", preview)?;
            m.serialize_entry("preview_hash", preview_hash)?;
        }
        (WireFormat::SuccessFlag, Parts::Invalid { message, .. } | Parts::Error { message, .. }) => {
            m.serialize_entry("success", &false)?;
            m.serialize_entry("refused", &(status == Status::Invalid))?;
            m.serialize_entry("error", message)?;
        }
        (WireFormat::SuccessFlag, Parts::Confirm { message, pending_action_id, preview, preview_hash }) => {
            m.serialize_entry("success", &false)?;
            m.serialize_entry("refused", &false)?;
            m.serialize_entry("error", message)?;
            m.serialize_entry("pending_action_id", pending_action_id)?;
            m.serialize_entry("preview", preview)?;
            m.serialize_entry("preview_hash", preview_hash)?;
        }
        (_, Parts::Invalid { message, .. } | Parts::Error { message, .. }) => {
            m.serialize_entry("status", "error")?;
            m.serialize_entry("error_code", code)?;
            m.serialize_entry("summary", message)?;
        }
        (_, Parts::Confirm { message, pending_action_id, preview, preview_hash }) => {
            m.serialize_entry("status", "needs_confirmation")?;
            m.serialize_entry("error_code", code)?;
            m.serialize_entry("pending_action_id", pending_action_id)?;
            m.serialize_entry("preview", preview)?;
            m.serialize_entry("preview_hash", preview_hash)?;
            m.serialize_entry("summary", message)?;
        }
    }
    if let (true, Some(extra)) = (room, extra) {
        serialize_extra(&mut m, extra)?;
    }
    m.end()
}

/// `warning`, then `provenance`, each when set: the last keys of every format with room.
pub(crate) fn serialize_extra<M: SerializeMap>(m: &mut M, extra: &Extra) -> Result<(), M::Error> {
    if let Some(w) = &extra.warning {
        m.serialize_entry("warning", w)?;
    }
    if let Some(p) = &extra.provenance {
        m.serialize_entry("provenance", p)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::envelope::Envelope;

    fn ok(data: Value, format: WireFormat) -> String {
        Envelope::ok(data).with_wire_format(format).to_json()
    }

    #[test]
    fn success_flag_keeps_a_success_a_success() {
        let f = WireFormat::SuccessFlag;
        assert_eq!(ok(json!({"count": 0, "results": []}), f), r#"{"count":0,"results":[]}"#);
        assert_eq!(ok(json!([1, 2]), f), r#"{"success":true,"data":[1,2]}"#);
        assert_eq!(ok(json!(5), f), r#"{"success":true,"data":5}"#);
        // The tool's own `success: false` would read as a failure.
        assert_eq!(ok(json!({"success": false, "n": 1}), f), r#"{"success":true,"data":{"success":false,"n":1}}"#);
        assert_eq!(ok(json!({"success": true, "n": 1}), f), r#"{"success":true,"n":1}"#);
    }

    #[test]
    fn ok_lines_of_the_status_formats() {
        assert_eq!(ok(json!({"a": 1}), WireFormat::StatusHints), r#"{"status":"ok","data":{"a":1}}"#);
        assert_eq!(ok(json!(null), WireFormat::ErrorCodeSummary), r#"{"status":"ok","data":null}"#);
    }
}
