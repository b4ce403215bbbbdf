//! Run time of envelope's argument reading beside plain serde, validator and garde, interleaved
//! in one process, with the allocations of every call.
//!
//! ```sh
//! cargo bench -j2 -p envelope-bench --bench compare               # 2 runs x 400 rounds (release)
//! cargo bench -j2 -p envelope-bench --bench compare -- --quick    # 1 run x 5 rounds
//! python3 scripts/runtime_chart.py                                # the chart, from compare.json
//! ```
//!
//! Under `cargo test` (no `--bench` argument), or with `COMPARE_QUICK=1`, it runs the quick mode:
//! every path is checked and timed a few times, so the bench cannot rot in CI.
//!
//! Variants (each reads the same JSON into its own types):
//! - `floor`: `serde_json` into a `#[derive(Deserialize)]` struct with `String` fields, no checks;
//! - `limit`: `serde_json` into a struct with Rust enums for the choices (`deny_unknown_fields`, as
//!   envelope refuses unknown names), then the same checks as envelope's, written as plain `if`s;
//! - `validator`: validator 0.21 `#[derive(Validate)]` on a struct with `String` fields (a choice is a
//!   `custom` function, so every problem is reported, as envelope does), then `validate()`;
//! - `garde`: garde 0.23 `#[derive(Validate)]`, likewise, then `validate()`;
//! - `envelope`: a `#[tool]` whose body only consumes its arguments and returns `()`, called through
//!   `Toolbox::call` (from `&Value`) or `Toolbox::call_json` (from `&str`); only public API, so this
//!   measures whatever reader envelope-core has.
//!
//! Tools: A has `get_top_queries`' parameters; B ten parameters (integers with ranges, floats,
//! strings with a length, choices and a pattern, a bool and an optional string); C a nested
//! object (a string with a length, a choice, an integer with a range and a default), an array
//! of strings with a length and an optional integer with a range.
//!
//! Paths: success from `&Value`; success from `&str`; refusal from `&str` rendered to text (A:
//! `hours_back` 0 and `group_by` "databse"; B: `priority` 11 and `queue` "hihg"; C:
//! `filter.page_size` 0 and `filter.min_level` "warnn"). The text is the
//! serialized envelope for envelope (what goes on the wire), the error's `Display` for the others;
//! `floor` reads the same refused input without a check, and is the reference.
//!
//! One round times a batch of calls (about 200 µs, after one untimed call that warms the case's
//! code and data) of every case, in an order shuffled per round;
//! each case's time in a round is divided by its reference's in the same round (success paths:
//! `limit`; refusal: `floor`), and the tables give the median of those ratios over the rounds.
//! Allocations per call (`alloc` + `alloc_zeroed`, and `realloc`) are counted by this binary's
//! global allocator over 100 warm calls. Futures are polled once with `Waker::noop()` (a sync
//! tool's call is ready at once), so no executor is timed.
//!
//! Output: a markdown table on stdout and `target/bench-compare/compare.json` (`compare-quick.json`
//! in quick mode). Environment: `COMPARE_RUNS`, `COMPARE_ROUNDS`, `COMPARE_BATCH_US`; for a
//! profiler, `COMPARE_LOOP=A/str/envelope` (tool/path/variant) runs that one case
//! `COMPARE_ITERS` times (default 1,000,000) as a plain loop and prints its time per call.

use std::fmt::Write as _;
use std::future::Future;
use std::hint::black_box;
use std::path::PathBuf;
use std::pin::pin;
use std::sync::LazyLock;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use envelope_bench::{Counting, allocations};

use envelope_core::{Envelope, Status, Toolbox, tool};
use regex::Regex;
use serde::Deserialize;
use serde_json::{Value, json};
// validator's `nested` calls `.validate()` on the inner struct: the trait must be in scope.
use validator::Validate as _;

// ---------------------------------------------------------------------------------------------
// Counting allocations (`envelope_bench::Counting`).

#[global_allocator]
static GLOBAL: Counting = Counting;

// ---------------------------------------------------------------------------------------------
// Tool A: `get_top_queries`' parameters.

/// Lists the most expensive queries (its parameters only: the body consumes them).
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

const GROUP_BY: [&str; 3] = ["query_hash", "database", "application"];

fn ten() -> u32 {
    10
}

#[derive(Deserialize)]
struct FloorA {
    hours_back: u32,
    group_by: String,
    #[serde(default = "ten")]
    top: u32,
}

#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum GroupBy {
    QueryHash,
    Database,
    Application,
}

#[allow(dead_code)] // fields a check does not read: dropped, as a tool body drops them
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitA {
    hours_back: u32,
    group_by: GroupBy,
    #[serde(default = "ten")]
    top: u32,
}

/// The checks envelope makes, as plain `if`s (the enum made the choice).
fn limit_a(p: LimitA) -> Result<LimitA, String> {
    if !(1..=720).contains(&p.hours_back) {
        return Err(format!("hours_back: {} is out of range 1..=720", p.hours_back));
    }
    if !(1..=100).contains(&p.top) {
        return Err(format!("top: {} is out of range 1..=100", p.top));
    }
    Ok(p)
}

#[derive(Deserialize, validator::Validate)]
#[serde(deny_unknown_fields)]
struct ValidatorA {
    #[validate(range(min = 1, max = 720))]
    hours_back: u32,
    #[validate(custom(function = "validator_group_by"))]
    group_by: String,
    #[serde(default = "ten")]
    #[validate(range(min = 1, max = 100))]
    top: u32,
}

