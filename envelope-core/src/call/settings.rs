//! A toolbox's settings: the `with_*` builders of its policy, wire format, code prefix, store,
//! secret, rate limits, scopes, audit trail, provenance and the guard's times.

use std::sync::Arc;
use std::time::Duration;

use crate::call::policy::POLICY_CODES;
use crate::call::registry::Toolbox;

use crate::call::guard::confirm::{MIN_SECRET_BYTES, SecretTooShort};
use crate::call::guard::store::Store;
use crate::call::policy::Policy;
use crate::outcome::wire::WireFormat;
use crate::spec::ToolSpec;

impl Toolbox {
    /// Asks `policy` about every call of this toolbox's tools (all but `confirm_action`), after
    /// the arguments are read and validated and before the body runs: allow, deny
    /// (`FORBIDDEN`), block (`T4_BLOCKED`), or queue for approval (see [`Verdict`](crate::call::policy::Verdict)). A policy
    /// that errors or answers later than the timeout ([`with_policy_timeout`](Self::with_policy_timeout),
    /// 1 second by default) runs nothing: `POLICY_UNAVAILABLE` (503, retry with backoff). Every
    /// tool then lists `FORBIDDEN`, `T4_BLOCKED`, `CONFIRMATION_REQUIRED` and
    /// `POLICY_UNAVAILABLE` among its codes, and `confirm_action` is offered (unless
    /// [`without_queue`](Self::without_queue)). See [`Policy`].
    ///
    /// Under a policy the arguments object is built for every call (the one-pass reading of
    /// [`Tool::call_json`](crate::Tool::call_json) does not build it).
    #[must_use]
    pub fn with_policy(mut self, policy: impl Policy) -> Self {
        self.policing.policy = Some(Arc::new(policy));
        let added = usize::from(self.confirm_action);
        let end = self.tools.len() - added;
        for tool in &mut self.tools[..end] {
            crate::spec::add_codes(&mut tool.spec.error_codes, &POLICY_CODES);
        }
        self.refresh_confirm_action();
        self
    }

    /// How long the policy may take before it counts as failed, `POLICY_UNAVAILABLE` (default 1 second;
    /// needs feature `tokio`, without which a policy is awaited as long as it takes).
    #[must_use]
    pub fn with_policy_timeout(mut self, timeout: Duration) -> Self {
        self.policing.timeout = timeout;
        self
    }

    /// Prefixes every `error_code` on the wire (`with_code_prefix("ACME_")` sends
    /// `ACME_NOT_FOUND`).
    #[must_use]
    pub fn with_code_prefix(mut self, prefix: &'static str) -> Self {
        self.prefix = Some(prefix);
        self
    }

    /// Writes every envelope of this toolbox in `format` (see [`WireFormat`]): the answers of
    /// [`call`](Self::call) and [`call_json`](Self::call_json), hence MCP's text content and
    /// `structuredContent` and the HTTP body, and each tool's `outputSchema`.
    ///
    /// ```
    /// use envelope_core::{tool, Toolbox, outcome::WireFormat};
    ///
    /// /// Counts.
    /// #[tool]
    /// fn count(#[validate(range = 1..=3)] n: u32) -> serde_json::Value {
    ///     serde_json::json!({"count": n, "results": vec![0; n as usize]})
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let toolbox = Toolbox::new().with(count::tool()).with_wire_format(WireFormat::SuccessFlag);
    /// let ok = toolbox.call("count", Some(&serde_json::json!({"n": 2}))).await.unwrap();
    /// assert_eq!(ok.to_json(), r#"{"count":2,"results":[0,0]}"#);
    /// let refused = toolbox.call("count", Some(&serde_json::json!({"n": 9}))).await.unwrap();
    /// assert_eq!(refused.to_json(), r#"{"success":false,"refused":true,"error":"n: 9 is out of range; accepted: a whole number from 1 to 3. Send a value from 1 to 3."}"#);
    /// # });
    /// ```
    #[must_use]
    pub fn with_wire_format(mut self, format: WireFormat) -> Self {
        self.format = format;
        for tool in &mut self.tools {
            tool.format = format;
        }
        self
    }

