use std::future::IntoFuture;
use std::net::SocketAddr;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, Uri, header};
use tokio::net::{TcpListener, TcpStream};

use super::hosts::{AllowedHosts, is_plain_loopback};
use super::refusals::{hyper_error_head, raw_response};
use super::serve;
use super::shared::Budget;

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

/// What every connection shares, with `max_in_flight` places and a share of `share` a caller.
fn shared_with_share(max_in_flight: usize, share: usize) -> std::sync::Arc<super::shared::Shared> {
    let limits =
        super::shared::ServerLimits { max_in_flight, max_in_flight_per_caller: Some(share), ..Default::default() };
    std::sync::Arc::new(super::shared::Shared {
        router: Router::new(),
        hosts: AllowedHosts::any(),
        routes: Vec::new(),
        json_rpc_paths: Vec::new(),
        in_flight: std::sync::Arc::new(tokio::sync::Semaphore::new(max_in_flight)),
        budget: Budget { held: AtomicUsize::new(0), limit: limits.body_budget_bytes },
        queued: AtomicUsize::new(0),
        callers: std::sync::Mutex::default(),
        share,
        busy_reply: axum::body::Bytes::new(),
        heads_reply: axum::body::Bytes::new(),
        registry: super::peers::Registry::default(),
        limits,
    })
}

/// A connection of `ip`, registered as `serve` registers one: its tracking, and what its
/// address's connections count together.
fn connect(
    shared: &super::shared::Shared,
    ip: std::net::IpAddr,
) -> (std::sync::Arc<super::peers::Tracked>, std::sync::Arc<super::peers::PeerCounts>) {
    let tracked = std::sync::Arc::new(super::peers::Tracked::new());
    let counts = shared.registry.add(ip, &tracked);
    (tracked, counts)
}

