//! Transport errors: failures before any tool runs. They are not envelopes and carry no `status`.

use std::fmt;

use serde_json::{Value, json};

use crate::outcome::code::{Retry, TransportWord};
use crate::words::render::plural;

/// Which transport failure (DESIGN "Transport errors"): its word and its HTTP status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// `missing_bearer_token`, 401: no credential (RFC 6750 §3.1: `WWW-Authenticate: Bearer`).
    MissingBearerToken,
    /// `invalid_bearer_token`, 401: the credential does not verify (RFC 6750 `invalid_token`).
    InvalidBearerToken,
    /// `insufficient_scope`, 403: the credential lacks the scope (RFC 6750 `insufficient_scope`).
    InsufficientScope,
    /// `forbidden_origin`, 403: an `Origin` the server does not serve (DNS-rebinding defence,
    /// MCP 2025-11-25 "Transports / Security Warning").
    ForbiddenOrigin,
    /// `method_not_allowed`, 405: a method the path does not take (RFC 9110 §15.5.6, with
    /// `Allow`).
    MethodNotAllowed,
    /// `payload_too_large`, 413: a body over the server's limit (RFC 9110 §15.5.14).
    PayloadTooLarge,
    /// `unsupported_content_encoding`, 415: a body with a `Content-Encoding` other than
    /// `identity` (RFC 9110 §15.5.16, with `Accept-Encoding: identity`).
    UnsupportedContentEncoding,
    /// `unsupported_media_type`, 415: a `/mcp` body with a `Content-Type` other than
    /// `application/json` (RFC 9110 §15.5.16).
    UnsupportedMediaType,
    /// `forbidden_host`, 403: a `Host` header naming a host the server does not serve (the
    /// DNS-rebinding defence for requests a browser sends without `Origin`, such as `GET`).
    ForbiddenHost,
    /// `not_found`, 404: a path no route of the server serves (RFC 9110 §15.5.5).
    NotFound,
    /// `request_timeout`, 408: the request body did not arrive within the server's time
    /// (RFC 9110 §15.5.9).
    RequestTimeout,
    /// `malformed_request`, 400: a request head hyper could not parse as HTTP/1.1 (RFC 9112 §2.2),
    /// a body that ended before its end, or an `MCP-Protocol-Version` longer than any version.
    MalformedRequest,
    /// `uri_too_long`, 414: a request target longer than the server reads (RFC 9110 §15.5.15).
    UriTooLong,
    /// `header_fields_too_large`, 431: a request head longer than the server reads, or with
    /// too many fields (RFC 6585 §5).
    HeaderFieldsTooLarge,
    /// `service_unavailable`, 503: a bound of the server is reached (RFC 9110 §15.6.4, with
    /// `Retry-After`).
    ServiceUnavailable,
    /// `rate_limited`, 429: this caller already holds its share of the server's requests in
    /// flight (RFC 6585 §4, with `Retry-After`); other callers are served.
    RateLimited,
    /// `tenant_required`, 400: a surface that needs a tenant got none.
    TenantRequired,
    /// `tenant_mismatch`, 403: the `X-Tenant-ID` header names another tenant than the verified
    /// caller's (an authorization failure).
    TenantMismatch,
    /// `tenant_forbidden`, 403: the tenant policy does not let this caller act for the tenant.
    TenantForbidden,
    /// `tenant_policy_unavailable`, 403: the tenant's policy could not be read (fail closed).
    TenantPolicyUnavailable,
    /// `legacy_sse_retired`, 410: `/sse` or `/messages`, the retired HTTP+SSE transport (MCP
    /// 2024-11-05); MCP is served at `/mcp` (Streamable HTTP).
    LegacySseRetired,
}

