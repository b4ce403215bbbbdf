#![doc = include_str!("../../../docs/confirm.md")]

use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::seal::{Sealed, now_secs, open, seal, verifies};
use super::store::{Admission, Full, Kind, Scope};
use super::{AfterDelay, Guard, Lookup, Steps};
use crate::outcome::code::codes;
use crate::outcome::envelope::{Confirmation, Envelope};
use crate::outcome::fault::Fault;
use crate::outcome::refusal::Refusal;
use crate::spec::{Choices, ParamSpec, Ty};

/// The name of the tool a toolbox adds when one of its tools needs confirmation.
pub const CONFIRM_ACTION: &str = "confirm_action";

/// A secret shorter than this many bytes is refused ([`Toolbox::with_secret`](crate::Toolbox::with_secret)).
pub const MIN_SECRET_BYTES: usize = 32;

use super::idempotency::IDEMPOTENCY_KEY;
use crate::outcome::{Decision, Guarded, Step};

/// How the id of a pending action was sent, so a refusal names what the caller sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdSent {
    /// `confirm_action`'s `pending_action_id` (and `Toolbox::confirm`, `decide`, `decide_in`).
    PendingActionId,
    /// MCP 2026-07-28's `requestState` of a retried `tools/call` (SEP-2322).
    RequestState,
}

impl IdSent {
    /// The name the refusal gives the id: `pending_action_id`, `requestState`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            IdSent::PendingActionId => "pending_action_id",
            IdSent::RequestState => "requestState",
        }
    }
}

/// Whether a pending action id fits a call ([`Toolbox::check_pending`](crate::Toolbox::check_pending)).
#[derive(Debug, PartialEq)]
pub enum PendingCheck {
    /// The id is authentic, unexpired, and sealed for this tool and these arguments.
    Matches,
    /// The id is authentic and pending, but sealed for other arguments: ask again for these.
    OtherArguments,
    /// The call cannot go on: its arguments are refused, or the id is unknown, expired, forged,
    /// used (the envelope `confirm_action` would answer), or the store failed.
    Refused(Envelope),
}

/// A secret shorter than [`MIN_SECRET_BYTES`] was given to [`Toolbox::with_secret`](crate::Toolbox::with_secret).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretTooShort {
    /// Its length in bytes.
    pub len: usize,
}

impl fmt::Display for SecretTooShort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the secret that seals pending actions is {} bytes long; it needs at least {MIN_SECRET_BYTES} bytes of random data (e.g. `openssl rand -base64 48`)",
            self.len
        )
    }
}

impl std::error::Error for SecretTooShort {}

pub use crate::outcome::digest::{canonical, sha256_hex};

/// The `preview_hash` of a pending action: SHA-256, lowercase hex, of the RFC 8785 canonical
/// JSON of `{"tool": tool, "arguments": arguments, "preview": preview}`. `arguments` is the
/// validated arguments object without `secret` parameters, as a client can rebuild it from the
/// call it made (absent defaults filled in, lax strings read as their numbers and booleans).
pub fn preview_hash(tool: &str, arguments: &Value, preview: &Value) -> String {
    sha256_hex(&canonical(&json!({"tool": tool, "arguments": arguments, "preview": preview})))
}

/// The arguments as validated: each parameter sent (not `null`) or defaulted, lax strings read
/// as the number or boolean they hold, `ignore_case` choices in their declared spelling. The
/// same object hashes the same, however the call spelled it; read again, it gives the same
/// values. The idempotency key is left out.
pub(crate) fn validated_args(params: &[ParamSpec], obj: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut out = Map::new();
    for p in params {
        if p.name == IDEMPOTENCY_KEY {
            continue;
        }
        let sent = obj.and_then(|o| o.get(p.name)).filter(|v| !v.is_null()).cloned();
        let Some(v) = sent.or_else(|| p.default.clone()) else { continue };
        out.insert(p.name.to_owned(), normalized(p, v));
    }
    out
}

fn normalized(p: &ParamSpec, v: Value) -> Value {
    match (&p.ty, v) {
        (Ty::Integer { .. }, Value::String(s)) => s
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| s.trim().parse::<u64>().map(Value::from))
            .unwrap_or(Value::String(s)),
        (Ty::Integer { .. }, Value::Number(n)) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
            _ => Value::Number(n),
        },
        (Ty::Number | Ty::Float, Value::String(s)) => match s.trim().parse::<f64>() {
            Ok(f) if f.is_finite() => Value::from(f),
            _ => Value::String(s),
        },
        (Ty::Boolean, Value::String(s)) if s == "true" || s == "false" => Value::Bool(s == "true"),
        (Ty::String, Value::String(s)) if p.rules.ignore_case => match p.rules.choices {
            Some(Choices::Str(names)) => {
                Value::String(crate::read::rules::choices::canonical(names, &s).map_or(s, str::to_owned))
            }
            _ => Value::String(s),
        },
        (_, v) => v,
    }
}

