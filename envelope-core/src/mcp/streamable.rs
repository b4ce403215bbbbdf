//! MCP over Streamable HTTP (features `rmcp` and `http`; MCP 2025-11-25 and 2026-07-28,
//! "Transports / Streamable HTTP"), on axum with rmcp's streamable HTTP service.
//!
#![doc = include_str!("../../docs/streamable_http.md")]

use crate::words::cut::head;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::Instant;

use axum::{
    Router,
    body::{Body, Bytes},
    extract::{Request, State},
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::any,
};
use rmcp::{
    ServerHandler,
    model::{
        ClientNotification, ClientRequest, ErrorData, GetExtensions, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
    },
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::never::NeverSessionManager,
    },
};

use super::{
    McpServer, direct,
    echoes::{self, LongValues},
    frame::{self, Incoming, RawArguments},
    sessions::{self, Book, Sessions},
};
// A request that names a session: its opener, its caller, its id in flight.
mod in_session;
// JSON replies: a body, a JSON-RPC error and its status, rmcp's own answers made JSON.
mod replies;
use in_session::{holding, opener, session_named, session_not_found};
use replies::{MAX_REPLY_BYTES, error_response, json, json_rpc_only};

use crate::{
    Caller, Context, Toolbox,
    http::{AuthLayer, Authenticate, OriginLayer, TransportError, auth::ProtectedResource, read_body},
};

/// The largest request body read by default: 4 MiB, rmcp's own default.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 << 20;

/// The most sessions open at once by default ([`McpHttp::with_max_sessions`]): 1,024 (about
/// 60 MB of rmcp's session state).
pub const DEFAULT_MAX_SESSIONS: usize = 1024;

/// The most sessions one caller holds open at once by default
/// ([`McpHttp::with_max_sessions_per_caller`]): 64.
pub const DEFAULT_MAX_SESSIONS_PER_CALLER: usize = 64;

pub use super::sessions::UNINITIALIZED_SESSION_LIFE;

/// The builder of a Streamable HTTP endpoint at `/mcp` for an rmcp [`ServerHandler`] (an
/// [`McpServer`] with [`McpHttp::new`]). See the [module documentation](self).
pub struct McpHttp<H = McpServer> {
    handler: H,
    origins: OriginLayer,
    auth: Option<AuthLayer>,
    resource: Option<ProtectedResource>,
    required_scopes: Vec<String>,
    max_body_bytes: usize,
    surface: Option<crate::call::Surface>,
    sessions: bool,
    max_sessions: usize,
    max_sessions_per_caller: usize,
}

impl McpHttp<McpServer> {
    /// Serves the tools of `toolbox`; loopback origins only, no auth hook, 4 MiB bodies. On the
    /// toolbox's surface ([`Toolbox::on`]), else on the public surface `"mcp"`
    /// ([`crate::call::Surface::public`]: every tool but T4 ones).
    #[must_use]
    pub fn new(toolbox: Toolbox) -> Self {
        let server = match toolbox.surface() {
            Some(_) => McpServer::new(toolbox),
            None => McpServer::new(toolbox).with_surface("mcp"),
        };
        McpHttp::with_handler(server)
    }

    /// Serves the endpoint on `surface` ([`McpServer::with_surface`]: the tools it shows, calls
    /// made on its name), and checks every request against it after the auth hook and before
    /// the body is read ([`crate::http::admit`]): a caller without its scopes is 403
    /// `insufficient_scope`; on a surface that needs a tenant, 400 `tenant_required`, 403
    /// `tenant_mismatch`, `tenant_forbidden` or `tenant_policy_unavailable`; each a
    /// JSON-RPC error body. To serve it at another path than `/mcp`, nest the router
    /// (`Router::new().nest("/internal", ...)` serves `/internal/mcp`).
    #[must_use]
    pub fn with_surface(mut self, surface: crate::call::Surface) -> Self {
        self.handler = self.handler.with_surface(surface.clone());
        self.surface = Some(surface);
        self
    }
}

impl<H: ServerHandler + Clone> McpHttp<H> {
    /// Serves your own rmcp handler (for example one with resources and prompts that delegates
    /// `tools/list` and `tools/call` to an [`McpServer`], which then gets the exact `arguments`
    /// text through the request context).
    #[must_use]
    pub fn with_handler(handler: H) -> Self {
        McpHttp {
            handler,
            origins: OriginLayer::loopback(),
            auth: None,
            resource: None,
            required_scopes: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            surface: None,
            sessions: false,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_sessions_per_caller: DEFAULT_MAX_SESSIONS_PER_CALLER,
        }
    }