    /// Serves every tool's full `inputSchema`: cross-parameter rules (`requires`, `excludes`) as a
    /// top-level `allOf` of `if`/`then` and `not`, and the description as declared (see
    /// [`Tool::input_schema`](crate::Tool::input_schema)). For clients that validate arguments
    /// with the schema and never forward it to a model API: Anthropic's refuses such a schema,
    /// and an MCP client that forwards it fails every request it makes, not only this tool's
    /// calls.
    #[must_use]
    pub fn with_full_input_schema(mut self) -> Self {
        self.full_schema = true;
        for tool in &mut self.tools {
            tool.full_schema = true;
        }
        self
    }

    /// The format set with [`with_wire_format`](Self::with_wire_format).
    pub fn wire_format(&self) -> WireFormat {
        self.format
    }

    /// Keeps pending actions and idempotency records in `store` (default: a [`MemoryStore`](crate::call::guard::store::MemoryStore) of
    /// this toolbox and its clones). Replicas that share a store (and a secret,
    /// [`with_secret`](Self::with_secret)) confirm each other's actions and replay each
    /// other's keys.
    #[must_use]
    pub fn with_store(mut self, store: Arc<dyn Store>) -> Self {
        Arc::make_mut(&mut self.guard).store = store;
        self
    }

    /// Seals pending action ids and fingerprints arguments with `secret` (at least 32 bytes;
    /// the examples read it from `ENVELOPE_SECRET`). Without it, a random key of this process:
    /// approvals do not survive a restart or cross replicas.
    ///
    /// # Errors
    /// [`SecretTooShort`] under 32 bytes: refuse to start rather than seal with a guessable key.
    pub fn with_secret(mut self, secret: impl AsRef<[u8]>) -> Result<Self, SecretTooShort> {
        let secret = secret.as_ref();
        if secret.len() < MIN_SECRET_BYTES {
            return Err(SecretTooShort { len: secret.len() });
        }
        Arc::make_mut(&mut self.guard).key = Arc::from(secret);
        Ok(self)
    }

    /// At most `limit` calls of this toolbox's tools, all of them together, per caller and
    /// tenant ([`Caller::key`](crate::Caller::key)), counted in the toolbox's store (GCRA; see
    /// [`crate::spec::rate`]): with a `RedisStore` the limit holds across replicas. A call past it
    /// runs nothing and answers `RATE_LIMITED` (`retryable: true`, `hints.retry_after_ms`, HTTP
    /// 429 with `Retry-After`); every tool lists `RATE_LIMITED` in its `error_codes`. A tool's
    /// own `#[tool(rate_limit = "...")]` is counted too, after this one.
    ///
    /// ```
    /// use envelope_core::{tool, spec::rate::RateLimit, Toolbox};
    ///
    /// /// Pings.
    /// #[tool(read_only)]
    /// fn ping() -> u32 {
    ///     1
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let toolbox = Toolbox::new().with(ping::tool()).with_rate_limit(RateLimit::per_minute(1));
    /// assert!(toolbox.call("ping", None).await.unwrap().data().is_some());
    /// let limited = toolbox.call("ping", None).await.unwrap();
    /// assert_eq!(limited.error_code().unwrap().name(), "RATE_LIMITED");
    /// assert_eq!(limited.retryable(), Some(true));
    /// assert!(limited.retry_after_ms().unwrap() > 59_000);
    /// assert!(limited.message().unwrap().ends_with("Try again in 60 seconds."));
    /// # });
    /// ```
    #[must_use]
    pub fn with_rate_limit(mut self, limit: crate::spec::rate::RateLimit) -> Self {
        Arc::make_mut(&mut self.guard).rate_limit = Some(limit);
        for tool in &mut self.tools {
            tool.spec.declare_rate_limited();
        }
        self
    }

