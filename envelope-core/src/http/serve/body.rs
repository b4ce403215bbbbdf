//! A request body under the server's bounds: the shared byte budget, its deadline and minimum
//! rate, and its request's place in flight once it is read.

use std::error::Error as StdError;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::body::Bytes;
use hyper::body::{Frame, Incoming, SizeHint};

use crate::http::transport::BodyRefused;

use super::in_flight::Place;
use super::peers::{LOG_TARGET, PeerCounts};
use super::shared::{Shared, UNCOUNTED_BODY_BYTES};

pub(super) type BoxError = Box<dyn StdError + Send + Sync>;

/// A request body under the server's bounds: its chunks counted against the shared budget as
/// they arrive (released when the body is dropped), its deadline and minimum rate, and, once
/// read whole, its request's place in flight.
pub(super) struct Budgeted {
    inner: Incoming,
    shared: Arc<Shared>,
    peer: SocketAddr,
    /// Bytes of the body that have arrived.
    seen: usize,
    /// Of them, those counted against the budget.
    held: usize,
    /// When the body began (the end of its head), and when its time is up.
    began: tokio::time::Instant,
    due: Option<tokio::time::Instant>,
    /// Its timer, started the first time the body is waited for: a body that has arrived
    /// with its head (most) is read without one.
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    failed: bool,
    /// The request's place in flight, taken once the body has ended, and the count of the
    /// address's bodies being read (left then, or when the body is dropped unread).
    slot: Option<Place>,
    bodies: Option<Arc<PeerCounts>>,
    /// The wait for a place in flight, once the body has ended.
    queued: Option<Taking>,
    ended: bool,
}

/// A request's wait for its place in flight ([`Place::take`]).
pub(super) type Taking = Pin<Box<dyn Future<Output = Result<(), BodyRefused>> + Send>>;

impl Budgeted {
    pub(super) fn new(
        inner: Incoming,
        shared: Arc<Shared>,
        peer: SocketAddr,
        after_body: Option<(Place, Arc<PeerCounts>)>,
    ) -> Self {
        use hyper::body::Body as _;
        let began = tokio::time::Instant::now();
        // No deadline for a request without a body (most GETs).
        let due = (!inner.is_end_stream()).then(|| began + shared.limits.body_read_timeout);
        let (slot, bodies) = match after_body {
            Some((slot, bodies)) => (Some(slot), Some(bodies)),
            None => (None, None),
        };
        Budgeted {
            inner,
            shared,
            peer,
            seen: 0,
            held: 0,
            began,
            due,
            deadline: None,
            failed: false,
            slot,
            bodies,
            queued: None,
            ended: false,
        }
    }

    /// When the body's time is up now: its timeout, or sooner where the bytes seen so far fall
    /// under the minimum rate (a second after the head at the soonest).
    fn due_now(&self) -> Option<tokio::time::Instant> {
        let due = self.due?;
        let rate = self.shared.limits.min_data_rate;
        if rate == 0 {
            return Some(due);
        }
        let ms = (self.seen as u64).saturating_mul(1000) / rate as u64;
        Some(due.min(self.began + Duration::from_millis(ms.max(1000))))
    }

