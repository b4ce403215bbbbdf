//! How fast envelope reads arguments, against plain serde measured in the same run.
//!
//! ```sh
//! cargo bench -j2 -p envelope-bench --bench reading            # every group, then the ratios
//! cargo bench -j2 -p envelope-bench --bench reading -- enum    # one group (criterion's name filter)
//! ```
//!
//! Three groups:
//! - `success`: a tool with the rules of `get_top_queries` (`u32` in 1..=720, a `String` among 3
//!   choices, `u32` in 1..=100 defaulting to 10) whose body only consumes its arguments and returns
//!   `()` (the envelope is `ok` with `null` data), called with a prepared `serde_json::Value`;
//!   against `#[derive(Deserialize)]` from `&Value` plus the same checks written by hand. The
//!   pieces too: the reader alone (the code `#[tool]` expands to, without `Tool::call`), the
//!   unknown-name scan, one integer, one string, the three map look-ups (and one ranged `f64`);
//!   and the same call in a toolbox of 64 tools, the called one registered last (the 63 others'
//!   names of another length than its, so comparing names costs the least it can).
//! - `enum`: a `#[derive(Choice)]` enum parameter against an unvalidated `String`, same JSON.
//! - `failure`: the refusal of `{"hours_back": 0, "group_by": "databse"}` (two problems).
//!
//! Futures are polled once with `std::task::Waker::noop()`: a sync tool's call is ready on the
//! first poll, so no executor is timed (`success/toolbox_call_tokio` shows what a current-thread
//! tokio `block_on` adds).
//!
//! Each bench's time is the median, over criterion's samples, of the time per call; the ratios
//! at the end divide two of those medians from this one run.
//!
//! For callgrind, one bench can run as a plain loop without criterion:
//! `READING_LOOP=success/tool_call READING_ITERS=100000 valgrind --tool=callgrind <bench binary>`.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use criterion::Criterion;
use envelope_core::__private010::{Args, Input, Map};
use envelope_core::outcome::Outcome;
use envelope_core::spec::{Bound, Num, Range, Rules, ToolSpec};
use envelope_core::{Envelope, FromArg, Reading, Status, Tool, Toolbox, read::ArgPath, tool};
use serde::Deserialize;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// The tools.

/// The rules of `get_top_queries`, with a body that only consumes the arguments.
#[tool(read_only, idempotent)]
fn top_queries(
    /// How far back to look, in hours.
    #[validate(range = 1..=720)]
    hours_back: u32,
    /// What to group the statistics by.
    #[validate(choices = ["query_hash", "database", "application"])]
    group_by: String,
    /// How many rows to return.
    #[validate(range = 1..=100, default = 10)]
    top: u32,
) {
    black_box((hours_back, group_by, top));
}

/// What to group by, as a `Choice` enum.
#[derive(envelope_core::Choice, Clone, Copy, Debug, Deserialize)]
#[choice(rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
enum GroupBy {
    QueryHash,
    Database,
    Application,
}

/// One `Choice` enum parameter.
#[tool]
fn by_enum(
    /// What to group by.
    group_by: GroupBy,
) {
    black_box(group_by);
}

/// One `String` parameter, no rules.
#[tool]
fn by_string(
    /// What to group by.
    group_by: String,
) {
    black_box(group_by);
}

// ---------------------------------------------------------------------------------------------
// The baseline: plain serde from `&Value`, plus the same checks written by hand.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)] // envelope refuses unknown names too
struct TopQueries {
    hours_back: u32,
    group_by: String,
    #[serde(default = "ten")]
    top: u32,
}

fn ten() -> u32 {
    10
}

const GROUP_BY: [&str; 3] = ["query_hash", "database", "application"];

fn serde_checked(v: &Value) -> Result<TopQueries, &'static str> {
    let p = TopQueries::deserialize(v).map_err(|_| "does not deserialize")?;
    if !(1..=720).contains(&p.hours_back) {
        return Err("hours_back out of range");
    }
    if !GROUP_BY.contains(&p.group_by.as_str()) {
        return Err("group_by not a choice");
    }
    if !(1..=100).contains(&p.top) {
        return Err("top out of range");
    }
    Ok(p)
}

/// The floor from text: serde_json into plain fields, no checks.
#[derive(Deserialize)]
#[allow(dead_code)]
struct TopQueriesPlain {
    hours_back: u32,
    group_by: String,
    top: Option<u32>,
}

/// The limit from text: serde + a Rust enum + the range checks as plain `if`s.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct TopQueriesTyped {
    hours_back: u32,
    group_by: GroupBy,
    #[serde(default = "ten")]
    top: u32,
}

