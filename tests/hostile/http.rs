//! The HTTP server (`envelope_core::http::serve`) under attack on loopback: half-sent bodies,
//! heads trickled a byte at a time, more requests and connections than its bounds, paths and
//! heads it cannot serve, a foreign `Host`, header values of 16 KiB that a reply or a log line
//! could quote; and the example servers' `--token` and `RUST_LOG`.
//!
//! The two memory tests run the server in a child process (this test binary again, running
//! only [`child_server`]), so the resident memory they read is the server's alone: the other
//! tests of this binary run in parallel threads, and their allocations would count in this
//! process's own `VmRSS`. The other tests serve in-process with small limits.

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use envelope_core::http::{AllowedHosts, HttpTools, OriginLayer, Serve, serve};
use envelope_core::mcp::streamable::McpHttp;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, ChildStdout, Command};
use tokio::time::{sleep, timeout};

use crate::tools;

use crate::client;

/// The routes of the example server, as its `not_found` names them.
pub(super) const ROUTES: [&str; 4] = ["POST /mcp", "POST /tools/{name}", "GET /tools", "GET /manifest"];

/// The example server's app: MCP over Streamable HTTP at `/mcp`, the tool endpoints beside it.
pub(super) fn app() -> Router {
    let toolbox = tools::toolbox();
    McpHttp::new(toolbox.clone()).router().merge(HttpTools::new(toolbox).router().layer(OriginLayer::loopback()))
}

/// A loopback listener and its address.
pub(super) async fn bind() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (listener, addr)
}

/// A JSON response of a test route.
fn json_body(value: Value) -> impl axum::response::IntoResponse {
    ([(axum::http::header::CONTENT_TYPE, "application/json")], value.to_string())
}

/// Runs `server` on this test's runtime.
pub(super) fn spawn(server: Serve) {
    tokio::spawn(async move { server.await.unwrap() });
}

/// A response as read off the socket.
#[derive(Debug)]
pub(super) struct Raw {
    pub(super) status: u16,
    /// The head, field names lowercased.
    pub(super) head: String,
    pub(super) body: String,
}

impl Raw {
    pub(super) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}\n{}", self.head, self.body))
    }

    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(": "))
    }
}

/// Reads one response: the head, then `content-length` bytes of body.
async fn read_response(stream: &mut (impl AsyncRead + Unpin)) -> std::io::Result<Raw> {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        bytes.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let head: String = head
        .lines()
        .map(|l| match l.split_once(": ") {
            Some((name, value)) => format!("{}: {value}\n", name.to_ascii_lowercase()),
            None => format!("{l}\n"),
        })
        .collect();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let length: usize = head.lines().find_map(|l| l.strip_prefix("content-length: ")?.parse().ok()).unwrap_or(0);
    let mut body = bytes[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    Ok(Raw { status, head, body: String::from_utf8_lossy(&body).into_owned() })
}

/// Writes `request` on a new connection and reads the response (5 s at most).
pub(super) async fn exchange(addr: SocketAddr, request: &[u8]) -> Raw {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    timeout(Duration::from_secs(5), read_response(&mut stream)).await.expect("an answer within 5 s").unwrap()
}

/// [`exchange`] on a connection from the loopback address `from` (another peer than the
/// test's floods, which come from 127.0.0.1: a peer's own bounds are not what such a check
/// measures).
async fn exchange_from(from: std::net::Ipv4Addr, addr: SocketAddr, request: &[u8]) -> Raw {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((from, 0))).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    timeout(Duration::from_secs(5), read_response(&mut stream)).await.expect("an answer within 5 s").unwrap()
}

/// A request with `Host: 127.0.0.1:<port>` and `Connection: close`.
pub(super) fn request(addr: SocketAddr, method: &str, path: &str, extra: &str, body: &str) -> Vec<u8> {
    format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n{extra}content-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The resident memory of process `pid`, in KiB (Linux `/proc`).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or("VmRSS: 0 kB");
    line.split_whitespace().nth(1).and_then(|kib| kib.parse().ok()).unwrap_or(0)
}

/// The environment variable that makes [`child_server`] serve: its limits,
/// `header_read_timeout_ms,body_read_timeout_ms,body_budget_bytes,max_connections,max_in_flight`.
const CHILD_LIMITS: &str = "ENVELOPE_HOSTILE_HTTP_SERVER";

/// The server process of the memory tests: the example app on a loopback port, printed as
/// `listening <address>`, with the limits of `ENVELOPE_HOSTILE_HTTP_SERVER`; it ends after
/// 120 s, should its test have gone.
#[test]
#[ignore = "the server process of the memory tests, which run it"]
fn child_server() {
    let Ok(limits) = std::env::var(CHILD_LIMITS) else {
        eprintln!("{CHILD_LIMITS} is not set: this test is the server of the memory tests, which run it");
        return;
    };
    let n: Vec<u64> = limits.split(',').map(|v| v.parse().unwrap()).collect();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let (listener, addr) = bind().await;
        let server = serve(listener, app())
            .routes(ROUTES)
            .header_read_timeout(Duration::from_millis(n[0]))
            .body_read_timeout(Duration::from_millis(n[1]))
            .body_budget_bytes(n[2] as usize)
            .max_connections(n[3] as usize)
            .max_in_flight(n[4] as usize);
        println!("listening {addr}");
        let _ = timeout(Duration::from_secs(120), server.into_future()).await;
    });
}

/// [`child_server`] running, killed when dropped.
struct ChildServer {
    _child: Child,
    _stdout: tokio::io::Lines<BufReader<ChildStdout>>,
    pid: u32,
    addr: SocketAddr,
}

