//! The audit trail: one record per governed call, written through an [`AuditSink`]; for a
//! governed write, an intent record before its body runs, and the body does not run when the
//! intent cannot be written.
//!
#![doc = include_str!("../../../docs/audit.md")]

// Where records go: the sink trait, the `tracing` sink, a JSON-lines file, a Redis stream.
mod sink;
// One record: its kind, its fields, its JSON; the outcome as a record says it; its time.
mod record;

#[cfg(feature = "tokio")]
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Map, Value};

use crate::call::unwind::CatchUnwind;
use crate::outcome::code::codes;
use crate::outcome::envelope::Envelope;
use crate::read::context::Context;
use crate::spec::ToolSpec;

use record::outcome_of;
pub(crate) use record::rfc3339;
pub use record::{AuditRecord, RecordKind};
#[cfg(feature = "redis")]
pub use sink::RedisStream;
pub use sink::{AuditError, AuditFuture, AuditSink, TracingSink};
#[cfg(feature = "tokio")]
pub use sink::{JsonLinesFile, MAX_FILE_WRITERS};

/// The audit settings of a toolbox: the sink, how long a write may take (default 1 second),
/// and the tier from which a call is a governed write (default 3).
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use envelope_core::call::audit::{Audit, TracingSink};
///
/// let audit = Audit::new(Arc::new(TracingSink)).with_timeout(Duration::from_millis(500)).with_intent_from_tier(2);
/// assert_eq!(audit.intent_from_tier(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct Audit {
    sink: Arc<dyn AuditSink>,
    timeout: Duration,
    intent_tier: u8,
    /// Records keep only the arguments' hash, no arguments and no answer.
    hash_only: bool,
    /// The most bytes of an answer's `data` (as JSON) an outcome record keeps whole.
    data_limit: usize,
    /// Whether the sink stalled (a write passed its timeout), shared by the clones.
    stall: Arc<Stall>,
}

/// A sink that stalled: after one write passes its timeout, further writes fail at once, with
/// one write let through per timeout period to see whether the sink answers again.
#[derive(Debug, Default)]
struct Stall {
    /// When the next write is let through to probe the sink; `None`: the sink answers.
    probe_at: Mutex<Option<Instant>>,
}

impl Stall {
    /// Whether a write may go to the sink now: it answers, or this write is the period's probe.
    fn admits(&self, now: Instant, timeout: Duration) -> bool {
        let mut probe_at = self.probe_at.lock().unwrap_or_else(PoisonError::into_inner);
        match *probe_at {
            None => true,
            Some(at) if now >= at => {
                // This write probes; the others wait for its answer or the next period.
                *probe_at = Some(now + timeout);
                true
            }
            Some(_) => false,
        }
    }

    /// A write passed its timeout: the sink stalled; the next probe one period from now.
    fn stalled(&self, now: Instant, timeout: Duration) {
        *self.probe_at.lock().unwrap_or_else(PoisonError::into_inner) = Some(now + timeout);
    }

    /// A write was answered: the sink answers again.
    fn answered(&self) {
        let mut probe_at = self.probe_at.lock().unwrap_or_else(PoisonError::into_inner);
        if probe_at.is_some() {
            *probe_at = None;
        }
    }
}

impl Audit {
    /// Records through `sink`.
    pub fn new(sink: Arc<dyn AuditSink>) -> Self {
        Audit {
            sink,
            timeout: Duration::from_secs(1),
            intent_tier: 3,
            hash_only: false,
            data_limit: DEFAULT_DATA_LIMIT,
            stall: Arc::default(),
        }
    }

    /// A write not answered within `timeout` (at least 1 ms) counts as failed. The timeout
    /// needs tokio's timer (feature `tokio`, a runtime with timers); without one a write is
    /// awaited as long as it takes.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Calls of tools of `tier` and above (1 to 4) are governed writes: an intent record before
    /// the body, fail closed.
    #[must_use]
    pub fn with_intent_from_tier(mut self, tier: u8) -> Self {
        self.intent_tier = tier;
        self
    }

