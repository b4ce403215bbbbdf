//! One request through the server: the `Host` check, a place in flight or a body count, then
//! the router; the router's empty 404 and 405 answered in JSON.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes};
use axum::http::{Method, Request, Response, StatusCode, Uri, header};
use hyper::body::{Frame, Incoming, SizeHint};
use tower::Service;

use crate::http::transport::{ErrorBody, TransportError};

use super::body::Budgeted;
use super::in_flight::Place;
use super::peers::{BUSY, DONE, LOG_TARGET, PeerCounts, Tracked};
use super::shared::Shared;

/// The hyper service of one connection: the `Host` check, the bound on requests in flight, the
/// body's budget and deadline, then the router.
#[derive(Clone)]
pub(super) struct PerRequest {
    pub(super) shared: Arc<Shared>,
    pub(super) peer: SocketAddr,
    /// The connection's [`HeadClock`](super::head::HeadClock) phase: `BUSY` from a head to its response.
    pub(super) phase: Arc<Tracked>,
    /// What the peer address's connections count together: its bodies being read, its
    /// places in flight.
    pub(super) counts: Arc<PeerCounts>,
}

/// The answer to one request: refused at once, or the router's answer on its way (no future
/// boxed per request: the router's own is held as it is).
#[allow(clippy::large_enum_variant)] // the routed answer is the usual one; a box would cost each request an allocation
pub(super) enum Answer {
    Ready(Option<Response<Ended>>),
    Routed(Routed),
}

/// A request handed to the router, with what its answer needs once it comes.
pub(super) struct Routed {
    future: axum::routing::future::RouteFuture<Infallible>,
    /// Released when the answer comes (the bound on requests in flight).
    permit: Option<Place>,
    request: PerRequest,
    method: Method,
    uri: Uri,
}

impl Future for Answer {
    type Output = Result<Response<Ended>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Answer::Ready(response) => Poll::Ready(Ok(response.take().expect("an answer polled after it was given"))),
            Answer::Routed(routed) => {
                let response = match ready!(Pin::new(&mut routed.future).poll(cx)) {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                let place = routed.permit.take();
                // An event stream keeps its caller's count until it ends. A `POST`'s carries the
                // answer of a request still being worked on (a tool call in a session): it
                // keeps its place under `max_in_flight` too, so the bodies running stay within
                // it. A `GET`'s only waits for events: its place is given back, and it may be
                // closed to make room.
                let streams = response
                    .headers()
                    .get(header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| v.starts_with("text/event-stream"));
                let get = routed.method == Method::GET;
                let stream = place.filter(|_| streams);
                if get && let Some(place) = &stream {
                    place.streaming();
                }
                let shaped = routed.request.shared.json_only(response, &routed.method, &routed.uri);
                let mut ended = routed.request.ended(shaped);
                if let Some(place) = stream {
                    routed.request.phase.streaming.store(get, Ordering::Relaxed);
                    ended.body_mut().stream = Some(place);
                }
                Poll::Ready(Ok(ended))
            }
        }
    }
}

impl PerRequest {
    /// A response whose body, once written whole (dropped by hyper), starts the wait for the
    /// next head.
    fn ended(&self, response: Response<Body>) -> Response<Ended> {
        response.map(|body| Ended { body, phase: Arc::clone(&self.phase), stream: None })
    }
}

/// A response body, marking the connection's [`HeadClock`](super::head::HeadClock) `DONE` when hyper drops it (it has
/// taken its last frame, or will send none).
pub(super) struct Ended {
    body: Body,
    phase: Arc<Tracked>,
    /// The place of an event stream's request, counted under its caller's share until the
    /// stream ends ([`Place::streaming`]).
    stream: Option<Place>,
}

impl hyper::body::Body for Ended {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl Drop for Ended {
    fn drop(&mut self) {
        if self.stream.is_some() {
            self.phase.streaming.store(false, Ordering::Relaxed);
        }
        let _ = self.phase.phase.compare_exchange(BUSY, DONE, Ordering::Relaxed, Ordering::Relaxed);
    }
}

impl hyper::service::Service<Request<Incoming>> for PerRequest {
    type Response = Response<Ended>;
    type Error = Infallible;
    type Future = Answer;