impl ChildServer {
    async fn start(limits: &str) -> ChildServer {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "http::child_server", "--ignored", "--nocapture", "--test-threads", "1"])
            .env(CHILD_LIMITS, limits)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let addr = timeout(Duration::from_secs(20), async {
            loop {
                let line = stdout.next_line().await.unwrap().expect("the server prints its address");
                // After libtest's `test http::child_server ... `, on the same line.
                if let Some((_, addr)) = line.split_once("listening ") {
                    return addr.trim().parse().unwrap();
                }
            }
        })
        .await
        .unwrap();
        ChildServer { _child: child, _stdout: stdout, pid, addr }
    }
}

/// Samples the resident memory of `pid` every 20 ms; the highest so far, in KiB.
fn watch_peak(pid: u32) -> (Arc<AtomicU64>, tokio::task::JoinHandle<()>) {
    let peak = Arc::new(AtomicU64::new(rss_kib(pid)));
    let sampler = {
        let peak = Arc::clone(&peak);
        tokio::spawn(async move {
            loop {
                peak.fetch_max(rss_kib(pid), Ordering::Relaxed);
                sleep(Duration::from_millis(20)).await;
            }
        })
    };
    (peak, sampler)
}

/// Sends the head of a `body`-byte `POST /mcp` and `body - 1` bytes of it, then holds the
/// connection open; reads the answer meanwhile (15 s at most). A client stops sending once
/// answered.
async fn half_sent(addr: SocketAddr, body: usize) -> Result<Raw, String> {
    let stream = TcpStream::connect(addr).await.map_err(|e| format!("connecting: {e}"))?;
    let (mut reader, mut writer) = stream.into_split();
    let writing = tokio::spawn(async move {
        let head = format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {body}\r\n\r\n"
        );
        writer.write_all(head.as_bytes()).await?;
        let chunk = vec![b' '; 64 << 10];
        let mut left = body - 1;
        while left > 0 {
            let n = left.min(chunk.len());
            writer.write_all(&chunk[..n]).await?;
            left -= n;
        }
        std::future::pending::<()>().await;
        Ok::<_, std::io::Error>(writer)
    });
    let reply = timeout(Duration::from_secs(15), read_response(&mut reader)).await;
    writing.abort();
    let sent = match writing.await {
        Ok(Ok(_)) => "all sent".to_owned(),
        Ok(Err(e)) => format!("sending: {e}"),
        Err(_) => "sending".to_owned(),
    };
    match reply {
        Ok(Ok(reply)) => Ok(reply),
        Ok(Err(e)) => Err(format!("reading: {e} ({sent})")),
        Err(_) => Err(format!("no answer in 15 s ({sent})")),
    }
}

/// 200 connections each send 4 MiB − 1 byte of a 4 MiB `/mcp` body and hold it unfinished. The
/// server holds 16 MiB of bodies at most (its budget here): the bodies past it are answered
/// 503 with `Retry-After` as they arrive, those it holds 408 when their time is up, and a
/// fresh client from another address is served meanwhile (from the flood's own address it may
/// meet that address's bound of unfinished heads). (With `axum::serve` the server held all
/// 800 MiB.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_bodies_hold_a_bounded_memory() {
    let _alone = crate::ONE_FLOOD.lock().await;
    const CONNECTIONS: usize = 200;
    const BODY: usize = 4 << 20;
    const BUDGET: usize = 16 << 20;
    // A head has 5 s to arrive: this test's 200 writers keep two busy cores busier.
    let server = ChildServer::start(&format!("5000,3000,{BUDGET},4096,1024")).await;
    let addr = server.addr;
    let before = rss_kib(server.pid);
    let (peak, sampler) = watch_peak(server.pid);
    let started = Instant::now();
    let clients: Vec<_> = (0..CONNECTIONS).map(|_| tokio::spawn(half_sent(addr, BODY))).collect();

    sleep(Duration::from_millis(1000)).await;
    let fresh = std::net::Ipv4Addr::new(127, 0, 0, 2);
    let list = exchange_from(fresh, addr, &request(addr, "GET", "/tools", "", "")).await;
    assert_eq!(list.status, 200, "{list:?}");
    let args = r#"{"hours_back": 24, "group_by": "database"}"#;
    let call = exchange_from(fresh, addr, &request(addr, "POST", "/tools/get_top_queries", "", args)).await;
    assert_eq!((call.status, call.json()["status"].as_str()), (200, Some("ok")), "{call:?}");

    let mut statuses = std::collections::BTreeMap::new();
    for client in clients {
        let reply = client.await.unwrap().unwrap_or_else(|e| panic!("a half-sent body was not answered: {e}"));
        let word = reply.json()["error"]["data"]["error"].as_str().unwrap_or_default().to_owned();
        match reply.status {
            503 => {
                assert_eq!(word, "service_unavailable", "{reply:?}");
                assert_eq!(reply.header("retry-after"), Some("1"), "{reply:?}");
            }
            408 => assert_eq!(word, "request_timeout", "{reply:?}"),
            _ => panic!("{reply:?}"),
        }
        assert_eq!(reply.header("content-type"), Some("application/json"));
        *statuses.entry(reply.status).or_insert(0) += 1;
    }
    sampler.abort();
    let peak = peak.load(Ordering::Relaxed);
    eprintln!(
        "half-sent bodies: {CONNECTIONS} x {BODY} B answered {statuses:?} in {:?}; server RSS {before} KiB before, peak {peak} KiB",
        started.elapsed()
    );
    assert!(statuses.get(&503).copied().unwrap_or(0) > 0, "the budget was never reached: {statuses:?}");
    assert!(peak < before + 96 * 1024, "RSS grew from {before} KiB to {peak} KiB");
}

