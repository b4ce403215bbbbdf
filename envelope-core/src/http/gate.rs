//! The gate of a surface over HTTP: its scopes, its tenant and the tenant's policy, checked
//! once per request after the auth hook and before the body is read; and the retired HTTP+SSE
//! paths.

use axum::Router;
use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::any;

use super::transport::{ErrorBody, TransportError};
use crate::call::policy::TenantAccess;
use crate::{Caller, call::Surface};

/// The header a request names its tenant with, where the credential names none.
pub const TENANT_HEADER: &str = "x-tenant-id";

/// The caller of one request to `surface`, admitted: `caller` is the one the auth hook verified
/// ([`Caller::anonymous`] without one), `headers` the request's.
///
/// In order:
/// 1. the surface's scopes ([`Surface::with_scopes`]): one the caller lacks is 403
///    `insufficient_scope`, with `WWW-Authenticate: Bearer error="insufficient_scope",
///    scope="<the scopes lacking, space-separated>"` (RFC 6750 §3.1);
/// 2. on a surface that needs a tenant ([`Surface::requiring_tenant`]): the verified caller's
///    tenant, else the header `X-Tenant-ID` (1 to 128 visible ASCII characters, no comma). A header that
///    names another tenant than the verified one is 403 `tenant_mismatch` (a verified claim is
///    never overridden); no tenant, or a header that is no tenant id, is 400 `tenant_required`
///    (the header quoted, cut, and why it is none);
/// 3. the surface's tenant policy ([`Surface::with_tenant_policy`]), if any: `Denied` is 403
///    `tenant_forbidden`; an error or no answer within its timeout is 403
///    `tenant_policy_unavailable` (fail closed).
///
/// Answers the caller with the accepted tenant; on a surface without a tenant, `caller`
/// unchanged. A tenant the header named is the caller's space ([`Caller::key`]), never a caller
/// of its own for limits and quotas ([`Caller::quota_key`]).
///
/// # Errors
/// The [`TransportError`] of the first check that fails.
pub async fn admit(surface: &Surface, caller: Caller, headers: &HeaderMap) -> Result<Caller, TransportError> {
    let missing = surface.missing_scopes(&caller);
    if !missing.is_empty() {
        return Err(TransportError::insufficient_scope(&missing.join(" ")));
    }
    if !surface.needs_tenant() {
        return Ok(caller);
    }
    let sent =
        tenant_header(headers).map_err(|refused| TransportError::tenant_header_invalid(surface.name(), &refused))?;
    let (tenant, verified) = match (caller.tenant(), sent) {
        (Some(verified), Some(sent)) if verified != sent => return Err(TransportError::tenant_mismatch()),
        (Some(verified), _) => (verified.to_owned(), true),
        (None, Some(sent)) => (sent.to_owned(), false),
        (None, None) => return Err(TransportError::tenant_required(surface.name())),
    };
    if let Some((policy, timeout)) = surface.tenant_policy() {
        match crate::call::policy::within(timeout, || policy.admit(&caller, &tenant, surface.name())).await {
            Ok(TenantAccess::Granted) => {}
            Ok(TenantAccess::Denied) => return Err(TransportError::tenant_forbidden()),
            Err(why) => {
                tracing::warn!(
                    surface = surface.name(),
                    "the tenant policy gave no answer ({why}); the request is refused"
                );
                return Err(TransportError::tenant_policy_unavailable());
            }
        }
    }
    if verified {
        return Ok(caller);
    }
    // The header names the caller's space, not a caller of its own: limits and quotas stay the
    // identity's (`Caller::quota_key`).
    Ok(caller.with_header_tenant(tenant))
}

/// Whether `text` is a tenant id: 1 to 128 visible ASCII characters other than a comma (the
/// header's rule, and a verified tenant claim's). A comma separates the values of a header
/// field sent twice (RFC 9110 §5.3): `X-Tenant-ID: acme,globex` names two tenants, not one.
pub(crate) fn is_tenant_id(text: &str) -> bool {
    (1..=128).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_graphic() && b != b',')
}

