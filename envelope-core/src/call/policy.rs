//! The policy hooks: whether a caller may make a call ([`Policy`], per call, once its arguments
//! are read), and whether a caller may act for a tenant ([`TenantPolicy`], per request, on a
//! surface that needs a tenant). Both fail closed: a call whose [`Policy`] errors or does not
//! answer in time does not run (`POLICY_UNAVAILABLE`, retry with backoff: not a denial); a
//! request whose [`TenantPolicy`] does is refused (`tenant_policy_unavailable`).
//!
//! DESIGN "Identity, tenants, tiers, surfaces": a policy hook allows, denies (`FORBIDDEN`),
//! blocks (`T4_BLOCKED`, a refusal: 403, never retried unchanged) or asks for confirmation.

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::call::unwind::CatchUnwind;
use crate::context::Caller;
use crate::outcome::code::codes;
use crate::outcome::envelope::Envelope;
use crate::outcome::fault::Fault;
use crate::outcome::refusal::Refusal;
use crate::spec::{Tier, ToolSpec};

/// What a hook failed with (a policy service down, a store that did not answer). Logged by the
/// server, never sent to the caller.
pub type PolicyError = Box<dyn std::error::Error + Send + Sync>;

/// The future a hook answers with.
pub type PolicyFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, PolicyError>> + Send + 'a>>;

/// How long a hook may take by default before it counts as failed: 1 second.
pub const DEFAULT_POLICY_TIMEOUT: Duration = Duration::from_secs(1);

/// A policy's answer about one call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// The call goes on to the tool's body.
    Allow,
    /// Refused: `FORBIDDEN` (status `invalid`, HTTP 403, not retryable). The text names what
    /// the caller lacks (`"the role billing-admin"`); the refusal reads `policy: <tool> is not
    /// allowed for this caller: it needs <what>; ...`.
    Deny(String),
    /// Blocked: `T4_BLOCKED` (status `invalid`, HTTP 403, `retry: "never"`: do not retry
    /// unchanged). The text says why (`"purges are blocked during the freeze"`); the refusal's
    /// message quotes it.
    Block(String),
    /// The call waits for a person's approval: the toolbox's confirmation flow
    /// (`needs_confirmation` with a `pending_action_id`; `confirm_action` runs it once). A tool
    /// without a preview function is previewed as `{"tool": <name>, "arguments": {...}}`
    /// (without `secret` parameters). A toolbox that cannot queue answers `error`
    /// `CONFIRMATION_REQUIRED`.
    Confirm,
}

impl Verdict {
    /// [`Verdict::Deny`], naming what the caller lacks.
    pub fn deny(missing: impl Into<String>) -> Self {
        Verdict::Deny(missing.into())
    }

    /// [`Verdict::Block`], saying why.
    pub fn block(reason: impl Into<String>) -> Self {
        Verdict::Block(reason.into())
    }
}

/// One call as a [`Policy`] sees it: who makes it, for which tenant, on which surface, which
/// tool (and its tier), with which arguments (read and validated: every parameter the tool
/// declares that was sent or has a default, by the name callers use).
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct PolicyRequest<'a> {
    cx: &'a crate::Context,
    tool: &'a ToolSpec,
    arguments: &'a Map<String, Value>,
}

impl<'a> PolicyRequest<'a> {
    pub(crate) fn new(cx: &'a crate::Context, tool: &'a ToolSpec, arguments: &'a Map<String, Value>) -> Self {
        PolicyRequest { cx, tool, arguments }
    }

    /// The call's context (its caller, call id, surface, protocol version).
    pub fn context(&self) -> &'a crate::Context {
        self.cx
    }

    /// Who is calling.
    pub fn caller(&self) -> &'a Caller {
        self.cx.caller()
    }

    /// The tenant the call is made for, if any (a verified claim, or a header a surface accepted).
    pub fn tenant(&self) -> Option<&'a str> {
        self.cx.caller().tenant()
    }

    /// The surface's name (`"mcp"`, `"internal"`, `"http"`, `"local"`).
    pub fn surface(&self) -> &'a str {
        self.cx.surface()
    }

    /// The tool's name.
    pub fn tool(&self) -> &'a str {
        self.tool.name
    }

    /// The tool's declaration.
    pub fn spec(&self) -> &'a ToolSpec {
        self.tool
    }

    /// The tool's effective tier ([`ToolSpec::tier`]).
    pub fn tier(&self) -> Tier {
        self.tool.tier()
    }

    /// The validated arguments, a JSON object.
    pub fn arguments(&self) -> &'a Map<String, Value> {
        self.arguments
    }
}

