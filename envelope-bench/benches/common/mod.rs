//! What the end-to-end HTTP benches (`mcp_http.rs`, `plain_http.rs`) share: the tool every
//! server serves, the server child process, the load client (HTTP/1.1 keep-alive connections on
//! loopback, raw sockets, one thread each), and the figures read from `/proc`.
#![allow(dead_code)]

use std::hint::black_box;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde::Serialize;

// ---------------------------------------------------------------------------------------------
// The tool body's answer, the same for every server (as in `mcp_stdio.rs`).

/// One row of the answer.
#[derive(Serialize, schemars::JsonSchema)]
pub struct Row {
    key: &'static str,
    calls: u64,
    total_ms: u64,
}

/// The answer: `{"rows": [{"key", "calls", "total_ms"}, ...]}`.
#[derive(Serialize, schemars::JsonSchema)]
pub struct TopQueries {
    rows: Vec<Row>,
}

pub fn answer() -> TopQueries {
    TopQueries {
        rows: vec![
            Row { key: "orders", calls: 1290, total_ms: 145_000 },
            Row { key: "users", calls: 5400, total_ms: 27_000 },
        ],
    }
}

pub mod envelope_sync {
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

pub mod envelope_async {
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

/// The serde side of the references: `group_by` a Rust enum, `top` defaulting to 10.
pub mod reference_args {
    use serde::Deserialize;

    fn ten() -> u32 {
        10
    }

    /// What to group the statistics by.
    #[derive(Debug, Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum GroupBy {
        QueryHash,
        Database,
        Application,
    }

    /// The arguments of `get_top_queries`.
    #[derive(Debug, Deserialize, schemars::JsonSchema)]
    pub struct TopQueriesArgs {
        /// How far back to look, in hours.
        #[schemars(range(min = 1, max = 720))]
        pub hours_back: u32,
        /// What to group the statistics by.
        pub group_by: GroupBy,
        /// How many rows to return.
        #[schemars(range(min = 1, max = 100))]
        #[serde(default = "ten")]
        pub top: u32,
    }

