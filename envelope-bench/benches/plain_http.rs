//! Calls per second over plain HTTP, end to end: `POST /tools/get_top_queries` on envelope's
//! `HttpTools` against a plain axum handler taking `Json<Args>`, measured in one run.
//!
//! ```sh
//! cargo bench -j2 -p envelope-bench --bench plain_http      # 20,000 calls a session, 5 rounds
//! cargo test -j2 -p envelope-bench --bench plain_http       # quick mode: 300 calls, 1 round
//! cargo bench -j2 -p envelope-bench --bench plain_http -- --quick   # the same, release
//! PLAIN_HTTP_REQUESTS=5000 PLAIN_HTTP_ROUNDS=3 PLAIN_HTTP_RUNTIME=multi cargo bench -j2 -p envelope-bench --bench plain_http
//! ```
//!
//! Built as `mcp_http.rs` is (a server child process per session on a loopback port; 16
//! HTTP/1.1 keep-alive connections, a thread each, one request in flight on each; 20 calls a
//! connection outside the clock; calls/s, server CPU per call from `/proc`, p50/p99, peak RSS,
//! threads; a current-thread runtime, `PLAIN_HTTP_RUNTIME=multi` a multi-thread one). The
//! servers:
//! - `envelope`: the `#[tool]` `get_top_queries` of `mcp_stdio.rs` with a plain `fn` body,
//!   `HttpTools::new(toolbox).router()` served by `envelope_core::http::serve`; a valid call is
//!   200 with the envelope `{"status":"ok","data":...}`, a refused one 422 with its refusal.
//! - `envelope-async`: the same tool as an `async fn`.
//! - `envelope-inline`: the sync tool declared quick (`Tool::inline_body`): its body runs on the
//!   runtime's worker, not on the pool of body threads (a slow body would stall the server).
//! - `axum`: `POST /tools/get_top_queries` routed to an `async fn` handler taking
//!   `Json<TopQueriesArgs>` (serde, `group_by` a Rust enum, `top` defaulting to 10), the two
//!   ranges checked by plain `if`s (422 with `{"error": "..."}`), answering `Json(TopQueries)`;
//!   a body serde refuses is axum's own rejection (422, plain text). Served by `axum::serve`.
//! - `axum-blocking`: the same handler with the work after the `if`s on `spawn_blocking`, as an
//!   axum handler whose sync work may be slow must be written not to stall the server; the
//!   reference for envelope's sync tool, whose body never runs on the runtime either.
//!
//! Workloads as in `mcp_stdio.rs`: `valid` and `refused`, at 16 connections.

mod common;

use std::io;

use common::{
    Bench, Kind, Scenario, TopQueries, answer, envelope_async, envelope_sync, reference_args::TopQueriesArgs,
};

const SERVERS: &[&str] = &["envelope", "envelope-async", "envelope-inline", "axum", "axum-blocking"];
const PAIRS: &[(&str, &str)] =
    &[("envelope", "axum"), ("envelope-async", "axum"), ("envelope-inline", "axum"), ("envelope", "axum-blocking")];

/// The axum reference handler: serde's reading, then the same `if`s.
async fn get_top_queries(
    axum::Json(args): axum::Json<TopQueriesArgs>,
) -> Result<axum::Json<TopQueries>, (axum::http::StatusCode, axum::Json<serde_json::Value>)> {
    if let Err(error) = args.check() {
        return Err((axum::http::StatusCode::UNPROCESSABLE_ENTITY, axum::Json(serde_json::json!({ "error": error }))));
    }
    std::hint::black_box((args.hours_back, args.group_by, args.top));
    Ok(axum::Json(answer()))
}

/// The axum handler as it must be written when its work is sync code that may be slow: the
/// same reading and `if`s, the work moved off the runtime with `spawn_blocking`, as envelope
/// moves a sync body off it (a slow body then stalls no other request).
async fn get_top_queries_blocking(
    axum::Json(args): axum::Json<TopQueriesArgs>,
) -> Result<axum::Json<TopQueries>, (axum::http::StatusCode, axum::Json<serde_json::Value>)> {
    if let Err(error) = args.check() {
        return Err((axum::http::StatusCode::UNPROCESSABLE_ENTITY, axum::Json(serde_json::json!({ "error": error }))));
    }
    let answered = tokio::task::spawn_blocking(move || {
        std::hint::black_box((args.hours_back, args.group_by, args.top));
        answer()
    })
    .await;
    answered.map(axum::Json).map_err(|_| {
        (axum::http::StatusCode::INTERNAL_SERVER_ERROR, axum::Json(serde_json::json!({ "error": "the body panicked" })))
    })
}

fn serve(server: &str) -> io::Result<()> {
    use envelope_core::{Toolbox, http::HttpTools};
    common::runtime("PLAIN_HTTP_RUNTIME")?.block_on(async {
        let listener = common::listen().await?;
        match server {
            "envelope" | "envelope-async" | "envelope-inline" => {
                let tool = match server {
                    "envelope" => envelope_sync::get_top_queries::tool(),
                    "envelope-inline" => envelope_sync::get_top_queries::tool().inline_body(),
                    _ => envelope_async::get_top_queries::tool(),
                };
                let app = HttpTools::new(Toolbox::new().with(tool)).router();
                envelope_core::http::serve(listener, app).routes(["POST /tools/{name}"]).await
            }
            "axum" => {
                let app = axum::Router::new().route("/tools/get_top_queries", axum::routing::post(get_top_queries));
                axum::serve(listener, app).await
            }
            "axum-blocking" => {
                let app =
                    axum::Router::new().route("/tools/get_top_queries", axum::routing::post(get_top_queries_blocking));
                axum::serve(listener, app).await
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

fn requests(arguments: [&'static str; 3]) -> Box<dyn Fn(u16) -> [Vec<u8>; 3]> {
    Box::new(move |port| arguments.map(|body| common::post(port, "/tools/get_top_queries", "", body)))
}

/// 200: answered; 400 or 422: refused.
fn classify(status: u16, _body: &[u8]) -> Option<Kind> {
    match status {
        200 => Some(Kind::Ok),
        400 | 422 => Some(Kind::Refused),
        _ => None,
    }
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--serve") {
        return serve(args.get(i + 1).map_or("", String::as_str));
    }
    let full = common::full_mode(&args);
    let scenarios = [("valid", VALID, Kind::Ok), ("refused", REFUSED, Kind::Refused)]
        .into_iter()
        .map(|(name, arguments, expect)| Scenario {
            name: format!("{name} calls, 16 connections"),
            connections: 16,
            requests: requests(arguments),
            expect,
        })
        .collect();
    let runtime =
        if std::env::var("PLAIN_HTTP_RUNTIME").as_deref() == Ok("multi") { "multi-thread" } else { "current-thread" };
    common::run(&Bench {
        title: format!("Plain HTTP, POST /tools/get_top_queries, {runtime} runtime"),
        servers: SERVERS,
        pairs: PAIRS,
        scenarios,
        n: common::env_number("PLAIN_HTTP_REQUESTS", if full { 20_000 } else { 300 }),
        rounds: common::env_number("PLAIN_HTTP_ROUNDS", if full { 5 } else { 1 }).max(1),
        warmup: 20,
        classify,
    })
}
