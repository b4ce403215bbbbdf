//! Approval through MCP 2026-07-28's multi round-trip requests (SEP-2322, "MRTR").
//!
//! For a client that speaks 2026-07-28 and declares the `elicitation` capability (form mode) in
//! its request's `_meta`, a `tools/call` of a confirm tool that would answer
//! `needs_confirmation` answers an `InputRequiredResult` instead:
//!
//! ```json
//! {
//!   "resultType": "input_required",
//!   "inputRequests": {
//!     "approval": {
//!       "method": "elicitation/create",
//!       "params": {
//!         "mode": "form",
//!         "message": "delete_note waits for your approval. It would do: {\"delete\":{...}}",
//!         "requestedSchema": {"type": "object", "required": ["approved"],
//!           "properties": {"approved": {"type": "boolean", "title": "Approve", "description": "..."}}}
//!       }
//!     }
//!   },
//!   "requestState": "<the sealed pending_action_id>"
//! }
//! ```
//!
//! The client asks the person, then calls the same tool again with the same arguments, the
//! `requestState` as it was, and `inputResponses: {"approval": <ElicitResult>}`:
//! - `{"action": "accept", "content": {"approved": true}}` runs the action once; its envelope
//!   is the answer;
//! - `accept` with `approved` `false`, or `decline`: `ok` with
//!   `{"done": false, "reason": "declined"}`; `cancel`: `"reason": "cancelled"`; `approved` is
//!   read as `confirm_action` reads it (`"true"` and `"false"` too), and any other value, or
//!   none, is refused `-32602` naming it, the action still pending (checked once the
//!   `requestState` and the arguments match an action that waits; a key of `inputResponses`
//!   sent twice is refused before, by the pre-reader);
//! - a `requestState` that is forged, expired or used answers as `confirm_action` would
//!   (`NOT_FOUND`, `CONFLICT`), and runs nothing;
//! - a retry whose arguments are not the sealed ones, or that carries no readable
//!   `approval` response, is a new call: it gets a fresh `InputRequiredResult`.
//!
//! Every other client (the 2025 versions, or no elicitation capability) gets the envelope flow:
//! `needs_confirmation`, then `confirm_action`.

use std::sync::Arc;

use rmcp::{
    ErrorData, RoleServer,
    model::{
        BooleanSchema, CallToolRequestParams, CallToolResponse, ElicitRequest, ElicitRequestParams, ElicitResult,
        ElicitationAction, ElicitationSchema, InputRequest, InputRequests, InputRequiredResult, InputResponses,
        PrimitiveSchemaDefinition, ProtocolVersion,
    },
    service::RequestContext,
};
use serde_json::Value;

use crate::{Envelope, Toolbox, outcome::Confirmation, outcome::Decision};

/// The key of the one input request, in `inputRequests` and `inputResponses`.
pub(super) const APPROVAL_KEY: &str = "approval";
/// The boolean field of the elicitation form.
pub(super) const APPROVED_FIELD: &str = "approved";

/// Whether this call of tool `name` takes the MRTR flow: a confirm tool, a request on
/// 2026-07-28 or later, from a client that declared form elicitation (an empty `elicitation`
/// object means form mode).
pub(super) fn applies(toolbox: &Toolbox, name: &str, context: &RequestContext<RoleServer>) -> bool {
    if !toolbox.needs_confirmation(name) {
        return false;
    }
    let recent = context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    let elicits =
        context.client_capabilities().and_then(|c| c.elicitation).is_some_and(|e| e.form.is_some() || e.url.is_none());
    recent && elicits
}