/// Sends, from the loopback address `from`, a request line and one header field, then a byte
/// every 200 ms; how long after connecting the server closed the connection without answering
/// (`None` if it answered, or had not closed it after 10 s).
async fn trickle(addr: SocketAddr, from: std::net::Ipv4Addr) -> Option<Duration> {
    let socket = tokio::net::TcpSocket::new_v4().ok()?;
    socket.bind(SocketAddr::from((from, 0))).ok()?;
    let mut stream = socket.connect(addr).await.ok()?;
    let connected = Instant::now();
    stream.write_all(b"GET /tools HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: ").await.ok()?;
    let mut buf = [0u8; 512];
    while connected.elapsed() < Duration::from_secs(10) {
        match timeout(Duration::from_millis(200), stream.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => return Some(connected.elapsed()),
            Ok(Ok(_)) => return None,
            Err(_) => {
                if stream.write_all(b"x").await.is_err() {
                    return Some(connected.elapsed());
                }
            }
        }
    }
    None
}

/// 2,000 connections trickle their heads a byte at a time (slowloris), 50 from each of 40
/// loopback addresses (under the 64 unfinished heads an address may hold): each is closed when
/// its head has not arrived within the header read timeout (1 s here, as the minimum rate's
/// first second), the server's memory stays small, and a fresh client is served meanwhile.
/// (With `axum::serve` none was ever closed.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickling_heads_are_closed_by_the_header_timeout() {
    let _alone = crate::ONE_FLOOD.lock().await;
    const CONNECTIONS: usize = 2000;
    let server = ChildServer::start("1000,3000,67108864,4096,1024").await;
    let addr = server.addr;
    let before = rss_kib(server.pid);
    let (peak, sampler) = watch_peak(server.pid);
    let mut tricklers = Vec::with_capacity(CONNECTIONS);
    for _ in 0..CONNECTIONS {
        let from = std::net::Ipv4Addr::new(127, 0, 2, 1 + (tricklers.len() % 40) as u8);
        tricklers.push(tokio::spawn(trickle(addr, from)));
        // 100 connections every 20 ms: faster, the accept queue (1,024) of a debug-build
        // server overflows, and the kernel resets connections the server never saw.
        if tricklers.len() % 100 == 0 {
            sleep(Duration::from_millis(20)).await;
        }
    }
    sleep(Duration::from_millis(300)).await;
    let fresh = exchange(addr, &request(addr, "GET", "/manifest", "", "")).await;
    assert_eq!(fresh.status, 200, "{fresh:?}");

    let mut closed = Vec::with_capacity(CONNECTIONS);
    for trickler in tricklers {
        closed.push(trickler.await.unwrap().expect("closed without an answer within 10 s"));
    }
    sampler.abort();
    closed.sort();
    let peak = peak.load(Ordering::Relaxed);
    let (first, median, last) = (closed[0], closed[CONNECTIONS / 2], closed[CONNECTIONS - 1]);
    eprintln!(
        "slowloris: {CONNECTIONS} trickling connections closed after {first:?} to {last:?} (median {median:?}); \
         server RSS {before} KiB before, peak {peak} KiB"
    );
    // Measured from when each client's task saw its connection, which a busy runtime delays.
    assert!(first >= Duration::from_millis(500), "closed before the header timeout: {first:?}");
    assert!(last < Duration::from_secs(5), "closed {last:?} after connecting");
    assert!(peak < before + 64 * 1024, "RSS grew from {before} KiB to {peak} KiB");
    let after = exchange(addr, &request(addr, "GET", "/tools", "", "")).await;
    assert_eq!(after.status, 200);
}

