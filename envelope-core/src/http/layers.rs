//! The checks every request passes before any tool runs: the auth hook, the `Origin`, the body's
//! size. Each is a tower layer usable on any axum router (`/tools`, `/mcp`, the user's own).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Request, header};
use axum::response::Response;
use tower::{Layer, Service};

use super::gate::host_is_loopback;
use super::transport::BodyRefused;
use super::transport::{ErrorBody, TransportError};
use crate::Caller;

/// The one auth hook of a server: request headers in, the verified [`Caller`] out, or the
/// [`TransportError`] to answer before any tool runs.
///
/// [`AuthLayer`] and `mcp::streamable::McpHttp::with_auth` run it on every request and put the
/// `Caller` it answers into the request's extensions, where the MCP server and
/// [`HttpTools`](super::HttpTools) read it: the caller travels with the call (its `Context`) to
/// quotas, idempotency keys, policy, audit and the tool's body.
///
/// Its refusals are transport errors; the bearer ones are `missing_bearer_token` (401),
/// `invalid_bearer_token` (401) and `insufficient_scope` (403), each with `WWW-Authenticate`
/// (RFC 6750 §3), but any other word works too. The hook must not log or echo a token.
///
/// Implemented for every `Fn(&HeaderMap) -> Result<Caller, TransportError>` (a sync check), by
/// [`BearerTokens`], and (feature `jwt`) by [`auth::JwtVerifier`](super::auth::JwtVerifier). An
/// implementation of your own may be `async` (a lookup in a store, an introspection request):
///
/// ```
/// use envelope_core::Caller;
/// use envelope_core::http::{Authenticate, TransportError, bearer_token};
/// use axum::http::HeaderMap;
///
/// let hook = |headers: &HeaderMap| -> Result<Caller, TransportError> {
///     match bearer_token(headers)? {
///         "reader-token" => Ok(Caller::new("reader").with_scopes(["notes:read"])),
///         "writer-token" => Ok(Caller::new("writer").with_scopes(["notes:read", "notes:write"])),
///         _ => Err(TransportError::invalid_bearer_token()),
///     }
/// };
/// let mut headers = HeaderMap::new();
/// headers.insert("authorization", "Bearer writer-token".parse().unwrap());
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let caller = hook.authenticate(&headers).await.unwrap();
/// assert_eq!(caller.subject(), Some("writer"));
/// # });
/// ```
pub trait Authenticate: Send + Sync + 'static {
    /// Checks one request's headers and answers who is calling.
    ///
    /// # Errors
    /// The transport error to answer instead of serving the request.
    fn authenticate(&self, headers: &HeaderMap) -> impl Future<Output = Result<Caller, TransportError>> + Send;
}

impl<F> Authenticate for F
where
    F: Fn(&HeaderMap) -> Result<Caller, TransportError> + Send + Sync + 'static,
{
    fn authenticate(&self, headers: &HeaderMap) -> impl Future<Output = Result<Caller, TransportError>> + Send {
        std::future::ready(self(headers))
    }
}

impl<A: Authenticate> Authenticate for Arc<A> {
    fn authenticate(&self, headers: &HeaderMap) -> impl Future<Output = Result<Caller, TransportError>> + Send {
        A::authenticate(self, headers)
    }
}

/// The future of an erased [`Authenticate`].
pub(crate) type AuthFuture<'a> = Pin<Box<dyn Future<Output = Result<Caller, TransportError>> + Send + 'a>>;

/// [`Authenticate`] as a trait object (its `impl Future` makes it no object itself).
pub(crate) trait DynAuthenticate: Send + Sync + 'static {
    fn authenticate_boxed<'a>(&'a self, headers: &'a HeaderMap) -> AuthFuture<'a>;
}

impl<A: Authenticate> DynAuthenticate for A {
    fn authenticate_boxed<'a>(&'a self, headers: &'a HeaderMap) -> AuthFuture<'a> {
        Box::pin(self.authenticate(headers))
    }
}

