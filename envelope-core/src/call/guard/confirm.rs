#![doc = include_str!("../../../docs/confirm.md")]

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::code::Status;
use crate::code::{Code, codes};
use crate::envelope::{Confirmation, Envelope};
use crate::fault::Fault;
use crate::outcome::Outcome;
use crate::refusal::Refusal;
use crate::spec::ToolSpec;
use crate::spec::{Choices, ParamSpec, Ty};
use crate::store::{Admission, Full, Kind, MemoryStore, Scope, Store};

/// The name of the parameter `#[tool(idempotency_key)]` adds.
pub const IDEMPOTENCY_KEY: &str = "idempotency_key";
/// The name of the tool a toolbox adds when one of its tools needs confirmation.
pub const CONFIRM_ACTION: &str = "confirm_action";

/// A secret shorter than this many bytes is refused ([`Toolbox::with_secret`](crate::Toolbox::with_secret)).
pub const MIN_SECRET_BYTES: usize = 32;

/// How long a claimed idempotency key may stay `running` before another call may claim it,
/// where no timer renews the claim (without a tokio runtime): a replica that died mid-call must
/// not hold its key for a day.
const RUNNING_LEASE: Duration = Duration::from_secs(5 * 60);

/// The lease of a claim that the running call renews (every third of it): what a claim whose
/// call died or whose release failed holds its key for, at most.
const CLAIM_LEASE: Duration = Duration::from_secs(30);

pub use crate::outcome::{Decision, Guarded, Step};

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
    pub(crate) governance: crate::audit::Governance,
}

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
            governance: crate::audit::Governance::default(),
        }
    }
}

