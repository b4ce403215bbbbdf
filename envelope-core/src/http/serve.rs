//! The HTTP/1.1 server of envelope's routers, bounded for a public network: [`serve`].

use std::convert::Infallible;
use std::error::Error as StdError;
use std::fmt;
use std::future::{Future, IntoFuture};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::uri::Authority;
use axum::http::{HeaderMap, Method, Request, Response, StatusCode, Uri, header};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tower::Service;

use super::gate::host_is_loopback;
use super::transport::BodyRefused;
use super::transport::{ErrorBody, TransportError, TransportErrorKind};

/// Serves `router` on `listener` over HTTP/1.1 (hyper's server connection, on tokio), within
/// bounds a public network needs; the drop-in for `axum::serve(listener, router)`. Await the
/// returned [`Serve`] (after setting any limit); it ends with an error only when the listener's
/// address cannot be read, and after [`with_graceful_shutdown`](Serve::with_graceful_shutdown)'s
/// signal once every connection has closed.
///
/// Every answer the server itself gives is JSON, a [`TransportError`]
/// (`{"error": "<word>", "message": "<sentence>"}`, or a JSON-RPC error under `id: null` on
/// [`json_rpc_path`](Serve::json_rpc_path)s, `/mcp` by default):
///
/// | when | HTTP | `error` |
/// |---|---|---|
/// | more connections open than [`max_connections`](Serve::max_connections), none of them closable for it | 503, `Retry-After`, then closed | `service_unavailable` (always the plain shape: no request was read) |
/// | a new connection from an address holding [`max_unfinished_heads_per_peer`](Serve::max_unfinished_heads_per_peer) unfinished heads | 503, `Retry-After`, then closed | `service_unavailable` (plain) |
/// | more requests in flight than [`max_in_flight`](Serve::max_in_flight), after a second's wait in its queue for a request with a body | 503, `Retry-After` | `service_unavailable` |
/// | more bodies being read from one address than [`max_bodies_per_peer`](Serve::max_bodies_per_peer) | 503, `Retry-After` | `service_unavailable` |
/// | a caller (verified subject, else the address) past its share, [`max_in_flight_per_caller`](Serve::max_in_flight_per_caller) | 429, `Retry-After` | `rate_limited` |
/// | the bodies being read hold more than [`body_budget_bytes`](Serve::body_budget_bytes) | 503, `Retry-After` | `service_unavailable` |
/// | the body not read within [`body_read_timeout`](Serve::body_read_timeout), or arriving under [`min_data_rate`](Serve::min_data_rate) | 408, `Connection: close` | `request_timeout` |
/// | a `Host` the server does not serve ([`AllowedHosts`]) | 403 | `forbidden_host` |
/// | a path no route serves (the router's own empty 404) | 404 | `not_found`, naming the [`routes`](Serve::routes) |
/// | a method the route does not take (the router's own empty 405) | 405, `Allow` | `method_not_allowed` |
/// | a request head hyper cannot parse | 400, then closed | `malformed_request` |
/// | a head over [`max_header_bytes`](Serve::max_header_bytes) or over 100 fields | 431, then closed | `header_fields_too_large` |
/// | a request target over 65,534 bytes (reachable only with `max_header_bytes` above that) | 414, then closed | `uri_too_long` |
///
/// The body bounds reach a handler as errors of the request body's stream;
/// [`read_body`](super::read_body)
/// (which [`HttpTools`](super::HttpTools) and [`McpHttp`](crate::mcp::streamable::McpHttp) read
/// with) turns them into these transport errors. A handler reading the body itself (axum's
/// `Bytes`, `Json`) answers axum's own rejection instead.
///
/// What stays without a JSON body, because hyper writes or closes before any service runs: a
/// connection whose request head does not arrive within
/// [`header_read_timeout`](Serve::header_read_timeout) is closed with no answer (hyper writes
/// none; RFC 9110 §15.5.9 lets a server close it), a connection whose client reads none of a
/// response for [`write_stall_timeout`](Serve::write_stall_timeout) is closed, an HTTP/2 connection preface is closed
/// unanswered, and a malformed head that arrives while an earlier response on the same
/// connection is still unsent gets hyper's own empty 400/431. A
/// response of the router that is an empty 400, 414 or 431 with no other header than
/// `content-length`, `date` and `connection` cannot be told from hyper's and is given the JSON
/// body of its status, `Connection: close`.
///
/// One `tracing` event per refusal (target `envelope_core::http::serve`, with the peer
/// address): `warn` for a bound reached, `info` for a foreign `Host`, a header timeout, a
/// malformed head, a body timeout, a write stall; nothing about a request that is served (the routers log
/// their calls).
///
/// ```no_run
/// use std::time::Duration;
/// use envelope_core::{Toolbox, http::HttpTools};
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> std::io::Result<()> {
///     let app = HttpTools::new(Toolbox::new()).router();
///     let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
///     envelope_core::http::serve(listener, app)
///         .routes(["POST /tools/{name}", "GET /tools", "GET /manifest"])
///         .header_read_timeout(Duration::from_secs(5))
///         .max_in_flight(64)
///         .await
/// }
/// ```
pub fn serve(listener: TcpListener, router: Router) -> Serve {
    Serve {
        listener,
        router,
        limits: Limits::default(),
        hosts: None,
        routes: Vec::new(),
        json_rpc_paths: vec!["/mcp".to_owned()],
        shutdown: None,
    }
}

/// The server [`serve`] builds: set its limits, then `.await` it.
#[must_use = "a server does nothing until it is awaited"]
pub struct Serve {
    listener: TcpListener,
    router: Router,
    limits: Limits,
    hosts: Option<AllowedHosts>,
    routes: Vec<String>,
    json_rpc_paths: Vec<String>,
    shutdown: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

#[derive(Clone, Debug)]
struct Limits {
    header_read_timeout: Duration,
    body_read_timeout: Duration,
    write_stall_timeout: Duration,
    max_connections: usize,
    max_unfinished_heads_per_peer: usize,
    max_bodies_per_peer: usize,
    min_data_rate: usize,
    max_in_flight: usize,
    max_in_flight_per_caller: Option<usize>,
    body_budget_bytes: usize,
    max_header_bytes: usize,
    keep_alive: bool,
    retry_after_seconds: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_read_timeout: Serve::DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: Serve::DEFAULT_BODY_READ_TIMEOUT,
            write_stall_timeout: Serve::DEFAULT_WRITE_STALL_TIMEOUT,
            max_connections: Serve::DEFAULT_MAX_CONNECTIONS,
            max_unfinished_heads_per_peer: Serve::DEFAULT_MAX_UNFINISHED_HEADS_PER_PEER,
            max_bodies_per_peer: Serve::DEFAULT_MAX_BODIES_PER_PEER,
            min_data_rate: Serve::DEFAULT_MIN_DATA_RATE,
            max_in_flight: Serve::DEFAULT_MAX_IN_FLIGHT,
            max_in_flight_per_caller: None,
            body_budget_bytes: Serve::DEFAULT_BODY_BUDGET_BYTES,
            max_header_bytes: Serve::DEFAULT_MAX_HEADER_BYTES,
            keep_alive: true,
            retry_after_seconds: Serve::DEFAULT_RETRY_AFTER_SECONDS,
        }
    }
}

impl fmt::Debug for Serve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Serve")
            .field("listener", &self.listener.local_addr().ok())
            .field("limits", &self.limits)
            .field("hosts", &self.hosts)
            .field("routes", &self.routes)
            .field("json_rpc_paths", &self.json_rpc_paths)
            .finish_non_exhaustive()
    }
}

/// Each connection's read buffer grows to this many bytes at most (hyper's default is about
/// 400 KiB): what a connection holds of a body not yet read, and the longest head unless
/// `max_header_bytes` is set higher.
const READ_BUFFER_BYTES: usize = 64 << 10;
/// Connections refused over the bound that are answered and drained at once; past them a
/// refused connection is written its answer if the socket takes it at once, then closed.
const LINGERING_REFUSALS: usize = 64;
/// How long a connection is drained before it is closed (so a client still sending a body the
/// server will not read gets its answer, then the end of the stream, instead of a reset), and
/// how many bytes at most a connection refused before its request is read.
const LINGER: Duration = Duration::from_secs(1);
const LINGER_BYTES: usize = 64 << 10;
/// The bytes of each request body outside [`Serve::body_budget_bytes`].
const UNCOUNTED_BODY_BYTES: usize = 64 << 10;

