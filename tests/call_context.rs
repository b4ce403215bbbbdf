//! A tool sees its call (`envelope_core::Context`): cancellation, progress, log messages, the
//! caller; over MCP stdio and Streamable HTTP on every protocol version the e2e suite uses,
//! against servers in this process. Each stdio session is written and read line by line, each
//! HTTP exchange by hand, so what is not sent (a reply to a cancelled id, progress nobody asked
//! for) can be seen not to arrive.

#[path = "../examples/tools/mod.rs"]
#[allow(dead_code)]
mod tools;

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use envelope_core::mcp::McpServer;
use envelope_core::mcp::streamable::McpHttp;
use envelope_core::{Caller, Context, Toolbox, context::LogLevel, tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};
use tokio::net::TcpStream;
use tokio::time::timeout;

const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// The protocol versions of the e2e suite.
const VERSIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

// ---------------------------------------------------------------------------------------------
// Tools that record how they stopped.

/// The labels of the bodies that saw their call cancelled and stopped.
fn stopped() -> &'static Mutex<HashSet<String>> {
    static STOPPED: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    STOPPED.get_or_init(Mutex::default)
}

fn record(label: &str) {
    stopped().lock().unwrap().insert(label.to_owned());
}

/// Whether the body labelled `label` stopped on its cancelled call within `within`.
async fn stops_within(label: &str, within: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < within {
        if stopped().lock().unwrap().contains(label) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// A sync body that works in 10 ms steps for `ms` milliseconds, stopping when cancelled.
#[tool]
fn sync_spin(#[validate(length = 1..=64)] label: String, #[validate(range = 1..=30000)] ms: u64, cx: Context) -> bool {
    spin(&label, ms, &cx)
}

fn spin(label: &str, ms: u64, cx: &Context) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(ms) {
        if cx.is_cancelled() {
            record(label);
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Records its label when dropped before it finished, in a call that was cancelled.
struct Recorder {
    label: String,
    cx: Context,
    finished: bool,
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if !self.finished && self.cx.is_cancelled() {
            record(&self.label);
        }
    }
}

/// An async body that waits `ms` milliseconds or for its call's cancellation.
#[tool]
async fn async_spin(
    #[validate(length = 1..=64)] label: String,
    #[validate(range = 1..=30000)] ms: u64,
    cx: &Context,
) -> bool {
    let mut recorder = Recorder { label, cx: cx.clone(), finished: false };
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(ms)) => {
            recorder.finished = true;
            true
        }
        () = cx.cancelled() => false,
    }
}

/// A sync body with a 300 ms timeout that would work for 20 s.
#[tool(timeout_ms = 300)]
fn sync_timed(#[validate(length = 1..=64)] label: String, cx: Context) -> bool {
    spin(&label, 20_000, &cx)
}

/// An async body with a 300 ms timeout that would wait 20 s.
#[tool(timeout_ms = 300)]
async fn async_timed(#[validate(length = 1..=64)] label: String, cx: Context) -> bool {
    let mut recorder = Recorder { label, cx, finished: false };
    tokio::time::sleep(Duration::from_secs(20)).await;
    recorder.finished = true;
    true
}

/// Logs once at each of the five lowest levels, and reports progress 1 (twice), 0.5, 2 and 3
/// at once, then 4 and 5 of 5 after 60 ms, then 6 held by the rate bound until the end.
#[tool]
fn noisy(cx: &Context) -> u32 {
    for level in [LogLevel::Debug, LogLevel::Info, LogLevel::Notice, LogLevel::Warning, LogLevel::Error] {
        cx.log(level, format!("at {}", level.as_str()));
    }
    cx.progress(1, 5);
    cx.progress(1, 5); // not an increase: dropped
    cx.progress(0.5, 5.0); // a decrease: dropped
    cx.progress(2, 5); // within 50 ms: held, then replaced by 3
    cx.progress(3, 5); // held, then dropped when 4 goes out
    std::thread::sleep(Duration::from_millis(60));
    cx.progress_with(4, 5, "four");
    cx.progress(5, 5); // reaches the total: at once
    cx.progress(6, 5); // within 50 ms: held, sent at the call's end
    5
}

/// Reports 1000 steps as fast as it can.
#[tool]
fn burst(cx: Context) -> u32 {
    for i in 1..=1000_u32 {
        cx.progress(i, 1000);
    }
    1000
}

fn toolbox() -> Toolbox {
    tools::with_context_tools(Toolbox::new())
        .with(sync_spin::tool())
        .with(async_spin::tool())
        .with(sync_timed::tool())
        .with(async_timed::tool())
        .with(noisy::tool())
        .with(burst::tool())
}

fn label(what: &str, transport: &str, version: &str) -> String {
    format!("{what}/{transport}/{version}")
}

// ---------------------------------------------------------------------------------------------
// Stdio, in process.

/// A stdio session with a server in this process, written and read line by line.
struct Stdio {
    version: &'static str,
    input: WriteHalf<DuplexStream>,
    output: Lines<BufReader<ReadHalf<DuplexStream>>>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Stdio {
    async fn start(server: McpServer, version: &'static str) -> Self {
        let (client, server_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        let server = tokio::spawn(envelope_core::mcp::serve_io(server, server_read, server_write));
        let (read, input) = tokio::io::split(client);
        let mut session = Stdio { version, input, output: BufReader::new(read).lines(), server };
        if version != "2026-07-28" {
            session
                .send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": version, "capabilities": {},
                    "clientInfo": {"name": "call_context", "version": "0"}}}))
                .await;
            let (reply, _) = session.until_reply(0).await;
            assert_eq!(reply["result"]["protocolVersion"], version, "{reply}");
            assert_eq!(reply["result"]["capabilities"]["logging"], json!({}), "{reply}");
            session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        }
        session
    }

    /// Writes `message`; on 2026-07-28 a request's `params` gain the per-request `_meta`.
    async fn send(&mut self, mut message: Value) {
        if self.version == "2026-07-28" && message.get("id").is_some() {
            let params = message.as_object_mut().unwrap().entry("params").or_insert(json!({}));
            let meta = params.as_object_mut().unwrap().entry("_meta").or_insert(json!({}));
            meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
            meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
        }
        let mut line = message.to_string();
        line.push('\n');
        self.input.write_all(line.as_bytes()).await.unwrap();
        self.input.flush().await.unwrap();
    }

    /// Every line up to the reply to `id`: the reply, and the notifications before it.
    async fn until_reply(&mut self, id: i64) -> (Value, Vec<Value>) {
        let mut notifications = Vec::new();
        loop {
            let line = timeout(READ_TIMEOUT, self.output.next_line())
                .await
                .unwrap_or_else(|_| panic!("no reply to {id} within {READ_TIMEOUT:?}"))
                .unwrap()
                .expect("the server closed its output");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return (message, notifications);
            }
            assert!(message.get("id").is_none(), "a reply to another request: {message}");
            notifications.push(message);
        }
    }

    /// Calls `name` with `arguments` (and `_meta` when given) under `id`; the reply is checked
    /// against the tool's `outputSchema`.
    async fn call(&mut self, id: i64, name: &str, arguments: Value, meta: Option<Value>) -> (Value, Vec<Value>) {
        self.send(call_request(id, name, arguments, meta)).await;
        let (reply, notes) = self.until_reply(id).await;
        let schema = Value::Object(toolbox().get(name).unwrap().output_schema(None));
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        let envelope = envelope(&reply);
        assert!(validator.is_valid(envelope), "{name}: {envelope} does not conform to {schema}");
        (reply, notes)
    }

    fn stop(self) {
        self.server.abort();
    }
}

