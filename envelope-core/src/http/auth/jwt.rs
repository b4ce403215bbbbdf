//! Bearer JWT verification (RFC 7519, the access token profile of RFC 9068) for an OAuth
//! resource server, and the hook for opaque tokens (RFC 7662 introspection).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::http::HeaderMap;
use base64::Engine as _;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::jwks::{Jwks, Miss};
use crate::Caller;
use crate::http::layers::{Authenticate, bearer_token};
use crate::http::transport::TransportError;

/// The clock skew allowed on `exp` and `nbf`: 30 seconds.
pub const DEFAULT_LEEWAY_SECONDS: u64 = 30;

/// The claim a caller's tenant is read from by default: `tenant_id`.
pub const DEFAULT_TENANT_CLAIM: &str = "tenant_id";

/// The hook for opaque (non-JWT) bearer tokens: asks the authorization server who the token
/// stands for (RFC 7662 token introspection, or a lookup of your own) and answers the
/// [`Caller`], or refuses.
///
/// The token is a secret: never log it, put it in an error, or send it anywhere but to the
/// authorization server. Refuse with `invalid_bearer_token` (an inactive, unknown or expired
/// token; [`TransportError::invalid_bearer_token`]); a hook that cannot reach its server should
/// refuse too (fail closed).
///
/// ```
/// use envelope_core::Caller;
/// use envelope_core::http::TransportError;
/// use envelope_core::http::auth::Introspect;
///
/// struct Sessions;
///
/// impl Introspect for Sessions {
///     async fn introspect(&self, token: &str) -> Result<Caller, TransportError> {
///         // e.g. POST the token to the authorization server's introspection endpoint
///         match token {
///             "opaque-token-of-alice" => Ok(Caller::new("alice").with_scopes(["notes:read"])),
///             _ => Err(TransportError::invalid_bearer_token()),
///         }
///     }
/// }
/// ```
pub trait Introspect: Send + Sync + 'static {
    /// The caller `token` stands for.
    ///
    /// # Errors
    /// The transport error to answer: `invalid_bearer_token` for a token that is not active.
    fn introspect(&self, token: &str) -> impl Future<Output = Result<Caller, TransportError>> + Send;
}

type IntrospectFuture<'a> = Pin<Box<dyn Future<Output = Result<Caller, TransportError>> + Send + 'a>>;

trait DynIntrospect: Send + Sync + 'static {
    fn introspect_boxed<'a>(&'a self, token: &'a str) -> IntrospectFuture<'a>;
}

impl<I: Introspect> DynIntrospect for I {
    fn introspect_boxed<'a>(&'a self, token: &'a str) -> IntrospectFuture<'a> {
        Box::pin(self.introspect(token))
    }
}

/// Why a token was refused: the clause of the `invalid_bearer_token` message. Fixed words, so a
/// message never carries any part of the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refused {
    Malformed,
    Algorithm,
    UnknownKey,
    AmbiguousKey,
    Signature,
    Expired,
    NotYetValid,
    Issuer,
    Audience,
    NoAudience,
    NoExpiry,
    NoSubject,
    NoIssuer,
    NoKeys,
    Tenant,
    DuplicateClaim,
}

impl Refused {
    fn clause(self) -> &'static str {
        match self {
            Refused::Malformed => {
                "it is not a JWT this server can read (three base64url parts: header, claims, signature)"
            }
            Refused::Algorithm => "it is signed with an algorithm this server does not accept for it",
            Refused::UnknownKey => "it names a signing key (kid) the issuer does not publish",
            Refused::AmbiguousKey => "it names no signing key (kid), and the issuer publishes several",
            Refused::Signature => "its signature does not verify",
            Refused::Expired => "it has expired (exp)",
            Refused::NotYetValid => "it is not valid yet (nbf)",
            Refused::Issuer => "it was issued by another issuer (iss)",
            Refused::Audience => "it was issued for another resource (aud)",
            Refused::NoAudience => "it names no audience (aud), so it is not bound to this resource",
            Refused::NoExpiry => "it has no expiry (exp)",
            Refused::NoSubject => "it names no subject (sub)",
            Refused::NoIssuer => "it names no issuer (iss)",
            Refused::NoKeys => "this server has no key to verify it with",
            Refused::DuplicateClaim => "it names a claim twice",
            Refused::Tenant => "its tenant claim is not a tenant id (1 to 128 visible ASCII characters, no comma)",
        }
    }

    fn error(self) -> TransportError {
        TransportError::invalid_bearer_token_because(self.clause())
    }
}