/// An address holds its share of places; another address, and a verified caller from the same
/// address, hold shares of their own; a place dropped gives its count back; an address is kept
/// while it has a connection open or a place counted, and forgotten after the last of them.
#[tokio::test]
async fn each_address_and_each_verified_caller_holds_its_own_share() {
    use super::in_flight::Place;
    use std::sync::Arc;
    let shared = shared_with_share(16, 2);
    let (a, b) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
    // A connection of each address, as `serve` registers it.
    let connection = |ip| connect(&shared, ip);
    let (conn_a, counts_a) = connection(a);
    let (conn_b, counts_b) = connection(b);
    let place = |counts: &Arc<super::peers::PeerCounts>, ip| Place::new(shared.clone(), ip, Arc::clone(counts));
    let first = place(&counts_a, a);
    let second = place(&counts_a, a);
    assert_eq!(first.take_now().ok(), Some(true));
    assert_eq!(second.take_now().ok(), Some(true));
    let third = place(&counts_a, a);
    assert!(third.take_now().is_err(), "past its share, an address is refused");
    let other = place(&counts_b, b);
    assert_eq!(other.take_now().ok(), Some(true), "another address has its own share");
    // Another connection of the same address counts with the first.
    let (conn_a2, counts_a2) = connection(a);
    assert!(Arc::ptr_eq(&counts_a, &counts_a2), "an address's connections count together");
    assert!(place(&counts_a2, a).take_now().is_err(), "its share holds across its connections");

    // Verified as alice, the second place moves to alice's share: the address has room again.
    second.identified(Some("sub:alice")).await.expect("within alice's share");
    assert_eq!(third.take_now().ok(), Some(true));
    // Verified before its place is taken (a request whose body is still to come).
    let bob = place(&counts_a, a);
    bob.identified(Some("sub:bob")).await.expect("bob's share is his own");
    assert_eq!(bob.take_now().ok(), Some(true));
    let alice = place(&counts_a, a);
    alice.identified(Some("sub:alice")).await.expect("alice's second place");
    assert_eq!(alice.take_now().ok(), Some(true));
    let alice_third = place(&counts_a, a);
    alice_third.identified(Some("sub:alice")).await.expect("not counted yet");
    assert!(alice_third.take_now().is_err(), "past alice's share, alice is refused");

    // Verified as no one (a hook that let an anonymous caller through): still its address's.
    let anonymous = place(&counts_a, a);
    anonymous.identified(None).await.expect("nothing to move");
    assert!(anonymous.take_now().is_err(), "an anonymous caller counts under its address");
    let c = "10.0.0.3".parse().unwrap();
    let (conn_c, counts_c) = connection(c);
    let elsewhere = place(&counts_c, c);
    elsewhere.identified(None).await.expect("nothing to move");
    assert_eq!(elsewhere.take_now().ok(), Some(true), "anonymous callers elsewhere keep their own shares");
    drop(elsewhere);
    shared.registry.remove(c, &conn_c);
    assert_eq!(shared.registry.addresses(), 2, "an address without a connection or a place is forgotten");

    // A place dropped gives its count back.
    drop(first);
    assert_eq!(place(&counts_a, a).take_now().ok(), Some(true));
    assert_eq!(shared.callers.lock().unwrap().len(), 2, "alice and bob");
    drop((alice, alice_third));
    assert_eq!(shared.callers.lock().unwrap().len(), 2, "alice still holds the second place");
    drop(second);
    assert_eq!(shared.callers.lock().unwrap().len(), 1, "a caller without a place is forgotten");

    // An address whose last connection ends while a request still holds a place is kept until
    // that place leaves: a new connection of it meanwhile counts with that place.
    shared.registry.remove(b, &conn_b);
    assert_eq!(shared.registry.addresses(), 2, "b still holds a place");
    let (conn_b2, counts_b2) = connection(b);
    assert!(Arc::ptr_eq(&counts_b, &counts_b2), "the new connection counts with the place still held");
    shared.registry.remove(b, &conn_b2);
    drop(other);
    assert_eq!(shared.registry.addresses(), 1, "b is forgotten with its last place");
    shared.registry.remove(a, &conn_a);
    assert_eq!(shared.registry.addresses(), 1, "a's second connection is open");
    shared.registry.remove(a, &conn_a2);
    assert_eq!(shared.registry.addresses(), 1, "a still holds a place");
    drop(third);
    assert_eq!(shared.registry.addresses(), 0, "a is forgotten with its last place");
}

/// A connection of `ip` with a place taken, as a request without a body holds one.
fn connection_with_a_place(
    shared: &std::sync::Arc<super::shared::Shared>,
    ip: std::net::IpAddr,
) -> (std::sync::Arc<super::peers::Tracked>, std::sync::Arc<super::peers::PeerCounts>, super::in_flight::Place) {
    let (tracked, counts) = connect(shared, ip);
    let place = super::in_flight::Place::new(shared.clone(), ip, std::sync::Arc::clone(&counts));
    assert_eq!(place.take_now().ok(), Some(true));
    (tracked, counts, place)
}

/// Ends the connection `tracked` of `ip` on a thread of its own, once `barrier` lets it go.
fn close_at(
    barrier: &std::sync::Arc<std::sync::Barrier>,
    shared: &std::sync::Arc<super::shared::Shared>,
    ip: std::net::IpAddr,
    tracked: std::sync::Arc<super::peers::Tracked>,
) -> std::thread::JoinHandle<()> {
    let (shared, barrier) = (shared.clone(), std::sync::Arc::clone(barrier));
    std::thread::spawn(move || {
        barrier.wait();
        shared.registry.remove(ip, &tracked);
    })
}

