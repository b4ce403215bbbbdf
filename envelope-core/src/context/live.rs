//! The live part of a call, shared by every clone of its context: cancelled or not, its
//! deadline, the wakers of its `Cancelled` futures, where its progress and log messages go.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Waker;
use std::time::Instant;

use serde_json::Value;

use super::messages::{LogLevel, Progress, Rate};
use super::requests::{Asked, ClientAsk, ClientError};

/// Where a call's progress and log messages go (a transport's channel to its client).
pub(crate) trait Sink: Send + Sync {
    /// Sends `ask` with `params` to the client, under `key` where the answer comes back keyed
    /// (2026-07-28 input requests); by default there is none to ask.
    fn ask(&self, ask: ClientAsk, key: Option<&str>, params: Value) -> Asked {
        let _ = (ask, key, params);
        Box::pin(async { Err(ClientError::Unavailable) })
    }

    /// Whether [`ask`](Self::ask) can reach the client with `ask` (declared and carried).
    fn can_ask(&self, ask: ClientAsk) -> bool {
        let _ = ask;
        false
    }
    /// Sends a progress report (already checked: increasing, within the rate).
    fn progress(&self, note: Progress);
    /// The least severe level the client receives; `None`: no log message is sent.
    fn log_level(&self) -> Option<LogLevel>;
    /// Sends a log message at or above [`log_level`](Self::log_level) (already cut).
    fn log(&self, level: LogLevel, message: String);

    /// Whether an async or guarded body waits for [`body_may_start`](Self::body_may_start)
    /// before it runs (an MCP task is created only once the pipeline reaches the body: a call
    /// refused or answered before it never becomes a task).
    fn waits_before_body(&self) -> bool {
        false
    }

    /// Told once, when the pipeline has read the call and its policy allowed it, just before the
    /// body runs: `Some(future)` the body waits for, `true` to run, `false` to run nothing.
    fn body_may_start(&self) -> Option<BodyStart> {
        None
    }
}

/// What a body waits for before it runs ([`Sink::body_may_start`]): `true` to run.
pub(crate) type BodyStart = std::pin::Pin<Box<dyn std::future::Future<Output = bool> + Send>>;

/// The live part of a call, shared by every clone of its context.
pub(super) struct Live {
    pub(super) cancelled: AtomicBool,
    /// The wakers of pending [`Cancelled`] futures, by slot (`None`: a free slot).
    pub(super) wakers: Mutex<Vec<Option<Waker>>>,
    pub(super) deadline: OnceLock<Instant>,
    pub(super) sink: Option<Arc<dyn Sink>>,
    pub(super) progress: Mutex<Rate>,
}

impl Live {
    pub(super) fn new(sink: Option<Arc<dyn Sink>>) -> Self {
        Live {
            cancelled: AtomicBool::new(false),
            wakers: Mutex::new(Vec::new()),
            deadline: OnceLock::new(),
            sink,
            progress: Mutex::new(Rate::default()),
        }
    }

    /// As [`Live::new`] made it without a sink, keeping the memory it holds.
    pub(super) fn renew(&mut self) {
        *self.cancelled.get_mut() = false;
        self.wakers.clear_poison();
        self.progress.clear_poison();
        self.wakers.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).clear();
        if self.deadline.get().is_some() {
            self.deadline = OnceLock::new();
        }
        let rate = self.progress.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        if rate.last.is_some() || rate.sent_at.is_some() || rate.held.is_some() {
            *rate = Rate::default();
        }
    }

    pub(super) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire) || self.deadline.get().is_some_and(|d| Instant::now() >= *d)
    }

    pub(super) fn cancel(&self) {
        self.cancelled.store(true, Ordering::Release);
        let wakers: Vec<Waker> = lock(&self.wakers).iter_mut().filter_map(Option::take).collect();
        for w in wakers {
            w.wake();
        }
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