fn validator_group_by(v: &str) -> Result<(), validator::ValidationError> {
    if GROUP_BY.contains(&v) { Ok(()) } else { Err(validator::ValidationError::new("choices")) }
}

#[derive(Deserialize, garde::Validate)]
#[serde(deny_unknown_fields)]
struct GardeA {
    #[garde(range(min = 1, max = 720))]
    hours_back: u32,
    #[garde(custom(garde_group_by))]
    group_by: String,
    #[serde(default = "ten")]
    #[garde(range(min = 1, max = 100))]
    top: u32,
}

#[allow(clippy::ptr_arg, clippy::trivially_copy_pass_by_ref)] // the signature garde calls
fn garde_group_by(v: &String, (): &()) -> garde::Result {
    if GROUP_BY.contains(&v.as_str()) { Ok(()) } else { Err(garde::Error::new("not one of the choices")) }
}

// ---------------------------------------------------------------------------------------------
// Tool B: ten parameters.

/// Schedules a job (its parameters only: the body consumes them).
#[tool]
#[allow(clippy::too_many_arguments)]
fn schedule_job(
    /// The job's name.
    #[validate(length = 1..=64)]
    job_name: String,
    /// The queue to run it on.
    #[validate(choices = ["default", "high", "low"])]
    queue: String,
    /// A tag for the job's runs.
    #[validate(pattern = "^[a-z0-9-]{1,32}$")]
    tag: String,
    /// Priority, higher first.
    #[validate(range = -10..=10)]
    priority: i32,
    /// How many times to retry a failed run.
    #[validate(range = 0..=10)]
    max_retries: u32,
    /// How long one run may take, in milliseconds.
    #[validate(range = 1..=600_000)]
    timeout_ms: u64,
    /// The share of runs traced, from 0 to 1.
    #[validate(range = 0.0..=1.0)]
    sample_rate: f64,
    /// The factor each retry's wait grows by.
    #[validate(range = 1.0..=10.0)]
    backoff: f64,
    /// Validate and plan without running.
    dry_run: bool,
    /// A note for the job's owners.
    #[validate(length = ..=200)]
    note: Option<String>,
) {
    black_box((job_name, queue, tag, priority, max_retries, timeout_ms, sample_rate, backoff, dry_run, note));
}

const QUEUES: [&str; 3] = ["default", "high", "low"];
static TAG: LazyLock<Regex> = LazyLock::new(|| Regex::new("^[a-z0-9-]{1,32}$").expect("a valid pattern"));

#[derive(Deserialize)]
struct FloorB {
    job_name: String,
    queue: String,
    tag: String,
    priority: i32,
    max_retries: u32,
    timeout_ms: u64,
    sample_rate: f64,
    backoff: f64,
    dry_run: bool,
    note: Option<String>,
}

#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Queue {
    Default,
    High,
    Low,
}

#[allow(dead_code)] // fields a check does not read: dropped, as a tool body drops them
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitB {
    job_name: String,
    queue: Queue,
    tag: String,
    priority: i32,
    max_retries: u32,
    timeout_ms: u64,
    sample_rate: f64,
    backoff: f64,
    dry_run: bool,
    note: Option<String>,
}

fn limit_b(p: LimitB) -> Result<LimitB, String> {
    if !(1..=64).contains(&p.job_name.chars().count()) {
        return Err("job_name: length out of range 1..=64".to_owned());
    }
    if !TAG.is_match(&p.tag) {
        return Err(format!("tag: {:?} does not match ^[a-z0-9-]{{1,32}}$", p.tag));
    }
    if !(-10..=10).contains(&p.priority) {
        return Err(format!("priority: {} is out of range -10..=10", p.priority));
    }
    if p.max_retries > 10 {
        return Err(format!("max_retries: {} is out of range 0..=10", p.max_retries));
    }
    if !(1..=600_000).contains(&p.timeout_ms) {
        return Err(format!("timeout_ms: {} is out of range 1..=600000", p.timeout_ms));
    }
    if !(0.0..=1.0).contains(&p.sample_rate) {
        return Err(format!("sample_rate: {} is out of range 0..=1", p.sample_rate));
    }
    if !(1.0..=10.0).contains(&p.backoff) {
        return Err(format!("backoff: {} is out of range 1..=10", p.backoff));
    }
    if p.note.as_ref().is_some_and(|n| n.chars().count() > 200) {
        return Err("note: longer than 200 characters".to_owned());
    }
    Ok(p)
}

#[allow(dead_code)] // fields a check does not read: dropped, as a tool body drops them
#[derive(Deserialize, validator::Validate)]
#[serde(deny_unknown_fields)]
struct ValidatorB {
    #[validate(length(min = 1, max = 64))]
    job_name: String,
    #[validate(custom(function = "validator_queue"))]
    queue: String,
    #[validate(regex(path = *TAG))]
    tag: String,
    #[validate(range(min = -10, max = 10))]
    priority: i32,
    #[validate(range(max = 10))]
    max_retries: u32,
    #[validate(range(min = 1, max = 600_000))]
    timeout_ms: u64,
    #[validate(range(min = 0.0, max = 1.0))]
    sample_rate: f64,
    #[validate(range(min = 1.0, max = 10.0))]
    backoff: f64,
    dry_run: bool,
    #[validate(length(max = 200))]
    note: Option<String>,
}

