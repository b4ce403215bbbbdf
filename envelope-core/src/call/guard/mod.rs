//! The guard of writes that run once: what a confirm tool or a keyed tool goes through before
//! its body runs, and the store its state waits in. This module holds the guard's configuration
//! (`Guard`), what it asks of a tool, and the steps confirmation and idempotency keys share
//! (a store write taken back, a rate limit); the two kinds of call are in the modules above it.

// Confirmation (`confirm_action`): a pending action queued, checked and decided.
pub mod confirm;
// Idempotency keys: a keyed call claimed, replayed or refused.
pub mod idempotency;
// The keyed hashing (a pending action id's seal, an idempotency record's fingerprint), randomness.
mod seal;
// The key-value store shared by every replica: memory, or Redis.
pub mod store;

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::outcome::code::codes;
use crate::outcome::envelope::Envelope;
use crate::outcome::fault::Fault;
use crate::outcome::refusal::Refusal;
use crate::outcome::{Guarded, Step};
use crate::spec::ToolSpec;
use seal::process_key;
use store::{Full, MemoryStore, Store};

/// The lease of a claim that the running call renews (every third of it): what a claim whose
/// call died or whose release failed holds its key for, at most.
const CLAIM_LEASE: Duration = Duration::from_secs(30);

/// The configuration behind confirmation and idempotency keys, shared by a toolbox's clones.
#[derive(Clone)]
pub(crate) struct Guard {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) key: Arc<[u8]>,
    pub(crate) confirm_ttl: Duration,
    pub(crate) idem_ttl: Duration,
    pub(crate) wait: Duration,
    /// The lease of a renewed claim ([`CLAIM_LEASE`]).
    pub(crate) lease: Duration,
    pub(crate) queue: bool,
    /// The toolbox's own rate limit, per caller, over all its tools.
    pub(crate) rate_limit: Option<crate::spec::rate::RateLimit>,
    /// The audit trail, `provenance`, and the warning of an unshared store on replicas.
    pub(crate) governance: crate::call::audit::Governance,
    /// Who may approve another caller's pending action ([`Approvers`]); `None`: only the caller
    /// who queued it.
    pub(crate) approvers: Option<Approvers>,
}

/// The policy naming approvers: `approvers(approver, queued_by)` answers whether `approver` may
/// decide an action `queued_by` queued, within one tenant.
pub(crate) type Approvers = Arc<dyn Fn(&crate::Caller, &crate::Caller) -> bool + Send + Sync>;

/// What the guard asks of a tool (implemented by `Tool`, in the module above this one): its
/// declaration, and the steps of a guarded call.
pub(crate) trait Steps: Sync {
    /// The tool's declaration.
    fn declared(&self) -> &ToolSpec;
    /// The envelope of a guarded call's preview or run; a panic is a fault.
    fn finish(&self, g: Guarded<'_>, step: Step) -> impl Future<Output = Envelope> + Send;
    /// Reads `args` (an approved action's stored arguments) and runs the call.
    fn run_with<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        cx: &'a crate::Context,
    ) -> impl Future<Output = Envelope> + Send + 'a;
}

/// The tools an approved action is found among (implemented by `Toolbox`).
pub(crate) trait Lookup: Sync {
    /// A tool of these.
    type Tool: Steps;
    /// The tool named `name`.
    fn tool(&self, name: &str) -> Option<&Self::Tool>;
    /// Whether an action queued by a caller of `tenant` (`None`: of no tenant) may be decided
    /// here. A caller decides only its own tenant's actions; the server itself, any.
    fn decides_for(&self, tenant: Option<&str>) -> bool {
        let _ = tenant;
        true
    }
    /// The refusal of an approval of the action of tool `name` (not found by [`tool`](Self::tool))
    /// by the caller whose key is `queued_by`, who queued it, when that caller now holds a token
    /// short of the tool's scopes: `FORBIDDEN` naming the scopes lacking, so the client steps up
    /// (MCP 2025-11-25 "Scope challenge handling"). `None` (the action is not found): another
    /// caller, or a tool not shown here. Default: `None`.
    fn step_up(&self, name: &str, queued_by: &str) -> Option<Envelope> {
        let _ = (name, queued_by);
        None
    }
    /// Whether the caller deciding here may decide the action `queuer` (whose key is
    /// `queued_by`) queued: the same caller ([`Caller::key`](crate::Caller::key)), or one the
    /// toolbox's approvers policy names. Otherwise the action is not found, and nothing is used
    /// up. Default (the server itself): any.
    fn may_decide(&self, queued_by: &str, queuer: &crate::Caller) -> bool {
        let _ = (queued_by, queuer);
        true
    }
    /// Whether the approved action runs in the deciding call as it is: its caller is the one
    /// who queued it (key `queued_by`). Otherwise it runs as that caller. Default (the server
    /// itself): never.
    fn is_queuer(&self, queued_by: &str) -> bool {
        let _ = queued_by;
        false
    }
    /// The policy's verdict on running the approved action `tool` with its validated `args`,
    /// asked as `cx`'s caller (the approver): `None` to run it, else the envelope to answer
    /// instead (a policy that now denies or blocks it, or gives no decision). Nothing is used
    /// up by a refusal. Default: no policy.
    fn approval_verdict<'a>(
        &'a self,
        tool: &'a Self::Tool,
        args: &'a serde_json::Map<String, serde_json::Value>,
        cx: &'a crate::Context,
    ) -> impl std::future::Future<Output = Option<Envelope>> + Send + 'a {
        let _ = (tool, args, cx);
        std::future::ready(None)
    }
}

