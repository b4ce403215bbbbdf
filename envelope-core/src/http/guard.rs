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

use super::transport::{ErrorBody, TransportError};

/// The one auth hook of a server: request headers in, `Ok(())` to let the request through, or
/// the [`TransportError`] to answer (`missing_bearer_token`, `invalid_bearer_token`,
/// `insufficient_scope`, or any other) before any tool runs.
///
/// Implemented for every `Fn(&HeaderMap) -> Result<(), TransportError>`, and by
/// [`BearerTokens`]. The hook must not log or echo a token.
///
/// ```
/// use envelope_core::http::{Authenticate, TransportError, bearer_token};
/// use axum::http::HeaderMap;
///
/// let hook = |headers: &HeaderMap| -> Result<(), TransportError> {
///     match bearer_token(headers)? {
///         "reader-token" => Err(TransportError::insufficient_scope("tools:call")),
///         "writer-token" => Ok(()),
///         _ => Err(TransportError::invalid_bearer_token()),
///     }
/// };
/// let mut headers = HeaderMap::new();
/// headers.insert("authorization", "Bearer writer-token".parse().unwrap());
/// assert!(hook.authenticate(&headers).is_ok());
/// ```
pub trait Authenticate: Send + Sync + 'static {
    /// Checks one request's headers.
    ///
    /// # Errors
    /// The transport error to answer instead of serving the request.
    fn authenticate(&self, headers: &HeaderMap) -> Result<(), TransportError>;
}

impl<F> Authenticate for F
where
    F: Fn(&HeaderMap) -> Result<(), TransportError> + Send + Sync + 'static,
{
    fn authenticate(&self, headers: &HeaderMap) -> Result<(), TransportError> {
        self(headers)
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
/// for a server with a few shared secrets. A token's value never appears in `Debug` output.
#[derive(Clone)]
pub struct BearerTokens {
    tokens: Arc<[String]>,
    resource_metadata: Option<String>,
}

impl BearerTokens {
    /// Accepts exactly `tokens`.
    pub fn new<T: Into<String>>(tokens: impl IntoIterator<Item = T>) -> Self {
        BearerTokens { tokens: tokens.into_iter().map(Into::into).collect(), resource_metadata: None }
    }

    /// Sends `resource_metadata="<url>"` with every 401 (RFC 9728 §5.1).
    #[must_use]
    pub fn with_resource_metadata(mut self, url: impl Into<String>) -> Self {
        self.resource_metadata = Some(url.into());
        self
    }
}

impl fmt::Debug for BearerTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerTokens").field("tokens", &self.tokens.len()).finish_non_exhaustive()
    }
}

impl Authenticate for BearerTokens {
    fn authenticate(&self, headers: &HeaderMap) -> Result<(), TransportError> {
        let with_metadata = |e: TransportError| match &self.resource_metadata {
            Some(url) => e.with_resource_metadata(url.clone()),
            None => e,
        };
        let token = bearer_token(headers).map_err(with_metadata)?;
        let mut matched = false;
        for known in self.tokens.iter() {
            matched |= constant_time_eq(known.as_bytes(), token.as_bytes());
        }
        if matched { Ok(()) } else { Err(with_metadata(TransportError::invalid_bearer_token())) }
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

/// Whether a host (as in a URI's authority: `[::1]` in brackets) is a loopback name:
/// `localhost`, `*.localhost`, `127.0.0.0/8` or `[::1]`.
pub(crate) fn host_is_loopback(host: &str) -> bool {
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<std::net::Ipv6Addr>().is_ok_and(|ip| ip.is_loopback());
    }
    if let Ok(v4) = host.parse::<std::net::Ipv4Addr>() {
        return v4.is_loopback();
    }
    let host = host.to_ascii_lowercase();
    host == "localhost" || host.ends_with(".localhost")
}

type Check = Arc<dyn Fn(&HeaderMap) -> Result<(), TransportError> + Send + Sync>;

/// A tower [`Layer`] that runs the server's one auth hook on every request and answers its
/// error (status, `WWW-Authenticate`, body) without calling the inner service. Each refusal is
/// one `tracing` event at `info`, `request refused: <word>` (never the token).
///
/// ```
/// use axum::{Router, routing::get};
/// use envelope_core::http::{AuthLayer, BearerTokens};
///
/// let app: Router = Router::new()
///     .route("/ping", get(|| async { "pong" }))
///     .layer(AuthLayer::new(BearerTokens::new(["s3cret-token"])));
/// ```
#[derive(Clone)]
pub struct AuthLayer {
    check: Check,
    body: ErrorBody,
}

impl AuthLayer {
    /// Runs `hook` on every request; its errors are answered as `{"error", "message"}`.
    pub fn new(hook: impl Authenticate) -> Self {
        AuthLayer { check: Arc::new(move |h: &HeaderMap| hook.authenticate(h)), body: ErrorBody::Plain }
    }