    fn timed_out(&mut self) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let limits = &self.shared.limits;
        if self.due.is_some_and(|due| tokio::time::Instant::now() < due) {
            let min_rate = limits.min_data_rate;
            return self.fail(BodyRefused::TooSlow { min_rate });
        }
        let limit_ms = u64::try_from(limits.body_read_timeout.as_millis()).unwrap_or(u64::MAX);
        self.fail(BodyRefused::Timeout { limit_ms })
    }

    /// The body is read (or given up): it no longer counts among its address's.
    fn leave_bodies(&mut self) {
        if let Some(counts) = self.bodies.take() {
            counts.bodies.fetch_sub(1, Ordering::AcqRel);
        }
    }

    fn fail(&mut self, refused: BodyRefused) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        self.failed = true;
        self.due = None;
        self.deadline = None;
        self.leave_bodies();
        match &refused {
            BodyRefused::Timeout { .. } | BodyRefused::TooSlow { .. } => {
                tracing::info!(target: LOG_TARGET, peer = %self.peer, "request body refused: {refused}");
            }
            BodyRefused::Budget { .. } | BodyRefused::Busy { .. } | BodyRefused::RateLimited { .. } => {
                tracing::warn!(target: LOG_TARGET, peer = %self.peer, "request body refused: {refused}");
            }
        }
        Poll::Ready(Some(Err(Box::new(refused))))
    }

    /// The body has ended: its request takes its place in flight, waiting in the queue at
    /// most [`IN_FLIGHT_QUEUE_WAIT`](super::in_flight::IN_FLIGHT_QUEUE_WAIT) (and only while the queue is shorter than the places).
    fn poll_slot(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        self.leave_bodies();
        let Some(place) = self.slot.clone() else { return Poll::Ready(None) };
        if self.queued.is_none() {
            // A place held already, or a free one, is taken here; only a wait in the queue is
            // a future (boxed).
            match place.take_now() {
                Ok(true) => return Poll::Ready(None),
                Ok(false) => self.queued = Some(Box::pin(place.take())),
                Err(refused) => return self.fail(refused),
            }
        }
        let queued = self.queued.as_mut().expect("set above");
        let taken = ready!(queued.as_mut().poll(cx));
        self.queued = None;
        match taken {
            Ok(()) => Poll::Ready(None),
            Err(refused) => self.fail(refused),
        }
    }
}

impl hyper::body::Body for Budgeted {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if this.failed {
            return Poll::Ready(None);
        }
        if this.ended {
            return this.poll_slot(cx);
        }
        let due_now = this.due_now();
        if let Some(deadline) = &mut this.deadline
            && deadline.as_mut().poll(cx).is_ready()
        {
            // Set for a sooner deadline than the bytes since seen give: moved on to theirs.
            match due_now {
                Some(due) if tokio::time::Instant::now() < due => {
                    deadline.as_mut().reset(due);
                    if deadline.as_mut().poll(cx).is_ready() {
                        return this.timed_out();
                    }
                }
                _ => return this.timed_out(),
            }
        }
        let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) else {
            // Waiting for the body: under its timer from now on (registered with this task).
            if this.deadline.is_none()
                && let Some(due) = this.due_now()
            {
                let mut deadline = Box::pin(tokio::time::sleep_until(due));
                if deadline.as_mut().poll(cx).is_ready() {
                    return this.timed_out();
                }
                this.deadline = Some(deadline);
            }
            return Poll::Pending;
        };
        match frame {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    // The first UNCOUNTED_BODY_BYTES of each body are outside the budget: the
                    // bodies an address sends at once bound them, and small requests pass
                    // while large bodies hold the budget.
                    let seen = this.seen + data.len();
                    let bytes =
                        seen.saturating_sub(UNCOUNTED_BODY_BYTES) - this.seen.saturating_sub(UNCOUNTED_BODY_BYTES);
                    this.seen = seen;
                    if !this.shared.budget.take(bytes) {
                        let refused = BodyRefused::Budget {
                            limit_bytes: this.shared.limits.body_budget_bytes,
                            retry_after_seconds: this.shared.limits.retry_after_seconds,
                        };
                        return this.fail(refused);
                    }
                    this.held += bytes;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Some(Err(e)) => Poll::Ready(Some(Err(Box::new(e)))),
            None => {
                this.due = None;
                this.deadline = None;
                this.ended = true;
                this.poll_slot(cx)
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.failed || (self.inner.is_end_stream() && self.slot.as_ref().is_none_or(Place::held))
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Budgeted {
    fn drop(&mut self) {
        self.shared.budget.release(self.held);
        self.leave_bodies();
    }
}