struct Inner {
    issuer: String,
    resource: String,
    jwks: Option<Jwks>,
    hs256: Option<DecodingKey>,
    leeway_seconds: u64,
    tenant_claim: String,
    introspection: Option<Arc<dyn DynIntrospect>>,
}

/// An [`Authenticate`] hook that verifies bearer JWTs (RFC 7519; RFC 9068's access token
/// profile) and answers the [`Caller`] they name; the resource server side of MCP
/// authorization.
///
/// A token is accepted only when all of these hold, else it is refused `invalid_bearer_token`
/// (401, `WWW-Authenticate: Bearer error="invalid_token"`; with `resource_metadata` when the
/// auth layer has a [`ProtectedResource`](super::ProtectedResource)) with a message naming which
/// failed, never any part of the token:
/// - its signature verifies with a key of the [`Jwks`] (RS256, ES256, EdDSA, ...: the key's own
///   algorithm, whatever the header claims) or, for `HS256`, with the development secret
///   ([`with_hs256_secret`](Self::with_hs256_secret)); `alg: none`, an algorithm the key does
///   not verify, and an HS256 token signed with a public key are refused (RFC 8725 §3.1);
/// - `exp` is present and not past, `nbf` (when present) not in the future, each with
///   [`DEFAULT_LEEWAY_SECONDS`] (30 s) of clock skew;
/// - `iss` equals the issuer;
/// - `aud` (a string or an array) names this server's resource URL exactly (RFC 8707 §2,
///   RFC 9068 §4): a token without `aud`, or for another resource, is refused;
/// - `sub` is present.
///
/// No token at all is `missing_bearer_token` (401, `WWW-Authenticate: Bearer`).
///
/// The caller: `sub` as subject; the scopes of `scope` (space-separated, RFC 8693 §4.2,
/// RFC 9068 §2.2.3) or else `scp` (an array of strings, or one space-separated string); the
/// tenant from the claim [`DEFAULT_TENANT_CLAIM`] (`tenant_id`, or
/// [`with_tenant_claim`](Self::with_tenant_claim)): a string of 1 to 128 visible ASCII
/// characters or an integer (its decimal text), else the token is refused (a claim dropped
/// would leave `X-Tenant-ID` free to name any tenant); every claim as verified.
///
/// A token that is not a JWT goes to the [`Introspect`] hook when one is set
/// ([`with_introspection`](Self::with_introspection)), else is refused.
///
/// The work on an async worker is one signature check (tens to hundreds of microseconds in a
/// release build); a key fetch, when a token names an unknown key, is I/O (see [`Jwks`]).
///
/// ```no_run
/// use envelope_core::http::auth::{Jwks, JwtVerifier, ProtectedResource};
/// use envelope_core::mcp::streamable::McpHttp;
/// # fn toolbox() -> envelope_core::Toolbox { envelope_core::Toolbox::new() }
///
/// let resource = ProtectedResource::new("https://notes.example.com/mcp")
///     .with_authorization_server("https://auth.example.com")
///     .with_scopes(["notes:read", "notes:write"]);
/// let verifier = JwtVerifier::new("https://auth.example.com", resource.resource())
///     .with_jwks(Jwks::from_url("https://auth.example.com/.well-known/jwks.json").unwrap());
/// let app = McpHttp::new(toolbox()).with_auth(verifier).with_protected_resource(resource).router();
/// ```
#[derive(Clone)]
pub struct JwtVerifier {
    inner: Arc<Inner>,
}

impl fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.inner.issuer)
            .field("resource", &self.inner.resource)
            .field("jwks", &self.inner.jwks)
            .field("hs256", &self.inner.hs256.is_some())
            .field("leeway_seconds", &self.inner.leeway_seconds)
            .field("tenant_claim", &self.inner.tenant_claim)
            .field("introspection", &self.inner.introspection.is_some())
            .finish()
    }
}

