//! Places in flight and per-caller shares: a request's place under `max_in_flight`, the short
//! queue for it, the caller's share, and the place given up while a verification waits on a
//! JWKS refetch.

use std::collections::hash_map::Entry;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::OwnedSemaphorePermit;

use crate::http::transport::BodyRefused;
use crate::http::transport::TransportError;

use super::peers::{CountedIn, PeerCounts};
use super::shared::Shared;

impl Shared {
    /// One more place for the verified caller `key`, unless it holds its share.
    fn enter_caller(&self, key: &Arc<str>) -> bool {
        let mut callers = self.callers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let held = callers.entry(Arc::clone(key)).or_insert(0);
        if *held >= self.share {
            return false;
        }
        *held += 1;
        true
    }

    fn leave_caller(&self, key: &Arc<str>) {
        let mut callers = self.callers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Entry::Occupied(mut held) = callers.entry(Arc::clone(key)) {
            *held.get_mut() -= 1;
            if *held.get() == 0 {
                held.remove();
            }
        }
    }
}

/// Whose share of the places in flight a request's place is counted under: the caller the
/// [`AuthLayer`](crate::http::AuthLayer) verified ([`Caller::quota_key`](crate::Caller::quota_key)),
/// else the peer's address. An address's places are counted in the
/// [`PeerCounts`](super::peers::PeerCounts) its connections hold, a caller's in
/// [`Shared::callers`](super::shared::Shared::callers).
enum ShareKey {
    /// An unverified request's peer address: in which of its counts
    /// ([`Registry::enter`](super::peers::Registry::enter)).
    Peer(CountedIn),
    /// A verified caller's key.
    Caller(Arc<str>),
}

/// A request's place under `max_in_flight`, shared by its answer, its body and the layers
/// before its route (a request extension): taken with its head for a request without a body,
/// once its body is read whole for one with a body; released when the last of them drops it.
/// Its caller's count under [`Serve::max_in_flight_per_caller`](super::Serve::max_in_flight_per_caller) goes with it: the caller the
/// [`AuthLayer`](crate::http::AuthLayer) verified ([`Place::identified`]), else the peer's address
/// (its [`PeerCounts`], held by the connection: no lookup per request).
/// The layer gives the place up while a verification waits (a JWKS refetch) and takes it again,
/// through the queue, once the caller is verified.
#[derive(Clone)]
pub(crate) struct Place(Arc<PlaceInner>);

pub(super) struct PlaceInner {
    shared: Arc<Shared>,
    peer: std::net::IpAddr,
    /// What the peer's connections count together: its share's places among them.
    counts: Arc<PeerCounts>,
    state: std::sync::Mutex<PlaceState>,
}

#[derive(Default)]
pub(super) struct PlaceState {
    permit: Option<OwnedSemaphorePermit>,
    /// The verified caller's key ([`Caller::quota_key`](crate::Caller::quota_key)).
    caller: Option<Arc<str>>,
    /// The share the place is counted under.
    counted: Option<ShareKey>,
    /// Given up while a verification waited: taken again after it.
    given_up: bool,
}

impl Drop for PlaceInner {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(key) = state.counted.take() {
            self.leave(&key);
        }
    }
}

impl PlaceInner {
    /// One more place under the verified caller's share, or the peer address's: the share it
    /// is counted under, `None` when that share is full.
    fn enter(&self, caller: Option<Arc<str>>) -> Option<ShareKey> {
        match caller {
            Some(key) => self.shared.enter_caller(&key).then_some(ShareKey::Caller(key)),
            None => self.shared.registry.enter(self.peer, &self.counts, self.shared.share).map(ShareKey::Peer),
        }
    }

    fn leave(&self, key: &ShareKey) {
        match key {
            ShareKey::Peer(CountedIn::Own) => self.shared.registry.place_left(self.peer, &self.counts),
            ShareKey::Peer(CountedIn::Newer(counts)) => self.shared.registry.place_left(self.peer, counts),
            ShareKey::Caller(key) => self.shared.leave_caller(key),
        }
    }
}

