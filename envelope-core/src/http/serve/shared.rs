//! What every connection of one server shares: its limits, the router, the body budget, the
//! registry of connections by peer address, and the answers written by hand.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use tokio::sync::Semaphore;

use super::hosts::AllowedHosts;
use super::peers::Registry;

/// Each connection's read buffer grows to this many bytes at most (hyper's default is about
/// 400 KiB): what a connection holds of a body not yet read, and the longest head unless
/// `max_header_bytes` is set higher.
pub(super) const READ_BUFFER_BYTES: usize = 64 << 10;
/// Connections refused over the bound that are answered and drained at once; past them a
/// refused connection is written its answer if the socket takes it at once, then closed.
pub(super) const LINGERING_REFUSALS: usize = 64;
/// How long a connection is drained before it is closed (so a client still sending a body the
/// server will not read gets its answer, then the end of the stream, instead of a reset), and
/// how many bytes at most a connection refused before its request is read.
pub(super) const LINGER: Duration = Duration::from_secs(1);
pub(super) const LINGER_BYTES: usize = 64 << 10;
/// The bytes of each request body outside [`Serve::body_budget_bytes`](super::Serve::body_budget_bytes).
pub(super) const UNCOUNTED_BODY_BYTES: usize = 64 << 10;

#[derive(Clone, Debug)]
pub(super) struct ServerLimits {
    pub(super) header_read_timeout: Duration,
    pub(super) body_read_timeout: Duration,
    pub(super) write_stall_timeout: Duration,
    pub(super) max_connections: usize,
    pub(super) max_unfinished_heads_per_peer: usize,
    pub(super) max_bodies_per_peer: usize,
    pub(super) min_data_rate: usize,
    pub(super) max_in_flight: usize,
    pub(super) max_in_flight_per_caller: Option<usize>,
    pub(super) body_budget_bytes: usize,
    pub(super) max_header_bytes: usize,
    pub(super) keep_alive: bool,
    pub(super) retry_after_seconds: u64,
}

/// What every connection of one server shares.
pub(super) struct Shared {
    pub(super) router: Router,
    pub(super) limits: ServerLimits,
    pub(super) hosts: AllowedHosts,
    pub(super) routes: Vec<String>,
    pub(super) json_rpc_paths: Vec<String>,
    pub(super) in_flight: Arc<Semaphore>,
    pub(super) budget: Budget,
    /// Requests waiting for a place in flight.
    pub(super) queued: AtomicUsize,
    /// The places in flight each verified caller holds (an address's are in its
    /// [`PeerCounts`](super::peers::PeerCounts)), and the most one may hold.
    pub(super) callers: std::sync::Mutex<std::collections::HashMap<Arc<str>, usize>>,
    pub(super) share: usize,
    pub(super) busy_reply: Bytes,
    pub(super) heads_reply: Bytes,
    pub(super) registry: Registry,
}

/// The bytes of bodies held across all connections.
pub(super) struct Budget {
    pub(super) held: AtomicUsize,
    pub(super) limit: usize,
}

impl Budget {
    pub(super) fn take(&self, bytes: usize) -> bool {
        self.held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(bytes).filter(|total| *total <= self.limit)
            })
            .is_ok()
    }

    pub(super) fn release(&self, bytes: usize) {
        if bytes > 0 {
            self.held.fetch_sub(bytes, Ordering::AcqRel);
        }
    }
}
