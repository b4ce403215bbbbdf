//! HTTP: the status rule, transport errors, and (feature `http`) the axum layers and tool router.
//!
//! Always available, with no HTTP dependency:
//! - [`status`]: the one rule mapping an [`Envelope`] to its HTTP status (DESIGN "Transport
//!   mapping"). Every HTTP surface of envelope chooses its status through it.
//! - [`TransportError`]: a failure before any tool runs (authentication, `Origin` and `Host`,
//!   path and method, body size and pace, the server's bounds), rendered
//!   `{"error": "<word>", "message": "<sentence>"}` with its own status, or as a JSON-RPC error
//!   for `/mcp`.
//!
//! With feature `http` (axum 0.8, tower 0.5):
//! - [`AuthLayer`]: one auth hook ([`Authenticate`]) in front of any router;
//! - [`auth`]: the OAuth resource server of MCP authorization: Protected Resource Metadata
//!   (RFC 9728) and (feature `jwt`) bearer JWT verification against a JWKS;
//! - [`OriginLayer`]: the `Origin` check (by default loopback origins only, and requests without
//!   an `Origin` header);
//! - [`read_body`]: reads a request body under a byte limit, `payload_too_large` past it;
//! - [`admit`]: a [`Surface`](crate::call::Surface)'s scopes, tenant and tenant policy for one
//!   request (`HttpTools::with_surface` and `McpHttp::with_surface` run it on every request);
//!   [`retired_sse`]: `/sse` and `/messages` answering 410 `legacy_sse_retired`;
//! - [`serve`]: the HTTP/1.1 server for these routers on a public network: timeouts on heads
//!   and bodies, bounds on connections, requests in flight and body bytes held, the `Host`
//!   check ([`AllowedHosts`]), and every answer of its own in JSON.

use crate::outcome::code::Status;
use crate::outcome::code::{Code, codes};
use crate::outcome::envelope::Envelope;

// Transport errors: failures before any tool runs, `{"error", "message"}`.
mod transport;

pub use transport::{ErrorBody, TransportError, TransportErrorKind};

// Authentication: bearer JWTs against a JWKS, and the hook for opaque tokens.
#[cfg(feature = "http")]
pub mod auth;
// A surface's gate over HTTP: scopes, tenant, tenant policy; the retired HTTP+SSE paths.
#[cfg(feature = "http")]
mod gate;
// The tower layers every request passes first: the auth hook, `Origin`, the body size.
#[cfg(feature = "http")]
mod layers;
// The HTTP/1.1 server of envelope's routers, bounded for a public network.
#[cfg(feature = "http")]
mod serve;
// The tool endpoints: `POST /tools/{name}`, `GET /tools`, `GET /manifest`.
#[cfg(feature = "http")]
mod tools;
#[cfg(feature = "http")]
pub(crate) use gate::gated;
#[cfg(feature = "http")]
pub(crate) use gate::with_peer;
#[cfg(feature = "http")]
pub use gate::{TENANT_HEADER, admit, retired_sse};
#[cfg(feature = "http")]
pub use layers::{
    AuthLayer, Authenticate, Authenticated, BearerTokens, Checked, OriginLayer, bearer_token, origin_is_loopback,
    read_body,
};
#[cfg(feature = "http")]
pub use serve::{AllowedHosts, Serve, serve};
#[cfg(feature = "http")]
pub use tools::{DEFAULT_BODY_LIMIT, DEFAULT_RETRY_AFTER_SECONDS, HttpTools};

/// The HTTP status (RFC 9110 §15) an envelope is answered with: the one status rule.
///
/// | status | HTTP |
/// |---|---|
/// | `ok` | 200 OK |
/// | `needs_confirmation` | 202 Accepted |
/// | `invalid` | the code's own status when it is 4xx, else 400 Bad Request: `VALIDATION_ERROR` 400, `NOT_FOUND` 404, `CONFLICT` / `VERSION_CONFLICT` / `IN_PROGRESS` 409, `IDEMPOTENCY_CONFLICT` 422 (a key reused with other arguments: never retry unchanged; IETF Idempotency-Key draft), `RATE_LIMITED` / `QUOTA_EXCEEDED` 429 (answer with `Retry-After`), `UNAUTHORIZED` 401, `FORBIDDEN` 403 |
/// | `error` | the code's own status when it is 5xx, else 500 Internal Server Error: `BACKEND_ERROR` 500, `NOT_IMPLEMENTED` 501, `TIMEOUT` 504; `CONFIRMATION_REQUIRED` (202) sent as a fault, where an action cannot be queued, is 500 |
///
/// A domain code brings its own status with [`Code::http_status`]; a refusal never falls
/// through to a 2xx or 5xx, and a fault never to a 2xx or 4xx, whatever its code declares.
///
/// ```
/// use envelope_core::{Envelope, Fault, Refusal, codes, http};
///
/// assert_eq!(http::status(&Envelope::ok(serde_json::json!([]))), 200);
/// let refused = Refusal::parameter("hours_back").rejected(&0).accepted("1 to 720").fix("Send 24.").build();
/// assert_eq!(http::status(&Envelope::from(refused)), 400);
/// assert_eq!(http::status(&Envelope::from(Fault::timeout("reading statistics"))), 504);
/// ```
pub fn status(envelope: &Envelope) -> u16 {
    rule(envelope.status(), envelope.error_code().map(|c| c.http_status()))
}

