//! Argument text and names, as an attacker sends them to the example servers' surfaces (MCP
//! Streamable HTTP at `/mcp`, the plain endpoints at `/tools/{name}`, MCP over stdio), served
//! in-process on loopback exactly as `examples/http_server.rs` serves them: one current-thread
//! runtime, so whatever a request costs on it, every other client waits for.
//!
//! - An object of many keys, one sent twice: the check of keys sent twice once compared every key
//!   with every other (32,003 keys took 3 s in release, a 1.5 MB `/mcp` request 47 s); it is
//!   linear now, and an object past 4096 keys is refused whole. A second client on another
//!   connection is answered meanwhile.
//! - A 4 MB unknown tool name: no edit distance is computed for a name far longer than every
//!   tool name (it once took 0.76 s in release); its quote is cut.
//! - A secret sent without its quotes: the parse error quotes nothing inside `params.arguments`
//!   (over stdio and `/mcp`), nor the body of a tool with a secret parameter (over `/tools`).
//! - Bytes that are not UTF-8 sent to `/tools`: refused with the offset, as over `/mcp`, never
//!   read as U+FFFD and served.
//! - A 4 MiB request id (or progress token): echoed in its reply, it was held for a client that
//!   does not read, 6 MB a connection; an id past 256 bytes is refused, its reply under `null`.
//! - A UTF-8 byte order mark before the JSON: `/mcp` passed it on to rmcp, whose parser words
//!   (`expected value at line 1 column 1`) came back with a 415 for every method but
//!   `tools/call`; it is ignored on every door now, as over stdio.
//!
//! Debug-mode bounds are generous (a loaded two-core machine); each test prints its figures
//! (`--nocapture`), which the release run reports.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use envelope_core::Toolbox;
use envelope_core::http::{HttpTools, OriginLayer};
use envelope_core::mcp::McpServer;
use envelope_core::mcp::streamable::McpHttp;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::tools;

/// The longest any one exchange may take before the test fails instead of hanging.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(60);

/// What the big request may take, in a debug build on a loaded machine (old: 10 s and more).
const BIG_REQUEST_BOUND: Duration = Duration::from_secs(2);

/// What a second client may wait meanwhile, in a debug build on a loaded machine.
const SECOND_CLIENT_BOUND: Duration = Duration::from_millis(500);

/// What a 4 MB `/mcp` request may take, and a second client wait meanwhile, in a debug build on
/// a loaded machine: the body itself is read several times over (the pre-reader, rmcp's parse,
/// `serde_json` unoptimized in debug) before the name is looked at. The old edit distance on a
/// 4 MB name took 0.76 s in release and many seconds in debug.
const HUGE_NAME_BOUND: Duration = Duration::from_secs(3);

/// The example server's app (`examples/http_server.rs`): MCP at `/mcp`, the endpoints at
/// `/tools/{name}` behind the loopback `Origin` check.
fn example_app(toolbox: Toolbox) -> Router {
    let endpoints = HttpTools::new(toolbox.clone()).router().layer(OriginLayer::loopback());
    McpHttp::new(toolbox).router().merge(endpoints)
}

/// Serves `app` on a loopback port from a thread of its own that runs a current-thread runtime,
/// the example server's flavor. The thread lives as long as the test process.
fn serve_on_one_thread(app: Router) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    addr
}

/// A response: its status and body text.
struct Reply {
    status: u16,
    text: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("{e}: {}", self.text))
    }
}