fn call_request(id: i64, name: &str, arguments: Value, meta: Option<Value>) -> Value {
    let mut params = json!({"name": name, "arguments": arguments});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// The envelope of a `tools/call` reply.
fn envelope(reply: &Value) -> &Value {
    &reply["result"]["structuredContent"]
}

/// The `progress` values of the progress notifications among `messages`, each checked to
/// carry `token`.
fn progress_of(messages: &[Value], token: &Value) -> Vec<f64> {
    messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| {
            assert_eq!(&m["params"]["progressToken"], token, "{m}");
            m["params"]["progress"].as_f64().unwrap()
        })
        .collect()
}

/// The levels of the log messages among `messages`.
fn levels_of(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| {
            assert_eq!(m["params"]["data"], format!("at {}", m["params"]["level"].as_str().unwrap()), "{m}");
            m["params"]["level"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_over_stdio_only_with_a_token_increasing_and_bounded() {
    for version in VERSIONS {
        let mut s = Stdio::start(McpServer::new(toolbox()), version).await;
        // With a token: the values as sent after the checks, under the client's own token.
        let (reply, notes) = s.call(1, "noisy", json!({}), Some(json!({"progressToken": "p-1"}))).await;
        assert_eq!(envelope(&reply)["data"], 5, "{version}: {reply}");
        assert_eq!(progress_of(&notes, &json!("p-1")), [1.0, 4.0, 5.0, 6.0], "{version}: {notes:?}");
        let started = Instant::now();
        let four = notes.iter().find(|m| m["params"]["progress"] == 4.0).unwrap();
        assert_eq!(four["params"]["message"], "four");
        assert_eq!(four["params"]["total"], 5.0);
        // A numeric token is echoed as a number.
        let (_, notes) = s.call(2, "burst", json!({}), Some(json!({"progressToken": 42}))).await;
        eprintln!("stdio {version}: 1000 progress reports answered in {:?}", started.elapsed());
        let seen = progress_of(&notes, &json!(42));
        assert_eq!(seen.last(), Some(&1000.0), "{version}: the last report arrives: {seen:?}");
        assert!(seen.len() <= 3, "{version}: 1000 reports in a few ms make at most 3 notifications: {seen:?}");
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
        // Without a token: no progress notification at all.
        let (reply, notes) = s.call(3, "noisy", json!({}), None).await;
        assert_eq!(envelope(&reply)["data"], 5);
        assert!(notes.is_empty(), "{version}: nothing asked, nothing sent: {notes:?}");
        s.stop();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_messages_over_stdio_follow_set_level() {
    for version in VERSIONS {
        let mut s = Stdio::start(McpServer::new(toolbox()), version).await;
        // No level set: none sent.
        let (_, notes) = s.call(1, "noisy", json!({}), None).await;
        assert!(levels_of(&notes).is_empty(), "{version}: {notes:?}");
        s.send(json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "notice"}})).await;
        let (reply, _) = s.until_reply(2).await;
        assert_eq!(reply["result"], json!({}), "{version}: {reply}");
        let (_, notes) = s.call(3, "noisy", json!({}), None).await;
        assert_eq!(levels_of(&notes), ["notice", "warning", "error"], "{version}");
        s.send(json!({"jsonrpc": "2.0", "id": 4, "method": "logging/setLevel", "params": {"level": "debug"}})).await;
        s.until_reply(4).await;
        let (_, notes) = s.call(5, "noisy", json!({}), None).await;
        assert_eq!(levels_of(&notes), ["debug", "info", "notice", "warning", "error"], "{version}");
        if version == "2026-07-28" {
            // The request's own level wins.
            let meta = json!({"io.modelcontextprotocol/logLevel": "error"});
            let (_, notes) = s.call(6, "noisy", json!({}), Some(meta)).await;
            assert_eq!(levels_of(&notes), ["error"]);
        }
        s.stop();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_over_stdio_stops_its_body_and_gets_no_reply() {
    for version in VERSIONS {
        let mut s = Stdio::start(McpServer::new(toolbox()), version).await;
        // On 2026-07-28 the session starts with its first answered request (not a ping); until
        // then rmcp reads requests alone, and a cancellation would not reach it.
        s.send(json!({"jsonrpc": "2.0", "id": 0, "method": "tools/list", "params": {}})).await;
        s.until_reply(0).await;
        for (id, tool) in [(1, "sync_spin"), (2, "async_spin")] {
            let label = label(tool, "stdio", version);
            s.send(call_request(id, tool, json!({"label": label, "ms": 20000}), None)).await;
            tokio::time::sleep(Duration::from_millis(200)).await;
            s.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}})).await;
            assert!(stops_within(&label, Duration::from_secs(5)).await, "{label} did not stop");
            // The session goes on, and the cancelled id is never answered.
            s.send(json!({"jsonrpc": "2.0", "id": 10 + id, "method": "ping"})).await;
            let (_, before) = s.until_reply(10 + id).await;
            assert!(before.iter().all(|m| m["id"] != id), "{before:?}");
        }
        // The example's rebuild_index stops at its next tick.
        s.send(call_request(3, "rebuild_index", json!({"seconds": 60}), Some(json!({"progressToken": "r"})))).await;
        tokio::time::sleep(Duration::from_millis(350)).await;
        s.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        s.send(json!({"jsonrpc": "2.0", "id": 4, "method": "ping"})).await;
        let (_, notes) = s.until_reply(4).await;
        let ticks = progress_of(&notes, &json!("r"));
        assert!(!ticks.is_empty() && ticks.len() < 20, "{version}: {ticks:?}");
        // No more progress after it stopped, and no reply to 3.
        s.send(json!({"jsonrpc": "2.0", "id": 5, "method": "ping"})).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (_, after) = s.until_reply(5).await;
        assert!(after.iter().all(|m| m["id"] != 3 && m["method"] != "notifications/progress"), "{after:?}");
        s.stop();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_over_stdio_stops_sync_and_async_bodies() {
    for version in VERSIONS {
        let mut s = Stdio::start(McpServer::new(toolbox()), version).await;
        for (id, tool) in [(1, "sync_timed"), (2, "async_timed")] {
            let label = label(tool, "stdio", version);
            let started = Instant::now();
            let (reply, _) = s.call(id, tool, json!({"label": label}), None).await;
            let took = started.elapsed();
            let e = envelope(&reply);
            assert_eq!((&e["status"], &e["error_code"]), (&json!("error"), &json!("TIMEOUT")), "{reply}");
            assert!(took < Duration::from_secs(5), "{tool}: answered after {took:?}");
            assert!(stops_within(&label, Duration::from_secs(5)).await, "{label} did not stop");
            eprintln!("stdio {version} {tool}: TIMEOUT answered after {took:?} (timeout_ms = 300)");
        }
        s.stop();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_caller_is_visible_to_the_tool_over_stdio() {
    for version in VERSIONS {
        let alice = Caller::new("alice").with_tenant("acme").with_scopes(["notes:read"]);
        let mut s = Stdio::start(McpServer::new(toolbox()).with_caller(alice), version).await;
        let (reply, _) = s.call(1, "whoami", json!({}), None).await;
        assert_eq!(
            envelope(&reply)["data"],
            json!({"anonymous": false, "subject": "alice", "tenant": "acme", "scopes": ["notes:read"],
                   "surface": "mcp", "protocol_version": version}),
            "{reply}"
        );
        s.stop();
        let mut s = Stdio::start(McpServer::new(toolbox()), version).await;
        let (reply, _) = s.call(1, "whoami", json!({}), None).await;
        assert_eq!(envelope(&reply)["data"]["anonymous"], true, "{reply}");
        assert_eq!(envelope(&reply)["data"]["subject"], Value::Null, "{reply}");
        s.stop();
    }
}

/// Every schema a context-taking tool has: `tools/list` (stdio), the manifest, each provider's
/// export. None names the context parameter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_context_parameter_is_in_no_schema() {
    let toolbox = toolbox();
    for version in VERSIONS {
        let mut s = Stdio::start(McpServer::new(toolbox.clone()), version).await;
        s.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})).await;
        let (reply, _) = s.until_reply(1).await;
        for tool in reply["result"]["tools"].as_array().unwrap() {
            let properties = tool["inputSchema"]["properties"].as_object().cloned().unwrap_or_default();
            let expected: &[&str] = match tool["name"].as_str().unwrap() {
                "rebuild_index" => &["seconds"],
                "whoami" | "noisy" | "burst" => &[],
                "sync_spin" | "async_spin" => &["label", "ms"],
                _ => &["label"],
            };
            assert_eq!(properties.keys().collect::<Vec<_>>(), expected, "{tool}");
            assert!(!tool.to_string().contains("\"cx\""), "{tool}");
        }
        s.stop();
    }
    let manifest = serde_json::to_value(toolbox.manifest()).unwrap();
    assert!(manifest["tools"].as_array().unwrap().len() >= 8);
    assert!(!manifest.to_string().contains("\"cx\""), "{manifest}");
    let whoami = manifest["tools"].as_array().unwrap().iter().find(|t| t["name"] == "whoami").unwrap();
    assert_eq!(whoami["inputSchema"]["properties"], json!({}), "{whoami}");
    for provider in envelope_core::providers::Provider::ALL {
        let exported = Value::Array(envelope_core::providers::tools(&toolbox, provider).expect("within the limits"));
        assert!(!exported.to_string().contains("\"cx\""), "{provider:?}: {exported}");
        assert!(exported.to_string().contains("\"seconds\""), "{provider:?}: {exported}");
    }
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP, in process.

/// Serves `app` on a loopback port; gives its address.
async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    tokio::spawn(envelope_core::http::serve(listener, app).routes(["POST /mcp"]).into_future());
    address
}