/// The status rule on its parts: the status word and the code's own HTTP status.
pub(crate) fn rule(status: Status, code_status: Option<u16>) -> u16 {
    match status {
        Status::Ok => 200,
        Status::NeedsConfirmation => 202,
        Status::Invalid => code_status.filter(|s| (400..500).contains(s)).unwrap_or(400),
        Status::Error => code_status.filter(|s| (500..600).contains(s)).unwrap_or(500),
    }
}

/// The standard code whose name `error_code` ends with, after any service prefix
/// (`ACME_NOT_FOUND` → `NOT_FOUND`), among `codes::ALL` and `extra`; the longest name wins.
pub(crate) fn known_code(error_code: &str, extra: &[Code]) -> Option<Code> {
    codes::ALL
        .iter()
        .chain(extra)
        .filter(|c| {
            error_code == c.name()
                || error_code
                    .strip_suffix(c.name())
                    .is_some_and(|prefix| prefix.ends_with('_') || prefix.ends_with('.') || prefix.ends_with(':'))
        })
        .max_by_key(|c| c.name().len())
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Fault, Refusal};

    fn refusal(code: Code) -> Envelope {
        let r = Refusal::parameter("p").rejected(&1).accepted("2").fix("Send 2.").build().with_code(code);
        Envelope::from(r)
    }

    #[test]
    fn every_standard_code_has_the_status_the_rule_names() {
        let expect = [
            (codes::VALIDATION_ERROR, 400),
            (codes::NOT_FOUND, 404),
            (codes::CONFLICT, 409),
            (codes::VERSION_CONFLICT, 409),
            (codes::IDEMPOTENCY_CONFLICT, 422),
            (codes::IN_PROGRESS, 409),
            (codes::RATE_LIMITED, 429),
            (codes::QUOTA_EXCEEDED, 429),
            (codes::UNAUTHORIZED, 401),
            (codes::FORBIDDEN, 403),
        ];
        for (code, http) in expect {
            assert_eq!(status(&refusal(code)), http, "{code}");
        }
        assert_eq!(status(&Envelope::from(Fault::backend("x"))), 500);
        assert_eq!(status(&Envelope::from(Fault::not_implemented("x"))), 501);
        assert_eq!(status(&Envelope::from(Fault::timeout("x"))), 504);
        // Where an action cannot be queued, a confirmation is a fault; its own 202 is not 5xx.
        const NOT_QUEUED: Code = Code::new("CONFIRMATION_REQUIRED", Status::Error).with_http_status(202);
        assert_eq!(status(&Envelope::from(Fault::new(NOT_QUEUED, "deleting the note"))), 500);
    }

    #[test]
    fn a_code_outside_its_class_falls_back() {
        assert_eq!(rule(Status::Invalid, Some(200)), 400);
        assert_eq!(rule(Status::Invalid, Some(503)), 400);
        assert_eq!(rule(Status::Error, Some(202)), 500);
        assert_eq!(rule(Status::Error, Some(404)), 500);
        assert_eq!(rule(Status::Error, Some(503)), 503);
    }

    #[test]
    fn codes_are_known_after_a_prefix() {
        assert_eq!(known_code("ACME_VALIDATION_ERROR", &[]), Some(codes::VALIDATION_ERROR));
        assert_eq!(known_code("NOT_FOUND", &[]), Some(codes::NOT_FOUND));
        assert_eq!(known_code("XNOT_FOUND", &[]), None);
        assert_eq!(known_code("ACME_IDEMPOTENCY_CONFLICT", &[]), Some(codes::IDEMPOTENCY_CONFLICT));
    }
}
