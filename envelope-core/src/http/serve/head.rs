//! The header read timeout and minimum head rate of one connection ([`HeadClock`]).

use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::Context;
use std::time::Duration;

use super::peers::{BUSY, DONE, LOG_TARGET, REARM, Tracked, WAITING, millis_since_epoch};

/// The header read timeout of one connection ([`Serve::header_read_timeout`](super::Serve::header_read_timeout)): from when the
/// connection opens, and from a response's last byte written, the next head must arrive whole
/// within the timeout, or the connection is closed unanswered. One timer per connection (hyper's
/// own timeout makes and drops one per request), moved on lazily: each wait for a head only
/// notes when it began, and a timer that fires before that wait's deadline is moved to it then,
/// so a connection answering many requests a second resets its timer about once a timeout.
pub(super) struct HeadClock {
    timeout: Duration,
    /// Fires at or before the deadline of the wait in progress.
    pub(super) sleep: Pin<Box<tokio::time::Sleep>>,
    /// When the wait in progress began: its deadline is this plus `timeout`.
    since: tokio::time::Instant,
    /// The timer was polled since it was last set: it wakes this task when it fires.
    registered: bool,
    /// `phase`: `REARM` on a new connection; `BUSY` from a head's arrival (set by
    /// [`PerRequest`](super::request::PerRequest)), `DONE` once its response's body is dropped by hyper ([`Ended`](super::request::Ended)),
    /// `WAITING` once flushed.
    tracked: Arc<Tracked>,
    peer: SocketAddr,
    /// [`Serve::min_data_rate`](super::Serve::min_data_rate), and the first byte of the head awaited, with the bytes read
    /// since (a head under the rate is closed as one past its timeout).
    min_rate: usize,
    first: Option<tokio::time::Instant>,
    bytes: usize,
}

/// The error a connection whose head did not arrive in time ends with.
#[derive(Debug)]
pub(super) struct HeadTimedOut;

impl fmt::Display for HeadTimedOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no whole request head within the header read timeout")
    }
}

impl StdError for HeadTimedOut {}

impl HeadClock {
    pub(super) fn new(timeout: Duration, min_rate: usize, tracked: Arc<Tracked>, peer: SocketAddr) -> Self {
        let since = tokio::time::Instant::now();
        let sleep = Box::pin(tokio::time::sleep_until(since + timeout));
        HeadClock { timeout, sleep, since, registered: false, tracked, peer, min_rate, first: None, bytes: 0 }
    }

    /// The deadline of the wait in progress: its timeout, or earlier where the head's bytes
    /// fall under the minimum rate (one second after its first byte at the soonest).
    fn due(&self) -> tokio::time::Instant {
        let limit = self.since + self.timeout;
        match self.first {
            Some(first) if self.min_rate > 0 => {
                let ms = (self.bytes as u64).saturating_mul(1000) / self.min_rate as u64;
                limit.min(first + Duration::from_millis(ms.max(1000)))
            }
            _ => limit,
        }
    }

    /// A new wait for a head begins now.
    fn begin(&mut self) {
        self.since = tokio::time::Instant::now();
        self.first = None;
        self.bytes = 0;
        self.tracked.started.store(false, Ordering::Relaxed);
        self.tracked.since_ms.store(millis_since_epoch(self.since.into_std()), Ordering::Relaxed);
    }

    /// `n` bytes of the awaited head arrived.
    pub(super) fn received(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        self.bytes = self.bytes.saturating_add(n);
        if self.first.is_none() {
            self.first = Some(tokio::time::Instant::now());
            self.tracked.started.store(true, Ordering::Relaxed);
        }
    }

    /// The head is unfinished (more of it awaited after some bytes): the timer is brought
    /// forward to the minimum rate's deadline if that is sooner. A head that arrives whole
    /// (the usual) never moves the timer here.
    pub(super) fn bring_forward(&mut self) {
        if self.first.is_some() && self.min_rate > 0 {
            let due = self.due();
            if self.sleep.deadline() > due {
                self.sleep.as_mut().reset(due);
                self.registered = false;
            }
        }
    }

    /// Polls the timer (registering it with this task): whether it fired.
    pub(super) fn poll_fired(&mut self, cx: &mut Context<'_>) -> bool {
        self.registered = true;
        self.sleep.as_mut().poll(cx).is_ready()
    }

    /// The timer fired while a head is awaited: whether the wait's deadline has passed; if not
    /// (the timer was set for an earlier wait), the timer is moved to it.
    pub(super) fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        let due = self.due();
        if tokio::time::Instant::now() >= due {
            return true;
        }
        self.sleep.as_mut().reset(due);
        // Registered with this task at its new deadline (not yet due, so pending).
        let _ = self.poll_fired(cx);
        false
    }

    /// Whether a head is awaited; its deadline set from now if it is to be.
    pub(super) fn waiting(&mut self) -> bool {
        match self.tracked.phase.load(Ordering::Relaxed) {
            BUSY | DONE => false,
            WAITING => true,
            _ => {
                self.begin();
                self.sleep.as_mut().reset(self.since + self.timeout);
                self.registered = false;
                // Unless a head arrived meanwhile (on this same task, so it cannot have).
                let _ = self.tracked.phase.compare_exchange(REARM, WAITING, Ordering::Relaxed, Ordering::Relaxed);
                true
            }
        }
    }

    /// Everything hyper wrote reached the socket: once a response is written whole, a head is
    /// awaited from now, and the task woken at its deadline (hyper may not read again before).
    pub(super) fn flushed(&mut self, cx: &mut Context<'_>) {
        if self.tracked.phase.compare_exchange(DONE, WAITING, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
            self.begin();
            // A timer still to fire fires before this wait's deadline (`expired` moves it on
            // then); one that fired is set to this deadline. Either is registered with this
            // task now: hyper may not read again before the deadline, and a timer never polled
            // (the connection's first head was there at its first read) would wake nothing.
            // (A timer that fires as it is polled here is set to this deadline too.)
            if self.sleep.is_elapsed() || (!self.registered && self.poll_fired(cx)) {
                self.sleep.as_mut().reset(self.since + self.timeout);
                let _ = self.poll_fired(cx);
            }
        }
    }

    /// The deadline passed: logged once, and the error the read ends with.
    pub(super) fn end(&mut self) -> io::Error {
        if self.tracked.phase.swap(BUSY, Ordering::Relaxed) != BUSY {
            if tokio::time::Instant::now() < self.since + self.timeout {
                tracing::info!(
                    target: LOG_TARGET,
                    peer = %self.peer,
                    "connection closed: a request head arriving under {} bytes a second ({} bytes)",
                    self.min_rate,
                    self.bytes
                );
            } else {
                tracing::info!(
                    target: LOG_TARGET,
                    peer = %self.peer,
                    "connection closed: no whole request head within {} ms",
                    self.timeout.as_millis()
                );
            }
        }
        io::Error::new(io::ErrorKind::TimedOut, HeadTimedOut)
    }

    /// Whether hyper's connection ended with [`end`](Self::end)'s error.
    pub(super) fn ended(e: &hyper::Error) -> bool {
        let mut cause = StdError::source(e);
        while let Some(c) = cause {
            if c.downcast_ref::<HeadTimedOut>().is_some() {
                return true;
            }
            if let Some(io) = c.downcast_ref::<io::Error>()
                && io.get_ref().is_some_and(|inner| inner.is::<HeadTimedOut>())
            {
                return true;
            }
            cause = c.source();
        }
        false
    }
}
