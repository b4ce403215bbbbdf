//! The HTTP fuzzer: requests, well-formed and not, sent over loopback TCP to the example tools
//! served as `examples/http_server.rs` serves them (MCP Streamable HTTP at `/mcp` and the plain
//! HTTP endpoints `/tools/{name}`, `GET /tools`, `GET /manifest`, on one port).
//!
//! Requests sent, one connection each: `POST /tools/<tool>` with the argument generator of
//! [`crate::run`] (and mutations of it), unknown and huge tool names, `tools/call` and other
//! JSON-RPC messages to `/mcp` (2026-07-28 with the version in `_meta`, or 2025-11-25 with
//! `MCP-Protocol-Version`), mutations of those, bodies of arbitrary bytes (invalid UTF-8 among
//! them), empty bodies, every method on every path and on paths that do not exist, foreign
//! `Origin` and `Host` headers, other content types, and a few request heads that are not HTTP.
//!
//! The promises checked on every response:
//! - there is one, within [`REPLY_TIMEOUT`], and the server goes on serving;
//! - its body is JSON with `Content-Type: application/json`, except a `/mcp` notification's
//!   `202 Accepted` (no body) and what the HTTP parser itself answers to a head that is not
//!   HTTP (counted apart, as `unparsed`);
//! - on `/tools/<name>` a body with `status` is an envelope whose HTTP status is the status rule's
//!   (`ok` 200, `needs_confirmation` 202, `invalid` 4xx, `error` 5xx, `error_code` never
//!   `BACKEND_ERROR`), within 2 KB unless `ok`; any other body is a transport error,
//!   `{"error": "<word>", "message": "<sentence>"}`, with no `status`;
//! - on `/mcp` a JSON body is one JSON-RPC message (`"jsonrpc": "2.0"`) or a transport error;
//! - a secret never appears in a response (the fuzzer's secrets are all marked).

use std::collections::BTreeMap;
use std::fmt;
use std::future::IntoFuture;
use std::net::SocketAddr;
use std::time::Duration;

use fastrand::Rng;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::mcp::shown;
use crate::{MAX_ENVELOPE_BYTES, SECRET_MARK, arguments, check, mutate, random_text, tool_names, typo};

/// How long a response may take before the fuzzer calls it missing.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(20);

/// What an HTTP run sent and what came back.
#[derive(Debug, Default)]
pub struct HttpReport {
    /// Requests sent.
    pub requests: u64,
    /// Requests by kind.
    pub by_kind: BTreeMap<&'static str, u64>,
    /// Responses by HTTP status, and by envelope status or transport-error word.
    pub by_reply: BTreeMap<String, u64>,
    /// The largest body that is not a tool's data, in bytes.
    pub largest_body: usize,
}

impl fmt::Display for HttpReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} HTTP requests, no promise broken", self.requests)?;
        writeln!(f, "by kind: {:?}", self.by_kind)?;
        writeln!(f, "by reply: {:?}", self.by_reply)?;
        write!(f, "largest body that is not a tool's data: {} B", self.largest_body)
    }
}

/// A broken promise: the request that broke it.
#[derive(Debug)]
pub struct HttpFailure {
    /// The request's number in the run (from 0).
    pub index: u64,
    /// The request sent, as text (bytes that are not UTF-8 escaped; cut to 600 characters).
    pub request: String,
    /// What went wrong.
    pub what: String,
}

impl fmt::Display for HttpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "request {}: {}\nrequest sent: {}", self.index, self.what, self.request)
    }
}

/// One request: its head and body as bytes, and what the fuzzer knows of it.
struct Request {
    kind: &'static str,
    path: String,
    bytes: Vec<u8>,
    secret: bool,
}

/// Sends `requests` HTTP requests generated from `seed` to a server on `address` (the example
/// tools, served as `examples/http_server.rs` serves them), checking every response; stops at
/// the first broken promise.
///
/// # Errors
/// The first [`HttpFailure`].
pub async fn run_http_against(address: SocketAddr, requests: u64, seed: u64) -> Result<HttpReport, HttpFailure> {
    let names = tool_names();
    let mut rng = Rng::with_seed(seed);
    let mut report = HttpReport::default();
    for index in 0..requests {
        let request = generate(&mut rng, &names, address);
        *report.by_kind.entry(request.kind).or_default() += 1;
        report.requests += 1;
        let fail = |what: String| HttpFailure { index, request: shown(&request.bytes), what };
        let response = exchange(address, &request.bytes).await.map_err(fail)?;
        let word = judge(&request, &response, &mut report).map_err(fail)?;
        *report.by_reply.entry(format!("{} {word}", response.status)).or_default() += 1;
    }
    Ok(report)
}