/// The tenant the `X-Tenant-ID` header names, if sent: `Err` when a value is not 1 to 128
/// visible ASCII characters without a comma, or when the header is sent twice with different
/// values, with what was sent (quoted, cut) and why it names no tenant.
fn tenant_header(headers: &HeaderMap) -> Result<Option<&str>, String> {
    let quoted = |bytes: &[u8]| crate::words::cut::quoted_cut(&String::from_utf8_lossy(bytes), 128, 120);
    let mut found: Option<&str> = None;
    for value in headers.get_all(TENANT_HEADER) {
        let sent = quoted(value.as_bytes());
        let Some(text) = value.to_str().ok().map(str::trim).filter(|t| is_tenant_id(t)) else {
            let text = String::from_utf8_lossy(value.as_bytes());
            let text = text.trim();
            let why = if text.is_empty() {
                "is empty".to_owned()
            } else if text.chars().count() > 128 {
                "is longer than 128 characters".to_owned()
            } else if text.contains(',') {
                "holds a comma: it names two tenants (RFC 9110 §5.3)".to_owned()
            } else {
                "holds a character that is not visible ASCII (a space, a control or a non-ASCII character)".to_owned()
            };
            return Err(format!("{sent} {why}"));
        };
        match found {
            Some(seen) if seen != text => {
                return Err(format!("{}, {sent} are two tenants (the header is sent twice)", quoted(seen.as_bytes())));
            }
            _ => found = Some(text),
        }
    }
    Ok(found)
}

/// Wraps `router` in the gate of `surface` ([`admit`]): every request is admitted before it
/// reaches a route, and the admitted caller replaces the one in its extensions. Refusals are
/// written as `shape` says.
pub(crate) fn gated<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    surface: &Surface,
    shape: ErrorBody,
) -> Router<S> {
    if surface.scopes().is_empty() && !surface.needs_tenant() {
        return router;
    }
    let gate = Gate { surface: surface.clone(), shape };
    router.layer(axum::middleware::from_fn_with_state(gate, gate_request))
}

#[derive(Clone)]
struct Gate {
    surface: Surface,
    shape: ErrorBody,
}

async fn gate_request(State(gate): State<Gate>, mut request: Request, next: Next) -> Response {
    let caller = request.extensions().get::<Caller>().cloned().unwrap_or_else(Caller::anonymous);
    let caller = with_peer(caller, request.extensions());
    match admit(&gate.surface, caller, request.headers()).await {
        Ok(caller) => {
            request.extensions_mut().insert(caller);
            next.run(request).await
        }
        Err(refused) => {
            tracing::info!(surface = gate.surface.name(), "request refused at the surface: {}", refused.word());
            refused.into_response_as(gate.shape)
        }
    }
}

/// `/sse` and `/messages`, any method: 410 `legacy_sse_retired`, naming `/mcp`. The paths of
/// MCP's HTTP+SSE transport (2024-11-05), which Streamable HTTP replaced; a client still on it
/// learns where to go instead of getting a 404. Part of `McpHttp::router`; merge it yourself
/// into another app.
pub fn retired_sse<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/sse", any(|| async { TransportError::legacy_sse_retired("/sse").into_response() }))
        .route("/messages", any(|| async { TransportError::legacy_sse_retired("/messages").into_response() }))
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

