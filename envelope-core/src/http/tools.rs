//! The HTTP tool endpoints: `POST /tools/{name}`, `GET /tools`, `GET /manifest`.

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post, post_service};
use serde_json::{Value, json};
use tracing::Instrument;
use tracing::field::Empty;

use super::layers::BodyHead;
use super::transport::TransportError;
use crate::call::pipeline::Started;
use crate::call::registry::{Toolbox, UnknownToolWords};
use crate::outcome::code::Status;
use crate::outcome::envelope::Envelope;
use crate::words::render;
use crate::{Caller, Context, call::Surface};

/// The default body limit of [`HttpTools`]: 1 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 1 << 20;

/// The default `Retry-After` of a 429 answer, in seconds.
pub const DEFAULT_RETRY_AFTER_SECONDS: u64 = 60;

/// The HTTP tool endpoints of a [`Toolbox`], as an axum [`Router`] to nest or merge into an app.
///
/// | request | answer |
/// |---|---|
/// | `POST /tools/{name}`, body: the arguments object | the envelope, with the status of [`status`](super::status) |
/// | `GET /tools` | `{"tools": [{name, title?, description, inputSchema, outputSchema, annotations}]}`, 200 |
/// | `GET /manifest` | [`Toolbox::manifest`], 200 |
///
/// `POST /tools/{name}`:
/// - The body is read as UTF-8 text and handed to [`Toolbox::call_json`], so duplicate keys,
///   objects of more than 4096 keys, numbers past 64 bits and nesting past 127 levels are
///   refused by name, as over MCP; lax coercions apply as over MCP, strict tools refuse them. An
///   empty body means no arguments (`{}`). The `Content-Type` is not consulted.
/// - A body that is not UTF-8 (RFC 8259 §8.1): 400 with an `invalid` envelope
///   (`VALIDATION_ERROR`) naming the offset of the first byte that is no character
///   (`arguments: the body is not UTF-8 text: the byte at offset 12 (counted from 0) does not
///   begin or continue a UTF-8 character; ...`); nothing of the body is quoted, and the tool does
///   not run.
/// - A `name` no tool has: 404 with an `invalid` envelope (`NOT_FOUND`) listing the tools and
///   the closest name.
/// - A body that is not JSON, or JSON that is not an object: 400 with an `invalid` envelope
///   (`VALIDATION_ERROR`) quoting what was sent, cut (never for a tool with a secret parameter).
/// - A 429 carries `Retry-After`: the envelope's `hints.retry_after_ms` in whole seconds, else
///   [`retry_after_seconds`](Self::retry_after_seconds).
/// - A fault (`error`) carries `hints.trace_id`, the id its log line carries.
///
/// Transport errors, `{"error": "<word>", "message": "<sentence>"}`: a body over the limit is
/// `payload_too_large` (413); a method a path does not take is `method_not_allowed` (405, with
/// `Allow`). Put [`AuthLayer`](super::AuthLayer) and [`OriginLayer`](super::OriginLayer) around
/// the router for the others.
///
/// Each call runs in one `tracing` span `tool_call` with the fields `tool`, `status`,
/// `error_code`, `http_status`, `duration_ms` (whole milliseconds) and, for a fault, `trace_id`;
/// it ends with one event (`error` level for a fault, `info` otherwise). No argument value is
/// logged, so no secret is.
///
/// ```
/// use axum::Router;
/// use envelope_core::{Toolbox, tool, http::{AuthLayer, BearerTokens, HttpTools, OriginLayer}};
///
/// /// Adds two small numbers.
/// #[tool]
/// fn add(#[validate(range = 0..=100)] a: u32, #[validate(range = 0..=100)] b: u32) -> u32 {
///     a + b
/// }
///
/// let app: Router = Router::new()
///     .merge(HttpTools::new(Toolbox::new().with(add::tool())).router())
///     .layer(AuthLayer::new(BearerTokens::new(["s3cret-token"])))
///     .layer(OriginLayer::loopback());
/// ```
#[derive(Clone, Debug)]
pub struct HttpTools {
    toolbox: Arc<Toolbox>,
    body_limit: usize,
    retry_after: u64,
    surface: Option<Surface>,
    resource_metadata: Option<String>,
}