fn validator_queue(v: &str) -> Result<(), validator::ValidationError> {
    if QUEUES.contains(&v) { Ok(()) } else { Err(validator::ValidationError::new("choices")) }
}

#[allow(dead_code)] // fields a check does not read: dropped, as a tool body drops them
#[derive(Deserialize, garde::Validate)]
#[serde(deny_unknown_fields)]
struct GardeB {
    #[garde(length(chars, min = 1, max = 64))]
    job_name: String,
    #[garde(custom(garde_queue))]
    queue: String,
    #[garde(pattern("^[a-z0-9-]{1,32}$"))]
    tag: String,
    #[garde(range(min = -10, max = 10))]
    priority: i32,
    #[garde(range(max = 10))]
    max_retries: u32,
    #[garde(range(min = 1, max = 600_000))]
    timeout_ms: u64,
    #[garde(range(min = 0.0, max = 1.0))]
    sample_rate: f64,
    #[garde(range(min = 1.0, max = 10.0))]
    backoff: f64,
    #[garde(skip)]
    dry_run: bool,
    #[garde(length(chars, max = 200))]
    note: Option<String>,
}

#[allow(clippy::ptr_arg, clippy::trivially_copy_pass_by_ref)] // the signature garde calls
fn garde_queue(v: &String, (): &()) -> garde::Result {
    if QUEUES.contains(&v.as_str()) { Ok(()) } else { Err(garde::Error::new("not one of the choices")) }
}

// ---------------------------------------------------------------------------------------------
// Tool C: a nested object, an array and an `Option`.

/// Which events to read.
#[allow(dead_code)] // the body only consumes it
#[derive(envelope_core::Object, Debug)]
struct EventFilter {
    /// The service whose events are read.
    #[validate(length = 1..=64)]
    service: String,
    /// The lowest level read.
    #[validate(choices = ["debug", "info", "warn", "error"])]
    min_level: String,
    /// The most events per page.
    #[validate(range = 1..=500, default = 50)]
    page_size: u32,
}

/// Searches events (its parameters only: the body consumes them).
#[tool(read_only)]
fn search_events(
    /// Which events to read.
    filter: EventFilter,
    /// Tags every event read carries.
    #[validate(length = 1..=5)]
    tags: Vec<String>,
    /// How far back to look, in hours (default: all).
    #[validate(range = 1..=168)]
    hours_back: Option<u32>,
) {
    black_box((filter, tags, hours_back));
}

const LEVELS: [&str; 4] = ["debug", "info", "warn", "error"];

fn fifty() -> u32 {
    50
}

#[allow(dead_code)] // fields read by no check: dropped, as a tool body drops them
#[derive(Deserialize)]
struct FloorFilter {
    service: String,
    min_level: String,
    #[serde(default = "fifty")]
    page_size: u32,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct FloorC {
    filter: FloorFilter,
    tags: Vec<String>,
    hours_back: Option<u32>,
}

#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitFilter {
    service: String,
    min_level: Level,
    #[serde(default = "fifty")]
    page_size: u32,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitC {
    filter: LimitFilter,
    tags: Vec<String>,
    hours_back: Option<u32>,
}

fn limit_c(p: LimitC) -> Result<LimitC, String> {
    if !(1..=64).contains(&p.filter.service.chars().count()) {
        return Err("filter.service: length out of range 1..=64".to_owned());
    }
    if !(1..=500).contains(&p.filter.page_size) {
        return Err(format!("filter.page_size: {} is out of range 1..=500", p.filter.page_size));
    }
    if !(1..=5).contains(&p.tags.len()) {
        return Err(format!("tags: {} items, out of range 1..=5", p.tags.len()));
    }
    if p.hours_back.is_some_and(|h| !(1..=168).contains(&h)) {
        return Err("hours_back: out of range 1..=168".to_owned());
    }
    Ok(p)
}

#[allow(dead_code)]
#[derive(Deserialize, validator::Validate)]
#[serde(deny_unknown_fields)]
struct ValidatorFilter {
    #[validate(length(min = 1, max = 64))]
    service: String,
    #[validate(custom(function = "validator_level"))]
    min_level: String,
    #[serde(default = "fifty")]
    #[validate(range(min = 1, max = 500))]
    page_size: u32,
}

#[allow(dead_code)]
#[derive(Deserialize, validator::Validate)]
#[serde(deny_unknown_fields)]
struct ValidatorC {
    #[validate(nested)]
    filter: ValidatorFilter,
    #[validate(length(min = 1, max = 5))]
    tags: Vec<String>,
    #[validate(range(min = 1, max = 168))]
    hours_back: Option<u32>,
}

fn validator_level(v: &str) -> Result<(), validator::ValidationError> {
    if LEVELS.contains(&v) { Ok(()) } else { Err(validator::ValidationError::new("choices")) }
}

#[allow(dead_code)]
#[derive(Deserialize, garde::Validate)]
#[serde(deny_unknown_fields)]
struct GardeFilter {
    #[garde(length(chars, min = 1, max = 64))]
    service: String,
    #[garde(custom(garde_level))]
    min_level: String,
    #[serde(default = "fifty")]
    #[garde(range(min = 1, max = 500))]
    page_size: u32,
}

#[allow(dead_code)]
#[derive(Deserialize, garde::Validate)]
#[serde(deny_unknown_fields)]
struct GardeC {
    #[garde(dive)]
    filter: GardeFilter,
    #[garde(length(min = 1, max = 5))]
    tags: Vec<String>,
    #[garde(range(min = 1, max = 168))]
    hours_back: Option<u32>,
}

#[allow(clippy::ptr_arg, clippy::trivially_copy_pass_by_ref)] // the signature garde calls
fn garde_level(v: &String, (): &()) -> garde::Result {
    if LEVELS.contains(&v.as_str()) { Ok(()) } else { Err(garde::Error::new("not one of the choices")) }
}

// ---------------------------------------------------------------------------------------------
// The cases.

/// Polls a future once with a no-op waker: a sync tool's call is ready at once.
fn ready<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(x) => x,
        Poll::Pending => panic!("a sync tool's call should be ready on the first poll"),
    }
}