use super::seal::{ID_BYTES, Sealed, open, process_key, random};
use crate::digest::hex;
pub use crate::digest::{canonical, sha256_hex};

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
        (Ty::Number, Value::String(s)) => match s.trim().parse::<f64>() {
            Ok(f) if f.is_finite() => Value::from(f),
            _ => Value::String(s),
        },
        (Ty::Boolean, Value::String(s)) if s == "true" || s == "false" => Value::Bool(s == "true"),
        (Ty::String, Value::String(s)) if p.rules.ignore_case => match p.rules.choices {
            Some(Choices::Str(names)) => {
                Value::String(names.iter().find(|n| n.eq_ignore_ascii_case(&s)).map_or(s, |n| (*n).to_owned()))
            }
            _ => Value::String(s),
        },
        (_, v) => v,
    }
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl Guard {
    fn mac(&self, domain: &[u8]) -> hmac::Hmac<Sha256> {
        let mut m = <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(&self.key)
            .unwrap_or_else(|_| <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(&[0u8; 32]).expect("any key length"));
        m.update(domain);
        m
    }

    /// The seal of a pending action: HMAC-SHA256 over a domain label, the tool's name (length
    /// first), the SHA-256 of the canonical arguments, the expiry and the nonce.
    fn seal_tag(&self, tool: &str, args: &Map<String, Value>, expiry: u32, nonce: &[u8; 9]) -> hmac::Hmac<Sha256> {
        let mut m = self.mac(b"envelope pending action v1\0");
        m.update(&u32::try_from(tool.len()).unwrap_or(u32::MAX).to_be_bytes());
        m.update(tool.as_bytes());
        m.update(&Sha256::digest(canonical(&Value::Object(args.clone())).as_bytes()));
        m.update(&expiry.to_be_bytes());
        m.update(nonce);
        m
    }

    fn seal(&self, tool: &str, args: &Map<String, Value>) -> String {
        let ttl = u32::try_from(self.confirm_ttl.as_secs()).unwrap_or(u32::MAX);
        let expiry = u32::try_from(now_secs()).unwrap_or(u32::MAX).saturating_add(ttl);
        let mut nonce = [0u8; 9];
        random(&mut nonce);
        let tag = self.seal_tag(tool, args, expiry, &nonce).finalize().into_bytes();
        let mut bytes = Vec::with_capacity(ID_BYTES);
        bytes.extend_from_slice(&expiry.to_be_bytes());
        bytes.extend_from_slice(&nonce);
        bytes.extend_from_slice(&tag[..16]);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    fn verifies(&self, sealed: &Sealed, tool: &str, args: &Map<String, Value>) -> bool {
        // Constant-time comparison of the truncated tag.
        self.seal_tag(tool, args, sealed.expiry, &sealed.nonce).verify_truncated_left(&sealed.tag).is_ok()
    }

    fn fingerprint(&self, args: &Map<String, Value>) -> String {
        let mut m = self.mac(b"envelope idempotency v1\0");
        m.update(canonical(&Value::Object(args.clone())).as_bytes());
        hex(&m.finalize().into_bytes())
    }

    fn minutes(&self) -> String {
        let s = self.confirm_ttl.as_secs();
        match s {
            60 => "1 minute".into(),
            s if s % 60 == 0 => format!("{} minutes", s / 60),
            1 => "1 second".into(),
            s => format!("{s} seconds"),
        }
    }

    pub(crate) fn not_found(&self, id: &str) -> Envelope {
        Refusal::parameter("pending_action_id")
            .rejected(id)
            .reason("is not a pending action: unknown, expired, or not issued by this server")
            .accepted(format!("a pending_action_id from a needs_confirmation reply of the last {}", self.minutes()))
            .fix("Call the tool again for a new pending_action_id, show its preview to the person, then confirm that id.")
            .build()
            .with_code(codes::NOT_FOUND)
            .into()
    }

    fn used(id: &str) -> Envelope {
        Refusal::parameter("pending_action_id")
            .rejected(id)
            .reason("was approved or rejected already, so nothing ran now")
            .accepted("a pending_action_id not yet confirmed")
            .fix("Read the current state before acting again; if the action is still wanted, call the tool again for a new pending_action_id.")
            .build()
            .with_code(codes::CONFLICT)
            .into()
    }

    /// A confirm tool's call: the preview, then `needs_confirmation` with a sealed id (or the
    /// preview's refusal; or `CONFIRMATION_REQUIRED` as an `error` where nothing can be queued).
    /// `caller`: the key its pending action counts against ([`crate::store::ANONYMOUS`] without
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
        let id = self.seal(name, &args);
        let hash = preview_hash(name, &crate::args::public_args(&tool.declared().params, &args), &preview);
        // The queuing caller's tenant: the action is decided within that tenant only.
        let record = json!({"state": "pending", "tool": name, "arguments": args, "preview": preview,
                            "preview_hash": hash, "tenant": caller.tenant()})
        .to_string();
        let key = caller.key();
        let who = Admission { kind: Kind::PendingAction, caller: &key };
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
    pub(crate) async fn check(&self, id: &str, tool: &str, args: &Map<String, Value>) -> PendingCheck {
        let Some(sealed) = open(id) else { return PendingCheck::Refused(self.not_found(id)) };
        if u64::from(sealed.expiry) < now_secs() {
            return PendingCheck::Refused(self.not_found(id));
        }
        if self.verifies(&sealed, tool, args) {
            return PendingCheck::Matches;
        }
        match self.pending(id, &sealed).await {
            Ok(Found::Pending { tool: name, .. }) if name == tool => PendingCheck::OtherArguments,
            Ok(Found::Decided) => PendingCheck::Refused(Guard::used(id)),
            Ok(_) => PendingCheck::Refused(self.not_found(id)),
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
        if !self.verifies(sealed, tool, &args) {
            return Ok(Found::Absent);
        }
        // `None`: a record written before actions kept their tenant.
        let tenant = record.get("tenant").map(|t| t.as_str().map(str::to_owned));
        Ok(Found::Pending { tool: tool.to_owned(), args, text, tenant })
    }

    /// `confirm_action`: runs the action of `id` once, or drops it.
    /// `call`: what the toolbox adds around the call; the approved action's intent is recorded
    /// before the id is used up, so an audit trail that is down leaves the action pending.
    pub(crate) async fn decide(
        &self,
        toolbox: &impl Lookup,
        id: &str,
        decision: Decision,
        call: Option<&crate::audit::Governed>,
        cx: &crate::Context,
    ) -> Envelope {
        let Some(sealed) = open(id) else { return self.not_found(id) };
        let now = now_secs();
        if u64::from(sealed.expiry) < now {
            return self.not_found(id);
        }
        let (name, args, text) = match self.pending(id, &sealed).await {
            Ok(Found::Pending { tool, args, text, tenant }) => {
                // Another tenant's action is not found here, and its id is not used up.
                if tenant.is_some_and(|t| !toolbox.decides_for(t.as_deref())) {
                    return self.not_found(id);
                }
                (tool, args, text)
            }
            Ok(Found::Decided) => return Guard::used(id),
            Ok(Found::Absent) => return self.not_found(id),
            Err(e) => return e,
        };
        // A tool this toolbox does not show (hidden on its surface, or gone from this replica) is
        // not found here, and its name is not said: the id stays usable where the tool is shown.
        let Some(tool) = toolbox.tool(&name) else {
            return self.not_found(id);
        };
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
                    Ok(Found::Absent) => self.not_found(id),
                    Ok(_) => Guard::used(id),
                    Err(e) => e,
                };
            }
            Err(_) => return Fault::backend("claiming the pending action").into(),
        }
        if decision != Decision::Approve {
            return Envelope::ok(json!({"done": false, "reason": decision.word()}));
        }
        tool.run_with(&args, cx).await
    }

    /// A key tool's call: replay, conflict, wait, or run and record. `caller`: the key its
    /// record counts against ([`crate::store::ANONYMOUS`] without a verified identity).
    pub(crate) async fn idempotent(
        &self,
        tool: &impl Steps,
        args: &Map<String, Value>,
        g: Guarded<'_>,
        caller: &str,
        call: Option<&crate::audit::Governed>,
    ) -> Envelope {
        let Some(key) = g.key.clone() else {
            if let Some(call) = call
                && let Err(refused) = call.before(tool.declared(), args).await
            {
                return refused;
            }
            return tool.finish(g, Step::Run).await;
        };
        let name = tool.declared().name;
        let record_key = idem_key(name, caller, &key);
        let fp = self.fingerprint(args);
        let mut nonce = [0u8; 12];
        random(&mut nonce);
        // Its own text, so that only this call renews, records or releases it.
        let claim = json!({"state": "running", "fingerprint": fp, "claim": hex(&nonce)}).to_string();
        let renews = can_renew();
        let lease = if renews { self.lease } else { RUNNING_LEASE };
        let who = Admission { kind: Kind::IdempotencyRecord, caller };
        let started = std::time::Instant::now();
        let mut pause = Duration::from_millis(20);
        loop {
            match self.store.admit(&record_key, &claim, lease, who).await {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) => {
                    if let Some(full) = e.as_full() {
                        return self.key_full(&key, full);
                    }
                    // The claim may still be applied (its answer lost, or late): take it back,
                    // so that a retry need not wait for its lease.
                    self.release(record_key, claim).await;
                    return Fault::backend("claiming the idempotency key").into();
                }
            }
            let record = match self.store.get(&record_key).await {
                Err(_) => return Fault::backend("reading the idempotency record").into(),
                // Expired or removed since: claim it again.
                Ok(None) => continue,
                Ok(Some(text)) => serde_json::from_str::<Value>(&text).unwrap_or(Value::Null),
            };
            if record.get("fingerprint").and_then(Value::as_str) != Some(fp.as_str()) {
                return key_refusal(
                    &key,
                    codes::IDEMPOTENCY_CONFLICT,
                    &format!("was used with other arguments of {name}"),
                );
            }
            if record.get("state").and_then(Value::as_str) == Some("done") {
                let recorded =
                    record.get("envelope").and_then(|e| Envelope::from_recorded(e, &tool.declared().error_codes));
                let Some(recorded) = recorded else { return Fault::backend("reading the idempotency record").into() };
                let at = record.get("at").and_then(Value::as_str);
                if let Some(call) = call {
                    call.read(tool.declared(), args);
                    call.replayed();
                }
                let when = at.map_or_else(|| "an earlier call".to_owned(), |at| format!("the call at {at}"));
                return recorded.warned(format!(
                    "Answered from {when} with this idempotency_key: nothing ran now, and the data is as it was then."
                ));
            }
            if started.elapsed() + pause > self.wait || !sleep(pause).await {
                return key_refusal(
                    &key,
                    codes::IN_PROGRESS,
                    &format!("belongs to a call of {name} that is still running"),
                );
            }
            pause = (pause * 2).min(Duration::from_millis(500));
        }
        if let Some(call) = call
            && let Err(refused) = call.before(tool.declared(), args).await
        {
            // Nothing ran: free the key at once.
            let _ = self.store.replace_if(&record_key, &claim, None, Duration::ZERO).await;
            return refused;
        }
        let envelope = self.leased(&record_key, &claim, lease, renews, tool.finish(g, Step::Run)).await;
        if envelope.status() == Status::Error {
            // A fault is not replayed: free the key so a retry can succeed.
            let _ = self.store.replace_if(&record_key, &claim, None, Duration::ZERO).await;
        } else {
            let at = crate::audit::rfc3339(SystemTime::now());
            let done =
                json!({"state": "done", "fingerprint": fp, "envelope": envelope.to_value(), "at": at}).to_string();
            // Unrecorded (the store failed, or the claim lapsed and is another call's now), the
            // claim lapses within its lease; the caller still gets its envelope.
            let _ = self.store.replace_if(&record_key, &claim, Some(&done), self.idem_ttl).await;
        }
        envelope
    }

    /// Takes back `text` under `key` (compare-and-delete) after the store failed to answer its
    /// write: in a task of its own where a runtime is at hand, so the call does not wait on a
    /// failing store twice. On Redis it follows the write on the same connection, so it is
    /// applied after it however late that is.
    async fn release(&self, key: String, text: String) {
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

    /// Runs `run` while a task of its own renews the claim `claim` of `key` every third of its
    /// `lease` (when `renews`: a tokio runtime is at hand); it stops when the claim is no longer
    /// this call's, or when the run ends or is dropped.
    async fn leased(
        &self,
        key: &str,
        claim: &str,
        lease: Duration,
        renews: bool,
        run: impl Future<Output = Envelope>,
    ) -> Envelope {
        #[cfg(feature = "tokio")]
        if renews {
            let (store, key, claim) = (self.store.clone(), key.to_owned(), claim.to_owned());
            let renewer = tokio::spawn(async move {
                loop {
                    tokio::time::sleep(lease / 3).await;
                    // A store fault: try again next time, within the lease.
                    if let Ok(false) = store.replace_if(&key, &claim, Some(&claim), lease).await {
                        break;
                    }
                }
            });
            let _stop = AbortOnDrop(renewer);
            return run.await;
        }
        let _ = (key, claim, lease, renews);
        run.await
    }

    /// Counts a call of `spec` by `caller` against the toolbox's rate limit, then the tool's
    /// own (GCRA in the store, see [`crate::rate`]): `None` to go on, or the envelope to answer
    /// instead, `RATE_LIMITED` with the delay (or `BACKEND_ERROR` when the store cannot count).
    pub(crate) async fn rate_limited(&self, spec: &ToolSpec, caller: &str) -> Option<Envelope> {
        for (scope, limit) in [("*", self.rate_limit), (spec.name, spec.rate_limit)] {
            let Some(limit) = limit else { continue };
            let wait = match self.store.rate(&crate::rate::rate_key(scope, caller), limit).await {
                Ok(crate::rate::RateCheck::Allowed) => continue,
                Ok(crate::rate::RateCheck::Limited { retry_after }) => retry_after,
                Err(e) => match e.as_full() {
                    // No room to count one more caller: wait for a count to expire.
                    Some(full) => full.retry_after,
                    None => return Some(Fault::backend("checking the rate limit").into()),
                },
            };
            let whom = if scope == "*" { "this server".to_owned() } else { spec.name.to_owned() };
            return Some(rate_limited(&whom, limit, wait));
        }
        None
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
                crate::render::in_words(full.retry_after)
            ))
            .build()
            .with_code(codes::RATE_LIMITED)
            .into_envelope_after(full.retry_after)
    }

    /// `RATE_LIMITED`: no room for another idempotency record.
    fn key_full(&self, key: &str, full: &Full) -> Envelope {
        let n = full.bound;
        let reason = match full.scope {
            Scope::Caller => format!(
                "cannot be recorded, so nothing was written: {n} idempotency keys of this caller are kept, the most one caller may have kept"
            ),
            Scope::Store => format!(
                "cannot be recorded, so nothing was written: {n} idempotency keys are kept on this server, the most it keeps"
            ),
        };
        let whose = match full.scope {
            Scope::Caller => "of this caller's keys are",
            Scope::Store => "keys are",
        };
        Refusal::parameter(IDEMPOTENCY_KEY)
            .rejected(key)
            .reason(reason)
            .accepted(format!(
                "a new idempotency_key once fewer than {n} {whose} kept (each is kept {})",
                crate::render::in_words(self.idem_ttl)
            ))
            .fix(format!(
                "Send this call again in {} (hints.retry_after_ms), when the oldest key expires.",
                crate::render::in_words(full.retry_after)
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
    Pending { tool: String, args: Map<String, Value>, text: String, tenant: Option<Option<String>> },
    /// Approved or rejected already.
    Decided,
    /// Not there: unknown, expired, or altered.
    Absent,
}

trait AfterDelay {
    fn into_envelope_after(self, wait: Duration) -> Envelope;
}

impl AfterDelay for Refusal {
    /// The envelope, with `hints.retry_after_ms`: `wait` in whole milliseconds, rounded up.
    fn into_envelope_after(self, wait: Duration) -> Envelope {
        let ms = u64::try_from(wait.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX);
        Envelope::from(self).with_retry_after_ms(ms)
    }
}

/// Whether a claim can be renewed while its call runs: a tokio runtime to run the renewal on.
fn can_renew() -> bool {
    #[cfg(feature = "tokio")]
    {
        tokio::runtime::Handle::try_current().is_ok()
    }
    #[cfg(not(feature = "tokio"))]
    {
        false
    }
}

/// Aborts the renewal of a claim when its call ends, however it ends.
#[cfg(feature = "tokio")]
struct AbortOnDrop(tokio::task::JoinHandle<()>);

#[cfg(feature = "tokio")]
impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Sleeps `d`; `false` where there is no timer (without feature `tokio`): do not wait.
async fn sleep(d: Duration) -> bool {
    #[cfg(feature = "tokio")]
    {
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::time::sleep(d).await;
            return true;
        }
    }
    let _ = d;
    false
}

/// `RATE_LIMITED` for a call past `limit` of `whom` (a tool's name, or "this server"): the delay
/// in `hints.retry_after_ms` and in the sentence.
pub(crate) fn rate_limited(whom: &str, limit: crate::spec::rate::RateLimit, wait: Duration) -> Envelope {
    let delay = crate::render::in_words(wait);
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

fn key_refusal(key: &str, code: Code, reason: &str) -> Envelope {
    let (accepted, fix) = if code == codes::IN_PROGRESS {
        (
            "this key once its first call has answered",
            "Wait a moment, then send the same call again: it answers the first call's envelope.",
        )
    } else {
        (
            "a new idempotency_key, or this key with the arguments first sent with it",
            "Resend the original request unchanged, or send this one with a new idempotency_key.",
        )
    };
    Refusal::parameter(IDEMPOTENCY_KEY)
        .rejected(key)
        .reason(reason)
        .accepted(accepted)
        .fix(fix)
        .build()
        .with_code(code)
        .into()
}

/// Where the record of idempotency key `key` of tool `name` for `caller` lives:
/// `envelope:idem:<tool>:<caller>:<key>`, `<caller>` the first 32 hex digits of the SHA-256 of
/// [`Caller::key`](crate::Caller::key) (a subject and tenant of any spelling, in a fixed
/// alphabet). Two callers, or one subject in two tenants, sending the same key hold two
/// records: neither collides with nor replays the other's.
pub(crate) fn idem_key(name: &str, caller: &str, key: &str) -> String {
    format!("envelope:idem:{name}:{}:{key}", &sha256_hex(caller)[..32])
}

fn pending_key(id: &str) -> String {
    format!("envelope:pending:{id}")
}

/// The `idempotency_key` parameter `#[tool(idempotency_key)]` adds.
pub(crate) fn idempotency_key_param() -> ParamSpec {
    ParamSpec {
        name: IDEMPOTENCY_KEY,
        description: "Optional. A key you choose (8 to 64 characters) that makes this write happen once: sent again with the same arguments, the call answers the first call's reply without acting again; sent with other arguments, it is refused. Use a new key for each new write.",
        ty: Ty::String,
        required: false,
        default: None,
        rules: crate::spec::Rules {
            length: Some(crate::spec::Length { min: 8, max: 64, unit: crate::spec::Unit::Characters }),
            ..crate::spec::Rules::NONE
        },
        requires: Vec::new(),
        excludes: Vec::new(),
    }
}

/// The declaration of the `confirm_action` tool for the confirm tools among `tools` (its call
/// function is [`confirm_action_call`]).
pub(crate) fn confirm_action_spec<'t>(tools: impl Iterator<Item = &'t ToolSpec> + Clone) -> ToolSpec {
    let mut declared = vec![codes::NOT_FOUND, codes::CONFLICT];
    for t in tools.clone().filter(|t| t.needs_confirmation) {
        for c in &t.error_codes {
            if *c != codes::CONFIRMATION_REQUIRED && !declared.contains(c) {
                declared.push(*c);
            }
        }
    }
    let names: Vec<&str> = tools.filter(|t| t.needs_confirmation).map(|t| t.name).collect();
    let description: &'static str = Box::leak(
        format!(
            "Approves or rejects an action that waits for a person's approval (a needs_confirmation reply{}{}). Ask the person first, showing the preview; send approved: true only on their yes. Approved, the action runs once and this answers its reply; rejected, nothing runs. Either way the pending_action_id is used up.",
            if names.is_empty() { "" } else { " of " },
            names.join(", ")
        )
        .into_boxed_str(),
    );
    crate::spec::ToolSpec {
        name: CONFIRM_ACTION,
        title: Some("Confirm an action"),
        description,
        params: vec![
            ParamSpec {
                name: "pending_action_id",
                description: "The pending_action_id of the needs_confirmation reply.",
                ty: Ty::String,
                required: true,
                default: None,
                rules: crate::spec::Rules::NONE,
                requires: Vec::new(),
                excludes: Vec::new(),
            },
            ParamSpec {
                name: "approved",
                description: "true: the person approved, run the action once; false: drop it.",
                ty: Ty::Boolean,
                required: true,
                default: None,
                rules: crate::spec::Rules::NONE,
                requires: Vec::new(),
                excludes: Vec::new(),
            },
        ],
        strict: false,
        annotations: crate::spec::Annotations::default(),
        error_codes: crate::spec::error_codes(&declared, false),
        output_schema: None,
        needs_confirmation: false,
        idempotency_key: false,
        rate_limit: None,
        scopes: &[],
        declared_tier: None,
    }
}