/// The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme is
/// case-insensitive).
///
/// # Errors
/// `missing_bearer_token` when there is no `Authorization` header or its scheme is not `Bearer`;
/// `invalid_bearer_token` when the token is empty, not visible ASCII, or the header is sent twice.
pub fn bearer_token(headers: &HeaderMap) -> Result<&str, TransportError> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Err(TransportError::missing_bearer_token());
    };
    if values.next().is_some() {
        return Err(TransportError::invalid_bearer_token());
    }
    let value = value.to_str().map_err(|_| TransportError::invalid_bearer_token())?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(TransportError::missing_bearer_token());
    }
    let token = token.trim();
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(TransportError::invalid_bearer_token());
    }
    Ok(token)
}

/// An auth hook that accepts a fixed set of bearer tokens (compared in constant time per token),
/// for a server with a few shared secrets. Each token stands for one [`Caller`]: by default the
/// n-th token given (counted from 1) is `Caller::new("bearer-token-<n>")`, with no scope and no
/// tenant (never the token itself, which must not reach a log or a reply);
/// [`with_caller`](Self::with_caller) names it. A token's value never appears in `Debug` output.
///
/// Refusals: `missing_bearer_token` (401) without a bearer credential, `invalid_bearer_token`
/// (401) for any other token, each with `WWW-Authenticate` (RFC 6750 §3).
///
/// ```
/// use envelope_core::Caller;
/// use envelope_core::http::{Authenticate, BearerTokens};
/// # use axum::http::HeaderMap;
///
/// let hook = BearerTokens::new(["tok-ci"])
///     .with_caller("tok-alice", Caller::new("alice").with_scopes(["notes:write"]).with_tenant("acme"));
/// let mut headers = HeaderMap::new();
/// headers.insert("authorization", "Bearer tok-alice".parse().unwrap());
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// assert_eq!(hook.authenticate(&headers).await.unwrap().key(), "sub:alice@acme");
/// headers.insert("authorization", "Bearer tok-ci".parse().unwrap());
/// assert_eq!(hook.authenticate(&headers).await.unwrap().subject(), Some("bearer-token-1"));
/// # });
/// ```
#[derive(Clone)]
pub struct BearerTokens {
    tokens: Arc<[(String, Caller)]>,
    resource_metadata: Option<String>,
}

impl BearerTokens {
    /// Accepts exactly `tokens`; the n-th (from 1) is the caller `bearer-token-<n>`.
    pub fn new<T: Into<String>>(tokens: impl IntoIterator<Item = T>) -> Self {
        let tokens =
            tokens.into_iter().enumerate().map(|(i, t)| (t.into(), Caller::new(format!("bearer-token-{}", i + 1))));
        BearerTokens { tokens: tokens.collect(), resource_metadata: None }
    }

    /// `token` stands for `caller`: it replaces the caller of a token already accepted, or adds
    /// the token.
    #[must_use]
    pub fn with_caller(self, token: impl Into<String>, caller: Caller) -> Self {
        let token = token.into();
        let mut tokens: Vec<(String, Caller)> = self.tokens.iter().filter(|(t, _)| *t != token).cloned().collect();
        tokens.push((token, caller));
        BearerTokens { tokens: tokens.into(), ..self }
    }

    /// Sends `resource_metadata="<url>"` with every 401 (RFC 9728 §5.1).
    #[must_use]
    pub fn with_resource_metadata(mut self, url: impl Into<String>) -> Self {
        self.resource_metadata = Some(url.into());
        self
    }

    fn check(&self, headers: &HeaderMap) -> Result<Caller, TransportError> {
        let with_metadata = |e: TransportError| match &self.resource_metadata {
            Some(url) => e.with_resource_metadata(url.clone()),
            None => e,
        };
        let token = bearer_token(headers).map_err(with_metadata)?;
        let mut matched = None;
        for (known, caller) in self.tokens.iter() {
            if constant_time_eq(known.as_bytes(), token.as_bytes()) {
                matched = Some(caller);
            }
        }
        matched.cloned().ok_or_else(|| with_metadata(TransportError::invalid_bearer_token()))
    }
}

