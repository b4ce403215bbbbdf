//! Who is calling, and the call a tool body sees.
//!
//! A [`Caller`] is what a server's authentication established: a subject id, the scopes
//! granted, the tenant, the verified claims. Every surface hands one to the call: the HTTP
//! surfaces take it from the auth hook (`http::Authenticate`, feature `http`), MCP over stdio
//! from the server's configuration (MCP's authorization spec leaves a local server's caller to
//! its environment), [`Toolbox::call`](crate::Toolbox::call) calls as [`Caller::anonymous`].
//!
//! A [`Context`] is one call as it travels through the toolbox: its caller, its call id, the
//! surface it came in on and the MCP protocol version. Policy, the audit record and the tool's
//! own body read it; [`Toolbox::call_in`](crate::Toolbox::call_in) takes one.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

/// Who is calling: a subject id, the scopes granted, the tenant, and the claims they were read
/// from (a verified JWT's payload, an introspection answer). [`Caller::anonymous`] when nothing
/// was verified.
///
/// ```
/// use envelope_core::Caller;
///
/// let alice = Caller::new("alice").with_scopes(["notes:read", "notes:write"]).with_tenant("acme");
/// assert_eq!(alice.subject(), Some("alice"));
/// assert!(alice.has_scope("notes:write"));
/// assert_eq!(alice.tenant(), Some("acme"));
/// assert_eq!(alice.key(), "sub:alice@acme");
/// assert_eq!(Caller::anonymous().key(), "anonymous");
/// ```
///
/// Its `Debug` shows the subject, scopes and tenant, and counts the claims without showing them.
#[derive(Clone, Default, PartialEq)]
pub struct Caller {
    subject: Option<String>,
    scopes: Vec<String>,
    tenant: Option<String>,
    claims: Map<String, Value>,
}

impl Caller {
    /// No verified identity: no subject, no scopes, no tenant.
    pub fn anonymous() -> Self {
        Caller::default()
    }

    /// A verified subject (a JWT's `sub`, an introspection answer's `sub`, a configured id).
    pub fn new(subject: impl Into<String>) -> Self {
        Caller { subject: Some(subject.into()), ..Caller::default() }
    }

    /// With these scopes granted (OAuth 2.0 scope tokens, RFC 6749 §3.3), in addition to any
    /// already granted; each kept once.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        for s in scopes {
            let s = s.into();
            if !self.scopes.contains(&s) {
                self.scopes.push(s);
            }
        }
        self
    }

    /// With this tenant (a verified claim, or a header a surface accepted).
    #[must_use]
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self
    }

    /// With the claims the identity was read from (kept as verified; never shown in a reply).
    #[must_use]
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// The subject id; `None` for an anonymous caller.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The scopes granted, in the order first granted.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// The tenant, if any.
    pub fn tenant(&self) -> Option<&str> {
        self.tenant.as_deref()
    }

    /// The verified claims (empty when none were read).
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }

    /// Whether no identity was verified.
    pub fn is_anonymous(&self) -> bool {
        self.subject.is_none()
    }

    /// The key a quota, an idempotency key or a rate limit is counted under:
    /// `sub:<subject>@<tenant>`, `sub:<subject>` without a tenant, `tenant:<tenant>` for an
    /// anonymous caller of a tenant, else [`crate::store::ANONYMOUS`].
    pub fn key(&self) -> String {
        match (&self.subject, &self.tenant) {
            (Some(s), Some(t)) => format!("sub:{s}@{t}"),
            (Some(s), None) => format!("sub:{s}"),
            (None, Some(t)) => format!("tenant:{t}"),
            (None, None) => crate::store::ANONYMOUS.to_owned(),
        }
    }
}

impl fmt::Debug for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Caller")
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .field("tenant", &self.tenant)
            .field("claims", &self.claims.len())
            .finish()
    }
}

/// One call as it travels through the toolbox: who made it, its id, where it came in.
/// Cheap to clone (one `Arc`).
///
/// ```
/// use envelope_core::{Caller, Context};
///
/// let cx = Context::new(Caller::new("alice")).with_surface("internal");
/// assert_eq!(cx.caller().subject(), Some("alice"));
/// assert_eq!(cx.surface(), "internal");
/// assert_eq!(cx.call_id().len(), 26); // "call_" and 21 characters
/// assert!(cx.call_id().starts_with("call_"));
/// ```
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
}

