//! A tool's progress and log messages as MCP notifications to the client that called it:
//! `notifications/progress` under the request's own `progressToken`, `notifications/message` at
//! or above the level the client asked for.

#![allow(deprecated)] // rmcp marks logging deprecated by SEP-2577; 2025 clients still use it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::{
    RoleServer,
    model::{
        LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParam, ProgressNotification,
        ProgressNotificationParam, ProgressToken, ServerNotification,
    },
    service::{Peer, RequestContext},
};
use tokio::sync::mpsc;

use crate::context::{Asked, ClientAsk, ClientError, LogLevel, Progress, Sink};

/// How many notifications of one call wait to be written; past it, a notification is dropped
/// (the rate bound of progress keeps a well-behaved tool far below it).
const QUEUED: usize = 64;

/// How long the end of a call waits for its notifications to be handed to the transport
/// before its reply goes out (a client that does not read could hold them forever).
const FLUSH_WAIT: Duration = Duration::from_secs(2);

/// The log levels a client may ask for (MCP 2025-11-25 "Utilities / Logging", the RFC 5424
/// §6.2.1 severities), in increasing severity.
pub(crate) const LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/// The JSON-RPC `-32602` (invalid params) refusal of a request naming a log level that is not
/// one: `params.level` of `logging/setLevel`, or `params._meta["io.modelcontextprotocol/logLevel"]`
/// of any request (MCP 2026-07-28). `None` when no level is named, or the one named is accepted.
///
/// ```json
/// {"code": -32602,
///  "message": "logging/setLevel: \"verbose\" is not a log level; accepted: \"debug\", \"info\", \"notice\", \"warning\", \"error\", \"critical\", \"alert\", \"emergency\"",
///  "data": {"parameter": "level", "accepted": ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]}}
/// ```
pub(crate) fn unknown_level(method: &str, params: Option<&serde_json::Value>) -> Option<rmcp::model::ErrorData> {
    let params = params?;
    let (parameter, sent) = match (method, params.get("level")) {
        ("logging/setLevel", Some(level)) => ("level", level),
        _ => ("_meta.io.modelcontextprotocol/logLevel", params.get("_meta")?.get("io.modelcontextprotocol/logLevel")?),
    };
    if sent.as_str().is_some_and(|level| LEVELS.contains(&level)) {
        return None;
    }
    let shown = crate::words::cut::cut(&sent.to_string(), 64);
    let accepted: Vec<String> = LEVELS.iter().map(|l| format!("\"{l}\"")).collect();
    let message = format!(
        "{}: {shown} is not a log level; accepted: {}",
        crate::words::cut::cut(method, 64),
        accepted.join(", ")
    );
    Some(rmcp::model::ErrorData::invalid_params(
        message,
        Some(serde_json::json!({"parameter": parameter, "accepted": LEVELS})),
    ))
}

/// The level of `level` in rmcp's words.
pub(super) fn to_rmcp(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        _ => LoggingLevel::Emergency,
    }
}

/// rmcp's level in this crate's words.
pub(super) fn from_rmcp(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

/// One call's channel to its client: a bounded queue and the task that writes it through the
/// request's peer, in order, before the reply.
pub(super) struct Notifier {
    token: Option<ProgressToken>,
    level: Option<LogLevel>,
    queue: Mutex<Option<mpsc::Sender<ServerNotification>>>,
    writer: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Where a request to the client goes: the request's peer and its id (so the request
    /// rides that request's event stream, SEP-2260), and whether the session can carry one.
    asker: Option<Asker>,
    /// The capability a request to the client needed and the client had not declared.
    missing: Mutex<Option<&'static str>>,
}

/// The way back to the client of one request, for [`Sink::ask`].
struct Asker {
    peer: Peer<RoleServer>,
    id: rmcp::model::RequestId,
    /// A 2025 session (not stateless 2026-07-28, which forbids requests to the client).
    session: bool,
    /// On 2026-07-28: the call's input round (SEP-2322).
    round: Option<Arc<super::input_required::Round>>,
    /// What the client declared (2026-07-28: in the request's `_meta`).
    capabilities: Option<rmcp::model::ClientCapabilities>,
}

impl Notifier {
    /// The channel of the request `context`: progress only when it carries a `progressToken`,
    /// log messages at `level` and above (`None`: none). With neither, nothing is queued and no
    /// task is started.
    /// `silent`: the client cannot receive notifications on this reply (no progress, no log
    /// messages); it can still be asked. `round`: a stateless 2026-07-28 call's input round.
    pub(super) fn new(
        context: &RequestContext<RoleServer>,
        level: Option<LogLevel>,
        round: Option<Arc<super::input_required::Round>>,
        silent: bool,
    ) -> Arc<Self> {
        let (token, level) = if silent { (None, None) } else { (context.meta.get_progress_token(), level) };
        let (queue, writer) = if token.is_some() || level.is_some() {
            let (tx, rx) = mpsc::channel(QUEUED);
            (Some(tx), Some(tokio::spawn(write(context.peer.clone(), rx))))
        } else {
            (None, None)
        };
        let session = context.protocol_version().is_none_or(|v| v.as_str() < "2026-07-28");
        let capabilities =
            context.client_capabilities().or_else(|| context.peer.peer_info().map(|i| i.capabilities.clone()));
        let asker = Some(Asker { peer: context.peer.clone(), id: context.id.clone(), session, round, capabilities });
        Arc::new(Notifier {
            token,
            level,
            queue: Mutex::new(queue),
            writer: Mutex::new(writer),
            asker,
            missing: Mutex::new(None),
        })
    }

    /// A channel that sends nothing (a client that cannot receive notifications on this reply).
    pub(super) fn silent() -> Arc<Self> {
        Arc::new(Notifier {
            token: None,
            level: None,
            queue: Mutex::new(None),
            writer: Mutex::new(None),
            asker: None,
            missing: Mutex::new(None),
        })
    }

    fn send(&self, notification: ServerNotification) {
        if let Some(tx) = lock(&self.queue).as_ref() {
            // Full: dropped, never waited for (a sync body must not block on the client).
            let _ = tx.try_send(notification);
        }
    }

    /// The capability the call asked its client for and the client had not declared, if any.
    pub(super) fn missing_capability(&self) -> Option<&'static str> {
        *lock(&self.missing)
    }

    /// The call ended: no more notifications are queued, and the ones queued are written
    /// (waiting at most [`FLUSH_WAIT`]) so they reach the client before the reply.
    pub(super) async fn finish(&self) {
        drop(lock(&self.queue).take());
        let writer = lock(&self.writer).take();
        if let Some(writer) = writer {
            let _ = tokio::time::timeout(FLUSH_WAIT, writer).await;
        }
    }
}

