//! Who is calling, over HTTP: the OAuth 2.0 resource server side of MCP authorization (MCP
//! 2025-06-18 and later, "Authorization").
//!
//! - [`ProtectedResource`]: this server as an OAuth protected resource: its resource URL
//!   (RFC 8707), the Protected Resource Metadata document (RFC 9728) and its URL, which every
//!   401 names in `WWW-Authenticate: Bearer resource_metadata="..."`, and the 403 for a scope
//!   a surface or a tool requires ([`ProtectedResource::insufficient_scope`]).
//! - (feature `jwt`) [`JwtVerifier`]: an [`Authenticate`](super::Authenticate) hook that verifies
//!   bearer JWTs (RFC 7519, RFC 9068) against keys of a [`Jwks`] document (RS256, ES256, EdDSA)
//!   or an HS256 secret, and hands opaque tokens to an [`Introspect`] hook; its answer is the
//!   verified [`Caller`](crate::Caller): subject, scopes, tenant and claims.

use axum::Router;
use axum::http::{HeaderValue, Method, header};
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Value, json};

use super::transport::TransportError;

// One bounded `GET` of a JWKS document.
#[cfg(feature = "jwt")]
mod fetch;
// The verification keys of a JWKS document, cached.
#[cfg(feature = "jwt")]
mod jwks;
// Bearer JWT verification and the hook for opaque tokens.
#[cfg(feature = "jwt")]
mod jwt;

#[cfg(feature = "jwt")]
pub use jwks::{DEFAULT_MAX_AGE, DEFAULT_MIN_REFETCH_INTERVAL, Jwks, JwksError, REFETCH_WAIT};
#[cfg(feature = "jwt")]
pub use jwt::{DEFAULT_LEEWAY_SECONDS, DEFAULT_TENANT_CLAIM, Introspect, JwtVerifier};

/// The path of the Protected Resource Metadata document (RFC 9728 §3): the root form; the
/// metadata of a resource with a path (`https://host/mcp`) is at this path followed by the
/// resource's path (`/.well-known/oauth-protected-resource/mcp`, §3.1).
pub const WELL_KNOWN_PATH: &str = "/.well-known/oauth-protected-resource";

/// This server as an OAuth 2.0 protected resource (RFC 9728, MCP "Authorization"): its
/// resource URL, the authorization servers that issue its tokens, and the scopes it knows.
///
/// Its [`document`](Self::document), served by [`router`](Self::router) at both
/// `/.well-known/oauth-protected-resource` and the path form
/// `/.well-known/oauth-protected-resource/<resource path>` (RFC 9728 §3.1; MCP clients try the
/// path form first), is:
///
/// ```json
/// {"resource": "https://notes.example.com/mcp",
///  "authorization_servers": ["https://auth.example.com"],
///  "scopes_supported": ["notes:read", "notes:write"],
///  "bearer_methods_supported": ["header"]}
/// ```
///
/// ```
/// use envelope_core::http::auth::ProtectedResource;
///
/// let resource = ProtectedResource::new("https://notes.example.com/mcp")
///     .with_authorization_server("https://auth.example.com")
///     .with_scopes(["notes:read", "notes:write"]);
/// assert_eq!(
///     resource.metadata_url(),
///     "https://notes.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// let e = resource.insufficient_scope(&["notes:write"]);
/// assert_eq!(e.http_status(), 403);
/// assert_eq!(
///     e.www_authenticate().as_deref(),
///     Some(r#"Bearer error="insufficient_scope", scope="notes:write", resource_metadata="https://notes.example.com/.well-known/oauth-protected-resource/mcp""#)
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtectedResource {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
}

impl ProtectedResource {
    /// The resource whose URL is `resource` (RFC 8707 §2: an absolute URI without fragment;
    /// for MCP, the endpoint's URL, e.g. `https://notes.example.com/mcp`). A verified token's
    /// `aud` must name exactly this string.
    pub fn new(resource: impl Into<String>) -> Self {
        ProtectedResource { resource: resource.into(), authorization_servers: Vec::new(), scopes_supported: Vec::new() }
    }