impl HttpTools {
    /// The endpoints of `toolbox`, with a body limit of [`DEFAULT_BODY_LIMIT`] bytes, on the
    /// toolbox's surface ([`Toolbox::on`]), else on the public surface `"http"`
    /// ([`Surface::public`]: every tool but T4 ones).
    pub fn new(toolbox: Toolbox) -> Self {
        let toolbox = match toolbox.surface() {
            Some(_) => toolbox,
            None => toolbox.on(&Surface::public("http")),
        };
        HttpTools {
            toolbox: Arc::new(toolbox),
            body_limit: DEFAULT_BODY_LIMIT,
            retry_after: DEFAULT_RETRY_AFTER_SECONDS,
            surface: None,
            resource_metadata: None,
        }
    }

    /// A body over `bytes` is answered `payload_too_large` (413) without running the tool.
    #[must_use]
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// These endpoints as part of an OAuth protected resource (RFC 9728, MCP "Authorization"):
    /// the 403 of a caller short of a tool's scopes carries `WWW-Authenticate: Bearer
    /// error="insufficient_scope", scope="<lacking>", resource_metadata="<its metadata URL>"`
    /// (RFC 9728 §5.1; MCP 2025-11-25 "Scope challenge handling"), so a client finds where to
    /// ask for the scope. Serving the metadata document is [`ProtectedResource::router`]'s.
    ///
    /// [`ProtectedResource::router`]: super::auth::ProtectedResource::router
    #[must_use]
    pub fn with_protected_resource(mut self, resource: &super::auth::ProtectedResource) -> Self {
        self.resource_metadata = Some(resource.metadata_url());
        self
    }

    /// The `Retry-After` (RFC 9110 §10.2.3, in seconds) sent with a 429 (`RATE_LIMITED`,
    /// `QUOTA_EXCEEDED`, or a domain code answering 429) whose envelope gives no
    /// `hints.retry_after_ms` (that one is sent in whole seconds, rounded up). Either is sent
    /// as at least 1 second: `Retry-After: 0` would invite an immediate retry.
    #[must_use]
    pub fn retry_after_seconds(mut self, seconds: u64) -> Self {
        self.retry_after = seconds.max(1);
        self
    }

    /// Serves the endpoints on `surface` ([`Toolbox::on`]): only the tools it shows are listed
    /// and called (a hidden one answers 404 `NOT_FOUND` exactly as a name no tool has), calls
    /// are made on its name, and every request passes its gate first
    /// ([`admit`](super::admit): 403 `insufficient_scope` without its scopes; 400
    /// `tenant_required`, 403 `tenant_mismatch` / `tenant_forbidden` /
    /// `tenant_policy_unavailable` on a surface that needs a tenant). Without it the endpoints
    /// serve every tool on the surface `"http"`.
    #[must_use]
    pub fn with_surface(mut self, surface: Surface) -> Self {
        self.toolbox = Arc::new(self.toolbox.on(&surface));
        self.surface = Some(surface);
        self
    }