impl JwtVerifier {
    /// Verifies tokens that `issuer` (the `iss` it writes, RFC 8414 §2) issued for `resource`
    /// (this server's resource URL, the `aud` it must name). No key yet: add
    /// [`with_jwks`](Self::with_jwks) or [`with_hs256_secret`](Self::with_hs256_secret).
    pub fn new(issuer: impl Into<String>, resource: impl Into<String>) -> Self {
        JwtVerifier {
            inner: Arc::new(Inner {
                issuer: issuer.into(),
                resource: resource.into(),
                jwks: None,
                hs256: None,
                leeway_seconds: DEFAULT_LEEWAY_SECONDS,
                tenant_claim: DEFAULT_TENANT_CLAIM.to_owned(),
                introspection: None,
            }),
        }
    }

    fn map(self, f: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| Inner {
            issuer: shared.issuer.clone(),
            resource: shared.resource.clone(),
            jwks: shared.jwks.clone(),
            hs256: shared.hs256.clone(),
            leeway_seconds: shared.leeway_seconds,
            tenant_claim: shared.tenant_claim.clone(),
            introspection: shared.introspection.clone(),
        });
        f(&mut inner);
        JwtVerifier { inner: Arc::new(inner) }
    }

    /// Verifies RS256/ES256/EdDSA (...) tokens with the keys of `jwks`.
    #[must_use]
    pub fn with_jwks(self, jwks: Jwks) -> Self {
        self.map(|i| i.jwks = Some(jwks))
    }

    /// Also verifies HS256 tokens with this shared secret: for development (one party both
    /// issues and verifies; anyone who can verify can mint). Use at least 32 random bytes; an
    /// empty secret verifies nothing.
    #[must_use]
    pub fn with_hs256_secret(self, secret: impl AsRef<[u8]>) -> Self {
        let key = DecodingKey::from_secret(secret.as_ref()).ok();
        self.map(|i| i.hs256 = key)
    }

    /// The clock skew allowed on `exp` and `nbf`, in seconds (default 30).
    #[must_use]
    pub fn with_leeway_seconds(self, seconds: u64) -> Self {
        self.map(|i| i.leeway_seconds = seconds)
    }

    /// The claim the tenant is read from (default `tenant_id`).
    #[must_use]
    pub fn with_tenant_claim(self, claim: impl Into<String>) -> Self {
        let claim = claim.into();
        self.map(|i| i.tenant_claim = claim)
    }

    /// Hands tokens that are not JWTs (and every token, when no key is configured) to `hook`.
    #[must_use]
    pub fn with_introspection(self, hook: impl Introspect) -> Self {
        let hook: Arc<dyn DynIntrospect> = Arc::new(hook);
        self.map(|i| i.introspection = Some(hook))
    }

    /// The resource URL tokens must name in `aud`.
    pub fn resource(&self) -> &str {
        &self.inner.resource
    }

    /// The issuer tokens must name in `iss`.
    pub fn issuer(&self) -> &str {
        &self.inner.issuer
    }

    /// The JWKS keys, when configured.
    pub fn jwks(&self) -> Option<&Jwks> {
        self.inner.jwks.as_ref()
    }

    /// Verifies one bearer token (the text after `Bearer `) and answers its caller.
    ///
    /// # Errors
    /// `invalid_bearer_token` (see the type's documentation), or what the introspection hook
    /// answers.
    pub async fn verify(&self, token: &str) -> Result<Caller, TransportError> {
        let inner = &*self.inner;
        let has_keys = inner.jwks.is_some() || inner.hs256.is_some();
        let header = match header_of(token) {
            Some(header) if has_keys => header,
            _ => {
                return match &inner.introspection {
                    Some(hook) => hook.introspect_boxed(token).await,
                    None if has_keys => Err(Refused::Malformed.error()),
                    None => Err(Refused::NoKeys.error()),
                };
            }
        };
        let key = self.key_for(&header).await.map_err(Refused::error)?;
        let claims = self.check(token, &key).map_err(Refused::error)?;
        self.caller(claims).map_err(Refused::error)
    }

    /// The key the header's `alg` and `kid` ask for.
    async fn key_for(&self, header: &Header) -> Result<(DecodingKey, Algorithm), Refused> {
        let alg = header.alg.ok_or(Refused::Algorithm)?;
        if alg == Algorithm::HS256 {
            return self.inner.hs256.clone().map(|k| (k, alg)).ok_or(Refused::Algorithm);
        }
        if matches!(alg, Algorithm::HS384 | Algorithm::HS512) {
            return Err(Refused::Algorithm);
        }
        let jwks = self.inner.jwks.as_ref().ok_or(Refused::Algorithm)?;
        match jwks.key(header.kid.as_deref(), alg).await {
            Ok(key) => Ok((key.key, key.alg)),
            Err(Miss::Unknown) => Err(Refused::UnknownKey),
            Err(Miss::Algorithm) => Err(Refused::Algorithm),
            Err(Miss::Ambiguous) => Err(Refused::AmbiguousKey),
        }
    }

    /// The signature, then the claims (`exp`, `nbf`, `iss`, `aud`, `sub`).
    fn check(&self, token: &str, (key, alg): &(DecodingKey, Algorithm)) -> Result<Map<String, Value>, Refused> {
        let mut validation = Validation::new(*alg);
        validation.leeway = self.inner.leeway_seconds;
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.validate_aud = true;
        validation.set_issuer(&[&self.inner.issuer]);
        validation.set_audience(&[&self.inner.resource]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        match jsonwebtoken::decode::<Map<String, Value>>(token, key, &validation) {
            Ok(data) => {
                // `iss` a string equal to the issuer (an array naming it, or another with it, is
                // not), and no claim named twice (a JSON map keeps the last of two).
                if data.claims.get("iss").and_then(Value::as_str) != Some(self.inner.issuer.as_str()) {
                    return Err(Refused::Issuer);
                }
                if names_a_claim_twice(token) {
                    return Err(Refused::DuplicateClaim);
                }
                match data.claims.get("sub").and_then(Value::as_str) {
                    Some(sub) if !sub.is_empty() => Ok(data.claims),
                    _ => Err(Refused::NoSubject),
                }
            }
            Err(e) => Err(match e.kind() {
                ErrorKind::InvalidSignature => Refused::Signature,
                ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName | ErrorKind::UnsupportedAlgorithm => {
                    Refused::Algorithm
                }
                ErrorKind::ExpiredSignature => Refused::Expired,
                ErrorKind::ImmatureSignature => Refused::NotYetValid,
                ErrorKind::InvalidIssuer => Refused::Issuer,
                ErrorKind::InvalidAudience => Refused::Audience,
                ErrorKind::MissingRequiredClaim(claim) => match claim.as_str() {
                    "aud" => Refused::NoAudience,
                    "exp" => Refused::NoExpiry,
                    "iss" => Refused::NoIssuer,
                    _ => Refused::NoSubject,
                },
                _ => Refused::Malformed,
            }),
        }
    }

    /// The caller of verified `claims`; `Err` when the tenant claim is there but no tenant id:
    /// dropped, the caller would have no tenant and a header could name any.
    fn caller(&self, claims: Map<String, Value>) -> Result<Caller, Refused> {
        let subject = claims.get("sub").and_then(Value::as_str).unwrap_or_default().to_owned();
        let scopes: Vec<String> = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(scope)), _) | (None, Some(Value::String(scope))) => {
                scope.split_ascii_whitespace().map(str::to_owned).collect()
            }
            (None, Some(Value::Array(scp))) => scp.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        let tenant = match claims.get(&self.inner.tenant_claim) {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) if crate::http::gate::is_tenant_id(t) => Some(t.clone()),
            Some(Value::Number(n)) if n.is_u64() || n.is_i64() => Some(n.to_string()),
            Some(_) => return Err(Refused::Tenant),
        };
        let mut caller = Caller::new(subject).with_scopes(scopes);
        if let Some(tenant) = tenant {
            caller = caller.with_tenant(tenant);
        }
        Ok(caller.with_claims(claims))
    }
}