impl Guard {
    fn minutes(&self) -> String {
        let s = self.confirm_ttl.as_secs();
        match s {
            60 => "1 minute".into(),
            s if s % 60 == 0 => format!("{} minutes", s / 60),
            1 => "1 second".into(),
            s => format!("{s} seconds"),
        }
    }

    pub(crate) fn not_found(&self, id: &str, sent: IdSent) -> Envelope {
        let (accepted, fix) = match sent {
            IdSent::PendingActionId => (
                format!("a pending_action_id from a needs_confirmation reply of the last {}", self.minutes()),
                "Call the tool again for a new pending_action_id, show its preview to the person, then confirm that id.",
            ),
            IdSent::RequestState => (
                format!("the requestState of an input_required result of the last {}", self.minutes()),
                "Call the tool again without requestState: its input_required result asks the person afresh.",
            ),
        };
        Refusal::parameter(sent.name())
            .rejected(id)
            .reason("is not a pending action: unknown, expired, or not issued by this server")
            .accepted(accepted)
            .fix(fix)
            .build()
            .with_code(codes::NOT_FOUND)
            .into()
    }

    fn used(id: &str, sent: IdSent) -> Envelope {
        let (accepted, again) = match sent {
            IdSent::PendingActionId => ("a pending_action_id not yet confirmed", "for a new pending_action_id"),
            IdSent::RequestState => ("a requestState not yet answered", "without requestState"),
        };
        Refusal::parameter(sent.name())
            .rejected(id)
            .reason("was approved or rejected already, so nothing ran now")
            .accepted(accepted)
            .fix(format!(
                "Read the current state before acting again; if the action is still wanted, call the tool again {again}."
            ))
            .build()
            .with_code(codes::CONFLICT)
            .into()
    }

    /// A confirm tool's call: the preview, then `needs_confirmation` with a sealed id (or the
    /// preview's refusal; or `CONFIRMATION_REQUIRED` as an `error` where nothing can be queued).
    /// `caller`: the key its pending action counts against ([`crate::context::ANONYMOUS`] without
    /// a verified identity).
    pub(crate) async fn queue(
        &self,
        tool: &impl Steps,
        args: Map<String, Value>,
        g: Guarded<'_>,
        caller: &crate::Caller,
    ) -> Envelope {
        let preview = tool.finish(g, Step::Preview).await;
        let Some(preview) = preview.data().cloned() else { return preview };
        let name = tool.declared().name;
        if !self.queue {
            return Envelope::cannot_queue(format!(
                "{name} needs a person's approval, and this server cannot queue actions for approval: nothing was done. Do not call it again; ask the person to do it another way."
            ));
        }
        let id = seal(&self.key, self.confirm_ttl, name, &args);
        let hash = preview_hash(name, &crate::read::args::public_args(&tool.declared().params, &args), &preview);
        // The queuing caller's tenant: the action is decided within that tenant only. Its key:
        // that caller approving with a token short of the tool's scopes is asked to step up.
        let key = caller.key();
        // Who queued it, to run it as that caller (its space) when another approves it.
        let record = json!({"state": "pending", "tool": name, "arguments": args, "preview": preview,
                            "preview_hash": hash, "tenant": caller.tenant(), "queued_by": key,
                            "subject": caller.subject(), "tenant_from_header": caller.tenant_from_header()})
        .to_string();
        // Counted against the caller's identity, whatever tenant a header named.
        let quota = caller.quota_key();
        let who = Admission { kind: Kind::PendingAction, caller: &quota };
        match self.store.admit(&pending_key(&id), &record, self.confirm_ttl, who).await {
            Ok(true) => {}
            // A fresh id already taken: drawn twice, or a store that is not what it says.
            Ok(false) => return Fault::backend("queueing the action for approval").into(),
            Err(e) => {
                if let Some(full) = e.as_full() {
                    return self.pending_full(full);
                }
                // Applied late, the record would count against the caller for nothing.
                self.release(pending_key(&id), record).await;
                return Fault::backend("queueing the action for approval").into();
            }
        }
        let message = format!(
            "Nothing has been done yet: {name} waits for the person's approval. Show them the preview and ask whether to go ahead; then call confirm_action with this pending_action_id and approved: true to run it once, or approved: false to drop it. Do not call {name} again for this action. The id expires in {}.",
            self.minutes()
        );
        Envelope::needs_confirmation(Confirmation::hashed(id, message, preview, hash))
    }

