//! A JSON-RPC request id reused while the first request with it is still in flight (MCP stdio).
//! rmcp keeps one slot per id: passed on, the second request ran and one of the two replies was
//! lost for good. envelope answers the second at once, under its id, with `-32600`, and runs
//! nothing for it; an unread flood of one id meets the same backpressure as distinct ids. An id
//! no `i64` holds is refused naming the range read.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use envelope_core::Toolbox;
use envelope_core::mcp::{McpServer, serve_io};
use envelope_core::tool;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::time::timeout;

static RUNS: AtomicUsize = AtomicUsize::new(0);

/// Answers `n` after 300 ms, counting its runs.
#[tool]
async fn slow(#[validate(range = 0..=10)] n: u32) -> u32 {
    tokio::time::sleep(Duration::from_millis(300)).await;
    RUNS.fetch_add(1, Ordering::SeqCst);
    n
}

fn opening() -> String {
    let lines = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "hostile", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Answers `n` after 300 ms, counting nothing (the flood's tool).
#[tool]
async fn flooded(#[validate(range = 0..=10)] n: u32) -> u32 {
    tokio::time::sleep(Duration::from_millis(300)).await;
    n
}

fn call(id: &Value, n: u32) -> String {
    call_of("slow", id, n)
}

fn call_of(tool: &str, id: &Value, n: u32) -> String {
    format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {"n": n}}})
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reused_id_in_flight_is_answered_under_its_id_and_not_run() {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_in, server_out) = tokio::io::split(server);
    let served = tokio::spawn(serve_io(McpServer::new(Toolbox::new().with(slow::tool())), server_in, server_out));
    let (output, mut input) = tokio::io::split(client);
    let mut output = BufReader::new(output);
    let mut sent = opening();
    sent.push_str(&call(&json!(7), 1));
    for n in 2..=10 {
        sent.push_str(&call(&json!(7), n));
    }
    sent.push_str(&call(&json!("job-7"), 3));
    sent.push_str(&call(&json!("job-7"), 4));
    input.write_all(sent.as_bytes()).await.unwrap();
    let mut replies = Vec::new();
    while replies.len() < 13 {
        let mut line = String::new();
        timeout(Duration::from_secs(20), output.read_line(&mut line)).await.expect("a reply within 20 s").unwrap();
        replies.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    // The first request under each id is served; each other one is refused under the same id.
    let results: Vec<&Value> = replies.iter().filter(|r| r.get("result").is_some()).collect();
    let ids: Vec<&Value> = results.iter().map(|r| &r["id"]).collect();
    assert_eq!(results.len(), 3, "initialize, 7 and \"job-7\" served: {replies:#?}");
    assert!(ids.contains(&&json!(7)) && ids.contains(&&json!("job-7")), "{ids:?}");
    let served_7 = results.iter().find(|r| r["id"] == 7).unwrap();
    assert_eq!(served_7["result"]["structuredContent"], json!({"status": "ok", "success": true, "data": 1}));
    let refused: Vec<&Value> = replies.iter().filter(|r| r.get("error").is_some()).collect();
    assert_eq!(refused.len(), 10, "{replies:#?}");
    for r in &refused {
        assert_eq!(r["error"]["code"], -32600, "{r}");
    }
    assert_eq!(refused.iter().filter(|r| r["id"] == 7).count(), 9);
    assert_eq!(
        refused.iter().find(|r| r["id"] == 7).unwrap()["error"]["message"],
        "id 7 is already in use by a request in flight; send this request under an id of its own, or wait for \
         the reply to the first"
    );
    let string_id = refused.iter().find(|r| r["id"] == "job-7").unwrap();
    assert!(string_id["error"]["message"].as_str().unwrap().starts_with(r#"id "job-7" is already in use"#));
    // Two bodies ran (one per id), not eleven.
    assert_eq!(RUNS.load(Ordering::SeqCst), 2);

    // Once answered, the id is free again.
    input.write_all(call(&json!(7), 5).as_bytes()).await.unwrap();
    let mut line = String::new();
    timeout(Duration::from_secs(20), output.read_line(&mut line)).await.unwrap().unwrap();
    let again: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(again["id"], 7);
    assert_eq!(again["result"]["structuredContent"]["data"], 5, "{again}");
    input.shutdown().await.unwrap();
    drop(input);
    timeout(Duration::from_secs(20), served).await.unwrap().unwrap().unwrap();
}

/// 200,000 calls all with id 7, none of their replies read: the server stops reading once its
/// bounded queues are full, as it does for distinct ids, instead of holding every request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unread_flood_of_one_id_meets_backpressure() {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_in, server_out) = tokio::io::split(server);
    let served = tokio::spawn(serve_io(McpServer::new(Toolbox::new().with(flooded::tool())), server_in, server_out));
    let (output, mut input) = tokio::io::split(client);
    let written = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&written);
    let writer = tokio::spawn(async move {
        input.write_all(opening().as_bytes()).await.unwrap();
        let line = call_of("flooded", &json!(7), 1);
        for _ in 0..200_000 {
            if input.write_all(line.as_bytes()).await.is_err() {
                break;
            }
            counter.fetch_add(1, Ordering::Relaxed);
        }
    });
    // Long enough for a server without backpressure to read far more than the bound.
    let start = Instant::now();
    let mut last = 0;
    while start.elapsed() < Duration::from_secs(2) {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = written.load(Ordering::Relaxed);
        if now == last && now > 0 {
            break;
        }
        last = now;
    }
    let accepted = written.load(Ordering::Relaxed);
    // What the pipes and the server's bounded queues hold: the 64 KiB pipe, the 64 KiB read
    // buffer, 64 requests in flight and 64 queued reply lines; each call line is about 100 bytes.
    assert!(accepted < 3_000, "the server read {accepted} of 200,000 unread calls with one id");
    writer.abort();
    drop(output);
    served.abort();
}