impl TransportErrorKind {
    /// Every kind, in the order of [`codes::transport_words::ALL`](crate::codes::transport_words::ALL).
    pub const ALL: &'static [TransportErrorKind] = &[
        Self::MissingBearerToken,
        Self::InvalidBearerToken,
        Self::InsufficientScope,
        Self::ForbiddenOrigin,
        Self::ForbiddenHost,
        Self::NotFound,
        Self::MethodNotAllowed,
        Self::RequestTimeout,
        Self::PayloadTooLarge,
        Self::UnsupportedContentEncoding,
        Self::UnsupportedMediaType,
        Self::MalformedRequest,
        Self::UriTooLong,
        Self::HeaderFieldsTooLarge,
        Self::ServiceUnavailable,
        Self::RateLimited,
        Self::TenantRequired,
        Self::TenantMismatch,
        Self::TenantForbidden,
        Self::TenantPolicyUnavailable,
        Self::LegacySseRetired,
    ];

    /// This kind's row of the one code table ([`crate::codes::transport_words`]): its word, HTTP
    /// status, JSON-RPC code and retry class.
    pub const fn row(self) -> TransportWord {
        use crate::codes::transport_words as t;
        match self {
            Self::MissingBearerToken => t::MISSING_BEARER_TOKEN,
            Self::InvalidBearerToken => t::INVALID_BEARER_TOKEN,
            Self::InsufficientScope => t::INSUFFICIENT_SCOPE,
            Self::ForbiddenOrigin => t::FORBIDDEN_ORIGIN,
            Self::MethodNotAllowed => t::METHOD_NOT_ALLOWED,
            Self::PayloadTooLarge => t::PAYLOAD_TOO_LARGE,
            Self::UnsupportedContentEncoding => t::UNSUPPORTED_CONTENT_ENCODING,
            Self::UnsupportedMediaType => t::UNSUPPORTED_MEDIA_TYPE,
            Self::ForbiddenHost => t::FORBIDDEN_HOST,
            Self::NotFound => t::NOT_FOUND,
            Self::RequestTimeout => t::REQUEST_TIMEOUT,
            Self::MalformedRequest => t::MALFORMED_REQUEST,
            Self::UriTooLong => t::URI_TOO_LONG,
            Self::HeaderFieldsTooLarge => t::HEADER_FIELDS_TOO_LARGE,
            Self::ServiceUnavailable => t::SERVICE_UNAVAILABLE,
            Self::RateLimited => t::RATE_LIMITED,
            Self::TenantRequired => t::TENANT_REQUIRED,
            Self::TenantMismatch => t::TENANT_MISMATCH,
            Self::TenantForbidden => t::TENANT_FORBIDDEN,
            Self::TenantPolicyUnavailable => t::TENANT_POLICY_UNAVAILABLE,
            Self::LegacySseRetired => t::LEGACY_SSE_RETIRED,
        }
    }

    /// The lowercase word sent as `error`, from [`row`](Self::row).
    pub const fn word(self) -> &'static str {
        self.row().word()
    }

    /// The HTTP status, from [`row`](Self::row).
    pub const fn http_status(self) -> u16 {
        self.row().http_status()
    }

    /// The JSON-RPC error code over `/mcp`, from [`row`](Self::row).
    pub const fn json_rpc_code(self) -> i32 {
        self.row().json_rpc_code()
    }

    /// The retry class, from [`row`](Self::row).
    pub const fn retry(self) -> Retry {
        self.row().retry()
    }
}

/// How a [`TransportError`] is written in a response body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ErrorBody {
    /// `{"error": "<word>", "message": "<sentence>"}` (the tool endpoints, `GET /manifest`, ...).
    #[default]
    Plain,
    /// A JSON-RPC 2.0 error response with `id: null` (for `/mcp`): see
    /// [`TransportError::to_json_rpc`].
    JsonRpc,
}