/// A response as read off the socket.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

async fn exchange(address: SocketAddr, request: &[u8]) -> Result<Response, String> {
    let talk = async {
        let mut stream = TcpStream::connect(address).await.map_err(|e| format!("connecting: {e}"))?;
        // The server may answer (413, 400) before the whole body is written, and close. The
        // write side stays open: the request says `Connection: close`, so the server closes.
        let _ = stream.write_all(request).await;
        let mut raw = Vec::new();
        match stream.read_to_end(&mut raw).await {
            Ok(_) => {}
            // A reset after a complete response (the server closed with unread input) is fine.
            Err(_) if !raw.is_empty() => {}
            Err(e) => return Err(format!("reading the response: {e}")),
        }
        Ok(raw)
    };
    let raw = tokio::time::timeout(REPLY_TIMEOUT, talk).await.map_err(|_| "no response within 20 s".to_owned())??;
    // A response to HEAD has the head of the GET's, and no body (RFC 9110 §9.3.2).
    parse(&raw, request.starts_with(b"HEAD "))
}

/// An HTTP/1.1 response: status line, headers, a body by `Content-Length` or chunked, or to the
/// end of the connection.
fn parse(raw: &[u8], head_only: bool) -> Result<Response, String> {
    let end =
        raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(|| format!("no response head: {}", shown(raw)))?;
    let head = std::str::from_utf8(&raw[..end]).map_err(|_| "a response head that is not UTF-8".to_owned())?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("a bad status line: {status_line:?}"))?;
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':').map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))).collect();
    let rest = &raw[end + 4..];
    let chunked =
        headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked"));
    let length = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok());
    let body = if head_only {
        Vec::new()
    } else if chunked {
        dechunk(rest)?
    } else if let Some(length) = length {
        rest.get(..length).ok_or_else(|| format!("a body shorter than its Content-Length {length}"))?.to_vec()
    } else {
        rest.to_vec()
    };
    Ok(Response { status, headers, body })
}

fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let eol = rest.windows(2).position(|w| w == b"\r\n").ok_or("a chunk without its size line")?;
        let size = std::str::from_utf8(&rest[..eol]).ok().and_then(|s| usize::from_str_radix(s.trim(), 16).ok());
        let size = size.ok_or("a bad chunk size")?;
        rest = &rest[eol + 2..];
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(rest.get(..size).ok_or("a chunk cut short")?);
        rest = rest.get(size + 2..).ok_or("a chunk cut short")?;
    }
}

