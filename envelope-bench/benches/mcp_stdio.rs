//! Calls per second over MCP stdio, end to end: an envelope server against an rmcp
//! `#[tool_router]` server whose tool takes serde + schemars `Parameters<T>`, measured in one run.
//!
//! ```sh
//! cargo bench -j2 -p envelope-bench --bench mcp_stdio      # 20,000 calls a session, 9 rounds
//! cargo test -j2 -p envelope-bench --bench mcp_stdio       # quick mode: 500 calls, 1 round
//! cargo bench -j2 -p envelope-bench --bench mcp_stdio -- --quick   # the same, release
//! MCP_STDIO_REQUESTS=5000 MCP_STDIO_ROUNDS=3 cargo bench -j2 -p envelope-bench --bench mcp_stdio
//! MCP_STDIO_PROTOCOL=2026-07-28 cargo bench -j2 -p envelope-bench --bench mcp_stdio   # as the Python SDK's default mode
//! ```
//!
//! This binary is both the client and the servers: run with `--serve <server>`, it serves one MCP
//! stdio session and exits when stdin closes. Without it, it starts each server as a child process
//! per session, sends `initialize` (protocol 2025-11-25) and `notifications/initialized` (with
//! `MCP_STDIO_PROTOCOL=2026-07-28`: `server/discover`, and every request then carries that
//! version's `_meta`, as the official Python SDK sends it by default), then writes N `tools/call` lines (ids 1..=N) to the child's stdin from one thread, without waiting
//! for replies, while the main thread reads reply lines until all N are answered. The clock runs
//! from the first `tools/call` byte written to the last reply read; process start and the
//! handshake are outside it. Every server runs on a current-thread tokio runtime
//! (`MCP_STDIO_RUNTIME=multi`: a multi-thread one, a worker per core). The server's CPU time
//! (user + system, every thread, from `/proc/<pid>/stat` in 10 ms ticks) over the same span is
//! given per call too: less disturbed than the wall clock when other work shares the cores, and
//! the server's peak resident set (`VmHWM`, read once the burst is answered) and thread count.
//! After the burst, M more calls go one at a time (each written once the previous reply is read;
//! `MCP_STDIO_SEQUENTIAL`, default 1,000, quick mode 100): their p50 and p99 latency, from the
//! line written to its reply read, is the latency of one call on an idle session.
//!
//! The servers, each with one tool `get_top_queries` (`hours_back` a `u32` in 1..=720, `group_by`
//! one of `query_hash`, `database`, `application`, `top` a `u32` in 1..=100 defaulting to 10)
//! whose body consumes its arguments and returns the same fixed object of two rows:
//! - `envelope`: a `#[tool]` with a plain `fn` body, served by `envelope_core::mcp::serve_stdio`.
//!   A sync body runs on envelope's pool of body threads: one thread hop there and back per
//!   call.
//! - `envelope-async`: the same tool as an `async fn`: no thread hop, the call runs on the
//!   runtime's thread.
//! - `rmcp`: `#[tool_router]` with a `tool_router` field and `#[tool_handler(router =
//!   self.tool_router)]` (the router is built once, not per call), a sync `#[tool]` method taking
//!   `Parameters<Args>` (`#[derive(Deserialize, JsonSchema)]`, `group_by` a Rust enum, schemars'
//!   `range` on the numbers) and returning `Result<Json<TopQueries>, String>`; the two ranges
//!   are checked by hand in the body, since serde does not read schemars' `range`, and a range
//!   refused is a tool error (`isError: true`, the `String` as text), as rmcp answers a
//!   `Parameters` that does not deserialize. rmcp calls a sync tool inline on the runtime: no
//!   thread hop. Served with `rmcp::transport::stdio()`.
//! - `envelope-pipes`, `envelope-async-pipes` and `rmcp-pipes`: the first three over
//!   `rmcp::transport::stdio_pipes()` (stdin and stdout on tokio's reactor instead of its
//!   blocking threads); envelope's through `envelope_core::mcp::serve_io`.
//!
//! Two workloads, each cycling three argument objects: `valid` (every call answered `ok`) and
//! `refused` (`hours_back` sent as the string `"24h"`, `hours_back` 721, `group_by` `"databse"`).
//! Each round runs both workloads, and within each every server once, in an order rotated each
//! round. A ratio is envelope's over rmcp's within one round (calls per second: higher is better;
//! server CPU per call and p50 latency: lower is better); the table gives the median over rounds,
//! and each refused kind's first reply from each server.

