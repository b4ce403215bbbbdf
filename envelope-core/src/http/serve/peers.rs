//! The open connections by peer address: the unfinished heads each address holds, the
//! connection closed to make room, each address's bodies being read and places in flight; the
//! phases of a connection's head clock, and the one log target of the server.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

/// The target of every event the server logs, whichever of its files writes it.
pub(super) const LOG_TARGET: &str = "envelope_core::http::serve";

/// [`HeadClock`](super::head::HeadClock) phases: a request is being answered (no header timeout); its response's body
/// is written to hyper's buffer (the wait starts once it is flushed to the socket); a new
/// connection's first head is awaited (its deadline set at the first read); a head is awaited
/// (its deadline set).
pub(super) const BUSY: u8 = 0;
pub(super) const DONE: u8 = 1;
pub(super) const REARM: u8 = 2;
pub(super) const WAITING: u8 = 3;

/// The open connections of one server, by peer address: what the fair bounds read.
#[derive(Default)]
pub(super) struct Registry {
    peers: std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, Peer>>,
    /// Connections closed to make room and not yet gone, and the new connections waiting for
    /// the places they leave.
    evicted: AtomicUsize,
    claimed: AtomicUsize,
    /// The server stops ([`stop_all`](Self::stop_all)).
    stopping: std::sync::atomic::AtomicBool,
}

/// One peer address's open connections, and what they count together.
#[derive(Default)]
pub(super) struct Peer {
    connections: Vec<Arc<Tracked>>,
    counts: Arc<PeerCounts>,
}

/// Where a place of an address is counted ([`Registry::enter`]).
pub(super) enum CountedIn {
    /// The counts its connection was given (the usual case: nothing held but the place's own).
    Own,
    /// The counts of a connection of the address opened after the place's own had ended.
    Newer(Arc<PeerCounts>),
}

/// What the connections of one peer address count together, held by each of them (and by each
/// request's [`Place`](super::in_flight::Place)): counted per request without a lookup of the
/// address. The registry keeps an address while it has a connection open or a place counted.
#[derive(Default)]
pub(super) struct PeerCounts {
    /// Request bodies being read, under [`Serve::max_bodies_per_peer`](super::Serve::max_bodies_per_peer).
    pub(super) bodies: AtomicUsize,
    /// Places in flight counted under the address's share
    /// ([`Serve::max_in_flight_per_caller`](super::Serve::max_in_flight_per_caller)): those of
    /// requests without a verified caller.
    pub(super) in_flight: AtomicUsize,
    /// The address's open connections: its entry's `connections.len()`, written under the
    /// registry's lock, read by a place that leaves without it.
    connections: AtomicUsize,
}

/// One open connection, as its [`HeadClock`](super::head::HeadClock), its requests and the [`Registry`] see it.
pub(super) struct Tracked {
    /// The [`HeadClock`](super::head::HeadClock) phase: `BUSY` from a head to its response.
    pub(super) phase: AtomicU8,
    /// Some bytes of the head awaited have arrived (an unfinished head, not an idle
    /// connection).
    pub(super) started: std::sync::atomic::AtomicBool,
    /// When the wait for a head began, in milliseconds since the tracking's `EPOCH`.
    pub(super) since_ms: std::sync::atomic::AtomicU64,
    /// Closed by the server to make room ([`Registry::evict_one`]).
    evicted: std::sync::atomic::AtomicBool,
    /// The response being written is the event stream of a `GET` (an MCP session's stream for
    /// server messages, MCP 2025-11-25 "Transports / Streamable HTTP / Listening for Messages
    /// from the Server"): closable to make room, as an idle connection is (its client reopens
    /// it, resuming with `Last-Event-ID`).
    pub(super) streaming: std::sync::atomic::AtomicBool,
    /// What the server asks of the connection: [`STOP`] or [`CLOSE`], `0` nothing (yet).
    ending: AtomicU8,
    /// The connection's task, woken when `ending` is set: registered at each poll without a
    /// lock (a `Notify` or a `watch` takes one each time the connection's task wakes).
    ending_waker: atomic_waker::AtomicWaker,
}

/// [`Tracked::ending`]: the server stops; the connection finishes its request in flight and
/// closes (a graceful shutdown).
pub(super) const STOP: u8 = 1;
/// [`Tracked::ending`]: the connection is closed at once, to make room
/// ([`Registry::evict_one`]). Outranks [`STOP`].
pub(super) const CLOSE: u8 = 2;

/// The origin of [`Tracked::since_ms`].
pub(super) static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

pub(super) fn millis_since_epoch(at: std::time::Instant) -> u64 {
    let epoch = *EPOCH.get_or_init(std::time::Instant::now);
    u64::try_from(at.saturating_duration_since(epoch).as_millis()).unwrap_or(u64::MAX)
}