/// Checks one response; answers a word for the report.
fn judge(request: &Request, response: &Response, report: &mut HttpReport) -> Result<String, String> {
    let text = String::from_utf8_lossy(&response.body);
    if text.contains(SECRET_MARK) || response.headers.iter().any(|(_, v)| v.contains(SECRET_MARK)) {
        return Err(format!("a secret value was echoed: {text}"));
    }
    if request.kind == "not http" && response.body.is_empty() && response.status == 400 {
        return Ok("unparsed".into());
    }
    if matches!(request.kind, "foreign host" | "foreign origin") && response.status != 403 {
        return Err(format!("a request from a foreign {} answered {}", &request.kind[8..], response.status));
    }
    let mcp = request.path == "/mcp";
    if response.body.is_empty() && mcp && response.status == 202 {
        return Ok("accepted".into());
    }
    if request.bytes.starts_with(b"HEAD ") {
        let json = response.header("content-type").is_some_and(|t| t.starts_with("application/json"));
        return if json {
            Ok("head".into())
        } else {
            Err(format!("HEAD answered {} without a JSON Content-Type", response.status))
        };
    }
    let json = response.header("content-type").is_some_and(|t| t.starts_with("application/json"));
    if !json {
        return Err(format!("{} without a JSON Content-Type: {text:?}", response.status));
    }
    let value: Value = serde_json::from_slice(&response.body).map_err(|e| format!("a body that is not JSON ({e})"))?;
    let object = value.as_object().ok_or("a body that is not a JSON object")?;
    if let Some(word) = object.get("error").and_then(Value::as_str) {
        // A transport error.
        if object.contains_key("status") {
            return Err("a transport error with `status`".into());
        }
        if !object.get("message").is_some_and(Value::is_string) {
            return Err("a transport error without its sentence".into());
        }
        if !(400..600).contains(&response.status) {
            return Err(format!("transport error {word:?} with HTTP {}", response.status));
        }
        report.largest_body = report.largest_body.max(response.body.len());
        return Ok(word.to_owned());
    }
    if mcp || object.get("jsonrpc").is_some() {
        if object.get("jsonrpc") != Some(&Value::from("2.0")) {
            return Err("a /mcp body that is not JSON-RPC 2.0".into());
        }
        let word = match object.get("error") {
            Some(e) => format!("error {}", e["code"]),
            None if request.kind == "bytes" && std::str::from_utf8(body_of(&request.bytes)).is_err() => {
                return Err("a body that is not UTF-8 was served".into());
            }
            None => "result".to_owned(),
        };
        return Ok(word);
    }
    if object.contains_key("status") {
        let envelope = check(&text, request.secret)?;
        if envelope == "ok" && request.kind == "bytes" && std::str::from_utf8(body_of(&request.bytes)).is_err() {
            return Err("a body that is not UTF-8 was served".into());
        }
        let expected = match envelope.as_str() {
            "ok" => 200..=200,
            "needs_confirmation" => 202..=202,
            "invalid" => 400..=499,
            _ => 500..=599,
        };
        if !expected.contains(&response.status) {
            return Err(format!("an {envelope} envelope answered HTTP {}", response.status));
        }
        if envelope != "ok" {
            if response.body.len() > MAX_ENVELOPE_BYTES {
                return Err(format!("an envelope of {} bytes", response.body.len()));
            }
            report.largest_body = report.largest_body.max(response.body.len());
        }
        return Ok(envelope);
    }
    if request.bytes.starts_with(b"GET ")
        && matches!(request.path.as_str(), "/tools" | "/manifest")
        && response.status == 200
    {
        // `GET /tools` and `GET /manifest`: the tools' declarations.
        return Ok("listing".into());
    }
    Err(format!("a body that is neither an envelope nor a transport error: {text}"))
}

