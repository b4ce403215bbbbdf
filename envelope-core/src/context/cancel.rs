//! A call's cancellation: by the client, a dropped connection, its timeout or the server; the
//! [`Cancelled`] future; a call cancelled when the future waiting for it is dropped.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{self, Poll};
use std::time::{Duration, Instant};

use super::live::lock;
use super::{Context, Inner};

/// What a tool's body sees of its call while it runs: cancellation, progress, log messages.
///
/// These work on every surface. Over MCP (stdio and Streamable HTTP) progress becomes
/// `notifications/progress` and log messages `notifications/message` to the client (see
/// [`crate::mcp`]); over the plain HTTP endpoints and [`Toolbox::call`](crate::Toolbox::call)
/// they go to `tracing` (target `envelope::tool`, with the field `call_id`).
impl Context {
    /// Whether the call was cancelled: by the client (MCP `notifications/cancelled`), by a
    /// dropped connection (Streamable HTTP, `POST /tools/...`), by its timeout
    /// (`#[tool(timeout_ms = N)]`, sync bodies too), by the server shutting down under it, or
    /// by [`cancel`](Self::cancel). One atomic load (and a clock read when the call has a
    /// timeout): cheap enough to check on every step of a sync loop.
    ///
    /// Nothing stops a body by force: a sync body that never checks runs to its end (its
    /// envelope is then dropped, or answered `TIMEOUT`); an async body is dropped at its next
    /// `.await` when its call is cancelled.
    ///
    /// ```
    /// use envelope_core::Context;
    ///
    /// let cx = Context::anonymous();
    /// assert!(!cx.is_cancelled());
    /// cx.clone().cancel();
    /// assert!(cx.is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        self.inner.live().is_cancelled()
    }

    /// A future that completes when the call is cancelled (see
    /// [`is_cancelled`](Self::is_cancelled)); at once if it already was. For an async body:
    /// `tokio::select! { r = work() => r, () = cx.cancelled() => ... }`. It owns what it needs
    /// (`'static`), so a task the body spawns can hold it. A call's timeout makes it complete
    /// where the call's future is polled by a timer (`timeout_ms` on an async tool cancels the
    /// call when it fires); a sync body reads [`is_cancelled`](Self::is_cancelled), which
    /// counts the timeout by the clock.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled { inner: Arc::clone(&self.inner), slot: None }
    }

    /// Cancels the call: every clone of this context sees it, every [`cancelled`](Self::cancelled)
    /// future completes. The transports call it; a server of your own can too.
    pub fn cancel(&self) {
        self.inner.live().cancel();
    }

    /// The call times out `ms` milliseconds from now (a deadline already set is kept when
    /// earlier): [`is_cancelled`](Self::is_cancelled) is then true.
    pub(crate) fn time_out_in(&self, ms: u64) {
        let at = Instant::now().checked_add(Duration::from_millis(ms));
        if let Some(at) = at {
            let _ = self.inner.live().deadline.set(at);
        }
    }

    /// When the call times out, if it has a timeout.
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))]
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.inner.live().deadline.get().copied()
    }

    /// Whether the call's timeout has passed.
    pub(crate) fn timed_out(&self) -> bool {
        self.inner.live().deadline.get().is_some_and(|d| Instant::now() >= *d)
    }

    /// A guard that cancels this call when dropped before [`CancelOnDrop::disarm`]: a
    /// transport holds one while it waits, so a dropped connection or a runtime shutting down
    /// (which drop the waiting future) cancels the call.
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))]
    pub(crate) fn cancel_on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(Some(self.clone()))
    }
}

/// Cancels its call when dropped, unless disarmed.
pub(crate) struct CancelOnDrop(Option<Context>);

impl CancelOnDrop {
    /// The call ended: dropping the guard cancels nothing.
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))]
    pub(crate) fn disarm(mut self) {
        self.0 = None;
    }
}

#[cfg(feature = "http")]
pin_project_lite::pin_project! {
    /// `future`, its call's context cancelled before it is dropped unfinished (a dropped
    /// connection): an async body dropped with it sees `cx.is_cancelled()`. The future is held
    /// in place, where a future named and pinned in its caller's would keep its room there
    /// past its await.
    pub(crate) struct CancelFirst<F> {
        // Dropped first (fields drop in order): the context is cancelled, then the future dropped.
        guard: CancelOnDrop,
        #[pin]
        future: F,
    }
}

#[cfg(feature = "http")]
impl<F: std::future::Future> std::future::Future for CancelFirst<F> {
    type Output = F::Output;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<F::Output> {
        let this = self.project();
        let output = std::task::ready!(this.future.poll(cx));
        // Finished: nothing to cancel.
        this.guard.0 = None;
        std::task::Poll::Ready(output)
    }
}

#[cfg(feature = "http")]
impl Context {
    /// `future`, this call cancelled first if it is dropped unfinished.
    pub(crate) fn cancel_first<F: std::future::Future>(&self, future: F) -> CancelFirst<F> {
        CancelFirst { guard: self.cancel_on_drop(), future }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cx) = self.0.take() {
            cx.cancel();
        }
    }
}

/// The future of [`Context::cancelled`]: completes when the call is cancelled.
#[must_use = "a future does nothing unless awaited"]
pub struct Cancelled {
    inner: Arc<Inner>,
    slot: Option<usize>,
}

impl fmt::Debug for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancelled").field("cancelled", &self.inner.live().is_cancelled()).finish()
    }
}

impl Future for Cancelled {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<()> {
        if self.inner.live().is_cancelled() {
            return Poll::Ready(());
        }
        let inner = Arc::clone(&self.inner);
        let live = inner.live();
        let mut wakers = lock(&live.wakers);
        // Checked again under the lock: `cancel` sets the flag before it takes the wakers.
        if live.cancelled.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        let slot = match self.slot {
            Some(slot) => slot,
            None => match wakers.iter().position(Option::is_none) {
                Some(free) => free,
                None => {
                    wakers.push(None);
                    wakers.len() - 1
                }
            },
        };
        wakers[slot] = Some(cx.waker().clone());
        drop(wakers);
        self.slot = Some(slot);
        Poll::Pending
    }
}

impl Drop for Cancelled {
    fn drop(&mut self) {
        if let Some(slot) = self.slot
            && let Some(w) = lock(&self.inner.live().wakers).get_mut(slot)
        {
            *w = None;
        }
    }
}