/// `caller` with the address its request came from, when it has no verified identity: the
/// peer in the request's extensions as axum's `ConnectInfo<SocketAddr>` ([`serve`](super::serve)
/// puts it there; so does axum's `into_make_service_with_connect_info`). Its limits and quotas
/// then count under that address ([`Caller::quota_key`]). A verified caller is returned as it is.
pub(crate) fn with_peer(caller: Caller, extensions: &axum::http::Extensions) -> Caller {
    if !caller.is_anonymous() || caller.peer().is_some() {
        return caller;
    }
    match extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>() {
        Some(axum::extract::ConnectInfo(peer)) => caller.with_peer(peer.ip()),
        None => caller,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&[u8]]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(TENANT_HEADER, axum::http::HeaderValue::from_bytes(v).unwrap());
        }
        h
    }

    fn admitted(surface: &Surface, caller: Caller, values: &[&[u8]]) -> Result<Caller, &'static str> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        rt.block_on(admit(surface, caller, &headers(values))).map_err(|e| e.word())
    }

    #[test]
    fn a_tenant_header_is_read_only_where_a_tenant_is_needed_and_only_when_well_formed() {
        let tenants = Surface::internal("t").requiring_tenant();
        let bob = || Caller::new("bob");
        let tenant = |values: &[&[u8]]| admitted(&tenants, bob(), values).map(|c| c.tenant().map(str::to_owned));
        assert_eq!(tenant(&[b"acme"]), Ok(Some("acme".to_owned())));
        assert_eq!(tenant(&[b"acme", b"acme"]), Ok(Some("acme".to_owned())));
        let long = "t".repeat(10_000);
        let refused: [&[&[u8]]; 9] = [
            &[b"acme,globex"],
            &[b"acme, globex"],
            &[],
            &[b"acme", b"globex"],
            &[b""],
            &[b"   "],
            &[long.as_bytes()],
            &["ac\u{e9}me".as_bytes()],
            &[b"ac me"],
        ];
        for values in refused {
            assert_eq!(tenant(values), Err("tenant_required"), "{values:?}");
        }
        // Each says what was sent, cut, and why it is no tenant.
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let why = |values: &[&[u8]]| {
            let refused = rt.block_on(admit(&tenants, bob(), &headers(values))).unwrap_err();
            let message = refused.message().to_owned();
            let (_, why) = message.split_once("names no valid tenant: ").unwrap_or(("", &message));
            why.split_once("; send the header").map_or(why, |(w, _)| w).to_owned()
        };
        assert_eq!(why(&[b"acme,globex"]), r#""acme,globex" holds a comma: it names two tenants (RFC 9110 §5.3)"#);
        assert_eq!(why(&[b""]), r#""" is empty"#);
        assert_eq!(why(&[b"   "]), r#""   " is empty"#);
        assert_eq!(
            why(&[long.as_bytes()]),
            format!("\"{}…\" (10000 characters) is longer than 128 characters", "t".repeat(120))
        );
        let not_ascii = "holds a character that is not visible ASCII (a space, a control or a non-ASCII character)";
        assert_eq!(why(&["ac\u{e9}me".as_bytes()]), format!("\"ac\u{e9}me\" {not_ascii}"));
        assert_eq!(why(&[b"ac me"]), format!("\"ac me\" {not_ascii}"));
        assert_eq!(why(&[b"acme", b"globex"]), r#""acme", "globex" are two tenants (the header is sent twice)"#);
        assert_eq!(
            rt.block_on(admit(&tenants, bob(), &headers(&[]))).unwrap_err().message(),
            "The surface t serves calls for a tenant, and this request names none: use a credential that names a tenant, \
             or send the header `X-Tenant-ID: <tenant>` (1 to 128 visible ASCII characters, no comma)."
        );
        // A verified tenant is never overridden, on a surface with or without tenants.
        let verified = || bob().with_tenant("acme");
        assert_eq!(admitted(&tenants, verified(), &[b"globex"]).unwrap_err(), "tenant_mismatch");
        let plain = Surface::public("p").with_scopes(["notes:read"]);
        let reader = || bob().with_scopes(["notes:read"]);
        assert_eq!(admitted(&plain, reader(), &[b"globex"]).unwrap().tenant(), None);
        assert_eq!(admitted(&plain, reader().with_tenant("acme"), &[b"globex"]).unwrap().tenant(), Some("acme"));
    }
}