use std::hint::black_box;
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

mod common;
use common::{cpu_ticks, env_number, median, spread, status_fields};

// ---------------------------------------------------------------------------------------------
// The tool body's answer, the same for every server.

/// One row of the answer.
#[derive(Serialize, schemars::JsonSchema)]
struct Row {
    key: &'static str,
    calls: u64,
    total_ms: u64,
}

/// The answer: `{"rows": [{"key", "calls", "total_ms"}, ...]}`.
#[derive(Serialize, schemars::JsonSchema)]
struct TopQueries {
    rows: Vec<Row>,
}

fn answer() -> TopQueries {
    TopQueries {
        rows: vec![
            Row { key: "orders", calls: 1290, total_ms: 145_000 },
            Row { key: "users", calls: 5400, total_ms: 27_000 },
        ],
    }
}

// ---------------------------------------------------------------------------------------------
// The servers.

mod envelope_sync {
    use super::{TopQueries, answer, black_box};
    use envelope_core::tool;

    /// Lists the queries that spent the most time, grouped by query hash, database or application.
    #[tool(read_only, idempotent)]
    pub fn get_top_queries(
        /// How far back to look, in hours.
        #[validate(range = 1..=720)]
        hours_back: u32,
        /// What to group the statistics by.
        #[validate(choices = ["query_hash", "database", "application"])]
        group_by: String,
        /// How many rows to return.
        #[validate(range = 1..=100, default = 10)]
        top: u32,
    ) -> TopQueries {
        black_box((hours_back, group_by, top));
        answer()
    }
}

mod envelope_async {
    use super::{TopQueries, answer, black_box};
    use envelope_core::tool;

    /// Lists the queries that spent the most time, grouped by query hash, database or application.
    #[tool(read_only, idempotent)]
    pub async fn get_top_queries(
        /// How far back to look, in hours.
        #[validate(range = 1..=720)]
        hours_back: u32,
        /// What to group the statistics by.
        #[validate(choices = ["query_hash", "database", "application"])]
        group_by: String,
        /// How many rows to return.
        #[validate(range = 1..=100, default = 10)]
        top: u32,
    ) -> TopQueries {
        black_box((hours_back, group_by, top));
        answer()
    }
}

mod rmcp_server {
    use super::{TopQueries, answer, black_box};
    use crate::common::reference_args::TopQueriesArgs;
    use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Json, wrapper::Parameters};
    use rmcp::{ServerHandler, tool, tool_handler, tool_router};

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

const SERVERS: [&str; 6] =
    ["envelope", "envelope-async", "rmcp", "envelope-pipes", "envelope-async-pipes", "rmcp-pipes"];

/// Envelope's server against the rmcp server it is compared with.
const PAIRS: [(&str, &str); 4] = [
    ("envelope", "rmcp"),
    ("envelope-async", "rmcp"),
    ("envelope-pipes", "rmcp-pipes"),
    ("envelope-async-pipes", "rmcp-pipes"),
];

fn serve(server: &str) -> io::Result<()> {
    use envelope_core::{Toolbox, mcp};
    use rmcp::ServiceExt;
    let runtime = match std::env::var("MCP_STDIO_RUNTIME").as_deref() {
        Ok("multi") => tokio::runtime::Builder::new_multi_thread().enable_all().build()?,
        _ => tokio::runtime::Builder::new_current_thread().enable_all().build()?,
    };
    runtime.block_on(async {
        match server {
            "envelope" => mcp::serve_stdio(Toolbox::new().with(envelope_sync::get_top_queries::tool())).await,
            "envelope-async" => mcp::serve_stdio(Toolbox::new().with(envelope_async::get_top_queries::tool())).await,
            "envelope-pipes" | "envelope-async-pipes" => {
                let tool = if server == "envelope-pipes" {
                    envelope_sync::get_top_queries::tool()
                } else {
                    envelope_async::get_top_queries::tool()
                };
                let (input, output) = rmcp::transport::stdio_pipes();
                mcp::serve_io(mcp::McpServer::new(Toolbox::new().with(tool)), input, output).await
            }
            "rmcp" => wait(rmcp_server::Server::new().serve(rmcp::transport::stdio()).await).await,
            "rmcp-pipes" => wait(rmcp_server::Server::new().serve(rmcp::transport::stdio_pipes()).await).await,
            other => Err(io::Error::other(format!("no server {other}; one of {}", SERVERS.join(", ")))),
        }
    })
}