const VARIANTS: [&str; 5] = ["floor", "limit", "validator", "garde", "envelope"];
const PATHS: [&str; 3] = ["value", "str", "refusal"];

fn path_title(path: &str) -> &'static str {
    match path {
        "value" => "success from `&Value`",
        "str" => "success from `&str`",
        _ => "refusal to text, from `&str`",
    }
}

/// One timed thing: `run(n)` makes `n` calls.
struct Case<'a> {
    tool: &'static str,
    path: &'static str,
    variant: &'static str,
    run: Box<dyn FnMut(u64) + 'a>,
    /// Calls per batch, set by calibration.
    batch: u64,
    /// Nanoseconds per call, one per round, by run.
    ns: Vec<Vec<f64>>,
    allocs: f64,
    reallocs: f64,
}

fn case<'a, R>(
    tool: &'static str,
    path: &'static str,
    variant: &'static str,
    mut f: impl FnMut() -> R + 'a,
) -> Case<'a> {
    let run = Box::new(move |n: u64| {
        for _ in 0..n {
            black_box(f());
        }
    });
    Case { tool, path, variant, run, batch: 1, ns: Vec::new(), allocs: 0.0, reallocs: 0.0 }
}

/// What one tool is fed.
struct Inputs {
    good: Value,
    good_text: String,
    bad_text: String,
}

impl Inputs {
    fn new(good: &Value, bad: &Value) -> Self {
        Inputs { good: good.clone(), good_text: good.to_string(), bad_text: bad.to_string() }
    }
}

fn call(toolbox: &Toolbox, name: &str, v: &Value) -> Envelope {
    ready(toolbox.call(name, Some(v))).expect("a registered tool")
}

fn call_json(toolbox: &Toolbox, name: &str, s: &str) -> Envelope {
    ready(toolbox.call_json(name, s)).expect("a registered tool")
}

/// Every case of one tool: five variants on three paths. `$floor`... are the tool's types and
/// check functions.
macro_rules! cases {
    ($out:ident, $tool:literal, $name:literal, $toolbox:ident, $in:ident,
     $floor:ty, $limit:ty, $limit_check:path, $validator:ty, $garde:ty) => {{
        let t = $toolbox;
        let i = $in;
        // success from &Value
        $out.push(case($tool, "value", "floor", move || <$floor>::deserialize(black_box(&i.good)).ok()));
        $out.push(case($tool, "value", "limit", move || {
            <$limit>::deserialize(black_box(&i.good)).map_err(|e| e.to_string()).and_then($limit_check).ok()
        }));
        $out.push(case($tool, "value", "validator", move || {
            <$validator>::deserialize(black_box(&i.good)).ok().filter(|p| validator::Validate::validate(p).is_ok())
        }));
        $out.push(case($tool, "value", "garde", move || {
            <$garde>::deserialize(black_box(&i.good)).ok().filter(|p| garde::Validate::validate(p).is_ok())
        }));
        $out.push(case($tool, "value", "envelope", move || call(t, $name, black_box(&i.good))));
        // success from &str
        $out.push(case($tool, "str", "floor", move || serde_json::from_str::<$floor>(black_box(&i.good_text)).ok()));
        $out.push(case($tool, "str", "limit", move || {
            serde_json::from_str::<$limit>(black_box(&i.good_text))
                .map_err(|e| e.to_string())
                .and_then($limit_check)
                .ok()
        }));
        $out.push(case($tool, "str", "validator", move || {
            serde_json::from_str::<$validator>(black_box(&i.good_text))
                .ok()
                .filter(|p| validator::Validate::validate(p).is_ok())
        }));
        $out.push(case($tool, "str", "garde", move || {
            serde_json::from_str::<$garde>(black_box(&i.good_text))
                .ok()
                .filter(|p| garde::Validate::validate(p).is_ok())
        }));
        $out.push(case($tool, "str", "envelope", move || call_json(t, $name, black_box(&i.good_text))));
        // refusal from &str, rendered to text (`floor` reads the same input, unchecked)
        $out.push(case($tool, "refusal", "floor", move || serde_json::from_str::<$floor>(black_box(&i.bad_text)).ok()));
        $out.push(case($tool, "refusal", "limit", move || {
            serde_json::from_str::<$limit>(black_box(&i.bad_text))
                .map_err(|e| e.to_string())
                .and_then($limit_check)
                .err()
        }));
        $out.push(case($tool, "refusal", "validator", move || {
            match serde_json::from_str::<$validator>(black_box(&i.bad_text)) {
                Ok(p) => validator::Validate::validate(&p).err().map(|e| e.to_string()),
                Err(e) => Some(e.to_string()),
            }
        }));
        $out.push(case($tool, "refusal", "garde", move || {
            match serde_json::from_str::<$garde>(black_box(&i.bad_text)) {
                Ok(p) => garde::Validate::validate(&p).err().map(|e| e.to_string()),
                Err(e) => Some(e.to_string()),
            }
        }));
        $out.push(case($tool, "refusal", "envelope", move || call_json(t, $name, black_box(&i.bad_text)).to_json()));
    }};
}

