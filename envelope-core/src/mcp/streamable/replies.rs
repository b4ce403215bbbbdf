//! The JSON replies of the Streamable HTTP endpoint: a JSON body, a JSON-RPC error with its
//! status by one rule (and `"id": null` where it answers no request), and rmcp's own answers
//! (its plain-text refusals, a session's `GET` and `DELETE`) made JSON-RPC errors under their
//! status, what they quote of long header values cut.

use std::borrow::Cow;

use axum::{
    body::Body,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use rmcp::model::{ErrorData, JsonRpcMessage, RequestId, ServerJsonRpcMessage};

use super::super::echoes::LongValues;

/// The largest `tools/call` reply read back to find its envelope's HTTP status: 64 MiB.
pub(super) const MAX_REPLY_BYTES: usize = 64 << 20;

/// A response of `status` with the JSON `body`.
pub(super) fn json(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A JSON-RPC error reply of the pre-reader's, with its HTTP status by one rule: under the
/// request's id it answers that request, 200 (a request is answered with a JSON-RPC response,
/// MCP "Streamable HTTP"); under `"id": null` (no id could be read: not JSON, an empty body, an
/// id over 256 bytes, a batch) it is 400, as for a message the server cannot accept. Transport
/// refusals ([`TransportError`]) take their status from the code table instead.
pub(super) fn error_response(reply: &ServerJsonRpcMessage) -> Response {
    let status = match reply {
        JsonRpcMessage::Error(e) if e.id.is_none() => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    };
    json(status, error_body(reply))
}

/// The bytes of a JSON-RPC error reply: JSON-RPC 2.0 §5, an error whose request id could not be
/// read (or that answers no request, as a session's `GET`) carries `"id": null`; rmcp leaves the
/// member out.
pub(super) fn error_body(reply: &ServerJsonRpcMessage) -> Vec<u8> {
    let mut value = serde_json::to_value(reply).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        object.entry("id").or_insert(serde_json::Value::Null);
    }
    serde_json::to_vec(&value).unwrap_or_default()
}

/// rmcp's own refusals (a protocol version header it does not serve, ...) are plain text: the
/// same status with a JSON-RPC error body instead. What any refusal of rmcp's quotes of the
/// request's long header values is cut ([`echoes`](super::echoes)): a refusal's message holds
/// at most 200 characters of a header value, and 1,000 characters in all.
pub(super) async fn json_rpc_only(response: Response, id: Option<RequestId>, long: &LongValues) -> Response {
    let content_type = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let is_json = content_type.starts_with("application/json");
    if content_type.starts_with("text/event-stream")
        || response.status() == StatusCode::ACCEPTED
        || (is_json && response.status().is_success())
    {
        return response;
    }
    if is_json {
        return bounded_error(response, long).await;
    }
    let status = response.status();
    let text = match axum::body::to_bytes(response.into_body(), MAX_REPLY_BYTES).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => String::new(),
    };
    let text = if text.is_empty() { status.canonical_reason().unwrap_or("refused").to_owned() } else { text };
    let reply = ServerJsonRpcMessage::error(ErrorData::invalid_request(long.bound(&text).into_owned(), None), id);
    let mut response = json(status, error_body(&reply));
    *response.status_mut() = status;
    response
}

/// A JSON-RPC error of rmcp's (a header that contradicts the body: -32020, HTTP 400) with its
/// `error.message` bounded; the same bytes when it quotes nothing long.
async fn bounded_error(response: Response, long: &LongValues) -> Response {
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_REPLY_BYTES).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let Ok(mut reply) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    let Some(message) = reply.pointer_mut("/error/message") else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    let bounded = match message.as_str().map(|m| long.bound(m)) {
        Some(Cow::Owned(bounded)) => bounded,
        _ => return Response::from_parts(parts, Body::from(bytes)),
    };
    *message = serde_json::Value::String(bounded);
    let mut response = Response::from_parts(parts, Body::from(serde_json::to_vec(&reply).unwrap_or_default()));
    response.headers_mut().remove(header::CONTENT_LENGTH);
    response
}