impl Authenticate for JwtVerifier {
    fn authenticate(&self, headers: &HeaderMap) -> impl Future<Output = Result<Caller, TransportError>> + Send {
        let token = bearer_token(headers);
        async move { self.verify(token?).await }
    }
}

/// Whether the claims set of compact JWS `token` (verified already) names a member twice at
/// its top level (RFC 7519 §4: a JWT with duplicate claim names is rejected).
fn names_a_claim_twice(token: &str) -> bool {
    struct Distinct;
    impl<'de> serde::Deserialize<'de> for Distinct {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visit;
            impl<'de> serde::de::Visitor<'de> for Visit {
                type Value = Distinct;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Distinct, A::Error> {
                    let mut seen = std::collections::HashSet::new();
                    while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                        if !seen.insert(name) {
                            return Err(serde::de::Error::custom("a claim named twice"));
                        }
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                    Ok(Distinct)
                }
            }
            d.deserialize_map(Visit)
        }
    }
    let Some(payload) = token.split('.').nth(1) else { return true };
    let Ok(bytes) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload) else { return true };
    serde_json::from_slice::<Distinct>(&bytes).is_err()
}

/// The parts of a JOSE header (RFC 7515 §4.1) that choose the key: `alg` (`None` for one this
/// server does not verify, `none` included) and `kid`.
struct Header {
    alg: Option<Algorithm>,
    kid: Option<String>,
}

