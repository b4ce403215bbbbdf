//! MCP sessions over Streamable HTTP (`McpHttp::with_sessions`, MCP 2025-11-25 "Transports /
//! Streamable HTTP / Session Management") against one client's load, through
//! `envelope_core::http::serve` on loopback: the event streams one address holds open are bounded
//! and closable, so another address is served; sessions are bounded in all and per address; the
//! session paths (`GET`, `DELETE`) answer in JSON and cut long header values; an id in flight in
//! a session is refused under its id; a session belongs to the caller that opened it. Linux
//! routes all of `127.0.0.0/8` to loopback, so each client binds its own source address.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use envelope_core::http::{AllowedHosts, BearerTokens, Serve, serve};
use envelope_core::mcp::streamable::McpHttp;
use envelope_core::{Toolbox, tool};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::time::timeout;

use crate::ONE_FLOOD;

/// The address that holds streams and sessions.
const HOLDER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 1);
/// A fresh client's address.
const FRESH: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);

/// Answers `n` after `ms` milliseconds.
#[tool]
async fn slow_echo(#[validate(range = 0..=10)] n: u32, #[validate(range = 0..=3000)] ms: u64) -> u32 {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    n
}

/// The `counted_sleep` bodies running now, and the most that ran at once.
static RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static PEAK: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Sleeps `ms` milliseconds, counted in [`RUNNING`] and [`PEAK`] meanwhile.
#[tool]
async fn counted_sleep(#[validate(range = 0..=3000)] ms: u64) -> u64 {
    use std::sync::atomic::Ordering::SeqCst;
    let now = RUNNING.fetch_add(1, SeqCst) + 1;
    PEAK.fetch_max(now, SeqCst);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    RUNNING.fetch_sub(1, SeqCst);
    ms
}

/// `slow_echo` (and `counted_sleep`) over `/mcp` in sessions (`mcp` configures the endpoint),
/// through envelope's server (`configure` sets its bounds).
async fn served(mcp: impl FnOnce(McpHttp) -> McpHttp, configure: impl FnOnce(Serve) -> Serve) -> SocketAddr {
    let app =
        mcp(McpHttp::new(Toolbox::new().with(slow_echo::tool()).with(counted_sleep::tool())).with_sessions()).router();
    let listener = TcpListener::bind("0.0.0.0:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = configure(serve(listener, app).hosts(AllowedHosts::any()));
    tokio::spawn(async move { server.await.unwrap() });
    SocketAddr::from(([127, 0, 0, 1], port))
}

/// An answer as a client sees it: status, head (lower-cased), the JSON-RPC message of its body
/// (a JSON body, or the first `data:` line of an event stream holding one; `Null` when none
/// came) and its body's length in bytes as read; the connection, when still open.
struct Answer {
    status: u16,
    head: String,
    message: Value,
    body_bytes: usize,
    _connection: Option<TcpStream>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| l.strip_prefix(&format!("{name}: ")))
    }
}