impl fmt::Debug for PolicyRequest<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the arguments: a secret parameter may be among them.
        f.debug_struct("PolicyRequest")
            .field("caller", self.caller())
            .field("surface", &self.surface())
            .field("tool", &self.tool())
            .field("tier", &self.tier())
            .finish_non_exhaustive()
    }
}

/// The policy hook of a [`Toolbox`](crate::Toolbox) ([`with_policy`](crate::Toolbox::with_policy)):
/// asked once per call of every tool but `confirm_action`, after the arguments are read and
/// validated and before the tool's body (or its preview) runs. A call refused before (an
/// unknown name, a missing scope, an invalid argument) never reaches it.
///
/// An `Err`, a panic, or no answer within the toolbox's policy timeout (1 second by default,
/// feature `tokio`) runs nothing and answers `POLICY_UNAVAILABLE` (`error`, 503,
/// `retry: "with_backoff"`): a transient outage of the policy, which a client may retry, not a
/// denial.
///
/// A closure `Fn(&PolicyRequest<'_>) -> Result<Verdict, PolicyError>` is a policy; for one that
/// awaits, implement the trait and return `Box::pin(async move { ... })`.
///
/// ```
/// use envelope_core::{Toolbox, call::policy::{PolicyError, PolicyRequest, Verdict}, spec::Tier};
///
/// let toolbox = Toolbox::new().with_policy(|call: &PolicyRequest<'_>| -> Result<Verdict, PolicyError> {
///     Ok(match call.tier() {
///         Tier::T4 if call.tenant().is_none() => Verdict::block("a T4 tool acts for a tenant only"),
///         Tier::T3 | Tier::T4 if !call.caller().has_scope("admin") => Verdict::deny("the scope admin"),
///         _ => Verdict::Allow,
///     })
/// });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a policy",
    note = "implement `envelope_core::call::policy::Policy`, or pass a closure `|call: &PolicyRequest<'_>| -> Result<Verdict, PolicyError> {{ ... }}`"
)]
pub trait Policy: Send + Sync + 'static {
    /// The verdict on `call`.
    fn decide<'a>(&'a self, call: &'a PolicyRequest<'a>) -> PolicyFuture<'a, Verdict>;
}

impl<F> Policy for F
where
    F: Fn(&PolicyRequest<'_>) -> Result<Verdict, PolicyError> + Send + Sync + 'static,
{
    fn decide<'a>(&'a self, call: &'a PolicyRequest<'a>) -> PolicyFuture<'a, Verdict> {
        Box::pin(std::future::ready(self(call)))
    }
}

/// A tenant policy's answer: whether the caller may act for the tenant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TenantAccess {
    /// The caller may act for the tenant.
    Granted,
    /// It may not: 403 `tenant_forbidden`.
    Denied,
}

/// The tenant policy of a [`Surface`](crate::call::Surface)
/// ([`with_tenant_policy`](crate::call::Surface::with_tenant_policy)): read once per request to a
/// surface that needs a tenant, once the tenant is known, before the request reaches any tool.
///
/// An `Err` (the tenant's policy could not be read) or no answer within the surface's timeout
/// (1 second by default, feature `tokio`) is 403 `tenant_policy_unavailable`: fail closed, never
/// "no policy".
///
/// A closure `Fn(&Caller, &str, &str) -> Result<TenantAccess, PolicyError>` (caller, tenant,
/// surface name) is a tenant policy.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tenant policy",
    note = "implement `envelope_core::call::policy::TenantPolicy`, or pass a closure `|caller: &Caller, tenant: &str, surface: &str| -> Result<TenantAccess, PolicyError> {{ ... }}`"
)]
pub trait TenantPolicy: Send + Sync + 'static {
    /// Whether `caller` may act for `tenant` on the surface named `surface`.
    fn admit<'a>(&'a self, caller: &'a Caller, tenant: &'a str, surface: &'a str) -> PolicyFuture<'a, TenantAccess>;
}