/// The request of one POST to `/mcp` on `version`, `sse`: whether it accepts an event stream.
fn http_request(address: &str, version: &str, body: &Value, sse: bool) -> String {
    let mut body = body.clone();
    if version == "2026-07-28" && body.get("id").is_some() {
        let meta = body["params"].as_object_mut().unwrap().entry("_meta").or_insert(json!({}));
        meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
        meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
    }
    let body = body.to_string();
    let accept = if sse { "application/json, text/event-stream" } else { "application/json" };
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: {accept}\r\nMCP-Protocol-Version: {version}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if version == "2026-07-28" {
        let method = body_method(&body);
        request.push_str(&format!("Mcp-Method: {method}\r\n"));
        if method == "tools/call" {
            let name: Value = serde_json::from_str(&body).unwrap();
            request.push_str(&format!("Mcp-Name: {}\r\n", name["params"]["name"].as_str().unwrap()));
        }
    }
    request.push_str("\r\n");
    request.push_str(&body);
    request
}

fn body_method(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap();
    v["method"].as_str().unwrap().to_owned()
}

/// One POST: the status, the `Content-Type`, and the JSON-RPC messages of the body (one for a
/// JSON body, each event's for an event stream).
async fn post(address: &str, version: &str, body: &Value, sse: bool) -> (u16, String, Vec<Value>) {
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(http_request(address, version, body, sse).as_bytes()).await.unwrap();
    let mut response = Vec::new();
    timeout(READ_TIMEOUT, stream.read_to_end(&mut response)).await.unwrap().unwrap();
    let response = String::from_utf8(response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-type:").map(|v| v.trim().to_owned()))
        .unwrap_or_default();
    let messages = if content_type.starts_with("text/event-stream") {
        body.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect()
    } else if body.trim().is_empty() {
        Vec::new()
    } else {
        let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
            dechunk(body)
        } else {
            body.to_owned()
        };
        vec![serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {response}"))]
    };
    (status, content_type, messages)
}

/// The body of a chunked response, its chunks joined.
fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.push_str(&after[..size]);
        rest = &after[size + 2..];
    }
    out
}