    /// The tier from which an intent record is written.
    pub fn intent_from_tier(&self) -> u8 {
        self.intent_tier
    }

    /// Records that keep what a call was given and what it produced only as hashes: the
    /// `arguments_sha256`, no `arguments`, no `data`. For data that must not be kept in the
    /// trail (how long a sink keeps records is the sink's business).
    #[must_use]
    pub fn hash_only(mut self) -> Self {
        self.hash_only = true;
        self
    }

    /// The most bytes of an `ok` answer's `data`, serialized as JSON, that an outcome record
    /// keeps whole (default 4,096): a larger answer is recorded as `data_sha256` (SHA-256 of its
    /// canonical JSON, RFC 8785) and `data_bytes`.
    #[must_use]
    pub fn with_data_limit(mut self, bytes: usize) -> Self {
        self.data_limit = bytes;
        self
    }

    /// One write of the sink: a sink that panics (making its future or polling it) has
    /// failed, as has one that does not answer within the timeout.
    ///
    /// A sink that stalled (a write passed its timeout) is not waited for again: until a write
    /// is answered, writes fail at once, except one per timeout period, which probes it.
    async fn write(&self, record: &AuditRecord) -> Result<(), AuditError> {
        if !self.stall.admits(Instant::now(), self.timeout) {
            return Err(AuditError::new(format!(
                "the sink did not answer a write within {} ms; writes fail at once until it answers again",
                self.timeout.as_millis()
            )));
        }
        let result = self.write_now(record).await;
        match &result {
            Ok(()) => self.stall.answered(),
            Err(e) if e.timed_out => self.stall.stalled(Instant::now(), self.timeout),
            Err(_) => {}
        }
        result
    }

    /// One write of the sink, bounded by the timeout.
    async fn write_now(&self, record: &AuditRecord) -> Result<(), AuditError> {
        let written = match catch_unwind(AssertUnwindSafe(|| self.sink.write(record))) {
            Ok(future) => CatchUnwind(future),
            Err(_) => return Err(AuditError::new("the sink panicked")),
        };
        // A panic while it is polled is a failed write.
        let written = async move { written.await.unwrap_or_else(|()| Err(AuditError::new("the sink panicked"))) };
        // Raced against tokio's timer where one is at hand (a runtime built without timers
        // panics on a new timer: there the write is awaited as long as it takes).
        #[cfg(feature = "tokio")]
        if tokio::runtime::Handle::try_current().is_ok()
            && let Ok(sleep) = catch_unwind(AssertUnwindSafe(|| tokio::time::sleep(self.timeout)))
        {
            let (mut written, mut sleep) = (std::pin::pin!(written), std::pin::pin!(sleep));
            return std::future::poll_fn(|cx| {
                if let std::task::Poll::Ready(r) = written.as_mut().poll(cx) {
                    return std::task::Poll::Ready(r);
                }
                sleep.as_mut().poll(cx).map(|()| Err(AuditError::timed_out(self.timeout)))
            })
            .await;
        }
        written.await
    }
}

impl Default for Audit {
    /// [`TracingSink`], 1 second, intent from tier 3.
    fn default() -> Self {
        Audit::new(Arc::new(TracingSink))
    }
}

/// The tool's tier, 1 to 4 ([`ToolSpec::tier`]: declared, else derived from the annotations).
pub(crate) fn tier(spec: &ToolSpec) -> u8 {
    spec.tier().number()
}

/// `AUDIT_UNAVAILABLE`: the intent of a governed write could not be written, so it did not run.
pub(crate) fn unavailable(tool: &str) -> Envelope {
    crate::outcome::fault::Fault::new(
        codes::AUDIT_UNAVAILABLE,
        format!("recording {tool} in the audit trail before it runs"),
    )
    .into()
}

/// How many bytes of an answer's `data` an outcome record keeps whole by default.
pub const DEFAULT_DATA_LIMIT: usize = 4096;