    /// Answers errors as JSON-RPC error responses instead (for `/mcp`).
    #[must_use]
    pub fn json_rpc(mut self) -> Self {
        self.body = ErrorBody::JsonRpc;
        self
    }
}

impl fmt::Debug for AuthLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthLayer").field("body", &self.body).finish_non_exhaustive()
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = Checked<S>;
    fn layer(&self, inner: S) -> Checked<S> {
        Checked { inner, check: Arc::clone(&self.check), body: self.body }
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

/// The service of [`AuthLayer`] and [`OriginLayer`]: a check on the headers, then the inner
/// service.
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
/// `payload_too_large` (413) when `Content-Length` says more than `limit`, or when the body
/// grows past it while read (the rest is not read). Under [`serve`](super::serve), whose bounds
/// cut a body's stream: `request_timeout` (408) past its body read timeout,
/// `service_unavailable` (503, with `Retry-After`) past its budget of body bytes. A body whose
/// stream fails otherwise (the client went away) is answered `payload_too_large`, since nothing
/// can be served from it.
pub async fn read_body(headers: &HeaderMap, body: Body, limit: usize) -> Result<Bytes, TransportError> {
    let declared =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(TransportError::payload_too_large(limit));
    }
    use http_body_util::BodyExt;
    match http_body_util::Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) => match BodyRefused::find(&*e) {
            Some(refused) => Err(refused.transport_error()),
            None => Err(TransportError::payload_too_large(limit)),
        },
    }
}

/// Why the server ([`super::serve`]) cut a request body's stream: the error [`read_body`] finds among the body's
/// error sources and answers as a transport error.
#[derive(Debug)]
pub(crate) enum BodyRefused {
    Timeout { limit_ms: u64 },
    Budget { limit_bytes: usize, retry_after_seconds: u64 },
}

impl BodyRefused {
    pub(crate) fn transport_error(&self) -> TransportError {
        match *self {
            BodyRefused::Timeout { limit_ms } => TransportError::request_timeout(limit_ms),
            BodyRefused::Budget { limit_bytes, retry_after_seconds } => TransportError::service_unavailable(
                &format!("the bodies being read already hold this server's budget of {limit_bytes} bytes"),
                retry_after_seconds,
            ),
        }
    }

    /// The refusal among `error` and its sources.
    pub(crate) fn find<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a BodyRefused> {
        let mut cause = Some(error);
        while let Some(e) = cause {
            if let Some(refused) = e.downcast_ref::<BodyRefused>() {
                return Some(refused);
            }
            cause = e.source();
        }
        None
    }
}

impl fmt::Display for BodyRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyRefused::Timeout { limit_ms } => write!(f, "the body did not arrive within {limit_ms} ms"),
            BodyRefused::Budget { limit_bytes, .. } => {
                write!(f, "the bodies being read hold the budget of {limit_bytes} bytes")
            }
        }
    }
}

impl std::error::Error for BodyRefused {}

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
        let hook = BearerTokens::new(["tok-1", "tok-2"]);
        assert!(hook.authenticate(&headers(&[("authorization", "Bearer tok-2")])).is_ok());
        assert!(hook.authenticate(&headers(&[("authorization", "bearer tok-1")])).is_ok());
        let word = |h: &HeaderMap| hook.authenticate(h).unwrap_err().word();
        assert_eq!(word(&headers(&[])), "missing_bearer_token");
        assert_eq!(word(&headers(&[("authorization", "Basic dXNlcjpwYXNz")])), "missing_bearer_token");
        assert_eq!(word(&headers(&[("authorization", "Bearer tok-3")])), "invalid_bearer_token");
        assert_eq!(word(&headers(&[("authorization", "Bearer ")])), "invalid_bearer_token");
        assert_eq!(
            word(&headers(&[("authorization", "Bearer tok-1"), ("authorization", "Bearer x")])),
            "invalid_bearer_token"
        );
        assert_eq!(format!("{hook:?}"), "BearerTokens { tokens: 2, .. }");
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
