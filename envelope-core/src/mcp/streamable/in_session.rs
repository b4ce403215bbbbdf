//! A Streamable HTTP request that names a session (MCP 2025-11-25 "Transports / Streamable HTTP
//! / Session Management"): the session it names, who opens one, the answer to a session that is
//! not open or not its caller's, and a response that holds its request id in use.

use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use axum::{
    body::{Body, Bytes},
    http::StatusCode,
    response::Response,
};
use rmcp::model::{ErrorData, RequestId, ServerJsonRpcMessage};

use super::super::sessions::{InFlight, Opener};
use super::replies::{error_body, json};
use crate::Caller;

/// The `Mcp-Session-Id` a request names (MCP 2025-11-25 "Transports / Streamable HTTP / Session
/// Management"), when it is text.
pub(super) fn session_named(headers: &axum::http::HeaderMap) -> Option<&str> {
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok())
}

/// The answer to a request naming a session that is not open, or not its caller's: `404`, as
/// rmcp answers an unknown session (MCP 2025-11-25: a client answered 404 starts a new
/// session), a JSON-RPC error body.
pub(super) fn session_not_found(id: Option<RequestId>) -> Response {
    let why = "Not Found: Session not found";
    let reply = ServerJsonRpcMessage::error(ErrorData::invalid_request(why, None), id);
    json(StatusCode::NOT_FOUND, error_body(&reply))
}

/// Who opens a session with this request: the verified caller, else the peer address.
pub(super) fn opener(caller: Option<&Caller>, extensions: &axum::http::Extensions) -> Opener {
    let peer = extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0.ip());
    Opener {
        caller: caller.map(Caller::key),
        share_key: match (caller, peer) {
            (Some(caller), _) => Some(caller.quota_key()),
            // Counted as an anonymous caller's limits are: an IPv6 peer by its /64.
            (None, Some(peer)) => Some(Caller::anonymous().with_peer(peer).quota_key()),
            (None, None) => None,
        },
    }
}

/// `response`, holding `in_flight` (a session's request id in use) until its body is dropped.
pub(super) fn holding(response: Response, in_flight: Option<InFlight>) -> Response {
    match in_flight {
        Some(in_flight) => response.map(|inner| Body::new(Holding { inner, _in_flight: in_flight })),
        None => response,
    }
}

/// A response body that holds its request's id in use in its session ([`Book::request`]).
struct Holding {
    inner: Body,
    _in_flight: InFlight,
}

impl hyper::body::Body for Holding {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}