/// Waits for an rmcp session to end (stdin closed).
async fn wait<S: rmcp::Service<rmcp::RoleServer>, E: std::fmt::Display>(
    running: Result<rmcp::service::RunningService<rmcp::RoleServer, S>, E>,
) -> io::Result<()> {
    let running = running.map_err(|e| io::Error::other(e.to_string()))?;
    running.waiting().await.map(drop).map_err(io::Error::other)
}

// ---------------------------------------------------------------------------------------------
// The client.

/// A workload: three `arguments` objects, sent in turn.
struct Workload {
    name: &'static str,
    arguments: [&'static str; 3],
    /// What each of the three is, for the replies shown.
    kinds: [&'static str; 3],
}

const WORKLOADS: [Workload; 2] = [
    Workload {
        name: "valid",
        arguments: [
            r#"{"hours_back":24,"group_by":"database"}"#,
            r#"{"hours_back":720,"group_by":"query_hash","top":5}"#,
            r#"{"hours_back":1,"group_by":"application","top":100}"#,
        ],
        kinds: ["top defaulted", "all three sent", "the upper bounds"],
    },
    Workload {
        name: "refused",
        arguments: [
            r#"{"hours_back":"24h","group_by":"database"}"#,
            r#"{"hours_back":721,"group_by":"database"}"#,
            r#"{"hours_back":24,"group_by":"databse"}"#,
        ],
        kinds: [
            "hours_back \"24h\" (a string)",
            "hours_back 721 (out of range)",
            "group_by \"databse\" (no such choice)",
        ],
    },
];

const INITIALIZE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","#,
    r#""capabilities":{},"clientInfo":{"name":"mcp_stdio bench","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

/// A 2026-07-28 request's own `_meta`, as the official Python SDK sends it by default.
const META: &str = concat!(
    r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"mcp_stdio bench","version":"0"},"#,
    r#""io.modelcontextprotocol/clientCapabilities":{}}"#
);

/// Whether the session speaks MCP 2026-07-28 (`MCP_STDIO_PROTOCOL=2026-07-28`: no
/// `initialize`; `server/discover` first, and every request carries [`META`]) rather than
/// 2025-11-25 after `initialize`.
fn stateless() -> bool {
    std::env::var("MCP_STDIO_PROTOCOL").as_deref() == Ok("2026-07-28")
}

/// What opens a session: `initialize` and `notifications/initialized`, or on 2026-07-28
/// `server/discover`; either is answered with one `result` line.
fn opener() -> String {
    if stateless() {
        format!("{{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"server/discover\",\"params\":{{\"_meta\":{META}}}}}\n")
    } else {
        INITIALIZE.to_owned()
    }
}

/// One `tools/call` line of `get_top_queries`, with [`META`] on 2026-07-28.
fn call_line(out: &mut Vec<u8>, id: usize, arguments: &str) -> io::Result<()> {
    if stateless() {
        writeln!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_top_queries","arguments":{arguments},"_meta":{META}}}}}"#
        )
    } else {
        writeln!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_top_queries","arguments":{arguments}}}}}"#
        )
    }
}

/// N `tools/call` lines, ids 1..=N, cycling the workload's arguments.
fn requests(workload: &Workload, n: usize) -> Arc<[u8]> {
    let mut out = Vec::with_capacity(n * 300);
    for i in 0..n {
        call_line(&mut out, i + 1, workload.arguments[i % 3]).expect("writing to a Vec");
    }
    out.into()
}