    /// Verifies `id` for `tool` and its validated `args`, without the store unless the seal
    /// does not fit these arguments.
    pub(crate) async fn check(&self, id: &str, tool: &str, args: &Map<String, Value>, sent: IdSent) -> PendingCheck {
        let Some(sealed) = open(id) else { return PendingCheck::Refused(self.not_found(id, sent)) };
        if u64::from(sealed.expiry) < now_secs() {
            return PendingCheck::Refused(self.not_found(id, sent));
        }
        if verifies(&self.key, &sealed, tool, args) {
            return PendingCheck::Matches;
        }
        match self.pending(id, &sealed).await {
            Ok(Found::Pending { tool: name, .. }) if name == tool => PendingCheck::OtherArguments,
            Ok(Found::Decided) => PendingCheck::Refused(Guard::used(id, sent)),
            Ok(_) => PendingCheck::Refused(self.not_found(id, sent)),
            Err(e) => PendingCheck::Refused(e),
        }
    }

    /// The record of `id` in the store: its authentic pending action, or the mark that it was
    /// decided.
    async fn pending(&self, id: &str, sealed: &Sealed) -> Result<Found, Envelope> {
        let text = match self.store.get(&pending_key(id)).await {
            Ok(Some(t)) => t,
            Ok(None) => return Ok(Found::Absent),
            Err(_) => return Err(Fault::backend("reading the pending action").into()),
        };
        let Ok(record) = serde_json::from_str::<Value>(&text) else { return Ok(Found::Absent) };
        if record.get("state").and_then(Value::as_str) == Some("decided") {
            return Ok(Found::Decided);
        }
        let (Some(tool), Some(Value::Object(args))) =
            (record.get("tool").and_then(Value::as_str), record.get("arguments").cloned())
        else {
            return Ok(Found::Absent);
        };
        // A record altered in the store (or written under another key) does not verify.
        if !verifies(&self.key, sealed, tool, &args) {
            return Ok(Found::Absent);
        }
        // `None`: a record written before actions kept their tenant.
        let tenant = record.get("tenant").map(|t| t.as_str().map(str::to_owned));
        let queued_by = record.get("queued_by").and_then(Value::as_str).map(str::to_owned);
        let queuer = queued_by.as_ref().map(|_| Box::new(queuer_of(&record)));
        Ok(Found::Pending { tool: tool.to_owned(), args, text, tenant, queued_by, queuer })
    }