    /// Serves 2025-06-18 and 2025-11-25 clients in sessions (MCP 2025-11-25, "Transports /
    /// Streamable HTTP / Session Management"): `initialize` answers an `Mcp-Session-Id`, each
    /// later request of the session names it (an unknown one is 404), `GET /mcp` opens the
    /// session's own event stream and `DELETE /mcp` ends the session. A request is answered on
    /// an event stream, which also carries the server's requests to the client
    /// (`sampling/createMessage`, `elicitation/create` from [`crate::Context::sample`] and
    /// [`crate::Context::elicit`]), and `logging/setLevel` holds for the session. 2026-07-28
    /// requests stay stateless (SEP-2567). Without it (the default) every request is served
    /// statelessly and only `POST` is answered. Sessions live in this process's memory.
    ///
    /// Sessions are bounded: at most [`with_max_sessions`](Self::with_max_sessions) open (1,024 by
    /// default; past it an `initialize` is answered `503 service_unavailable`) and
    /// [`with_max_sessions_per_caller`](Self::with_max_sessions_per_caller) per caller (64; past
    /// it `429 rate_limited`), both with `Retry-After: 30` and a JSON-RPC error body. A session
    /// whose client has not sent `notifications/initialized` within
    /// [`UNINITIALIZED_SESSION_LIFE`] (30 s) is closed; another lives until 5 minutes without a
    /// request, or its `DELETE`. A session belongs to the caller that opened it (the auth hook's
    /// verified [`Caller::key`], or anonymous): a request of another caller naming it is
    /// answered `404` as for an unknown session (MCP 2025-11-25 "Security Best Practices /
    /// Session Hijacking"). A request whose JSON-RPC id is the id of a request of the same
    /// session still in flight is answered `-32600` under that id, and not run.
    #[must_use]
    pub fn with_sessions(mut self) -> Self {
        self.sessions = true;
        self
    }

    /// The most sessions open at once ([`with_sessions`](Self::with_sessions)), in all; an
    /// `initialize` past it is answered `503 service_unavailable`, `Retry-After: 30`. Default
    /// [`DEFAULT_MAX_SESSIONS`] (1,024); at least 1. Each session holds about 60 KB.
    #[must_use]
    pub fn with_max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// The most sessions one caller holds open at once: the caller the auth hook verified (its
    /// [`Caller::quota_key`]), else the peer address ([`crate::http::serve`] and axum's
    /// `ConnectInfo` give it; without one, only [`with_max_sessions`](Self::with_max_sessions)
    /// applies). An `initialize` past it is answered `429 rate_limited`, `Retry-After: 30`.
    /// Default [`DEFAULT_MAX_SESSIONS_PER_CALLER`] (64); at least 1.
    #[must_use]
    pub fn with_max_sessions_per_caller(mut self, sessions: usize) -> Self {
        self.max_sessions_per_caller = sessions.max(1);
        self
    }

    /// The `Origin` policy (default: loopback origins and requests without `Origin`).
    #[must_use]
    pub fn with_origins(mut self, origins: OriginLayer) -> Self {
        self.origins = origins;
        self
    }

    /// The server's one auth hook, run on every request to `/mcp` before its body is read. The
    /// [`Caller`] it answers goes into the request's extensions, and every
    /// `tools/call` of the request is made by it (its `Context`: quotas, idempotency keys,
    /// policy, audit, the tool's body). Its refusals are JSON-RPC error bodies with the
    /// transport error's status and `WWW-Authenticate` (`missing_bearer_token` 401,
    /// `invalid_bearer_token` 401, `insufficient_scope` 403, ...).
    #[must_use]
    pub fn with_auth(mut self, hook: impl Authenticate) -> Self {
        self.auth = Some(AuthLayer::new(hook).json_rpc());
        self
    }

    /// This endpoint as an OAuth protected resource (MCP "Authorization", RFC 9728): the router
    /// also serves the metadata document at `/.well-known/oauth-protected-resource` and its path
    /// form (`/.well-known/oauth-protected-resource/mcp` for a resource URL ending `/mcp`),
    /// without a token, and every refusal of the auth hook carries
    /// `WWW-Authenticate: Bearer resource_metadata="<its URL>"` (RFC 9728 §5.1), so that a
    /// client can find the authorization server; every 401 also names `scope="<its
    /// scopes_supported>"` (else the scopes the tools need), and a `tools/call` short of the
    /// tool's scopes is 403 `Bearer error="insufficient_scope", scope="<lacking>",
    /// resource_metadata="<its URL>"` (MCP 2025-11-25 "Scope challenge handling").
    #[must_use]
    pub fn with_protected_resource(mut self, resource: ProtectedResource) -> Self {
        self.resource = Some(resource);
        self
    }