/// What a toolbox does around each call, beyond running it: the audit, `provenance`, the
/// warning of a memory store on replicas. Shared by a toolbox's clones.
#[derive(Clone, Debug, Default)]
pub(crate) struct Governance {
    pub(crate) audit: Option<Audit>,
    pub(crate) provenance: bool,
    /// The server says it runs as several replicas.
    pub(crate) replicas: bool,
}

/// The warning of a call that relies on a store only this replica sees.
const UNSHARED: &str = "This server says it runs as several replicas, but keeps approvals, idempotency keys and rate limits in one replica's memory: they do not hold across replicas.";

/// One call under [`Governance`]: what its records and its envelope's additions need. Cheap to
/// clone (one `Arc`); when the last clone of a call whose intent was written drops before the
/// outcome was recorded (the call was dropped: a client gone), the outcome `cancelled` is
/// written from a task of its own.
#[derive(Clone, Debug)]
pub(crate) struct Governed(Arc<Call>);

#[derive(Debug)]
struct Call {
    audit: Option<Audit>,
    provenance: bool,
    unshared: Option<&'static str>,
    cx: Context,
    started: Instant,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    tool: String,
    tier: u8,
    arguments: Option<String>,
    /// The validated arguments, `secret` parameters left out (not under `hash_only`).
    public_arguments: Option<Value>,
    approval: Option<String>,
    replay: bool,
    intent: bool,
    done: bool,
}

impl Governed {
    /// A call of `spec` in `cx`, or `None` when the toolbox adds nothing to its calls.
    /// `unshared_store`: the call relies on a store that other replicas do not see.
    pub(crate) fn of(g: &Governance, cx: &Context, spec: &ToolSpec, unshared_store: bool) -> Option<Self> {
        let unshared = (g.replicas && unshared_store).then_some(UNSHARED);
        if g.audit.is_none() && !g.provenance && unshared.is_none() {
            return None;
        }
        let state = State { tool: spec.name.to_owned(), tier: tier(spec), ..State::default() };
        Some(Governed(Arc::new(Call {
            audit: g.audit.clone(),
            provenance: g.provenance,
            unshared,
            cx: cx.clone(),
            started: Instant::now(),
            state: Mutex::new(state),
        })))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the call is recorded in an audit trail.
    pub(crate) fn audits(&self) -> bool {
        self.0.audit.is_some()
    }

    /// Whether a call of `spec` writes an intent before its body (so its sync body must wait).
    pub(crate) fn needs_intent(&self, spec: &ToolSpec) -> bool {
        self.0.audit.as_ref().is_some_and(|a| tier(spec) >= a.intent_tier)
    }

    /// The arguments as read (validated), for the records.
    pub(crate) fn read(&self, spec: &ToolSpec, args: &Map<String, Value>) {
        if let Some(audit) = &self.0.audit {
            let public = crate::read::args::public_args(&spec.params, args);
            let mut s = self.state();
            s.arguments = Some(crate::outcome::digest::sha256_hex(&crate::outcome::digest::canonical(&public)));
            s.public_arguments = (!audit.hash_only).then_some(public);
        }
    }

    /// Before the body of `spec` runs with `args`: the intent of a governed write. `Err`: the
    /// envelope to answer instead (`AUDIT_UNAVAILABLE`); the body must not run.
    pub(crate) async fn before(&self, spec: &ToolSpec, args: &Map<String, Value>) -> Result<(), Envelope> {
        {
            let mut s = self.state();
            spec.name.clone_into(&mut s.tool);
            s.tier = tier(spec);
        }
        self.read(spec, args);
        let Some(audit) = self.0.audit.as_ref().filter(|_| self.needs_intent(spec)) else { return Ok(()) };
        let record = self.record(RecordKind::Intent, None);
        match audit.write(&record).await {
            Ok(()) => {
                self.state().intent = true;
                Ok(())
            }
            Err(e) => {
                tracing::error!(target: "envelope::audit", call_id = %record.call_id, tool = %record.tool, error = %e, "intent not recorded: the call did not run");
                Err(unavailable(spec.name))
            }
        }
    }

    /// A call of this tool on a surface that hides it: the `attempt` record, written off the
    /// answer's path (in a task of its own where a tokio runtime is at hand), so the call is
    /// answered as an unknown tool in the same time as a name no tool has, whatever the sink
    /// takes. A failure to write it is logged; the answer is the same.
    pub(crate) async fn attempted(&self) {
        let Some(audit) = &self.0.audit else { return };
        let record = self.record(RecordKind::Attempt, None);
        self.state().done = true;
        #[cfg(feature = "tokio")]
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let audit = audit.clone();
            rt.spawn(async move {
                if let Err(e) = audit.write(&record).await {
                    tracing::error!(target: "envelope::audit", call_id = %record.call_id, tool = %record.tool, error = %e, "hidden tool's attempt not recorded");
                }
            });
            return;
        }
        if let Err(e) = audit.write(&record).await {
            tracing::error!(target: "envelope::audit", call_id = %record.call_id, tool = %record.tool, error = %e, "hidden tool's attempt not recorded");
        }
    }