impl<F> TenantPolicy for F
where
    F: Fn(&Caller, &str, &str) -> Result<TenantAccess, PolicyError> + Send + Sync + 'static,
{
    fn admit<'a>(&'a self, caller: &'a Caller, tenant: &'a str, surface: &'a str) -> PolicyFuture<'a, TenantAccess> {
        Box::pin(std::future::ready(self(caller, tenant, surface)))
    }
}

/// Why a hook gave no answer.
#[derive(Debug)]
pub(crate) enum NoAnswer {
    /// It answered `Err`.
    Failed(PolicyError),
    /// It did not answer within this many milliseconds.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))] // without a timer, never
    TimedOut(u128),
    /// It panicked.
    Panicked,
}

impl fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoAnswer::Failed(e) => write!(f, "failed: {e}"),
            NoAnswer::TimedOut(ms) => write!(f, "did not answer within {ms} ms"),
            NoAnswer::Panicked => f.write_str("panicked"),
        }
    }
}

/// Asks a hook (`ask`) and awaits its answer for at most `timeout`. A hook that answers on its
/// first poll (a closure, a cached decision) costs no timer; one that waits is raced against
/// tokio's timer when one is at hand (feature `tokio`, inside a runtime with timers), else
/// awaited as long as it takes. A hook that panics, asked or awaited, gave no answer.
pub(crate) async fn within<'a, T>(timeout: Duration, ask: impl FnOnce() -> PolicyFuture<'a, T>) -> Result<T, NoAnswer> {
    let Ok(answer) = catch_unwind(AssertUnwindSafe(ask)) else { return Err(NoAnswer::Panicked) };
    let mut answer = CatchUnwind(answer);
    let first = std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut answer).poll(cx))).await;
    if let Poll::Ready(answered) = first {
        return answered.map_err(|()| NoAnswer::Panicked)?.map_err(NoAnswer::Failed);
    }
    #[cfg(feature = "tokio")]
    if tokio::runtime::Handle::try_current().is_ok()
        && let Ok(sleep) = catch_unwind(|| tokio::time::sleep(timeout))
    {
        let mut sleep = std::pin::pin!(sleep);
        return std::future::poll_fn(|cx| {
            if let Poll::Ready(answered) = Pin::new(&mut answer).poll(cx) {
                return Poll::Ready(
                    answered.map_err(|()| NoAnswer::Panicked).and_then(|a| a.map_err(NoAnswer::Failed)),
                );
            }
            match sleep.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(NoAnswer::TimedOut(timeout.as_millis()))),
                Poll::Pending => Poll::Pending,
            }
        })
        .await;
    }
    let _ = timeout;
    answer.await.map_err(|()| NoAnswer::Panicked)?.map_err(NoAnswer::Failed)
}

/// `FORBIDDEN` for a caller without every scope `tool` needs (`missing`, in declared order).
pub(crate) fn missing_scopes(tool: &str, missing: &[&str]) -> Envelope {
    let (noun, list) = scope_words(missing);
    let refusal = Refusal::parameter("scope")
        .missing()
        .reason(format!("{tool} needs the {noun} {list}, which this caller was not granted"))
        .accepted(format!("a caller granted {list}"))
        .fix(format!(
            "Call with a credential granted {list} (ask for access), or choose another tool; the same call will be refused again."
        ))
        .build()
        .with_code(codes::FORBIDDEN);
    Envelope::from(refusal)
}

/// The scopes lacking that a [`missing_scopes`] envelope (`value`, its JSON) names,
/// space-separated: what an adapter's step-up challenge names as `scope` (RFC 6750 §3.1).
/// `None` for any other envelope.
#[cfg(feature = "http")]
pub(crate) fn lacking_scopes(value: &serde_json::Value) -> Option<&str> {
    let code = value.get("error_code")?.as_str()?;
    let hints = value.get("hints")?;
    if !code.ends_with(codes::FORBIDDEN.name()) || hints.get("parameter")?.as_str()? != "scope" {
        return None;
    }
    hints.get("accepted")?.as_str()?.strip_prefix("a caller granted ").filter(|s| !s.is_empty())
}

/// `scope` or `scopes`, and the scopes space-separated (as an OAuth `scope` value).
fn scope_words(missing: &[&str]) -> (&'static str, String) {
    (if missing.len() == 1 { "scope" } else { "scopes" }, missing.join(" "))
}