/// A failure before any tool runs: authentication, the `Origin` and `Host`, the path and HTTP
/// method, the body's size and pace, the server's bounds.
///
/// Rendered with its own HTTP status as `{"error": "<word>", "message": "<sentence>"}` (DESIGN's
/// transport table), never as an envelope; a 401/403 of a bearer token carries
/// `WWW-Authenticate` (RFC 6750 §3), a 405 carries `Allow`, a 503 `Retry-After`, a 408
/// `Connection: close`.
///
/// | word | HTTP | when |
/// |---|---|---|
/// | `missing_bearer_token` | 401 | no credential (with `WWW-Authenticate: Bearer`, RFC 6750 §3.1) |
/// | `invalid_bearer_token` | 401 | the credential does not verify |
/// | `insufficient_scope` | 403 | the credential lacks the scope |
/// | `forbidden_origin` | 403 | an `Origin` the server does not serve (DNS-rebinding defence) |
/// | `forbidden_host` | 403 | a `Host` the server does not serve (DNS-rebinding defence) |
/// | `not_found` | 404 | a path no route serves; the sentence names the routes served |
/// | `method_not_allowed` | 405 | a method the path does not take (with `Allow`) |
/// | `request_timeout` | 408 | the body did not arrive in time (with `Connection: close`) |
/// | `payload_too_large` | 413 | a body over the server's limit |
/// | `unsupported_content_encoding` | 415 | a body with a `Content-Encoding` other than `identity` (with `Accept-Encoding: identity`) |
/// | `unsupported_media_type` | 415 | a `/mcp` body with a `Content-Type` other than `application/json` |
/// | `malformed_request` | 400 | a request head that is not HTTP/1.1 (hyper's parse error), a body cut short, an `MCP-Protocol-Version` longer than any version |
/// | `uri_too_long` | 414 | a request target over 65,534 bytes (hyper's limit) |
/// | `header_fields_too_large` | 431 | a request head over the server's limit, or over 100 header fields |
/// | `service_unavailable` | 503 | a bound of the server is reached: connections, requests in flight, bytes of bodies held (with `Retry-After`) |
/// | `tenant_required` | 400 | a surface that needs a tenant got none, or an `X-Tenant-ID` that is no tenant id |
/// | `tenant_mismatch` | 403 | `X-Tenant-ID` names another tenant than the verified caller's |
/// | `tenant_forbidden` | 403 | the tenant policy does not let the caller act for the tenant |
/// | `tenant_policy_unavailable` | 403 | the tenant's policy could not be read (fail closed) |
/// | `legacy_sse_retired` | 410 | `/sse` or `/messages`: the retired HTTP+SSE transport; use `/mcp` |
///
/// ```
/// use envelope_core::http::TransportError;
///
/// let e = TransportError::missing_bearer_token();
/// assert_eq!(e.http_status(), 401);
/// assert_eq!(e.www_authenticate().as_deref(), Some("Bearer"));
/// assert_eq!(
///     e.to_json(),
///     r#"{"error":"missing_bearer_token","message":"This server needs a bearer token: send the header `Authorization: Bearer <token>`."}"#
/// );
/// let too_big = TransportError::payload_too_large(1_048_576);
/// assert_eq!(too_big.word(), "payload_too_large");
/// assert_eq!(too_big.http_status(), 413);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransportError {
    kind: TransportErrorKind,
    message: String,
    scope: Option<String>,
    resource_metadata: Option<String>,
    allow: Option<String>,
    retry_after: Option<u64>,
}

impl TransportError {
    pub(crate) fn new(kind: TransportErrorKind, message: String) -> Self {
        TransportError { kind, message, scope: None, resource_metadata: None, allow: None, retry_after: None }
    }

    /// `missing_bearer_token` (401): the request carries no `Authorization: Bearer` credential.
    pub fn missing_bearer_token() -> Self {
        Self::new(
            TransportErrorKind::MissingBearerToken,
            "This server needs a bearer token: send the header `Authorization: Bearer <token>`.".to_owned(),
        )
    }

    /// `invalid_bearer_token` (401): the token is unknown, expired, revoked or malformed. The
    /// message never repeats the token.
    pub fn invalid_bearer_token() -> Self {
        Self::new(
            TransportErrorKind::InvalidBearerToken,
            "The bearer token was not accepted: it is unknown, expired or malformed. Send a valid token.".to_owned(),
        )
    }

    /// `invalid_bearer_token` (401) naming why: `"The bearer token was not accepted: <why>. Get a
    /// new token from the authorization server and send it."` (`why`, a clause such as `"it has
    /// expired (exp)"`, must hold no part of the token).
    pub fn invalid_bearer_token_because(why: &str) -> Self {
        Self::new(
            TransportErrorKind::InvalidBearerToken,
            format!(
                "The bearer token was not accepted: {why}. Get a new token from the authorization server and send it."
            ),
        )
    }

    /// `insufficient_scope` (403): the token verifies but lacks `scope` (space-separated scope
    /// tokens, RFC 6749 §3.3).
    pub fn insufficient_scope(scope: &str) -> Self {
        let mut e = Self::new(
            TransportErrorKind::InsufficientScope,
            format!("The bearer token lacks the scope this request needs ({scope}). Send a token granted that scope."),
        );
        e.scope = Some(scope.to_owned());
        e
    }

    /// `forbidden_origin` (403): the request's `Origin` header names an origin the server does
    /// not serve. The origin is quoted, cut to 80 characters.
    pub fn forbidden_origin(origin: &str) -> Self {
        let shown = crate::words::cut::quoted_cut(origin, 80, 80);
        Self::new(
            TransportErrorKind::ForbiddenOrigin,
            format!(
                "The origin {shown} is not served by this server. Send the request from an allowed origin, \
                 or from a program that sends no Origin header."
            ),
        )
    }