/// A `tools/call` in the MRTR flow; `arguments` is the exact text sent (`None`: not sent).
pub(super) async fn call(
    toolbox: &Arc<Toolbox>,
    cx: &crate::Context,
    request: &CallToolRequestParams,
    arguments: Option<Arc<str>>,
) -> Result<CallToolResponse, ErrorData> {
    let name = request.name.as_ref();
    if let Some(state) = request.request_state.as_deref() {
        // Text serde_json cannot read (too deep, a number past f64) is a new call, which the
        // toolbox then refuses by name.
        let read = match arguments.as_deref() {
            None => Some(Value::Null),
            Some(text) => serde_json::from_str::<Value>(text).ok(),
        };
        if let Some(args) = read {
            let decision = decision(request.input_responses.as_ref());
            if let Some(answered) = toolbox.retry_pending_in(cx, name, state, &args, decision).await? {
                return Ok(complete(&answered));
            }
        }
    }
    let envelope = super::call_tool::call_with_raw_arguments(toolbox, cx, name, arguments).await?;
    match envelope.confirmation() {
        Some(confirmation) => Ok(input_required(name, confirmation)?.into()),
        None => Ok(complete(&envelope)),
    }
}

fn complete(envelope: &Envelope) -> CallToolResponse {
    CallToolResponse::Complete(super::call_tool::call_tool_result(envelope))
}

/// The person's answer in `inputResponses.approval`, if there is a readable one (`Ok(None)`:
/// none, a new call). An `accept` whose `approved` is read as `confirm_action` reads its own:
/// `true` or `false`, or the strings `"true"` and `"false"`; any other value (or none) is
/// refused `-32602` naming it, and the action stays pending: the person's answer is not
/// guessed, and the id is not used up by a client's mistake.
fn decision(responses: Option<&InputResponses>) -> Result<Option<Decision>, ErrorData> {
    let Some(answer) = responses.and_then(|r| r.get(APPROVAL_KEY)) else { return Ok(None) };
    let Ok(answer) = serde_json::from_value::<ElicitResult>(answer.clone()) else { return Ok(None) };
    Ok(Some(match answer.action {
        ElicitationAction::Accept => match answer.content.as_ref().and_then(|c| c.get(APPROVED_FIELD)) {
            Some(Value::Bool(true)) => Decision::Approve,
            Some(Value::String(s)) if s == "true" => Decision::Approve,
            Some(Value::Bool(false)) => Decision::Decline,
            Some(Value::String(s)) if s == "false" => Decision::Decline,
            other => {
                let sent = match other {
                    Some(v) => format!("is {}", crate::words::cut::cut(&v.to_string(), 40)),
                    None => "is missing".to_owned(),
                };
                let why = format!(
                    "inputResponses.{APPROVAL_KEY}.content.{APPROVED_FIELD} {sent}; accepted: true or false, the form's boolean. Send the person's answer as true or false; the action still waits for it"
                );
                return Err(ErrorData::invalid_params(why, None));
            }
        },
        ElicitationAction::Decline => Decision::Decline,
        ElicitationAction::Cancel => Decision::Cancel,
        // An action of a later revision: not an approval.
        _ => return Ok(None),
    }))
}

/// The `InputRequiredResult` for a queued action: one form elicitation asking the person,
/// the sealed id as `requestState`.
fn input_required(tool: &str, confirmation: &Confirmation) -> Result<InputRequiredResult, ErrorData> {
    let preview = match confirmation.preview() {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let message = format!("{tool} waits for your approval. It would do: {preview}");
    let approved = BooleanSchema::new()
        .title("Approve")
        .description(format!("true runs {tool} once as previewed; false drops it"));
    let schema = ElicitationSchema::builder()
        .required_property(APPROVED_FIELD, PrimitiveSchemaDefinition::Boolean(approved))
        .build()
        .map_err(|e| ErrorData::internal_error(format!("the approval form: {e}"), None))?;
    let form = ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: schema };
    let mut requests = InputRequests::new();
    requests.insert(APPROVAL_KEY.to_owned(), InputRequest::Elicitation(ElicitRequest::new(form)));
    Ok(InputRequiredResult::new(Some(requests), Some(confirmation.pending_action_id().to_owned())))
}