impl fmt::Debug for BearerTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerTokens").field("tokens", &self.tokens.len()).finish_non_exhaustive()
    }
}

impl Authenticate for BearerTokens {
    fn authenticate(&self, headers: &HeaderMap) -> impl Future<Output = Result<Caller, TransportError>> + Send {
        std::future::ready(self.check(headers))
    }
}

/// Equality whose time depends on the lengths only, not on where the bytes differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether an `Origin` value (RFC 6454 §7) names a loopback host: `localhost`, `*.localhost`,
/// `127.0.0.0/8` or `[::1]`, with any scheme and port.
pub fn origin_is_loopback(origin: &str) -> bool {
    let Ok(uri) = fluent_uri::Uri::parse(origin) else {
        return false;
    };
    let Some(authority) = uri.authority() else {
        return false;
    };
    host_is_loopback(authority.host())
}

type Check = Arc<dyn Fn(&HeaderMap) -> Result<(), TransportError> + Send + Sync>;

/// A tower [`Layer`] that runs the server's one auth hook ([`Authenticate`]) on every request:
/// the verified [`Caller`] goes into the request's extensions (`request.extensions().get::<Caller>()`,
/// axum's `Extension<Caller>`), where [`HttpTools`](super::HttpTools) and the MCP server read it;
/// a refusal is answered (status, `WWW-Authenticate`, body) without calling the inner service.
/// Each refusal is one `tracing` event at `info`, `request refused: <word>` (never the token).
///
/// Refusals: whatever the hook answers (`missing_bearer_token` 401, `invalid_bearer_token` 401,
/// `insufficient_scope` 403, ...); with [`require_scopes`](Self::require_scopes), a caller
/// without one of them is `insufficient_scope` (403, `WWW-Authenticate: Bearer
/// error="insufficient_scope", scope="<the scopes, space-separated>"`, RFC 6750 §3.1). With
/// [`with_resource_metadata`](Self::with_resource_metadata), every bearer refusal's challenge
/// carries `resource_metadata="<url>"` (RFC 9728 §5.1), as MCP authorization asks of every 401.
///
/// ```
/// use axum::{Extension, Router, routing::get};
/// use envelope_core::Caller;
/// use envelope_core::http::{AuthLayer, BearerTokens};
///
/// let app: Router = Router::new()
///     .route("/whoami", get(|Extension(caller): Extension<Caller>| async move { caller.key() }))
///     .layer(AuthLayer::new(BearerTokens::new(["s3cret-token"])));
/// ```
#[derive(Clone)]
pub struct AuthLayer {
    hook: Arc<dyn DynAuthenticate>,
    body: ErrorBody,
    resource_metadata: Option<Arc<str>>,
    required_scopes: Arc<[String]>,
}

impl AuthLayer {
    /// Runs `hook` on every request; its errors are answered as `{"error", "message"}`.
    pub fn new(hook: impl Authenticate) -> Self {
        AuthLayer {
            hook: Arc::new(hook),
            body: ErrorBody::Plain,
            resource_metadata: None,
            required_scopes: Arc::new([]),
        }
    }

    /// Answers errors as JSON-RPC error responses instead (for `/mcp`).
    #[must_use]
    pub fn json_rpc(mut self) -> Self {
        self.body = ErrorBody::JsonRpc;
        self
    }

    /// Adds `resource_metadata="<url>"` to the `WWW-Authenticate` of every bearer refusal that
    /// does not carry one (401 and 403; RFC 9728 §5.1): the URL of the Protected Resource
    /// Metadata, e.g. [`ProtectedResource::metadata_url`](super::auth::ProtectedResource::metadata_url).
    #[must_use]
    pub fn with_resource_metadata(mut self, url: impl Into<String>) -> Self {
        self.resource_metadata = Some(Arc::from(url.into()));
        self
    }