    impl TopQueriesArgs {
        /// The two range checks, as plain `if`s.
        pub fn check(&self) -> Result<(), String> {
            if !(1..=720).contains(&self.hours_back) {
                return Err(format!("hours_back must be between 1 and 720, got {}", self.hours_back));
            }
            if !(1..=100).contains(&self.top) {
                return Err(format!("top must be between 1 and 100, got {}", self.top));
            }
            Ok(())
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The server side: `--serve <server>` in the child.

/// The runtime a server runs on: `<var>=multi` a multi-thread one (a worker per core), else a
/// current-thread one.
pub fn runtime(var: &str) -> io::Result<tokio::runtime::Runtime> {
    match std::env::var(var).as_deref() {
        Ok("multi") => tokio::runtime::Builder::new_multi_thread().enable_all().build(),
        _ => tokio::runtime::Builder::new_current_thread().enable_all().build(),
    }
}

/// Binds a loopback port, writes it as the first line of stdout, and exits the process when
/// stdin closes (the parent's way of ending a session).
pub async fn listen() -> io::Result<tokio::net::TcpListener> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("{}", listener.local_addr()?.port());
    io::stdout().flush()?;
    std::thread::spawn(|| {
        let mut sink = Vec::new();
        let _ = io::stdin().read_to_end(&mut sink);
        std::process::exit(0);
    });
    Ok(listener)
}

// ---------------------------------------------------------------------------------------------
// The client side.

/// A server child process, killed when dropped.
pub struct Server {
    child: Child,
    pub port: u16,
}

impl Server {
    /// Starts this binary with `--serve <name>` and reads the port it listens on.
    pub fn start(name: &str) -> io::Result<Server> {
        let mut child = Command::new(std::env::current_exe()?)
            .args(["--serve", name])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout")).read_line(&mut line)?;
        let port = line.trim().parse().map_err(|_| io::Error::other(format!("{name}: no port on stdout: {line:?}")))?;
        Ok(Server { child, port })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes its stdin and waits for it to exit.
    pub fn stop(mut self) -> io::Result<()> {
        drop(self.child.stdin.take());
        let status = self.child.wait()?;
        if status.success() { Ok(()) } else { Err(io::Error::other(format!("server exited with {status}"))) }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.child.stdin.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// How a reply is counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// Answered with a result.
    Ok,
    /// Refused: a tool error (`isError: true`), or an HTTP 4xx on the plain endpoints.
    Refused,
    /// A JSON-RPC `error` (over MCP).
    RpcError,
}

/// What one load measured.
pub struct Load {
    pub calls_per_second: f64,
    /// The server's CPU time per call, in microseconds (`None` without `/proc`).
    pub cpu_us_per_call: Option<f64>,
    /// Latency percentiles over every measured call, in microseconds.
    pub p50_us: f64,
    pub p99_us: f64,
    /// The server's peak resident set (`VmHWM`), in KiB, and its thread count at the end.
    pub peak_rss_kib: Option<u64>,
    pub threads: Option<u64>,
    pub ok: usize,
    pub refused: usize,
    pub rpc_errors: usize,
    /// The first reply to each of the three requests: status and body.
    pub samples: [Option<(u16, String)>; 3],
}

/// Sends `n` requests over `connections` keep-alive connections to `port`, each request one of
/// `requests` (complete HTTP/1.1 requests, sent in turn), each connection waiting for a reply
/// before its next request. Each connection first sends `warmup` requests, outside the clock.
/// `classify` reads a reply's status and body.
pub fn load(
    server: &Server,
    requests: &Arc<[Vec<u8>; 3]>,
    connections: usize,
    n: usize,
    warmup: usize,
    classify: fn(u16, &[u8]) -> Option<Kind>,
) -> io::Result<Load> {
    let issued = Arc::new(AtomicUsize::new(0));
    let ready = Arc::new(Barrier::new(connections + 1));
    let go = Arc::new(Barrier::new(connections + 1));
    let mut threads = Vec::with_capacity(connections);
    for c in 0..connections {
        let (issued, ready, go, requests) = (issued.clone(), ready.clone(), go.clone(), requests.clone());
        let port = server.port;
        threads.push(std::thread::spawn(move || -> io::Result<Counted> {
            let mut conn = Connection::open(port)?;
            let mut out = Connection::default_out();
            let warmed = (0..warmup).try_for_each(|i| conn.call(&requests[(i + c) % 3]).map(drop));
            ready.wait();
            warmed?;
            go.wait();
            loop {
                let i = issued.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let started = Instant::now();
                let (status, body) = conn.call(&requests[i % 3])?;
                out.latencies.push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
                match classify(status, body) {
                    Some(Kind::Ok) => out.ok += 1,
                    Some(Kind::Refused) => out.refused += 1,
                    Some(Kind::RpcError) => out.rpc_errors += 1,
                    None => {
                        return Err(io::Error::other(format!(
                            "not a reply: {status} {}",
                            String::from_utf8_lossy(body)
                        )));
                    }
                }
                if i < 3 {
                    out.samples[i] = Some((status, String::from_utf8_lossy(body).into_owned()));
                }
            }
            Ok(out)
        }));
    }
    ready.wait();
    let cpu_start = cpu_ticks(server.pid());
    let start = Instant::now();
    go.wait();
    let mut total = Connection::default_out();
    let mut failed = None;
    for thread in threads {
        match thread.join().map_err(|_| io::Error::other("a client thread panicked"))? {
            Ok(out) => {
                total.latencies.extend(out.latencies);
                total.ok += out.ok;
                total.refused += out.refused;
                total.rpc_errors += out.rpc_errors;
                for (mine, theirs) in total.samples.iter_mut().zip(out.samples) {
                    if mine.is_none() {
                        *mine = theirs;
                    }
                }
            }
            Err(e) => failed = Some(e),
        }
    }
    let elapsed = start.elapsed();
    let cpu = cpu_start.zip(cpu_ticks(server.pid())).map(|(a, b)| b.saturating_sub(a));
    if let Some(e) = failed {
        return Err(e);
    }
    let (peak_rss_kib, threads) = status_fields(server.pid());
    total.latencies.sort_unstable();
    #[allow(clippy::cast_precision_loss)]
    let calls_per_second = n as f64 / elapsed.as_secs_f64();
    // 100 ticks a second (Linux's USER_HZ).
    #[allow(clippy::cast_precision_loss)]
    let cpu_us_per_call = cpu.map(|ticks| ticks as f64 * 10_000.0 / n as f64);
    Ok(Load {
        calls_per_second,
        cpu_us_per_call,
        p50_us: percentile(&total.latencies, 0.50),
        p99_us: percentile(&total.latencies, 0.99),
        peak_rss_kib,
        threads,
        ok: total.ok,
        refused: total.refused,
        rpc_errors: total.rpc_errors,
        samples: total.samples,
    })
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    f64::from(sorted[at])
}

/// What one connection counted.
struct Connection {
    stream: TcpStream,
    buffer: Vec<u8>,
}

struct Counted {
    latencies: Vec<u32>,
    ok: usize,
    refused: usize,
    rpc_errors: usize,
    samples: [Option<(u16, String)>; 3],
}

impl Connection {
    fn open(port: u16) -> io::Result<Connection> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(Connection { stream, buffer: Vec::with_capacity(8192) })
    }

    fn default_out() -> Counted {
        Counted { latencies: Vec::new(), ok: 0, refused: 0, rpc_errors: 0, samples: [None, None, None] }
    }

    /// Writes one request and reads its response: status and body (`Content-Length` or chunked).
    fn call(&mut self, request: &[u8]) -> io::Result<(u16, &[u8])> {
        self.stream.write_all(request)?;
        self.buffer.clear();
        let head_end = loop {
            if let Some(at) = find(&self.buffer, b"\r\n\r\n") {
                break at + 4;
            }
            self.fill()?;
        };
        let head = std::str::from_utf8(&self.buffer[..head_end]).map_err(io::Error::other)?;
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| io::Error::other(format!("no status line: {head}")))?;
        let mut length = None;
        let mut chunked = false;
        for line in head.split("\r\n").skip(1) {
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse::<usize>().ok();
                } else if name.eq_ignore_ascii_case("transfer-encoding") && value.contains("chunked") {
                    chunked = true;
                }
            }
        }
        if let Some(length) = length {
            while self.buffer.len() < head_end + length {
                self.fill()?;
            }
            return Ok((status, &self.buffer[head_end..head_end + length]));
        }
        if !chunked {
            return Err(io::Error::other(format!("a response with neither length nor chunks: {head}")));
        }
        // Chunked: gather the chunks' data in place after the head.
        let mut body = Vec::new();
        let mut at = head_end;
        loop {
            let line_end = loop {
                if let Some(i) = find(&self.buffer[at..], b"\r\n") {
                    break at + i;
                }
                self.fill()?;
            };
            let size_text = std::str::from_utf8(&self.buffer[at..line_end]).map_err(io::Error::other)?;
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| io::Error::other(format!("a bad chunk size {size_text:?}")))?;
            while self.buffer.len() < line_end + 2 + size + 2 {
                self.fill()?;
            }
            body.extend_from_slice(&self.buffer[line_end + 2..line_end + 2 + size]);
            at = line_end + 2 + size + 2;
            if size == 0 {
                break;
            }
        }
        self.buffer.truncate(head_end);
        self.buffer.extend_from_slice(&body);
        Ok((status, &self.buffer[head_end..]))
    }