    /// The toolbox served.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// The router: `POST /tools/{name}`, `GET /tools`, `GET /manifest`. Generic over the app's
    /// state, so it merges into any `Router<S>`.
    ///
    /// Each tool whose name is a plain path segment has a route of its own,
    /// `/tools/<its name>`; merging an app route on exactly that path panics in axum's
    /// `Router::merge` (routes overlap), as merging onto `/tools` or `/manifest` does.
    pub fn router<S: Clone + Send + Sync + 'static>(self) -> Router<S> {
        let surface = self.surface.clone();
        let app = Arc::new(self);
        // Each tool's own path is a route of its own (the router reads no path parameter for
        // it); `{name}` takes the rest: a name percent-encoded, or no tool's name.
        let mut router = Router::new();
        for tool in app.toolbox.tools() {
            let name = tool.name();
            if plain_segment(name) {
                let named: Arc<str> = Arc::from(name);
                let app = Arc::clone(&app);
                // A service, not a handler: the request is taken whole, with no extractor's
                // future around the call.
                let route = post_service(tower::service_fn(move |request: axum::extract::Request| {
                    // Taken apart here: the call's future holds the `Content-Length`, the body
                    // and the context, not the request.
                    let (declared, body, cx) = app.parts(request);
                    let (app, named) = (Arc::clone(&app), Arc::clone(&named));
                    async move { Ok::<_, std::convert::Infallible>(app.respond_declared(&cx, &named, declared, body).await) }
                }));
                router = router.route(&format!("/tools/{name}"), only(route, "POST"));
            }
        }
        let router = router
            .route("/tools/{name}", only(post(call), "POST"))
            .route("/tools", only(get(list), "GET, HEAD"))
            .route("/manifest", only(get(manifest), "GET, HEAD"))
            .with_state(app);
        match surface {
            Some(surface) => super::gated(router, &surface, super::ErrorBody::Plain),
            None => router,
        }
    }

    /// Calls tool `name` with a request body and answers the response `POST /tools/{name}`
    /// gives, for an app that routes calls itself. The call is made by
    /// [`Caller::anonymous`](crate::Caller::anonymous); [`respond_in`](Self::respond_in) makes
    /// it in a [`Context`] of your own.
    pub async fn respond(&self, name: &str, headers: &HeaderMap, body: Body) -> Response {
        self.respond_in(&self.context(Caller::anonymous()), name, headers, body).await
    }

    /// The [`Context`] of a call by `caller` on this router's surface (its toolbox's
    /// surface, else `"http"`).
    fn context(&self, caller: Caller) -> Context {
        Context::on_surface(caller, self.toolbox.surface().map_or("http", Surface::name))
    }

    /// [`respond`](Self::respond), made in `cx`: by its caller, on its surface.
    pub async fn respond_in(&self, cx: &Context, name: &str, headers: &HeaderMap, body: Body) -> Response {
        self.respond_declared(cx, name, super::layers::body_head(headers), body).await
    }

    /// [`respond_in`](Self::respond_in) for a request whose `Content-Length` was read already
    /// (`declared`): what a tool's own route calls, its future holding no headers.
    async fn respond_declared(&self, cx: &Context, name: &str, declared: BodyHead, body: Body) -> Response {
        let span = tracing::info_span!(
            "tool_call",
            call_id = %cx.call_id(),
            tool = %ShownName { toolbox: &self.toolbox, name },
            status = Empty,
            error_code = Empty,
            http_status = Empty,
            duration_ms = Empty,
            trace_id = Empty,
        );
        // The clock is read only for a span some subscriber records.
        let started = (!span.is_disabled()).then(Instant::now);
        async move {
            let span = tracing::Span::current();
            let bytes = match super::layers::read_body_declared(declared, body, self.body_limit).await {
                Ok(bytes) => bytes,
                Err(error) => {
                    span.record("status", error.word());
                    span.record("http_status", error.http_status());
                    if let Some(started) = started {
                        span.record("duration_ms", elapsed_ms(started));
                    }
                    tracing::info!("tool call refused before reading: {}", error.word());
                    return error.into_response();
                }
            };
            let mut envelope = self.envelope(cx, name, &bytes).await;
            let status = super::status(&envelope);
            if let Some(started) = started {
                span.record("status", envelope.status().as_str());
                if let Some(code) = envelope.error_code() {
                    span.record("error_code", code.name());
                }
                span.record("http_status", status);
                span.record("duration_ms", elapsed_ms(started));
            }
            if envelope.status() == Status::Error {
                let trace_id = trace_id();
                span.record("trace_id", trace_id.as_str());
                tracing::error!(trace_id = %trace_id, "tool call failed");
                envelope = envelope.with_trace_id(trace_id);
            } else {
                tracing::info!("tool call answered");
            }
            // A refusal naming the scopes lacking (of a tool, or of the action an approval
            // would run), read before the envelope is written.
            let lacking = (status == 403)
                .then(|| crate::call::policy::lacking_scopes(&envelope.to_value()).map(str::to_owned))
                .flatten();
            let mut response = self.envelope_response(envelope, status);
            if status == 403 {
                self.insufficient_scope(cx, name, lacking.as_deref(), &mut response);
            }
            response
        }
        .instrument(span)
        .await
    }

    /// The envelope of a call of tool `name` with `body`, answered by the toolbox's one
    /// pipeline: a caller without the tool's scopes is refused before the body is read; bytes
    /// that are not UTF-8 are refused (strict, RFC 8259 §8.1, as over `/mcp`), a byte order
    /// mark before the JSON ignored; no body reads as `{}`; text that is not JSON is refused by the call's reading (`arguments:
    /// "hours_back=24" is not JSON; accepted: ...`). A sync tool's body runs on the pool of
    /// body threads (`call::bodies`; inline for a tool marked `Tool::inline_body`) once its
    /// arguments are read (a refusal never leaves this thread): a slow body holds up no other
    /// request, on a multi-thread or a current-thread runtime alike.
    ///
    /// A dropped connection drops this future: the call's context is cancelled first, so an
    /// async body dropped with it, or a sync body running on, sees `cx.is_cancelled()`.
    async fn envelope(&self, cx: &Context, name: &str, body: &[u8]) -> Envelope {
        // UTF-8 byte order marks before the JSON are ignored (RFC 8259 §8.1 lets a parser ignore
        // one), as over `/mcp` and stdio.
        let mut body = body;
        while let Some(rest) = body.strip_prefix("\u{feff}".as_bytes()) {
            body = rest;
        }
        // Dropped unfinished (a dropped connection), the call's context is cancelled first.
        let started = cx.cancel_first(self.toolbox.call_bytes_started(cx, name, body)).await;
        match started {
            Ok(Started::Done(envelope)) => envelope,
            // Cancelled on drop by a guard of its own.
            Ok(Started::Body(body)) => body.run_off_the_runtime(cx).await,
            Err(_) => self.unknown_tool(name),
        }
    }

    /// `NOT_FOUND` for a tool name the toolbox does not have: the names it has, the closest one.
    fn unknown_tool(&self, name: &str) -> Envelope {
        const WORDS: UnknownToolWords = UnknownToolWords {
            reason: "is not a tool of this server",
            none: "none: this server has no tools",
            one_of: "",
            more: " (GET /tools lists them all)",
            fix: |s| match s {
                Some(s) => format!("Send POST /tools/{s}."),
                None => "Send POST /tools/<name> with a name from GET /tools.".to_owned(),
            },
        };
        // At most 20 names, the rest counted, so a server of hundreds of tools refuses in 2 KB.
        self.toolbox.on_the_wire(Envelope::from(self.toolbox.unknown(name).refusal(name, &WORDS)))
    }

    /// A 403 of a call whose caller lacks scopes of the tool (or the surface) carries
    /// `WWW-Authenticate: Bearer error="insufficient_scope", scope="<lacking>"` (RFC 6750 §3.1),
    /// with `resource_metadata` when [`with_protected_resource`](Self::with_protected_resource)
    /// is set.
    fn insufficient_scope(&self, cx: &Context, name: &str, lacking: Option<&str>, response: &mut Response) {
        let missing = match self.toolbox.get(name) {
            Some(tool) => self.toolbox.missing_scopes(cx.caller(), tool).join(" "),
            None => String::new(),
        };
        // `confirm_action` by the caller who queued the action, short of its tool's scopes: the
        // scopes its refusal names.
        let missing = if missing.is_empty() { lacking.unwrap_or_default().to_owned() } else { missing };
        if missing.is_empty() {
            return;
        }
        let mut refused = TransportError::insufficient_scope(&missing);
        if let Some(url) = &self.resource_metadata {
            refused = refused.with_resource_metadata(url.clone());
        }
        if let Some(value) = refused.www_authenticate().and_then(|v| HeaderValue::from_str(&v).ok()) {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
        }
    }

    fn envelope_response(&self, envelope: Envelope, status: u16) -> Response {
        // The envelope's own delay when it gives one, in whole seconds rounded up, at least 1.
        let retry_after =
            (status == 429).then(|| envelope.retry_after_ms().map_or(self.retry_after, |ms| ms.div_ceil(1000).max(1)));
        let mut response = Response::new(Body::from(envelope.into_json()));
        *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(seconds) = retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// A route answering `method_not_allowed` (405, with `Allow`) for every method it does not take.
fn only(route: MethodRouter<Arc<HttpTools>>, allow: &'static str) -> MethodRouter<Arc<HttpTools>> {
    route.fallback(move |method: Method| async move {
        let allowed: Vec<&str> = allow.split(", ").collect();
        TransportError::method_not_allowed(method.as_str(), &allowed).into_response()
    })
}

async fn call(
    State(app): State<Arc<HttpTools>>,
    name: Result<Path<String>, PathRejection>,
    request: axum::extract::Request,
) -> Response {
    // A name whose percent-decoding is not UTF-8 is no tool's name: refused as unknown, named
    // as sent (`%FF%FE`), percent-encoded, never as "".
    let name = match name {
        Ok(Path(name)) => name,
        Err(_) => request.uri().path().rsplit_once('/').map_or_else(String::new, |(_, sent)| sent.to_owned()),
    };
    call_named(&app, &name, request).await
}

async fn call_named(app: &HttpTools, name: &str, request: axum::extract::Request) -> Response {
    let (declared, body, cx) = app.parts(request);
    app.respond_declared(&cx, name, declared, body).await
}

impl HttpTools {
    /// A call's request taken apart: its `Content-Length` (all of its headers the call reads),
    /// its body, and the context of its caller (the one the auth hook verified and put in the
    /// request's extensions, else anonymous).
    fn parts(&self, request: axum::extract::Request) -> (BodyHead, Body, Context) {
        let (mut parts, body) = request.into_parts();
        let caller = parts.extensions.remove::<Caller>().unwrap_or_else(Caller::anonymous);
        let caller = super::with_peer(caller, &parts.extensions);
        (super::layers::body_head(&parts.headers), body, self.context(caller))
    }
}

/// Whether a tool's name is a path segment as it is (letters, digits, `_`, `-`, `.` not first),
/// routed as `/tools/<name>` with no decoding; other names are reached through `{name}`.
fn plain_segment(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// A tool's name as the call's span shows it: the tool's own name, else the name sent, quoted
/// and cut (it is the caller's text). Written only when a subscriber records the span.
struct ShownName<'a> {
    toolbox: &'a Toolbox,
    name: &'a str,
}

impl std::fmt::Display for ShownName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.toolbox.get(self.name) {
            Some(tool) => f.write_str(tool.name()),
            None => f.write_str(&render::shown(&Value::String(self.name.to_owned()))),
        }
    }
}

async fn list(State(app): State<Arc<HttpTools>>) -> Response {
    let mut manifest = app.toolbox.manifest();
    let tools: Vec<Value> = manifest["tools"]
        .as_array_mut()
        .map(std::mem::take)
        .unwrap_or_default()
        .into_iter()
        .map(|mut t| {
            if let Some(t) = t.as_object_mut() {
                t.remove("error_codes");
            }
            t
        })
        .collect();
    json_response(&json!({ "tools": tools }))
}

async fn manifest(State(app): State<Arc<HttpTools>>) -> Response {
    json_response(&app.toolbox.manifest())
}

fn json_response(value: &Value) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], value.to_string()).into_response()
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// 16 hex digits, unique per process run and call: a per-process random key (std's
/// `RandomState`) over a counter and the time.
fn trace_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    static KEYS: std::sync::OnceLock<std::collections::hash_map::RandomState> = std::sync::OnceLock::new();
    let mut h = KEYS.get_or_init(std::collections::hash_map::RandomState::new).build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    format!("{:016x}", h.finish())
}