    /// Every request's caller must hold each of `scopes` (the scopes this surface requires);
    /// one without is refused `insufficient_scope` (403) naming them all.
    #[must_use]
    pub fn require_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        let mut all: Vec<String> = self.required_scopes.to_vec();
        all.extend(scopes.into_iter().map(Into::into));
        self.required_scopes = all.into();
        self
    }

    /// Runs the hook and the scope check on `headers`: the caller, or the refusal to answer
    /// (with `resource_metadata` when set).
    pub(crate) async fn verify(&self, headers: &HeaderMap) -> Result<Caller, TransportError> {
        let checked = match self.hook.authenticate_boxed(headers).await {
            Ok(caller) => match self.required_scopes.iter().any(|s| !caller.has_scope(s)) {
                true => Err(TransportError::insufficient_scope(&self.required_scopes.join(" "))),
                false => Ok(caller),
            },
            Err(e) => Err(e),
        };
        checked.map_err(|e| match &self.resource_metadata {
            Some(url) if e.resource_metadata().is_none() => e.with_resource_metadata(url.to_string()),
            _ => e,
        })
    }
}

impl fmt::Debug for AuthLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthLayer")
            .field("body", &self.body)
            .field("resource_metadata", &self.resource_metadata)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = Authenticated<S>;
    fn layer(&self, inner: S) -> Authenticated<S> {
        Authenticated { inner, layer: self.clone() }
    }
}

/// The service of [`AuthLayer`]: the auth hook, the verified [`Caller`] put into the request's
/// extensions, then the inner service.
#[derive(Clone)]
pub struct Authenticated<S> {
    inner: S,
    layer: AuthLayer,
}

impl<S> fmt::Debug for Authenticated<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authenticated").field("layer", &self.layer).finish_non_exhaustive()
    }
}

impl<S, B> Service<Request<B>> for Authenticated<S>
where
    S: Service<Request<B>, Response = Response> + Clone + Send + 'static,
    S::Error: Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        // The service made ready by `poll_ready` serves this request; a clone waits for the next.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let layer = self.layer.clone();
        Box::pin(async move {
            // A verification that waits (a JWKS refetch) gives up the request's place in
            // flight under `serve`, and takes it again once verified: a token holds no place
            // while its key is fetched.
            let place = request.extensions().get::<super::serve::Place>().cloned();
            let verified = {
                let mut verifying = std::pin::pin!(layer.verify(request.headers()));
                match std::future::poll_fn(|cx| Poll::Ready(verifying.as_mut().poll(cx))).await {
                    Poll::Ready(verified) => verified,
                    Poll::Pending => {
                        if let Some(place) = &place {
                            place.give_up();
                        }
                        verifying.await
                    }
                }
            };
            // The place counts under the verified caller's share from now on (an anonymous
            // caller's under its address still).
            if let (Ok(caller), Some(place)) = (&verified, &place)
                && let Err(refused) =
                    place.identified((!caller.is_anonymous()).then(|| caller.quota_key()).as_deref()).await
            {
                tracing::warn!("request refused: {}", refused.message());
                return Ok(refused.into_response_as(layer.body));
            }
            match verified {
                Ok(caller) => {
                    request.extensions_mut().insert(caller);
                    inner.call(request).await
                }
                Err(error) => {
                    tracing::info!("request refused: {}", error.word());
                    Ok(error.into_response_as(layer.body))
                }
            }
        })
    }
}

/// A tower [`Layer`] that refuses requests whose `Origin` header the server does not serve,
/// `forbidden_origin` (403), the defence against DNS rebinding that MCP's Streamable HTTP
/// transport requires (MCP 2025-11-25 "Transports / Security Warning").
///
/// By default it lets through requests without an `Origin` header (programs, not browsers) and
/// loopback origins ([`origin_is_loopback`]); [`allow`](Self::allow) adds exact origins.
/// `Origin: null` (an opaque origin) is refused unless allowed.
///
/// ```
/// use axum::{Router, routing::get};
/// use envelope_core::http::OriginLayer;
///
/// let app: Router = Router::new()
///     .route("/ping", get(|| async { "pong" }))
///     .layer(OriginLayer::loopback().allow("https://dashboard.example.com"));
/// ```
#[derive(Clone, Debug)]
pub struct OriginLayer {
    allowed: Vec<String>,
    body: ErrorBody,
}