    fn fill(&mut self) -> io::Result<()> {
        let mut chunk = [0u8; 16 * 1024];
        let read = self.stream.read(&mut chunk)?;
        if read == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed the connection"));
        }
        self.buffer.extend_from_slice(&chunk[..read]);
        Ok(())
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A complete `POST` request: `path`, the extra header lines (each ending `\r\n`), the body.
pub fn post(port: u16, path: &str, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// User + system time of process `pid`, all its threads, in clock ticks (Linux only).
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which is in parentheses): utime and stime are 12th and 13th.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// `VmHWM` (peak resident set, KiB) and `Threads` of process `pid` (Linux only).
pub fn status_fields(pid: u32) -> (Option<u64>, Option<u64>) {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return (None, None);
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
    };
    (field("VmHWM:"), field("Threads:"))
}

pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 { values[mid] } else { f64::midpoint(values[mid - 1], values[mid]) }
}

pub fn spread(values: &[f64]) -> (f64, f64) {
    values.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)))
}

pub fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.replace('_', "").parse().ok()).unwrap_or(default)
}

/// `cargo bench` passes `--bench`; `cargo test --benches`, or `-- --quick`, runs the quick mode.
pub fn full_mode(args: &[String]) -> bool {
    args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--quick")
}

// ---------------------------------------------------------------------------------------------
// The interleaved rounds and the report.

/// One workload at one connection count.
pub struct Scenario {
    pub name: String,
    pub connections: usize,
    /// The three requests, for a server on `port`.
    pub requests: Box<dyn Fn(u16) -> [Vec<u8>; 3]>,
    /// Every reply must be of this kind (`Refused` also takes `RpcError`).
    pub expect: Kind,
}

/// A bench: its servers, envelope's against the reference each is compared with, its scenarios.
pub struct Bench {
    pub title: String,
    pub servers: &'static [&'static str],
    pub pairs: &'static [(&'static str, &'static str)],
    pub scenarios: Vec<Scenario>,
    pub n: usize,
    pub rounds: usize,
    pub warmup: usize,
    pub classify: fn(u16, &[u8]) -> Option<Kind>,
}