fn serde_limit(text: &str) -> Result<TopQueriesTyped, &'static str> {
    let p: TopQueriesTyped = serde_json::from_str(text).map_err(|_| "does not deserialize")?;
    if !(1..=720).contains(&p.hours_back) || !(1..=100).contains(&p.top) {
        return Err("out of range");
    }
    Ok(p)
}

// ---------------------------------------------------------------------------------------------
// Allocations, counted by the bench crate's allocator.

#[global_allocator]
static GLOBAL: envelope_bench::Counting = envelope_bench::Counting;

/// Allocations and reallocations made by one call of `f` (its result dropped outside).
fn allocations<R>(f: impl FnOnce() -> R) -> (u64, R) {
    let (allocs, reallocs, out) = envelope_bench::allocations(f);
    (allocs + reallocs, out)
}

#[derive(Deserialize)]
struct OneString {
    #[allow(dead_code)]
    group_by: String,
}

#[derive(Deserialize)]
struct OneEnum {
    #[allow(dead_code)]
    group_by: GroupBy,
}

// ---------------------------------------------------------------------------------------------
// Our reader alone: exactly what `#[tool]` expands to for `top_queries`, without `Tool::call`
// (no `catch_unwind`, no envelope).

fn reader(tool: &Tool, obj: &Map<String, Value>) -> Option<(u32, String, u32)> {
    let mut args = Args::new(tool.spec(), Input::object(Some(obj)));
    let a = args.take::<u32>(0);
    let b = args.take::<String>(1);
    let c = args.take_or::<u32>(2, || 10);
    let (Some(a), Some(b), Some(c)) = (a, b, c) else {
        return None;
    };
    if args.unknown().is_some() {
        return None;
    }
    Some((a, b, c))
}

/// Polls a future once with a no-op waker: a sync tool's call is ready at once.
fn ready<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(x) => x,
        Poll::Pending => panic!("a sync tool's call should be ready on the first poll"),
    }
}

// ---------------------------------------------------------------------------------------------
// Running: criterion, or a plain loop for callgrind.

const SAMPLES: usize = 20;

struct Runner {
    /// `READING_LOOP`: run only this bench, as a plain loop of `iters` calls.
    only: Option<(String, u64)>,
    c: Criterion,
    /// Median ns per call, by `group/name`.
    results: Vec<(String, f64)>,
}

impl Runner {
    fn bench<R>(&mut self, group: &str, name: &str, mut f: impl FnMut() -> R) {
        let id = format!("{group}/{name}");
        if let Some((only, iters)) = &self.only {
            if *only == id {
                let t = Instant::now();
                for _ in 0..*iters {
                    black_box(f());
                }
                let ns = t.elapsed().as_nanos() as f64 / *iters as f64;
                eprintln!("{id}: {iters} calls, {ns:.1} ns per call (plain loop)");
            }
            return;
        }
        // Every call of the routine, warm-up included; the samples are the last `SAMPLES`.
        let mut runs: Vec<(u64, Duration)> = Vec::new();
        let mut g = self.c.benchmark_group(group);
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    black_box(f());
                }
                let d = t.elapsed();
                runs.push((iters, d));
                d
            });
        });
        g.finish();
        // Fewer runs than samples: filtered out, or `--test` (one call each).
        if runs.len() >= SAMPLES {
            let mut per: Vec<f64> =
                runs[runs.len() - SAMPLES..].iter().map(|(n, d)| d.as_nanos() as f64 / *n as f64).collect();
            per.sort_by(f64::total_cmp);
            let median = (per[SAMPLES / 2 - 1] + per[SAMPLES / 2]) / 2.0;
            self.results.push((id, median));
        }
    }

    fn ns(&self, id: &str) -> Option<f64> {
        self.results.iter().find(|(i, _)| i == id).map(|(_, ns)| *ns)
    }

    fn summary(&self) {
        if self.results.is_empty() {
            return;
        }
        println!("\n== reading: median ns per call (this run) ==");
        for (id, ns) in &self.results {
            println!("{id:<36} {ns:>9.1} ns");
        }
        println!("\n== ratios (this run) ==");
        let ratios: &[(&str, &str, &str)] = &[
            ("success/tool_call", "success/serde_checked", "Tool::call / serde + hand checks"),
            ("success/toolbox_call", "success/serde_checked", "Toolbox::call / serde + hand checks"),
            ("success/reader", "success/serde_checked", "reader alone / serde + hand checks"),
            ("success/serde_checked", "success/serde_only", "serde + hand checks / serde alone"),
            ("success/toolbox_call_tokio", "success/toolbox_call", "tokio block_on / noop poll"),
            ("success/toolbox_call_of_64", "success/toolbox_call", "Toolbox::call, 64 tools / 3"),
            ("enum/enum_from_arg", "enum/string_from_arg", "Choice enum / String, from_arg"),
            ("enum/enum_tool_call", "enum/string_tool_call", "Choice enum / String, Tool::call"),
            ("enum/serde_enum", "enum/serde_string", "enum / String, plain serde"),
            ("failure/toolbox_call", "success/toolbox_call", "refusal (2 problems) / success"),
            ("text/call_json_policy", "text/call_json", "call_json under a policy / without"),
            ("text/call_json", "text/serde_limit", "Toolbox::call_json / serde limit, &str"),
            ("text/serde_limit", "text/serde_floor", "serde limit / serde floor, &str"),
            ("text/refusal", "text/serde_floor", "refusal from &str / serde floor"),
        ];
        for (a, b, what) in ratios {
            if let (Some(x), Some(y)) = (self.ns(a), self.ns(b)) {
                println!("{what:<40} {:>6.2}x   ({x:.1} / {y:.1} ns)", x / y);
            }
        }
    }
}

