//! Runs the fuzzer: `cargo run --release -p envelope-fuzz -- [ITERATIONS] [SEED]`
//! (defaults: 1,000,000 inputs, seed 1). Prints what it fed and what came back; exits 1 on the
//! first broken promise, with the input that broke it.

fn main() {
    let mut args = std::env::args().skip(1);
    let iterations = args.next().and_then(|n| n.replace('_', "").parse().ok()).unwrap_or(1_000_000);
    let seed = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    let started = std::time::Instant::now();
    match envelope_fuzz::run(iterations, seed) {
        Ok(report) => {
            let secs = started.elapsed().as_secs_f64();
            println!("{report}");
            #[allow(clippy::cast_precision_loss)]
            let rate = report.inputs as f64 / secs;
            println!("{secs:.1} s, {rate:.0} inputs/s");
        }
        Err(failure) => {
            eprintln!("{failure}");
            std::process::exit(1);
        }
    }
}