    fn call(&self, request: Request<Incoming>) -> Answer {
        // A whole head arrived: no header timeout until its response is written.
        self.phase.phase.store(BUSY, Ordering::Relaxed);
        self.phase.started.store(false, Ordering::Relaxed);
        let shared = Arc::clone(&self.shared);
        let peer = self.peer;
        if let Err(error) = shared.hosts.check(request.headers(), request.uri()) {
            tracing::info!(target: LOG_TARGET, %peer, "request refused: {}", error.message());
            let response = error.into_response_as(shared.shape(request.uri().path()));
            return Answer::Ready(Some(self.ended(response)));
        }
        use hyper::body::Body as _;
        let refused = |bound: String| {
            tracing::warn!(target: LOG_TARGET, %peer, "request refused: {bound}");
            let error = TransportError::service_unavailable(&bound, shared.limits.retry_after_seconds);
            let response = error.into_response_as(shared.shape(request.uri().path()));
            Answer::Ready(Some(self.ended(response)))
        };
        let place =
            Place::new(Arc::clone(&shared), crate::context::counted_address(peer.ip()), Arc::clone(&self.counts));
        let after_body = if request.body().is_end_stream() {
            match place.take_now() {
                Ok(true) => None,
                Ok(false) => {
                    return refused(format!(
                        "this server is at its bound of {} in flight",
                        crate::words::render::plural(shared.limits.max_in_flight, "request")
                    ));
                }
                Err(limited) => {
                    tracing::warn!(target: LOG_TARGET, %peer, "request refused: {limited}");
                    let response = limited.transport_error().into_response_as(shared.shape(request.uri().path()));
                    return Answer::Ready(Some(self.ended(response)));
                }
            }
        } else {
            // A body is read before the request takes a place in flight: a client that sends
            // it slowly, or never, holds no place; its address holds a bounded number.
            let bound = shared.limits.max_bodies_per_peer;
            if self.counts.bodies.fetch_add(1, Ordering::AcqRel) >= bound {
                self.counts.bodies.fetch_sub(1, Ordering::AcqRel);
                return refused(format!(
                    "this address already sends this server's bound of {bound} request bodies at once"
                ));
            }
            Some((place.clone(), Arc::clone(&self.counts)))
        };
        let method = request.method().clone();
        let uri = request.uri().clone();
        let (mut parts, body) = request.into_parts();
        parts.extensions.insert(place.clone());
        // The peer, as axum's `into_make_service_with_connect_info` gives it: an anonymous
        // caller's limits count under it (`http::with_peer`).
        parts.extensions.insert(axum::extract::ConnectInfo(peer));
        let body = Body::new(Budgeted::new(body, Arc::clone(&shared), peer, after_body));
        let future = shared.router.clone().call(Request::from_parts(parts, body));
        Answer::Routed(Routed { future, permit: Some(place), request: self.clone(), method, uri })
    }
}

impl Shared {
    fn shape(&self, path: &str) -> ErrorBody {
        if self.json_rpc_paths.iter().any(|p| p == path) { ErrorBody::JsonRpc } else { ErrorBody::Plain }
    }

    /// The router's own empty 404 and 405 (a path or a method no route takes) as transport
    /// errors; every other response as it is.
    fn json_only(&self, response: Response<Body>, method: &Method, uri: &Uri) -> Response<Body> {
        use hyper::body::Body as _;
        let status = response.status();
        let routing = status == StatusCode::NOT_FOUND || status == StatusCode::METHOD_NOT_ALLOWED;
        if !routing || response.body().size_hint().exact() != Some(0) {
            return response;
        }
        let shape = self.shape(uri.path());
        let error = if status == StatusCode::NOT_FOUND {
            let routes: Vec<&str> = self.routes.iter().map(String::as_str).collect();
            TransportError::not_found(uri.path(), &routes)
        } else {
            let allow = response.headers().get(header::ALLOW).and_then(|v| v.to_str().ok()).unwrap_or("");
            let allowed: Vec<&str> = allow.split(',').map(str::trim).filter(|m| !m.is_empty()).collect();
            TransportError::method_not_allowed(method.as_str(), &allowed)
        };
        tracing::info!(target: LOG_TARGET, %method, path = %crate::words::budget::cut_text(uri.path(), 64, 256), "request refused: {}", error.word());
        error.into_response_as(shape)
    }
}
