//! Who is calling: a subject, scopes, a tenant, claims; and the key a caller is counted under.

use std::fmt;

use serde_json::{Map, Value};

/// The caller key of every call without a verified identity ([`Caller::key`] of an anonymous
/// caller without a tenant). Keys of verified callers differ from it (`sub:alice`).
pub const ANONYMOUS: &str = "anonymous";

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
        add_scopes(&mut self.scopes, scopes);
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
    /// anonymous caller of a tenant, else [`ANONYMOUS`]. In the subject, `%` is
    /// written `%25` and `@` `%40` (subject `a@b` is `sub:a%40b`, never the key of subject `a`
    /// of tenant `b`), so two different callers never share a key.
    pub fn key(&self) -> String {
        match (&self.subject, &self.tenant) {
            (Some(s), Some(t)) => format!("sub:{}@{t}", escape_subject(s)),
            (Some(s), None) => format!("sub:{}", escape_subject(s)),
            (None, Some(t)) => format!("tenant:{t}"),
            (None, None) => ANONYMOUS.to_owned(),
        }
    }
}

/// A subject with `%` and `@` percent-encoded, so the first `@` of a key ends the subject.
fn escape_subject(subject: &str) -> std::borrow::Cow<'_, str> {
    if !subject.contains(['%', '@']) {
        return std::borrow::Cow::Borrowed(subject);
    }
    std::borrow::Cow::Owned(subject.replace('%', "%25").replace('@', "%40"))
}

/// Adds each of `scopes` to `list` that it does not hold yet, in order: the scope set of a
/// [`Caller`] and of a surface.
pub(crate) fn add_scopes<S: Into<String>>(list: &mut Vec<String>, scopes: impl IntoIterator<Item = S>) {
    for s in scopes {
        let s = s.into();
        if !list.contains(&s) {
            list.push(s);
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