/// What one session measured.
struct Session {
    calls_per_second: f64,
    /// The server's CPU time per call, in microseconds (`None` without `/proc`).
    cpu_us_per_call: Option<f64>,
    /// The latency of one call at a time, after the burst, in microseconds.
    p50_us: f64,
    p99_us: f64,
    /// The server's peak resident set (`VmHWM`, KiB) and thread count once the burst is answered.
    peak_rss_kib: Option<u64>,
    threads: Option<u64>,
    /// Replies that are a `result` with `isError` absent or false.
    ok: usize,
    /// Replies that are a `result` with `isError: true`.
    tool_errors: usize,
    /// JSON-RPC `error` replies.
    rpc_errors: usize,
    /// The first reply to each of the workload's three arguments.
    samples: [Option<String>; 3],
}

fn session(server: &str, workload: &Workload, lines: &Arc<[u8]>, n: usize, m: usize) -> io::Result<Session> {
    let mut child = Command::new(std::env::current_exe()?)
        .args(["--serve", server])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = BufReader::with_capacity(1 << 16, child.stdout.take().expect("piped stdout"));
    stdin.write_all(opener().as_bytes())?;
    stdin.flush()?;
    let mut line = String::new();
    stdout.read_line(&mut line)?;
    if !line.contains(r#""result""#) {
        return Err(io::Error::other(format!("{server}: initialize answered {line}")));
    }

    let lines = Arc::clone(lines);
    let cpu_start = cpu_ticks(child.id());
    let start = Instant::now();
    let writer = std::thread::spawn(move || -> io::Result<std::process::ChildStdin> {
        stdin.write_all(&lines)?;
        stdin.flush()?;
        Ok(stdin)
    });
    let (mut ok, mut tool_errors, mut rpc_errors) = (0, 0, 0);
    let mut samples: [Option<String>; 3] = [None, None, None];
    for answered in 0..n {
        line.clear();
        if stdout.read_line(&mut line)? == 0 {
            return Err(io::Error::other(format!("{server} closed stdout after {answered} of {n} replies")));
        }
        // `{"jsonrpc":"2.0","id":N,` then `"result":` or `"error":`, as both servers write them.
        let after_id = line
            .strip_prefix(r#"{"jsonrpc":"2.0","id":"#)
            .map(|rest| rest.trim_start_matches(|c: char| c.is_ascii_digit()));
        match after_id {
            Some(rest) if rest.starts_with(r#","error":"#) => rpc_errors += 1,
            Some(rest) if rest.starts_with(r#","result":"#) && line.contains(r#""isError":true"#) => tool_errors += 1,
            Some(rest) if rest.starts_with(r#","result":"#) => ok += 1,
            _ => return Err(io::Error::other(format!("{server}: not a reply: {line}"))),
        }
        if samples.iter().any(Option::is_none) {
            let reply: serde_json::Value = serde_json::from_str(&line)?;
            let id = reply["id"].as_u64().and_then(|id| usize::try_from(id).ok()).unwrap_or(0);
            if id > 0 && samples[(id - 1) % 3].is_none() {
                samples[(id - 1) % 3] = Some(line.trim_end().to_owned());
            }
        }
    }
    let elapsed = start.elapsed();
    let cpu = cpu_start.zip(cpu_ticks(child.id())).map(|(a, b)| b.saturating_sub(a));
    let (peak_rss_kib, threads) = status_fields(child.id());
    let mut stdin = writer.join().map_err(|_| io::Error::other("the writer thread panicked"))??;
    // One call at a time: ids after the burst's, the workload's arguments in turn.
    let mut latencies = Vec::with_capacity(m);
    let mut request = Vec::with_capacity(256);
    for i in 0..m {
        request.clear();
        let id = n + 1 + i;
        let arguments = workload.arguments[i % 3];
        call_line(&mut request, id, arguments)?;
        let sent = Instant::now();
        stdin.write_all(&request)?;
        stdin.flush()?;
        line.clear();
        if stdout.read_line(&mut line)? == 0 {
            return Err(io::Error::other(format!("{server} closed stdout after {i} of {m} single calls")));
        }
        latencies.push(sent.elapsed().as_secs_f64() * 1e6);
        if !line.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"#)) {
            return Err(io::Error::other(format!("{server}: not the reply to {id}: {line}")));
        }
    }
    latencies.sort_by(f64::total_cmp);
    let percentile = |p: f64| {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let at = ((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len().max(1)) - 1;
        latencies.get(at).copied().unwrap_or(f64::NAN)
    };
    let (p50_us, p99_us) = (percentile(0.50), percentile(0.99));
    drop(stdin);
    let status = child.wait()?;
    if !status.success() {
        return Err(io::Error::other(format!("{server} exited with {status}")));
    }
    #[allow(clippy::cast_precision_loss)]
    let calls_per_second = n as f64 / elapsed.as_secs_f64();
    // 100 ticks a second (Linux's USER_HZ).
    #[allow(clippy::cast_precision_loss)]
    let cpu_us_per_call = cpu.map(|ticks| ticks as f64 * 10_000.0 / n as f64);
    Ok(Session {
        calls_per_second,
        cpu_us_per_call,
        p50_us,
        p99_us,
        peak_rss_kib,
        threads,
        ok,
        tool_errors,
        rpc_errors,
        samples,
    })
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--serve") {
        return serve(args.get(i + 1).map_or("", String::as_str));
    }
    // `cargo bench` passes `--bench`; `cargo test --benches`, or `-- --quick`, runs the quick mode.
    let full = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--quick");
    let n = env_number("MCP_STDIO_REQUESTS", if full { 20_000 } else { 500 });
    let rounds = env_number("MCP_STDIO_ROUNDS", if full { 9 } else { 1 }).max(1);
    let m = env_number("MCP_STDIO_SEQUENTIAL", if full { 1_000 } else { 100 });
    let flavour =
        if std::env::var("MCP_STDIO_RUNTIME").as_deref() == Ok("multi") { "multi-thread" } else { "current-thread" };
    println!(
        "MCP stdio, one session per server and workload, {flavour} runtime, protocol {}: {n} pipelined tools/call, then {m} one at a time; {rounds} round(s)\n",
        if stateless() { "2026-07-28" } else { "2025-11-25" }
    );

    let lines: Vec<Arc<[u8]>> = WORKLOADS.iter().map(|w| requests(w, n)).collect();
    // [workload][server]: calls per second and CPU µs per call, one per round.
    let mut rates = vec![vec![Vec::new(); SERVERS.len()]; WORKLOADS.len()];
    let mut cpu = vec![vec![Vec::new(); SERVERS.len()]; WORKLOADS.len()];
    // [workload][server]: p50 and p99 latency (µs), peak RSS (KiB), threads, one per round.
    let mut p50 = vec![vec![Vec::new(); SERVERS.len()]; WORKLOADS.len()];
    let mut p99 = vec![vec![Vec::new(); SERVERS.len()]; WORKLOADS.len()];
    let mut rss = vec![vec![Vec::new(); SERVERS.len()]; WORKLOADS.len()];
    let mut threads = vec![vec![Vec::new(); SERVERS.len()]; WORKLOADS.len()];
    // [workload][pair]: within-round ratios, of calls per second and of CPU per call.
    let mut ratios = vec![vec![Vec::new(); PAIRS.len()]; WORKLOADS.len()];
    let mut cpu_ratios = vec![vec![Vec::new(); PAIRS.len()]; WORKLOADS.len()];
    let mut p50_ratios = vec![vec![Vec::new(); PAIRS.len()]; WORKLOADS.len()];
    let mut first: Vec<Vec<Option<Session>>> =
        WORKLOADS.iter().map(|_| SERVERS.iter().map(|_| None).collect()).collect();
    for round in 0..rounds {
        for (w, workload) in WORKLOADS.iter().enumerate() {
            let mut rate = [0.0; SERVERS.len()];
            let mut cpu_per_call = [None; SERVERS.len()];
            let mut p50_of = [0.0; SERVERS.len()];
            // Every server once, in an order rotated each round.
            for k in 0..SERVERS.len() {
                let s = (k + round + w) % SERVERS.len();
                let measured = session(SERVERS[s], workload, &lines[w], n, m)?;
                check(workload, SERVERS[s], &measured, n)?;
                rate[s] = measured.calls_per_second;
                cpu_per_call[s] = measured.cpu_us_per_call;
                p50_of[s] = measured.p50_us;
                rates[w][s].push(measured.calls_per_second);
                cpu[w][s].extend(measured.cpu_us_per_call);
                p50[w][s].push(measured.p50_us);
                p99[w][s].push(measured.p99_us);
                #[allow(clippy::cast_precision_loss)]
                rss[w][s].extend(measured.peak_rss_kib.map(|k| k as f64 / 1024.0));
                #[allow(clippy::cast_precision_loss)]
                threads[w][s].extend(measured.threads.map(|t| t as f64));
                first[w][s].get_or_insert(measured);
            }
            for (p, (a, b)) in PAIRS.iter().enumerate() {
                let (a, b) = (index(a), index(b));
                ratios[w][p].push(rate[a] / rate[b]);
                if let (Some(ca), Some(cb)) = (cpu_per_call[a], cpu_per_call[b])
                    && ca > 0.0
                    && cb > 0.0
                {
                    cpu_ratios[w][p].push(ca / cb);
                }
                if p50_of[b] > 0.0 {
                    p50_ratios[w][p].push(p50_of[a] / p50_of[b]);
                }
            }
        }
    }

    for (w, workload) in WORKLOADS.iter().enumerate() {
        println!("## {} calls\n", workload.name);
        println!(
            "| server | calls/s, median | min | max | server CPU µs per call, median | p50 µs | p99 µs | peak RSS MiB, median (max) | threads | replies: ok / isError / JSON-RPC error |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|");
        for (s, server) in SERVERS.iter().enumerate() {
            let (min, max) = spread(&rates[w][s]);
            let m = median(&mut rates[w][s]);
            let or_dash = |values: &mut Vec<f64>, digits: usize| {
                if values.is_empty() { "-".to_owned() } else { format!("{:.digits$}", median(values)) }
            };
            let c = or_dash(&mut cpu[w][s], 1);
            let (l50, l99) = (or_dash(&mut p50[w][s], 0), or_dash(&mut p99[w][s], 0));
            let r = match or_dash(&mut rss[w][s], 1) {
                dash if rss[w][s].is_empty() => dash,
                r => format!("{r} ({:.1})", spread(&rss[w][s]).1),
            };
            let t = or_dash(&mut threads[w][s], 0);
            let f = first[w][s].as_ref().expect("measured");
            println!(
                "| {server} | {m:.0} | {min:.0} | {max:.0} | {c} | {l50} | {l99} | {r} | {t} | {} / {} / {} |",
                f.ok, f.tool_errors, f.rpc_errors
            );
        }
        println!();
        for (p, (a, b)) in PAIRS.iter().enumerate() {
            let (min, max) = spread(&ratios[w][p]);
            let m = median(&mut ratios[w][p]);
            print!("{a} / {b}: calls/s {m:.2}x (rounds {min:.2}x to {max:.2}x)");
            if cpu_ratios[w][p].is_empty() {
                println!();
            } else {
                println!(
                    ", server CPU per call {:.2}x, p50 latency {:.2}x (envelope's over rmcp's)",
                    median(&mut cpu_ratios[w][p]),
                    median(&mut p50_ratios[w][p])
                );
            }
        }
        println!();
        if workload.name == "refused" {
            for server in ["envelope", "rmcp"] {
                let f = first[w][index(server)].as_ref().expect("measured");
                for (kind, sample) in workload.kinds.iter().zip(&f.samples) {
                    let sample = sample.as_deref().unwrap_or("(none)");
                    println!("{server}, {kind} ({} bytes):\n{sample}\n", sample.len());
                }
            }
        }
    }
    Ok(())
}

fn index(server: &str) -> usize {
    SERVERS.iter().position(|s| *s == server).expect("a server of SERVERS")
}

/// Every valid call answered with a result that is not an error; every refused one refused.
fn check(workload: &Workload, server: &str, s: &Session, n: usize) -> io::Result<()> {
    let right = if workload.name == "valid" { s.ok == n } else { s.tool_errors + s.rpc_errors == n };
    if right {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "{server}, {} calls: {} ok, {} isError, {} JSON-RPC errors of {n}",
            workload.name, s.ok, s.tool_errors, s.rpc_errors
        )))
    }
}