/// One POST over a fresh HTTP/1.1 connection (hyper's client), the body as given, bytes and all.
async fn post(addr: SocketAddr, path: &str, headers: &[(&str, &str)], body: impl Into<Bytes>) -> Reply {
    let exchange = async {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
        tokio::spawn(conn);
        let mut request = hyper::Request::builder().method("POST").uri(path).header("host", addr.to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = sender.send_request(request.body(Full::new(body.into())).unwrap()).await.unwrap();
        let status = response.status().as_u16();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        Reply { status, text: String::from_utf8(bytes.to_vec()).unwrap() }
    };
    tokio::time::timeout(EXCHANGE_TIMEOUT, exchange).await.expect("the server answers in time")
}

const JSON: &[(&str, &str)] = &[("content-type", "application/json")];

/// A `tools/call` JSON-RPC message with `params` as given (text, so it may be malformed).
fn tools_call(id: u32, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
}

/// The issue's smallest input, at any size: two parameters, `n` keys that are not, and the first
/// of them sent again last (`n + 3` members).
fn many_keys(n: usize) -> String {
    let mut text = String::with_capacity(12 * n + 64);
    text.push_str(r#"{"hours_back":1,"group_by":"database""#);
    for i in 0..n {
        text.push_str(&format!(",\"k{i:06}\":1"));
    }
    text.push_str(r#","k000000":2}"#);
    text
}

/// Sends `big` and, while it is in flight, small `get_top_queries` calls one after another on
/// other connections: the big reply, how long it took, and the longest a small call waited.
async fn while_in_flight(addr: SocketAddr, path: &'static str, big: String) -> (Reply, Duration, Duration) {
    let headers: &'static [(&str, &str)] = if path == "/mcp" { JSON } else { &[] };
    let big = tokio::spawn(async move {
        let started = Instant::now();
        let reply = post(addr, path, headers, big).await;
        (reply, started.elapsed())
    });
    let mut worst = Duration::ZERO;
    loop {
        let started = Instant::now();
        let small = post(addr, "/tools/get_top_queries", &[], r#"{"hours_back":1,"group_by":"database"}"#).await;
        worst = worst.max(started.elapsed());
        assert_eq!((small.status, small.json()["status"].clone()), (200, json!("ok")), "{}", small.text);
        if big.is_finished() {
            break;
        }
    }
    let (reply, took) = big.await.unwrap();
    (reply, took, worst)
}

/// The refusal of the issue's input: the arguments object is past 4096 keys.
fn too_many_keys_sentence(keys: usize) -> String {
    format!(
        "arguments: {{\"hours_back\":1,\"group_by\":\"data… (cut; {keys} keys) has more keys than one object may have; accepted: an object of at most 4096 keys, here the parameters hours_back, group_by, top, each once. Send only the parameters listed, each once."
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_keys_one_sent_twice_are_refused_at_once_and_others_are_served() {
    let addr = serve_on_one_thread(example_app(tools::toolbox()));
    // 32,003 members (384 KB) and 64,003 (768 KB) to `/tools`; 128,003 (1.5 MB) to `/mcp`.
    for (path, n) in [("/tools/get_top_queries", 32_000), ("/tools/get_top_queries", 64_000), ("/mcp", 128_000)] {
        let arguments = many_keys(n);
        let body = if path == "/mcp" {
            tools_call(1, &format!(r#"{{"name":"get_top_queries","arguments":{arguments}}}"#))
        } else {
            arguments
        };
        let bytes = body.len();
        let (reply, took, worst) = while_in_flight(addr, path, body).await;
        eprintln!(
            "{path}: {} keys ({bytes} bytes) answered in {took:?}; a second client waited at most {worst:?}",
            n + 3
        );
        let envelope = if path == "/mcp" {
            assert_eq!(reply.status, 200, "{}", reply.text);
            let result = &reply.json()["result"];
            assert_eq!(result["isError"], true, "{result}");
            result["structuredContent"].clone()
        } else {
            assert_eq!(reply.status, 400, "{}", reply.text);
            reply.json()
        };
        assert_eq!(envelope["error_code"], "VALIDATION_ERROR", "{envelope}");
        assert_eq!(envelope["message"], too_many_keys_sentence(n + 3), "{envelope}");
        assert_eq!(envelope["hints"]["parameter"], "arguments", "{envelope}");
        assert!(took < BIG_REQUEST_BOUND, "{path}: {n} keys took {took:?}");
        assert!(worst < SECOND_CLIENT_BOUND, "{path}: a second client waited {worst:?}");
    }
}

/// Below the limit, the key sent twice is named, among 4,003 keys, as fast.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_sent_twice_among_thousands_is_named_at_once() {
    let addr = serve_on_one_thread(example_app(tools::toolbox()));
    let (reply, took, worst) = while_in_flight(addr, "/tools/get_top_queries", many_keys(4_000)).await;
    eprintln!("/tools: 4003 keys, one twice, answered in {took:?}; a second client waited at most {worst:?}");
    assert_eq!(reply.status, 400, "{}", reply.text);
    let envelope = reply.json();
    let message = envelope["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "k000000: \"k000000\": 1, \"k000000\": 2 sends the same key twice; accepted: each key once, \"k000000\" with one value. Send \"k000000\" once, with the one value you mean."
        ),
        "{message}"
    );
    // The names that are not parameters, counted: the reply stays within its budget.
    assert!(message.contains("3997 more names are not parameters of get_top_queries"), "{message}");
    assert!(reply.text.len() < 2048, "{} bytes", reply.text.len());
    assert!(took < BIG_REQUEST_BOUND, "{took:?}");
    assert!(worst < SECOND_CLIENT_BOUND, "a second client waited {worst:?}");

    // A key sent 4,000 times in a nested value: its first values quoted, the rest counted.
    let values: Vec<String> = (0..4_000).map(|i| format!("\"a\":{i}")).collect();
    let toolbox = tools::toolbox();
    let started = Instant::now();
    let envelope = toolbox
        .call_json("create_note", &format!(r#"{{"title":"t","tags":[{{{}}}]}}"#, values.join(",")))
        .await
        .unwrap()
        .to_value();
    let took = started.elapsed();
    eprintln!("a key sent 4000 times read in {took:?}");
    assert_eq!(envelope["hints"]["rejected"], "\"a\": 0, \"a\": 1, \"a\": 2, \"a\": 3, … (4000 values)", "{envelope}");
    assert!(envelope["message"].as_str().unwrap().starts_with("tags[0].a: "), "{envelope}");
    assert!(took < BIG_REQUEST_BOUND, "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_unknown_tool_name_costs_little_everywhere() {
    let toolbox = tools::toolbox();
    let name = "x".repeat(4_000_000);
    let quoted = format!("\"{}…\" (4000000 characters)", "x".repeat(32));

    // The toolbox.
    let started = Instant::now();
    let unknown = toolbox.call_json(&name, "{}").await.unwrap_err();
    let took = started.elapsed();
    eprintln!("Toolbox::call_json with a 4 MB name: {took:?}");
    assert_eq!(unknown.suggestion(), None);
    let sentence = unknown.to_string();
    assert!(sentence.starts_with(&format!("{quoted} is not a tool of this server; accepted: ")), "{sentence}");
    assert!(sentence.len() < 1024, "{} bytes", sentence.len());
    assert!(took < Duration::from_millis(500), "{took:?}");
    // A near miss is still offered its name.
    let near = toolbox.call_json("get_top_query", "{}").await.unwrap_err();
    assert_eq!(near.suggestion(), Some("get_top_queries"));

    // MCP: a 4 MB name in a 4 MB `/mcp` request, while a second client is served.
    let addr = serve_on_one_thread(example_app(toolbox));
    let body = tools_call(2, &format!(r#"{{"name":"{name}","arguments":{{}}}}"#));
    let (reply, took, worst) = while_in_flight(addr, "/mcp", body).await;
    eprintln!("/mcp with a 4 MB tool name: answered in {took:?}; a second client waited at most {worst:?}");
    let reply = reply.json();
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.starts_with(&format!("{quoted} is not a tool of this server; accepted: ")), "{message}");
    assert!(took < HUGE_NAME_BOUND, "{took:?}");
    assert!(worst < HUGE_NAME_BOUND, "a second client waited {worst:?}");

    // HTTP: a name as long as a request target may be (64 KB, the `http` crate's limit).
    let long = "y".repeat(60_000);
    let started = Instant::now();
    let reply = post(addr, &format!("/tools/{long}"), &[], "{}").await;
    let took = started.elapsed();
    eprintln!("/tools/<60000 characters>: answered in {took:?}");
    assert_eq!(reply.status, 404, "{}", reply.text);
    let envelope = reply.json();
    assert_eq!(envelope["hints"]["rejected"], format!("\"{}…\" (60000 characters)", "y".repeat(32)), "{envelope}");
    assert!(envelope.get("suggestion").is_none() && envelope["hints"].get("suggestion").is_none(), "{envelope}");
    assert!(took < SECOND_CLIENT_BOUND, "{took:?}");
}

/// The secret of the issue, sent without its quotes, and every 4-character window of it.
const SECRET: &str = "sk-ABCDEFGHIJKLMNOP";

fn assert_no_part_of_the_secret(text: &str) {
    for window in SECRET.as_bytes().windows(4) {
        let window = std::str::from_utf8(window).unwrap();
        assert!(!text.contains(window), "{window:?} of the secret in: {text}");
    }
}

/// `params` of the issue's call, `name` before `arguments` and after.
fn secret_params() -> [String; 2] {
    [
        format!(r#"{{"name":"set_threshold","arguments":{{"ratio":0.5,"api_key":{SECRET}}}}}"#),
        format!(r#"{{"arguments":{{"ratio":0.5,"api_key":{SECRET}}},"name":"set_threshold"}}"#),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parse_error_quotes_no_part_of_a_secret() {
    let toolbox = tools::toolbox();

    // stdio, in-process over a pipe.
    let (client, server_io) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_io);
    let server = tokio::spawn(envelope_core::mcp::serve_io(McpServer::new(toolbox.clone()), server_read, server_write));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    for (id, params) in secret_params().iter().enumerate() {
        client_write.write_all(format!("{}\n", tools_call(id as u32, params)).as_bytes()).await.unwrap();
        let line = tokio::time::timeout(EXCHANGE_TIMEOUT, lines.next_line()).await.unwrap().unwrap().unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (json!(id), json!(-32700)), "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(
                "inside params.arguments, is not JSON (a word without quotes: a string is written in double quotes"
            ),
            "{message}"
        );
        assert_no_part_of_the_secret(&line);
    }
    // End of input: the server ends normally.
    drop((client_write, lines));
    let ended = tokio::time::timeout(EXCHANGE_TIMEOUT, server).await.expect("the server ends at end of input");
    ended.unwrap().unwrap();

    // `/mcp` and `/tools`.
    let addr = serve_on_one_thread(example_app(toolbox.clone()));
    for (id, params) in secret_params().iter().enumerate() {
        let reply = post(addr, "/mcp", JSON, tools_call(id as u32, params)).await;
        assert_eq!(reply.json()["error"]["code"], -32700, "{}", reply.text);
        assert_no_part_of_the_secret(&reply.text);
    }
    let body = format!(r#"{{"ratio":0.5,"api_key":{SECRET}}}"#);
    let reply = post(addr, "/tools/set_threshold", &[], body.clone()).await;
    assert_eq!(reply.status, 400, "{}", reply.text);
    assert_eq!(
        reply.json()["message"],
        "arguments: the value sent (secret, not shown) is not JSON from character 24 (a word without quotes: a string is written in double quotes; true, false and null in lower case); accepted: an object with the keys \"ratio\", \"api_key\". Send the arguments as a JSON object, like {\"ratio\": 0, \"api_key\": \"…\"}.",
        "{}",
        reply.text
    );
    assert_no_part_of_the_secret(&reply.text);

    // `call_json`'s own refusal of text that is not JSON.
    let envelope = toolbox.call_json("set_threshold", &body).await.unwrap().to_json();
    assert!(envelope.contains("\"status\":\"invalid\""), "{envelope}");
    assert_no_part_of_the_secret(&envelope);

    // A tool without a secret: the place and the kind of token still help the fix.
    let reply = post(
        addr,
        "/mcp",
        JSON,
        tools_call(9, r#"{"name":"get_top_queries","arguments":{"hours_back":1,"group_by":database}}"#),
    )
    .await;
    let message = reply.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("the text from character 121, inside params.arguments, is not JSON (a word without quotes"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_read_bodies_as_strict_utf8() {
    let notes = Arc::new(tools::NoteStore::default());
    let addr = serve_on_one_thread(example_app(tools::toolbox_over(Arc::clone(&notes))));
    let sentence = |offset: usize| {
        format!(
            "arguments: the body is not UTF-8 text: the byte at offset {offset} (counted from 0) does not begin or continue a UTF-8 character; accepted: an object with the keys \"title\", \"tags\", \"pinned\", \"idempotency_key\", as JSON text encoded in UTF-8 (RFC 8259 §8.1). Send the body encoded as UTF-8; a character your client cannot encode may be sent as a \\uXXXX escape inside a string."
        )
    };
    // The issue's bytes; a character cut short (the first byte of `é` alone); a byte of Latin-1.
    for (body, offset) in [
        (&b"{\"title\":\"a\xff\"}"[..], 11),
        (&b"{\"title\":\"caf\xc3\"}"[..], 13),
        (&b"{\"title\":\"gar\xe7on\", \"pinned\": true}"[..], 13),
    ] {
        let reply = post(addr, "/tools/create_note", &[], Bytes::from_static(body)).await;
        assert_eq!(reply.status, 400, "{}", reply.text);
        let envelope = reply.json();
        assert_eq!(
            (envelope["status"].as_str(), envelope["error_code"].as_str()),
            (Some("invalid"), Some("VALIDATION_ERROR"))
        );
        assert_eq!(envelope["message"], sentence(offset), "{envelope}");
        assert_eq!(envelope["hints"]["parameter"], "arguments", "{envelope}");
        assert!(envelope["hints"].get("rejected").is_none(), "{envelope}");
    }
    assert_eq!(notes.writes(), 0, "a note was written from bytes that are not UTF-8");
    // `/mcp` refuses the same bytes, with the offset in the message.
    let mut message =
        br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_note","arguments":{"title":"a"#
            .to_vec();
    message.extend_from_slice(b"\xff\"}}}");
    let reply = post(addr, "/mcp", JSON, message).await;
    let reply = reply.json();
    assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (json!(5), json!(-32700)), "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("the message is not UTF-8 text: the byte at offset 100 (counted from 0)"),
        "{reply}"
    );
    assert_eq!(notes.writes(), 0);
    // UTF-8 itself is served.
    let reply = post(addr, "/tools/create_note", &[], "{\"title\":\"café ✓\"}").await;
    assert_eq!((reply.status, reply.json()["data"]["title"].clone()), (200, json!("café ✓")), "{}", reply.text);
}

/// A person, for a parameter that is an array of objects.
#[derive(envelope_core::Object, serde::Serialize)]
struct Person {
    /// Their name.
    name: String,
    /// Their age.
    #[validate(range = 0..=150)]
    age: Option<u32>,
}

/// Greets people.
#[envelope_core::tool]
fn greet(people: Option<Vec<Person>>, tags: Option<Vec<String>>) -> usize {
    people.map_or(0, |p| p.len()) + tags.map_or(0, |t| t.len())
}

/// Megabytes of refused items cost a hundred refusals, not one per item: past the three
/// described and a hundred counted, the items are not read (once, 80,000 refusals were built for
/// one sentence that counted them: 0.5 s in release).
#[tokio::test]
async fn a_megabyte_of_refused_items_costs_a_hundred_refusals() {
    let toolbox = Toolbox::new().with(greet::tool());
    let people = format!(r#"{{"people":[{}]}}"#, vec![r#"{"name":"a","age":200}"#; 80_000].join(","));
    let tags = format!(r#"{{"tags":[{}]}}"#, vec!["1"; 200_000].join(","));
    for (text, summary) in [
        (
            people,
            "people: has at least 100 more refused items (people[3], people[4], people[5], people[6], people[7], …); the 79897 items from people[103] on were not checked; accepted: a whole number from 0 to 150. Fix those items the same way, and check the rest likewise before sending again.",
        ),
        (
            tags,
            "tags: has at least 100 more refused items (tags[3], tags[4], tags[5], tags[6], tags[7], …); the 199897 items from tags[103] on were not checked; accepted: a string. Fix those items the same way, and check the rest likewise before sending again.",
        ),
    ] {
        let started = Instant::now();
        let envelope = toolbox.call_json("greet", &text).await.unwrap();
        let took = started.elapsed();
        eprintln!("{} bytes of refused items read in {took:?}", text.len());
        let message = envelope.message().unwrap();
        assert_eq!(message.lines().count(), 4, "{message}");
        assert_eq!(message.lines().last(), Some(summary), "{message}");
        assert!(envelope.to_json().len() < 2048);
        assert!(took < BIG_REQUEST_BOUND, "{took:?}");
    }
    // Every problem of every item described is in the reply: an item's other fields too (the
    // first item's were once dropped, the others' nested too deep to be sent).
    let envelope = toolbox.call_json("greet", r#"{"people":[{"label":"a"},{"label":"b"}]}"#).await.unwrap();
    let paths: Vec<&str> = envelope.message().unwrap().lines().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(paths, ["people[0].name", "people[0].label", "people[1].name", "people[1].label"], "{envelope:?}");
    // A misspelt field is one problem each, the rename (not also a missing `name`).
    let envelope = toolbox.call_json("greet", r#"{"people":[{"nmae":"a"},{"nmae":"b"}]}"#).await.unwrap();
    let paths: Vec<&str> = envelope.message().unwrap().lines().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(paths, ["people[0].nmae", "people[1].nmae"], "{envelope:?}");
    // Under the count, every refused item is counted, as before.
    let text = format!(r#"{{"tags":[{}]}}"#, vec!["1"; 50].join(","));
    let envelope = toolbox.call_json("greet", &text).await.unwrap();
    assert!(envelope.message().unwrap().ends_with("tags: has 47 more refused items (tags[3], tags[4], tags[5], tags[6], tags[7], …); accepted: a string. Fix those items the same way."), "{envelope:?}");
}

/// An id (and a progress token) is echoed in its reply: one past 256 bytes is refused with a
/// reply of a few hundred bytes under `null`, over `/mcp` and over stdio, whatever was sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_id_is_refused_with_a_short_reply() {
    let addr = serve_on_one_thread(example_app(tools::toolbox()));
    // Within `/mcp`'s 4 MiB body limit.
    let id = format!("\"{}\"", "x".repeat(3 << 20));
    for method in ["ping", "tools/list", "tools/call"] {
        let body =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"name":"get_top_queries"}}}}"#);
        let reply = post(addr, "/mcp", JSON, body).await;
        println!("{method}: HTTP {}, {} bytes", reply.status, reply.text.len());
        let v: Value = serde_json::from_str(&reply.text).unwrap();
        assert_eq!(v["id"], Value::Null, "{method}");
        assert_eq!(v["error"]["code"], -32600, "{method}");
        assert!(v["error"]["message"].as_str().unwrap().starts_with("`id` is 3145730 bytes long;"), "{v}");
        assert!(reply.text.len() < 1024, "{method}: {} bytes", reply.text.len());
    }
    let token = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"get_top_queries","arguments":{{"hours_back":24,"group_by":"database"}},"_meta":{{"progressToken":"{}"}}}}}}"#,
        "t".repeat(1 << 20)
    );
    let reply = post(addr, "/mcp", JSON, token).await;
    let v: Value = serde_json::from_str(&reply.text).unwrap();
    assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (json!(9), json!(-32602)), "{v}");
    assert!(reply.text.len() < 1024, "{} bytes", reply.text.len());

    // Over stdio, the same.
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_in, server_out) = tokio::io::split(server);
    tokio::spawn(envelope_core::mcp::serve_io(McpServer::new(tools::toolbox()), server_in, server_out));
    let (output, mut input) = tokio::io::split(client);
    let writer = tokio::spawn(async move {
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        input.write_all(line.as_bytes()).await.unwrap();
        input
    });
    let mut lines = BufReader::new(output).lines();
    let line = tokio::time::timeout(EXCHANGE_TIMEOUT, lines.next_line()).await.unwrap().unwrap().unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["id"], Value::Null);
    assert_eq!(v["error"]["code"], -32600);
    assert!(line.len() < 1024, "{} bytes", line.len());
    drop(writer.await.unwrap());
}

/// A UTF-8 byte order mark before the JSON is ignored on every door (RFC 8259 §8.1 lets a parser
/// ignore one): `/mcp` for every method, `/tools/{name}`, and stdio.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_byte_order_mark_is_ignored_on_every_door() {
    let addr = serve_on_one_thread(example_app(tools::toolbox()));
    let headers = &[("content-type", "application/json"), ("mcp-protocol-version", "2025-11-25")];
    for (method, params) in [
        ("ping", "{}"),
        ("tools/list", "{}"),
        ("tools/call", r#"{"name":"get_top_queries","arguments":{"hours_back":24,"group_by":"database"}}"#),
    ] {
        let body = format!("\u{feff}{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"{method}\",\"params\":{params}}}");
        let reply = post(addr, "/mcp", headers, body).await;
        assert_eq!(reply.status, 200, "{method}: {}", reply.text);
        let v: Value = serde_json::from_str(&reply.text).unwrap();
        assert_eq!(v["id"], 1, "{method}");
        assert!(v.get("result").is_some(), "{method}: {v}");
    }
    let reply =
        post(addr, "/tools/get_top_queries", JSON, "\u{feff}{\"hours_back\":24,\"group_by\":\"database\"}").await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(serde_json::from_str::<Value>(&reply.text).unwrap()["status"], "ok");
    // Two marks, as one; and a no-break space, which is not JSON's whitespace, refused alike by
    // every reader of `/mcp` (it was trimmed by one reader, then refused by rmcp's with a 415).
    let ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    let reply = post(addr, "/mcp", headers, format!("\u{feff}\u{feff}{ping}")).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(serde_json::from_str::<Value>(&reply.text).unwrap()["id"], 1, "{}", reply.text);
    let reply = post(addr, "/mcp", headers, format!("\u{a0}{ping}")).await;
    let v: Value = serde_json::from_str(&reply.text).unwrap();
    assert_eq!(v["error"]["code"], -32700, "{}", reply.text);
    assert_ne!(reply.status, 415, "{}", reply.text);
    let body = "\u{feff}\u{feff}{\"hours_back\":24,\"group_by\":\"database\"}";
    assert_eq!(post(addr, "/tools/get_top_queries", JSON, body).await.status, 200);
}