    /// `method_not_allowed` (405): `method` is not one the path takes; `allowed` are those it
    /// does (sent as `Allow`, RFC 9110 §10.2.1).
    pub fn method_not_allowed(method: &str, allowed: &[&str]) -> Self {
        let allow = allowed.join(", ");
        let method: String = method.chars().filter(|c| !c.is_control()).take(20).collect();
        let mut e = Self::new(
            TransportErrorKind::MethodNotAllowed,
            format!("{method} is not a method this path takes; accepted: {allow}. Send the request with {}.", {
                allowed.first().copied().unwrap_or("another method")
            }),
        );
        e.allow = Some(allow);
        e
    }

    /// `payload_too_large` (413): the body is over `limit_bytes`.
    pub fn payload_too_large(limit_bytes: usize) -> Self {
        Self::new(
            TransportErrorKind::PayloadTooLarge,
            format!("The body is larger than this server's limit of {limit_bytes} bytes. Send a smaller body."),
        )
    }

    /// `unsupported_content_encoding` (415): the body was sent with `Content-Encoding:
    /// <coding>` (quoted, cut to 64 characters), and the server reads only bodies without a
    /// content coding (RFC 9110 §8.4, §15.5.16); the response carries `Accept-Encoding: identity`.
    pub fn unsupported_content_encoding(coding: &str) -> Self {
        Self::new(
            TransportErrorKind::UnsupportedContentEncoding,
            format!(
                "The body is sent with `Content-Encoding: {}`, and this server reads only bodies without a content coding. Send the body uncoded, without `Content-Encoding` (or with `identity`).",
                crate::words::cut::cut_counted(coding, 64)
            ),
        )
    }

    /// `unsupported_media_type` (415): a `/mcp` body sent with `Content-Type: <type>` (quoted,
    /// cut to 64 characters; `None` when the header is missing or not text), where MCP's
    /// Streamable HTTP reads a JSON-RPC message sent as `application/json` (in UTF-8: a
    /// `charset` other than `utf-8` is refused too).
    pub fn unsupported_media_type(content_type: Option<&str>) -> Self {
        let sent = match content_type {
            Some(t) => format!("with `Content-Type: {}`", crate::words::cut::cut_counted(t, 64)),
            None => "without a readable `Content-Type`".to_owned(),
        };
        Self::new(
            TransportErrorKind::UnsupportedMediaType,
            format!(
                "The body is sent {sent}, and this endpoint reads one JSON-RPC message sent as JSON. Send it with `Content-Type: application/json`."
            ),
        )
    }

    /// `forbidden_host` (403): the request's `Host` header names a host the server does not
    /// serve, as a page on a DNS-rebinding domain sends. The host is quoted, cut to 80 characters;
    /// `served` says which hosts are (`"localhost, 127.0.0.1 or [::1]"`).
    pub fn forbidden_host(host: &str, served: &str) -> Self {
        let shown = crate::words::cut::quoted_cut(host, 80, 80);
        Self::new(
            TransportErrorKind::ForbiddenHost,
            format!(
                "The host {shown} is not served by this server. Send the request to {served}, \
                 as the Host header names it."
            ),
        )
    }

    /// `not_found` (404): no route serves `path`; `routes` are the routes the server does serve
    /// (`"POST /mcp"`, `"GET /tools"`), at most 20 named. The path is quoted, cut to 80
    /// characters.
    pub fn not_found(path: &str, routes: &[&str]) -> Self {
        let shown = crate::words::cut::quoted_cut(path, 80, 80);
        let message = if routes.is_empty() {
            format!("No route of this server serves the path {shown}. Send the request to a path it serves.")
        } else {
            let listed: Vec<&str> = routes.iter().copied().take(20).collect();
            let more = routes.len() - listed.len();
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            format!(
                "No route of this server serves the path {shown}; it serves {}{more}. Send the request to one of \
                 those.",
                listed.join(", ")
            )
        };
        Self::new(TransportErrorKind::NotFound, message)
    }

    /// `request_timeout` (408): the request body did not arrive within `limit_ms` milliseconds
    /// of its head. Sent with `Connection: close`.
    pub fn request_timeout(limit_ms: u64) -> Self {
        Self::new(
            TransportErrorKind::RequestTimeout,
            format!(
                "The request body did not arrive within this server's limit of {limit_ms} ms. Send the whole body \
                 at once, or a smaller one."
            ),
        )
    }