    /// Adds an authorization server (its issuer identifier, RFC 8414 §2) that issues tokens for
    /// this resource.
    #[must_use]
    pub fn with_authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// Adds scopes to `scopes_supported` (RFC 9728 §2; each kept once, in order).
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        for scope in scopes {
            let scope = scope.into();
            if !self.scopes_supported.contains(&scope) {
                self.scopes_supported.push(scope);
            }
        }
        self
    }

    /// The resource URL, as given.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The authorization servers, in the order given.
    pub fn authorization_servers(&self) -> &[String] {
        &self.authorization_servers
    }

    /// The path this document is served at under the resource's host: [`WELL_KNOWN_PATH`]
    /// followed by the resource URL's path, its trailing `/` removed (RFC 9728 §3.1):
    /// `/.well-known/oauth-protected-resource/mcp` for `https://host/mcp`,
    /// `/.well-known/oauth-protected-resource` for `https://host/`.
    pub fn metadata_path(&self) -> String {
        let path = fluent_uri::Uri::parse(self.resource.as_str())
            .map(|uri| uri.path().as_str().trim_end_matches('/').to_owned())
            .unwrap_or_default();
        format!("{WELL_KNOWN_PATH}{path}")
    }

    /// The URL of this document (RFC 9728 §3.1): the resource's scheme and authority followed by
    /// [`metadata_path`](Self::metadata_path). It is what every 401's `WWW-Authenticate` names
    /// as `resource_metadata` (§5.1).
    pub fn metadata_url(&self) -> String {
        match fluent_uri::Uri::parse(self.resource.as_str()) {
            Ok(uri) => match uri.authority() {
                Some(authority) => {
                    format!("{}://{}{}", uri.scheme().as_str(), authority.as_str(), self.metadata_path())
                }
                None => self.metadata_path(),
            },
            Err(_) => self.metadata_path(),
        }
    }

    /// The metadata document (RFC 9728 §2): `resource`, `authorization_servers`,
    /// `scopes_supported` and `bearer_methods_supported: ["header"]` (RFC 6750 §2.1: the
    /// `Authorization` header is the only way a token is read), keys in that order.
    pub fn document(&self) -> Value {
        json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "scopes_supported": self.scopes_supported,
            "bearer_methods_supported": ["header"],
        })
    }

    /// An axum router serving the document (`GET`, `HEAD`; 200, `application/json`,
    /// `Access-Control-Allow-Origin: *`: it is public, and browser-based clients read it) at
    /// [`WELL_KNOWN_PATH`] and at [`metadata_path`](Self::metadata_path). Another method is
    /// `method_not_allowed` (405, with `Allow: GET, HEAD`). It needs no token: merge it
    /// outside the auth layer.
    pub fn router(&self) -> Router {
        let body = self.document().to_string();
        let serve = move |method: Method| {
            let body = body.clone();
            async move {
                if method != Method::GET && method != Method::HEAD {
                    return TransportError::method_not_allowed(method.as_str(), &["GET", "HEAD"]).into_response();
                }
                let mut response = body.into_response();
                let headers = response.headers_mut();
                headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
                response
            }
        };
        let mut router = Router::new().route(WELL_KNOWN_PATH, get(serve.clone()).fallback(serve.clone()));
        let path = self.metadata_path();
        if path != WELL_KNOWN_PATH {
            router = router.route(&path, get(serve.clone()).fallback(serve));
        }
        router
    }

    /// The scopes this resource lists as `scopes_supported`, in order.
    pub fn scopes_supported(&self) -> &[String] {
        &self.scopes_supported
    }

    /// `missing_bearer_token` (401) with `WWW-Authenticate: Bearer resource_metadata="<url>",
    /// scope="<scopes_supported, space-separated>"` (the scope only when some are listed; MCP
    /// 2025-11-25 "Authorization / Scope selection").
    pub fn missing_bearer_token(&self) -> TransportError {
        self.challenge(TransportError::missing_bearer_token())
    }

    /// `invalid_bearer_token` (401) with `WWW-Authenticate: Bearer error="invalid_token",
    /// resource_metadata="<url>", scope="<scopes_supported>"`.
    pub fn invalid_bearer_token(&self) -> TransportError {
        self.challenge(TransportError::invalid_bearer_token())
    }

    /// `insufficient_scope` (403) for a valid token short of `scopes` (the scopes the surface
    /// or the tool requires, all of them, not only the missing ones, as RFC 6750 §3 asks):
    /// `WWW-Authenticate: Bearer error="insufficient_scope", scope="<scopes, space-separated>",
    /// resource_metadata="<url>"` (MCP 2025-11-25 "Scope challenge handling"), body
    /// `{"error": "insufficient_scope", "message": "The bearer token lacks the scope this
    /// request needs (<scopes>). Send a token granted that scope."}`.
    pub fn insufficient_scope(&self, scopes: &[&str]) -> TransportError {
        TransportError::insufficient_scope(&scopes.join(" ")).with_resource_metadata(self.metadata_url())
    }

    /// `error` with this resource's `resource_metadata` added to its challenge when it is a
    /// bearer error without one, and, on a 401, `scope="<scopes_supported>"` when it names none
    /// (other kinds are returned unchanged).
    pub fn challenge(&self, error: TransportError) -> TransportError {
        if error.www_authenticate().is_none() {
            return error;
        }
        let names_scope = error.www_authenticate().is_some_and(|c| c.contains("scope="));
        let error = if names_scope { error } else { error.with_scope(&self.scopes_supported.join(" ")) };
        if error.resource_metadata().is_some() {
            return error;
        }
        error.with_resource_metadata(self.metadata_url())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls() {
        let at = |r: &str| ProtectedResource::new(r).metadata_url();
        assert_eq!(at("https://a.example/mcp"), "https://a.example/.well-known/oauth-protected-resource/mcp");
        assert_eq!(at("https://a.example/"), "https://a.example/.well-known/oauth-protected-resource");
        assert_eq!(at("https://a.example"), "https://a.example/.well-known/oauth-protected-resource");
        assert_eq!(
            at("http://127.0.0.1:8080/internal/mcp/"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/internal/mcp"
        );
    }

    #[test]
    fn challenges() {
        let r = ProtectedResource::new("https://a.example/mcp");
        let url = r.metadata_url();
        assert_eq!(r.missing_bearer_token().www_authenticate(), Some(format!("Bearer resource_metadata=\"{url}\"")));
        let scoped = r.clone().with_scopes(["notes:read", "notes:write"]);
        assert_eq!(
            scoped.invalid_bearer_token().www_authenticate(),
            Some(format!(
                "Bearer error=\"invalid_token\", resource_metadata=\"{url}\", scope=\"notes:read notes:write\""
            ))
        );
        assert_eq!(
            r.challenge(TransportError::invalid_bearer_token()).www_authenticate(),
            Some(format!("Bearer error=\"invalid_token\", resource_metadata=\"{url}\""))
        );
        let other = r.challenge(TransportError::payload_too_large(1));
        assert_eq!((other.www_authenticate(), other.resource_metadata()), (None, None));
    }
}