    /// Every caller of this endpoint must hold each of `scopes` (the scopes this surface
    /// requires); one without is refused `insufficient_scope` (403, `WWW-Authenticate: Bearer
    /// error="insufficient_scope", scope="<scopes>"`, with `resource_metadata`) before its body
    /// is read. Takes effect with [`with_auth`](Self::with_auth).
    #[must_use]
    pub fn with_required_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The largest body read, in bytes; a larger one is `payload_too_large` (413).
    #[must_use]
    pub fn with_max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// The axum router serving `/mcp`, and `/sse` and `/messages` answering 410
    /// `legacy_sse_retired` (the retired HTTP+SSE transport; see [`crate::http::retired_sse`]).
    /// Merge it with your other routes
    /// ([`Router::merge`]); serve it with [`crate::http::serve`], whose bounds and `Host` check a
    /// public network needs.
    pub fn router(self) -> Router {
        let handler = self.handler;
        // Origin checks are this module's (with JSON bodies); rmcp's own Host and Origin checks
        // would answer in plain text. Bodies are limited before rmcp sees them.
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(self.sessions)
            .with_json_response(true)
            .with_sse_keep_alive(None)
            .disable_allowed_hosts()
            .disable_allowed_origins()
            .with_max_request_body_bytes(self.max_body_bytes.saturating_add(1024));
        // An `McpServer` (the handler of `McpHttp::new`) answers a plain 2026-07-28
        // `tools/call` itself; another handler is always served through rmcp.
        let direct = (&handler as &dyn std::any::Any).downcast_ref::<McpServer>().cloned().map(Arc::new);
        let scopes_needed = direct.as_ref().map(|s| s.toolbox.scopes().join(" ")).unwrap_or_default();
        let shared = Arc::new(handler.clone());
        let factory = move || Ok(handler.clone());
        let book = self.sessions.then(|| Arc::new(Book::new(self.max_sessions, self.max_sessions_per_caller)));
        let rmcp = if let Some(book) = &book {
            Rmcp::Sessions(Arc::new(StreamableHttpService::new(
                factory,
                Arc::new(Sessions::new(Arc::clone(book))),
                config,
            )))
        } else {
            Rmcp::Stateless(Arc::new(StreamableHttpService::new(
                factory,
                Arc::new(NeverSessionManager::default()),
                config,
            )))
        };
        let state = Endpoint {
            rmcp,
            handler: shared,
            direct,
            max_body_bytes: self.max_body_bytes,
            calls: Arc::new(Calls::default()),
            resource_metadata: self.resource.as_ref().map(|r| Arc::from(r.metadata_url())),
            sessions: book,
        };
        let mut route = Router::new().route("/mcp", any(endpoint::<H>)).with_state(state);
        // The surface's gate runs after the auth hook, which puts the verified caller in place.
        if let Some(surface) = &self.surface {
            route = crate::http::gated(route, surface, crate::http::ErrorBody::JsonRpc);
        }
        if let Some(mut auth) = self.auth {
            if let Some(resource) = &self.resource {
                auth = auth.with_resource_metadata(resource.metadata_url());
            }
            route = route.layer(auth.require_scopes(self.required_scopes));
            // Every 401 names the scopes the surface's tools need (MCP 2025-11-25
            // "Authorization / Scope selection"): the resource's `scopes_supported`, else the
            // tools' own.
            let scopes = match &self.resource {
                Some(resource) if !resource.scopes_supported().is_empty() => resource.scopes_supported().join(" "),
                _ => scopes_needed,
            };
            if !scopes.is_empty() {
                let scopes: Arc<str> = Arc::from(scopes);
                route = route.layer(axum::middleware::map_response(move |mut response: Response| {
                    let scopes = Arc::clone(&scopes);
                    async move {
                        name_scopes(&mut response, &scopes);
                        response
                    }
                }));
            }
        }
        let route = route.layer(self.origins.json_rpc()).merge(crate::http::retired_sse());
        match self.resource {
            // The metadata is public: no token, no Origin check.
            Some(resource) => route.merge(resource.router()),
            None => route,
        }
    }
}