/// The sink of a call that sends nothing ([`Notifier::silent`]), one for the process: a call
/// whose request has no `progressToken` and whose client set no log level.
pub(super) fn silent() -> Arc<dyn Sink> {
    static SILENT: std::sync::OnceLock<Arc<Notifier>> = std::sync::OnceLock::new();
    Arc::clone(SILENT.get_or_init(Notifier::silent)) as Arc<dyn Sink>
}

impl Drop for Notifier {
    fn drop(&mut self) {
        if let Some(writer) = lock(&self.writer).take() {
            writer.abort();
        }
    }
}

async fn write(peer: Peer<RoleServer>, mut rx: mpsc::Receiver<ServerNotification>) {
    while let Some(notification) = rx.recv().await {
        if peer.send_notification(notification).await.is_err() {
            return;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether `capabilities` declare the capability `ask` needs.
pub(super) fn declared(capabilities: Option<&rmcp::model::ClientCapabilities>, ask: ClientAsk) -> bool {
    capabilities.is_some_and(|c| match ask {
        ClientAsk::Sampling => c.sampling.is_some(),
        ClientAsk::Roots => c.roots.is_some(),
        ClientAsk::UrlElicitation => c.elicitation.as_ref().is_some_and(|e| e.url.is_some()),
        _ => c.elicitation.is_some(),
    })
}

impl Sink for Notifier {
    fn can_ask(&self, ask: ClientAsk) -> bool {
        self.asker.as_ref().is_some_and(|a| declared(a.capabilities.as_ref(), ask) && (a.session || a.round.is_some()))
    }

    fn ask(&self, ask: ClientAsk, key: Option<&str>, params: serde_json::Value) -> Asked {
        let Some(asker) = &self.asker else { return Box::pin(async { Err(ClientError::Unavailable) }) };
        if !declared(asker.capabilities.as_ref(), ask) {
            let capability = ask.capability();
            *lock(&self.missing) = Some(capability);
            return Box::pin(async move { Err(ClientError::MissingCapability(capability)) });
        }
        if let Some(round) = &asker.round {
            return match round.answer(ask, key, params) {
                Some(answer) => Box::pin(async move { answer }),
                // No answer yet: the call waits here until the server ends this round.
                None => Box::pin(std::future::pending()),
            };
        }
        if !asker.session {
            return Box::pin(async { Err(ClientError::Unavailable) });
        }
        let peer = asker.peer.clone();
        let mut request = rmcp::model::CustomRequest::new(ask.method(), Some(params));
        // On the event stream of the request that asks (SEP-2260), not the standalone one.
        request.extensions.insert(rmcp::service::OriginatingRequestId(asker.id.clone()));
        Box::pin(async move {
            match peer.send_request(rmcp::model::ServerRequest::CustomRequest(request)).await {
                Ok(result) => serde_json::to_value(result)
                    .map_err(|e| ClientError::Failed { code: -32603, message: e.to_string() }),
                Err(rmcp::ServiceError::McpError(e)) => {
                    Err(ClientError::Failed { code: i64::from(e.code.0), message: e.message.into_owned() })
                }
                Err(e) => Err(ClientError::Failed { code: -32603, message: e.to_string() }),
            }
        })
    }

    fn progress(&self, note: Progress) {
        let Some(token) = &self.token else { return };
        let mut param = ProgressNotificationParam::new(token.clone(), note.done);
        if let Some(total) = note.total {
            param = param.with_total(total);
        }
        if let Some(message) = note.message {
            param = param.with_message(message);
        }
        self.send(ServerNotification::ProgressNotification(ProgressNotification::new(param)));
    }

    fn log_level(&self) -> Option<LogLevel> {
        self.level
    }

    fn log(&self, level: LogLevel, message: String) {
        let param = LoggingMessageNotificationParam::new(to_rmcp(level), serde_json::Value::String(message))
            .with_logger("envelope");
        self.send(ServerNotification::LoggingMessageNotification(LoggingMessageNotification::new(param)));
    }
}