/// The reply among `messages` and the notifications before it.
fn split_reply(messages: Vec<Value>, id: i64) -> (Value, Vec<Value>) {
    let at = messages.iter().position(|m| m["id"] == id).unwrap_or_else(|| panic!("no reply to {id}: {messages:?}"));
    let mut messages = messages;
    let reply = messages.remove(at);
    (reply, messages)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_logs_over_streamable_http_ride_the_event_stream() {
    let address =
        serve(McpHttp::with_handler(McpServer::new(toolbox()).with_log_level(LogLevel::Warning)).router()).await;
    for version in VERSIONS {
        let call = call_request(1, "noisy", json!({}), Some(json!({"progressToken": "h"})));
        // Accepting an event stream: the notifications, then the reply, on it.
        let (status, content_type, messages) = post(&address, version, &call, true).await;
        assert_eq!((status, content_type.as_str()), (200, "text/event-stream"), "{version}: {messages:?}");
        let (reply, notes) = split_reply(messages, 1);
        assert_eq!(envelope(&reply)["data"], 5, "{version}: {reply}");
        assert_eq!(progress_of(&notes, &json!("h")), [1.0, 4.0, 5.0, 6.0], "{version}");
        // The server's default level (warning) on every version, the request's own on 2026-07-28.
        assert_eq!(levels_of(&notes), ["warning", "error"], "{version}");
        if version == "2026-07-28" {
            let meta = json!({"progressToken": "h", "io.modelcontextprotocol/logLevel": "info"});
            let (_, _, messages) =
                post(&address, version, &call_request(2, "noisy", json!({}), Some(meta)), true).await;
            let (_, notes) = split_reply(messages, 2);
            assert_eq!(levels_of(&notes), ["info", "notice", "warning", "error"], "{version}");
        }
        // logging/setLevel is answered, and holds for its own request alone (stateless).
        let set = json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "debug"}});
        let (status, _, messages) = post(&address, version, &set, true).await;
        assert_eq!((status, &messages[0]["result"]), (200, &json!({})), "{version}: {messages:?}");
        let (_, _, messages) = post(&address, version, &call, true).await;
        assert_eq!(levels_of(&split_reply(messages, 1).1), ["warning", "error"], "{version}");
        // Without a token: no progress; logs still ride the stream.
        let (_, _, messages) = post(&address, version, &call_request(4, "noisy", json!({}), None), true).await;
        let (_, notes) = split_reply(messages, 4);
        assert!(notes.iter().all(|m| m["method"] != "notifications/progress"), "{version}: {notes:?}");
        // A client that accepts JSON alone gets the reply alone, as JSON.
        let (status, content_type, messages) = post(&address, version, &call, false).await;
        assert_eq!((status, content_type.as_str()), (200, "application/json"), "{version}: {messages:?}");
        assert_eq!(messages.len(), 1, "{version}: {messages:?}");
        assert_eq!(envelope(&messages[0])["data"], 5);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_connection_over_streamable_http_stops_sync_and_async_bodies() {
    let address = serve(McpHttp::new(toolbox()).router()).await;
    for version in VERSIONS {
        for (tool, sse) in [("sync_spin", false), ("async_spin", false), ("sync_spin", true), ("async_spin", true)] {
            let label = label(&format!("{tool}-sse{sse}"), "http", version);
            let call = call_request(1, tool, json!({"label": label, "ms": 20000}), Some(json!({"progressToken": 1})));
            let mut stream = TcpStream::connect(&address).await.unwrap();
            stream.write_all(http_request(&address, version, &call, sse).as_bytes()).await.unwrap();
            tokio::time::sleep(Duration::from_millis(300)).await;
            drop(stream);
            assert!(stops_within(&label, Duration::from_secs(5)).await, "{label} did not stop");
        }
    }
}