/// The last connection's end (`Registry::remove`) and the last place's leaving
/// (`Registry::place_left`) race on two threads, many times over; however they interleave, the
/// address is forgotten once both are done, and its counts are back at zero.
#[test]
fn the_last_connection_and_the_last_place_leaving_at_once_forget_the_address() {
    use std::sync::{Arc, Barrier};
    let shared = shared_with_share(4, 4);
    let ip: std::net::IpAddr = "10.9.9.9".parse().unwrap();
    let barrier = Arc::new(Barrier::new(2));
    for round in 0..20_000 {
        let (tracked, counts, place) = connection_with_a_place(&shared, ip);
        let t = close_at(&barrier, &shared, ip, tracked);
        barrier.wait();
        if round % 2 == 0 {
            drop(place);
        } else {
            std::hint::spin_loop();
            drop(place);
        }
        t.join().unwrap();
        assert_eq!(shared.registry.addresses(), 0, "round {round}: the address is leaked");
        assert_eq!(counts.in_flight.load(std::sync::atomic::Ordering::SeqCst), 0);
    }
}

/// With a second connection opening meanwhile, the count it shares is the one the
/// place left, and its own places are bounded by the share together with the older ones.
#[test]
fn a_connection_opened_while_the_last_place_leaves_counts_with_it() {
    use super::in_flight::Place;
    use std::sync::{Arc, Barrier};
    let shared = shared_with_share(64, 2);
    let ip: std::net::IpAddr = "10.9.9.8".parse().unwrap();
    let barrier = Arc::new(Barrier::new(3));
    for round in 0..5_000 {
        let (first, _, place) = connection_with_a_place(&shared, ip);
        let closing = close_at(&barrier, &shared, ip, first);
        let (s2, b2) = (shared.clone(), Arc::clone(&barrier));
        let opening = std::thread::spawn(move || {
            b2.wait();
            let (second, counts2) = connect(&s2, ip);
            let p = Place::new(s2.clone(), ip, Arc::clone(&counts2));
            let taken = p.take_now().ok() == Some(true);
            (second, counts2, p, taken)
        });
        barrier.wait();
        drop(place);
        closing.join().unwrap();
        let (second, counts2, p, taken) = opening.join().unwrap();
        assert!(taken, "round {round}");
        // The second connection's counts are the registry's: a third place of the address is
        // counted with `p`, and the share holds.
        let q = Place::new(shared.clone(), ip, Arc::clone(&counts2));
        let r = Place::new(shared.clone(), ip, Arc::clone(&counts2));
        assert_eq!(q.take_now().ok(), Some(true), "round {round}");
        assert!(r.take_now().is_err(), "round {round}: past the share");
        drop((p, q, r));
        shared.registry.remove(ip, &second);
        assert_eq!(shared.registry.addresses(), 0, "round {round}: the address is leaked");
    }
}

/// The place of a request whose body is still being read (not counted yet) on a connection of
/// `ip` that then ends, with nothing counted: the registry forgets the address. Its counts too.
fn a_late_place(
    shared: &std::sync::Arc<super::shared::Shared>,
    ip: std::net::IpAddr,
) -> (super::in_flight::Place, std::sync::Arc<super::peers::PeerCounts>) {
    let (first, counts) = connect(shared, ip);
    let late = super::in_flight::Place::new(shared.clone(), ip, std::sync::Arc::clone(&counts));
    shared.registry.remove(ip, &first);
    (late, counts)
}

/// A place that is first counted after its connection has ended (a body read
/// to its end by a task that outlived the connection) is counted in counts the registry has
/// already forgotten: a new connection of the same address gets fresh counts, and the address
/// holds more than its share, unless the registry keeps the count where it sees it.
#[test]
fn a_place_counted_after_its_connection_ended_still_counts_for_its_address() {
    use super::in_flight::Place;
    use std::sync::Arc;
    let shared = shared_with_share(16, 2);
    let ip: std::net::IpAddr = "10.9.9.7".parse().unwrap();
    // A request whose body is still being read; its connection ends, nothing counted.
    let (late, _) = a_late_place(&shared, ip);
    assert_eq!(shared.registry.addresses(), 0);
    // The body ends (read by a task the connection's end did not stop): the place is counted.
    assert_eq!(late.take_now().ok(), Some(true));
    // A new connection of the same address.
    let (_second, counts2) = connect(&shared, ip);
    let a = Place::new(shared.clone(), ip, Arc::clone(&counts2));
    let b = Place::new(shared.clone(), ip, Arc::clone(&counts2));
    assert_eq!(a.take_now().ok(), Some(true));
    assert!(b.take_now().is_err(), "the address holds 3 places under a share of 2");
}