/// `FORBIDDEN` for a call without a tenant on a surface that needs one.
pub(crate) fn tenant_missing(tool: &str, surface: &str) -> Envelope {
    let refusal = Refusal::parameter("tenant")
        .missing()
        .reason(format!("{tool} is served on the surface {surface} for a tenant, and this call names none"))
        .accepted("a call made for a tenant")
        .fix("Call with a credential that names a tenant, or send the header X-Tenant-ID.")
        .build()
        .with_code(codes::FORBIDDEN);
    Envelope::from(refusal)
}

/// `FORBIDDEN` for a call a policy denied, naming what the caller lacks.
pub(crate) fn denied(tool: &str, missing: &str) -> Envelope {
    let missing = crate::words::budget::cut_text(missing, 200, 400);
    let refusal = Refusal::parameter("policy")
        .missing()
        .reason(format!("{tool} is not allowed for this caller: it needs {missing}"))
        .accepted(format!("a caller with {missing}"))
        .fix("Do not retry unchanged; ask for access, or choose another action.")
        .build()
        .with_code(codes::FORBIDDEN);
    Envelope::from(refusal)
}

/// `POLICY_UNAVAILABLE` (503, `with_backoff`) for a call the policy gave no verdict on (it
/// failed, panicked or timed out): fail closed, nothing ran, and the same call may be allowed
/// once the policy answers. Not a denial, so it does not read as `FORBIDDEN`.
pub(crate) fn undecided(tool: &str) -> Envelope {
    Fault::new(codes::POLICY_UNAVAILABLE, format!("authorizing {tool} (the policy gave no decision)")).into()
}

/// `T4_BLOCKED` (`invalid`, 403, `never`) for a call a policy blocked: a policy decision,
/// never a server fault. `policy: delete_note is blocked on the surface internal (deletes are
/// frozen); accepted: ... Do not retry unchanged; ...`.
pub(crate) fn blocked(tool: &str, surface: &str, reason: &str) -> Envelope {
    let refusal = Refusal::parameter("policy")
        .missing()
        .reason(format!("{tool} is blocked on the surface {surface} ({reason}): destructive execution is not allowed here"))
        .accepted("a call the policy allows on this surface")
        .fix("Nothing was done. Do not retry unchanged; ask a person to do it where it is allowed, or choose another action.")
        .build()
        .with_code(codes::T4_BLOCKED);
    Envelope::from(refusal)
}

/// The policy hook of a toolbox and its timeout.
#[derive(Clone)]
pub(crate) struct Policing {
    pub(crate) policy: Option<Arc<dyn Policy>>,
    pub(crate) timeout: Duration,
}

impl Default for Policing {
    fn default() -> Self {
        Policing { policy: None, timeout: DEFAULT_POLICY_TIMEOUT }
    }
}

impl fmt::Debug for Policing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Policing").field("policy", &self.policy.is_some()).field("timeout", &self.timeout).finish()
    }
}

/// The codes a policy can add to any tool's answers.
pub(crate) const POLICY_CODES: [crate::Code; 4] = [
    crate::codes::FORBIDDEN,
    crate::codes::T4_BLOCKED,
    crate::codes::CONFIRMATION_REQUIRED,
    crate::codes::POLICY_UNAVAILABLE,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn poll_once<F: Future>(f: F) -> Poll<F::Output> {
        let mut f = std::pin::pin!(f);
        f.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    }

    #[test]
    fn a_hook_that_answers_at_once_needs_no_runtime_and_one_that_panics_gave_no_answer() {
        let ready = within(DEFAULT_POLICY_TIMEOUT, || Box::pin(std::future::ready(Ok(Verdict::Allow))));
        assert!(matches!(poll_once(ready), Poll::Ready(Ok(Verdict::Allow))));
        let failed = within(DEFAULT_POLICY_TIMEOUT, || Box::pin(std::future::ready(Err::<Verdict, _>("down".into()))));
        assert!(matches!(poll_once(failed), Poll::Ready(Err(NoAnswer::Failed(_)))));
        let panicked = within::<Verdict>(DEFAULT_POLICY_TIMEOUT, || panic!("asked"));
        assert!(matches!(poll_once(panicked), Poll::Ready(Err(NoAnswer::Panicked))));
        // Outside a runtime, a hook that waits is awaited (no timer to race it against).
        let waiting =
            within(DEFAULT_POLICY_TIMEOUT, || Box::pin(std::future::pending::<Result<Verdict, PolicyError>>()));
        assert!(poll_once(waiting).is_pending());
    }
}
