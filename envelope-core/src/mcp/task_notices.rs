//! A task's status changes as notifications to the session that started it (SEP-2663,
//! `notifications/tasks`; rmcp's `TaskStatusNotification`):
//!
//! ```json
//! {"jsonrpc": "2.0", "method": "notifications/tasks", "params": {
//!   "taskId": "5f0c…", "status": "completed", "createdAt": "2026-12-06T03:50:00Z",
//!   "lastUpdatedAt": "2026-12-06T03:50:02Z", "ttlMs": 3600000, "pollIntervalMs": 500,
//!   "result": {"content": [...], "structuredContent": {"status": "ok", ...}, "isError": false}}}
//! ```
//!
//! The params are the task exactly as `tasks/get` answers it at that moment (`inputRequests`
//! while `input_required`, `result` once `completed`, `error` once `failed`). One is sent for
//! each change of status the replica running the body sees (`input_required`, back to
//! `working`, the terminal status), never before the create-task result was handed back, and
//! only to a session that can receive a message later: a stdio session, or a Streamable HTTP
//! request that names its session (`Mcp-Session-Id`), whose notifications ride the session's
//! `GET` stream. A stateless request (2026-07-28, or 2025 without a session) gets none; its
//! client polls `tasks/get`.

use std::sync::Mutex;

use rmcp::{
    RoleServer,
    model::{DetailedTask, ServerNotification, TaskStatus, TaskStatusNotification, TaskStatusNotificationParams},
    service::{Peer, RequestContext},
};

/// The way to the session that started one task, and the last status sent to it.
pub(super) struct StatusNotices {
    peer: Peer<RoleServer>,
    /// The task's id, set once it is created.
    pub(super) task_id: String,
    /// The task's `ttlMs`, as `tasks/get` answers it.
    pub(super) ttl_ms: u64,
    /// The last status sent: each change is sent once.
    last: Mutex<Option<TaskStatus>>,
    /// `true` once the create-task result was handed back: no notice goes out before it.
    announced: tokio::sync::watch::Sender<bool>,
}

impl std::fmt::Debug for StatusNotices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatusNotices").field("task_id", &self.task_id).finish_non_exhaustive()
    }
}

/// The peer of `context` when its session can receive a notification after the reply: not a
/// stateless request (2026-07-28, or Streamable HTTP without `Mcp-Session-Id`).
pub(super) fn session_peer(context: &RequestContext<RoleServer>) -> Option<Peer<RoleServer>> {
    let stateless = context.protocol_version().is_some_and(|v| v.as_str() >= "2026-07-28");
    (!stateless && in_a_session(&context.extensions)).then(|| context.peer.clone())
}

/// Over Streamable HTTP, whether the request names its session; any other transport (stdio)
/// is one session.
fn in_a_session(extensions: &rmcp::model::Extensions) -> bool {
    #[cfg(feature = "http")]
    if let Some(parts) = extensions.get::<axum::http::request::Parts>() {
        return parts.headers.contains_key("mcp-session-id");
    }
    let _ = extensions;
    true
}

impl StatusNotices {
    /// The notices of task `task_id` to `peer`'s session.
    pub(super) fn new(peer: Peer<RoleServer>, task_id: String, ttl_ms: u64) -> Self {
        StatusNotices {
            peer,
            task_id,
            ttl_ms,
            last: Mutex::new(Some(TaskStatus::Working)),
            announced: tokio::sync::watch::Sender::new(false),
        }
    }

    /// The create-task result was handed back: notices may go out.
    pub(super) fn announced(&self) {
        self.announced.send_replace(true);
    }

    /// Sends `task` when its status is not the last one sent (a task is created `working`,
    /// which the create-task result says). A session gone is no error: nothing is sent.
    pub(super) async fn send(&self, task: DetailedTask) {
        {
            let mut last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if *last == Some(task.status()) {
                return;
            }
            *last = Some(task.status());
        }
        let _ = self.announced.subscribe().wait_for(|announced| *announced).await;
        let notification = TaskStatusNotification::new(TaskStatusNotificationParams::new(task));
        let _ = self.peer.send_notification(ServerNotification::TaskStatusNotification(notification)).await;
    }
}
