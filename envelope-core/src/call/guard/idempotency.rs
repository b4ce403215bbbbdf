//! Idempotency keys (`#[tool(idempotency_key)]`): a keyed call claims its key, runs once and
//! records its envelope; a retry with the same arguments is answered from the record, one with
//! other arguments is refused. See [`confirm`](super::confirm) for the guide.

use std::time::{Duration, SystemTime};

use serde_json::{Map, Value, json};

use super::seal::{fingerprint, random};
use super::store::{Admission, Full, Kind, Scope};
use super::{AfterDelay, Guard, Steps};
use crate::outcome::code::Status;
use crate::outcome::code::{Code, codes};
use crate::outcome::digest::{hex, sha256_hex};
use crate::outcome::envelope::Envelope;
use crate::outcome::fault::Fault;
use crate::outcome::refusal::Refusal;
use crate::outcome::{Guarded, Step};
use crate::spec::{ParamSpec, Ty};

/// The name of the parameter `#[tool(idempotency_key)]` adds.
pub const IDEMPOTENCY_KEY: &str = "idempotency_key";

/// How long a claimed idempotency key may stay `running` before another call may claim it,
/// where no timer renews the claim (without a tokio runtime): a replica that died mid-call must
/// not hold its key for a day.
const RUNNING_LEASE: Duration = Duration::from_secs(5 * 60);

impl Guard {
    /// A key tool's call: replay, conflict, wait, or run and record. Its record belongs to
    /// `caller`'s space ([`Caller::key`](crate::Caller::key)) and counts against its identity's
    /// quota ([`Caller::quota_key`](crate::Caller::quota_key)).
    pub(crate) async fn idempotent(
        &self,
        tool: &impl Steps,
        args: &Map<String, Value>,
        g: Guarded<'_>,
        caller: &crate::Caller,
        call: Option<&crate::call::audit::Governed>,
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
        let record_key = idem_key(name, &caller.key(), &key);
        let fp = fingerprint(&self.key, args);
        let mut nonce = [0u8; 12];
        random(&mut nonce);
        // Its own text, so that only this call renews, records or releases it.
        let claim = json!({"state": "running", "fingerprint": fp, "claim": hex(&nonce)}).to_string();
        let renews = can_renew();
        let lease = if renews { self.lease } else { RUNNING_LEASE };
        let quota = caller.quota_key();
        let who = Admission { kind: Kind::IdempotencyRecord, caller: &quota };
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
            let at = crate::call::audit::rfc3339(SystemTime::now());
            let done =
                json!({"state": "done", "fingerprint": fp, "envelope": envelope.to_value(), "at": at}).to_string();
            // Unrecorded (the store failed, or the claim lapsed and is another call's now), the
            // claim lapses within its lease; the caller still gets its envelope.
            let _ = self.store.replace_if(&record_key, &claim, Some(&done), self.idem_ttl).await;
        }
        envelope
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
                crate::words::render::in_words(self.idem_ttl)
            ))
            .fix(format!(
                "Send this call again in {} (hints.retry_after_ms), when the oldest key expires.",
                crate::words::render::in_words(full.retry_after)
            ))
            .build()
            .with_code(codes::RATE_LIMITED)
            .into_envelope_after(full.retry_after)
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

#[cfg(all(test, feature = "tokio"))]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;
    use crate::outcome::Outcome;
    use crate::spec::ToolSpec;

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
                guard.idempotent(&*tool, &Map::new(), g, &crate::Caller::anonymous(), None).await
            }
        });
        // Past its lease twice over, the first call still holds the key: nothing runs twice.
        tokio::time::sleep(Duration::from_millis(400)).await;
        let second = guard.idempotent(&*tool, &args, keyed(&tool), &crate::Caller::anonymous(), None).await;
        assert_eq!(second.error_code(), Some(codes::IN_PROGRESS), "{}", second.to_json());
        let first = first.await.unwrap();
        assert_eq!(first.to_json(), r#"{"status":"ok","success":true,"data":"done"}"#);
        // Recorded: replayed, not run again.
        let third = guard.idempotent(&*tool, &args, keyed(&tool), &crate::Caller::anonymous(), None).await;
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
            async move { guard.idempotent(&*tool, &Map::new(), keyed(&tool), &crate::Caller::anonymous(), None).await }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        first.abort();
        // Within its lease after the call died, the key can be claimed again.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let quick = Arc::new(slow(1));
        let again = guard.idempotent(&*quick, &args, keyed(&quick), &crate::Caller::anonymous(), None).await;
        assert_eq!(again.to_json(), r#"{"status":"ok","success":true,"data":"done"}"#);
    }
}