/// Past `max_in_flight` a request is answered 503 `service_unavailable` with `Retry-After`:
/// one without a body before any route sees it; one with a body once read, after waiting a
/// second in the queue for a place, through `read_body` (over `/mcp` as a JSON-RPC error).
/// Once the requests in flight are answered, requests are served again.
#[tokio::test]
async fn requests_past_the_in_flight_bound_are_answered_503() {
    let _alone = crate::ONE_FLOOD.lock().await;
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let entered = Arc::new(AtomicUsize::new(0));
    let held = {
        let (gate, entered) = (Arc::clone(&gate), Arc::clone(&entered));
        move || async move {
            entered.fetch_add(1, Ordering::SeqCst);
            let _ = gate.acquire().await.unwrap();
            json_body(json!({"answered": true}))
        }
    };
    let read_then_held = {
        let held = held.clone();
        move |request: axum::extract::Request| async move {
            use axum::response::IntoResponse;
            let (parts, body) = request.into_parts();
            match envelope_core::http::read_body(&parts.headers, body, 1024).await {
                Ok(_) => held().await.into_response(),
                Err(e) => e.into_response_as(envelope_core::http::ErrorBody::JsonRpc),
            }
        }
    };
    let router = Router::new().route("/slow", get(held)).route("/mcp", axum::routing::post(read_then_held));
    let (listener, addr) = bind().await;
    // One caller (127.0.0.1) sends them all: its share is above the bound.
    spawn(serve(listener, router).max_in_flight(2).max_in_flight_per_caller(3).retry_after_seconds(7));

    let first = tokio::spawn(client::send(addr, "GET", "/slow", &[], ""));
    let second = tokio::spawn(client::send(addr, "GET", "/slow", &[], ""));
    timeout(Duration::from_secs(5), async {
        while entered.load(Ordering::SeqCst) < 2 {
            sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap();

    let refused = client::send(addr, "GET", "/slow", &[], "").await;
    assert_eq!((refused.status, refused.header("retry-after")), (503, Some("7")));
    assert_eq!(
        refused.json(),
        json!({"error": "service_unavailable",
               "message": "The request was not served: this server is at its bound of 2 requests in flight. Send it again after 7 s."})
    );
    let queued = Instant::now();
    let rpc = client::send(addr, "POST", "/mcp", &[("content-type", "application/json")], "{}").await;
    assert!(queued.elapsed() >= Duration::from_millis(900), "answered after {:?}", queued.elapsed());
    assert_eq!((rpc.status, rpc.header("retry-after")), (503, Some("7")));
    assert_eq!(
        rpc.json()["error"]["message"],
        "The request was not served: this server is at its bound of 2 requests in flight. Send it again after 7 s."
    );
    assert_eq!(rpc.json()["id"], Value::Null);
    assert_eq!(rpc.json()["error"]["data"]["error"], "service_unavailable");
    assert_eq!(entered.load(Ordering::SeqCst), 2, "a refused request reached its route");

    gate.add_permits(3);
    assert_eq!(first.await.unwrap().status, 200);
    assert_eq!(second.await.unwrap().status, 200);
    assert_eq!(client::send(addr, "GET", "/slow", &[], "").await.status, 200);
}

/// Past `max_connections` a new connection is answered 503 `service_unavailable` with
/// `Retry-After` before its request is read, and closed; once one closes, the next is served.
#[tokio::test]
async fn connections_past_the_bound_are_answered_503() {
    let _alone = crate::ONE_FLOOD.lock().await;
    let (listener, addr) = bind().await;
    spawn(serve(listener, app()).max_connections(3).retry_after_seconds(2));
    let mut idle = Vec::new();
    for _ in 0..3 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    // The server accepts in order: the three are counted before the fourth is read.
    sleep(Duration::from_millis(100)).await;
    let mut extra = TcpStream::connect(addr).await.unwrap();
    extra.write_all(&request(addr, "GET", "/tools", "", "")).await.unwrap();
    let refused = timeout(Duration::from_secs(5), read_response(&mut extra)).await.unwrap().unwrap();
    assert_eq!((refused.status, refused.header("retry-after")), (503, Some("2")), "{refused:?}");
    assert_eq!(refused.header("connection"), Some("close"));
    assert_eq!(refused.header("content-type"), Some("application/json"));
    assert_eq!(
        refused.json(),
        json!({"error": "service_unavailable",
               "message": "The request was not served: this server is at its bound of 3 open connections. Send it again after 2 s."})
    );
    let mut rest = Vec::new();
    let end = timeout(Duration::from_secs(5), extra.read_to_end(&mut rest)).await.unwrap();
    assert!(end.is_ok_and(|n| n == 0), "the refused connection was not closed");

    drop(idle.pop());
    let served = timeout(Duration::from_secs(5), async {
        loop {
            let reply = exchange(addr, &request(addr, "GET", "/tools", "", "")).await;
            if reply.status == 200 {
                return reply;
            }
            assert_eq!(reply.status, 503, "{reply:?}");
            sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap();
    assert!(served.json()["tools"].is_array());
}

/// Every answer is JSON: a path no route serves (404 `not_found`, naming the routes), a method
/// a route does not take (405), an empty `/mcp` body (-32700), and the request heads hyper
/// cannot parse (400, 431, 414).
#[tokio::test]
async fn routing_and_protocol_errors_are_json() {
    let ping = Router::new().route("/ping", get(|| async { json_body(json!("pong")) }));
    let (listener, addr) = bind().await;
    spawn(serve(listener, app().merge(ping)).routes(ROUTES));

    for path in ["/", "/tools/", "/mcp/", "/MCP", "/tools/get_top_queries/x"] {
        let reply = exchange(addr, &request(addr, "GET", path, "", "")).await;
        assert_eq!((reply.status, reply.header("content-type")), (404, Some("application/json")), "{path}");
        assert_eq!(
            reply.json(),
            json!({"error": "not_found",
                   "message": format!("No route of this server serves the path \"{path}\"; it serves POST /mcp, \
                                       POST /tools/{{name}}, GET /tools, GET /manifest. Send the request to one of those.")}),
            "{path}"
        );
    }
    // The router's own empty 405 (a route of the app's own), and those of the endpoints.
    let post_ping = exchange(addr, &request(addr, "POST", "/ping", "", "")).await;
    assert_eq!((post_ping.status, post_ping.header("allow")), (405, Some("GET, HEAD")));
    assert_eq!(post_ping.json()["error"], "method_not_allowed");
    assert_eq!(
        post_ping.json()["message"],
        "POST is not a method this path takes; accepted: GET, HEAD. Send the request with GET."
    );
    let put = exchange(addr, &request(addr, "PUT", "/tools", "", "")).await;
    assert_eq!((put.status, put.json()["error"].as_str()), (405, Some("method_not_allowed")));
    let get_mcp = exchange(addr, &request(addr, "GET", "/mcp", "", "")).await;
    assert_eq!((get_mcp.status, get_mcp.header("allow")), (405, Some("POST")));
    assert_eq!(get_mcp.json()["error"]["data"]["error"], "method_not_allowed");

    // An empty body on /mcp says nothing, and every POST is answered.
    for body in ["", "  \r\n"] {
        let empty = exchange(addr, &request(addr, "POST", "/mcp", "content-type: application/json\r\n", body)).await;
        assert_eq!(empty.status, 400, "{empty:?}");
        assert_eq!(
            empty.json(),
            json!({"jsonrpc": "2.0", "id": null,
                   "error": {"code": -32700, "message": "the body is empty: send one JSON-RPC message object as the body"}})
        );
    }

    // hyper's own answers to heads it cannot parse, given a JSON body.
    let big = format!("x-big: {}\r\n", "a".repeat(20_000));
    let too_large = exchange(addr, &request(addr, "GET", "/tools", &big, "")).await;
    assert_eq!((too_large.status, too_large.header("connection")), (431, Some("close")), "{too_large:?}");
    assert_eq!(too_large.header("content-type"), Some("application/json"));
    assert_eq!(too_large.json(), envelope_core::http::TransportError::header_fields_too_large(16_384).to_value());
    let many: String = (0..120).map(|i| format!("x-field-{i}: {i}\r\n")).collect();
    let too_many = exchange(addr, &request(addr, "GET", "/tools", &many, "")).await;
    assert_eq!((too_many.status, too_many.json()["error"].as_str()), (431, Some("header_fields_too_large")));
    for malformed in [
        "GET /tools HTTP/1.1\r\nhost: localhost\r\nno colon here\r\n\r\n",
        "G(T /tools HTTP/1.1\r\nhost: localhost\r\n\r\n",
        "GET /tools HTTP/7.1\r\nhost: localhost\r\n\r\n",
        "GET /to ols HTTP/1.1\r\nhost: localhost\r\n\r\n",
    ] {
        let reply = exchange(addr, malformed.as_bytes()).await;
        assert_eq!(reply.status, 400, "{malformed:?}: {reply:?}");
        assert_eq!(reply.json(), envelope_core::http::TransportError::malformed_request().to_value(), "{malformed:?}");
        assert!(reply.header("date").is_some(), "{reply:?}");
    }

    // A target over hyper's 65,534 bytes, under a head limit above it.
    let (listener, wide) = bind().await;
    spawn(serve(listener, app()).max_header_bytes(100_000));
    let long = format!("/tools/{}", "a".repeat(66_000));
    let reply = exchange(wide, &request(wide, "GET", &long, "", "")).await;
    assert_eq!((reply.status, reply.json()["error"].as_str()), (414, Some("uri_too_long")), "{}", reply.head);
}

/// A `Host` the server does not serve is refused 403 `forbidden_host` before any route runs
/// (a DNS-rebinding page reading `GET /manifest`); loopback names are served on any port, and
/// the names configured.
#[tokio::test]
async fn a_foreign_host_is_refused() {
    let (listener, addr) = bind().await;
    spawn(serve(listener, app()));
    let port = addr.port();
    let foreign = format!("rebind.example:{port}");
    let host = |method: &str, path: &str, host: &str, body: &str| {
        format!(
            "{method} {path} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    };
    let message = format!(
        "The host \"{foreign}\" is not served by this server. Send the request to localhost, 127.0.0.1 or [::1], \
         as the Host header names it."
    );
    for path in ["/manifest", "/tools"] {
        let reply = exchange(addr, &host("GET", path, &foreign, "")).await;
        assert_eq!(reply.status, 403, "{path}");
        assert_eq!(reply.json(), json!({"error": "forbidden_host", "message": message}), "{path}");
    }
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note","arguments":{"title":"rebound"}}}"#;
    let rpc = exchange(addr, &host("POST", "/mcp", &foreign, call)).await;
    assert_eq!(rpc.status, 403);
    assert_eq!(
        rpc.json(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": message, "data": {"error": "forbidden_host"}}})
    );
    // An absolute target names the host too (RFC 9112 §3.2.2).
    let absolute = format!("GET http://rebind.example:{port}/manifest HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n\r\n");
    assert_eq!(exchange(addr, absolute.as_bytes()).await.status, 403);
    // `Host` sent twice: 400, as RFC 9112 §3.2 has it, saying so.
    let twice = format!("GET /manifest HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nhost: {foreign}\r\n\r\n");
    let reply = exchange(addr, twice.as_bytes()).await;
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.json(),
        json!({"error": "malformed_request", "message": "The request sends the Host header more than once. Send it once, naming the host."})
    );

    for served in
        [format!("localhost:{port}"), format!("127.0.0.1:{port}"), "[::1]:8080".to_owned(), "LocalHost".to_owned()]
    {
        let reply = exchange(addr, &host("GET", "/manifest", &served, "")).await;
        assert_eq!(reply.status, 200, "{served}");
    }
    // The rebound call above wrote nothing.
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_notes","arguments":{}}}"#;
    let notes = exchange(addr, &host("POST", "/mcp", &format!("localhost:{port}"), list)).await;
    assert_eq!(notes.json()["result"]["structuredContent"]["data"], json!([]), "{notes:?}");

    let (listener, named) = bind().await;
    spawn(serve(listener, app()).hosts(AllowedHosts::none().allow("mcp.example.com")));
    assert_eq!(exchange(named, &host("GET", "/tools", "MCP.example.com:443", "")).await.status, 200);
    let loopback = exchange(named, &host("GET", "/tools", "localhost", "")).await;
    assert_eq!(loopback.status, 403);
    assert!(
        loopback.json()["message"]
            .as_str()
            .unwrap()
            .ends_with("Send the request to mcp.example.com, as the Host header names it.")
    );
}

/// A header field as sent: its name and value bytes.
type Field<'a> = (&'a str, &'a [u8]);

/// One request to `addr` with `fields` as sent (any bytes), `Host: <addr>` unless they name
/// one, and `Connection: close`.
fn with_fields(addr: SocketAddr, method: &str, path: &str, fields: &[Field<'_>], body: &str) -> Vec<u8> {
    let mut request = format!("{method} {path} HTTP/1.1\r\nconnection: close\r\n").into_bytes();
    if !fields.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
        request.extend_from_slice(format!("host: {addr}\r\n").as_bytes());
    }
    for (name, value) in fields {
        request.extend_from_slice(format!("{name}: ").as_bytes());
        request.extend_from_slice(value);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(format!("content-length: {}\r\n\r\n{body}", body.len()).as_bytes());
    request
}

/// Every request header a reply could quote (`Host`, `Origin`, `Content-Type`, `Accept`,
/// `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` as sent and in its Base64 form,
/// `Mcp-Param-*`, `Mcp-Session-Id`, `X-Tenant-ID`, `Authorization`), sent at 16 KiB, in visible
/// ASCII and in bytes that are not UTF-8, to servers reading heads of up to 64 KiB: each reply
/// is JSON, under 2 KiB with its head, and holds at most 200 characters of the value. rmcp's
/// refusals that quote one show its cut (`… (16384 characters)`); the bearer token is never
/// quoted. (The protocol version came back whole: 16 KiB.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_header_values_are_cut_in_replies() {
    use base64::Engine as _;
    use envelope_core::call::Surface;
    use envelope_core::http::{AuthLayer, BearerTokens};

    const LONG: usize = 16 << 10;
    const TOKEN: &str = "t0ken-long-headers";
    let (listener, addr) = bind().await;
    spawn(serve(listener, app()).max_header_bytes(64 << 10));
    let tenants = HttpTools::new(tools::toolbox())
        .with_surface(Surface::internal("internal").requiring_tenant())
        .router()
        .layer(AuthLayer::new(BearerTokens::new([TOKEN])));
    let guarded = McpHttp::new(tools::toolbox()).with_auth(BearerTokens::new([TOKEN])).router().merge(tenants);
    let (listener, guarded_addr) = bind().await;
    spawn(serve(listener, guarded).max_header_bytes(64 << 10));

    // A 2026-07-28 `tools/call` of `list_notes`, with the headers that go with it.
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "list_notes", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let json_type: Field = ("content-type", b"application/json");
    let version: Field = ("mcp-protocol-version", b"2026-07-28");
    let method: Field = ("mcp-method", b"tools/call");
    let name: Field = ("mcp-name", b"list_notes");
    let bearer = format!("Bearer {TOKEN}");
    let bearer: Field = ("authorization", bearer.as_bytes());

    // The value: 16 KiB of `Q`, or of `Q` and a byte that is not UTF-8. A reply that quotes
    // more than 200 characters of it holds more than 200 `Q`s.
    let ascii = "Q".repeat(LONG).into_bytes();
    let odd = [b'Q', 0xff].repeat(LONG / 2);
    let base64 = |name: &[u8]| {
        let text = String::from_utf8_lossy(name);
        format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(text.as_bytes())).into_bytes()
    };
    for long in [ascii.as_slice(), odd.as_slice()] {
        let encoded = base64(long);
        let token = [b"Bearer ".as_slice(), long].concat();
        // (server, request, the long field, the fields beside it, the status, whether the reply
        // quotes the field's cut)
        let cases = [
            (addr, "GET /tools", ("host", long), vec![], 403, false),
            (addr, "POST /mcp", ("host", long), vec![json_type], 403, false),
            (addr, "POST /tools/list_notes", ("origin", long), vec![], 403, false),
            (addr, "POST /mcp", ("origin", long), vec![json_type], 403, false),
            (addr, "POST /mcp", ("content-type", long), vec![], 415, false),
            (addr, "POST /mcp", ("accept", long), vec![json_type, version, method, name], 200, false),
            (addr, "POST /mcp", ("mcp-protocol-version", long), vec![json_type, method, name], 400, true),
            (addr, "POST /mcp", ("mcp-method", long), vec![json_type, version, name], 400, true),
            (addr, "POST /mcp", ("mcp-name", long), vec![json_type, version, method], 400, true),
            (addr, "POST /mcp", ("mcp-name", encoded.as_slice()), vec![json_type, version, method], 400, true),
            (addr, "POST /mcp", ("mcp-param-region", long), vec![json_type, version, method, name], 200, false),
            (addr, "POST /mcp", ("mcp-session-id", long), vec![json_type, version, method, name], 200, false),
            (guarded_addr, "POST /tools/list_notes", ("x-tenant-id", long), vec![bearer], 400, false),
            (guarded_addr, "POST /tools/list_notes", ("authorization", token.as_slice()), vec![], 401, false),
            (guarded_addr, "POST /mcp", ("authorization", token.as_slice()), vec![json_type], 401, false),
        ];
        for (server, request, field, mut with, status, quoted) in cases {
            let (verb, path) = request.split_once(' ').unwrap();
            let body = if path == "/mcp" { call.as_str() } else { "{}" };
            with.push(field);
            let reply = exchange(server, &with_fields(server, verb, path, &with, body)).await;
            let what = format!("{request} with a long {} ({} bytes)", field.0, field.1.len());
            assert_eq!(reply.status, status, "{what}: {reply:?}");
            let json = reply.json();
            assert!(reply.head.len() + reply.body.len() < 2048, "{what}: {} bytes", reply.body.len());
            let shown = reply.body.matches('Q').count();
            assert!(shown <= 200, "{what}: {shown} characters of the value quoted: {}", reply.body);
            // Where a reply quotes a value of visible ASCII, it is the cut, marked as such.
            if quoted && long == ascii.as_slice() {
                let message = json["error"]["message"].as_str().unwrap_or_default();
                let cut = format!("{}…", "Q".repeat(192));
                assert!(
                    message.contains(&cut) && message.contains(&format!("({LONG} characters)")),
                    "{what}: {message}"
                );
            }
        }
    }
    // A protocol version longer than any, on `initialize` too (where rmcp logged it whole).
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    .to_string();
    let fields = [json_type, ("mcp-protocol-version", ascii.as_slice())];
    let reply = exchange(addr, &with_fields(addr, "POST", "/mcp", &fields, &initialize)).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    let message = format!(
        "The MCP-Protocol-Version header \"{}…\" ({LONG} characters) is longer than any protocol version. Send the \
         version the client and server use, like MCP-Protocol-Version: 2025-11-25.",
        "Q".repeat(192)
    );
    assert_eq!(reply.json()["id"], 1);
    assert_eq!(reply.json()["error"]["message"], message);
    assert_eq!(reply.json()["error"]["data"]["error"], "malformed_request");
}

/// A body that does not arrive within `body_read_timeout` is answered 408 `request_timeout`,
/// `Connection: close`; a graceful shutdown lets the request in flight finish, then ends.
#[tokio::test]
async fn slow_bodies_time_out_and_shutdown_is_graceful() {
    let (listener, addr) = bind().await;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server =
        serve(listener, app()).body_read_timeout(Duration::from_millis(300)).with_graceful_shutdown(async move {
            let _ = stopped.await;
        });
    let running = tokio::spawn(server.into_future());

    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = "POST /tools/get_top_queries HTTP/1.1\r\nhost: localhost\r\ncontent-length: 100\r\n\r\n{\"hours_back\"";
    stream.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    let reply = timeout(Duration::from_secs(5), read_response(&mut stream)).await.unwrap().unwrap();
    assert_eq!((reply.status, reply.header("connection")), (408, Some("close")), "{reply:?}");
    assert_eq!(
        reply.json(),
        json!({"error": "request_timeout",
               "message": "The request body did not arrive within this server's limit of 300 ms. Send the whole body at once, or a smaller one."})
    );
    assert!(started.elapsed() >= Duration::from_millis(250), "{:?}", started.elapsed());

    // A request whose body is still coming when the server is told to stop is answered.
    let mut late = TcpStream::connect(addr).await.unwrap();
    let body = r#"{"hours_back": 24, "group_by": "database"}"#;
    let head =
        format!("POST /tools/get_top_queries HTTP/1.1\r\nhost: localhost\r\ncontent-length: {}\r\n\r\n", body.len());
    late.write_all(head.as_bytes()).await.unwrap();
    sleep(Duration::from_millis(50)).await;
    stop.send(()).unwrap();
    sleep(Duration::from_millis(50)).await;
    late.write_all(body.as_bytes()).await.unwrap();
    let reply = timeout(Duration::from_secs(5), read_response(&mut late)).await.unwrap().unwrap();
    assert_eq!(reply.status, 200, "{reply:?}");
    timeout(Duration::from_secs(5), running)
        .await
        .expect("the server ends once its connections close")
        .unwrap()
        .unwrap();
    assert!(TcpStream::connect(addr).await.is_err(), "the listener still accepts");
}

/// `target/<profile>/examples/http_server`, built here (`cargo test --test hostile` builds no
/// example), next to this test's `target/<profile>/deps/`.
fn example_server() -> std::path::PathBuf {
    example("http_server")
}

/// `target/<profile>/examples/<name>`, built as [`example_server`] is.
fn example(name: &str) -> std::path::PathBuf {
    crate::examples::build(&[name]).join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// The example server with `--token`: `/mcp` and `/tools` need the bearer token (401 without,
/// as JSON-RPC on `/mcp`), the hardened server refuses a foreign `Host`, and its log has a line
/// per call and per refusal, never the token. `--token` empty is refused at start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_server_requires_its_token() {
    const TOKEN: &str = "t0ken-hostile-9f2c";
    let exe = example_server();
    let empty = Command::new(&exe).args(["--port", "0", "--token="]).output().await.unwrap();
    assert_eq!(empty.status.code(), Some(2), "{}", String::from_utf8_lossy(&empty.stderr));

    let mut child = Command::new(&exe)
        .args(["--port", "0", "--token", TOKEN])
        .env_remove("TOKEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = timeout(Duration::from_secs(20), stdout.next_line()).await.unwrap().unwrap().unwrap();
    let addr: SocketAddr =
        line.rsplit(' ').next().unwrap().trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let log = tokio::spawn(async move {
        let mut log = String::new();
        let _ = stderr.read_to_string(&mut log).await;
        log
    });

    let json_type = "content-type: application/json\r\n";
    let bearer = format!("authorization: Bearer {TOKEN}\r\n{json_type}");
    let wrong = format!("authorization: Bearer not-{TOKEN}\r\n{json_type}");
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_notes","arguments":{}}}"#;
    let args = r#"{"hours_back": 24, "group_by": "database"}"#;

    let rpc = exchange(addr, &request(addr, "POST", "/mcp", json_type, ping)).await;
    assert_eq!((rpc.status, rpc.header("www-authenticate")), (401, Some("Bearer")));
    assert_eq!(rpc.json()["error"]["data"]["error"], "missing_bearer_token");
    let tools = exchange(addr, &request(addr, "POST", "/tools/get_top_queries", "", args)).await;
    assert_eq!((tools.status, tools.json()["error"].as_str()), (401, Some("missing_bearer_token")));
    let guessed = exchange(addr, &request(addr, "GET", "/tools", &wrong, "")).await;
    assert_eq!((guessed.status, guessed.json()["error"].as_str()), (401, Some("invalid_bearer_token")));
    assert!(!guessed.body.contains(TOKEN));

    let rpc = exchange(addr, &request(addr, "POST", "/mcp", &bearer, ping)).await;
    assert_eq!(rpc.status, 200, "{rpc:?}");
    assert_eq!(rpc.json()["result"]["structuredContent"]["status"], "ok");
    let tools = exchange(addr, &request(addr, "POST", "/tools/get_top_queries", &bearer, args)).await;
    assert_eq!((tools.status, tools.json()["status"].as_str()), (200, Some("ok")));
    let rebound = format!("GET /manifest HTTP/1.1\r\nhost: rebind.example:{}\r\n{bearer}\r\n", addr.port());
    assert_eq!(exchange(addr, rebound.as_bytes()).await.json()["error"], "forbidden_host");

    drop(child);
    let log = timeout(Duration::from_secs(5), log).await.unwrap().unwrap();
    assert!(!log.contains(TOKEN), "{log}");
    let calls = log.lines().filter(|l| l.contains("mcp request answered")).count();
    assert_eq!(calls, 1, "{log}");
    let refused = log.lines().filter(|l| l.contains("request refused: missing_bearer_token")).count();
    assert_eq!(refused, 2, "{log}");
    assert!(log.lines().any(|l| l.contains("tool_call") && l.contains("http_status=200")), "{log}");
    assert!(log.lines().any(|l| l.contains("request refused") && l.contains("rebind.example")), "{log}");
    assert!(!log.contains("rmcp::"), "{log}");
}

/// `RUST_LOG` chooses what the example servers (`http_server`, `http_tools`) log: at `warn` a
/// served call writes no line (at the default, one); an unreadable `RUST_LOG` stops each at
/// start with exit code 2. (`http_tools` logged every call whatever `RUST_LOG` said.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_servers_honour_rust_log() {
    for name in ["http_server", "http_tools"] {
        let exe = example(name);
        let mut bad = Command::new(&exe);
        bad.args(["--port", "0"]).env("RUST_LOG", "envelope_core=loud").kill_on_drop(true);
        let bad = timeout(Duration::from_secs(20), bad.output()).await.expect("stopped at start").unwrap();
        let said = String::from_utf8_lossy(&bad.stderr);
        assert_eq!(bad.status.code(), Some(2), "{name}: {said}");
        assert!(said.contains("RUST_LOG"), "{name}: {said}");

        let mut lines = Vec::new();
        for level in [None, Some("warn")] {
            let mut command = Command::new(&exe);
            command.args(["--port", "0"]).env_remove("TOKEN").env_remove("RUST_LOG");
            if let Some(level) = level {
                command.env("RUST_LOG", level);
            }
            let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true).spawn().unwrap();
            let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
            let line = timeout(Duration::from_secs(20), stdout.next_line()).await.unwrap().unwrap().unwrap();
            // `... http://127.0.0.1:<port>/mcp` (or `/tools`).
            let url = line.rsplit(' ').next().unwrap().trim_start_matches("http://");
            let addr: SocketAddr = url.split('/').next().unwrap().parse().unwrap();
            let args = r#"{"hours_back": 24, "group_by": "database"}"#;
            let call = exchange(addr, &request(addr, "POST", "/tools/get_top_queries", "", args)).await;
            assert_eq!(call.status, 200, "{name}: {call:?}");
            let mut stderr = child.stderr.take().unwrap();
            drop(child);
            let mut log = String::new();
            let _ = timeout(Duration::from_secs(5), stderr.read_to_string(&mut log)).await;
            lines.push(log.lines().filter(|l| l.contains("tool_call")).count());
        }
        assert_eq!(lines, [1, 0], "{name}: call lines at the default level, then at RUST_LOG=warn");
    }
}

/// The example server's log quotes no request header whole: an `initialize` whose
/// `MCP-Protocol-Version` is 15,000 characters (rmcp logged it whole at `warn`, twice the
/// value per request), a `tools/call` whose `Mcp-Method` and `Mcp-Name` are, a foreign `Host`
/// and `Origin` as long: every line holds at most 200 characters of a value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_server_logs_no_long_header_whole() {
    let exe = example_server();
    let mut command = Command::new(&exe);
    command.args(["--port", "0"]).env_remove("TOKEN").env_remove("RUST_LOG");
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true).spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = timeout(Duration::from_secs(20), stdout.next_line()).await.unwrap().unwrap().unwrap();
    let addr: SocketAddr =
        line.rsplit(' ').next().unwrap().trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();

    let long = "Q".repeat(15_000);
    let json_type: Field = ("content-type", b"application/json");
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    .to_string();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "list_notes", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let version: Field = ("mcp-protocol-version", b"2026-07-28");
    let requests = [
        (vec![json_type, ("mcp-protocol-version", long.as_bytes())], &initialize, 400),
        (vec![json_type, version, ("mcp-method", long.as_bytes()), ("mcp-name", b"list_notes")], &call, 400),
        (vec![json_type, version, ("mcp-method", b"tools/call"), ("mcp-name", long.as_bytes())], &call, 400),
        (vec![json_type, ("host", long.as_bytes())], &call, 403),
        (vec![json_type, ("origin", long.as_bytes())], &call, 403),
    ];
    for (fields, body, status) in requests {
        let reply = exchange(addr, &with_fields(addr, "POST", "/mcp", &fields, body)).await;
        assert_eq!(reply.status, status, "{reply:?}");
        assert!(reply.body.matches('Q').count() <= 200, "{}", reply.body);
    }
    let mut stderr = child.stderr.take().unwrap();
    drop(child);
    let mut log = String::new();
    let _ = timeout(Duration::from_secs(5), stderr.read_to_string(&mut log)).await;
    assert_eq!(log.lines().filter(|l| l.contains("mcp request answered")).count(), 3, "{log}");
    for line in log.lines() {
        assert!(line.matches('Q').count() <= 200, "a log line of {} bytes: {line}", line.len());
    }
}

/// A long `Mcp-Param-*` value that contradicts the body (SEP-2243) is quoted by its cut: the
/// conformance server's `test_headers` sends its `region` as `Mcp-Param-Region`; a 15,000-
/// character header against the body's `us-east` is answered -32020 (HTTP 400) naming 192
/// characters of it and its length, where rmcp's refusal held all of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_mcp_param_is_quoted_by_its_cut() {
    let exe = example("conformance_server");
    let mut child = Command::new(&exe).args(["--port", "0"]).stdout(Stdio::piped()).kill_on_drop(true).spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = timeout(Duration::from_secs(20), stdout.next_line()).await.unwrap().unwrap().unwrap();
    let url = line.rsplit(' ').next().unwrap().trim_start_matches("http://");
    let addr: SocketAddr = url.split('/').next().unwrap().parse().unwrap();

    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "test_headers", "arguments": {"region": "us-east"}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let long = "Q".repeat(15_000);
    let mut fields: Vec<Field> = vec![
        ("content-type", b"application/json"),
        ("mcp-protocol-version", b"2026-07-28"),
        ("mcp-method", b"tools/call"),
        ("mcp-name", b"test_headers"),
        ("mcp-param-region", b"us-east"),
    ];
    let served = exchange(addr, &with_fields(addr, "POST", "/mcp", &fields, &call)).await;
    assert_eq!(served.json()["result"]["structuredContent"]["data"]["content"][0]["text"], "region: us-east");
    fields[4].1 = long.as_bytes();
    let refused = exchange(addr, &with_fields(addr, "POST", "/mcp", &fields, &call)).await;
    assert_eq!(refused.status, 400, "{refused:?}");
    let message = format!(
        "Mcp-Param-Region header `{}… (15000 characters)` does not match body value `us-east`",
        "Q".repeat(192)
    );
    assert_eq!(refused.json(), json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32020, "message": message}}));
}