/// The text each variant answers the refused input with (checked before timing, and reported).
fn refusal_texts<F, L, V, G>(
    text: &str,
    limit_check: fn(L) -> Result<L, String>,
    envelope: &Envelope,
) -> Vec<(&'static str, String)>
where
    F: for<'de> Deserialize<'de>,
    L: for<'de> Deserialize<'de>,
    V: for<'de> Deserialize<'de> + validator::Validate,
    G: for<'de> Deserialize<'de> + garde::Validate<Context = ()>,
{
    assert!(serde_json::from_str::<F>(text).is_ok(), "the floor reads the refused input");
    let limit = serde_json::from_str::<L>(text).map_err(|e| e.to_string()).and_then(limit_check);
    let validator = validator::Validate::validate(&serde_json::from_str::<V>(text).expect("deserializes"));
    let garde = garde::Validate::validate(&serde_json::from_str::<G>(text).expect("deserializes"));
    assert_eq!(envelope.status(), Status::Invalid);
    vec![
        ("limit", limit.err().expect("limit refuses")),
        ("validator", validator.expect_err("validator refuses").to_string()),
        ("garde", garde.expect_err("garde refuses").to_string()),
        ("envelope", envelope.to_json()),
    ]
}

// ---------------------------------------------------------------------------------------------
// Timing.

struct Config {
    quick: bool,
    runs: usize,
    rounds: usize,
    batch_ns: f64,
}

fn env_num(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.replace('_', "").parse().ok())
}

impl Config {
    fn from_env() -> Self {
        let args: Vec<String> = std::env::args().skip(1).collect();
        // `cargo bench` passes `--bench`; `cargo test --benches` does not: there, run quick.
        let quick = args.iter().any(|a| a == "--quick")
            || std::env::var("COMPARE_QUICK").is_ok_and(|v| !v.is_empty() && v != "0")
            || !args.iter().any(|a| a == "--bench");
        let (runs, rounds) = if quick { (1, 5) } else { (2, 400) };
        Config {
            quick,
            runs: env_num("COMPARE_RUNS").unwrap_or(runs).max(1),
            rounds: env_num("COMPARE_ROUNDS").unwrap_or(rounds).max(1),
            batch_ns: env_num("COMPARE_BATCH_US").unwrap_or(if quick { 20 } else { 200 }) as f64 * 1000.0,
        }
    }
}

/// Allocations per call over `n` warm calls: (allocs, reallocs).
fn count_allocs(c: &mut Case, n: u64) -> (f64, f64) {
    (c.run)(1);
    let (allocs, reallocs, ()) = allocations(|| (c.run)(n));
    (allocs as f64 / n as f64, reallocs as f64 / n as f64)
}

/// Times one batch of `n` calls after one untimed call (so the case's code and data are warm
/// whatever ran before it): nanoseconds for the batch.
fn batch(c: &mut Case, n: u64) -> f64 {
    (c.run)(1);
    let t = Instant::now();
    (c.run)(n);
    t.elapsed().as_nanos() as f64
}

/// Sets each case's batch so that one batch takes about `batch_ns`: the calls in a batch of at
/// least half that, over the fastest of three batches (a preemption only ever adds time).
fn calibrate(cases: &mut [Case], batch_ns: f64) {
    for c in cases {
        let mut n = 1u64;
        while n < 1 << 24 && batch(c, n) < batch_ns / 2.0 {
            n *= 2;
        }
        let fastest = (0..3).map(|_| batch(c, n)).fold(f64::INFINITY, f64::min);
        c.batch = ((batch_ns * n as f64 / fastest.max(1.0)).ceil() as u64).max(1);
    }
}

/// A small deterministic shuffle (xorshift), so each round runs the cases in another order.
fn shuffle(order: &mut [usize], seed: &mut u64) {
    for i in (1..order.len()).rev() {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        order.swap(i, (*seed % (i as u64 + 1)) as usize);
    }
}