impl fmt::Debug for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the key.
        f.debug_struct("Guard")
            .field("store", &self.store)
            .field("confirm_ttl", &self.confirm_ttl)
            .field("idem_ttl", &self.idem_ttl)
            .field("queue", &self.queue)
            .finish_non_exhaustive()
    }
}

impl Default for Guard {
    fn default() -> Self {
        Guard {
            store: Arc::new(MemoryStore::default()),
            key: process_key(),
            confirm_ttl: Duration::from_secs(15 * 60),
            idem_ttl: Duration::from_secs(24 * 60 * 60),
            wait: Duration::from_secs(5),
            lease: CLAIM_LEASE,
            queue: true,
            rate_limit: None,
            governance: crate::call::audit::Governance::default(),
            approvers: None,
        }
    }
}

impl Guard {
    /// Takes back `text` under `key` (compare-and-delete) after the store failed to answer its
    /// write: in a task of its own where a runtime is at hand, so the call does not wait on a
    /// failing store twice. On Redis it follows the write on the same connection, so it is
    /// applied after it however late that is.
    pub(super) async fn release(&self, key: String, text: String) {
        #[cfg(feature = "tokio")]
        if tokio::runtime::Handle::try_current().is_ok() {
            let store = self.store.clone();
            tokio::spawn(async move {
                let _ = store.replace_if(&key, &text, None, Duration::ZERO).await;
            });
            return;
        }
        let _ = self.store.replace_if(&key, &text, None, Duration::ZERO).await;
    }

    /// Counts a call of `spec` by `caller` against the toolbox's rate limit, then the tool's
    /// own (GCRA in the store, see [`crate::spec::rate`]): `None` to go on, or the envelope to answer
    /// instead, `RATE_LIMITED` with the delay: past the caller's limit, or (in other words) when
    /// the store has no room to count one more caller; `BACKEND_ERROR` when the store fails.
    pub(crate) async fn rate_limited(&self, spec: &ToolSpec, caller: &str) -> Option<Envelope> {
        for (scope, limit) in [("*", self.rate_limit), (spec.name, spec.rate_limit)] {
            let Some(limit) = limit else { continue };
            let whom = || if scope == "*" { "this server".to_owned() } else { spec.name.to_owned() };
            let wait = match self.store.rate(&crate::spec::rate::rate_key(scope, caller), limit).await {
                Ok(crate::spec::rate::RateCheck::Allowed) => continue,
                Ok(crate::spec::rate::RateCheck::Limited { retry_after }) => retry_after,
                Err(e) => match e.as_full() {
                    // No room to count one more caller: not this caller's limit, and said so.
                    Some(full) => return Some(uncounted(&whom(), full)),
                    None => return Some(Fault::backend("checking the rate limit").into()),
                },
            };
            return Some(rate_limited(&whom(), limit, wait));
        }
        None
    }
}

pub(super) trait AfterDelay {
    fn into_envelope_after(self, wait: Duration) -> Envelope;
}

impl AfterDelay for Refusal {
    /// The envelope, with `hints.retry_after_ms`: `wait` in whole milliseconds, rounded up.
    fn into_envelope_after(self, wait: Duration) -> Envelope {
        let ms = u64::try_from(wait.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX);
        Envelope::from(self).with_retry_after_ms(ms)
    }
}

/// `RATE_LIMITED` for a call past `limit` of `whom` (a tool's name, or "this server"): the delay
/// in `hints.retry_after_ms` and in the sentence.
pub(crate) fn rate_limited(whom: &str, limit: crate::spec::rate::RateLimit, wait: Duration) -> Envelope {
    let delay = crate::words::render::in_words(wait);
    Refusal::parameter("arguments")
        .missing()
        .reason(format!(
            "were not read, and nothing ran: {whom} takes at most {} from one caller, and this caller has made them",
            limit.words()
        ))
        .accepted(format!("the same call in {delay} (hints.retry_after_ms)"))
        .fix(format!("Try again in {delay}."))
        .build()
        .with_code(codes::RATE_LIMITED)
        .into_envelope_after(wait)
}

/// `RATE_LIMITED` for a call whose rate `whom` limits (a tool's name, or "this server") and
/// that the store had no room to count (`full`, its bound of keys in all): the caller did not
/// reach its limit, and the sentence says so; the delay (`full.retry_after`) in
/// `hints.retry_after_ms` and in the sentence.
pub(crate) fn uncounted(whom: &str, full: &Full) -> Envelope {
    let delay = crate::words::render::in_words(full.retry_after);
    tracing::warn!(
        target: "envelope::store",
        "the store's bound of {} {} is reached: a call could not be counted against its rate limit",
        full.bound,
        full.kind.plural()
    );
    Refusal::parameter("arguments")
        .missing()
        .reason(format!(
            "were not read, and nothing ran: {whom} limits each caller's calls, and the store that counts them is full ({} {} in all, the bound), so this call could not be counted; this caller has not reached its limit",
            full.bound,
            full.kind.plural()
        ))
        .accepted(format!("the same call in {delay} (hints.retry_after_ms)"))
        .fix(format!("Try again in {delay}."))
        .build()
        .with_code(codes::RATE_LIMITED)
        .into_envelope_after(full.retry_after)
}

/// The default guard of a tool called outside a toolbox.
pub(crate) fn default_guard() -> &'static Guard {
    static GUARD: OnceLock<Guard> = OnceLock::new();
    GUARD.get_or_init(Guard::default)
}