/// rmcp's service: stateless, or with sessions ([`McpHttp::with_sessions`]).
enum Rmcp<H> {
    Stateless(Arc<StreamableHttpService<H, NeverSessionManager>>),
    Sessions(Arc<StreamableHttpService<H, Sessions>>),
}

impl<H> Clone for Rmcp<H> {
    fn clone(&self) -> Self {
        match self {
            Rmcp::Stateless(s) => Rmcp::Stateless(Arc::clone(s)),
            Rmcp::Sessions(s) => Rmcp::Sessions(Arc::clone(s)),
        }
    }
}

impl<H: ServerHandler + Clone> Rmcp<H> {
    async fn handle(&self, request: Request) -> Response {
        match self {
            Rmcp::Stateless(s) => s.handle(request).await.map(Body::new),
            Rmcp::Sessions(s) => s.handle(request).await.map(Body::new),
        }
    }
}

struct Endpoint<H> {
    rmcp: Rmcp<H>,
    /// The handler, asked which tools declare `x-mcp-header` parameters.
    handler: Arc<H>,
    /// The handler, when it is an [`McpServer`]: it answers a plain 2026-07-28 `tools/call`
    /// itself (the [direct path](super::direct)).
    direct: Option<Arc<McpServer>>,
    max_body_bytes: usize,
    calls: Arc<Calls>,
    /// The protected resource metadata URL a step-up challenge names (RFC 9728 §5.1).
    resource_metadata: Option<Arc<str>>,
    /// The open sessions ([`McpHttp::with_sessions`]).
    sessions: Option<Arc<Book>>,
}

impl<H> Clone for Endpoint<H> {
    fn clone(&self) -> Self {
        Endpoint {
            rmcp: self.rmcp.clone(),
            handler: Arc::clone(&self.handler),
            direct: self.direct.clone(),
            max_body_bytes: self.max_body_bytes,
            calls: Arc::clone(&self.calls),
            resource_metadata: self.resource_metadata.clone(),
            sessions: self.sessions.clone(),
        }
    }
}

/// The `tools/call` requests in flight of verified callers, by caller key and request id, so a
/// `notifications/cancelled` POST of the same caller can reach one. An anonymous caller's calls
/// are not listed: any client could name them. One entry per request in flight (the server's
/// bound on requests in flight bounds them), removed when its response ends.
#[derive(Default)]
struct Calls {
    map: Mutex<HashMap<(String, String), (u64, Context)>>,
    next: AtomicU64,
}

/// A call listed in [`Calls`]: its cancellation, and its entry, removed when this drops.
struct Listed {
    cancelled: Context,
    calls: Arc<Calls>,
    key: (String, String),
    serial: u64,
}

impl Calls {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), (u64, Context)>> {
        self.map.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Lists the call `id` of `caller` (a later call under the same key takes the entry).
    fn list(self: &Arc<Self>, caller: &Caller, id: &RequestId) -> Listed {
        let key = (caller.key(), serde_json::to_string(id).unwrap_or_default());
        let serial = self.next.fetch_add(1, Ordering::Relaxed);
        let cancelled = Context::anonymous();
        self.lock().insert(key.clone(), (serial, cancelled.clone()));
        Listed { cancelled, calls: Arc::clone(self), key, serial }
    }

    /// Cancels the call `id` of `caller`, if it is in flight.
    fn cancel(&self, caller: &Caller, id: &RequestId) {
        let key = (caller.key(), serde_json::to_string(id).unwrap_or_default());
        if let Some((_, cancelled)) = self.lock().get(&key) {
            cancelled.cancel();
        }
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        let mut map = self.calls.lock();
        if map.get(&self.key).is_some_and(|(serial, _)| *serial == self.serial) {
            map.remove(&self.key);
        }
    }
}

/// An event stream that ends, without the reply, when its call is cancelled by the client; the
/// stream it wraps is then dropped, which cancels the call (rmcp's disconnect handling).
struct UntilCancelled {
    inner: Body,
    cancelled: crate::context::Cancelled,
    _listed: Listed,
}

impl hyper::body::Body for UntilCancelled {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::Error>>> {
        if Pin::new(&mut self.cancelled).poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Pin::new(&mut self.inner).poll_frame(cx)
    }
}

