//! The HTTP/1.1 server of envelope's routers, bounded for a public network: [`serve`].

use std::fmt;
use std::future::{Future, IntoFuture};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

mod accept;
mod body;
mod head;
mod hosts;
mod in_flight;
mod peers;
mod refusals;
mod request;
mod shared;
mod socket;
#[cfg(test)]
mod tests;

pub use hosts::AllowedHosts;
pub(crate) use in_flight::Place;
use peers::Registry;
use refusals::raw_response;
use shared::{Budget, ServerLimits, Shared};

use crate::http::transport::TransportError;

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
/// | a caller (verified subject, else the address) past its share, [`max_in_flight_per_caller`](Serve::max_in_flight_per_caller) (its open event streams counted) | 429, `Retry-After` | `rate_limited` |
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
        limits: ServerLimits::default(),
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
    limits: ServerLimits,
    hosts: Option<AllowedHosts>,
    routes: Vec<String>,
    json_rpc_paths: Vec<String>,
    shutdown: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
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
    /// head (an unfinished head, or an idle kept-alive connection) or writes the event stream
    /// of a `GET` (an MCP session's stream for server messages, which its client reopens): the
    /// one waiting longest of the peer address holding the most such connections, so that a
    /// flood from some addresses never keeps another address out. When every connection is serving a request, a new one
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
    /// A response that is an event stream (`text/event-stream`: an MCP session's `GET`, a call
    /// answered with notifications) counts under its caller's share until the stream ends (it
    /// gives back its place under `max_in_flight` once its head is written), so one caller
    /// holds at most this many streams open.
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
    /// connection has closed. Dropping the server's future (its task aborted) stops it the same
    /// way, without waiting: each connection, on its own task, finishes its request (answered
    /// with `connection: close`) and closes.
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
        let shutdown = self.shutdown.unwrap_or_else(|| Box::pin(std::future::pending()));
        accept::accept(self.listener, shared, shutdown).await
    }
}

impl IntoFuture for Serve {
    type Output = io::Result<()>;
    type IntoFuture = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}
