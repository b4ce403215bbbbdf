//! A task as its store keeps it ([`Record`], JSON, under [`task_key`], admitted as a task
//! record: [`admission`]), as `tasks/get` and `notifications/tasks` answer it ([`detailed`]),
//! and the errors of the store's tasks (a bound reached, an unknown id).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::{CallToolResult, DetailedTask, ErrorCode, ErrorData, JsonObject, Task, TaskPayload, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::task_notices::StatusNotices;

/// The `pollIntervalMs` suggested to clients.
pub const POLL_INTERVAL_MS: u64 = 500;

/// A task as stored (JSON).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Record {
    pub(super) status: TaskStatus,
    pub(super) created_at: String,
    pub(super) last_updated_at: String,
    /// Milliseconds since the Unix epoch when it expires.
    pub(super) expires_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) result: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<JsonObject>,
    /// The body's requests to its client waiting for an answer, by key (`{"method", "params"}`).
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub(super) input_requests: JsonObject,
    /// Answers `tasks/update` delivered that the body has not taken yet, by key.
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub(super) responses: JsonObject,
}

pub(super) fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

pub(super) fn timestamp() -> String {
    crate::call::audit::rfc3339(SystemTime::now())
}

/// The store key of task `id` of `caller` ([`crate::Caller::key`]): the caller as the first 32
/// hex digits of its SHA-256, so the key names one caller and one id whatever characters
/// either holds (subject `a` asking for id `b:<id>` never reaches a task of subject `a:b`).
pub(super) fn task_key(caller: &str, id: &str) -> String {
    format!("envelope:task:{}:{id}", &crate::outcome::digest::sha256_hex(caller)[..32])
}

pub(super) fn index_key(caller: &str) -> String {
    format!("envelope:tasks:{caller}")
}

pub(super) fn ttl_left(record: &Record) -> Duration {
    Duration::from_millis(record.expires_ms.saturating_sub(now_ms()).max(1))
}

/// Task `id` as `tasks/get` answers it (and `notifications/tasks` carries it): its status and
/// timestamps, and its input requests, result or error inlined as its status has them.
pub(super) fn detailed(id: &str, record: Record, ttl_ms: u64) -> DetailedTask {
    let payload = match record.status {
        TaskStatus::Completed => TaskPayload::Completed { result: record.result.unwrap_or_default() },
        TaskStatus::Failed => TaskPayload::Failed { error: record.error.unwrap_or_default() },
        TaskStatus::Cancelled => TaskPayload::Cancelled,
        TaskStatus::InputRequired => match serde_json::from_value(Value::Object(record.input_requests)) {
            Ok(input_requests) => TaskPayload::InputRequired { input_requests },
            Err(_) => TaskPayload::Working,
        },
        _ => TaskPayload::Working,
    };
    let task = Task::new(id, record.status, record.created_at, record.last_updated_at)
        .with_ttl_ms(ttl_ms)
        .with_poll_interval_ms(POLL_INTERVAL_MS);
    DetailedTask::new(task, payload)
}

/// Sends the stored task at `key` to the session that started it when its status changed
/// (`notifications/tasks`); nothing without `notices`, or when the task is gone.
pub(super) async fn announce(notices: Option<&StatusNotices>, store: &dyn crate::call::guard::store::Store, key: &str) {
    let Some(notices) = notices else { return };
    if let Ok(Some(text)) = store.get(key).await
        && let Ok(record) = serde_json::from_str::<Record>(&text)
    {
        notices.send(detailed(&notices.task_id, record, notices.ttl_ms)).await;
    }
}

pub(super) fn result_object(result: &CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(serde_json::Value::Object(mut object)) => {
            object.remove("resultType");
            object
        }
        _ => JsonObject::new(),
    }
}

pub(super) fn error_object(error: &ErrorData) -> JsonObject {
    match serde_json::to_value(error) {
        Ok(serde_json::Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}

/// A store operation on tasks that did not happen: a bound of task records reached (`-32600`
/// for the caller's own, `-32603` for the store's in all, each with the wait), else `-32603`
/// `the task store failed`.
pub(super) fn store_error(e: &crate::call::guard::store::StoreError) -> ErrorData {
    use crate::call::guard::store::Scope;
    let Some(full) = e.as_full() else {
        return ErrorData::internal_error(format!("the task store failed: {e}"), None);
    };
    let delay = crate::words::render::in_words(full.retry_after);
    match full.scope {
        Scope::Caller => ErrorData::new(
            ErrorCode::INVALID_REQUEST,
            format!(
                "the task store holds {} task records of this caller, the most it keeps for one caller; no task was created and nothing ran. Try again in {delay}, when the oldest expires",
                full.bound
            ),
            None,
        ),
        Scope::Store => ErrorData::internal_error(
            format!(
                "the task store holds {} task records, the most it keeps; no task was created and nothing ran. Try again in {delay}",
                full.bound
            ),
            None,
        ),
    }
}

/// `-32602` for a task id this caller has no task under (never issued, expired, or another
/// caller's: the same words, so a caller learns nothing of others' tasks). The id quoted as a
/// JSON string, cut to 40 characters.
pub(super) fn unknown(id: &str) -> ErrorData {
    let id = super::super::frame::shorten(&serde_json::Value::from(id).to_string());
    ErrorData::invalid_params(
        format!(
            "unknown task id: {id}; accepted: a taskId this server returned to this caller in a CreateTaskResult, within its ttl. Send that taskId, or call the tool again for a new task"
        ),
        None,
    )
}

/// What a task record of `quota` (its caller's quota key) counts against in the store.
pub(super) fn admission(quota: &str) -> crate::call::guard::store::Admission<'_> {
    crate::call::guard::store::Admission { kind: crate::call::guard::store::Kind::Task, caller: quota }
}