/// What the log line of a request names: its JSON-RPC method and, for `tools/call`, the tool.
#[derive(Default)]
struct Called {
    method: Option<String>,
    tool: Option<String>,
}

async fn endpoint<H: ServerHandler + Clone>(State(endpoint): State<Endpoint<H>>, request: Request) -> Response {
    let started = Instant::now();
    let mut called = Called::default();
    let response = answer(endpoint, request, &mut called).await;
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    tracing::info!(
        method = called.method.as_deref().unwrap_or("-"),
        tool = called.tool.as_deref().unwrap_or(""),
        http_status = response.status().as_u16(),
        duration_ms,
        "mcp request answered"
    );
    response
}

/// Whether a `Content-Type` value names JSON as this endpoint reads it: the media type
/// `application/json` (any case), with no `charset` parameter or `charset=utf-8` (quoted or not,
/// any case; RFC 8259 §8.1: JSON exchanged between systems is UTF-8). A body declared in another
/// charset (`utf-16`, `iso-8859-1`) would be read as UTF-8 and misread, so it is refused `415`.
fn is_json(content_type: &str) -> bool {
    let mut parts = content_type.split(';');
    let essence = parts.next().unwrap_or_default();
    essence.trim().eq_ignore_ascii_case("application/json")
        && parts.all(|parameter| {
            let Some((name, value)) = parameter.split_once('=') else { return true };
            !name.trim().eq_ignore_ascii_case("charset") || {
                let value = value.trim().trim_matches('"');
                value.eq_ignore_ascii_case("utf-8") || value.eq_ignore_ascii_case("utf8")
            }
        })
}

