//! The accept loop: each connection under `max_connections` (making room from the address
//! waiting most for heads), served by hyper's HTTP/1.1 state machine until it closes.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::head::HeadClock;
use super::peers::{CLOSE, LOG_TARGET, PeerCounts, Tracked};
use super::refusals::{RefusedFor, refuse};
use super::request::PerRequest;
use super::shared::{LINGER, LINGERING_REFUSALS, READ_BUFFER_BYTES, Shared};
use super::socket::Shaped;

/// Accepts connections on `listener` until `shutdown`, each served on its own task under
/// `max_connections`; then waits for every connection to close.
pub(super) async fn accept(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
) -> io::Result<()> {
    let max_connections = shared.limits.max_connections;
    let connections = Arc::new(Semaphore::new(max_connections));
    let lingering = Arc::new(Semaphore::new(LINGERING_REFUSALS));
    // Dropped (the server's future dropped, or stopped): every connection is asked to finish.
    let stop = StopAll(Arc::clone(&shared));
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                // Out of file descriptors, most likely: wait for some to close.
                tracing::warn!(target: LOG_TARGET, error = %e, "accepting a connection failed; retrying in 100 ms");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        if shared.registry.unfinished_heads(crate::context::counted_address(peer.ip()))
            >= shared.limits.max_unfinished_heads_per_peer
        {
            refuse(stream, peer, &shared, &lingering, RefusedFor::Heads);
            continue;
        }
        match Arc::clone(&connections).try_acquire_owned() {
            Ok(permit) => {
                let registered = registered(&shared, peer);
                tokio::spawn(connection(stream, peer, Arc::clone(&shared), permit, registered));
            }
            // Full: the longest wait for a head of the address holding the most is closed,
            // and its place taken once it is.
            Err(_) if shared.registry.evict_one(crate::context::counted_address(peer.ip()), max_connections) => {
                let (shared, connections) = (Arc::clone(&shared), Arc::clone(&connections));
                let lingering = Arc::clone(&lingering);
                tokio::spawn(async move {
                    let waited = tokio::time::timeout(LINGER, connections.acquire_owned()).await;
                    shared.registry.unclaim();
                    match waited {
                        Ok(Ok(permit)) => {
                            let registered = registered(&shared, peer);
                            connection(stream, peer, shared, permit, registered).await;
                        }
                        _ => refuse(stream, peer, &shared, &lingering, RefusedFor::Connections),
                    }
                });
            }
            Err(_) => refuse(stream, peer, &shared, &lingering, RefusedFor::Connections),
        }
    }
    drop(listener);
    drop(stop);
    // Every connection holds a permit until it closes.
    let _all = connections.acquire_many(max_connections as u32).await;
    Ok(())
}

fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
    )
}

/// One connection, served by hyper's HTTP/1.1 state machine until it closes; the permit is
/// its place under `max_connections`.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<Shared>,
    _permit: OwnedSemaphorePermit,
    registered: Registered,
) {
    let _ = stream.set_nodelay(true);
    let limits = &shared.limits;
    let tracked = Arc::clone(&registered.tracked);
    let head = HeadClock::new(limits.header_read_timeout, limits.min_data_rate, Arc::clone(&tracked), peer);
    let io = TokioIo::new(Shaped::new(stream, limits.max_header_bytes, head, limits.write_stall_timeout, peer));
    let mut http = hyper::server::conn::http1::Builder::new();
    // The header read timeout is `HeadClock`'s: hyper's own makes a timer for each request.
    http.header_read_timeout(None)
        .keep_alive(limits.keep_alive)
        .max_header_size(limits.max_header_bytes)
        .max_buf_size(READ_BUFFER_BYTES.max(limits.max_header_bytes.saturating_add(1)))
        // One buffer per write: hyper's own error heads arrive whole at `Shaped`.
        .writev(false);
    // No `half_close`: the end of what a client sends is the end of its call (a body stops when
    // its connection goes, `Context::cancelled`), as nginx takes it (499); a socket cannot tell
    // a client that shut down its sending side (`nc -N`) from one that went.
    let service = PerRequest {
        shared: Arc::clone(&shared),
        peer,
        phase: Arc::clone(&tracked),
        counts: Arc::clone(&registered.counts),
    };
    let conn = http.serve_connection(io, service);
    let mut conn = std::pin::pin!(conn);
    // `biased`: the connection first, and no random draw each time its task wakes.
    let result = tokio::select! {
        biased;
        result = conn.as_mut() => result,
        how = std::future::poll_fn(|cx| tracked.poll_ending(cx)) => {
            // Closed to make room (logged where it was chosen).
            if how == CLOSE {
                return;
            }
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    let Err(e) = result else { return };
    if HeadClock::ended(&e) {
        // Logged where it ended.
    } else if e.is_parse_too_large() {
        tracing::info!(target: LOG_TARGET, %peer, "connection closed: a request head over this server's limits ({e})");
    } else if e.is_parse() {
        tracing::info!(target: LOG_TARGET, %peer, "connection closed: a malformed request head ({e})");
    } else {
        tracing::debug!(target: LOG_TARGET, %peer, "connection closed: {e}");
    }
}

/// Asks every connection to finish when dropped: when the accept loop ends, or its future is
/// dropped.
struct StopAll(Arc<Shared>);

impl Drop for StopAll {
    fn drop(&mut self) {
        self.0.registry.stop_all();
    }
}

/// A new connection of `peer`, in the registry until the returned place is dropped, under the
/// address it is counted by (an IPv6 peer by its /64 network, see
/// [`counted_address`](crate::context::counted_address)).
fn registered(shared: &Arc<Shared>, peer: SocketAddr) -> Registered {
    let tracked = Arc::new(Tracked::new());
    let ip = crate::context::counted_address(peer.ip());
    let counts = shared.registry.add(ip, &tracked);
    Registered { shared: Arc::clone(shared), ip, tracked, counts }
}

/// A connection's place in the [`Registry`](super::peers::Registry), left when the connection ends.
struct Registered {
    shared: Arc<Shared>,
    ip: std::net::IpAddr,
    tracked: Arc<Tracked>,
    /// What the address's connections count together.
    counts: Arc<PeerCounts>,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.shared.registry.remove(self.ip, &self.tracked);
    }
}