/// Over stdio, an `id` no `i64` holds is refused naming the range this server reads, and `1e3`
/// as not written as a whole number; the call runs nothing, and the next line is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_past_i64_is_refused_naming_the_range_over_stdio() {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_in, server_out) = tokio::io::split(server);
    let served = tokio::spawn(serve_io(McpServer::new(Toolbox::new().with(flooded::tool())), server_in, server_out));
    let (output, mut input) = tokio::io::split(client);
    let mut output = BufReader::new(output);
    let mut sent = opening();
    for id in ["18446744073709551615", "1e3"] {
        sent.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"flooded\",\"arguments\":{{\"n\":1}}}}}}\n"
        ));
    }
    sent.push_str(&call_of("flooded", &json!(9), 2));
    input.write_all(sent.as_bytes()).await.unwrap();
    let mut replies = Vec::new();
    while replies.len() < 4 {
        let mut line = String::new();
        timeout(Duration::from_secs(20), output.read_line(&mut line)).await.expect("a reply within 20 s").unwrap();
        replies.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    let example = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"...","arguments":{}}}"#;
    let messages: Vec<&Value> = replies.iter().filter(|r| r["id"].is_null()).map(|r| &r["error"]["message"]).collect();
    assert_eq!(
        messages,
        [
            &json!(format!(
                "`id` 18446744073709551615 is out of the range this server reads: a whole number from -2^63 to 2^63-1 \
                 (-9223372036854775808 to 9223372036854775807), or a string; send a smaller number, or the id as a \
                 string; a request looks like {example}"
            )),
            &json!(format!(
                "`id` 1e3 is not written as a whole number; send it without a fraction or exponent, or as a string; \
                 a request looks like {example}"
            )),
        ],
        "{replies:#?}"
    );
    let served_9 = replies.iter().find(|r| r["id"] == 9).unwrap_or_else(|| panic!("{replies:#?}"));
    assert_eq!(served_9["result"]["structuredContent"]["data"], 2, "{served_9}");
    input.shutdown().await.unwrap();
    drop(input);
    timeout(Duration::from_secs(20), served).await.unwrap().unwrap().unwrap();
}

/// A stdio session with the `slow` tool, over an in-memory pipe.
struct Session {
    output: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    input: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Session {
    fn start() -> Session {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_in, server_out) = tokio::io::split(server);
        let served = tokio::spawn(serve_io(McpServer::new(Toolbox::new().with(slow::tool())), server_in, server_out));
        let (output, input) = tokio::io::split(client);
        Session { output: BufReader::new(output), input, served }
    }

    async fn send(&mut self, lines: &str) {
        self.input.write_all(lines.as_bytes()).await.unwrap();
    }

    /// The next reply line, within 20 s.
    async fn reply(&mut self) -> Value {
        let mut line = String::new();
        timeout(Duration::from_secs(20), self.output.read_line(&mut line)).await.expect("a reply within 20 s").unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// Closes stdin and waits for the server to end.
    async fn end(mut self) {
        self.input.shutdown().await.unwrap();
        drop(self.input);
        timeout(Duration::from_secs(20), self.served).await.unwrap().unwrap().unwrap();
    }
}

/// An unknown method is answered `-32601` naming the methods this server answers under the
/// session's version: after `initialize` (2025-11-25), `initialize`, not 2026-07-28's
/// `server/discover`, which it refuses.
#[tokio::test]
async fn an_unknown_method_names_the_methods_served_in_this_session() {
    let mut session = Session::start();
    let mut sent = opening();
    for (id, method) in [(1, "server/discover"), (2, "foo/bar"), (3, "logging/setLevel")] {
        sent.push_str(&format!("{}\n", json!({"jsonrpc": "2.0", "id": id, "method": method})));
    }
    session.send(&sent).await;
    let mut replies = Vec::new();
    while replies.len() < 4 {
        replies.push(session.reply().await);
    }
    // A method served, sent without the params it needs: invalid params, not "not found".
    let set_level = replies.iter().find(|r| r["id"] == 3).unwrap();
    assert_eq!(set_level["error"]["code"], -32602, "{set_level}");
    for (id, method) in [(1, "server/discover"), (2, "foo/bar")] {
        let reply = replies.iter().find(|r| r["id"] == id).unwrap();
        assert_eq!(reply["error"]["code"], -32601, "{reply}");
        assert_eq!(
            reply["error"]["message"],
            format!(
                "method not found: {method}; this server answers initialize, ping, tools/list, tools/call and logging/setLevel"
            )
        );
    }
    session.end().await;
}

/// A request before `initialize` on stdio starts a 2026-07-28 session, whose requests carry their
/// version in `_meta`: the refusal of one without it says so, and names `initialize` as the
/// other way in.
#[tokio::test]
async fn a_request_before_initialize_is_told_both_ways_in() {
    let mut session = Session::start();
    session.send(&format!("{}\n", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))).await;
    let reply = session.reply().await;
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["error"]["code"], -32602);
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("request _meta is missing or has malformed required fields: "), "{message}");
    assert!(
        message.ends_with(
            "; a session that does not open with `initialize` is of protocol 2026-07-28, whose every request names \
             the protocol version and the client's capabilities in `params._meta`: send them, or open the session \
             with `initialize` (MCP 2025-11-25 and earlier)"
        ),
        "{message}"
    );
    session.end().await;
}