/// `confirm_action`'s call function: reads its two arguments for the toolbox to decide.
pub(crate) fn confirm_action_call<'a>(spec: &'a crate::spec::ToolSpec, input: crate::args::Input<'a>) -> Outcome<'a> {
    let mut args = crate::args::Args::new(spec, input);
    let id = args.take::<String>(0);
    let approved = args.take::<bool>(1);
    let (Some(id), Some(approved)) = (id, approved) else { return args.refuse() };
    if let Some(refused) = args.unknown() {
        return refused;
    }
    Outcome::Decide(id, if approved { Decision::Approve } else { Decision::Reject })
}

/// The default guard of a tool called outside a toolbox.
pub(crate) fn default_guard() -> &'static Guard {
    static GUARD: OnceLock<Guard> = OnceLock::new();
    GUARD.get_or_init(Guard::default)
}

#[cfg(all(test, feature = "tokio"))]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    /// A key tool whose run takes `run_ms` and counts its runs.
    struct Slow {
        spec: ToolSpec,
        runs: Arc<AtomicU32>,
        run_ms: u64,
    }

    impl Steps for Slow {
        fn declared(&self) -> &ToolSpec {
            &self.spec
        }

        async fn finish(&self, g: Guarded<'_>, step: Step) -> Envelope {
            match (g.then)(step) {
                Outcome::Ready(e) => e,
                Outcome::Pending(f) => f.await,
                _ => Fault::backend("slow").into(),
            }
        }

        async fn run_with<'a>(&'a self, _: &'a Map<String, Value>, _: &'a crate::Context) -> Envelope {
            Fault::backend("slow").into()
        }
    }

    fn slow(run_ms: u64) -> Slow {
        let spec = ToolSpec {
            name: "slow",
            title: None,
            description: "",
            params: vec![idempotency_key_param()],
            strict: false,
            annotations: crate::spec::Annotations::default(),
            error_codes: Vec::new(),
            output_schema: None,
            needs_confirmation: false,
            idempotency_key: true,
            rate_limit: None,
            scopes: &[],
            declared_tier: None,
        };
        Slow { spec, runs: Arc::default(), run_ms }
    }

    fn keyed(tool: &Slow) -> Guarded<'static> {
        let (runs, ms) = (tool.runs.clone(), tool.run_ms);
        Guarded::new(Some("renewed-key-01".into()), move |_| {
            Outcome::Pending(Box::pin(async move {
                runs.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Envelope::ok(json!("done"))
            }))
        })
    }

    #[tokio::test]
    async fn a_running_call_renews_its_claim_past_the_lease() {
        let guard = Arc::new(Guard { lease: Duration::from_millis(150), wait: Duration::ZERO, ..Guard::default() });
        let tool = Arc::new(slow(600));
        let args = Map::new();
        let first = tokio::spawn({
            let (guard, tool) = (guard.clone(), tool.clone());
            async move {
                let g = keyed(&tool);
                guard.idempotent(&*tool, &Map::new(), g, crate::store::ANONYMOUS, None).await
            }
        });
        // Past its lease twice over, the first call still holds the key: nothing runs twice.
        tokio::time::sleep(Duration::from_millis(400)).await;
        let second = guard.idempotent(&*tool, &args, keyed(&tool), crate::store::ANONYMOUS, None).await;
        assert_eq!(second.error_code(), Some(codes::IN_PROGRESS), "{}", second.to_json());
        let first = first.await.unwrap();
        assert_eq!(first.to_json(), r#"{"status":"ok","success":true,"data":"done"}"#);
        // Recorded: replayed, not run again.
        let third = guard.idempotent(&*tool, &args, keyed(&tool), crate::store::ANONYMOUS, None).await;
        assert_eq!(third.data(), first.data());
        assert!(third.warning().unwrap().starts_with("Answered from the call at "), "{}", third.to_json());
        assert_eq!(tool.runs.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_dropped_call_stops_renewing_and_its_claim_lapses() {
        let guard = Arc::new(Guard { lease: Duration::from_millis(150), wait: Duration::ZERO, ..Guard::default() });
        let tool = Arc::new(slow(60_000));
        let args = Map::new();
        let first = tokio::spawn({
            let (guard, tool) = (guard.clone(), tool.clone());
            async move { guard.idempotent(&*tool, &Map::new(), keyed(&tool), crate::store::ANONYMOUS, None).await }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        first.abort();
        // Within its lease after the call died, the key can be claimed again.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let quick = Arc::new(slow(1));
        let again = guard.idempotent(&*quick, &args, keyed(&quick), crate::store::ANONYMOUS, None).await;
        assert_eq!(again.to_json(), r#"{"status":"ok","success":true,"data":"done"}"#);
    }
}