    /// The call runs the action `pending_action_id` approved.
    pub(crate) fn approved(&self, pending_action_id: &str) {
        self.state().approval = Some(pending_action_id.to_owned());
    }

    /// The envelope was answered from an idempotency record: nothing ran.
    pub(crate) fn replayed(&self) {
        self.state().replay = true;
    }

    /// The envelope as answered: the outcome recorded, warnings and `provenance` added.
    pub(crate) async fn finish(&self, mut envelope: Envelope) -> Envelope {
        if envelope.error_code() == Some(codes::AUDIT_UNAVAILABLE) && !self.state().intent {
            return self.refused_early(envelope);
        }
        if let Some(audit) = &self.0.audit {
            let record = self.record(RecordKind::Outcome, Some(&envelope));
            let written = audit.write(&record).await;
            let intent = {
                let mut s = self.state();
                s.done = true;
                s.intent
            };
            if let Err(e) = written {
                tracing::error!(target: "envelope::audit", call_id = %record.call_id, tool = %record.tool, error = %e, "outcome not recorded");
                envelope = envelope.warned(if intent {
                    "This call's outcome was not recorded in the audit trail (its intent was): tell the operator."
                        .to_owned()
                } else {
                    "This call was not recorded in the audit trail.".to_owned()
                });
            }
        }
        if let Some(sentence) = self.0.unshared {
            envelope = envelope.warned(sentence.to_owned());
        }
        if self.0.provenance {
            envelope = envelope.with_provenance(self.provenance());
        }
        envelope
    }

    /// [`finish`](Self::finish) when it writes no record (no audit trail): `Ok` with the
    /// envelope as `finish` answers it, at once; `Err(envelope)` unchanged when a record is to
    /// be written (await `finish`).
    pub(crate) fn finish_now(&self, envelope: Envelope) -> Result<Envelope, Envelope> {
        if self.0.audit.is_some() {
            return Err(envelope);
        }
        if envelope.error_code() == Some(codes::AUDIT_UNAVAILABLE) && !self.state().intent {
            return Ok(self.refused_early(envelope));
        }
        let mut envelope = envelope;
        if let Some(sentence) = self.0.unshared {
            envelope = envelope.warned(sentence.to_owned());
        }
        if self.0.provenance {
            envelope = envelope.with_provenance(self.provenance());
        }
        Ok(envelope)
    }

    /// An `AUDIT_UNAVAILABLE` (or other early) envelope: its outcome record is attempted in a
    /// task of its own (the sink just failed: the reply does not wait on it twice).
    pub(crate) fn refused_early(&self, envelope: Envelope) -> Envelope {
        let envelope = if self.0.provenance { envelope.with_provenance(self.provenance()) } else { envelope };
        if let Some(audit) = self.0.audit.clone() {
            let record = self.record(RecordKind::Outcome, Some(&envelope));
            self.state().done = true;
            spawn_write(audit, record);
        }
        envelope
    }