impl Tracked {
    pub(super) fn new() -> Self {
        Tracked {
            phase: AtomicU8::new(REARM),
            started: std::sync::atomic::AtomicBool::new(false),
            since_ms: std::sync::atomic::AtomicU64::new(millis_since_epoch(std::time::Instant::now())),
            evicted: std::sync::atomic::AtomicBool::new(false),
            streaming: std::sync::atomic::AtomicBool::new(false),
            ending: AtomicU8::new(0),
            ending_waker: atomic_waker::AtomicWaker::new(),
        }
    }

    /// Asks the connection to end: [`STOP`] or [`CLOSE`] (the higher one stands).
    fn end(&self, how: u8) {
        self.ending.fetch_max(how, Ordering::AcqRel);
        self.ending_waker.wake();
    }

    /// What the server asks of the connection, once it asks: [`STOP`] or [`CLOSE`].
    pub(super) fn poll_ending(&self, cx: &mut std::task::Context<'_>) -> std::task::Poll<u8> {
        // Registered before the read, so an `end` after the read wakes this task.
        self.ending_waker.register(cx.waker());
        match self.ending.load(Ordering::Acquire) {
            0 => std::task::Poll::Pending,
            how => std::task::Poll::Ready(how),
        }
    }

    /// Waits for a request head (idle or unfinished).
    fn waits_for_head(&self) -> bool {
        !self.evicted.load(Ordering::Relaxed) && matches!(self.phase.load(Ordering::Relaxed), REARM | WAITING)
    }

    /// May be closed to make room: it waits for a request head, or writes a `GET`'s event
    /// stream.
    fn closable(&self) -> bool {
        self.waits_for_head() || (!self.evicted.load(Ordering::Relaxed) && self.streaming.load(Ordering::Relaxed))
    }
}

impl Registry {
    /// Adds a connection of `ip`: what `ip`'s connections count together.
    pub(super) fn add(&self, ip: std::net::IpAddr, tracked: &Arc<Tracked>) -> Arc<PeerCounts> {
        let mut peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // Read under the lock `stop_all` takes after setting it: a connection added after
        // `stop_all` looked is told here.
        if self.stopping.load(Ordering::Acquire) {
            tracked.end(STOP);
        }
        let peer = peers.entry(ip).or_default();
        peer.connections.push(Arc::clone(tracked));
        peer.counts.connections.store(peer.connections.len(), Ordering::SeqCst);
        Arc::clone(&peer.counts)
    }

    /// The server stops: every connection open, and every one added from now on, is asked to
    /// finish its request in flight and close ([`STOP`]).
    pub(super) fn stop_all(&self) {
        self.stopping.store(true, Ordering::Release);
        let peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for connection in peers.values().flat_map(|peer| &peer.connections) {
            connection.end(STOP);
        }
    }

    /// A connection of `ip` has ended: the address is forgotten with its last connection,
    /// unless a request of it still holds a place ([`place_left`](Self::place_left) forgets it
    /// then).
    pub(super) fn remove(&self, ip: std::net::IpAddr, tracked: &Arc<Tracked>) {
        let mut peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if tracked.evicted.load(Ordering::Relaxed) {
            self.evicted.fetch_sub(1, Ordering::AcqRel);
        }
        if let Some(peer) = peers.get_mut(&ip) {
            peer.connections.retain(|c| !Arc::ptr_eq(c, tracked));
            // Written before the places are read, as a place leaving writes its count before
            // it reads the connections (both `SeqCst`): one of the two sees the other's zero.
            peer.counts.connections.store(peer.connections.len(), Ordering::SeqCst);
            if peer.connections.is_empty() && peer.counts.in_flight.load(Ordering::SeqCst) == 0 {
                peers.remove(&ip);
            }
        }
    }

    /// One more place under the share of `ip`, in `counts` (those its connection was given by
    /// [`add`](Self::add)): the counts it stands in, or `None` when `share` places are counted
    /// there already. No lookup while the address has a connection open. A place first counted
    /// after the address's last connection ended (a body read to its end by a task that outlived
    /// its connection) may find the address forgotten: it is then kept where the registry sees
    /// it (its counts the address's again, or the count moved to the counts of a connection of
    /// the address opened since, within the share there), so a new connection counts with it.
    pub(super) fn enter(&self, ip: std::net::IpAddr, counts: &Arc<PeerCounts>, share: usize) -> Option<CountedIn> {
        let more = |held: usize| (held < share).then_some(held + 1);
        counts.in_flight.fetch_update(Ordering::SeqCst, Ordering::SeqCst, more).ok()?;
        // Read after the count is written, as `remove` writes the connections before it reads
        // the count: where this reads a connection open, `remove` will see this count.
        if counts.connections.load(Ordering::SeqCst) != 0 {
            return Some(CountedIn::Own);
        }
        let mut peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match peers.entry(ip) {
            std::collections::hash_map::Entry::Vacant(gone) => {
                gone.insert(Peer { connections: Vec::new(), counts: Arc::clone(counts) });
                Some(CountedIn::Own)
            }
            std::collections::hash_map::Entry::Occupied(kept) if Arc::ptr_eq(&kept.get().counts, counts) => {
                Some(CountedIn::Own)
            }
            std::collections::hash_map::Entry::Occupied(newer) => {
                counts.in_flight.fetch_sub(1, Ordering::SeqCst);
                let live = &newer.get().counts;
                live.in_flight.fetch_update(Ordering::SeqCst, Ordering::SeqCst, more).ok()?;
                Some(CountedIn::Newer(Arc::clone(live)))
            }
        }
    }