impl Serve {
    /// The default [`header_read_timeout`](Self::header_read_timeout): 10 s.
    pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
    /// The default [`body_read_timeout`](Self::body_read_timeout): 30 s (a 4 MiB body at
    /// 140 KB/s).
    pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default [`write_stall_timeout`](Self::write_stall_timeout): 30 s.
    pub const DEFAULT_WRITE_STALL_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default [`max_connections`](Self::max_connections): 512, half the common limit of
    /// 1,024 open files.
    pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
    /// The default [`max_unfinished_heads_per_peer`](Self::max_unfinished_heads_per_peer): 64.
    pub const DEFAULT_MAX_UNFINISHED_HEADS_PER_PEER: usize = 64;
    /// The default [`max_bodies_per_peer`](Self::max_bodies_per_peer): 64.
    pub const DEFAULT_MAX_BODIES_PER_PEER: usize = 64;
    /// The default [`min_data_rate`](Self::min_data_rate): 240 bytes a second (Kestrel's
    /// `MinRequestBodyDataRate`).
    pub const DEFAULT_MIN_DATA_RATE: usize = 240;
    /// The default [`max_in_flight`](Self::max_in_flight): 128 requests.
    pub const DEFAULT_MAX_IN_FLIGHT: usize = 128;
    /// The default [`body_budget_bytes`](Self::body_budget_bytes): 64 MiB.
    pub const DEFAULT_BODY_BUDGET_BYTES: usize = 64 << 20;
    /// The default [`max_header_bytes`](Self::max_header_bytes): 16 KiB.
    pub const DEFAULT_MAX_HEADER_BYTES: usize = 16 << 10;
    /// The default [`retry_after_seconds`](Self::retry_after_seconds): 1 s.
    pub const DEFAULT_RETRY_AFTER_SECONDS: u64 = 1;

    /// How long the server waits for a whole request head (request line and header fields),
    /// from when it starts waiting for one: on a new connection, and on a kept-alive connection
    /// after its last response, so this is also how long an idle kept-alive connection stays
    /// open. Past it the connection is closed without an answer (a client trickling its head a
    /// byte at a time does not extend it). Default 10 s; one tokio timer per connection, moved
    /// on for each head (hyper's own `header_read_timeout` is off).
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.limits.header_read_timeout = timeout;
        self
    }

    /// How long a request body may take to arrive, from the end of its head to its last byte.
    /// Past it the body's stream fails and [`read_body`](super::read_body) answers `request_timeout` (408,
    /// `Connection: close`). Default 30 s.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.limits.body_read_timeout = timeout;
        self
    }

    /// How long a response may wait to be written while the client reads none of it (the
    /// socket's send buffer full: a client that sends requests and never reads the answers).
    /// Past it the connection is closed, so such a client holds no connection for longer. The
    /// clock runs only while a write waits, from its first wait, and any byte written stops it:
    /// a slow reader that keeps reading is never cut. Default 30 s.
    pub fn write_stall_timeout(mut self, timeout: Duration) -> Self {
        self.limits.write_stall_timeout = timeout;
        self
    }

    /// How many connections are open at once, at most (each is a file descriptor and a task).
    /// When the bound is reached, a new connection closes a connection that waits for a request
    /// head (an unfinished head, or an idle kept-alive connection): the one waiting longest of
    /// the peer address holding the most such connections, so that a flood from some addresses
    /// never keeps another address out. When every connection is serving a request, a new one
    /// is answered `503 service_unavailable` with `Retry-After` before its request is read, and
    /// closed. Default 512; at least 1.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.limits.max_connections = connections.clamp(1, u32::MAX as usize);
        self
    }

    /// How many unfinished request heads one peer address holds at once, at most: connections
    /// of that address on which some bytes of a head have arrived, but not the whole head. A
    /// new connection from an address already holding this many is answered
    /// `503 service_unavailable` with `Retry-After` before its request is read, and closed
    /// (nginx's `limit_conn` per address, for heads). Idle connections (no byte of a head yet)
    /// are not counted: a client opening many kept-alive connections at once is not refused.
    /// Default 64; at least 1.
    pub fn max_unfinished_heads_per_peer(mut self, heads: usize) -> Self {
        self.limits.max_unfinished_heads_per_peer = heads.max(1);
        self
    }

    /// How many request bodies one peer address sends at once, at most (requests whose head
    /// has arrived and whose body is still being read). A request past it is answered
    /// `503 service_unavailable` with `Retry-After` before any route sees it. A body being read
    /// holds no place under [`max_in_flight`](Self::max_in_flight): bodies sent slowly, or never
    /// finished, keep no other client from being served. Default 64; at least 1.
    pub fn max_bodies_per_peer(mut self, bodies: usize) -> Self {
        self.limits.max_bodies_per_peer = bodies.max(1);
        self
    }

    /// The lowest rate, in bytes a second, at which a request head and a request body must
    /// keep arriving. A head, once its first byte has arrived: one second after that byte, and
    /// from then on, a head with fewer than this many bytes a second since its first byte is
    /// closed unanswered, as one past [`header_read_timeout`](Self::header_read_timeout) is (a
    /// trickled head, slowloris). A body: one second after its head, and from then on, a body
    /// with fewer than this many bytes a second since its head fails its stream, and
    /// [`read_body`](super::read_body) answers `408 request_timeout`, `Connection: close`. A
    /// head or body that arrives whole (the usual one) is never measured. Default 240 B/s (a
    /// 4 MiB body has 17 s); 0 turns the rule off.
    pub fn min_data_rate(mut self, bytes_per_second: usize) -> Self {
        self.limits.min_data_rate = bytes_per_second;
        self
    }

    /// How many requests are being answered at once, at most, across all connections: a
    /// request without a body from the end of its head to its response, one with a body from
    /// the end of its body (when the handler has read it whole) to its response, so a body
    /// sent slowly or never finished holds no place. A request without a body past the bound
    /// is answered `503 service_unavailable` with `Retry-After` before any route sees it; one
    /// with a body waits in a queue (at most this many requests, at most a second) and is
    /// then refused the same way through its body's stream ([`read_body`](super::read_body)
    /// answers it). A handler that answers without reading its body to the end takes no place.
    /// Default 128; at least 1.
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.limits.max_in_flight = requests.clamp(1, Semaphore::MAX_PERMITS);
        self
    }

    /// How many of the requests in flight ([`max_in_flight`](Self::max_in_flight)) one caller
    /// holds at once, at most: the caller an [`AuthLayer`](super::AuthLayer) verified (its
    /// [`Caller::key`](crate::Caller::key): subject with tenant), else the peer's address. A
    /// request past its caller's share is answered `429 rate_limited` with `Retry-After`
    /// ([`TransportError::rate_limited`]): that caller alone is refused while others are served.
    /// Default a quarter of `max_in_flight` (32 of 128); at least 1 (a share above
    /// `max_in_flight` is none).
    pub fn max_in_flight_per_caller(mut self, requests: usize) -> Self {
        self.limits.max_in_flight_per_caller = Some(requests.max(1));
        self
    }

    /// How many bytes of request bodies the server holds at once, across all connections: each
    /// chunk of a body past its first 64 KiB is counted as it arrives and released when the
    /// body is dropped (after the handler has read it, or given up). A chunk past the budget
    /// fails the body's stream and [`read_body`](super::read_body) answers `503 service_unavailable` with
    /// `Retry-After`. Default 64 MiB. The first 64 KiB of each body are bounded by
    /// [`max_connections`](Self::max_connections) instead (one body a connection), so small
    /// requests are served while large bodies hold the budget: bodies hold at most this budget
    /// plus 64 KiB per open connection (96 MiB by default), and each connection's read buffer
    /// at most 64 KiB more.
    pub fn body_budget_bytes(mut self, bytes: usize) -> Self {
        self.limits.body_budget_bytes = bytes;
        self
    }

    /// The longest request head read, in bytes (request line and header fields); a longer one
    /// is answered `431 header_fields_too_large` and the connection closed. Default 16 KiB.
    /// Each connection's read buffer holds at most this or 64 KiB, whichever is larger.
    pub fn max_header_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_header_bytes = bytes.max(1);
        self
    }

    /// Whether a connection is kept open for further requests (HTTP/1.1 persistence). Default
    /// `true`.
    pub fn keep_alive(mut self, keep_alive: bool) -> Self {
        self.limits.keep_alive = keep_alive;
        self
    }

    /// The `Retry-After` of every 503 this server answers, in seconds (at least 1). Default 1.
    pub fn retry_after_seconds(mut self, seconds: u64) -> Self {
        self.limits.retry_after_seconds = seconds.max(1);
        self
    }

    /// The `Host` values served. Default: [`AllowedHosts::loopback`] when the listener is bound
    /// to a loopback address, else [`AllowedHosts::any`] (a server on a public address is
    /// reached by names it cannot know; name them with [`AllowedHosts::allow`]).
    pub fn hosts(mut self, hosts: AllowedHosts) -> Self {
        self.hosts = Some(hosts);
        self
    }

    /// The routes a `not_found` answer names (`"POST /mcp"`, `"GET /tools"`), in order.
    /// Default: none named.
    pub fn routes<T: Into<String>>(mut self, routes: impl IntoIterator<Item = T>) -> Self {
        self.routes = routes.into_iter().map(Into::into).collect();
        self
    }

    /// Answers this server's refusals of requests to `path` (compared exactly) as JSON-RPC
    /// error responses (`id: null`), as MCP's Streamable HTTP transport needs. Default: `/mcp`;
    /// each call adds one.
    pub fn json_rpc_path(mut self, path: impl Into<String>) -> Self {
        self.json_rpc_paths.push(path.into());
        self
    }

    /// Stops at `signal`: the listener is closed, each connection finishes the request it is
    /// serving and closes (an idle one at once), and the server's future ends once every
    /// connection has closed.
    pub fn with_graceful_shutdown(mut self, signal: impl Future<Output = ()> + Send + 'static) -> Self {
        self.shutdown = Some(Box::pin(signal));
        self
    }

    async fn run(self) -> io::Result<()> {
        let local = self.listener.local_addr()?;
        let hosts = self
            .hosts
            .unwrap_or_else(|| if local.ip().is_loopback() { AllowedHosts::loopback() } else { AllowedHosts::any() });
        let limits = self.limits;
        let busy = TransportError::service_unavailable(
            &format!("this server is at its bound of {} open connections", limits.max_connections),
            limits.retry_after_seconds,
        );
        let heads = TransportError::service_unavailable(
            &format!(
                "this address already holds this server's bound of {} unfinished request heads",
                limits.max_unfinished_heads_per_peer
            ),
            limits.retry_after_seconds,
        );
        let shared = Arc::new(Shared {
            router: self.router,
            hosts,
            routes: self.routes,
            json_rpc_paths: self.json_rpc_paths,
            in_flight: Arc::new(Semaphore::new(limits.max_in_flight)),
            budget: Budget { held: AtomicUsize::new(0), limit: limits.body_budget_bytes },
            queued: AtomicUsize::new(0),
            callers: std::sync::Mutex::default(),
            share: limits.max_in_flight_per_caller.unwrap_or(limits.max_in_flight / 4).max(1),
            busy_reply: Bytes::from(raw_response(503, "Service Unavailable", &busy, None)),
            heads_reply: Bytes::from(raw_response(503, "Service Unavailable", &heads, None)),
            registry: Registry::default(),
            limits,
        });
        let max_connections = shared.limits.max_connections;
        let connections = Arc::new(Semaphore::new(max_connections));
        let lingering = Arc::new(Semaphore::new(LINGERING_REFUSALS));
        let (stop, stopping) = watch::channel(false);
        let mut shutdown = self.shutdown.unwrap_or_else(|| Box::pin(std::future::pending()));
        let listener = self.listener;
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
                    tracing::warn!(error = %e, "accepting a connection failed; retrying in 100 ms");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            if shared.registry.unfinished_heads(peer.ip()) >= shared.limits.max_unfinished_heads_per_peer {
                refuse(stream, peer, &shared, &lingering, RefusedFor::Heads);
                continue;
            }
            match Arc::clone(&connections).try_acquire_owned() {
                Ok(permit) => {
                    let registered = Tracked::registered(&shared, peer);
                    tokio::spawn(connection(stream, peer, Arc::clone(&shared), stopping.clone(), permit, registered));
                }
                // Full: the longest wait for a head of the address holding the most is closed,
                // and its place taken once it is.
                Err(_) if shared.registry.evict_one(peer.ip(), max_connections) => {
                    let (shared, connections, stopping) =
                        (Arc::clone(&shared), Arc::clone(&connections), stopping.clone());
                    let lingering = Arc::clone(&lingering);
                    tokio::spawn(async move {
                        let waited = tokio::time::timeout(LINGER, connections.acquire_owned()).await;
                        shared.registry.unclaim();
                        match waited {
                            Ok(Ok(permit)) => {
                                let registered = Tracked::registered(&shared, peer);
                                connection(stream, peer, shared, stopping, permit, registered).await;
                            }
                            _ => refuse(stream, peer, &shared, &lingering, RefusedFor::Connections),
                        }
                    });
                }
                Err(_) => refuse(stream, peer, &shared, &lingering, RefusedFor::Connections),
            }
        }
        drop(listener);
        stop.send_replace(true);
        // Every connection holds a permit until it closes.
        let _all = connections.acquire_many(max_connections as u32).await;
        Ok(())
    }
}