/// POSTs `body` on a new connection without waiting: the task gives the response.
fn post_later(
    address: &str,
    version: &'static str,
    body: Value,
    sse: bool,
) -> tokio::task::JoinHandle<(u16, String, Vec<Value>)> {
    let address = address.to_owned();
    tokio::spawn(async move { post(&address, version, &body, sse).await })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_over_streamable_http_stops_its_body_and_gets_no_reply() {
    let carol = Caller::new("carol");
    let verified = serve(McpHttp::new(toolbox()).router().layer(axum::Extension(carol))).await;
    let anonymous = serve(McpHttp::new(toolbox()).router()).await;
    for version in VERSIONS {
        for (id, tool, sse) in [(7, "sync_spin", false), (8, "async_spin", true)] {
            let label = label(&format!("{tool}-cancelled"), "http", version);
            let call =
                post_later(&verified, version, call_request(id, tool, json!({"label": label, "ms": 20000}), None), sse);
            tokio::time::sleep(Duration::from_millis(300)).await;
            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
            let (status, _, _) = post(&verified, version, &cancel, false).await;
            assert_eq!(status, 202, "{version}");
            assert!(stops_within(&label, Duration::from_secs(5)).await, "{label} did not stop");
            // The cancelled POST is answered 202 with no body: no reply to the cancelled id.
            let (status, _, messages) = timeout(READ_TIMEOUT, call).await.unwrap().unwrap();
            assert_eq!((status, messages.len()), (202, 0), "{version}: {messages:?}");
        }
        // Once its event stream has started (progress sent), the stream ends without the reply.
        let call = call_request(9, "rebuild_index", json!({"seconds": 60}), Some(json!({"progressToken": "c"})));
        let call = post_later(&verified, version, call, true);
        tokio::time::sleep(Duration::from_millis(400)).await;
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}});
        post(&verified, version, &cancel, false).await;
        let (status, content_type, messages) = timeout(READ_TIMEOUT, call).await.unwrap().unwrap();
        assert_eq!((status, content_type.as_str()), (200, "text/event-stream"), "{version}");
        assert!(!progress_of(&messages, &json!("c")).is_empty(), "{version}: {messages:?}");
        assert!(messages.iter().all(|m| m.get("id").is_none()), "{version}: no reply: {messages:?}");
        // An anonymous caller's cancellation reaches no call: any client could have sent it.
        let label = label("sync_spin-anonymous", "http", version);
        let call = post_later(
            &anonymous,
            version,
            call_request(7, "sync_spin", json!({"label": label, "ms": 600}), None),
            false,
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}});
        post(&anonymous, version, &cancel, false).await;
        let (status, _, messages) = timeout(READ_TIMEOUT, call).await.unwrap().unwrap();
        assert_eq!((status, &envelope(&messages[0])["data"]), (200, &json!(true)), "{version}: {messages:?}");
    }
}