impl Default for OriginLayer {
    fn default() -> Self {
        OriginLayer::loopback()
    }
}

impl OriginLayer {
    /// Loopback origins and requests without `Origin` only.
    pub fn loopback() -> Self {
        OriginLayer { allowed: Vec::new(), body: ErrorBody::Plain }
    }

    /// Also serves `origin`, compared as `scheme://host[:port]`, case-insensitively.
    #[must_use]
    pub fn allow(mut self, origin: impl Into<String>) -> Self {
        self.allowed.push(origin.into().trim_end_matches('/').to_ascii_lowercase());
        self
    }

    /// Answers errors as JSON-RPC error responses instead (for `/mcp`).
    #[must_use]
    pub fn json_rpc(mut self) -> Self {
        self.body = ErrorBody::JsonRpc;
        self
    }

    /// Checks one request's headers.
    ///
    /// # Errors
    /// `forbidden_origin` for an `Origin` neither loopback nor allowed, or sent twice.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), TransportError> {
        let mut origins = headers.get_all(header::ORIGIN).iter();
        let Some(origin) = origins.next() else {
            return Ok(());
        };
        let text = String::from_utf8_lossy(origin.as_bytes());
        let served = origins.next().is_none()
            && (origin_is_loopback(&text) || self.allowed.iter().any(|a| a.eq_ignore_ascii_case(&text)));
        if served { Ok(()) } else { Err(TransportError::forbidden_origin(&text)) }
    }
}

impl<S> Layer<S> for OriginLayer {
    type Service = Checked<S>;
    fn layer(&self, inner: S) -> Checked<S> {
        let policy = self.clone();
        Checked { inner, check: Arc::new(move |h: &HeaderMap| policy.check(h)), body: self.body }
    }
}

/// The service of [`OriginLayer`]: a check on the headers, then the inner service.
#[derive(Clone)]
pub struct Checked<S> {
    inner: S,
    check: Check,
    body: ErrorBody,
}

impl<S> fmt::Debug for Checked<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Checked").field("body", &self.body).finish_non_exhaustive()
    }
}

impl<S, B> Service<Request<B>> for Checked<S>
where
    S: Service<Request<B>, Response = Response>,
    S::Error: Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        match (self.check)(request.headers()) {
            Ok(()) => Box::pin(self.inner.call(request)),
            Err(error) => {
                tracing::info!("request refused: {}", error.word());
                let response = error.into_response_as(self.body);
                Box::pin(std::future::ready(Ok(response)))
            }
        }
    }
}

/// Reads a request body of at most `limit` bytes.
///
/// # Errors
/// `unsupported_content_encoding` (415) when `Content-Encoding` names a coding other than
/// `identity` (the body is not read: RFC 9110 §15.5.16); `payload_too_large` (413) when
/// `Content-Length` says more than `limit`, or when the body
/// grows past it while read (the rest is not read). Under [`serve`](super::serve), whose bounds
/// cut a body's stream: `request_timeout` (408) past its body read timeout or under its minimum
/// rate, `service_unavailable` (503, with `Retry-After`) past its budget of body bytes or when
/// no place in flight came, `rate_limited` (429) past its caller's share. A body whose stream
/// breaks off (the client went away before its `Content-Length`) is answered
/// `malformed_request` (400, [`TransportError::incomplete_body`]).
pub async fn read_body(headers: &HeaderMap, body: Body, limit: usize) -> Result<Bytes, TransportError> {
    read_body_declared(body_head(headers), body, limit).await
}

/// What a request's head says of its body: its `Content-Length`, when it reads as a number of
/// bytes, and its `Content-Encoding`, when it names a coding other than `identity`.
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyHead {
    pub(crate) length: Option<u64>,
    coding: Option<String>,
}

/// The [`BodyHead`] of a request's `headers`.
pub(crate) fn body_head(headers: &HeaderMap) -> BodyHead {
    let length = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    let codings: Vec<String> = headers
        .get_all(header::CONTENT_ENCODING)
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .collect();
    let coded = codings
        .iter()
        .flat_map(|v| v.split(','))
        .any(|c| !c.trim().is_empty() && !c.trim().eq_ignore_ascii_case("identity"));
    BodyHead { length, coding: coded.then(|| codings.join(", ")) }
}