    /// `request_timeout` (408): the request body arrived at fewer than `min_rate` bytes a
    /// second, measured from its head and from one second after it
    /// ([`Serve::min_data_rate`](super::Serve::min_data_rate)). Sent with `Connection: close`.
    pub fn request_too_slow(min_rate: usize) -> Self {
        Self::new(
            TransportErrorKind::RequestTimeout,
            format!(
                "The request body arrived slower than this server's minimum of {min_rate} bytes a second. Send \
                 the whole body at once."
            ),
        )
    }

    /// `malformed_request` (400): the request body ended before its end (the connection
    /// closed, or a chunked body broke off): before the `declared` bytes of its
    /// `Content-Length` when it sent one (RFC 9112 §8: an incomplete message).
    pub fn incomplete_body(declared: Option<u64>) -> Self {
        let told = match declared {
            Some(bytes) => format!(" of the {bytes} bytes its Content-Length declared"),
            None => String::new(),
        };
        Self::new(
            TransportErrorKind::MalformedRequest,
            format!("The request body ended before all{told} arrived. Send the whole body."),
        )
    }

    /// `malformed_request` (400): the request head is not HTTP/1.1 (a bad method, target,
    /// version or header line).
    pub fn malformed_request() -> Self {
        Self::new(
            TransportErrorKind::MalformedRequest,
            "The request head could not be read as HTTP/1.1: a method, target, version or header line is \
             malformed. Send a well-formed HTTP/1.1 request."
                .to_owned(),
        )
    }

    /// `malformed_request` (400): the request sends the `Host` header more than once, which RFC
    /// 9112 §3.2 has a server answer 400.
    pub fn host_sent_twice() -> Self {
        Self::new(
            TransportErrorKind::MalformedRequest,
            "The request sends the Host header more than once. Send it once, naming the host.".to_owned(),
        )
    }

    /// `malformed_request` (400): a `/mcp` request sends `Content-Type` more than once, a field
    /// that takes one value (RFC 9110 §5.3, §8.3): which of the two the body is in is not known.
    pub fn content_type_sent_twice() -> Self {
        Self::new(
            TransportErrorKind::MalformedRequest,
            "The request sends the Content-Type header more than once. Send it once: Content-Type: application/json."
                .to_owned(),
        )
    }

    /// `uri_too_long` (414): the request target is over `limit_bytes` bytes.
    pub fn uri_too_long(limit_bytes: usize) -> Self {
        Self::new(
            TransportErrorKind::UriTooLong,
            format!(
                "The request target is longer than this server's limit of {limit_bytes} bytes. Send the data in \
                 the body instead."
            ),
        )
    }

    /// `header_fields_too_large` (431): the request head is over `limit_bytes` bytes, or has
    /// more than 100 header fields.
    pub fn header_fields_too_large(limit_bytes: usize) -> Self {
        Self::new(
            TransportErrorKind::HeaderFieldsTooLarge,
            format!(
                "The request head is larger than this server's limit of {limit_bytes} bytes or 100 header fields. \
                 Send fewer or shorter headers."
            ),
        )
    }

    /// `service_unavailable` (503): a bound of the server is reached; `bound` says which, as a
    /// clause (`"this server is at its bound of 128 requests in flight"`). Sent with
    /// `Retry-After: <retry_after_seconds>` (RFC 9110 §10.2.3; at least 1).
    pub fn service_unavailable(bound: &str, retry_after_seconds: u64) -> Self {
        Self::retry_later(TransportErrorKind::ServiceUnavailable, bound, retry_after_seconds)
    }

    /// `rate_limited` (429, with `Retry-After`): this caller (its verified subject, or its
    /// address when anonymous) already holds `share` of the server's requests in flight
    /// ([`Serve::max_in_flight_per_caller`](super::Serve::max_in_flight_per_caller)). The
    /// message: "The request was not served: this caller already has its share of `share`
    /// requests in flight. Send it again after `retry_after_seconds` s." (`1 request` for a
    /// share of 1).
    pub fn rate_limited(share: usize, retry_after_seconds: u64) -> Self {
        let bound = format!("this caller already has its share of {} in flight", plural(share, "request"));
        Self::retry_later(TransportErrorKind::RateLimited, &bound, retry_after_seconds)
    }

    /// `rate_limited` (429, with `Retry-After`): this caller (its verified subject, or its
    /// address when anonymous) already holds `share` open MCP sessions of the endpoint
    /// (`McpHttp::with_max_sessions_per_caller`; MCP 2025-11-25 "Transports / Streamable HTTP /
    /// Session Management"). The message: "The request was not served: this caller already has
    /// its share of `share` open sessions; end one it no longer uses (DELETE with its
    /// Mcp-Session-Id). Send it again after `retry_after_seconds` s."
    pub fn sessions_limited(share: usize, retry_after_seconds: u64) -> Self {
        let bound = format!(
            "this caller already has its share of {} open; end one it no longer uses (DELETE with its \
             Mcp-Session-Id)",
            plural(share, "session")
        );
        Self::retry_later(TransportErrorKind::RateLimited, &bound, retry_after_seconds)
    }

