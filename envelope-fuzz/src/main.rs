//! Runs the fuzzer: `cargo run --release -p envelope-fuzz -- [ITERATIONS] [SEED]` feeds
//! arguments to `Toolbox::call_json` (defaults: 1,000,000 inputs, seed 1);
//! `cargo run --release -p envelope-fuzz -- mcp [LINES] [SEED]` feeds JSON-RPC lines to the MCP
//! stdio server (defaults: 1,000,000 lines, seed 1);
//! `cargo run --release -p envelope-fuzz -- http [REQUESTS] [SEED]` sends HTTP requests to the
//! example tools over loopback (defaults: 1,000,000 requests, seed 1). Prints what it fed and what came back;
//! exits 1 on the first broken promise, with the input that broke it.

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let surface = args.next_if(|a| a == "mcp" || a == "http");
    let iterations = args.next().and_then(|n| n.replace('_', "").parse().ok()).unwrap_or(1_000_000);
    let seed = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    let started = std::time::Instant::now();
    let (report, count) = if surface.as_deref() == Some("mcp") {
        match envelope_fuzz::run_mcp(iterations, seed) {
            Ok(report) => (report.to_string(), report.lines),
            Err(failure) => {
                eprintln!("seed {seed}: {failure}");
                std::process::exit(1);
            }
        }
    } else if surface.is_some() {
        match envelope_fuzz::run_http(iterations, seed) {
            Ok(report) => (report.to_string(), report.requests),
            Err(failure) => {
                eprintln!("seed {seed}: {failure}");
                std::process::exit(1);
            }
        }
    } else {
        match envelope_fuzz::run(iterations, seed) {
            Ok(report) => (report.to_string(), report.inputs),
            Err(failure) => {
                eprintln!("seed {seed}: {failure}");
                std::process::exit(1);
            }
        }
    };
    let secs = started.elapsed().as_secs_f64();
    println!("seed {seed}");
    println!("{report}");
    #[allow(clippy::cast_precision_loss)]
    let rate = count as f64 / secs;
    println!("{secs:.1} s, {rate:.0} per second");
}