/// Every scenario, every server once a round, in an order rotated each round; the table per
/// scenario, and within-round ratios per pair (median over rounds).
pub fn run(bench: &Bench) -> io::Result<()> {
    let loadavg = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim().to_owned();
    println!(
        "{}: {} calls a session, {} round(s); load average at start: {}\n",
        bench.title,
        bench.n,
        bench.rounds,
        loadavg()
    );
    let (ns, nsc) = (bench.servers.len(), bench.scenarios.len());
    let mut measured: Vec<Vec<Vec<Load>>> = (0..nsc).map(|_| (0..ns).map(|_| Vec::new()).collect()).collect();
    // [scenario][pair][metric]: ratios within a round (calls/s, CPU per call, p50).
    let mut ratios = vec![vec![[Vec::new(), Vec::new(), Vec::new()]; bench.pairs.len()]; nsc];
    for round in 0..bench.rounds {
        for (w, scenario) in bench.scenarios.iter().enumerate() {
            for k in 0..ns {
                let s = (k + round + w) % ns;
                let server = Server::start(bench.servers[s])?;
                let requests = Arc::new((scenario.requests)(server.port));
                let got = load(&server, &requests, scenario.connections, bench.n, bench.warmup, bench.classify)
                    .map_err(|e| io::Error::other(format!("{}, {}: {e}", bench.servers[s], scenario.name)))?;
                server.stop()?;
                let right = match scenario.expect {
                    Kind::Ok => got.ok == bench.n,
                    _ => got.refused + got.rpc_errors == bench.n,
                };
                if !right {
                    return Err(io::Error::other(format!(
                        "{}, {}: {} ok, {} refused, {} JSON-RPC errors of {}; first replies {:?}",
                        bench.servers[s], scenario.name, got.ok, got.refused, got.rpc_errors, bench.n, got.samples
                    )));
                }
                measured[w][s].push(got);
            }
            for (p, (a, b)) in bench.pairs.iter().enumerate() {
                let (a, b) = (index(bench.servers, a), index(bench.servers, b));
                let (la, lb) = (measured[w][a].last().expect("measured"), measured[w][b].last().expect("measured"));
                ratios[w][p][0].push(la.calls_per_second / lb.calls_per_second);
                if let (Some(ca), Some(cb)) = (la.cpu_us_per_call, lb.cpu_us_per_call)
                    && ca > 0.0
                    && cb > 0.0
                {
                    ratios[w][p][1].push(ca / cb);
                }
                if lb.p50_us > 0.0 {
                    ratios[w][p][2].push(la.p50_us / lb.p50_us);
                }
            }
        }
    }
    let mut samples_shown = false;
    for (w, scenario) in bench.scenarios.iter().enumerate() {
        println!("## {}\n", scenario.name);
        println!(
            "| server | calls/s, median | min | max | server CPU µs/call | p50 µs | p99 µs | peak RSS MiB | threads | replies ok / refused / JSON-RPC error |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|");
        for (s, server) in bench.servers.iter().enumerate() {
            let loads = &measured[w][s];
            let pick = |f: &dyn Fn(&Load) -> Option<f64>| {
                let mut v: Vec<f64> = loads.iter().filter_map(f).collect();
                if v.is_empty() { "-".to_owned() } else { format!("{:.1}", median(&mut v)) }
            };
            let mut rates: Vec<f64> = loads.iter().map(|l| l.calls_per_second).collect();
            let (min, max) = spread(&rates);
            #[allow(clippy::cast_precision_loss)]
            let rss = pick(&|l| l.peak_rss_kib.map(|k| k as f64 / 1024.0));
            #[allow(clippy::cast_precision_loss)]
            let threads = loads.iter().filter_map(|l| l.threads).max().map_or("-".to_owned(), |t| t.to_string());
            let f = &loads[0];
            println!(
                "| {server} | {:.0} | {min:.0} | {max:.0} | {} | {} | {} | {rss} | {threads} | {} / {} / {} |",
                median(&mut rates),
                pick(&|l| l.cpu_us_per_call),
                pick(&|l| Some(l.p50_us)),
                pick(&|l| Some(l.p99_us)),
                f.ok,
                f.refused,
                f.rpc_errors
            );
        }
        println!();
        for (p, (a, b)) in bench.pairs.iter().enumerate() {
            let [rate, cpu, p50] = &mut ratios[w][p];
            let (min, max) = spread(rate);
            print!("{a} / {b}: calls/s {:.2}x (rounds {min:.2}x to {max:.2}x)", median(rate));
            if !cpu.is_empty() {
                print!(", server CPU per call {:.2}x", median(cpu));
            }
            println!(", p50 latency {:.2}x", median(p50));
        }
        println!();
        if scenario.expect != Kind::Ok && !samples_shown {
            samples_shown = true;
            for (s, server) in bench.servers.iter().enumerate() {
                for (i, sample) in measured[w][s][0].samples.iter().enumerate() {
                    if let Some((status, body)) = sample {
                        println!("{server}, request {} ({} bytes), HTTP {status}:\n{body}\n", i + 1, body.len());
                    }
                }
            }
        }
    }
    println!("load average at the end: {}", loadavg());
    Ok(())
}

fn index(servers: &[&str], server: &str) -> usize {
    servers.iter().position(|s| *s == server).expect("a server of the bench")
}