async fn answer<H: ServerHandler + Clone>(endpoint: Endpoint<H>, request: Request, called: &mut Called) -> Response {
    // A session's event stream (GET) and its end (DELETE) are rmcp's, answered in JSON.
    if let Some(book) = &endpoint.sessions
        && matches!(*request.method(), axum::http::Method::GET | axum::http::Method::DELETE)
    {
        let long = LongValues::of(request.headers());
        if let Some(refused) = echoes::overlong_version(request.headers()) {
            return refused.into_json_rpc_response(None);
        }
        if let Some(session) = session_named(request.headers()) {
            let caller = request.extensions().get::<Caller>().filter(|c| !c.is_anonymous()).map(Caller::key);
            if !book.serves(session, caller.as_deref()) {
                return session_not_found(None);
            }
        }
        return json_rpc_only(endpoint.rmcp.handle(request).await, None, &long).await;
    }
    if request.method() != axum::http::Method::POST {
        let method = request.method().as_str().to_owned();
        // With sessions, a session's stream (GET) and its end (DELETE) are taken too.
        let allowed: &[&str] = if endpoint.sessions.is_some() { &["POST", "GET", "DELETE"] } else { &["POST"] };
        return TransportError::method_not_allowed(&method, allowed).into_json_rpc_response(None);
    }
    if request.headers().get_all(header::CONTENT_TYPE).iter().nth(1).is_some() {
        return TransportError::content_type_sent_twice().into_json_rpc_response(None);
    }
    let is_json = request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(is_json);
    let (mut parts, body) = request.into_parts();
    let bytes = match read_body(&parts.headers, body, endpoint.max_body_bytes).await {
        // UTF-8 byte order marks are ignored (RFC 8259 §8.1 lets a parser ignore one), as over
        // stdio: taken off here, so no reader after this one (rmcp's included) sees one.
        Ok(mut bytes) => {
            while bytes.starts_with(BOM) {
                bytes = bytes.slice(BOM.len()..);
            }
            bytes
        }
        Err(error) => {
            return error.into_json_rpc_response(None);
        }
    };
    if !is_json {
        let id = frame::TopLevel::scan(&bytes).id().and_then(|id| serde_json::to_value(id).ok());
        let content_type = parts.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
        return TransportError::unsupported_media_type(content_type).into_json_rpc_response(id.as_ref());
    }
    if let Some(refused) = echoes::overlong_version(&parts.headers) {
        let id = frame::TopLevel::scan(&bytes).id().and_then(|id| serde_json::to_value(id).ok());
        return refused.into_json_rpc_response(id.as_ref());
    }
    if is_blank(&bytes) {
        // Over stdio a blank line is skipped; over HTTP an empty body is a request that says
        // nothing, and every POST is answered.
        let why = "the body is empty: send one JSON-RPC message object as the body";
        return error_response(&ServerJsonRpcMessage::error(ErrorData::parse_error(why, None), None));
    }
    let caller = parts.extensions.get::<Caller>().filter(|c| !c.is_anonymous()).cloned();
    if let Some(server) = endpoint.direct.as_deref()
        && let Some(call) = direct::plain_call(&bytes)
        && direct::over_http(&call, &parts.headers)
        && direct::server_answers(server, &call.name)
    {
        called.method = Some("tools/call".to_owned());
        called.tool = Some(head(&call.name, LOGGED_CHARS).to_owned());
        let listed = caller.as_ref().map(|caller| endpoint.calls.list(caller, &call.id));
        let reply = call_directly(server, &parts.extensions, call.id, &call.name, call.arguments, listed).await;
        let caller = parts.extensions.get::<Caller>();
        return on_the_wire(reply, Some(server), caller, &call.name, endpoint.resource_metadata.as_deref()).await;
    }
    let mut listed = None;
    let mut opens_session = false;
    let mut completes_initialization = false;
    let (body, id) = match frame::read_message(&bytes, frame::Framing::Body) {
        Incoming::Answered(Some(reply)) => return error_response(&reply),
        Incoming::Answered(None) => return StatusCode::ACCEPTED.into_response(),
        Incoming::Message(message) => match *message {
            JsonRpcMessage::Request(mut request) => {
                let id = request.id.clone();
                opens_session = matches!(request.request, ClientRequest::InitializeRequest(_));
                called.method = Some(head(request.request.method(), LOGGED_CHARS).to_owned());
                if let ClientRequest::CallToolRequest(call) = &request.request {
                    called.tool = Some(head(&call.params.name, LOGGED_CHARS).to_owned());
                    listed = caller.as_ref().map(|caller| endpoint.calls.list(caller, &id));
                }
                // rmcp checks `Mcp-Param-*` headers against the body's arguments (SEP-2243):
                // it reads the body as sent.
                let param_headers = parts.headers.keys().any(|name| name.as_str().starts_with("mcp-param-"))
                    || called.tool.as_deref().is_some_and(|name| declares_headers(&*endpoint.handler, name));
                match request.request.extensions_mut().remove::<RawArguments>() {
                    Some(raw) if param_headers => {
                        parts.extensions.insert(raw);
                        (bytes, Some(id))
                    }
                    Some(raw) => {
                        parts.extensions.insert(raw);
                        let rewritten = rmcp::model::ClientJsonRpcMessage::Request(request);
                        (Bytes::from(serde_json::to_vec(&rewritten).unwrap_or_default()), Some(id))
                    }
                    None => (bytes, Some(id)),
                }
            }
            JsonRpcMessage::Notification(notification) => {
                called.method = Some("(notification)".to_owned());
                completes_initialization =
                    matches!(notification.notification, ClientNotification::InitializedNotification(_));
                if let ClientNotification::CancelledNotification(c) = &notification.notification
                    && let (Some(caller), Some(id)) = (&caller, &c.params.request_id)
                {
                    endpoint.calls.cancel(caller, id);
                }
                (bytes, None)
            }
            _ => (bytes, None),
        },
    };
    // A session's requests: only its opener's, each id once in flight; a new session within the
    // bounds.
    let mut in_flight = None;
    let mut opening = None;
    if let Some(book) = &endpoint.sessions {
        match session_named(&parts.headers) {
            Some(session) => {
                if !book.serves(session, caller.as_ref().map(Caller::key).as_deref()) {
                    return session_not_found(id);
                }
                if completes_initialization {
                    book.initialized(session);
                }
                if let Some(request_id) = &id {
                    match book.request(session, serde_json::to_string(request_id).unwrap_or_default()) {
                        Some(listed) => in_flight = Some(listed),
                        None => return error_response(&super::stdio::id_in_use(request_id.clone())),
                    }
                }
            }
            None if opens_session => match book.open(opener(caller.as_ref(), &parts.extensions)) {
                Ok(place) => opening = Some(place),
                Err(refused) => {
                    let id = id.and_then(|id| serde_json::to_value(id).ok());
                    return refused.into_json_rpc_response(id.as_ref());
                }
            },
            None => {}
        }
    }
    // A client that does not accept an event stream gets JSON alone: no notification (progress,
    // log messages) is sent on its reply.
    if !accepts_event_stream(&parts.headers) {
        parts.extensions.insert(super::NoEventStream);
    }
    // rmcp asks for both media types; a reply with notifications is an event stream.
    parts.headers.insert(header::ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
    let long = LongValues::of(&parts.headers);
    let handled = sessions::opening(opening, endpoint.rmcp.handle(Request::from_parts(parts, Body::from(body))));
    let server = endpoint.direct.as_deref();
    let metadata = endpoint.resource_metadata.as_deref();
    let Some(listed) = listed else {
        let response = json_rpc_only(handled.await, id, &long).await;
        let response = match &called.tool {
            Some(tool) => on_the_wire(response, server, caller.as_ref(), tool, metadata).await,
            None => response,
        };
        return holding(response, in_flight);
    };
    // A call the client cancels before its response starts is answered 202 with no body (no
    // reply to a cancelled id); dropping rmcp's future cancels the call.
    let cancelled = listed.cancelled.cancelled();
    let response = tokio::select! {
        response = handled => response,
        () = cancelled => return StatusCode::ACCEPTED.into_response(),
    };
    let response = holding(response, in_flight);
    let response = json_rpc_only(response, id, &long).await;
    let streams = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !streams {
        let tool = called.tool.as_deref().unwrap_or_default();
        return on_the_wire(response, server, caller.as_ref(), tool, metadata).await;
    }
    // An event stream (the call sent notifications): it ends without the reply when cancelled.
    let cancelled = listed.cancelled.cancelled();
    response.map(|inner| Body::new(UntilCancelled { inner, cancelled, _listed: listed }))
}

/// Whether tool `name` of `handler` has a parameter that travels as an `Mcp-Param-*` header
/// (`x-mcp-header` in its input schema, SEP-2243): rmcp then checks the headers against the
/// body as sent.
fn declares_headers<H: ServerHandler>(handler: &H, name: &str) -> bool {
    handler.get_tool(name).is_some_and(|tool| {
        tool.input_schema
            .get("properties")
            .and_then(serde_json::Value::as_object)
            .is_some_and(|p| p.values().any(|s| s.get("x-mcp-header").is_some()))
    })
}

/// A `tools/call` answered by `server` itself (the [direct path](super::direct)): the call made as
/// rmcp's path makes it (the caller of the request's extensions, the toolbox's reading of the
/// exact `arguments` text, a sync body off the runtime), and the reply written in one buffer,
/// the envelope serialized once for the text content and `structuredContent`
/// ([`super::call_tool::call_directly`]). A dropped connection cancels the call; a
/// `notifications/cancelled` of the same verified caller answers 202 with no body.
async fn call_directly(
    server: &McpServer,
    extensions: &axum::http::Extensions,
    id: RequestId,
    name: &str,
    arguments: Option<Arc<str>>,
    listed: Option<Listed>,
) -> Response {
    let cx = server.http_context(extensions, direct::HTTP_VERSION);
    let call = super::call_tool::call_directly(&server.toolbox, &cx, &id, name, arguments, true);
    let result = match &listed {
        None => call.await,
        Some(listed) => {
            tokio::select! {
                result = call => result,
                () = listed.cancelled.cancelled() => return StatusCode::ACCEPTED.into_response(),
            }
        }
    };
    match result {
        Ok(reply) => json(StatusCode::OK, reply),
        Err(error) => error_response(&ServerJsonRpcMessage::error(error, Some(id))),
    }
}

/// Adds `scope="<scopes>"` to the `WWW-Authenticate` challenge of a 401 that names none.
fn name_scopes(response: &mut Response, scopes: &str) {
    if response.status() != StatusCode::UNAUTHORIZED {
        return;
    }
    let Some(challenge) = response.headers().get(header::WWW_AUTHENTICATE).and_then(|v| v.to_str().ok()) else {
        return;
    };
    if challenge.contains("scope=") {
        return;
    }
    let quoted = scopes.replace(['"', '\\'], "");
    let named = if challenge.trim() == "Bearer" {
        format!(r#"Bearer scope="{quoted}""#)
    } else {
        format!(r#"{challenge}, scope="{quoted}""#)
    };
    if let Ok(value) = HeaderValue::from_str(&named) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
    }
}

/// A `tools/call` reply sent as one JSON body (not an event stream), with the HTTP status its
/// envelope's code has where HTTP-level clients act on it (DESIGN "One code table", MCP
/// 2025-11-25 "Authorization / Scope challenge handling"); the body is left as it is: the
/// JSON-RPC result with `isError` and the envelope. See [`step_up_or_delay`].
async fn on_the_wire(
    response: Response,
    server: Option<&McpServer>,
    caller: Option<&Caller>,
    tool: &str,
    resource_metadata: Option<&str>,
) -> Response {
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if response.status() != StatusCode::OK || !json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_REPLY_BYTES).await else {
        // Not expected of a reply rmcp wrote whole; nothing left to send but an empty 500.
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    if let Some((status, challenge, retry_after)) = step_up_or_delay(&bytes, server, caller, tool, resource_metadata) {
        parts.status = status;
        if let Some(value) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
            parts.headers.insert(header::WWW_AUTHENTICATE, value);
        }
        if let Some(seconds) = retry_after {
            parts.headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// The HTTP status of a `tools/call` reply (`reply`, a JSON-RPC response) whose envelope is not
/// `ok`, where it is not 200:
/// - an envelope whose code answers 429 in the code table (`RATE_LIMITED`, `QUOTA_EXCEEDED`):
///   429, with `Retry-After` in whole seconds from `hints.retry_after_ms` (rounded up, at
///   least 1; RFC 9110 §10.2.3) when it gives one;
/// - `FORBIDDEN` for a caller short of the tool's scopes (or its surface's), or for the caller
///   who queued an action approving it with a token short of its tool's scopes: 403 with
///   `WWW-Authenticate: Bearer error="insufficient_scope", scope="<the scopes lacking>"`, and
///   `resource_metadata="<url>"` when the endpoint is a protected resource (RFC 6750 §3.1,
///   RFC 9728 §5.1), so that an MCP client can step up and retry.
///
/// `None` (stay 200) for everything else.
fn step_up_or_delay(
    reply: &[u8],
    server: Option<&McpServer>,
    caller: Option<&Caller>,
    tool: &str,
    resource_metadata: Option<&str>,
) -> Option<(StatusCode, Option<String>, Option<u64>)> {
    // Only an envelope that is not ok can change the status: skip the parse otherwise.
    if !contains(reply, br#""isError":true"#) {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(reply).ok()?;
    let envelope = value.get("result")?.get("structuredContent")?;
    let sent = envelope.get("error_code")?.as_str()?;
    let prefix = server.and_then(|s| s.toolbox.code_prefix());
    let name = prefix.and_then(|p| sent.strip_prefix(p)).map_or(sent, |rest| rest.trim_start_matches('_'));
    let code = crate::codes::ALL.iter().find(|c| c.name() == name)?;
    if code.http_status() == 429 {
        let seconds = envelope
            .get("hints")
            .and_then(|h| h.get("retry_after_ms"))
            .and_then(serde_json::Value::as_u64)
            .map(|ms| ms.div_ceil(1000).max(1));
        return Some((StatusCode::TOO_MANY_REQUESTS, None, seconds));
    }
    if *code == crate::codes::FORBIDDEN {
        let anonymous = Caller::anonymous();
        let caller = caller.unwrap_or(&anonymous);
        let missing = match server.and_then(|s| Some((s, s.toolbox.get(tool)?))) {
            Some((server, found)) => server.toolbox.missing_scopes(caller, found).join(" "),
            None => String::new(),
        };
        // `confirm_action` (or another handler's tool): the scopes the refusal names.
        let missing =
            if missing.is_empty() { crate::call::policy::lacking_scopes(envelope)?.to_owned() } else { missing };
        let mut refused = TransportError::insufficient_scope(&missing);
        if let Some(url) = resource_metadata {
            refused = refused.with_resource_metadata(url);
        }
        return Some((StatusCode::FORBIDDEN, refused.www_authenticate(), None));
    }
    None
}

/// Whether `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Whether `Accept` lists `text/event-stream` (or `*/*`, or `text/*`) with a quality above 0.
fn accepts_event_stream(headers: &axum::http::HeaderMap) -> bool {
    headers.get_all(header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(|range| {
        let mut params = range.split(';');
        let essence = params.next().unwrap_or("").trim();
        let zero = params
            .any(|p| p.trim().strip_prefix("q=").is_some_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0)));
        !zero && ["text/event-stream", "text/*", "*/*"].iter().any(|m| essence.eq_ignore_ascii_case(m))
    })
}

/// A name as logged: its first 64 characters (the subscriber escapes what it prints).
const LOGGED_CHARS: usize = 64;

/// A UTF-8 byte order mark (U+FEFF), which a body may begin with.
const BOM: &[u8] = "\u{feff}".as_bytes();

/// Whether a body (its byte order mark taken off) is empty, or only whitespace.
fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}