    fn retry_later(kind: TransportErrorKind, bound: &str, retry_after_seconds: u64) -> Self {
        let retry_after_seconds = retry_after_seconds.max(1);
        let mut e = Self::new(
            kind,
            format!("The request was not served: {bound}. Send it again after {retry_after_seconds} s."),
        );
        e.retry_after = Some(retry_after_seconds);
        e
    }

    /// `tenant_required` (400): the surface named `surface` serves calls for a tenant, and the
    /// request names none (no verified tenant claim, no `X-Tenant-ID` header). A header that
    /// names no valid tenant is [`tenant_header_invalid`](Self::tenant_header_invalid).
    pub fn tenant_required(surface: &str) -> Self {
        Self::new(
            TransportErrorKind::TenantRequired,
            format!(
                "The surface {} serves calls for a tenant, and this request names none: use a credential that names a tenant, or send the header `X-Tenant-ID: <tenant>` (1 to 128 visible ASCII characters, no comma).",
                crate::words::budget::cut_text(surface, 64, 128)
            ),
        )
    }

    /// `tenant_required` (400), for a request whose `X-Tenant-ID` header names no valid tenant:
    /// `refused` says what was sent and why it is none (`"acme,globex" holds a comma`, the
    /// value quoted and cut by the caller), and the sentence says what a tenant id is.
    pub fn tenant_header_invalid(surface: &str, refused: &str) -> Self {
        Self::new(
            TransportErrorKind::TenantRequired,
            format!(
                "The surface {} serves calls for a tenant, and the header `X-Tenant-ID` names no valid tenant: {refused}; send the header `X-Tenant-ID: <tenant>` (1 to 128 visible ASCII characters, no comma), or use a credential that names a tenant.",
                crate::words::budget::cut_text(surface, 64, 128)
            ),
        )
    }

    /// `tenant_mismatch` (403): the `X-Tenant-ID` header contradicts the tenant of the
    /// verified credential. Neither tenant is quoted.
    pub fn tenant_mismatch() -> Self {
        Self::new(
            TransportErrorKind::TenantMismatch,
            "The header `X-Tenant-ID` names another tenant than the credential's: drop the header, or send the credential's own tenant.".to_owned(),
        )
    }

    /// `tenant_forbidden` (403): the tenant policy does not let this caller act for the tenant.
    pub fn tenant_forbidden() -> Self {
        Self::new(
            TransportErrorKind::TenantForbidden,
            "This caller may not act for the tenant the request names. Send a tenant the caller belongs to.".to_owned(),
        )
    }

    /// `tenant_policy_unavailable` (403): the tenant's policy could not be read (the hook
    /// failed or did not answer in time), so nothing is served for it: fail closed.
    pub fn tenant_policy_unavailable() -> Self {
        Self::new(
            TransportErrorKind::TenantPolicyUnavailable,
            "The tenant's policy could not be read, so the request was not served. Nothing was done; try again later."
                .to_owned(),
        )
    }

    /// `legacy_sse_retired` (410): `path` (`/sse`, `/messages`) belongs to the HTTP+SSE
    /// transport of MCP 2024-11-05, which this server does not serve.
    pub fn legacy_sse_retired(path: &str) -> Self {
        Self::new(
            TransportErrorKind::LegacySseRetired,
            format!(
                "{} belongs to the retired HTTP+SSE transport of MCP 2024-11-05. This server speaks MCP Streamable HTTP at /mcp: send each JSON-RPC message as a POST to /mcp.",
                crate::words::budget::cut_text(path, 64, 128)
            ),
        )
    }

    /// Adds `resource_metadata="<url>"` to `WWW-Authenticate` (RFC 9728 §5.1), the URL of the
    /// OAuth protected resource metadata that MCP clients read to find the authorization server
    /// (MCP 2025-11-25 "Authorization"). Only bearer errors carry it.
    #[must_use]
    pub fn with_resource_metadata(mut self, url: impl Into<String>) -> Self {
        self.resource_metadata = Some(url.into());
        self
    }