fn main() {
    let only = std::env::var("READING_LOOP").ok().map(|id| {
        let iters = std::env::var("READING_ITERS").ok().and_then(|n| n.parse().ok()).unwrap_or(100_000);
        (id, iters)
    });
    let c = Criterion::default()
        .sample_size(SAMPLES)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .nresamples(10_000)
        .without_plots();
    let c = if only.is_some() { c } else { c.configure_from_args() };
    let mut r = Runner { only, c, results: Vec::new() };

    let toolbox = Toolbox::new().with(top_queries::tool()).with(by_enum::tool()).with(by_string::tool());
    let top = toolbox.get("top_queries").expect("registered");
    let spec = top.spec();

    // --- success --------------------------------------------------------------------------
    let good = json!({"hours_back": 24, "group_by": "database", "top": 5});
    let Value::Object(good_obj) = &good else { unreachable!() };
    // Each path agrees on the input before it is timed.
    assert!(serde_checked(&good).is_ok());
    assert_eq!(reader(top, good_obj), Some((24, "database".to_owned(), 5)));
    let env = ready(top.call(Some(&good)));
    assert_eq!(env.to_json(), r#"{"status":"ok","success":true,"data":null}"#);

    r.bench("success", "serde_only", || TopQueries::deserialize(black_box(&good)).is_ok());
    r.bench("success", "serde_checked", || serde_checked(black_box(&good)).is_ok());
    r.bench("success", "reader", || reader(top, black_box(good_obj)));
    r.bench("success", "tool_call", || ready(top.call(Some(black_box(&good)))));
    r.bench("success", "toolbox_call", || ready(toolbox.call("top_queries", Some(black_box(&good)))));
    let many = (0..63)
        .fold(Toolbox::new(), |t, i| {
            let name: &'static str = Box::leak(format!("other_{i:02}").into_boxed_str());
            let spec = ToolSpec::new(name, "Another tool.", Vec::new(), Vec::new());
            t.with(Tool::__new(spec, |_, _| Outcome::Ready(Envelope::ok(Value::Null))))
        })
        .with(top_queries::tool());
    assert_eq!(ready(many.call("top_queries", Some(&good))).expect("a tool").status(), Status::Ok);
    r.bench("success", "toolbox_call_of_64", || ready(many.call("top_queries", Some(black_box(&good)))));
    let rt = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
    r.bench("success", "toolbox_call_tokio", || rt.block_on(toolbox.call("top_queries", Some(black_box(&good)))));
    // The reader's pieces.
    r.bench("success", "args_new", || Args::new(spec, Input::object(Some(black_box(good_obj)))).unknown().is_none());
    r.bench("success", "map_get_x3", || {
        let o = black_box(good_obj);
        (o.get("hours_back").is_some(), o.get("group_by").is_some(), o.get("top").is_some())
    });
    let hours = json!(24);
    let cx0 = Reading::new(&spec.params[0].rules, false, ArgPath::Param("hours_back"));
    r.bench("success", "read_u32_range", || u32::from_arg(black_box(&hours), &cx0).is_ok());
    let database = json!("database");
    let cx1 = Reading::new(&spec.params[1].rules, false, ArgPath::Param("group_by"));
    r.bench("success", "read_string_choices", || String::from_arg(black_box(&database), &cx1).is_ok());
    // Not in `top_queries`: an f64 with a range (`set_threshold`'s `ratio`), for comparison.
    let ratio_rules =
        Rules::NONE.with_range(Range::new(Bound::Inclusive(Num::Float(0.0)), Bound::Exclusive(Num::Float(1.0))));
    let ratio = json!(0.25);
    let cx_f = Reading::new(&ratio_rules, false, ArgPath::Param("ratio"));
    r.bench("success", "read_f64_range", || f64::from_arg(black_box(&ratio), &cx_f).is_ok());

    // --- enum vs String ---------------------------------------------------------------------
    let one = json!({"group_by": "database"});
    let by_e = toolbox.get("by_enum").expect("registered");
    let by_s = toolbox.get("by_string").expect("registered");
    assert_eq!(ready(by_e.call(Some(&one))).status(), Status::Ok);
    assert_eq!(ready(by_s.call(Some(&one))).status(), Status::Ok);
    let cx_e = Reading::new(&by_e.spec().params[0].rules, false, ArgPath::Param("group_by"));
    let cx_s = Reading::new(&by_s.spec().params[0].rules, false, ArgPath::Param("group_by"));
    r.bench("enum", "enum_from_arg", || GroupBy::from_arg(black_box(&database), &cx_e).is_ok());
    r.bench("enum", "string_from_arg", || String::from_arg(black_box(&database), &cx_s).is_ok());
    r.bench("enum", "enum_tool_call", || ready(by_e.call(Some(black_box(&one)))));
    r.bench("enum", "string_tool_call", || ready(by_s.call(Some(black_box(&one)))));
    r.bench("enum", "serde_enum", || OneEnum::deserialize(black_box(&one)).is_ok());
    r.bench("enum", "serde_string", || OneString::deserialize(black_box(&one)).is_ok());

    // --- failure ----------------------------------------------------------------------------
    let bad = json!({"hours_back": 0, "group_by": "databse"});
    let refused: Envelope = ready(toolbox.call("top_queries", Some(&bad))).expect("a tool");
    assert_eq!(refused.status(), Status::Invalid);
    assert!(refused.message().is_some_and(|m| m.contains("Did you mean \"database\"?")));
    r.bench("failure", "toolbox_call", || ready(toolbox.call("top_queries", Some(black_box(&bad)))));
    r.bench("failure", "to_json", || black_box(&refused).to_json());

    // --- from text ---------------------------------------------------------------------------
    let good_text = r#"{"hours_back": 24, "group_by": "database", "top": 5}"#;
    let bad_text = r#"{"hours_back": 0, "group_by": "databse"}"#;
    assert!(serde_limit(good_text).is_ok());
    let ok = ready(toolbox.call_json("top_queries", good_text)).expect("a tool");
    assert_eq!(ok.status(), Status::Ok);
    r.bench("text", "serde_floor", || serde_json::from_str::<TopQueriesPlain>(black_box(good_text)).is_ok());
    r.bench("text", "serde_limit", || serde_limit(black_box(good_text)).is_ok());
    r.bench("text", "call_json", || ready(toolbox.call_json("top_queries", black_box(good_text))));
    r.bench("text", "refusal", || ready(toolbox.call_json("top_queries", black_box(bad_text))).map(|e| e.to_json()));
    // Under a policy that allows at once: the arguments object is built for it, and it is asked.
    let governed = toolbox.clone().with_policy(
        |_: &envelope_core::call::policy::PolicyRequest<'_>| -> Result<envelope_core::call::policy::Verdict, envelope_core::call::policy::PolicyError> {
            Ok(envelope_core::call::policy::Verdict::Allow)
        },
    );
    assert_eq!(ready(governed.call_json("top_queries", good_text)).expect("a tool").status(), Status::Ok);
    r.bench("text", "call_json_policy", || ready(governed.call_json("top_queries", black_box(good_text))));
    let (floor, _) = allocations(|| serde_json::from_str::<TopQueriesPlain>(good_text));
    let (limit, _) = allocations(|| serde_limit(good_text));
    let (ours, _) = allocations(|| ready(toolbox.call_json("top_queries", good_text)));
    let (refusal, _) = allocations(|| ready(toolbox.call_json("top_queries", bad_text)).map(|e| e.to_json()));
    println!(
        "allocations per call: serde floor {floor}, serde limit {limit}, call_json {ours}, refusal to text {refusal}"
    );

    if r.only.is_none() {
        r.c.final_summary();
        r.summary();
        if !r.results.is_empty() {
            // Moved on every call (the envelope several times): their size is part of the cost.
            let fut = top.call(None);
            println!(
                "sizes: Envelope {} B, Tool::call future {} B",
                std::mem::size_of::<Envelope>(),
                std::mem::size_of_val(&fut)
            );
        }
    }
}