/// Two verified callers whose keys once collided (subject `a@b`; subject `a` of tenant `b`),
/// on one endpoint: the second's `notifications/cancelled` for the first's request id reaches
/// nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_callers_cancellation_reaches_no_call() {
    let router = McpHttp::new(toolbox()).router();
    let first = serve(router.clone().layer(axum::Extension(Caller::new("a@b")))).await;
    let second = serve(router.layer(axum::Extension(Caller::new("a").with_tenant("b")))).await;
    for version in VERSIONS {
        let label = label("sync_spin-another-caller", "http", version);
        let call =
            post_later(&first, version, call_request(7, "sync_spin", json!({"label": label, "ms": 600}), None), false);
        tokio::time::sleep(Duration::from_millis(200)).await;
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}});
        assert_eq!(post(&second, version, &cancel, false).await.0, 202, "{version}");
        let (status, _, messages) = timeout(READ_TIMEOUT, call).await.unwrap().unwrap();
        assert_eq!((status, &envelope(&messages[0])["data"]), (200, &json!(true)), "{version}: {messages:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_over_streamable_http_stops_sync_and_async_bodies() {
    let address = serve(McpHttp::new(toolbox()).router()).await;
    for version in VERSIONS {
        for (id, tool) in [(1, "sync_timed"), (2, "async_timed")] {
            let label = label(tool, "http", version);
            let started = Instant::now();
            let (status, _, messages) =
                post(&address, version, &call_request(id, tool, json!({"label": label}), None), true).await;
            let took = started.elapsed();
            let (reply, _) = split_reply(messages, id);
            let e = envelope(&reply);
            assert_eq!((status, &e["status"], &e["error_code"]), (200, &json!("error"), &json!("TIMEOUT")), "{reply}");
            assert!(took < Duration::from_secs(5), "{tool}: answered after {took:?}");
            assert!(stops_within(&label, Duration::from_secs(5)).await, "{label} did not stop");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_caller_is_visible_to_the_tool_over_streamable_http() {
    let bob = Caller::new("bob").with_tenant("globex").with_scopes(["a", "b"]);
    let verified = serve(McpHttp::new(toolbox()).router().layer(axum::Extension(bob))).await;
    let anonymous = serve(McpHttp::new(toolbox()).router()).await;
    for version in VERSIONS {
        let (_, _, messages) = post(&verified, version, &call_request(1, "whoami", json!({}), None), false).await;
        assert_eq!(
            envelope(&messages[0])["data"],
            json!({"anonymous": false, "subject": "bob", "tenant": "globex", "scopes": ["a", "b"],
                   "surface": "mcp", "protocol_version": version}),
            "{messages:?}"
        );
        let (_, _, messages) = post(&anonymous, version, &call_request(1, "whoami", json!({}), None), false).await;
        assert_eq!(envelope(&messages[0])["data"]["anonymous"], true, "{messages:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_shutting_down_stops_the_bodies_it_runs() {
    for version in VERSIONS {
        let mut s = Stdio::start(McpServer::new(toolbox()), version).await;
        for (id, tool) in [(1, "sync_spin"), (2, "async_spin")] {
            let label = label(&format!("{tool}-shutdown"), "stdio", version);
            s.send(call_request(id, tool, json!({"label": label, "ms": 20000}), None)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        s.stop();
        for tool in ["sync_spin", "async_spin"] {
            let label = label(&format!("{tool}-shutdown"), "stdio", version);
            assert!(stops_within(&label, Duration::from_secs(5)).await, "{label} did not stop");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Plain HTTP (`POST /tools/{name}`).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_a_dropped_connection_and_a_timeout_stop_the_body() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let app = envelope_core::http::HttpTools::new(toolbox()).router();
    tokio::spawn(envelope_core::http::serve(listener, app).routes(["POST /tools/{name}"]).into_future());
    for tool in ["sync_spin", "async_spin"] {
        let label = label(tool, "tools", "-");
        let body = json!({"label": label, "ms": 20000}).to_string();
        let request = format!(
            "POST /tools/{tool} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut stream = TcpStream::connect(&address).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        drop(stream);
        assert!(stops_within(&label, Duration::from_secs(5)).await, "{label} did not stop");
    }
    for tool in ["sync_timed", "async_timed"] {
        let label = label(tool, "tools", "-");
        let body = json!({"label": label}).to_string();
        let request = format!(
            "POST /tools/{tool} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let started = Instant::now();
        let mut stream = TcpStream::connect(&address).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        timeout(READ_TIMEOUT, stream.read_to_string(&mut response)).await.unwrap().unwrap();
        assert!(response.starts_with("HTTP/1.1 504"), "{tool}: {response}");
        assert!(response.contains(r#""error_code":"TIMEOUT""#), "{tool}: {response}");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(stops_within(&label, Duration::from_secs(5)).await, "{label} did not stop");
    }
}

// ---------------------------------------------------------------------------------------------
// In process, without a transport.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toolbox_call_in_hands_the_tool_its_context() {
    let toolbox = toolbox();
    let cx = Context::new(Caller::new("carol")).with_surface("batch");
    let env = toolbox.call_in(&cx, "whoami", None).await.unwrap();
    assert_eq!(env.to_value()["data"]["subject"], "carol");
    assert_eq!(env.to_value()["data"]["surface"], "batch");
    // A context cancelled before the call: the body sees it at its first check.
    let cx = Context::anonymous();
    cx.cancel();
    let env = toolbox.call_in(&cx, "sync_spin", Some(&json!({"label": "local", "ms": 20000}))).await.unwrap();
    assert_eq!(env.to_value()["data"], false);
    assert!(stops_within("local", Duration::from_secs(1)).await);
    // A sync timeout without a server: the body stops by the clock and the call answers TIMEOUT.
    let started = Instant::now();
    let env = toolbox.call("sync_timed", Some(&json!({"label": "local-timed"}))).await.unwrap();
    assert_eq!(env.to_value()["error_code"], "TIMEOUT", "{}", env.to_json());
    assert!(started.elapsed() < Duration::from_secs(5));
}

// ---------------------------------------------------------------------------------------------
// Typed output (feature `schemars`).

/// A row of a typed answer.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Row {
    /// The row's key.
    key: String,
    hits: u32,
}

/// Answers typed rows: its `data` schema comes from the type.
#[tool]
fn typed(#[validate(range = 0..=3)] n: u32) -> Result<Vec<Row>, envelope_core::Refusal> {
    Ok((0..n).map(|i| Row { key: format!("k{i}"), hits: i }).collect())
}

/// Answers JSON of any shape: no schema to derive.
#[tool]
fn untyped() -> serde_json::Value {
    json!({"any": "thing"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_schema_type_gives_the_data_schema_in_every_wire_format() {
    use envelope_core::outcome::WireFormat;
    for format in [WireFormat::Envelope, WireFormat::StatusHints, WireFormat::SuccessFlag, WireFormat::ErrorCodeSummary]
    {
        let toolbox = Toolbox::new().with(typed::tool()).with(untyped::tool()).with_wire_format(format);
        let schema = Value::Object(toolbox.get("typed").unwrap().output_schema(None));
        let text = schema.to_string();
        assert!(text.contains(r#""hits":{"#) && text.contains(r#""required":["key","hits"]"#), "{format:?}: {schema}");
        assert!(text.contains("The row's key."), "{format:?}: {schema}");
        assert!(!text.contains("$ref") && !text.contains("$schema"), "{format:?}: inlined: {schema}");
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        let ok = toolbox.call("typed", Some(&json!({"n": 2}))).await.unwrap().to_value();
        assert!(validator.is_valid(&ok), "{format:?}: {ok} against {schema}");
        let refused = toolbox.call("typed", Some(&json!({"n": 9}))).await.unwrap().to_value();
        assert!(validator.is_valid(&refused), "{format:?}: {refused} against {schema}");
        // A row of the wrong shape is caught: the schema describes the data.
        let wrong = match format {
            WireFormat::Envelope => json!({"status": "ok", "success": true, "data": [{"key": 1}]}),
            WireFormat::StatusHints => json!({"status": "ok", "data": [{"key": 1}]}),
            _ => json!({"success": true, "data": [{"key": 1}]}),
        };
        assert!(!validator.is_valid(&wrong), "{format:?}: {wrong} passes {schema}");
        // `serde_json::Value` is any JSON: the data schema stays `{}`.
        let any = Value::Object(toolbox.get("untyped").unwrap().output_schema(None));
        assert!(!any.to_string().contains("\"any\""), "{any}");
    }
}

// ---------------------------------------------------------------------------------------------
// An approved action runs in the call that approved it, as the caller who queued it.

fn archive_preview(#[allow(unused)] cx: &Context) -> Result<Value, envelope_core::Fault> {
    Ok(json!({"archive": "every note"}))
}

/// Archives every note, once approved; answers who ran it.
#[tool(destructive, confirm = archive_preview)]
fn archive_all(cx: &Context) -> Value {
    json!({"ran_by": cx.caller().subject(), "surface": cx.surface()})
}

#[tokio::test]
async fn an_approved_action_runs_in_the_approvers_call_as_its_queuer() {
    let toolbox =
        Toolbox::new().with(archive_all::tool()).with_approvers(|approver, _| approver.subject() == Some("bob"));
    let alice = Context::new(Caller::new("alice")).with_surface("ops");
    let queued = toolbox.call_in(&alice, "archive_all", None).await.unwrap();
    let id = queued.confirmation().expect("a pending action").pending_action_id().to_owned();
    // Through confirm_action, called by alice.
    let ran =
        toolbox.call_in(&alice, "confirm_action", Some(&json!({"pending_action_id": id, "approved": true}))).await;
    let ran = ran.unwrap();
    assert_eq!(ran.to_value()["data"], json!({"ran_by": "alice", "surface": "ops"}), "{}", ran.to_json());
    // Through Toolbox::decide_in: by carol, whom no policy names, not found; by bob, named an
    // approver, run as alice, who queued it, in bob's call (its surface).
    let queued = toolbox.call_in(&alice, "archive_all", None).await.unwrap();
    let id = queued.confirmation().unwrap().pending_action_id().to_owned();
    let carol = Context::new(Caller::new("carol")).with_surface("ops");
    let refused = toolbox.decide_in(&carol, &id, envelope_core::outcome::Decision::Approve).await;
    assert_eq!(refused.to_value()["error_code"], "NOT_FOUND", "{}", refused.to_json());
    let bob = Context::new(Caller::new("bob")).with_surface("back-office");
    let ran = toolbox.decide_in(&bob, &id, envelope_core::outcome::Decision::Approve).await;
    assert_eq!(ran.to_value()["data"], json!({"ran_by": "alice", "surface": "back-office"}), "{}", ran.to_json());
}
