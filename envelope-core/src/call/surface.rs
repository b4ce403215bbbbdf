//! Surfaces: one toolbox served in several places (a public MCP endpoint, an internal one, the
//! HTTP endpoints), each with the tools it shows, the scopes it needs and whether it needs a
//! tenant (DESIGN "Identity, tenants, tiers, surfaces").

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::call::policy::{DEFAULT_POLICY_TIMEOUT, TenantPolicy};
use crate::context::Caller;
use crate::spec::{Tier, ToolSpec};

/// Which tools a surface shows.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Visible {
    /// Every tool (but T4 tools on a public surface).
    All,
    /// Only the tools named.
    Only(Vec<String>),
    /// Every tool but those named.
    AllBut(Vec<String>),
}

impl Visible {
    /// Whether the set shows `name`.
    fn shows(&self, name: &str) -> bool {
        match self {
            Visible::All => true,
            Visible::Only(names) => names.iter().any(|n| n == name),
            Visible::AllBut(names) => !names.iter().any(|n| n == name),
        }
    }
}

/// One place a toolbox is served: its name (the [`Context::surface`](crate::Context::surface)
/// of its calls), whether it is public, which tools it shows (and which MCP resources and
/// prompts, [`only_resources`](Self::only_resources), [`only_prompts`](Self::only_prompts)),
/// the scopes every call needs, and whether a call needs a tenant (with a tenant policy to
/// read).
///
/// Serve a toolbox on it with [`Toolbox::on`](crate::Toolbox::on) (or `McpServer::with_surface`,
/// `McpHttp::with_surface`, `HttpTools::with_surface`). On that surface a hidden tool is absent
/// from `tools/list`, `GET /tools`, `GET /manifest` and every provider export, and a call to it
/// is answered exactly as a name no tool has (the same code, a did-you-mean over the visible
/// names only). A T4 tool ([`Tier::T4`]) is never shown on a public surface, whatever the
/// visible set says.
///
/// ```
/// use envelope_core::{call::Surface, Toolbox, tool};
///
/// /// Reads a note.
/// #[tool(read_only)]
/// fn read_note(id: u32) -> u32 { id }
///
/// /// Deletes every note of the tenant.
/// #[tool(destructive, tier = 4)]
/// fn purge_notes() -> bool { true }
///
/// let toolbox = Toolbox::new().with(read_note::tool()).with(purge_notes::tool());
/// let public = toolbox.on(&Surface::public("mcp"));
/// assert_eq!(public.tools().iter().map(|t| t.name()).collect::<Vec<_>>(), ["read_note"]);
/// let internal = Surface::internal("internal").with_scopes(["internal"]).requiring_tenant();
/// assert_eq!(toolbox.on(&internal).tools().len(), 2);
/// ```
#[derive(Clone)]
pub struct Surface {
    name: Arc<str>,
    public: bool,
    visible: Visible,
    resources: Visible,
    prompts: Visible,
    scopes: Vec<String>,
    tenant: bool,
    tenant_policy: Option<Arc<dyn TenantPolicy>>,
    tenant_policy_timeout: Duration,
}

impl Surface {
    fn new(name: &str, public: bool) -> Self {
        Surface {
            name: Arc::from(name),
            public,
            visible: Visible::All,
            resources: Visible::All,
            prompts: Visible::All,
            scopes: Vec::new(),
            tenant: false,
            tenant_policy: None,
            tenant_policy_timeout: DEFAULT_POLICY_TIMEOUT,
        }
    }

    /// A public surface named `name`: T4 tools are never shown on it.
    pub fn public(name: &str) -> Self {
        Surface::new(name, true)
    }

    /// An internal surface named `name`: T4 tools may be shown (put it behind authentication,
    /// [`with_scopes`](Self::with_scopes)).
    pub fn internal(name: &str) -> Self {
        Surface::new(name, false)
    }