impl IntoFuture for Serve {
    type Output = io::Result<()>;
    type IntoFuture = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}

fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
    )
}

/// What every connection of one server shares.
struct Shared {
    router: Router,
    limits: Limits,
    hosts: AllowedHosts,
    routes: Vec<String>,
    json_rpc_paths: Vec<String>,
    in_flight: Arc<Semaphore>,
    budget: Budget,
    /// Requests waiting for a place in flight.
    queued: AtomicUsize,
    /// The places in flight each caller holds, and the most one may hold.
    callers: std::sync::Mutex<std::collections::HashMap<Box<str>, usize>>,
    share: usize,
    busy_reply: Bytes,
    heads_reply: Bytes,
    registry: Registry,
}

/// The open connections of one server, by peer address: what the fair bounds read.
#[derive(Default)]
struct Registry {
    peers: std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, Peer>>,
    /// Connections closed to make room and not yet gone, and the new connections waiting for
    /// the places they leave.
    evicted: AtomicUsize,
    claimed: AtomicUsize,
}

/// One peer address's open connections, and its request bodies being read.
#[derive(Default)]
struct Peer {
    connections: Vec<Arc<Tracked>>,
    bodies: Arc<AtomicUsize>,
}

/// One open connection, as its [`HeadClock`], its requests and the [`Registry`] see it.
struct Tracked {
    /// The [`HeadClock`] phase: `BUSY` from a head to its response.
    phase: AtomicU8,
    /// Some bytes of the head awaited have arrived (an unfinished head, not an idle
    /// connection).
    started: std::sync::atomic::AtomicBool,
    /// When the wait for a head began, in milliseconds since the tracking's `EPOCH`.
    since_ms: std::sync::atomic::AtomicU64,
    /// Closed by the server to make room ([`Registry::evict_one`]).
    evicted: std::sync::atomic::AtomicBool,
    close: tokio::sync::Notify,
}

/// The origin of [`Tracked::since_ms`].
static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

fn millis_since_epoch(at: std::time::Instant) -> u64 {
    let epoch = *EPOCH.get_or_init(std::time::Instant::now);
    u64::try_from(at.saturating_duration_since(epoch).as_millis()).unwrap_or(u64::MAX)
}

impl Tracked {
    fn new() -> Self {
        Tracked {
            phase: AtomicU8::new(REARM),
            started: std::sync::atomic::AtomicBool::new(false),
            since_ms: std::sync::atomic::AtomicU64::new(millis_since_epoch(std::time::Instant::now())),
            evicted: std::sync::atomic::AtomicBool::new(false),
            close: tokio::sync::Notify::new(),
        }
    }

    /// A new connection of `peer`, in the registry until the returned place is dropped.
    fn registered(shared: &Arc<Shared>, peer: SocketAddr) -> Registered {
        let tracked = Arc::new(Tracked::new());
        let bodies = shared.registry.add(peer.ip(), &tracked);
        Registered { shared: Arc::clone(shared), ip: peer.ip(), tracked, bodies }
    }

    /// Waits for a request head (idle or unfinished).
    fn waits_for_head(&self) -> bool {
        !self.evicted.load(Ordering::Relaxed) && matches!(self.phase.load(Ordering::Relaxed), REARM | WAITING)
    }
}

impl Registry {
    /// Adds a connection of `ip`: the count of `ip`'s bodies being read.
    fn add(&self, ip: std::net::IpAddr, tracked: &Arc<Tracked>) -> Arc<AtomicUsize> {
        let mut peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let peer = peers.entry(ip).or_default();
        peer.connections.push(Arc::clone(tracked));
        Arc::clone(&peer.bodies)
    }

    fn remove(&self, ip: std::net::IpAddr, tracked: &Arc<Tracked>) {
        let mut peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if tracked.evicted.load(Ordering::Relaxed) {
            self.evicted.fetch_sub(1, Ordering::AcqRel);
        }
        if let Some(peer) = peers.get_mut(&ip) {
            peer.connections.retain(|c| !Arc::ptr_eq(c, tracked));
            if peer.connections.is_empty() {
                peers.remove(&ip);
            }
        }
    }