/// Sends `method /mcp` with `headers` and `body` on a new connection from `from`, and reads
/// its answer: a whole JSON body, a `POST`'s event stream to its end (send `connection: close`),
/// a `GET`'s stream: its head alone. `status` 0 when no answer came within 5 s.
async fn send(from: Ipv4Addr, addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let none = || Answer { status: 0, head: String::new(), message: Value::Null, body_bytes: 0, _connection: None };
    let exchange = async {
        let socket = TcpSocket::new_v4().ok()?;
        socket.bind(SocketAddr::new(IpAddr::V4(from), 0)).ok()?;
        let mut stream = socket.connect(addr).await.ok()?;
        let mut request = format!("{method} /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-length: {}\r\n", body.len());
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut read = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let text = String::from_utf8_lossy(&read).into_owned();
            if let Some((head, rest)) = text.split_once("\r\n\r\n") {
                let head = head.to_ascii_lowercase();
                let status = head.split(' ').nth(1)?.parse::<u16>().ok()?;
                let streams = head.contains("content-type: text/event-stream");
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length: "))
                    .and_then(|n| n.trim().parse::<usize>().ok());
                let message = if streams {
                    rest.lines().filter_map(|l| l.strip_prefix("data: ")).find_map(|d| serde_json::from_str(d).ok())
                } else {
                    length.filter(|n| rest.len() >= *n).map(|_| serde_json::from_str(rest).unwrap_or(Value::Null))
                };
                // A POST's event stream is read to its end (the server's count of it with it).
                let done = match (streams, &message) {
                    (true, _) => method == "GET",
                    (false, Some(_)) => true,
                    (false, None) => length == Some(0),
                };
                if done {
                    let body_bytes = rest.len();
                    let message = message.unwrap_or(Value::Null);
                    return Some(Answer { status, head, message, body_bytes, _connection: Some(stream) });
                }
            }
            let n = stream.read(&mut buf).await.ok()?;
            if n == 0 {
                let text = String::from_utf8_lossy(&read).into_owned();
                let (head, rest) = text.split_once("\r\n\r\n")?;
                let status = head.split(' ').nth(1)?.parse::<u16>().ok()?;
                let data =
                    rest.lines().filter_map(|l| l.strip_prefix("data: ")).find_map(|d| serde_json::from_str(d).ok());
                let message = data.unwrap_or_else(|| serde_json::from_str(rest).unwrap_or(Value::Null));
                let head = head.to_ascii_lowercase();
                return Some(Answer { status, head, message, body_bytes: rest.len(), _connection: None });
            }
            read.extend_from_slice(&buf[..n]);
        }
    };
    timeout(Duration::from_secs(5), exchange).await.ok().flatten().unwrap_or_else(none)
}

const JSON: (&str, &str) = ("content-type", "application/json");
const BOTH: (&str, &str) = ("accept", "application/json, text/event-stream");
const EVENTS: (&str, &str) = ("accept", "text/event-stream");
const VERSION: (&str, &str) = ("mcp-protocol-version", "2025-11-25");

fn initialize(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "clientInfo": {"name": "hostile", "version": "0"}}})
    .to_string()
}

/// A session opened from `from` (`initialize`, then `notifications/initialized`), with the
/// `Authorization` of `token` when given: its id, or the refusal of either.
async fn open_session(from: Ipv4Addr, addr: SocketAddr, token: Option<&str>) -> Result<String, Answer> {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![JSON, BOTH, ("connection", "close")];
    if let Some(bearer) = &bearer {
        headers.push(("authorization", bearer));
    }
    let opened = send(from, addr, "POST", &headers, &initialize(0)).await;
    let Some(session) = opened.header("mcp-session-id").map(str::to_owned) else { return Err(opened) };
    headers.extend([("mcp-session-id", session.as_str()), VERSION]);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let sent = send(from, addr, "POST", &headers, &initialized).await;
    if sent.status != 202 {
        return Err(sent);
    }
    Ok(session)
}

/// The session's event stream (`GET /mcp`), from `from`, held open unread; opened 100 ms after
/// the call (a place of the requests before it is held until the session has handled them).
async fn listen(from: Ipv4Addr, addr: SocketAddr, session: &str) -> Answer {
    tokio::time::sleep(Duration::from_millis(100)).await;
    send(from, addr, "GET", &[EVENTS, VERSION, ("mcp-session-id", session)], "").await
}