/// As above, with a new connection of the address opened before the late place is counted: the
/// count moves to that connection's counts, and the share holds there; every count is given back.
#[test]
fn a_place_counted_after_a_newer_connection_opened_counts_with_it() {
    use super::in_flight::Place;
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    let shared = shared_with_share(16, 2);
    let ip: std::net::IpAddr = "10.9.9.6".parse().unwrap();
    let (late, counts) = a_late_place(&shared, ip);
    let (second, counts2) = connect(&shared, ip);
    assert!(!Arc::ptr_eq(&counts, &counts2), "the address was forgotten in between");
    assert_eq!(late.take_now().ok(), Some(true));
    assert_eq!(counts2.in_flight.load(Ordering::SeqCst), 1, "counted with the newer connection");
    assert_eq!(counts.in_flight.load(Ordering::SeqCst), 0, "not in the forgotten counts");
    let a = Place::new(shared.clone(), ip, Arc::clone(&counts2));
    let b = Place::new(shared.clone(), ip, Arc::clone(&counts2));
    assert_eq!(a.take_now().ok(), Some(true));
    assert!(b.take_now().is_err(), "the late place and `a` fill the share of 2");
    drop((late, a, b));
    assert_eq!(counts2.in_flight.load(Ordering::SeqCst), 0);
    shared.registry.remove(ip, &second);
    assert_eq!(shared.registry.addresses(), 0);
}

/// The server's stop reaches every connection open, and every one registered after it (a
/// connection that waited for room while the server stopped); a connection closed to make room
/// stays closed however the server stops.
#[test]
fn a_stop_reaches_every_connection_and_a_close_outranks_it() {
    use std::task::{Context, Poll, Waker};
    let shared = shared_with_share(4, 4);
    let ending = |tracked: &super::peers::Tracked| tracked.poll_ending(&mut Context::from_waker(Waker::noop()));
    let ip = std::net::IpAddr::from([192, 0, 2, 1]);
    let (open, _) = connect(&shared, ip);
    let (_second, _) = connect(&shared, ip);
    let (other, _) = connect(&shared, std::net::IpAddr::from([192, 0, 2, 2]));
    assert_eq!(ending(&open), Poll::Pending);
    assert!(shared.registry.evict_one(std::net::IpAddr::from([192, 0, 2, 3]), 3));
    // The longest wait for a head, of the address holding the most: `open`, registered first.
    assert_eq!((ending(&open), ending(&other)), (Poll::Ready(super::peers::CLOSE), Poll::Pending));
    shared.registry.stop_all();
    assert_eq!((ending(&open), ending(&other)), (Poll::Ready(super::peers::CLOSE), Poll::Ready(super::peers::STOP)));
    let (late, _) = connect(&shared, ip);
    assert_eq!(ending(&late), Poll::Ready(super::peers::STOP));
}

/// The server's future dropped while a request is in flight: the request is answered, with
/// `connection: close`, and the connection then closed (not cut, not kept open).
#[tokio::test]
async fn a_dropped_server_finishes_the_request_in_flight_and_closes() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let slow = Router::new().route(
        "/slow",
        axum::routing::get(|| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            "{}"
        }),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(serve(listener, slow).into_future());
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(b"GET /slow HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n").await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    server.abort();
    let mut reply = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut reply)).await.unwrap().unwrap();
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 200 OK") && reply.ends_with("{}"), "{reply:?}");
    assert!(reply.to_ascii_lowercase().contains("connection: close"), "{reply:?}");
}
