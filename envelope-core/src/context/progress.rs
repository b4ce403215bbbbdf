//! A call's progress and log messages: checked (increasing, finite), within their rate (one
//! progress notification per 50 ms, the last one always sent) and cut to their sizes; to the
//! transport's sink, or to `tracing` when there is none.

use std::sync::Arc;
use std::time::Instant;

use super::Context;
use super::live::{Live, Sink, lock};
use super::messages::{LogLevel, MAX_LOG_BYTES, MAX_PROGRESS_CHARS, PROGRESS_INTERVAL, Progress};

/// What a tool's body reports while it runs: its progress, log messages for the client.
impl Context {
    /// Reports progress: `done` of `total` (in any unit; MCP `progress` and `total`). See
    /// [`progress_with`](Self::progress_with).
    pub fn progress(&self, done: impl Into<f64>, total: impl Into<f64>) {
        self.inner.live().progress(self, done.into(), Some(total.into()), None);
    }

    /// Reports progress with a message for a person (`message`, cut to 512 characters).
    ///
    /// Over MCP it is a `notifications/progress` (MCP 2025-11-25, "Utilities / Progress")
    /// `{"progressToken": T, "progress": done, "total": total, "message": message}` with the
    /// request's own `progressToken`, and only when the client sent one: none otherwise. A
    /// value that does not increase on the last one sent (or is not a finite number) is
    /// dropped, as the spec asks `progress` to increase. At most one notification goes out per
    /// 50 milliseconds, except the last: a report within 50 ms of the last
    /// one sent is held until a later report replaces it or goes out, and the call's end sends
    /// the one still held, so the last value reported always arrives. A report that reaches
    /// `total` goes out at once.
    pub fn progress_with(&self, done: impl Into<f64>, total: impl Into<f64>, message: &str) {
        self.inner.live().progress(self, done.into(), Some(total.into()), Some(message));
    }

    /// Logs `message` at `level` to the client: an MCP `notifications/message`
    /// `{"level": "info", "logger": "envelope", "data": message}` (MCP 2025-11-25, "Utilities /
    /// Logging"), sent only when `level` is at or above the level the client set (with
    /// `logging/setLevel`, or on 2026-07-28 the request's `_meta`
    /// `io.modelcontextprotocol/logLevel`); see [`crate::mcp`] for how long a level holds. The
    /// message is cut to 4096 bytes (at a character, ending `…`). Never put a secret in it:
    /// it is sent as written.
    pub fn log(&self, level: LogLevel, message: impl AsRef<str>) {
        self.inner.live().log(self, level, message.as_ref());
    }

    /// [`log`](Self::log) at `debug`.
    pub fn debug(&self, message: impl AsRef<str>) {
        self.log(LogLevel::Debug, message);
    }

    /// [`log`](Self::log) at `info`.
    pub fn info(&self, message: impl AsRef<str>) {
        self.log(LogLevel::Info, message);
    }

    /// [`log`](Self::log) at `warning`.
    pub fn warning(&self, message: impl AsRef<str>) {
        self.log(LogLevel::Warning, message);
    }

    /// [`log`](Self::log) at `error`.
    pub fn error(&self, message: impl AsRef<str>) {
        self.log(LogLevel::Error, message);
    }

    /// This call, with its progress and log messages sent to `sink` (a transport's).
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
    pub(crate) fn with_sink(self, sink: Arc<dyn Sink>) -> Self {
        self.map(|i| {
            i.live = Live::new(Some(sink));
            i.parent = None;
        })
    }

    /// The call ends: a progress report held back by the rate bound is sent now.
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
    pub(crate) fn flush(&self) {
        self.inner.live().flush(self);
    }
}

impl Live {
    pub(super) fn progress(&self, cx: &Context, done: f64, total: Option<f64>, message: Option<&str>) {
        if !done.is_finite() || total.is_some_and(|t| !t.is_finite()) {
            return;
        }
        let note = Progress {
            done,
            total,
            message: message.map(|m| crate::words::budget::cut_text(m, MAX_PROGRESS_CHARS, 4 * MAX_PROGRESS_CHARS)),
        };
        let now = Instant::now();
        let send = {
            let mut rate = lock(&self.progress);
            if rate.last.is_some_and(|last| done <= last) {
                return;
            }
            rate.last = Some(done);
            let last = total.is_some_and(|t| done >= t);
            if !last && rate.sent_at.is_some_and(|at| now.duration_since(at) < PROGRESS_INTERVAL) {
                rate.held = Some(note);
                return;
            }
            rate.held = None;
            rate.sent_at = Some(now);
            note
        };
        self.send_progress(cx, send);
    }

    pub(super) fn flush(&self, cx: &Context) {
        let held = lock(&self.progress).held.take();
        if let Some(note) = held {
            self.send_progress(cx, note);
        }
    }

    fn send_progress(&self, cx: &Context, note: Progress) {
        match &self.sink {
            Some(sink) => sink.progress(note),
            None => trace_progress(cx, &note),
        }
    }

    pub(super) fn log(&self, cx: &Context, level: LogLevel, message: &str) {
        match &self.sink {
            Some(sink) => {
                if sink.log_level().is_some_and(|least| level >= least) {
                    sink.log(level, cut_bytes(message, MAX_LOG_BYTES));
                }
            }
            None => trace_log(cx, level, &cut_bytes(message, MAX_LOG_BYTES)),
        }
    }
}

/// `text` cut to at most `max` bytes at a character boundary, ending `…` when cut.
fn cut_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// A progress report no client receives, to `tracing` at `debug`: a tool reports progress many
/// times a call, which a server logging at `info` (one line a call) does not want.
fn trace_progress(cx: &Context, note: &Progress) {
    tracing::debug!(
        target: "envelope::tool",
        call_id = cx.call_id(),
        progress = note.done,
        total = note.total,
        message = note.message.as_deref(),
        "progress"
    );
}

fn trace_log(cx: &Context, level: LogLevel, message: &str) {
    let call_id = cx.call_id();
    match level {
        LogLevel::Debug => tracing::debug!(target: "envelope::tool", call_id, "{message}"),
        LogLevel::Info | LogLevel::Notice => tracing::info!(target: "envelope::tool", call_id, "{message}"),
        LogLevel::Warning => tracing::warn!(target: "envelope::tool", call_id, "{message}"),
        _ => tracing::error!(target: "envelope::tool", call_id, level = level.as_str(), "{message}"),
    }
}