/// `tools/list` in `session` from `from`: its status and message.
async fn list_tools(from: Ipv4Addr, addr: SocketAddr, session: &str) -> Answer {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    send(from, addr, "POST", &[JSON, BOTH, VERSION, ("mcp-session-id", session), ("connection", "close")], &list).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_streams_one_address_holds_count_under_its_share_and_leave_others_served() {
    let _one = ONE_FLOOD.lock().await;
    // A share of 8 places per caller: the 9th stream of one address is refused.
    let addr = served(|m| m, |s| s.max_in_flight_per_caller(8)).await;
    let mut held = Vec::new();
    let mut refused = Vec::new();
    for _ in 0..12 {
        // Past its share, the address's requests are refused: its initialize, or its stream.
        let stream = match open_session(HOLDER, addr, None).await {
            Ok(session) => listen(HOLDER, addr, &session).await,
            Err(refusal) => refusal,
        };
        match stream.status {
            200 => held.push(stream),
            _ => refused.push(stream),
        }
    }
    assert_eq!((held.len(), refused.len()), (8, 4));
    for answer in &refused {
        assert_eq!(answer.status, 429);
        assert_eq!(answer.header("content-type"), Some("application/json"));
        assert_eq!(answer.header("retry-after"), Some("1"));
        assert_eq!(answer.message["error"]["data"]["error"], "rate_limited", "{}", answer.message);
    }
    // Another address is served: a session, a call in it, its own stream.
    let session = open_session(FRESH, addr, None).await.unwrap_or_else(|a| panic!("{} {}", a.status, a.message));
    let listed = list_tools(FRESH, addr, &session).await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.message["result"]["tools"][0]["name"], "slow_echo", "{}", listed.message);
    assert_eq!(listen(FRESH, addr, &session).await.status, 200);
    // A stream closed gives its place back.
    held.pop();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let session = open_session(HOLDER, addr, None).await.unwrap_or_else(|a| panic!("{} {}", a.status, a.message));
    assert_eq!(listen(HOLDER, addr, &session).await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_streams_holding_every_connection_are_closed_to_make_room() {
    let _one = ONE_FLOOD.lock().await;
    // 16 connections in all, and a share large enough for one address to hold them all.
    let addr = served(|m| m, |s| s.max_connections(16).max_in_flight_per_caller(64)).await;
    let mut held = Vec::new();
    let mut refused = None;
    for _ in 0..20 {
        let stream = match open_session(HOLDER, addr, None).await {
            Ok(session) => listen(HOLDER, addr, &session).await,
            Err(refusal) => refusal,
        };
        match stream.status {
            200 => held.push(stream),
            _ => {
                refused = Some(stream);
                break;
            }
        }
    }
    // The holder takes nearly every connection (a closed one may not have left yet when the
    // next arrives), then no more: it holds its fair share (all of them, alone).
    assert!((12..=16).contains(&held.len()), "{} streams held", held.len());
    let refused = refused.expect("a refusal once every connection is held");
    assert_eq!(refused.status, 503);
    assert_eq!(refused.message["error"], "service_unavailable", "{}", refused.message);
    // A fresh address is served: one of the holder's streams is closed for each connection.
    for _ in 0..3 {
        let session = open_session(FRESH, addr, None).await.unwrap_or_else(|a| panic!("{} {}", a.status, a.message));
        let listed = list_tools(FRESH, addr, &session).await;
        assert_eq!(listed.status, 200, "{}", listed.message);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_bounded_per_address_and_in_all() {
    let addr = served(|m| m.with_max_sessions(8).with_max_sessions_per_caller(5), |s| s).await;
    for _ in 0..5 {
        open_session(HOLDER, addr, None).await.unwrap_or_else(|a| panic!("{} {}", a.status, a.message));
    }
    let Err(refused) = open_session(HOLDER, addr, None).await else { panic!("a 6th session of one address") };
    assert_eq!(refused.status, 429);
    assert_eq!(refused.header("retry-after"), Some("30"));
    assert_eq!(refused.message["id"], 0, "answered under the initialize's id: {}", refused.message);
    assert_eq!(refused.message["error"]["data"]["error"], "rate_limited");
    let message = refused.message["error"]["message"].as_str().unwrap();
    assert!(message.contains("its share of 5 sessions open"), "{message}");
    // Another address opens its own, up to the bound in all.
    let mut fresh = Vec::new();
    for _ in 0..3 {
        fresh.push(open_session(FRESH, addr, None).await.unwrap_or_else(|a| panic!("{} {}", a.status, a.message)));
    }
    let Err(refused) = open_session(FRESH, addr, None).await else { panic!("a 9th session") };
    assert_eq!(refused.status, 503);
    assert_eq!(refused.header("retry-after"), Some("30"));
    assert_eq!(refused.message["error"]["data"]["error"], "service_unavailable");
    // A session ended (DELETE) gives its place back.
    let ended = send(FRESH, addr, "DELETE", &[VERSION, ("mcp-session-id", &fresh[0])], "").await;
    assert_eq!(ended.status, 202);
    open_session(FRESH, addr, None).await.unwrap_or_else(|a| panic!("{} {}", a.status, a.message));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_paths_answer_in_json_and_cut_long_header_values() {
    let addr = served(|m| m, |s| s).await;
    let session = open_session(HOLDER, addr, None).await.unwrap_or_else(|a| panic!("{} {}", a.status, a.message));
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, u16, &'a str);
    let cases: [Case; 5] = [
        ("GET", vec![EVENTS, VERSION], 400, "Session ID is required"),
        ("GET", vec![EVENTS, VERSION, ("mcp-session-id", "no-such-session")], 404, "Session not found"),
        ("GET", vec![("accept", "application/json"), VERSION, ("mcp-session-id", &session)], 406, "text/event-stream"),
        ("DELETE", vec![VERSION, ("mcp-session-id", "no-such-session")], 404, "Session not found"),
        ("DELETE", vec![VERSION], 400, "Session ID is required"),
    ];
    for (method, headers, status, says) in cases {
        let answer = send(HOLDER, addr, method, &headers, "").await;
        assert_eq!(answer.status, status, "{method} {headers:?}: {}", answer.message);
        assert_eq!(answer.header("content-type"), Some("application/json"), "{method} {headers:?}");
        assert_eq!(answer.message["jsonrpc"], "2.0", "{method} {headers:?}: {}", answer.message);
        // JSON-RPC 2.0 §5: an error that answers no request carries `"id": null`.
        assert_eq!(answer.message.get("id"), Some(&Value::Null), "{method} {headers:?}: {}", answer.message);
        let message = answer.message["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{method} {headers:?}: {message}");
    }
    // A method the endpoint does not take names every one it does, sessions' GET and DELETE too.
    let put = send(HOLDER, addr, "PUT", &[JSON], "{}").await;
    assert_eq!(put.status, 405);
    assert_eq!(put.header("allow"), Some("post, get, delete"), "{}", put.head); // the head is read lower-cased
    let long = "9".repeat(15_000);
    for method in ["GET", "DELETE"] {
        let headers = [EVENTS, ("mcp-protocol-version", long.as_str()), ("mcp-session-id", session.as_str())];
        let answer = send(HOLDER, addr, method, &headers, "").await;
        assert_eq!(answer.status, 400, "{method}");
        assert_eq!(answer.message["error"]["data"]["error"], "malformed_request", "{}", answer.message);
        assert!(answer.body_bytes < 1_000, "{method}: {} bytes", answer.body_bytes);
    }
    // The session is still open, and ends with its DELETE.
    let ended = send(HOLDER, addr, "DELETE", &[VERSION, ("mcp-session-id", &session)], "").await;
    assert_eq!(ended.status, 202);
    assert_eq!(list_tools(HOLDER, addr, &session).await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_in_flight_in_a_session_is_refused_under_its_id() {
    let addr = served(|m| m, |s| s).await;
    let session = open_session(HOLDER, addr, None).await.unwrap_or_else(|a| panic!("{} {}", a.status, a.message));
    let headers = [JSON, BOTH, VERSION, ("mcp-session-id", session.as_str()), ("connection", "close")];
    let call = |n: u32| {
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "slow_echo", "arguments": {"n": n, "ms": 1500}}})
        .to_string()
    };
    let (first_call, second_call) = (call(1), call(2));
    let first = send(HOLDER, addr, "POST", &headers, &first_call);
    let second = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        send(HOLDER, addr, "POST", &headers, &second_call).await
    };
    let (first, second) = tokio::join!(first, second);
    assert_eq!(second.status, 200);
    assert_eq!(second.message["id"], 5);
    assert_eq!(second.message["error"]["code"], -32600, "{}", second.message);
    let message = second.message["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("id 5 is already in use by a request in flight"), "{message}");
    assert_eq!(first.status, 200);
    assert_eq!(first.message["id"], 5);
    assert_eq!(first.message["result"]["structuredContent"]["data"], 1, "{}", first.message);
    // Once answered, the id is free again.
    let again = send(HOLDER, addr, "POST", &headers, &call(3)).await;
    assert_eq!(again.message["result"]["structuredContent"]["data"], 3, "{}", again.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_serves_only_the_caller_that_opened_it() {
    let addr = served(|m| m.with_auth(BearerTokens::new(["tok-alice", "tok-bob"])), |s| s).await;
    let session =
        open_session(HOLDER, addr, Some("tok-alice")).await.unwrap_or_else(|a| panic!("{} {}", a.status, a.message));
    let as_bob = [EVENTS, VERSION, ("mcp-session-id", session.as_str()), ("authorization", "Bearer tok-bob")];
    for method in ["GET", "DELETE"] {
        let answer = send(HOLDER, addr, method, &as_bob, "").await;
        assert_eq!(answer.status, 404, "{method}: {}", answer.message);
        assert_eq!(answer.message["error"]["message"], "Not Found: Session not found");
    }
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let bob_post = [JSON, BOTH, VERSION, ("mcp-session-id", session.as_str()), ("authorization", "Bearer tok-bob")];
    let answer = send(HOLDER, addr, "POST", &bob_post, &list).await;
    assert_eq!((answer.status, &answer.message["id"]), (404, &json!(1)), "{}", answer.message);
    // Alice's session is untouched.
    let alice = [EVENTS, VERSION, ("mcp-session-id", session.as_str()), ("authorization", "Bearer tok-alice")];
    assert_eq!(send(HOLDER, addr, "GET", &alice, "").await.status, 200);
}

/// In a session, a tool call's answer is an event stream whose head is written before its body
/// ends: the call keeps its place under `max_in_flight` until the stream ends, so the bodies
/// running stay within it, however many addresses each send their share.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_calls_in_sessions_stay_within_max_in_flight() {
    let _one = ONE_FLOOD.lock().await;
    let addr = served(|m| m, |s| s.max_in_flight(4).max_in_flight_per_caller(2)).await;
    let mut sessions = Vec::new();
    for n in 0..5u8 {
        let from = Ipv4Addr::new(127, 0, 0, 30 + n);
        let session = open_session(from, addr, None).await.unwrap_or_else(|a| panic!("{} {}", a.status, a.message));
        sessions.push((from, session));
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut calls = Vec::new();
    for (from, session) in sessions {
        for id in 0..2 {
            let session = session.clone();
            let call = json!({"jsonrpc": "2.0", "id": 10 + id, "method": "tools/call",
                "params": {"name": "counted_sleep", "arguments": {"ms": 1500}}})
            .to_string();
            calls.push(tokio::spawn(async move {
                let headers = [JSON, BOTH, VERSION, ("mcp-session-id", session.as_str()), ("connection", "close")];
                send(from, addr, "POST", &headers, &call).await
            }));
        }
    }
    let mut served = 0;
    for call in calls {
        let answer = call.await.unwrap();
        match answer.status {
            200 => {
                assert_eq!(answer.message["result"]["structuredContent"]["data"], 1500, "{}", answer.message);
                served += 1;
            }
            // Past the bound and its queue's wait: refused in JSON.
            _ => assert_eq!(answer.header("content-type"), Some("application/json"), "{}", answer.status),
        }
    }
    let peak = PEAK.load(std::sync::atomic::Ordering::SeqCst);
    assert!(peak <= 4, "{peak} bodies ran at once under max_in_flight(4)");
    assert!(served >= 4, "only {served} of the 10 calls were served");
}