    /// Adds `scope="<scopes>"` (space-separated, RFC 6749 §3.3) to the challenge of a 401
    /// (`missing_bearer_token`, `invalid_bearer_token`): the scopes the surface's tools need,
    /// so a client asks for them up front (RFC 6750 §3, MCP 2025-11-25 "Authorization / Scope
    /// selection"). An empty `scopes` adds nothing; other kinds are returned unchanged (an
    /// `insufficient_scope` names its own).
    #[must_use]
    pub fn with_scope(mut self, scopes: &str) -> Self {
        let bearer_401 =
            matches!(self.kind, TransportErrorKind::MissingBearerToken | TransportErrorKind::InvalidBearerToken);
        if bearer_401 && !scopes.trim().is_empty() {
            self.scope = Some(scopes.trim().to_owned());
        }
        self
    }

    /// The `resource_metadata` URL this error's challenge carries, if any.
    pub fn resource_metadata(&self) -> Option<&str> {
        self.resource_metadata.as_deref()
    }

    /// Which failure.
    pub fn kind(&self) -> TransportErrorKind {
        self.kind
    }

    /// The word sent as `error` (`"missing_bearer_token"`).
    pub fn word(&self) -> &'static str {
        self.kind.word()
    }

    /// The HTTP status: 400, 401, 403, 404, 405, 408, 410, 413, 414, 431 or 503.
    pub fn http_status(&self) -> u16 {
        self.kind.http_status()
    }

    /// The sentence sent as `message`.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `WWW-Authenticate` value (RFC 6750 §3) for the bearer errors: `Bearer` when no token
    /// was sent (no error code, §3.1), `Bearer error="invalid_token"`, or `Bearer
    /// error="insufficient_scope", scope="..."`; each with `resource_metadata="..."` when set,
    /// and a 401 with `scope="..."` when [`with_scope`](Self::with_scope) gave it.
    /// `None` for the other kinds.
    pub fn www_authenticate(&self) -> Option<String> {
        let mut params: Vec<String> = Vec::new();
        let scope = self.scope.as_deref().map(|scope| format!("scope={}", quoted(scope)));
        let metadata = self.resource_metadata.as_deref().map(|url| format!("resource_metadata={}", quoted(url)));
        match self.kind {
            TransportErrorKind::MissingBearerToken | TransportErrorKind::InvalidBearerToken => {
                if self.kind == TransportErrorKind::InvalidBearerToken {
                    params.push(r#"error="invalid_token""#.to_owned());
                }
                params.extend(metadata);
                params.extend(scope);
            }
            TransportErrorKind::InsufficientScope => {
                params.push(r#"error="insufficient_scope""#.to_owned());
                params.extend(scope);
                params.extend(metadata);
            }
            _ => return None,
        }
        Some(if params.is_empty() { "Bearer".to_owned() } else { format!("Bearer {}", params.join(", ")) })
    }

    /// The `Allow` value of a 405 (`"GET, POST"`).
    pub fn allow(&self) -> Option<&str> {
        self.allow.as_deref()
    }

    /// The `Retry-After` of a 503, in seconds.
    pub fn retry_after_seconds(&self) -> Option<u64> {
        self.retry_after
    }

    /// The body: `{"error": "<word>", "message": "<sentence>"}`.
    pub fn to_value(&self) -> Value {
        json!({"error": self.word(), "message": self.message})
    }

    /// The body as JSON text, keys in that order.
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    /// The same failure as a JSON-RPC 2.0 error response, for `/mcp` (DESIGN: "Over MCP the same
    /// failures are JSON-RPC errors on the HTTP response"), sent with the same HTTP status and
    /// headers:
    ///
    /// ```json
    /// {"jsonrpc": "2.0", "id": null,
    ///  "error": {"code": -32000, "message": "<sentence>", "data": {"error": "<word>"}}}
    /// ```
    ///
    /// `id` is the request's id when known, else `null` (JSON-RPC 2.0 §5: the id could not be
    /// read, as before the body is read). `-32000` is in the range JSON-RPC leaves to servers
    /// (§5.1), read from the word's row ([`TransportErrorKind::row`]); the word in `data.error`
    /// tells the failures apart.
    pub fn to_json_rpc(&self, id: Option<&Value>) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": id.cloned().unwrap_or(Value::Null),
            "error": {"code": self.kind.json_rpc_code(), "message": self.message, "data": {"error": self.word()}},
        })
    }

    /// The body in the given shape.
    pub fn body(&self, shape: ErrorBody) -> Value {
        match shape {
            ErrorBody::Plain => self.to_value(),
            ErrorBody::JsonRpc => self.to_json_rpc(None),
        }
    }
}