    /// The unfinished heads of `ip`'s connections.
    fn unfinished_heads(&self, ip: std::net::IpAddr) -> usize {
        let peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        peers.get(&ip).map_or(0, |peer| {
            peer.connections.iter().filter(|c| c.waits_for_head() && c.started.load(Ordering::Relaxed)).count()
        })
    }

    /// Closes the connection waiting longest for a head of the address with the most waiting,
    /// for a new connection of `ip`: whether the new connection has a claim on the place it
    /// leaves (or on one that an earlier closing leaves unclaimed), given up with
    /// [`unclaim`](Self::unclaim). None is closed when `ip` itself holds the most (it would
    /// only take its own place), nor when `ip` holds its fair share already: the bound over the
    /// addresses with open connections (so addresses that flood make no room for one another
    /// and a fresh address finds its room).
    fn evict_one(&self, ip: std::net::IpAddr, max_connections: usize) -> bool {
        let peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let claim = || {
            self.claimed.fetch_add(1, Ordering::AcqRel);
            true
        };
        let mut heaviest: Option<(usize, &Arc<Tracked>, &std::net::IpAddr)> = None;
        for (ip, Peer { connections, .. }) in peers.iter() {
            let mut waiting = 0;
            let mut oldest: Option<&Arc<Tracked>> = None;
            for c in connections.iter().filter(|c| c.waits_for_head()) {
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
        let share = (max_connections / (peers.len() + usize::from(!peers.contains_key(&ip)))).max(1);
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
        victim.close.notify_one();
        tracing::info!(
            peer = %ip,
            "connection closed: this server is at its bound of open connections, and this address holds the most \
             ({waiting}) waiting for a request head"
        );
        claim()
    }

    /// A claim of [`evict_one`](Self::evict_one) is given up (its place taken, or not come).
    fn unclaim(&self) {
        self.claimed.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Shared {
    /// One more place for `key`, unless it holds its share.
    fn enter(&self, key: &str) -> bool {
        let mut callers = self.callers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match callers.get_mut(key) {
            Some(held) if *held >= self.share => false,
            Some(held) => {
                *held += 1;
                true
            }
            None => {
                callers.insert(key.into(), 1);
                true
            }
        }
    }

    fn leave(&self, key: &str) {
        let mut callers = self.callers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(held) = callers.get_mut(key) {
            *held -= 1;
            if *held == 0 {
                callers.remove(key);
            }
        }
    }

    fn shape(&self, path: &str) -> ErrorBody {
        if self.json_rpc_paths.iter().any(|p| p == path) { ErrorBody::JsonRpc } else { ErrorBody::Plain }
    }

    /// The router's own empty 404 and 405 (a path or a method no route takes) as transport
    /// errors; every other response as it is.
    fn json_only(&self, response: Response<Body>, method: &Method, uri: &Uri) -> Response<Body> {
        use hyper::body::Body as _;
        let status = response.status();
        let routing = status == StatusCode::NOT_FOUND || status == StatusCode::METHOD_NOT_ALLOWED;
        if !routing || response.body().size_hint().exact() != Some(0) {
            return response;
        }
        let shape = self.shape(uri.path());
        let error = if status == StatusCode::NOT_FOUND {
            let routes: Vec<&str> = self.routes.iter().map(String::as_str).collect();
            TransportError::not_found(uri.path(), &routes)
        } else {
            let allow = response.headers().get(header::ALLOW).and_then(|v| v.to_str().ok()).unwrap_or("");
            let allowed: Vec<&str> = allow.split(',').map(str::trim).filter(|m| !m.is_empty()).collect();
            TransportError::method_not_allowed(method.as_str(), &allowed)
        };
        tracing::info!(%method, path = %crate::words::budget::cut_text(uri.path(), 64, 256), "request refused: {}", error.word());
        error.into_response_as(shape)
    }
}

/// A response written to the socket by hand, for a connection hyper does not serve (or no
/// longer): status line, `content-type`, `content-length`, `retry-after` of a 503,
/// `connection: close`, then the plain JSON body.
/// `date` is a `date: ...` field line, without its CRLF.
fn raw_response(status: u16, reason: &str, error: &TransportError, date: Option<&[u8]>) -> Vec<u8> {
    let body = error.to_json();
    let mut head =
        format!("HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n", body.len());
    if let Some(seconds) = error.retry_after_seconds() {
        head.push_str(&format!("retry-after: {seconds}\r\n"));
    }
    head.push_str("connection: close\r\n");
    let mut bytes = head.into_bytes();
    if let Some(date) = date {
        bytes.extend_from_slice(date);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(b"\r\n");
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

/// A connection over the bound: answered 503 and closed. Draining what the client sent before
/// closing lets it read the answer (closing a socket with unread data resets it).
fn refuse(stream: TcpStream, peer: SocketAddr, shared: &Shared, lingering: &Arc<Semaphore>, why: RefusedFor) {
    let reply = match why {
        RefusedFor::Connections => {
            tracing::warn!(
                %peer,
                "connection refused: this server is at its bound of {} open connections",
                shared.limits.max_connections
            );
            shared.busy_reply.clone()
        }
        RefusedFor::Heads => {
            tracing::warn!(
                %peer,
                "connection refused: this address holds this server's bound of {} unfinished request heads",
                shared.limits.max_unfinished_heads_per_peer
            );
            shared.heads_reply.clone()
        }
    };
    match Arc::clone(lingering).try_acquire_owned() {
        Ok(permit) => {
            tokio::spawn(async move {
                let _permit = permit;
                let _ = tokio::time::timeout(LINGER, linger(stream, reply)).await;
            });
        }
        Err(_) => {
            // The send buffer of a new connection is empty: the answer fits at once.
            let _ = stream.try_write(&reply);
        }
    }
}

/// Why a connection is refused before its request is read.
#[derive(Clone, Copy)]
enum RefusedFor {
    Connections,
    Heads,
}

async fn linger(mut stream: TcpStream, reply: Bytes) -> io::Result<()> {
    stream.write_all(&reply).await?;
    stream.shutdown().await?;
    let mut buf = [0u8; 2048];
    let mut drained = 0;
    while drained < LINGER_BYTES {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        drained += n;
    }
    Ok(())
}

/// One connection, served by hyper's HTTP/1.1 state machine until it closes; the permit is
/// its place under `max_connections`.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<Shared>,
    mut stopping: watch::Receiver<bool>,
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
    let service = PerRequest {
        shared: Arc::clone(&shared),
        peer,
        phase: Arc::clone(&tracked),
        bodies: Arc::clone(&registered.bodies),
    };
    let conn = http.serve_connection(io, service);
    let mut conn = std::pin::pin!(conn);
    let result = tokio::select! {
        result = conn.as_mut() => result,
        () = stopped(&mut stopping) => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
        // Closed to make room (logged where it was chosen).
        () = tracked.close.notified() => return,
    };
    let Err(e) = result else { return };
    if HeadClock::ended(&e) {
        // Logged where it ended.
    } else if e.is_parse_too_large() {
        tracing::info!(%peer, "connection closed: a request head over this server's limits ({e})");
    } else if e.is_parse() {
        tracing::info!(%peer, "connection closed: a malformed request head ({e})");
    } else {
        tracing::debug!(%peer, "connection closed: {e}");
    }
}

/// A connection's place in the [`Registry`], left when the connection ends.
struct Registered {
    shared: Arc<Shared>,
    ip: std::net::IpAddr,
    tracked: Arc<Tracked>,
    /// The request bodies of the address being read.
    bodies: Arc<AtomicUsize>,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.shared.registry.remove(self.ip, &self.tracked);
    }
}

/// Resolves once the server stops (or is dropped).
async fn stopped(stopping: &mut watch::Receiver<bool>) {
    let _ = stopping.wait_for(|stop| *stop).await;
}

/// The hyper service of one connection: the `Host` check, the bound on requests in flight, the
/// body's budget and deadline, then the router.
#[derive(Clone)]
struct PerRequest {
    shared: Arc<Shared>,
    peer: SocketAddr,
    /// The connection's [`HeadClock`] phase: `BUSY` from a head to its response.
    phase: Arc<Tracked>,
    /// The request bodies of the peer's address being read.
    bodies: Arc<AtomicUsize>,
}

/// The answer to one request: refused at once, or the router's answer on its way (no future
/// boxed per request: the router's own is held as it is).
#[allow(clippy::large_enum_variant)] // the routed answer is the usual one; a box would cost each request an allocation
enum Answer {
    Ready(Option<Response<Ended>>),
    Routed(Routed),
}

/// A request's place under `max_in_flight`, shared by its answer, its body and the layers
/// before its route (a request extension): taken with its head for a request without a body,
/// once its body is read whole for one with a body; released when the last of them drops it.
/// Its caller's count under [`Serve::max_in_flight_per_caller`] goes with it: the caller the
/// [`AuthLayer`](super::AuthLayer) verified ([`Place::identify`]), else the peer's address.
/// The layer gives the place up while a verification waits (a JWKS refetch) and takes it again,
/// through the queue, once the caller is verified.
#[derive(Clone)]
pub(crate) struct Place(Arc<PlaceInner>);

struct PlaceInner {
    shared: Arc<Shared>,
    peer: std::net::IpAddr,
    state: std::sync::Mutex<PlaceState>,
}

#[derive(Default)]
struct PlaceState {
    permit: Option<OwnedSemaphorePermit>,
    /// The verified caller's key ([`Caller::key`](crate::Caller::key)).
    caller: Option<Box<str>>,
    /// The key the place is counted under among the callers' shares.
    counted: Option<Box<str>>,
    /// Given up while a verification waited: taken again after it.
    given_up: bool,
}

impl Drop for PlaceInner {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(key) = state.counted.take() {
            self.shared.leave(&key);
        }
    }
}

impl Place {
    fn new(shared: Arc<Shared>, peer: std::net::IpAddr) -> Place {
        Place(Arc::new(PlaceInner { shared, peer, state: std::sync::Mutex::new(PlaceState::default()) }))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, PlaceState> {
        self.0.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn held(&self) -> bool {
        self.state().permit.is_some()
    }

    /// The key the caller's share is counted under.
    fn key(state: &PlaceState, peer: std::net::IpAddr) -> Box<str> {
        state.caller.clone().unwrap_or_else(|| format!("peer {peer}").into())
    }

    /// Counts the place under its caller's share.
    fn enter(&self, state: &mut PlaceState) -> Result<(), BodyRefused> {
        if state.counted.is_some() {
            return Ok(());
        }
        let key = Self::key(state, self.0.peer);
        if !self.0.shared.enter(&key) {
            return Err(self.rate_limited());
        }
        state.counted = Some(key);
        Ok(())
    }

    fn leave(&self, state: &mut PlaceState) {
        if let Some(key) = state.counted.take() {
            self.0.shared.leave(&key);
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

    /// Takes a place now, if one is free: `Ok(false)` when none is.
    fn take_now(&self) -> Result<bool, BodyRefused> {
        let mut state = self.state();
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
    async fn take(self) -> Result<(), BodyRefused> {
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

    /// A verification is about to wait: the place, if held, is given up until
    /// [`identified`](Self::identified).
    pub(crate) fn give_up(&self) {
        let mut state = self.state();
        if state.permit.take().is_some() {
            state.given_up = true;
        }
        self.leave(&mut state);
    }

    /// The caller is verified as `key`: the place is counted under that caller's share from
    /// now on (taken again, through the queue, if given up while the verification waited).
    ///
    /// # Errors
    /// `rate_limited` (429) when the caller already holds its share; `service_unavailable`
    /// (503) when no place came within the queue's wait. Either with `Retry-After`.
    pub(crate) async fn identified(&self, key: &str) -> Result<(), TransportError> {
        let retake = {
            let mut state = self.state();
            state.caller = Some(key.into());
            if state.counted.as_deref().is_some_and(|counted| counted != key) {
                self.leave(&mut state);
                if let Err(refused) = self.enter(&mut state) {
                    state.permit = None;
                    return Err(refused.transport_error());
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
async fn queued_place(shared: Arc<Shared>) -> Option<OwnedSemaphorePermit> {
    if let Ok(permit) = Arc::clone(&shared.in_flight).try_acquire_owned() {
        return Some(permit);
    }
    let _place = Queued::join(&shared)?;
    let in_flight = Arc::clone(&shared.in_flight);
    tokio::time::timeout(IN_FLIGHT_QUEUE_WAIT, in_flight.acquire_owned()).await.ok()?.ok()
}

/// A request handed to the router, with what its answer needs once it comes.
struct Routed {
    future: axum::routing::future::RouteFuture<Infallible>,
    /// Released when the answer comes (the bound on requests in flight).
    permit: Option<Place>,
    request: PerRequest,
    method: Method,
    uri: Uri,
}

impl Future for Answer {
    type Output = Result<Response<Ended>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Answer::Ready(response) => Poll::Ready(Ok(response.take().expect("an answer polled after it was given"))),
            Answer::Routed(routed) => {
                let response = match ready!(Pin::new(&mut routed.future).poll(cx)) {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                drop(routed.permit.take());
                let shaped = routed.request.shared.json_only(response, &routed.method, &routed.uri);
                Poll::Ready(Ok(routed.request.ended(shaped)))
            }
        }
    }
}

impl PerRequest {
    /// A response whose body, once written whole (dropped by hyper), starts the wait for the
    /// next head.
    fn ended(&self, response: Response<Body>) -> Response<Ended> {
        response.map(|body| Ended { body, phase: Arc::clone(&self.phase) })
    }
}

/// A response body, marking the connection's [`HeadClock`] `DONE` when hyper drops it (it has
/// taken its last frame, or will send none).
struct Ended {
    body: Body,
    phase: Arc<Tracked>,
}

impl hyper::body::Body for Ended {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl Drop for Ended {
    fn drop(&mut self) {
        let _ = self.phase.phase.compare_exchange(BUSY, DONE, Ordering::Relaxed, Ordering::Relaxed);
    }
}

impl hyper::service::Service<Request<Incoming>> for PerRequest {
    type Response = Response<Ended>;
    type Error = Infallible;
    type Future = Answer;

    fn call(&self, request: Request<Incoming>) -> Answer {
        // A whole head arrived: no header timeout until its response is written.
        self.phase.phase.store(BUSY, Ordering::Relaxed);
        self.phase.started.store(false, Ordering::Relaxed);
        let shared = Arc::clone(&self.shared);
        let peer = self.peer;
        if let Err(error) = shared.hosts.check(request.headers(), request.uri()) {
            tracing::info!(%peer, "request refused: {}", error.message());
            let response = error.into_response_as(shared.shape(request.uri().path()));
            return Answer::Ready(Some(self.ended(response)));
        }
        use hyper::body::Body as _;
        let refused = |bound: String| {
            tracing::warn!(%peer, "request refused: {bound}");
            let error = TransportError::service_unavailable(&bound, shared.limits.retry_after_seconds);
            let response = error.into_response_as(shared.shape(request.uri().path()));
            Answer::Ready(Some(self.ended(response)))
        };
        let place = Place::new(Arc::clone(&shared), peer.ip());
        let after_body = if request.body().is_end_stream() {
            match place.take_now() {
                Ok(true) => None,
                Ok(false) => {
                    return refused(format!(
                        "this server is at its bound of {} requests in flight",
                        shared.limits.max_in_flight
                    ));
                }
                Err(limited) => {
                    tracing::warn!(%peer, "request refused: {limited}");
                    let response = limited.transport_error().into_response_as(shared.shape(request.uri().path()));
                    return Answer::Ready(Some(self.ended(response)));
                }
            }
        } else {
            // A body is read before the request takes a place in flight: a client that sends
            // it slowly, or never, holds no place; its address holds a bounded number.
            let bound = shared.limits.max_bodies_per_peer;
            if self.bodies.fetch_add(1, Ordering::AcqRel) >= bound {
                self.bodies.fetch_sub(1, Ordering::AcqRel);
                return refused(format!(
                    "this address already sends this server's bound of {bound} request bodies at once"
                ));
            }
            Some((place.clone(), Arc::clone(&self.bodies)))
        };
        let method = request.method().clone();
        let uri = request.uri().clone();
        let (mut parts, body) = request.into_parts();
        parts.extensions.insert(place.clone());
        let body = Body::new(Budgeted::new(body, Arc::clone(&shared), peer, after_body));
        let future = shared.router.clone().call(Request::from_parts(parts, body));
        Answer::Routed(Routed { future, permit: Some(place), request: self.clone(), method, uri })
    }
}

/// The bytes of bodies held across all connections.
struct Budget {
    held: AtomicUsize,
    limit: usize,
}

impl Budget {
    fn take(&self, bytes: usize) -> bool {
        self.held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(bytes).filter(|total| *total <= self.limit)
            })
            .is_ok()
    }

    fn release(&self, bytes: usize) {
        if bytes > 0 {
            self.held.fetch_sub(bytes, Ordering::AcqRel);
        }
    }
}

type BoxError = Box<dyn StdError + Send + Sync>;

/// A request body under the server's bounds: its chunks counted against the shared budget as
/// they arrive (released when the body is dropped), its deadline and minimum rate, and, once
/// read whole, its request's place in flight.
struct Budgeted {
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
    bodies: Option<Arc<AtomicUsize>>,
    /// The wait for a place in flight, once the body has ended.
    queued: Option<Taking>,
    ended: bool,
}

/// A request's wait for its place in flight ([`Place::take`]).
type Taking = Pin<Box<dyn Future<Output = Result<(), BodyRefused>> + Send>>;

impl Budgeted {
    fn new(
        inner: Incoming,
        shared: Arc<Shared>,
        peer: SocketAddr,
        after_body: Option<(Place, Arc<AtomicUsize>)>,
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
        if let Some(bodies) = self.bodies.take() {
            bodies.fetch_sub(1, Ordering::AcqRel);
        }
    }

    fn fail(&mut self, refused: BodyRefused) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        self.failed = true;
        self.due = None;
        self.deadline = None;
        self.leave_bodies();
        match &refused {
            BodyRefused::Timeout { .. } | BodyRefused::TooSlow { .. } => {
                tracing::info!(peer = %self.peer, "request body refused: {refused}");
            }
            BodyRefused::Budget { .. } | BodyRefused::Busy { .. } | BodyRefused::RateLimited { .. } => {
                tracing::warn!(peer = %self.peer, "request body refused: {refused}");
            }
        }
        Poll::Ready(Some(Err(Box::new(refused))))
    }

    /// The body has ended: its request takes its place in flight, waiting in the queue at
    /// most [`IN_FLIGHT_QUEUE_WAIT`] (and only while the queue is shorter than the places).
    fn poll_slot(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        self.leave_bodies();
        let Some(place) = self.slot.clone() else { return Poll::Ready(None) };
        if self.queued.is_none() {
            if place.held() {
                return Poll::Ready(None);
            }
            self.queued = Some(Box::pin(place.take()));
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

/// How long a request whose body is read waits for a place in flight before it is answered
/// `503`: a burst of calls is queued briefly rather than refused.
const IN_FLIGHT_QUEUE_WAIT: Duration = Duration::from_secs(1);

/// A place in the queue for a place in flight: at most `max_in_flight` requests wait at once.
struct Queued(Arc<Shared>);

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

/// The socket of a connection: gives hyper's own answers to an unparsable request head (empty
/// 400, 414, 431) a JSON body (hyper writes them before any service runs, as one buffer
/// holding a head alone), and closes with a lingering drain.
struct Shaped {
    stream: TcpStream,
    head: HeadClock,
    max_header_bytes: usize,
    /// A replacement being written, and how much of it is.
    replacement: Option<(Vec<u8>, usize)>,
    /// A replacement was written: the connection ends after it.
    ended: bool,
    /// The deadline of the draining after the sending side is shut.
    linger: Option<Pin<Box<tokio::time::Sleep>>>,
    /// [`Serve::write_stall_timeout`], and the deadline of a write that is waiting (made on
    /// the first write that waits, and kept for the connection's later ones).
    stall_timeout: Duration,
    stall: Option<Pin<Box<tokio::time::Sleep>>>,
    stalled: bool,
    peer: SocketAddr,
}

impl Shaped {
    fn new(
        stream: TcpStream,
        max_header_bytes: usize,
        head: HeadClock,
        stall_timeout: Duration,
        peer: SocketAddr,
    ) -> Self {
        Shaped {
            stream,
            head,
            max_header_bytes,
            replacement: None,
            ended: false,
            linger: None,
            stall_timeout,
            stall: None,
            stalled: false,
            peer,
        }
    }

    /// A write to the socket that waits: its deadline set on its first wait (the task woken
    /// then); past it, the error the write ends with. Any progress clears the wait.
    fn waited<T>(&mut self, cx: &mut Context<'_>, polled: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.stalled = false;
            return polled;
        }
        let deadline = tokio::time::Instant::now() + self.stall_timeout;
        let stall = self.stall.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if !self.stalled {
            stall.as_mut().reset(deadline);
            self.stalled = true;
        }
        if stall.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        tracing::info!(
            peer = %self.peer,
            "connection closed: the client read none of a response for {} ms",
            self.stall_timeout.as_millis()
        );
        Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client reads no response")))
    }

    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.replacement {
            if *written == bytes.len() {
                self.replacement = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.stream).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }
}

/// [`HeadClock`] phases: a request is being answered (no header timeout); its response's body
/// is written to hyper's buffer (the wait starts once it is flushed to the socket); a new
/// connection's first head is awaited (its deadline set at the first read); a head is awaited
/// (its deadline set).
const BUSY: u8 = 0;
const DONE: u8 = 1;
const REARM: u8 = 2;
const WAITING: u8 = 3;

/// The header read timeout of one connection ([`Serve::header_read_timeout`]): from when the
/// connection opens, and from a response's last byte written, the next head must arrive whole
/// within the timeout, or the connection is closed unanswered. One timer per connection (hyper's
/// own timeout makes and drops one per request), moved on lazily: each wait for a head only
/// notes when it began, and a timer that fires before that wait's deadline is moved to it then,
/// so a connection answering many requests a second resets its timer about once a timeout.
struct HeadClock {
    timeout: Duration,
    /// Fires at or before the deadline of the wait in progress.
    sleep: Pin<Box<tokio::time::Sleep>>,
    /// When the wait in progress began: its deadline is this plus `timeout`.
    since: tokio::time::Instant,
    /// The timer was polled since it was last set: it wakes this task when it fires.
    registered: bool,
    /// `phase`: `REARM` on a new connection; `BUSY` from a head's arrival (set by
    /// [`PerRequest`]), `DONE` once its response's body is dropped by hyper ([`Ended`]),
    /// `WAITING` once flushed.
    tracked: Arc<Tracked>,
    peer: SocketAddr,
    /// [`Serve::min_data_rate`], and the first byte of the head awaited, with the bytes read
    /// since (a head under the rate is closed as one past its timeout).
    min_rate: usize,
    first: Option<tokio::time::Instant>,
    bytes: usize,
}

/// The error a connection whose head did not arrive in time ends with.
#[derive(Debug)]
struct HeadTimedOut;

impl fmt::Display for HeadTimedOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no whole request head within the header read timeout")
    }
}

impl StdError for HeadTimedOut {}

impl HeadClock {
    fn new(timeout: Duration, min_rate: usize, tracked: Arc<Tracked>, peer: SocketAddr) -> Self {
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
    fn received(&mut self, n: usize) {
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
    fn bring_forward(&mut self) {
        if self.first.is_some() && self.min_rate > 0 {
            let due = self.due();
            if self.sleep.deadline() > due {
                self.sleep.as_mut().reset(due);
                self.registered = false;
            }
        }
    }

    /// Polls the timer (registering it with this task): whether it fired.
    fn poll_fired(&mut self, cx: &mut Context<'_>) -> bool {
        self.registered = true;
        self.sleep.as_mut().poll(cx).is_ready()
    }

    /// The timer fired while a head is awaited: whether the wait's deadline has passed; if not
    /// (the timer was set for an earlier wait), the timer is moved to it.
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
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
    fn waiting(&mut self) -> bool {
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
    fn flushed(&mut self, cx: &mut Context<'_>) {
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
    fn end(&mut self) -> io::Error {
        if self.tracked.phase.swap(BUSY, Ordering::Relaxed) != BUSY {
            if tokio::time::Instant::now() < self.since + self.timeout {
                tracing::info!(
                    peer = %self.peer,
                    "connection closed: a request head arriving under {} bytes a second ({} bytes)",
                    self.min_rate,
                    self.bytes
                );
            } else {
                tracing::info!(
                    peer = %self.peer,
                    "connection closed: no whole request head within {} ms",
                    self.timeout.as_millis()
                );
            }
        }
        io::Error::new(io::ErrorKind::TimedOut, HeadTimedOut)
    }

    /// Whether hyper's connection ended with [`end`](Self::end)'s error.
    fn ended(e: &hyper::Error) -> bool {
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

/// hyper's own answer to a head it could not parse (`role.rs`, `on_error`): a status line
/// and no fields but `content-length: 0`, `date` and `connection`; the error to answer
/// instead, and hyper's `date` line.
fn hyper_error_head(buf: &[u8], max_header_bytes: usize) -> Option<(TransportError, u16, &'static str, &[u8])> {
    const HEADS: [(&[u8], u16, &str); 3] = [
        (b"HTTP/1.1 400 Bad Request\r\n", 400, "Bad Request"),
        (b"HTTP/1.1 414 URI Too Long\r\n", 414, "URI Too Long"),
        (b"HTTP/1.1 431 Request Header Fields Too Large\r\n", 431, "Request Header Fields Too Large"),
    ];
    let (line, status, reason) = HEADS.iter().find(|(line, ..)| buf.starts_with(line))?;
    let fields = buf[line.len()..].strip_suffix(b"\r\n\r\n")?;
    let mut date: &[u8] = &[];
    let mut has_length = false;
    for field in fields.split(|&b| b == b'\n') {
        let field = field.strip_suffix(b"\r").unwrap_or(field);
        let lower = field.to_ascii_lowercase();
        if lower == b"content-length: 0" {
            has_length = true;
        } else if lower.starts_with(b"date: ") {
            date = field;
        } else if !lower.starts_with(b"connection: ") {
            return None;
        }
    }
    if !has_length {
        return None;
    }
    let error = match status {
        400 => TransportError::malformed_request(),
        414 => TransportError::uri_too_long(65_534),
        _ => TransportError::header_fields_too_large(max_header_bytes),
    };
    Some((error, *status, reason, date))
}

impl AsyncRead for Shaped {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(Ok(()));
        }
        let waiting = this.head.waiting();
        if waiting && this.head.sleep.is_elapsed() && this.head.expired(cx) {
            return Poll::Ready(Err(this.head.end()));
        }
        let before = buf.filled().len();
        let read = Pin::new(&mut this.stream).poll_read(cx, buf);
        if waiting && read.is_ready() {
            this.head.received(buf.filled().len() - before);
        }
        // Waiting for a head, and none here yet (or not the whole): woken at its deadline.
        if read.is_pending() && waiting {
            this.head.bring_forward();
            if this.head.poll_fired(cx) && this.head.expired(cx) {
                return Poll::Ready(Err(this.head.end()));
            }
        }
        read
    }
}

impl AsyncWrite for Shaped {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        if this.ended {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        if let Some((error, status, reason, date)) = hyper_error_head(buf, this.max_header_bytes) {
            let kind = error.kind();
            debug_assert!(matches!(
                kind,
                TransportErrorKind::MalformedRequest
                    | TransportErrorKind::UriTooLong
                    | TransportErrorKind::HeaderFieldsTooLarge
            ));
            let date = (!date.is_empty()).then_some(date);
            this.replacement = Some((raw_response(status, reason, &error, date), 0));
            this.ended = true;
            if let Poll::Ready(Err(e)) = this.drain(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        let polled = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.waited(cx, polled)
    }

    /// hyper flushes once its write buffer is empty (one buffer per write, `writev(false)`):
    /// after a response's last byte, the wait for the next head starts.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        ready!(Pin::new(&mut this.stream).poll_flush(cx))?;
        this.head.flushed(cx);
        Poll::Ready(Ok(()))
    }

    /// Ends the connection's sending side, then reads and discards what the client still sends
    /// (a body the server did not read) until the client ends its side or [`LINGER`] passes:
    /// closing a socket with unread data resets the connection, and a client still sending
    /// would lose the answer.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        if this.linger.is_none() {
            ready!(Pin::new(&mut this.stream).poll_shutdown(cx))?;
            this.linger = Some(Box::pin(tokio::time::sleep(LINGER)));
        }
        let mut buf = [0u8; 8192];
        loop {
            if this.linger.as_mut().is_none_or(|linger| linger.as_mut().poll(cx).is_ready()) {
                return Poll::Ready(Ok(()));
            }
            let mut read = ReadBuf::new(&mut buf);
            match Pin::new(&mut this.stream).poll_read(cx, &mut read) {
                Poll::Ready(Ok(())) if !read.filled().is_empty() => {}
                Poll::Ready(_) => return Poll::Ready(Ok(())),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        false
    }
}

/// The `Host` values a server answers: the defence against DNS rebinding for the requests a
/// browser sends without `Origin` (a page on `rebind.example`, its name now resolving to
/// 127.0.0.1, sends `GET /manifest` with `Host: rebind.example:8080`). A request naming another
/// host, in `Host` or in an absolute request target (RFC 9112 §3.2.2), is answered
/// `forbidden_host` (403). A request without either (HTTP/1.0, some programs) is served.
///
/// ```
/// use envelope_core::http::AllowedHosts;
/// use axum::http::{HeaderMap, Uri};
///
/// let hosts = AllowedHosts::loopback().allow("mcp.example.com");
/// let host = |value: &str| {
///     let mut headers = HeaderMap::new();
///     headers.insert("host", value.parse().unwrap());
///     hosts.check(&headers, &Uri::from_static("/mcp")).map_err(|e| e.word())
/// };
/// assert_eq!(host("localhost:8080"), Ok(()));
/// assert_eq!(host("[::1]:8080"), Ok(()));
/// assert_eq!(host("MCP.example.com:443"), Ok(()));
/// assert_eq!(host("rebind.example:8080"), Err("forbidden_host"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct AllowedHosts {
    any: bool,
    loopback: bool,
    /// Lowercase names, each with the one port it is served on, or any port.
    names: Vec<(String, Option<u16>)>,
}

/// Whether a `Host` value is `127.0.0.1`, `localhost` or `[::1]`, with or without a port of 1
/// to 5 digits: loopback hosts [`AllowedHosts::check_one`] serves, in their usual spelling.
fn is_plain_loopback(value: &[u8]) -> bool {
    let port = |rest: &[u8]| match rest.strip_prefix(b":") {
        None => rest.is_empty(),
        Some(digits) => {
            (1..=5).contains(&digits.len())
                && digits[0] != b'0'
                && digits.iter().all(u8::is_ascii_digit)
                && digits.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0')) <= 65_535
        }
    };
    [b"127.0.0.1".as_slice(), b"localhost", b"[::1]"].iter().any(|name| value.strip_prefix(*name).is_some_and(port))
}

impl AllowedHosts {
    /// Loopback names only, with any port: `localhost` and `*.localhost` (RFC 6761 §6.3),
    /// `127.0.0.0/8` and `[::1]`. No DNS-rebinding page can be served under them.
    pub fn loopback() -> Self {
        AllowedHosts { any: false, loopback: true, names: Vec::new() }
    }

    /// No name: only the hosts [`allow`](Self::allow) adds.
    pub fn none() -> Self {
        AllowedHosts::default()
    }

    /// Every host: no check.
    pub fn any() -> Self {
        AllowedHosts { any: true, loopback: true, names: Vec::new() }
    }

    /// Also serves `host`: a name or address with any port (`"mcp.example.com"`,
    /// `"192.168.1.20"`, `"[fd00::1]"`), or with one port (`"mcp.example.com:8443"`), compared
    /// case-insensitively.
    #[must_use]
    pub fn allow(mut self, host: impl AsRef<str>) -> Self {
        let host = host.as_ref().trim().to_ascii_lowercase();
        let entry = match Authority::from_str(&host) {
            Ok(authority) => (authority.host().trim_end_matches('.').to_owned(), authority.port_u16()),
            Err(_) => (host, None),
        };
        self.names.push(entry);
        self
    }

    /// Checks one request's `Host` and request target.
    ///
    /// # Errors
    /// `forbidden_host` for a host not served, a `Host` sent twice or not a valid
    /// `host[:port]`.
    pub fn check(&self, headers: &HeaderMap, uri: &Uri) -> Result<(), TransportError> {
        if self.any {
            return Ok(());
        }
        let mut values = headers.get_all(header::HOST).iter();
        let first = values.next();
        if values.next().is_some() {
            return Err(self.refuse("(sent twice)"));
        }
        if let Some(authority) = uri.authority() {
            self.check_one(authority.as_str())?;
        }
        match first {
            // The usual request to a loopback server, checked without parsing.
            Some(value) if self.loopback && is_plain_loopback(value.as_bytes()) => Ok(()),
            Some(value) => self.check_one(&String::from_utf8_lossy(value.as_bytes())),
            None => Ok(()),
        }
    }

    fn check_one(&self, value: &str) -> Result<(), TransportError> {
        let served = !value.contains('@')
            && Authority::from_str(value).is_ok_and(|authority| {
                let host = authority.host().to_ascii_lowercase();
                let host = host.trim_end_matches('.');
                (self.loopback && host_is_loopback(host))
                    || self
                        .names
                        .iter()
                        .any(|(name, port)| name == host && port.is_none_or(|p| Some(p) == authority.port_u16()))
            });
        if served { Ok(()) } else { Err(self.refuse(value)) }
    }

    fn refuse(&self, value: &str) -> TransportError {
        let mut served: Vec<String> = Vec::new();
        if self.loopback {
            served.extend(["localhost".to_owned(), "127.0.0.1".to_owned(), "[::1]".to_owned()]);
        }
        served.extend(self.names.iter().take(10).map(|(name, port)| match port {
            Some(port) => format!("{name}:{port}"),
            None => name.clone(),
        }));
        let served = match served.split_last() {
            None => "a host this server is configured to serve".to_owned(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        };
        TransportError::forbidden_host(value, &served)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyper_error_heads_and_only_those_are_replaced() {
        let date = "date: Tue, 01 Dec 2026 12:17:49 GMT";
        let head = format!("HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n{date}\r\n\r\n");
        let (error, status, reason, kept) = hyper_error_head(head.as_bytes(), 16_384).unwrap();
        assert_eq!((error.word(), status, reason), ("header_fields_too_large", 431, "Request Header Fields Too Large"));
        assert_eq!(kept, date.as_bytes());
        let replaced = String::from_utf8(raw_response(status, reason, &error, Some(kept))).unwrap();
        assert_eq!(
            replaced,
            format!(
                "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
                 connection: close\r\n{date}\r\n\r\n{}",
                error.to_json().len(),
                error.to_json()
            )
        );
        let bad = "HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(hyper_error_head(bad.as_bytes(), 16_384).unwrap().0.word(), "malformed_request");

        // A response of a route, or more than a head, is written as it is.
        for other in [
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}",
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
            "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n",
        ] {
            assert!(hyper_error_head(other.as_bytes(), 16_384).is_none(), "{other:?}");
        }
    }

    /// `router` served on a loopback port with a header read timeout of `ms` milliseconds.
    async fn served_with_header_timeout(router: Router, ms: u64) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(serve(listener, router).header_read_timeout(Duration::from_millis(ms)).into_future());
        addr
    }

    /// Sends `request` on `stream` and reads its answer (within 5 s), as text.
    async fn exchanged(stream: &mut TcpStream, request: &[u8], buf: &mut [u8]) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        stream.write_all(request).await.unwrap();
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(buf)).await.unwrap().unwrap();
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }

    /// Sends nothing more and reads until the server closes `stream` (within 5 s): asserts it
    /// was closed unanswered, no sooner than `at_least` and within 3 s.
    async fn closed_unanswered_once_idle(stream: &mut TcpStream, buf: &mut [u8], at_least: Duration) {
        use tokio::io::AsyncReadExt;
        let started = std::time::Instant::now();
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read(buf)).await;
        let n = read.expect("the idle connection is closed").unwrap_or(0);
        let waited = started.elapsed();
        assert_eq!(n, 0, "{}", String::from_utf8_lossy(&buf[..n]));
        assert!(waited >= at_least && waited < Duration::from_secs(3), "{waited:?}");
    }

    /// Asserts `reply` is the quick route's answer.
    fn assert_quick(reply: &str, i: usize) {
        assert!(reply.starts_with("HTTP/1.1 200 OK") && reply.ends_with("{}"), "request {i}: {reply:?}");
    }

    const GET_QUICK: &[u8] = b"GET /quick HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n";

    fn quick() -> Router {
        Router::new().route("/quick", axum::routing::get(|| async { "{}" }))
    }

    /// The header read timeout runs from a connection's start and from each response's last
    /// byte: a kept-alive connection serves requests sent within it (however long each took
    /// to answer), and is closed unanswered once idle past it.
    #[tokio::test]
    async fn the_header_timeout_runs_from_each_response() {
        let router = Router::new().route(
            "/slow",
            axum::routing::get(|| async {
                tokio::time::sleep(Duration::from_millis(400)).await;
                "{}"
            }),
        );
        let addr = served_with_header_timeout(router, 250).await;
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = b"GET /slow HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n";
        let mut buf = vec![0u8; 4096];
        for _ in 0..3 {
            // Each answer takes longer than the timeout; the next head follows it at once.
            let reply = exchanged(&mut stream, request, &mut buf).await;
            assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
            assert!(reply.ends_with("{}"), "{reply}");
        }
        // Idle: closed with no answer once the timeout has passed since the last response.
        closed_unanswered_once_idle(&mut stream, &mut buf, Duration::from_millis(200)).await;
    }

    /// Quick requests sent every 200 ms for 1.2 s, under a 300 ms header timeout: the timer
    /// set for an earlier wait fires while a later one is in progress, and is moved to that
    /// wait's deadline instead of closing the connection; once idle, it is closed.
    #[tokio::test]
    async fn the_header_timeout_is_moved_on_by_each_quick_request() {
        let addr = served_with_header_timeout(quick(), 300).await;
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let mut buf = vec![0u8; 4096];
        for i in 0..6 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let reply = exchanged(&mut stream, GET_QUICK, &mut buf).await;
            assert_quick(&reply, i);
        }
        closed_unanswered_once_idle(&mut stream, &mut buf, Duration::from_millis(250)).await;
    }

    /// A request sent with the connection (its head already there at the first read), then
    /// nothing: the connection is closed once idle past the timeout since its response.
    #[tokio::test]
    async fn a_connection_idle_after_its_first_request_is_closed() {
        let addr = served_with_header_timeout(quick(), 300).await;
        let mut buf = vec![0u8; 4096];
        for requests in [1, 3] {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            for i in 0..requests {
                // Sent at once, with the connection and then after each answer.
                let reply = exchanged(&mut stream, GET_QUICK, &mut buf).await;
                assert_quick(&reply, i);
            }
            closed_unanswered_once_idle(&mut stream, &mut buf, Duration::from_millis(250)).await;
        }
    }

    /// A client that sends requests and reads none of the answers holds its connection no
    /// longer than the write stall timeout: once the socket's buffers are full, the server
    /// closes it, with most of the answers never written.
    #[tokio::test]
    async fn a_client_that_reads_nothing_is_closed_after_the_write_stall_timeout() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        const BODY: usize = 256 << 10;
        const REQUESTS: usize = 64;
        let router = Router::new().route("/big", axum::routing::get(|| async { "x".repeat(BODY) }));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(serve(listener, router).write_stall_timeout(Duration::from_millis(300)).into_future());
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = b"GET /big HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n".repeat(REQUESTS);
        stream.write_all(&request).await.unwrap();
        // Read nothing while the server fills the socket's buffers and waits.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let mut buf = vec![0u8; 1 << 16];
        let mut received = 0;
        let drained = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => received += n,
                }
            }
        })
        .await;
        assert!(drained.is_ok(), "the connection stayed open; {received} bytes read");
        assert!(received < REQUESTS * BODY, "every answer was written: {received} bytes");
    }

    #[test]
    fn the_budget_counts_and_releases() {
        let budget = Budget { held: AtomicUsize::new(0), limit: 100 };
        assert!(budget.take(60));
        assert!(!budget.take(41));
        assert!(budget.take(40));
        assert!(!budget.take(1));
        budget.release(60);
        assert!(budget.take(60));
        assert!(!budget.take(usize::MAX));
    }

    #[test]
    fn hosts() {
        let check = |hosts: &AllowedHosts, value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, value.parse().unwrap());
            hosts.check(&headers, &Uri::from_static("/")).is_ok()
        };
        let loopback = AllowedHosts::loopback();
        for served in
            ["localhost", "localhost:8080", "LOCALHOST.", "app.localhost:3000", "127.0.0.1", "127.1.2.3:80", "[::1]:1"]
        {
            assert!(check(&loopback, served), "{served}");
        }
        for refused in
            ["evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "[::2]", "user@localhost", "", "local host"]
        {
            assert!(!check(&loopback, refused), "{refused}");
        }
        let named = AllowedHosts::none().allow("API.example.com").allow("admin.example.com:8443");
        assert!(check(&named, "api.example.com:443"));
        assert!(check(&named, "admin.example.com:8443"));
        assert!(!check(&named, "admin.example.com:443"));
        assert!(!check(&named, "localhost"));
        assert!(check(&AllowedHosts::any(), "anything.example"));
        // The usual spellings are served without parsing, and only what the parse serves.
        for value in ["127.0.0.1:8080", "localhost", "[::1]:65535", "localhost:1", "127.0.0.1:65536", "localhost:0"] {
            let parsed = loopback.check_one(value).is_ok();
            assert!(!is_plain_loopback(value.as_bytes()) || parsed, "{value}");
        }
        for value in ["127.0.0.1:65536", "localhost:", "localhost:080", "localhost.evil", "[::1]x", "127.0.0.10"] {
            assert!(!is_plain_loopback(value.as_bytes()), "{value}");
        }
        assert!(is_plain_loopback(b"127.0.0.1:8080") && is_plain_loopback(b"localhost"));
        // No Host at all (HTTP/1.0): served.
        assert!(loopback.check(&HeaderMap::new(), &Uri::from_static("/")).is_ok());
    }
}