impl Place {
    /// A place of a request from `peer`, whose connections count together in `counts`
    /// ([`Registry::add`](super::peers::Registry::add)).
    pub(super) fn new(shared: Arc<Shared>, peer: std::net::IpAddr, counts: Arc<PeerCounts>) -> Place {
        Place(Arc::new(PlaceInner { shared, peer, counts, state: std::sync::Mutex::new(PlaceState::default()) }))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, PlaceState> {
        self.0.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn held(&self) -> bool {
        self.state().permit.is_some()
    }

    /// Counts the place under its caller's share.
    fn enter(&self, state: &mut PlaceState) -> Result<(), BodyRefused> {
        if state.counted.is_some() {
            return Ok(());
        }
        let Some(key) = self.0.enter(state.caller.clone()) else {
            return Err(self.rate_limited());
        };
        state.counted = Some(key);
        Ok(())
    }

    fn leave(&self, state: &mut PlaceState) {
        if let Some(key) = state.counted.take() {
            self.0.leave(&key);
        }
    }

    fn rate_limited(&self) -> BodyRefused {
        let limits = &self.0.shared.limits;
        BodyRefused::RateLimited { share: self.0.shared.share, retry_after_seconds: limits.retry_after_seconds }
    }

    fn busy(&self) -> BodyRefused {
        let limits = &self.0.shared.limits;
        BodyRefused::Busy { max_in_flight: limits.max_in_flight, retry_after_seconds: limits.retry_after_seconds }
    }

    /// Takes a place now, if one is free (or is held already): `Ok(false)` when none is.
    pub(super) fn take_now(&self) -> Result<bool, BodyRefused> {
        let mut state = self.state();
        if state.permit.is_some() {
            return Ok(true);
        }
        self.enter(&mut state)?;
        match Arc::clone(&self.0.shared.in_flight).try_acquire_owned() {
            Ok(permit) => {
                state.permit = Some(permit);
                Ok(true)
            }
            Err(_) => {
                self.leave(&mut state);
                Ok(false)
            }
        }
    }

    /// Takes a place, waiting in the queue at most [`IN_FLIGHT_QUEUE_WAIT`].
    pub(super) async fn take(self) -> Result<(), BodyRefused> {
        if self.take_now()? {
            return Ok(());
        }
        self.enter(&mut self.state())?;
        match queued_place(Arc::clone(&self.0.shared)).await {
            Some(permit) => {
                self.state().permit = Some(permit);
                Ok(())
            }
            None => {
                self.leave(&mut self.state());
                Err(self.busy())
            }
        }
    }

    /// The answer is a `GET`'s event stream (`text/event-stream`): its place under
    /// `max_in_flight` is given back (an open stream waits for events, it is not a request being
    /// worked on), and its count under its caller's share ([`Serve::max_in_flight_per_caller`](super::Serve::max_in_flight_per_caller))
    /// is kept until the stream ends, so that one caller holds at most its share of streams. A
    /// `POST`'s event stream keeps both: it carries a request still being worked on.
    pub(super) fn streaming(&self) {
        self.state().permit = None;
    }

    /// A verification is about to wait: the place, if held, is given up until
    /// [`identified`](Self::identified).
    pub(crate) fn give_up(&self) {
        let mut state = self.state();
        if state.permit.take().is_some() {
            state.given_up = true;
        }
        self.leave(&mut state);
    }

    /// The caller is verified: `Some(key)` a caller with a subject, counted under that caller's
    /// share from now on; `None` an anonymous one (a hook that verified no subject), counted
    /// under its address still, so anonymous callers at different addresses never share one
    /// share. Either way the place is taken again, through the queue, if it was given up while
    /// the verification waited.
    ///
    /// # Errors
    /// `rate_limited` (429) when the caller already holds its share; `service_unavailable`
    /// (503) when no place came within the queue's wait. Either with `Retry-After`.
    pub(crate) async fn identified(&self, key: Option<&str>) -> Result<(), TransportError> {
        let retake = {
            let mut state = self.state();
            if let Some(key) = key {
                state.caller = Some(key.into());
                let moved = state.counted.as_ref().is_some_and(|c| !matches!(c, ShareKey::Caller(c) if **c == *key));
                if moved {
                    self.leave(&mut state);
                    if let Err(refused) = self.enter(&mut state) {
                        state.permit = None;
                        return Err(refused.transport_error());
                    }
                }
            }
            std::mem::take(&mut state.given_up)
        };
        if retake {
            self.clone().take().await.map_err(|refused| refused.transport_error())?;
        }
        Ok(())
    }
}

/// A place in flight: at once, or after waiting in the queue at most
/// [`IN_FLIGHT_QUEUE_WAIT`] (when the queue is shorter than the places); `None` past it.
pub(super) async fn queued_place(shared: Arc<Shared>) -> Option<OwnedSemaphorePermit> {
    if let Ok(permit) = Arc::clone(&shared.in_flight).try_acquire_owned() {
        return Some(permit);
    }
    let _place = Queued::join(&shared)?;
    let in_flight = Arc::clone(&shared.in_flight);
    tokio::time::timeout(IN_FLIGHT_QUEUE_WAIT, in_flight.acquire_owned()).await.ok()?.ok()
}

/// How long a request whose body is read waits for a place in flight before it is answered
/// `503`: a burst of calls is queued briefly rather than refused.
pub(super) const IN_FLIGHT_QUEUE_WAIT: Duration = Duration::from_secs(1);

/// A place in the queue for a place in flight: at most `max_in_flight` requests wait at once.
pub(super) struct Queued(Arc<Shared>);

impl Queued {
    fn join(shared: &Arc<Shared>) -> Option<Queued> {
        let max = shared.limits.max_in_flight;
        shared
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < max).then_some(n + 1))
            .ok()
            .map(|_| Queued(Arc::clone(shared)))
    }
}

impl Drop for Queued {
    fn drop(&mut self) {
        self.0.queued.fetch_sub(1, Ordering::AcqRel);
    }
}