    /// `confirm_action`: runs the action of `id` once, or drops it.
    /// `call`: what the toolbox adds around the call; the approved action's intent is recorded
    /// before the id is used up, so an audit trail that is down leaves the action pending.
    pub(crate) async fn decide(
        &self,
        toolbox: &impl Lookup,
        id: &str,
        decision: Decision,
        call: Option<&crate::call::audit::Governed>,
        cx: &crate::Context,
        sent: IdSent,
    ) -> Envelope {
        let Some(sealed) = open(id) else { return self.not_found(id, sent) };
        let now = now_secs();
        if u64::from(sealed.expiry) < now {
            return self.not_found(id, sent);
        }
        let (name, args, text, queued_by, queuer) = match self.pending(id, &sealed).await {
            Ok(Found::Pending { tool, args, text, tenant, queued_by, queuer }) => {
                // Another tenant's action is not found here, and its id is not used up.
                if tenant.is_some_and(|t| !toolbox.decides_for(t.as_deref())) {
                    return self.not_found(id, sent);
                }
                // Another caller's action, unless a policy names this one its approver: not
                // found, and its id is not used up.
                if let (Some(by), Some(queuer)) = (&queued_by, &queuer)
                    && !toolbox.may_decide(by, queuer)
                {
                    return self.not_found(id, sent);
                }
                (tool, args, text, queued_by, queuer)
            }
            Ok(Found::Decided) => return Guard::used(id, sent),
            Ok(Found::Absent) => return self.not_found(id, sent),
            Err(e) => return e,
        };
        // A tool this toolbox does not show (hidden on its surface, or gone from this replica) is
        // not found here, and its name is not said: the id stays usable where the tool is shown.
        // The caller who queued it, with a token short of the tool's scopes: `FORBIDDEN` naming
        // them (the adapters' step-up challenge), and the id is not used up.
        let Some(tool) = toolbox.tool(&name) else {
            if let Some(refused) = queued_by.as_deref().and_then(|who| toolbox.step_up(&name, who)) {
                return refused;
            }
            return self.not_found(id, sent);
        };
        // The policy is asked again as the action runs: a decision withdrawn since it was
        // queued refuses the approval, and the id is not used up.
        if decision == Decision::Approve
            && let Some(refused) = toolbox.approval_verdict(tool, &args, cx).await
        {
            return refused;
        }
        if decision == Decision::Approve
            && let Some(call) = call
        {
            call.approved(id);
            if let Err(refused) = call.before(tool.declared(), &args).await {
                return refused;
            }
        }
        // Single use: of every replica deciding this id at once, one turns the record into the
        // mark, kept until just past the id's expiry (the id answers `CONFLICT` until then).
        let left = Duration::from_secs(u64::from(sealed.expiry).saturating_sub(now) + 60);
        let mark = json!({"state": "decided", "decision": decision.word()}).to_string();
        match self.store.replace_if(&pending_key(id), &text, Some(&mark), left).await {
            Ok(true) => {}
            // Decided by another call since the read (or expired just now).
            Ok(false) => {
                return match self.pending(id, &sealed).await {
                    Ok(Found::Absent) => self.not_found(id, sent),
                    Ok(_) => Guard::used(id, sent),
                    Err(e) => e,
                };
            }
            Err(_) => return Fault::backend("claiming the pending action").into(),
        }
        if decision != Decision::Approve {
            return Envelope::ok(json!({"done": false, "reason": decision.word()}));
        }
        // What was previewed runs: in the space of the caller who queued it, never the
        // approver's.
        match (queued_by, queuer) {
            (Some(by), Some(queuer)) if !toolbox.is_queuer(&by) => {
                tool.run_with(&args, &cx.clone().with_caller(*queuer)).await
            }
            _ => tool.run_with(&args, cx).await,
        }
    }

    /// `RATE_LIMITED`: no room for another pending action. An approved or rejected action
    /// keeps its place until its id expires (its mark answers `CONFLICT`), so deciding waiting
    /// actions makes no room sooner: the fix is to wait.
    fn pending_full(&self, full: &Full) -> Envelope {
        let n = full.bound;
        let reason = match full.scope {
            Scope::Caller => format!(
                "cannot be queued for approval, so nothing was done: {n} actions of this caller already wait for approval, the most one caller may have waiting"
            ),
            Scope::Store => format!(
                "cannot be queued for approval, so nothing was done: {n} actions already wait for approval on this server, the most it keeps"
            ),
        };
        let whose = match full.scope {
            Scope::Caller => "of this caller's actions",
            Scope::Store => "actions",
        };
        Refusal::parameter("arguments")
            .missing()
            .reason(reason)
            .accepted(format!("this call once fewer than {n} {whose} wait (each waits at most {})", self.minutes()))
            .fix(format!(
                "Send this call again in {} (hints.retry_after_ms), when the oldest expires.",
                crate::words::render::in_words(full.retry_after)
            ))
            .build()
            .with_code(codes::RATE_LIMITED)
            .into_envelope_after(full.retry_after)
    }
}

/// The record of a pending action id in the store.
enum Found {
    /// Waiting for approval: its tool, arguments, the stored text (to compare and set), and
    /// the tenant of the caller who queued it (`None` in a record that does not say).
    /// and the key of that caller (`None` in a record that does not say).
    Pending {
        tool: String,
        args: Map<String, Value>,
        text: String,
        tenant: Option<Option<String>>,
        queued_by: Option<String>,
        /// The caller who queued it, as the record says (subject, tenant): its space.
        queuer: Option<Box<crate::Caller>>,
    },
    /// Approved or rejected already.
    Decided,
    /// Not there: unknown, expired, or altered.
    Absent,
}

/// The caller who queued the pending action `record`: its subject and tenant (scopes and claims
/// are not kept).
fn queuer_of(record: &Value) -> crate::Caller {
    let caller = match record.get("subject").and_then(Value::as_str) {
        Some(subject) => crate::Caller::new(subject),
        None => crate::Caller::anonymous(),
    };
    match record.get("tenant").and_then(Value::as_str) {
        Some(t) if record.get("tenant_from_header").and_then(Value::as_bool) == Some(true) => {
            caller.with_header_tenant(t)
        }
        Some(t) => caller.with_tenant(t),
        None => caller,
    }
}

fn pending_key(id: &str) -> String {
    format!("envelope:pending:{id}")
}