    /// Shows only the tools named (each once; a name no tool has is ignored).
    #[must_use]
    pub fn only<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.visible = Visible::Only(names.into_iter().map(Into::into).collect());
        self
    }

    /// Shows every tool but those named.
    #[must_use]
    pub fn all_but<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.visible = Visible::AllBut(names.into_iter().map(Into::into).collect());
        self
    }

    /// Shows only the MCP resources and resource templates named (by their `name`, as
    /// `resources/list` and `resources/templates/list` list it; see `mcp::catalog`). A hidden
    /// one is absent from both lists, and a `resources/read` of its URI is answered exactly as
    /// a URI no resource has (`-32602`, `data.uri`, SEP-2164). Default: every one.
    #[must_use]
    pub fn only_resources<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.resources = Visible::Only(names.into_iter().map(Into::into).collect());
        self
    }

    /// Shows every MCP resource and resource template but those named (by `name`).
    #[must_use]
    pub fn all_resources_but<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.resources = Visible::AllBut(names.into_iter().map(Into::into).collect());
        self
    }

    /// Shows only the MCP prompts named: a hidden one is absent from `prompts/list`, and a
    /// `prompts/get` of it is answered exactly as a name no prompt has. Default: every one.
    #[must_use]
    pub fn only_prompts<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.prompts = Visible::Only(names.into_iter().map(Into::into).collect());
        self
    }

    /// Shows every MCP prompt but those named.
    #[must_use]
    pub fn all_prompts_but<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.prompts = Visible::AllBut(names.into_iter().map(Into::into).collect());
        self
    }

    /// Every request needs these scopes (OAuth 2.0 scope tokens, RFC 6749 §3.3), in addition
    /// to each tool's own: over HTTP a caller without them is refused before the body is read
    /// (403 `insufficient_scope`, with `WWW-Authenticate: Bearer error="insufficient_scope",
    /// scope="..."`, RFC 6750 §3.1); a call in process is refused `FORBIDDEN`.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        crate::context::add_scopes(&mut self.scopes, scopes);
        self
    }

    /// Every call needs a tenant: the verified caller's, else the header `X-Tenant-ID` (over
    /// HTTP, see `http::admit`). A call without one is refused (400 `tenant_required` over
    /// HTTP; `FORBIDDEN` in process).
    #[must_use]
    pub fn requiring_tenant(mut self) -> Self {
        self.tenant = true;
        self
    }

    /// Reads `policy` for each request's tenant (and needs a tenant), where the tenant is
    /// established: over HTTP, in `http::admit` (run by `McpHttp::with_surface` and
    /// `HttpTools::with_surface`), before the request reaches any tool. See [`TenantPolicy`]:
    /// `Denied` is 403 `tenant_forbidden`, an error or a timeout 403
    /// `tenant_policy_unavailable`. A call in process ([`Toolbox::call_in`](crate::Toolbox::call_in))
    /// brings its tenant in its [`Caller`] and is not read against it.
    #[must_use]
    pub fn with_tenant_policy(mut self, policy: impl TenantPolicy) -> Self {
        self.tenant = true;
        self.tenant_policy = Some(Arc::new(policy));
        self
    }

    /// How long the tenant policy may take (default 1 second; needs feature `tokio`).
    #[must_use]
    pub fn with_tenant_policy_timeout(mut self, timeout: Duration) -> Self {
        self.tenant_policy_timeout = timeout;
        self
    }

    /// The name: the [`Context::surface`](crate::Context::surface) of the calls made on it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether it is public (T4 tools never shown).
    pub fn is_public(&self) -> bool {
        self.public
    }

    /// Which tools it shows (before the T4 rule of a public surface).
    pub fn visible(&self) -> &Visible {
        &self.visible
    }

    /// The scopes every request needs.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether every call needs a tenant.
    pub fn needs_tenant(&self) -> bool {
        self.tenant
    }

    /// The tenant policy and its timeout, if one is set.
    pub fn tenant_policy(&self) -> Option<(&dyn TenantPolicy, Duration)> {
        self.tenant_policy.as_deref().map(|p| (p, self.tenant_policy_timeout))
    }

    /// Whether the tool declared by `spec` is shown here: never a T4 tool on a public surface;
    /// else as the visible set says.
    pub fn shows(&self, spec: &ToolSpec) -> bool {
        if self.public && spec.tier() == Tier::T4 {
            return false;
        }
        self.visible.shows(spec.name)
    }

    /// Whether the MCP resource or resource template of this `name` is shown here.
    pub fn shows_resource(&self, name: &str) -> bool {
        self.resources.shows(name)
    }

    /// Whether the MCP prompt of this `name` is shown here.
    pub fn shows_prompt(&self, name: &str) -> bool {
        self.prompts.shows(name)
    }

    /// The scopes of this surface `caller` was not granted, in order.
    pub fn missing_scopes<'s>(&'s self, caller: &Caller) -> Vec<&'s str> {
        self.scopes.iter().map(String::as_str).filter(|s| !caller.has_scope(s)).collect()
    }
}

/// A public surface of that name, showing every tool but T4 ones, with no scope or tenant: the
/// name-only form `McpServer::with_surface("mcp")` takes.
impl From<&str> for Surface {
    fn from(name: &str) -> Self {
        Surface::public(name)
    }
}

impl fmt::Debug for Surface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Surface")
            .field("name", &self.name)
            .field("public", &self.public)
            .field("visible", &self.visible)
            .field("resources", &self.resources)
            .field("prompts", &self.prompts)
            .field("scopes", &self.scopes)
            .field("tenant", &self.tenant)
            .field("tenant_policy", &self.tenant_policy.is_some())
            .finish()
    }
}