    fn provenance(&self) -> Value {
        let s = self.state();
        let caller = self.0.cx.caller();
        let mut p = Map::new();
        p.insert("call_id".into(), self.0.cx.call_id().into());
        p.insert("surface".into(), self.0.cx.surface().into());
        p.insert("tool".into(), s.tool.clone().into());
        p.insert("tier".into(), s.tier.into());
        p.insert("caller".into(), caller.subject().map_or(Value::Null, Value::from));
        p.insert("tenant".into(), caller.tenant().map_or(Value::Null, Value::from));
        p.insert("approval".into(), s.approval.clone().map_or(Value::Null, Value::from));
        p.insert("replay".into(), s.replay.into());
        Value::Object(p)
    }

    fn record(&self, kind: RecordKind, envelope: Option<&Envelope>) -> AuditRecord {
        let s = self.state();
        let caller = self.0.cx.caller();
        AuditRecord {
            kind,
            call_id: self.0.cx.call_id().to_owned(),
            time: rfc3339(SystemTime::now()),
            tool: s.tool.clone(),
            tier: s.tier,
            surface: self.0.cx.surface().to_owned(),
            caller: caller.subject().map(str::to_owned),
            tenant: caller.tenant().map(str::to_owned),
            arguments_sha256: s.arguments.clone(),
            arguments: s.public_arguments.clone(),
            outcome: match (kind, envelope) {
                (RecordKind::Intent, _) => None,
                (RecordKind::Attempt, _) => Some(serde_json::json!({"status": "refused", "reason": "hidden"})),
                (RecordKind::Outcome, Some(e)) => {
                    Some(outcome_of(e, self.0.audit.as_ref().filter(|a| !a.hash_only).map(|a| a.data_limit)))
                }
                (RecordKind::Outcome, None) => Some(serde_json::json!({"status": "cancelled"})),
            },
            approval: s.approval.clone(),
            replay: s.replay,
            duration_ms: (kind == RecordKind::Outcome)
                .then(|| u64::try_from(self.0.started.elapsed().as_millis()).unwrap_or(u64::MAX)),
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        let s = self.state.get_mut().unwrap_or_else(PoisonError::into_inner);
        if !s.intent || s.done {
            return;
        }
        s.done = true;
        let Some(audit) = self.audit.clone() else { return };
        // The call was dropped after its intent: record that it ended without an answer.
        let record = AuditRecord {
            kind: RecordKind::Outcome,
            call_id: self.cx.call_id().to_owned(),
            time: rfc3339(SystemTime::now()),
            tool: s.tool.clone(),
            tier: s.tier,
            surface: self.cx.surface().to_owned(),
            caller: self.cx.caller().subject().map(str::to_owned),
            tenant: self.cx.caller().tenant().map(str::to_owned),
            arguments_sha256: s.arguments.clone(),
            arguments: s.public_arguments.clone(),
            outcome: Some(serde_json::json!({"status": "cancelled"})),
            approval: s.approval.clone(),
            replay: false,
            duration_ms: Some(u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)),
        };
        spawn_write(audit, record);
    }
}

/// Writes `record` from a task of its own where a runtime is at hand (else not at all: logged).
fn spawn_write(audit: Audit, record: AuditRecord) {
    #[cfg(feature = "tokio")]
    if let Ok(rt) = tokio::runtime::Handle::try_current() {
        rt.spawn(async move {
            if let Err(e) = audit.write(&record).await {
                tracing::error!(target: "envelope::audit", call_id = %record.call_id, tool = %record.tool, error = %e, "outcome not recorded");
            }
        });
        return;
    }
    tracing::error!(target: "envelope::audit", call_id = %record.call_id, tool = %record.tool, "outcome not recorded: no runtime to write it from");
    let _ = audit;
}
