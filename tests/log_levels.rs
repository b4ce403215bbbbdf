//! A log level that is not one, in `logging/setLevel` or in a 2026-07-28 request's `_meta`
//! (`io.modelcontextprotocol/logLevel`), is JSON-RPC -32602 naming the accepted levels, over MCP
//! Streamable HTTP on every protocol version and over stdio; and a rate-limited call over stdio
//! keeps `isError` with its delay.

use std::time::Duration;

use envelope_core::mcp::streamable::McpHttp;
use envelope_core::mcp::{McpServer, serve_io};
use envelope_core::spec::rate::RateLimit;
use envelope_core::{Toolbox, tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[path = "support/http_client.rs"]
mod client;
use client::{send, serve};

/// Answers its number.
#[tool]
fn ping(#[validate(default = 1)] n: u32) -> u32 {
    n
}

const VERSIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

const ACCEPTED: &str = r#"accepted: "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency""#;

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap().block_on(f)
}

fn meta(version: &str) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}})
}

async fn post(addr: std::net::SocketAddr, version: &str, method: &str, params: Value) -> (u16, Value) {
    let mut headers = vec![("content-type", "application/json"), ("mcp-protocol-version", version)];
    if version >= "2026-07-28" {
        headers.push(("mcp-method", method));
    }
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params}).to_string();
    let reply = send(addr, "POST", "/mcp", &headers, &body).await;
    (reply.status, reply.json())
}

fn assert_refused(reply: &Value, method: &str, shown: &str, parameter: &str, version: &str) {
    assert_eq!(reply["id"], 3, "{version}: {reply}");
    assert_eq!(reply["error"]["code"], -32602, "{version}: {reply}");
    assert_eq!(
        reply["error"]["message"],
        format!("{method}: {shown} is not a log level; {ACCEPTED}"),
        "{version}: {reply}"
    );
    assert_eq!(reply["error"]["data"]["parameter"], parameter, "{version}");
    assert_eq!(reply["error"]["data"]["accepted"].as_array().unwrap().len(), 8, "{version}");
}

#[test]
fn an_unknown_log_level_is_invalid_params_over_streamable_http_on_every_version() {
    block_on(async {
        let addr = serve(McpHttp::new(Toolbox::new().with(ping::tool())).router()).await;
        for version in VERSIONS {
            let mut params = json!({"level": "verbose"});
            if version >= "2026-07-28" {
                params["_meta"] = meta(version);
            }
            let (status, reply) = post(addr, version, "logging/setLevel", params).await;
            assert_eq!(status, 200, "{version}: {reply}");
            assert_refused(&reply, "logging/setLevel", r#""verbose""#, "level", version);

            // A level that is no string either.
            let (_, reply) = post(addr, version, "logging/setLevel", json!({"level": 7})).await;
            assert_refused(&reply, "logging/setLevel", "7", "level", version);

            // A request's own `_meta` naming a level that is not one.
            let mut meta = meta(version);
            meta["io.modelcontextprotocol/logLevel"] = json!("loud");
            let (_, reply) = post(addr, version, "tools/list", json!({"_meta": meta})).await;
            assert_refused(&reply, "tools/list", r#""loud""#, "_meta.io.modelcontextprotocol/logLevel", version);

            // An accepted level is served.
            let mut meta = self::meta(version);
            meta["io.modelcontextprotocol/logLevel"] = json!("warning");
            let (status, reply) = post(addr, version, "tools/list", json!({"_meta": meta})).await;
            assert_eq!(status, 200, "{version}: {reply}");
            assert_eq!(reply["result"]["tools"][0]["name"], "ping", "{version}: {reply}");
        }
    });
}

#[test]
fn over_stdio_an_unknown_log_level_is_invalid_params_and_a_rate_limit_stays_is_error() {
    block_on(async {
        let toolbox = Toolbox::new().with(ping::tool()).with_rate_limit(RateLimit::per_minute(1));
        let (client, server_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(serve_io(McpServer::new(toolbox), server_read, server_write));
        let (read, mut input) = tokio::io::split(client);
        let mut output = BufReader::new(read).lines();
        let mut exchange = async |line: Value| -> Value {
            input.write_all(format!("{line}\n").as_bytes()).await.unwrap();
            if line.get("id").is_none() {
                return Value::Null;
            }
            let reply = tokio::time::timeout(Duration::from_secs(20), output.next_line()).await.unwrap();
            serde_json::from_str(&reply.unwrap().unwrap()).unwrap()
        };
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
        assert_eq!(exchange(initialize).await["result"]["protocolVersion"], "2025-11-25");
        exchange(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;

        let set = json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "trace"}});
        assert_refused(&exchange(set).await, "logging/setLevel", r#""trace""#, "level", "stdio");
        let set = json!({"jsonrpc": "2.0", "id": 4, "method": "logging/setLevel", "params": {"level": "notice"}});
        assert_eq!(exchange(set).await, json!({"jsonrpc": "2.0", "id": 4, "result": {}}));

        let call = |id: u32| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "ping"}});
        assert_eq!(exchange(call(5)).await["result"]["structuredContent"]["data"], 1);
        let limited = exchange(call(6)).await;
        assert_eq!(limited["result"]["isError"], true, "{limited}");
        let envelope = &limited["result"]["structuredContent"];
        assert_eq!(envelope["error_code"], "RATE_LIMITED");
        assert!(envelope["hints"]["retry_after_ms"].as_u64().unwrap() > 50_000, "{envelope}");
    });
}
