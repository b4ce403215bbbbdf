//! One audit record: its kind, its fields and their JSON; the outcome as a record says it.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::outcome::code::Status;
use crate::outcome::envelope::Envelope;

/// Whether a record is written before the body (`intent`) or after the envelope (`outcome`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordKind {
    /// Before a governed write's body runs.
    Intent,
    /// After the call answered (or was dropped).
    Outcome,
    /// A call of a tool hidden on the caller's surface (a T4 tool on a public surface, or one
    /// outside the surface's visible set): answered as an unknown tool, nothing ran. Its
    /// `outcome` is `{"status": "refused", "reason": "hidden"}`.
    Attempt,
}

impl RecordKind {
    /// `intent` or `outcome`.
    pub const fn as_str(self) -> &'static str {
        match self {
            RecordKind::Intent => "intent",
            RecordKind::Outcome => "outcome",
            RecordKind::Attempt => "attempt",
        }
    }
}

/// One audit record (see the module docs for its JSON; keys in that order, absent ones left
/// out).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct AuditRecord {
    /// `intent` or `outcome`.
    pub kind: RecordKind,
    /// [`Context::call_id`](crate::Context::call_id).
    pub call_id: String,
    /// When the record was made: RFC 3339, UTC, milliseconds (`2026-12-01T14:49:30.123Z`).
    pub time: String,
    /// The tool that ran (for `confirm_action`, the approved tool).
    pub tool: String,
    /// Its tier, 1 (read) to 4.
    pub tier: u8,
    /// [`Context::surface`](crate::Context::surface).
    pub surface: String,
    /// The caller's subject; absent for an anonymous caller.
    pub caller: Option<String>,
    /// The caller's tenant, if any.
    pub tenant: Option<String>,
    /// SHA-256 (hex) of the canonical validated arguments; absent when they were not read.
    pub arguments_sha256: Option<String>,
    /// The validated arguments, every `secret` parameter left out (as a reply leaves it out);
    /// absent when they were not read, or under [`Audit::hash_only`](super::Audit::hash_only).
    pub arguments: Option<Value>,
    /// The outcome as the envelope says it; absent on an intent.
    pub outcome: Option<Value>,
    /// The `pending_action_id` whose approval ran the call.
    pub approval: Option<String>,
    /// Answered from an idempotency record: nothing ran.
    pub replay: bool,
    /// Milliseconds from the call's start to its envelope (outcome only).
    pub duration_ms: Option<u64>,
}

impl AuditRecord {
    /// The record as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl Serialize for AuditRecord {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", self.kind.as_str())?;
        m.serialize_entry("call_id", &self.call_id)?;
        m.serialize_entry("time", &self.time)?;
        m.serialize_entry("tool", &self.tool)?;
        m.serialize_entry("tier", &self.tier)?;
        m.serialize_entry("surface", &self.surface)?;
        if let Some(v) = &self.caller {
            m.serialize_entry("caller", v)?;
        }
        if let Some(v) = &self.tenant {
            m.serialize_entry("tenant", v)?;
        }
        if let Some(v) = &self.arguments_sha256 {
            m.serialize_entry("arguments_sha256", v)?;
        }
        if let Some(v) = &self.arguments {
            m.serialize_entry("arguments", v)?;
        }
        if let Some(v) = &self.outcome {
            m.serialize_entry("outcome", v)?;
        }
        if let Some(v) = &self.approval {
            m.serialize_entry("approval", v)?;
        }
        m.serialize_entry("replay", &self.replay)?;
        if let Some(v) = &self.duration_ms {
            m.serialize_entry("duration_ms", v)?;
        }
        m.end()
    }
}

/// The outcome as the envelope says it: its status, and what a served call produced (its
/// `data`, whole up to the audit's data limit, else its hash and size; nothing under
/// `hash_only`), or the code of one that was not. `data_limit`: the audit's data limit in bytes
/// of the data's JSON text, `None` when no data is recorded (no audit, or `hash_only`).
pub(super) fn outcome_of(e: &Envelope, data_limit: Option<usize>) -> Value {
    let mut o = Map::new();
    o.insert("status".into(), e.status().as_str().into());
    match e.status() {
        Status::Ok => {
            if let (Some(limit), Some(data)) = (data_limit, e.data()) {
                let text = serde_json::to_string(data).unwrap_or_default();
                if text.len() <= limit {
                    o.insert("data".into(), data.clone());
                } else {
                    o.insert(
                        "data_sha256".into(),
                        crate::outcome::digest::sha256_hex(&crate::outcome::digest::canonical(data)).into(),
                    );
                    o.insert("data_bytes".into(), text.len().into());
                }
            }
        }
        Status::NeedsConfirmation => {
            if let Some(c) = e.confirmation() {
                o.insert("pending_action_id".into(), c.pending_action_id().into());
            }
        }
        Status::Invalid | Status::Error => {
            if let Some(code) = e.code_on_wire() {
                o.insert("error_code".into(), code.into());
            }
        }
    }
    Value::Object(o)
}

/// `t` as RFC 3339 in UTC with milliseconds: `2026-12-01T14:49:30.123Z`.
pub(crate) fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, day) = civil_from_days(i64::try_from(days).unwrap_or(0));
    format!("{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem % 3600 / 60, rem % 60, d.subsec_millis())
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to (year, month, day).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn times_are_rfc3339_utc_with_milliseconds() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_millis(1_796_136_570_123)), "2026-12-01T14:49:30.123Z");
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000-02-29T00:00:00.000Z");
    }
}