fn measure(cases: &mut [Case], cfg: &Config) {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut order: Vec<usize> = (0..cases.len()).collect();
    for c in cases.iter_mut() {
        c.ns = vec![Vec::with_capacity(cfg.rounds); cfg.runs];
    }
    for run in 0..cfg.runs {
        // Warm-up and batch sizes anew each run.
        calibrate(cases, cfg.batch_ns);
        for _ in 0..cfg.rounds {
            shuffle(&mut order, &mut seed);
            for &k in &order {
                let c = &mut cases[k];
                let ns = batch(c, c.batch) / c.batch as f64;
                c.ns[run].push(ns);
            }
        }
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let m = xs.len() / 2;
    if xs.len().is_multiple_of(2) { f64::midpoint(xs[m - 1], xs[m]) } else { xs[m] }
}

/// Medians of one case against a reference, per run and over all runs.
struct Stat {
    ns: f64,
    ratio: f64,
    ratio_runs: Vec<f64>,
}

fn stat(c: &Case, reference: &Case) -> Stat {
    let ratios = |run: usize| -> Vec<f64> { c.ns[run].iter().zip(&reference.ns[run]).map(|(a, b)| a / b).collect() };
    let ratio_runs: Vec<f64> = (0..c.ns.len()).map(|r| median(ratios(r))).collect();
    let all: Vec<f64> = (0..c.ns.len()).flat_map(ratios).collect();
    Stat { ns: median(c.ns.concat()), ratio: median(all), ratio_runs }
}

// ---------------------------------------------------------------------------------------------
// Reporting.

/// Success paths: within 1.3x of `limit`, and no more allocations than `floor` (the typed values).
const SUCCESS_RATIO: f64 = 1.3;
/// Refusal: within 10x of `floor` and at most 15 allocations (allocs + reallocs).
const REFUSAL_RATIO: f64 = 10.0;
const REFUSAL_ALLOCS: f64 = 15.0;

fn allocs_text(a: f64, r: f64) -> String {
    let f = |x: f64| if x.fract() == 0.0 { format!("{x:.0}") } else { format!("{x:.2}") };
    format!("{} + {}", f(a), f(r))
}

fn time_text(ns: f64) -> String {
    if ns >= 10_000.0 { format!("{:.1} µs", ns / 1000.0) } else { format!("{ns:.0} ns") }
}

fn target_dir() -> PathBuf {
    // The bench runs as target/<profile>/deps/compare-<hash>.
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(PathBuf::from))
        .filter(|t| t.join("CACHEDIR.TAG").exists() || t.file_name().is_some_and(|n| n == "target"))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

fn main() {
    let cfg = Config::from_env();
    let toolbox = Toolbox::new().with(top_queries::tool()).with(schedule_job::tool()).with(search_events::tool());

    let a = Inputs::new(
        &json!({"hours_back": 24, "group_by": "database", "top": 5}),
        &json!({"hours_back": 0, "group_by": "databse"}),
    );
    let b_good = json!({
        "job_name": "nightly-report", "queue": "high", "tag": "reports-eu", "priority": 3,
        "max_retries": 2, "timeout_ms": 30000, "sample_rate": 0.25, "backoff": 1.5,
        "dry_run": false, "note": "weekly totals"
    });
    let mut b_bad = b_good.clone();
    b_bad["priority"] = json!(11);
    b_bad["queue"] = json!("hihg");
    let b = Inputs::new(&b_good, &b_bad);
    let c_good = json!({
        "filter": {"service": "checkout", "min_level": "warn", "page_size": 100},
        "tags": ["prod", "eu-west", "p1"], "hours_back": 24
    });
    let mut c_bad = c_good.clone();
    c_bad["filter"]["page_size"] = json!(0);
    c_bad["filter"]["min_level"] = json!("warnn");
    let c = Inputs::new(&c_good, &c_bad);

    // Every variant agrees on every input before anything is timed.
    let ok = r#"{"status":"ok","success":true,"data":null}"#;
    for (name, i) in [("top_queries", &a), ("schedule_job", &b), ("search_events", &c)] {
        assert_eq!(call(&toolbox, name, &i.good).to_json(), ok, "{name} from a Value");
        assert_eq!(call_json(&toolbox, name, &i.good_text).to_json(), ok, "{name} from text");
    }
    // Arrays and objects read in one pass from the text answer as the parsed `Value` does,
    // refusals byte for byte (numbers written as serde_json writes them back, no key twice).
    for text in [
        r#"{"filter": {"service": "", "min_level": "loud", "page_size": 0.5, "extra": [1, {"a": null}]}, "tags": []}"#,
        r#"{"filter": {"service": "checkout", "min_level": "warn"}, "tags": ["", "x", 3, ["y"], {"z": 1}, null]}"#,
        r#"{"filter": [{"service": "x"}], "tags": {"a": "b"}, "hours_back": [24]}"#,
        r#"{"filter": "{\"service\": \"x\", \"min_level\": \"info\"}", "tags": "[\"a\"]", "hours_back": null}"#,
        r#"{"filter": {"service": "s", "min_level": "Info", "page_size": -1.25}, "tags": ["a", "b", "c", "d", "e", "f"]}"#,
        r#"{"filter": {}, "tags": [[[[[]]]]], "hours_back": 0}"#,
    ] {
        let parsed: Value = serde_json::from_str(text).expect("valid JSON");
        assert_eq!(
            call_json(&toolbox, "search_events", text).to_json(),
            call(&toolbox, "search_events", &parsed).to_json(),
            "{text}"
        );
    }
    assert!(limit_a(LimitA::deserialize(&a.good).expect("deserializes")).is_ok());
    assert!(validator::Validate::validate(&ValidatorA::deserialize(&a.good).expect("deserializes")).is_ok());
    assert!(garde::Validate::validate(&GardeA::deserialize(&a.good).expect("deserializes")).is_ok());
    assert!(limit_b(LimitB::deserialize(&b.good).expect("deserializes")).is_ok());
    assert!(validator::Validate::validate(&ValidatorB::deserialize(&b.good).expect("deserializes")).is_ok());
    assert!(garde::Validate::validate(&GardeB::deserialize(&b.good).expect("deserializes")).is_ok());
    assert!(limit_c(LimitC::deserialize(&c.good).expect("deserializes")).is_ok());
    assert!(validator::Validate::validate(&ValidatorC::deserialize(&c.good).expect("deserializes")).is_ok());
    assert!(garde::Validate::validate(&GardeC::deserialize(&c.good).expect("deserializes")).is_ok());
    let FloorA { hours_back, group_by, top } = serde_json::from_str(&a.good_text).expect("deserializes");
    assert_eq!((hours_back, group_by.as_str(), top), (24, "database", 5));
    let FloorB { job_name, queue, tag, priority, max_retries, timeout_ms, sample_rate, backoff, dry_run, note } =
        serde_json::from_str(&b.good_text).expect("deserializes");
    black_box((job_name, queue, tag, priority, max_retries, timeout_ms, sample_rate, backoff, dry_run, note));
    let refused_a = call_json(&toolbox, "top_queries", &a.bad_text);
    assert!(refused_a.message().is_some_and(|m| m.contains("hours_back") && m.contains("Did you mean \"database\"?")));
    let refused_b = call_json(&toolbox, "schedule_job", &b.bad_text);
    assert!(refused_b.message().is_some_and(|m| m.contains("priority") && m.contains("Did you mean \"high\"?")));
    let refused_c = call_json(&toolbox, "search_events", &c.bad_text);
    assert!(refused_c.message().is_some_and(|m| m.contains("page_size") && m.contains("Did you mean \"warn\"?")));
    let texts = [
        ("A", refusal_texts::<FloorA, LimitA, ValidatorA, GardeA>(&a.bad_text, limit_a, &refused_a)),
        ("B", refusal_texts::<FloorB, LimitB, ValidatorB, GardeB>(&b.bad_text, limit_b, &refused_b)),
        ("C", refusal_texts::<FloorC, LimitC, ValidatorC, GardeC>(&c.bad_text, limit_c, &refused_c)),
    ];
    // The limit refuses at the enum (serde stops at the first problem); the others name both.
    for (tool, t) in &texts {
        for (variant, text) in t.iter().filter(|(v, _)| *v != "limit") {
            let (first, second) = match *tool {
                "A" => ("hours_back", "group_by"),
                "B" => ("priority", "queue"),
                _ => ("page_size", "min_level"),
            };
            assert!(text.contains(first) && text.contains(second), "{variant} names both problems of {tool}: {text}");
        }
    }

    let mut cases = Vec::new();
    {
        let t = &toolbox;
        let (ia, ib, ic) = (&a, &b, &c);
        cases!(cases, "A", "top_queries", t, ia, FloorA, LimitA, limit_a, ValidatorA, GardeA);
        cases!(cases, "B", "schedule_job", t, ib, FloorB, LimitB, limit_b, ValidatorB, GardeB);
        cases!(cases, "C", "search_events", t, ic, FloorC, LimitC, limit_c, ValidatorC, GardeC);
    }
    // For a profiler: one case as a plain loop, nothing else timed.
    if let Ok(name) = std::env::var("COMPARE_LOOP") {
        let iters = env_num("COMPARE_ITERS").unwrap_or(1_000_000) as u64;
        let c = cases.iter_mut().find(|c| format!("{}/{}/{}", c.tool, c.path, c.variant) == name);
        let c = c.unwrap_or_else(|| panic!("no case {name}: tool/path/variant, like A/str/envelope"));
        let t = Instant::now();
        (c.run)(iters);
        println!("{name}: {:.1} ns per call", t.elapsed().as_nanos() as f64 / iters as f64);
        return;
    }
    for c in &mut cases {
        let (allocs, reallocs) = count_allocs(c, 100);
        c.allocs = allocs;
        c.reallocs = reallocs;
    }
    let started = Instant::now();
    measure(&mut cases, &cfg);
    let seconds = started.elapsed().as_secs_f64();

    let find = |tool: &str, path: &str, variant: &str| {
        cases.iter().find(|c| c.tool == tool && c.path == path && c.variant == variant).expect("a case")
    };

    // The rows, with the targets beside envelope's.
    let mut rows = Vec::new();
    let mut table = String::new();
    let mut summary = String::new();
    writeln!(
        table,
        "| tool | path | variant | time per call | x floor | x limit | allocs + reallocs per call | target |\n|---|---|---|---|---|---|---|---|"
    )
    .expect("a String");
    for tool in ["A", "B", "C"] {
        for path in PATHS {
            let floor = find(tool, path, "floor");
            let limit = find(tool, path, "limit");
            for variant in VARIANTS {
                let c = find(tool, path, variant);
                let to_floor = stat(c, floor);
                let to_limit = stat(c, limit);
                let total_allocs = c.allocs + c.reallocs;
                let (target, met) = match (variant, path) {
                    ("envelope", "refusal") => (
                        format!("≤ {REFUSAL_RATIO}x floor, ≤ {REFUSAL_ALLOCS} allocs"),
                        Some(to_floor.ratio <= REFUSAL_RATIO && total_allocs <= REFUSAL_ALLOCS),
                    ),
                    ("envelope", _) => {
                        let floor_allocs = floor.allocs + floor.reallocs;
                        (
                            format!("≤ {SUCCESS_RATIO}x limit, ≤ {floor_allocs} allocs"),
                            Some(to_limit.ratio <= SUCCESS_RATIO && total_allocs <= floor_allocs),
                        )
                    }
                    _ => (String::new(), None),
                };
                let mark = match met {
                    Some(true) => " **met**",
                    Some(false) => " **not met**",
                    None => "",
                };
                let limit_col = if path == "refusal" && variant == "floor" {
                    "—".to_owned()
                } else {
                    format!("{:.2}x", to_limit.ratio)
                };
                writeln!(
                    table,
                    "| {tool} | {} | {variant} | {} | {:.2}x | {limit_col} | {} | {target}{mark} |",
                    path_title(path),
                    time_text(to_floor.ns),
                    to_floor.ratio,
                    allocs_text(c.allocs, c.reallocs),
                )
                .expect("a String");
                rows.push(json!({
                    "tool": tool, "path": path, "variant": variant,
                    "ns_per_call": round(to_floor.ns, 1),
                    "ratio_to_floor": round(to_floor.ratio, 3),
                    "ratio_to_floor_runs": to_floor.ratio_runs.iter().map(|r| round(*r, 3)).collect::<Vec<_>>(),
                    "ratio_to_limit": round(to_limit.ratio, 3),
                    "ratio_to_limit_runs": to_limit.ratio_runs.iter().map(|r| round(*r, 3)).collect::<Vec<_>>(),
                    "allocs_per_call": c.allocs, "reallocs_per_call": c.reallocs,
                    "calls_per_batch": c.batch,
                    "target": if target.is_empty() { Value::Null } else { json!(target) },
                    "target_met": met,
                }));
            }
        }
    }
    // The issue's summary: envelope, validator / garde, the target.
    writeln!(
        summary,
        "| path | envelope A | envelope B | envelope C | validator A / B / C | garde A / B / C | target |\n|---|---|---|---|---|---|---|"
    )
    .expect("a String");
    for path in PATHS {
        let reference = if path == "refusal" { "floor" } else { "limit" };
        let cell = |tool: &str, variant: &str| {
            let s = stat(find(tool, path, variant), find(tool, path, reference));
            let c = find(tool, path, variant);
            if path == "refusal" {
                format!("{:.1}x {reference}, {}", s.ratio, allocs_text(c.allocs, c.reallocs))
            } else {
                format!("{:.2}x {reference}, {}", s.ratio, allocs_text(c.allocs, c.reallocs))
            }
        };
        let target = if path == "refusal" {
            format!("{REFUSAL_RATIO}x floor, {REFUSAL_ALLOCS} allocs")
        } else {
            format!("{SUCCESS_RATIO}x limit, floor's allocs")
        };
        let other = |variant: &str| {
            let r = |tool: &str| stat(find(tool, path, variant), find(tool, path, reference)).ratio;
            format!("{:.2}x / {:.2}x / {:.2}x", r("A"), r("B"), r("C"))
        };
        writeln!(
            summary,
            "| {} | {} | {} | {} | {} | {} | {target} |",
            path_title(path),
            cell("A", "envelope"),
            cell("B", "envelope"),
            cell("C", "envelope"),
            other("validator"),
            other("garde"),
        )
        .expect("a String");
    }

    let profile = if cfg!(debug_assertions) { "debug (test profile: figures not meaningful)" } else { "release" };
    println!(
        "# envelope-bench compare: {} run(s) x {} rounds, {profile}, {seconds:.1} s{}\n",
        cfg.runs,
        cfg.rounds,
        if cfg.quick { " (quick mode)" } else { "" }
    );
    println!("{summary}");
    println!("{table}");
    println!("Refusal texts (the refused input of each tool):\n");
    for (tool, t) in &texts {
        for (variant, text) in t {
            println!("- {tool} {variant} ({} bytes): {text}", text.len());
        }
    }

    let machine = json!({
        "arch": std::env::consts::ARCH,
        "os": std::env::consts::OS,
        "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
    });
    let report = json!({
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "quick": cfg.quick,
        "runs": cfg.runs,
        "rounds": cfg.rounds,
        "batch_us": cfg.batch_ns / 1000.0,
        "seconds": round(seconds, 1),
        "machine": machine,
        "inputs": {
            "A": {"good": a.good_text, "refused": a.bad_text},
            "B": {"good": b.good_text, "refused": b.bad_text},
            "C": {"good": c.good_text, "refused": c.bad_text},
        },
        "targets": {
            "success_ratio_to_limit": SUCCESS_RATIO,
            "success_allocs": "at most floor's (what the typed values need)",
            "refusal_ratio_to_floor": REFUSAL_RATIO,
            "refusal_allocs": REFUSAL_ALLOCS,
        },
        "rows": rows,
        "refusal_texts": texts
            .iter()
            .map(|(tool, t)| {
                let by_variant = t.iter().map(|(v, s)| ((*v).to_owned(), json!(s))).collect();
                ((*tool).to_owned(), Value::Object(by_variant))
            })
            .collect::<serde_json::Map<_, _>>(),
    });
    let dir = target_dir().join("bench-compare");
    let file = dir.join(if cfg.quick { "compare-quick.json" } else { "compare.json" });
    std::fs::create_dir_all(&dir).expect("creates target/bench-compare");
    std::fs::write(&file, serde_json::to_string_pretty(&report).expect("serializes") + "\n").expect("writes the JSON");
    println!("\nJSON: {}", file.display());
}

fn round(x: f64, digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (x * p).round() / p
}
