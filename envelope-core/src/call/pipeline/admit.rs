//! Admission: the tool found on the call's surface (a hidden one recorded, and unknown), the
//! caller checked (scopes, tenant), the call's audit and provenance opened, its rate limit
//! counted.

use super::at::At;
use crate::call::audit::Governed;
use crate::call::registry::{Toolbox, UnknownTool};
use crate::call::tool::Tool;
use crate::context::{Caller, Context};
use crate::outcome::envelope::Envelope;

impl Tool {
    /// Whether a call at `at` is counted against a rate limit (the toolbox's or the tool's):
    /// only then is [`rate_limited`](Self::rate_limited) awaited (in a future of its own, so
    /// the usual call's future does not carry the store's).
    pub(super) fn rate_limits(&self, at: At<'_>) -> bool {
        let guard: &crate::call::guard::Guard = match at.toolbox {
            Some(t) => &t.guard,
            None => crate::call::guard::default_guard(),
        };
        guard.rate_limit.is_some() || self.spec.rate_limit.is_some()
    }

    /// The toolbox's and the tool's rate limits, counted for `at`'s caller: `None` to go on,
    /// else the envelope to answer (see [`crate::spec::rate`]).
    pub(super) async fn rate_limited(&self, at: At<'_>) -> Option<Envelope> {
        let guard: &crate::call::guard::Guard = match at.toolbox {
            Some(t) => &t.guard,
            None => crate::call::guard::default_guard(),
        };
        if guard.rate_limit.is_none() && self.spec.rate_limit.is_none() {
            return None;
        }
        guard.rate_limited(&self.spec, &at.cx.caller().quota_key()).await
    }
}

impl Toolbox {
    /// `cx`, made on this toolbox's surface (its name) when it is served on one.
    pub(super) fn on_its_surface<'c>(&self, cx: &'c Context) -> std::borrow::Cow<'c, Context> {
        match self.surface.as_deref() {
            Some(surface) if surface.name() != cx.surface() => {
                std::borrow::Cow::Owned(cx.clone().with_surface(surface.name()))
            }
            _ => std::borrow::Cow::Borrowed(cx),
        }
    }

    /// A call in `cx` named a tool registered in this toolbox but hidden on its surface (a T4
    /// tool on a public surface, or a tool outside the surface's visible set). It is answered
    /// as unknown; here it is recorded before that answer: a `warn` event `hidden tool called`
    /// (`tracing`), and with an audit trail ([`with_audit`](Self::with_audit)) an `attempt`
    /// record.
    pub(super) async fn hidden_attempt(&self, cx: &Context, tool: &Tool) {
        tracing::warn!(
            surface = cx.surface(),
            tool = tool.name(),
            call_id = cx.call_id(),
            caller = %cx.caller().key(),
            "hidden tool called"
        );
        if let Some(call) = crate::call::audit::Governed::of(&self.guard.governance, cx, tool.spec(), false) {
            call.attempted().await;
        }
    }

    /// The scopes of this toolbox's surface and of `tool` that `caller` was not granted, each
    /// once, the surface's first.
    pub(crate) fn missing_scopes<'a>(&'a self, caller: &Caller, tool: &'a Tool) -> Vec<&'a str> {
        let mut missing: Vec<&str> = self.surface.as_deref().map(|s| s.missing_scopes(caller)).unwrap_or_default();
        for s in tool.scopes() {
            if !caller.has_scope(s) && !missing.contains(s) {
                missing.push(s);
            }
        }
        missing
    }

    /// Whether a call of `tool` has its caller checked ([`refuse_caller`](Self::refuse_caller)):
    /// the tool or this toolbox's surface needs scopes, or the surface a tenant.
    pub(super) fn checks_caller(&self, tool: &Tool) -> bool {
        !tool.scopes().is_empty() || self.surface.as_deref().is_some_and(|s| !s.scopes().is_empty() || s.needs_tenant())
    }

    /// The refusal of a call of `tool` in `cx` before any argument is read: the surface's and
    /// the tool's scopes the caller lacks, or no tenant on a surface that needs one.
    pub(super) fn refuse_caller(&self, cx: &Context, tool: &Tool) -> Option<Envelope> {
        // The usual call: nothing to check.
        if !self.checks_caller(tool) {
            return None;
        }
        let caller = cx.caller();
        let missing = self.missing_scopes(caller, tool);
        if !missing.is_empty() {
            return Some(self.on_the_wire(crate::call::policy::missing_scopes(tool.name(), &missing)));
        }
        if let Some(surface) = self.surface.as_deref().filter(|s| s.needs_tenant())
            && caller.tenant().is_none()
        {
            return Some(self.on_the_wire(crate::call::policy::tenant_missing(tool.name(), surface.name())));
        }
        None
    }

    /// The envelope a call of `tool` at `at` is answered instead of running: its caller refused
    /// ([`refuse_caller`](Self::refuse_caller)) or past a rate limit, finished as every call's
    /// envelope is ([`finished`](Self::finished): recorded as refused, warned). `None`: the call
    /// goes on.
    pub(super) async fn refused_first(&self, cx: &Context, tool: &Tool, at: At<'_>) -> Option<Envelope> {
        let refused = match self.refuse_caller(cx, tool) {
            Some(refused) => refused,
            None => tool.rate_limited(at).await?,
        };
        Some(self.finished(at.call, refused).await)
    }

    /// The error of a call in `cx` naming no tool this toolbox shows: a hidden tool's attempt
    /// is handed to [`hidden_attempt`](Self::hidden_attempt) first.
    pub(super) async fn not_found(&self, cx: &Context, name: &str) -> UnknownTool {
        if let Some(hidden) = self.registered.iter().find(|t| t.name() == name) {
            self.hidden_attempt(cx, hidden).await;
        }
        self.unknown(name)
    }

    /// What this toolbox adds around a call of `tool` in `cx` (its audit records, `warning`,
    /// `provenance`), or `None` when it adds nothing.
    pub(super) fn governed(&self, cx: &Context, tool: &Tool) -> Option<Governed> {
        let g = &self.guard.governance;
        // The usual toolbox: no audit trail, provenance or replicas, nothing to add.
        if g.audit.is_none() && !g.provenance && !g.replicas {
            return None;
        }
        let spec = tool.spec();
        let uses_store = spec.needs_confirmation
            || spec.idempotency_key
            || spec.rate_limit.is_some()
            || self.guard.rate_limit.is_some()
            || spec.name == crate::call::guard::confirm::CONFIRM_ACTION;
        Governed::of(&self.guard.governance, cx, spec, uses_store && !self.guard.store.is_shared())
    }
}
