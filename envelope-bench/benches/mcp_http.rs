//! Calls per second over MCP Streamable HTTP, end to end: envelope's `McpHttp` against rmcp's
//! `StreamableHttpService` serving a `#[tool_router]` server, measured in one run.
//!
//! ```sh
//! cargo bench -j2 -p envelope-bench --bench mcp_http      # 20,000 calls a session, 5 rounds
//! cargo test -j2 -p envelope-bench --bench mcp_http       # quick mode: 300 calls, 1 round
//! cargo bench -j2 -p envelope-bench --bench mcp_http -- --quick   # the same, release
//! MCP_HTTP_REQUESTS=5000 MCP_HTTP_ROUNDS=3 MCP_HTTP_RUNTIME=multi cargo bench -j2 -p envelope-bench --bench mcp_http
//! ```
//!
//! This binary is both the client and the servers: run with `--serve <server>`, it serves on a
//! loopback port (written as its first line of stdout) until its stdin closes. Without it, it
//! starts each server as a child process per session and sends N `tools/call` POSTs over 1 or
//! 16 HTTP/1.1 keep-alive connections (raw sockets, a thread each, each connection waiting for
//! its reply before its next request; 20 calls a connection first, outside the clock). Each
//! request is stateless MCP 2026-07-28: no `initialize`, the headers `MCP-Protocol-Version:
//! 2026-07-28`, `Mcp-Method: tools/call`, `Mcp-Name: get_top_queries`, `Accept:
//! application/json, text/event-stream` (rmcp answers 406 without both), and the per-request
//! `_meta` (`io.modelcontextprotocol/protocolVersion`, `.../clientCapabilities`) in `params`;
//! every reply is one JSON body. Every server runs on a current-thread tokio runtime
//! (`MCP_HTTP_RUNTIME=multi`: a multi-thread one, a worker per core). Measured: calls/s over the
//! whole session, the server's CPU time (user + system, every thread, `/proc/<pid>/stat`, 10 ms
//! ticks) per call, p50/p99 latency of one call, the server's peak RSS (`VmHWM`) and its thread
//! count at the end.
//!
//! The servers, each with the tool `get_top_queries` of `mcp_stdio.rs` (`hours_back` 1..=720,
//! `group_by` one of three, `top` 1..=100 defaulting to 10; a fixed two-row answer):
//! - `envelope`: a `#[tool]` with a plain `fn` body; `McpHttp::new(toolbox).router()` served by
//!   `envelope_core::http::serve` (its bounds and `Host` check), as the examples serve it.
//! - `envelope-async`: the same tool as an `async fn`.
//! - `rmcp`: the `#[tool_router]` server of `mcp_stdio.rs` (router built once and cloned per
//!   request, a sync `#[tool]` taking `Parameters<Args>`, the ranges checked by plain `if`s)
//!   in `StreamableHttpService` (stateless: `with_legacy_session_mode(false)`,
//!   `NeverSessionManager`; `with_json_response(true)`; no SSE keep-alive), nested at `/mcp` in
//!   an axum `Router` served by `axum::serve`, as rmcp's examples serve it.
//!
//! Workloads as in `mcp_stdio.rs`: `valid` (every call answered `ok`) and `refused` (`"24h"`,
//! 721, `"databse"`), each at 1 and at 16 connections. Each round runs every scenario, and
//! within each every server once, in an order rotated each round. A ratio is envelope's over
//! rmcp's within one round (calls/s; CPU per call and p50 latency: lower is better); the
//! table gives the median over rounds.

mod common;

use std::io;
use std::sync::Arc;

use common::{Bench, Kind, Scenario, envelope_async, envelope_sync, reference_args::TopQueriesArgs};

mod rmcp_server {
    use super::TopQueriesArgs;
    use super::common::{TopQueries, answer};
    use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Json, wrapper::Parameters};
    use rmcp::{ServerHandler, tool, tool_handler, tool_router};
    use std::hint::black_box;

    /// The rmcp server: its router built once.
    #[derive(Clone)]
    pub struct Server {
        tool_router: ToolRouter<Self>,
    }

    impl Server {
        pub fn new() -> Self {
            Server { tool_router: Self::tool_router() }
        }
    }

    #[tool_router]
    impl Server {
        #[tool(
            description = "Lists the queries that spent the most time, grouped by query hash, database or application.",
            annotations(read_only_hint = true, idempotent_hint = true)
        )]
        fn get_top_queries(&self, Parameters(args): Parameters<TopQueriesArgs>) -> Result<Json<TopQueries>, String> {
            if !(1..=720).contains(&args.hours_back) {
                return Err(format!("hours_back must be between 1 and 720, got {}", args.hours_back));
            }
            if !(1..=100).contains(&args.top) {
                return Err(format!("top must be between 1 and 100, got {}", args.top));
            }
            black_box((args.hours_back, args.group_by, args.top));
            Ok(Json(answer()))
        }
    }

    #[tool_handler(router = self.tool_router)]
    impl ServerHandler for Server {}
}

