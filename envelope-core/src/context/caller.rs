//! Who is calling: a subject, scopes, a tenant, claims; and the key a caller is counted under.

use std::fmt;
use std::net::IpAddr;

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
/// assert_eq!(alice.quota_key(), "sub:alice@acme");
/// ```
///
/// Its `Debug` shows the subject, scopes and tenant, and counts the claims without showing them.
#[derive(Clone, Default, PartialEq)]
pub struct Caller {
    subject: Option<String>,
    scopes: Vec<String>,
    tenant: Option<String>,
    /// Whether `tenant` came from a request header a surface accepted (`X-Tenant-ID`), not from
    /// the verified identity: it names the caller's space, never a caller of its own.
    tenant_from_header: bool,
    claims: Map<String, Value>,
    /// The network address an anonymous caller's request came from (set by the HTTP surfaces):
    /// what its limits and quotas count under.
    peer: Option<IpAddr>,
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

    /// With this tenant, as part of the verified identity (a verified claim, a configured
    /// caller): it is in [`key`](Self::key) and in [`quota_key`](Self::quota_key).
    #[must_use]
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self.tenant_from_header = false;
        self
    }

    /// With this tenant, named by a request header a surface accepted (`X-Tenant-ID`) for a
    /// caller whose identity names none: the caller's space ([`key`](Self::key), what it sees
    /// and what its keys and pending actions belong to), never a caller of its own for limits
    /// and quotas ([`quota_key`](Self::quota_key) stays the identity's).
    #[must_use]
    pub(crate) fn with_header_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self.tenant_from_header = true;
        self
    }

    /// Whether the tenant was named by a request header, not by the verified identity
    /// ([`with_header_tenant`](Self::with_header_tenant)).
    pub(crate) fn tenant_from_header(&self) -> bool {
        self.tenant_from_header
    }

    /// With the network address the request came from (an HTTP surface's peer, as axum's
    /// `ConnectInfo` gives it). It names no identity and changes no space ([`key`](Self::key));
    /// for a caller without a verified identity it is what limits and quotas count under
    /// ([`quota_key`](Self::quota_key): `peer:<address>`), so one address's flood of anonymous
    /// calls never spends another's rate limit, store quota or task bound.
    #[must_use]
    pub fn with_peer(mut self, peer: IpAddr) -> Self {
        self.peer = Some(peer);
        self
    }

    /// The network address the request came from, where a surface set it
    /// ([`with_peer`](Self::with_peer)).
    pub fn peer(&self) -> Option<IpAddr> {
        self.peer
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

    /// The key of the caller's space, what an idempotency key or a pending action belongs to:
    /// `sub:<subject>@<tenant>`, `sub:<subject>` without a tenant, `tenant:<tenant>` for an
    /// anonymous caller of a tenant, else [`ANONYMOUS`]. In the subject, `%` is
    /// written `%25` and `@` `%40` (subject `a@b` is `sub:a%40b`, never the key of subject `a`
    /// of tenant `b`), so two different callers never share a key.
    /// Limits and quotas count under [`quota_key`](Self::quota_key).
    pub fn key(&self) -> String {
        key_of(self.subject.as_deref(), self.tenant.as_deref())
    }

    /// The key rate limits, store quotas and shares of the server's places are counted under:
    /// the verified identity, as [`key`](Self::key) writes it, without a tenant that only a
    /// request header named. Sending another `X-Tenant-ID` moves a caller to another space,
    /// never to another caller's limits: a subject without a verified tenant counts as
    /// `sub:<subject>` whatever tenant it names; an anonymous caller counts under the address
    /// its request came from (`peer:<address>`, an IPv6 address by its /64 network,
    /// `peer:2001:db8:1:2::/64`; [`with_peer`](Self::with_peer), set by the HTTP
    /// surfaces), else as [`ANONYMOUS`] (every anonymous caller without an address shares it).
    ///
    /// ```
    /// use envelope_core::Caller;
    ///
    /// assert_eq!(Caller::new("bob").with_tenant("acme").quota_key(), "sub:bob@acme");
    /// assert_eq!(Caller::new("bob").quota_key(), "sub:bob");
    /// assert_eq!(Caller::anonymous().with_tenant("acme").quota_key(), "tenant:acme");
    /// let peer = std::net::Ipv4Addr::new(192, 0, 2, 7).into();
    /// assert_eq!(Caller::anonymous().with_peer(peer).quota_key(), "peer:192.0.2.7");
    /// // An IPv6 address counts as its /64: every address of one subnet shares one key.
    /// let v6: std::net::IpAddr = "2001:db8:1:2:aaaa:bbbb:cccc:dddd".parse().unwrap();
    /// assert_eq!(Caller::anonymous().with_peer(v6).quota_key(), "peer:2001:db8:1:2::/64");
    /// assert_eq!(Caller::new("bob").with_peer(peer).quota_key(), "sub:bob");
    /// assert_eq!(Caller::anonymous().quota_key(), "anonymous");
    /// ```
    pub fn quota_key(&self) -> String {
        let tenant = if self.tenant_from_header { None } else { self.tenant.as_deref() };
        match (self.subject.as_deref(), tenant, self.peer) {
            (None, None, Some(peer)) => match counted_address(peer) {
                IpAddr::V6(network) => format!("peer:{network}/64"),
                v4 => format!("peer:{v4}"),
            },
            (subject, tenant, _) => key_of(subject, tenant),
        }
    }
}

/// The address a peer is counted under, by every per-address bound (unfinished heads, a share
/// of the places, limits and quotas of callers without an identity): an IPv4 address as it is
/// (an IPv4-mapped IPv6 address, `::ffff:192.0.2.7`, as its IPv4 address), an IPv6 address as
/// its /64 network with the interface bits zero (`2001:db8:1:2::`). A /64 is one subnet, the
/// smallest block a site is assigned (RFC 6177 §3, RFC 7421): a client holding one has 2^64
/// addresses, and counted by the full address it would have as many shares.
pub(crate) fn counted_address(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(std::net::Ipv6Addr::from(v6.to_bits() & !u128::from(u64::MAX))),
        },
        v4 => v4,
    }
}

/// The key of `subject` in `tenant` ([`Caller::key`]).
fn key_of(subject: Option<&str>, tenant: Option<&str>) -> String {
    match (subject, tenant) {
        (Some(s), Some(t)) => format!("sub:{}@{t}", escape_subject(s)),
        (Some(s), None) => format!("sub:{}", escape_subject(s)),
        (None, Some(t)) => format!("tenant:{t}"),
        (None, None) => ANONYMOUS.to_owned(),
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
            .field("peer", &self.peer)
            .finish()
    }
}