    /// A place counted under `ip`'s share in `counts` ([`enter`](Self::enter)) has left: whether
    /// that was the last of an address with no connection open, which is then forgotten. Costs a
    /// lookup only then.
    pub(super) fn place_left(&self, ip: std::net::IpAddr, counts: &Arc<PeerCounts>) {
        if counts.in_flight.fetch_sub(1, Ordering::SeqCst) != 1 || counts.connections.load(Ordering::SeqCst) != 0 {
            return;
        }
        let mut peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let idle = peers.get(&ip).is_some_and(|peer| {
            Arc::ptr_eq(&peer.counts, counts)
                && peer.connections.is_empty()
                && peer.counts.in_flight.load(Ordering::SeqCst) == 0
        });
        if idle {
            peers.remove(&ip);
        }
    }

    /// How many addresses the registry holds (with a connection open or a place counted).
    #[cfg(test)]
    pub(super) fn addresses(&self) -> usize {
        self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    /// The unfinished heads of `ip`'s connections.
    pub(super) fn unfinished_heads(&self, ip: std::net::IpAddr) -> usize {
        let peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        peers.get(&ip).map_or(0, |peer| {
            peer.connections.iter().filter(|c| c.waits_for_head() && c.started.load(Ordering::Relaxed)).count()
        })
    }

    /// Closes the connection waiting longest for a head (or writing a `GET`'s event stream,
    /// [`Tracked::streaming`]) of the address with the most such connections,
    /// for a new connection of `ip`: whether the new connection has a claim on the place it
    /// leaves (or on one that an earlier closing leaves unclaimed), given up with
    /// [`unclaim`](Self::unclaim). None is closed when `ip` itself holds the most (it would
    /// only take its own place), nor when `ip` holds its fair share already: the bound over the
    /// addresses with open connections (so addresses that flood make no room for one another
    /// and a fresh address finds its room).
    pub(super) fn evict_one(&self, ip: std::net::IpAddr, max_connections: usize) -> bool {
        let peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let claim = || {
            self.claimed.fetch_add(1, Ordering::AcqRel);
            true
        };
        let mut heaviest: Option<(usize, &Arc<Tracked>, &std::net::IpAddr)> = None;
        // Addresses with a connection open (an address kept for a place alone holds none).
        let mut open = 0;
        for (ip, Peer { connections, .. }) in peers.iter() {
            open += usize::from(!connections.is_empty());
            let mut waiting = 0;
            let mut oldest: Option<&Arc<Tracked>> = None;
            for c in connections.iter().filter(|c| c.closable()) {
                waiting += 1;
                if oldest.is_none_or(|o| c.since_ms.load(Ordering::Relaxed) < o.since_ms.load(Ordering::Relaxed)) {
                    oldest = Some(c);
                }
            }
            if let Some(oldest) = oldest
                && heaviest.is_none_or(|(most, ..)| waiting > most)
            {
                heaviest = Some((waiting, oldest, ip));
            }
        }
        let own = peers.get(&ip).map_or(0, |peer| peer.connections.len());
        let share = (max_connections / (open + usize::from(own == 0))).max(1);
        if own >= share {
            return false;
        }
        let Some((waiting, victim, victim_ip)) = heaviest.filter(|(waiting, ..)| own < *waiting) else {
            // A connection closed for an earlier one, and not claimed by it (it came in meanwhile).
            let unclaimed = self.evicted.load(Ordering::Acquire) > self.claimed.load(Ordering::Acquire);
            return unclaimed && claim();
        };
        let ip = victim_ip;
        self.evicted.fetch_add(1, Ordering::AcqRel);
        victim.evicted.store(true, Ordering::Relaxed);
        victim.end(CLOSE);
        tracing::info!(
            target: LOG_TARGET,
            peer = %ip,
            "connection closed: this server is at its bound of open connections, and this address holds the most \
             ({waiting}) waiting for a request head or holding a GET's event stream"
        );
        claim()
    }

    /// A claim of [`evict_one`](Self::evict_one) is given up (its place taken, or not come).
    pub(super) fn unclaim(&self) {
        self.claimed.fetch_sub(1, Ordering::AcqRel);
    }
}