/// The header of a compact JWS (three base64url parts), or `None` when `token` is not one.
fn header_of(token: &str) -> Option<Header> {
    let mut parts = token.split('.');
    let (header, _, _) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(header).ok()?;
    let header: Map<String, Value> = serde_json::from_slice(&bytes).ok()?;
    let alg = header.get("alg")?.as_str()?;
    let alg = match alg {
        "HS256" => Some(Algorithm::HS256),
        "HS384" => Some(Algorithm::HS384),
        "HS512" => Some(Algorithm::HS512),
        "RS256" => Some(Algorithm::RS256),
        "RS384" => Some(Algorithm::RS384),
        "RS512" => Some(Algorithm::RS512),
        "PS256" => Some(Algorithm::PS256),
        "PS384" => Some(Algorithm::PS384),
        "PS512" => Some(Algorithm::PS512),
        "ES256" => Some(Algorithm::ES256),
        "ES384" => Some(Algorithm::ES384),
        "EdDSA" => Some(Algorithm::EdDSA),
        _ => None,
    };
    let kid = header.get("kid").and_then(Value::as_str).map(str::to_owned);
    Some(Header { alg, kid })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &str) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s)
    }

    #[test]
    fn headers() {
        let none = format!("{}.{}.", b64(r#"{"alg":"none"}"#), b64("{}"));
        let h = header_of(&none).unwrap();
        assert_eq!((h.alg, h.kid), (None, None));
        let rs = format!("{}.e30.sig", b64(r#"{"alg":"RS256","kid":"k1"}"#));
        let h = header_of(&rs).unwrap();
        assert_eq!((h.alg, h.kid.as_deref()), (Some(Algorithm::RS256), Some("k1")));
        for opaque in ["opaque-token", "a.b", "a.b.c.d", "!!!.e30.x"] {
            assert!(header_of(opaque).is_none(), "{opaque}");
        }
    }

    #[test]
    fn a_claim_named_twice_is_found() {
        let token = |claims: &str| format!("{}.{}.sig", b64(r#"{"alg":"RS256"}"#), b64(claims));
        assert!(!names_a_claim_twice(&token(r#"{"sub":"a","scope":"x","nested":{"a":1,"b":{"a":2}}}"#)));
        assert!(names_a_claim_twice(&token(r#"{"sub":"a","tenant_id":"acme","tenant_id":"globex"}"#)));
        assert!(names_a_claim_twice(&token(r#"{"scope":"read","sub":"a","scope":"admin"}"#)));
        // An escaped name is the same name.
        assert!(names_a_claim_twice(&token(r#"{"sub":"a","s\u0063ope":"x","scope":"y"}"#)));
    }

    #[test]
    fn every_refusal_names_its_cause_without_the_token() {
        let e = Refused::Expired.error();
        assert_eq!(e.word(), "invalid_bearer_token");
        assert_eq!(
            e.message(),
            "The bearer token was not accepted: it has expired (exp). Get a new token from the authorization server \
             and send it."
        );
    }
}