const PATHS: &[&str] = &["/", "/tools", "/tools/", "/manifest", "/mcp", "/mcp/", "/MCP", "/sse", "/messages", "/x"];
const METHODS: &[&str] = &["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "BREW"];

fn generate(rng: &mut Rng, names: &[(String, Vec<String>)], address: SocketAddr) -> Request {
    let (tool, params) = &names[rng.usize(..names.len())];
    let mut headers = vec![format!("Host: {address}"), "Connection: close".to_owned()];
    let json_type = "Content-Type: application/json".to_owned();
    let (kind, method, path, body, secret): (&'static str, &str, String, Vec<u8>, bool) = match rng.u8(..20) {
        0..=5 => {
            let secret = rng.bool();
            let mut body = arguments(rng, params, secret);
            if rng.u8(..4) == 0 && !secret {
                body = mutate(rng, body);
            }
            headers.push(json_type);
            ("tools call", "POST", format!("/tools/{tool}"), body.into_bytes(), secret)
        }
        6 => {
            let name = if rng.bool() { typo(rng, tool) } else { "n".repeat(rng.usize(..20_000)) };
            headers.push(json_type);
            ("unknown tool", "POST", format!("/tools/{name}"), arguments(rng, params, false).into_bytes(), false)
        }
        7..=11 => {
            let secret = rng.bool();
            let args = arguments(rng, params, secret);
            let name = if rng.u8(..8) == 0 { typo(rng, tool) } else { tool.clone() };
            let id = rng.u32(..);
            let line = if rng.bool() {
                // 2026-07-28 names the version, the method and the tool in headers as well.
                headers.push("MCP-Protocol-Version: 2026-07-28".to_owned());
                headers.push("Mcp-Method: tools/call".to_owned());
                headers.push(format!("Mcp-Name: {name}"));
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
                )
            } else {
                headers.push("MCP-Protocol-Version: 2025-11-25".to_owned());
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
                )
            };
            let line = if rng.u8(..4) == 0 && !secret { mutate(rng, line) } else { line };
            headers.push(json_type);
            headers.push("Accept: application/json, text/event-stream".to_owned());
            ("mcp", "POST", "/mcp".to_owned(), line.into_bytes(), secret)
        }
        12 => {
            let path = PATHS[rng.usize(..PATHS.len())].to_owned();
            ("get", "GET", path, Vec::new(), false)
        }
        13 => {
            let method = METHODS[rng.usize(..METHODS.len())];
            let path = if rng.bool() { PATHS[rng.usize(..PATHS.len())].to_owned() } else { format!("/tools/{tool}") };
            ("method", method, path, random_text(rng).into_bytes(), false)
        }
        14 => {
            let mut body: Vec<u8> = (0..rng.usize(..300)).map(|_| rng.u8(..)).collect();
            if rng.bool() {
                body.splice(0..0, format!("{{\"{}\":\"a", params.first().map_or("x", String::as_str)).into_bytes());
                body.extend_from_slice(b"\xff\"}");
            }
            headers.push(json_type);
            let path = if rng.bool() { "/mcp".to_owned() } else { format!("/tools/{tool}") };
            ("bytes", "POST", path, body, false)
        }
        15 => {
            headers.push(json_type);
            let path = if rng.bool() { "/mcp".to_owned() } else { format!("/tools/{tool}") };
            ("empty", "POST", path, Vec::new(), false)
        }
        16 => {
            let foreign = ["Origin: https://evil.example", "Origin: null", "Origin: http://localhost.evil.example"];
            headers.push(foreign[rng.usize(..foreign.len())].to_owned());
            headers.push(json_type);
            let path = if rng.bool() { "/mcp".to_owned() } else { format!("/tools/{tool}") };
            ("foreign origin", "POST", path, arguments(rng, params, false).into_bytes(), false)
        }
        17 => {
            headers.push(
                ["Content-Type: text/plain", "Content-Type: application/json; charset=latin1", "X: y"][rng.usize(..3)]
                    .to_owned(),
            );
            let path = if rng.bool() { "/mcp".to_owned() } else { format!("/tools/{tool}") };
            ("content type", "POST", path, arguments(rng, params, false).into_bytes(), false)
        }
        18 => {
            headers[0] = ["Host: evil.example", "Host: 10.0.0.1:80", "Host: localhost.evil.example:8080"]
                [rng.usize(..3)]
            .to_owned();
            let path = ["/manifest", "/tools", "/mcp"][rng.usize(..3)].to_owned();
            let method = if path == "/mcp" { "POST" } else { "GET" };
            ("foreign host", method, path, Vec::new(), false)
        }
        _ => {
            let heads: [&[u8]; 4] = [
                b"GARBAGE\r\n\r\n",
                b"GET / HTTP/9.9\r\n\r\n",
                b"\x00\x01\x02\r\n\r\n",
                b"POST /mcp HTTP/1.1\r\nContent-Length: x\r\n\r\n",
            ];
            let bytes = heads[rng.usize(..heads.len())].to_vec();
            return Request { kind: "not http", path: String::new(), bytes, secret: false };
        }
    };
    let mut bytes = format!("{method} {path} HTTP/1.1\r\n").into_bytes();
    for header in &headers {
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    bytes.extend_from_slice(&body);
    Request { kind, path, bytes, secret }
}

/// The body of a request the fuzzer wrote (after its head).
fn body_of(request: &[u8]) -> &[u8] {
    request.windows(4).position(|w| w == b"\r\n\r\n").map_or(&[], |end| &request[end + 4..])
}

/// Serves the example tools on a free loopback port as `examples/http_server.rs` does (with
/// [`envelope_core::http::serve`] and its default bounds), and sends
/// them `requests` requests generated from `seed` (see [`run_http_against`]).
///
/// # Errors
/// The first [`HttpFailure`].
///
/// # Panics
/// If no tokio runtime can be built or no loopback port bound.
pub fn run_http(requests: u64, seed: u64) -> Result<HttpReport, HttpFailure> {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let address = listener.local_addr().expect("its address");
        let toolbox = crate::tools::toolbox();
        let endpoints = envelope_core::http::HttpTools::new(toolbox.clone())
            .router()
            .layer(envelope_core::http::OriginLayer::loopback());
        let app = envelope_core::mcp::streamable::McpHttp::new(toolbox).router().merge(endpoints);
        let server = tokio::spawn(
            envelope_core::http::serve(listener, app)
                .routes(["POST /mcp", "POST /tools/{name}", "GET /tools", "GET /manifest"])
                .into_future(),
        );
        let report = run_http_against(address, requests, seed).await;
        server.abort();
        report
    })
}