struct Inner {
    caller: Caller,
    call_id: String,
    surface: String,
    protocol_version: Option<String>,
}

impl Context {
    /// A call by `caller`, on the surface `"local"` (in-process), with a new call id.
    pub fn new(caller: Caller) -> Self {
        Context {
            inner: Arc::new(Inner {
                caller,
                call_id: new_call_id(),
                surface: "local".to_owned(),
                protocol_version: None,
            }),
        }
    }

    /// An anonymous call on the surface `"local"`.
    pub fn anonymous() -> Self {
        Context::new(Caller::anonymous())
    }

    /// On the surface named `surface` (e.g. `"mcp"`, `"internal"`, `"http"`).
    #[must_use]
    pub fn with_surface(self, surface: impl Into<String>) -> Self {
        self.map(|i| i.surface = surface.into())
    }

    /// Made with this MCP protocol version (e.g. `"2026-07-28"`).
    #[must_use]
    pub fn with_protocol_version(self, version: impl Into<String>) -> Self {
        self.map(|i| i.protocol_version = Some(version.into()))
    }

    /// With this call id instead of a new one (e.g. one a gateway assigned).
    #[must_use]
    pub fn with_call_id(self, id: impl Into<String>) -> Self {
        self.map(|i| i.call_id = id.into())
    }

    fn map(self, f: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| Inner {
            caller: shared.caller.clone(),
            call_id: shared.call_id.clone(),
            surface: shared.surface.clone(),
            protocol_version: shared.protocol_version.clone(),
        });
        f(&mut inner);
        Context { inner: Arc::new(inner) }
    }

    /// Who is calling.
    pub fn caller(&self) -> &Caller {
        &self.inner.caller
    }

    /// This call's id: `call_` and 21 characters of base64url (126 random bits). The audit
    /// record, the reply's `provenance` and the log line of the call share it.
    pub fn call_id(&self) -> &str {
        &self.inner.call_id
    }

    /// The surface the call came in on (`"local"` for an in-process call).
    pub fn surface(&self) -> &str {
        &self.inner.surface
    }

    /// The MCP protocol version of the call, when it came over MCP and the version is known.
    pub fn protocol_version(&self) -> Option<&str> {
        self.inner.protocol_version.as_deref()
    }
}

impl Default for Context {
    fn default() -> Self {
        Context::anonymous()
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("call_id", &self.inner.call_id)
            .field("surface", &self.inner.surface)
            .field("caller", &self.inner.caller)
            .field("protocol_version", &self.inner.protocol_version)
            .finish()
    }
}

/// `call_` and 21 base64url characters of random bits.
fn new_call_id() -> String {
    use base64::Engine as _;
    let mut bytes = [0u8; 16];
    // The OS's generator; should it fail, a counter keeps ids distinct within the process.
    if getrandom::fill(&mut bytes).is_err() {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        bytes[..8].copy_from_slice(&NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_le_bytes());
    }
    let mut id = String::with_capacity(26);
    id.push_str("call_");
    id.push_str(&base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)[..21]);
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_ids_differ_and_keep_their_shape() {
        let a = Context::anonymous();
        let b = Context::anonymous();
        assert_ne!(a.call_id(), b.call_id());
        assert!(a.call_id()[5..].bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
    }

    #[test]
    fn debug_counts_claims_without_showing_them() {
        let mut claims = Map::new();
        claims.insert("email".into(), Value::from("alice@example.com"));
        let c = Caller::new("alice").with_claims(claims);
        let shown = format!("{c:?}");
        assert!(!shown.contains("example.com"), "{shown}");
        assert!(shown.contains("claims: 1"), "{shown}");
    }

    #[test]
    fn keys_of_callers() {
        assert_eq!(Caller::new("a").key(), "sub:a");
        assert_eq!(Caller::anonymous().with_tenant("t").key(), "tenant:t");
        assert_eq!(Caller::new("a").with_scopes(["x", "x", "y"]).scopes(), ["x", "y"]);
    }
}