    /// Limits tool `name` to `limit` calls per caller and tenant, replacing its
    /// `#[tool(rate_limit = "...")]` (a limit read from the configuration, say
    /// `ENVELOPE_RATE_LIMIT`, parsed with `"5/s".parse::<RateLimit>()`). A name no tool has
    /// changes nothing.
    #[must_use]
    pub fn with_tool_rate_limit(mut self, name: &str, limit: crate::spec::rate::RateLimit) -> Self {
        // The registered tool too, so the limit holds on every surface (`on`).
        for tool in self.tools.iter_mut().chain(self.registered.iter_mut()).filter(|t| t.name() == name) {
            tool.spec.rate_limit = Some(limit);
            tool.spec.declare_rate_limited();
        }
        self
    }

    /// Requires `scopes` of every caller of tool `name`, replacing its `#[tool(scopes = [...])]`
    /// (scopes read from the configuration: the same tools served with and without
    /// authentication). A caller without them is refused `FORBIDDEN` before any argument is
    /// read (over `/tools`, 403 with `WWW-Authenticate: Bearer error="insufficient_scope"`);
    /// the tool lists `FORBIDDEN` among its codes and the scopes in the manifest. A name no tool
    /// has changes nothing.
    #[must_use]
    pub fn with_tool_scopes(mut self, name: &str, scopes: &'static [&'static str]) -> Self {
        // The registered tool too, so the scopes hold on every surface (`on`).
        for tool in self.tools.iter_mut().chain(self.registered.iter_mut()).filter(|t| t.name() == name) {
            tool.spec = tool.spec.clone().with_scopes(scopes);
        }
        self.refresh_confirm_action();
        self
    }

    /// Records every call in an audit trail (see [`crate::call::audit`]): one outcome record per
    /// call (the validated arguments without secret parameters, and what the call produced:
    /// its `data`, bounded, or its code; [`Audit::hash_only`](crate::call::audit::Audit::hash_only)
    /// keeps hashes alone), and for a governed write (a tool of `audit`'s intent tier or above, 3 by default)
    /// an intent record before its body runs; when the intent cannot be written the body does
    /// not run and the call answers `AUDIT_UNAVAILABLE` (listed in those tools' `error_codes`).
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use envelope_core::call::audit::{Audit, AuditFuture, AuditRecord, AuditSink};
    /// use envelope_core::{tool, Toolbox};
    ///
    /// #[derive(Debug, Default)]
    /// struct Kept(Mutex<Vec<AuditRecord>>);
    /// impl AuditSink for Kept {
    ///     fn write<'a>(&'a self, record: &'a AuditRecord) -> AuditFuture<'a> {
    ///         self.0.lock().unwrap().push(record.clone());
    ///         Box::pin(async { Ok(()) })
    ///     }
    /// }
    ///
    /// /// Deletes everything.
    /// #[tool(destructive)]
    /// fn wipe() -> u32 {
    ///     0
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let kept = Arc::new(Kept::default());
    /// let toolbox = Toolbox::new().with(wipe::tool()).with_audit(Audit::new(kept.clone()));
    /// toolbox.call("wipe", None).await.unwrap();
    /// let records = kept.0.lock().unwrap();
    /// let kinds: Vec<String> = records.iter().map(|r| r.to_json()).collect();
    /// assert!(kinds[0].starts_with(r#"{"kind":"intent","call_id":"call_"#), "{kinds:?}");
    /// // What it produced: its answer (`data`, whole up to the audit's data limit).
    /// assert_eq!(records[1].outcome, Some(serde_json::json!({"status": "ok", "data": 0})));
    /// assert_eq!(records[0].call_id, records[1].call_id);
    /// # });
    /// ```
    #[must_use]
    pub fn with_audit(mut self, audit: crate::call::audit::Audit) -> Self {
        Arc::make_mut(&mut self.guard).governance.audit = Some(audit);
        let mut tools = std::mem::take(&mut self.tools);
        for tool in &mut tools {
            self.declare_audit(&mut tool.spec);
        }
        self.tools = tools;
        self.refresh_confirm_action();
        self
    }

    /// Adds `provenance` to every envelope of this toolbox: `{"call_id", "surface", "tool",
    /// "tier", "caller", "tenant", "approval", "replay"}` (the caller's subject and tenant;
    /// never a token or a claim), in every wire format with room for it and in `outputSchema`.
    ///
    /// ```
    /// use envelope_core::{tool, Caller, Context, Toolbox};
    ///
    /// /// Reads.
    /// #[tool(read_only)]
    /// fn read() -> u32 {
    ///     1
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let toolbox = Toolbox::new().with(read::tool()).with_provenance();
    /// let cx = Context::new(Caller::new("alice").with_tenant("acme")).with_surface("mcp");
    /// let env = toolbox.call_in(&cx, "read", None).await.unwrap();
    /// assert_eq!(env.provenance().unwrap(), &serde_json::json!({
    ///     "call_id": cx.call_id(), "surface": "mcp", "tool": "read", "tier": 1,
    ///     "caller": "alice", "tenant": "acme", "approval": null, "replay": false}));
    /// # });
    /// ```
    #[must_use]
    pub fn with_provenance(mut self) -> Self {
        Arc::make_mut(&mut self.guard).governance.provenance = true;
        self
    }

    /// Says this server runs as several replicas: a call that relies on the store (approvals,
    /// idempotency keys, rate limits) over a store other replicas do not see (the default
    /// [`MemoryStore`](crate::call::guard::store::MemoryStore)) answers with a `warning` saying so.
    #[must_use]
    pub fn with_replicas(mut self) -> Self {
        Arc::make_mut(&mut self.guard).governance.replicas = true;
        self
    }

    /// Lists `AUDIT_UNAVAILABLE` among the codes of a governed write.
    pub(in crate::call) fn declare_audit(&self, spec: &mut ToolSpec) {
        if let Some(audit) = &self.guard.governance.audit
            && crate::call::audit::tier(spec) >= audit.intent_from_tier()
            && !spec.error_codes.contains(&crate::codes::AUDIT_UNAVAILABLE)
        {
            spec.error_codes.push(crate::codes::AUDIT_UNAVAILABLE);
        }
    }

    /// Names who may approve another caller's pending action: `approves(approver, queued_by)`
    /// answers whether `approver` may decide (approve or reject) an action `queued_by` queued.
    /// Without it, only the caller who queued an action ([`Caller::key`](crate::Caller::key):
    /// subject and tenant) may decide it; any other gets `NOT_FOUND` and nothing is used up.
    /// Either way an action is decided within its own tenant only, and an approved action runs
    /// as the caller who queued it (its subject and tenant, so in its space: what it previewed),
    /// never in the approver's.
    ///
    /// ```
    /// use envelope_core::Toolbox;
    ///
    /// // Anyone granted `notes:approve` approves the actions of the callers of their tenant.
    /// let toolbox = Toolbox::new().with_approvers(|approver, _queued_by| approver.has_scope("notes:approve"));
    /// ```
    #[must_use]
    pub fn with_approvers(
        mut self,
        approves: impl Fn(&crate::Caller, &crate::Caller) -> bool + Send + Sync + 'static,
    ) -> Self {
        Arc::make_mut(&mut self.guard).approvers = Some(Arc::new(approves));
        self
    }

    /// How long a pending action waits for approval (default 15 minutes; at least 1 second).
    #[must_use]
    pub fn with_confirmation_ttl(mut self, ttl: Duration) -> Self {
        Arc::make_mut(&mut self.guard).confirm_ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// How long an idempotency record is kept (default 24 hours).
    #[must_use]
    pub fn with_idempotency_ttl(mut self, ttl: Duration) -> Self {
        Arc::make_mut(&mut self.guard).idem_ttl = ttl;
        self
    }

    /// How long a call waits for the envelope of a running call with its idempotency key before
    /// answering `IN_PROGRESS` (default 5 seconds; needs feature `tokio` to wait at all).
    #[must_use]
    pub fn with_idempotency_wait(mut self, wait: Duration) -> Self {
        Arc::make_mut(&mut self.guard).wait = wait;
        self
    }

    /// This toolbox cannot queue actions for approval (served where `confirm_action` is not
    /// exposed): a confirm tool runs its preview and answers `error` with
    /// `CONFIRMATION_REQUIRED` and no `pending_action_id`; `confirm_action` is not offered.
    #[must_use]
    pub fn without_queue(mut self) -> Self {
        Arc::make_mut(&mut self.guard).queue = false;
        self.refresh_confirm_action();
        self
    }
}