const SERVERS: &[&str] = &["envelope", "envelope-async", "rmcp"];
const PAIRS: &[(&str, &str)] = &[("envelope", "rmcp"), ("envelope-async", "rmcp")];

fn serve(server: &str) -> io::Result<()> {
    use envelope_core::{Toolbox, mcp::streamable::McpHttp};
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::never::NeverSessionManager,
    };
    common::runtime("MCP_HTTP_RUNTIME")?.block_on(async {
        let listener = common::listen().await?;
        match server {
            "envelope" | "envelope-async" => {
                let tool = if server == "envelope" {
                    envelope_sync::get_top_queries::tool()
                } else {
                    envelope_async::get_top_queries::tool()
                };
                let app = McpHttp::new(Toolbox::new().with(tool)).router();
                envelope_core::http::serve(listener, app).routes(["POST /mcp"]).await
            }
            "rmcp" => {
                let config = StreamableHttpServerConfig::default()
                    .with_legacy_session_mode(false)
                    .with_json_response(true)
                    .with_sse_keep_alive(None);
                let handler = rmcp_server::Server::new();
                let service = StreamableHttpService::new(
                    move || Ok(handler.clone()),
                    Arc::new(NeverSessionManager::default()),
                    config,
                );
                axum::serve(listener, axum::Router::new().nest_service("/mcp", service)).await
            }
            other => Err(io::Error::other(format!("no server {other}; one of {}", SERVERS.join(", ")))),
        }
    })
}

const VALID: [&str; 3] = [
    r#"{"hours_back":24,"group_by":"database"}"#,
    r#"{"hours_back":720,"group_by":"query_hash","top":5}"#,
    r#"{"hours_back":1,"group_by":"application","top":100}"#,
];

const REFUSED: [&str; 3] = [
    r#"{"hours_back":"24h","group_by":"database"}"#,
    r#"{"hours_back":721,"group_by":"database"}"#,
    r#"{"hours_back":24,"group_by":"databse"}"#,
];

/// The three `tools/call` POSTs of a workload (ids 1, 2, 3).
fn requests(arguments: [&'static str; 3]) -> Box<dyn Fn(u16) -> [Vec<u8>; 3]> {
    Box::new(move |port| {
        let headers = concat!(
            "Accept: application/json, text/event-stream\r\n",
            "MCP-Protocol-Version: 2026-07-28\r\n",
            "Mcp-Method: tools/call\r\n",
            "Mcp-Name: get_top_queries\r\n"
        );
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let request = |i: usize| {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{{meta},"name":"get_top_queries","arguments":{}}}}}"#,
                i + 1,
                arguments[i]
            );
            common::post(port, "/mcp", headers, &body)
        };
        [request(0), request(1), request(2)]
    })
}

/// HTTP 200 with a JSON-RPC reply: a result (with `isError: true`, refused) or an error.
fn classify(status: u16, body: &[u8]) -> Option<Kind> {
    let text = std::str::from_utf8(body).ok()?;
    if status != 200 || !text.starts_with(r#"{"jsonrpc":"2.0","id":"#) {
        return None;
    }
    let rest = text[22..].trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.starts_with(r#","error":"#) {
        Some(Kind::RpcError)
    } else if rest.starts_with(r#","result":"#) {
        Some(if text.contains(r#""isError":true"#) { Kind::Refused } else { Kind::Ok })
    } else {
        None
    }
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--serve") {
        return serve(args.get(i + 1).map_or("", String::as_str));
    }
    let full = common::full_mode(&args);
    let mut scenarios = Vec::new();
    for (name, arguments, expect) in [("valid", VALID, Kind::Ok), ("refused", REFUSED, Kind::Refused)] {
        for connections in [1, 16] {
            scenarios.push(Scenario {
                name: format!("{name} calls, {connections} connection(s)"),
                connections,
                requests: requests(arguments),
                expect,
            });
        }
    }
    let runtime =
        if std::env::var("MCP_HTTP_RUNTIME").as_deref() == Ok("multi") { "multi-thread" } else { "current-thread" };
    common::run(&Bench {
        title: format!("MCP Streamable HTTP (stateless, JSON responses, 2026-07-28), {runtime} runtime"),
        servers: SERVERS,
        pairs: PAIRS,
        scenarios,
        n: common::env_number("MCP_HTTP_REQUESTS", if full { 20_000 } else { 300 }),
        rounds: common::env_number("MCP_HTTP_ROUNDS", if full { 5 } else { 1 }).max(1),
        warmup: 20,
        classify,
    })
}