/// [`read_body`] of a request whose head was read already (`declared`): a body with a content
/// coding is refused `unsupported_content_encoding` (415) before it is read.
pub(crate) async fn read_body_declared(declared: BodyHead, body: Body, limit: usize) -> Result<Bytes, TransportError> {
    if let Some(coding) = &declared.coding {
        return Err(TransportError::unsupported_content_encoding(coding));
    }
    let declared = declared.length;
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(TransportError::payload_too_large(limit));
    }
    use http_body_util::BodyExt;
    let refused = |e: Box<dyn std::error::Error + Send + Sync>| match BodyRefused::find(&*e) {
        Some(refused) => refused.transport_error(),
        None if e.is::<http_body_util::LengthLimitError>() => TransportError::payload_too_large(limit),
        // The stream broke off (the client closed before the end): no body to serve.
        None => TransportError::incomplete_body(declared),
    };
    let mut body = http_body_util::Limited::new(body, limit);
    // A body that arrives as one chunk (most) is that chunk, not copied; more are joined.
    let mut first: Option<Bytes> = None;
    let mut joined: Vec<u8> = Vec::new();
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.map_err(refused)?.into_data() else { continue };
        match &first {
            None => first = Some(data),
            Some(head) => {
                if joined.is_empty() {
                    joined.extend_from_slice(head);
                }
                joined.extend_from_slice(&data);
            }
        }
    }
    Ok(if joined.is_empty() { first.unwrap_or_default() } else { Bytes::from(joined) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn bearer_tokens() {
        let hook = BearerTokens::new(["tok-1", "tok-2"]).with_caller("tok-3", Caller::new("carol").with_tenant("t"));
        let caller = |h: &HeaderMap| hook.check(h).map(|c| c.key());
        assert_eq!(caller(&headers(&[("authorization", "Bearer tok-2")])).unwrap(), "sub:bearer-token-2");
        assert_eq!(caller(&headers(&[("authorization", "bearer tok-1")])).unwrap(), "sub:bearer-token-1");
        assert_eq!(caller(&headers(&[("authorization", "Bearer tok-3")])).unwrap(), "sub:carol@t");
        let word = |h: &HeaderMap| hook.check(h).unwrap_err().word();
        assert_eq!(word(&headers(&[])), "missing_bearer_token");
        assert_eq!(word(&headers(&[("authorization", "Basic dXNlcjpwYXNz")])), "missing_bearer_token");
        assert_eq!(word(&headers(&[("authorization", "Bearer tok-4")])), "invalid_bearer_token");
        assert_eq!(word(&headers(&[("authorization", "Bearer ")])), "invalid_bearer_token");
        assert_eq!(
            word(&headers(&[("authorization", "Bearer tok-1"), ("authorization", "Bearer x")])),
            "invalid_bearer_token"
        );
        assert_eq!(format!("{hook:?}"), "BearerTokens { tokens: 3, .. }");
        let renamed = hook.with_caller("tok-1", Caller::new("ann"));
        assert_eq!(renamed.check(&headers(&[("authorization", "Bearer tok-1")])).unwrap().subject(), Some("ann"));
        assert_eq!(renamed.tokens.len(), 3);
    }

    #[test]
    fn origins() {
        let layer = OriginLayer::loopback().allow("https://App.example.com/");
        let ok = |o: &str| layer.check(&headers(&[("origin", o)])).is_ok();
        assert!(layer.check(&HeaderMap::new()).is_ok());
        for served in ["http://localhost:3000", "http://127.0.0.1", "http://[::1]:8080", "https://app.example.com"] {
            assert!(ok(served), "{served}");
        }
        for refused in ["http://evil.example", "null", "http://localhost.evil.example", "http://127.0.0.1.nip.io", ""] {
            assert!(!ok(refused), "{refused}");
        }
    }
}