/// An RFC 9110 §5.6.4 quoted-string.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars().filter(|c| !c.is_control()) {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.word(), self.message)
    }
}

impl std::error::Error for TransportError {}

#[cfg(feature = "http")]
impl TransportError {
    /// The response in the given shape: status, `content-type: application/json`,
    /// `WWW-Authenticate`, `Allow`, `Retry-After`, `Connection: close` or `Accept-Encoding`
    /// where they apply.
    pub fn into_response_as(self, shape: ErrorBody) -> axum::response::Response {
        self.response_with(self.body(shape))
    }

    /// The JSON-RPC response for `/mcp` (see [`to_json_rpc`](Self::to_json_rpc)), with the
    /// request's `id` when it is known.
    pub fn into_json_rpc_response(self, id: Option<&Value>) -> axum::response::Response {
        let body = self.to_json_rpc(id);
        self.response_with(body)
    }

    fn response_with(&self, body: Value) -> axum::response::Response {
        use axum::http::{HeaderValue, StatusCode, header};
        let mut response = axum::response::Response::new(axum::body::Body::from(body.to_string()));
        *response.status_mut() = StatusCode::from_u16(self.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(challenge) = self.www_authenticate().and_then(|c| HeaderValue::from_str(&c).ok()) {
            headers.insert(header::WWW_AUTHENTICATE, challenge);
        }
        if let Some(allow) = self.allow.as_deref().and_then(|a| HeaderValue::from_str(a).ok()) {
            headers.insert(header::ALLOW, allow);
        }
        if let Some(seconds) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if self.kind == TransportErrorKind::RequestTimeout {
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        if self.kind == TransportErrorKind::UnsupportedContentEncoding {
            // RFC 9110 §15.5.16: the codings that would have been accepted.
            headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_static("identity"));
        }
        response
    }
}

#[cfg(feature = "http")]
impl axum::response::IntoResponse for TransportError {
    fn into_response(self) -> axum::response::Response {
        self.into_response_as(ErrorBody::Plain)
    }
}

/// Why the server ([`super::serve()`]) cut a request body's stream: the error [`read_body`](super::layers::read_body) finds among the body's
/// error sources and answers as a transport error.
#[cfg(feature = "http")] // read by the server and its layers
#[derive(Debug)]
pub(crate) enum BodyRefused {
    Timeout {
        limit_ms: u64,
    },
    /// Under the minimum rate, in bytes a second.
    TooSlow {
        min_rate: usize,
    },
    Budget {
        limit_bytes: usize,
        retry_after_seconds: u64,
    },
    /// Read whole, but its caller already holds its share of the places in flight.
    RateLimited {
        share: usize,
        retry_after_seconds: u64,
    },
    /// Read whole, but no place in flight came within the queue's wait.
    Busy {
        max_in_flight: usize,
        retry_after_seconds: u64,
    },
}

#[cfg(feature = "http")]
impl BodyRefused {
    pub(crate) fn transport_error(&self) -> TransportError {
        match *self {
            BodyRefused::Timeout { limit_ms } => TransportError::request_timeout(limit_ms),
            BodyRefused::TooSlow { min_rate } => TransportError::request_too_slow(min_rate),
            BodyRefused::RateLimited { share, retry_after_seconds } => {
                TransportError::rate_limited(share, retry_after_seconds)
            }
            BodyRefused::Busy { max_in_flight, retry_after_seconds } => TransportError::service_unavailable(
                &format!("this server is at its bound of {} in flight", plural(max_in_flight, "request")),
                retry_after_seconds,
            ),
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

#[cfg(feature = "http")]
impl fmt::Display for BodyRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyRefused::Timeout { limit_ms } => write!(f, "the body did not arrive within {limit_ms} ms"),
            BodyRefused::TooSlow { min_rate } => write!(f, "the body arrived under {min_rate} bytes a second"),
            BodyRefused::RateLimited { share, .. } => {
                write!(f, "its caller already holds its share of {} in flight", plural(*share, "request"))
            }
            BodyRefused::Busy { max_in_flight, .. } => {
                write!(f, "no place among the {} in flight within the queue's wait", plural(*max_in_flight, "request"))
            }
            BodyRefused::Budget { limit_bytes, .. } => {
                write!(f, "the bodies being read hold the budget of {limit_bytes} bytes")
            }
        }
    }
}

#[cfg(feature = "http")]
impl std::error::Error for BodyRefused {}

#[cfg(test)]
mod tests;
