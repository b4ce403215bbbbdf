//! A tool (a function or a `#[tools]` method) whose parameters are all scalars reads its
//! arguments straight into their types first
//! (`envelope_core`'s `read::typed`), and leaves anything it does not read exactly to the
//! general reading, which words the refusal. The two answer alike: a property test sends random
//! argument texts (and the same arguments as a parsed `Value`) to tools of every scalar shape,
//! once as declared and once with the typed reading taken off (`Tool::__untyped`), and compares
//! the envelopes byte for byte: the values read and echoed back on success, every refusal.

use envelope_core::{Toolbox, tool};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};

use crate::block_on;
use crate::one_pass::{value, ws};

/// Every scalar type, each rule a scalar takes, a default and `Option`s; the body echoes what
/// it read, so a value read differently shows.
#[tool]
#[allow(clippy::too_many_arguments)]
fn scalars(
    /// Hours.
    #[validate(range = 1..=720)]
    hours_back: u32,
    /// Grouping.
    #[validate(choices = ["query_hash", "database", "application"])]
    group_by: String,
    /// Rows.
    #[validate(range = 1..=100, default = 10)]
    top: u32,
    /// Priority.
    #[validate(range = -10..=10)]
    priority: Option<i32>,
    /// A share.
    #[validate(range = 0.0..=1.0)]
    rate: Option<f64>,
    /// A tag.
    #[validate(length = 1..=5)]
    tag: Option<String>,
    /// A flag.
    flag: Option<bool>,
    /// A big count.
    count: Option<u64>,
) -> Value {
    json!([hours_back, group_by, top, priority, rate, tag, flag, count])
}

/// Text rules: a pattern, `ignore_case` choices (the canonical spelling passed on), a format, a
/// byte length, a step, a renamed parameter and a string default.
#[tool(strict)]
fn texts(
    /// A word.
    #[validate(pattern = "^[a-z]+$")]
    word: String,
    /// A unit.
    #[validate(choices = ["Day", "hour"], ignore_case)]
    unit: Option<String>,
    /// A day.
    #[validate(format = "date")]
    day: Option<String>,
    /// A step.
    #[validate(multiple_of = 5)]
    step: Option<i64>,
    /// Short.
    #[validate(rename = "x", byte_length = ..=8)]
    short: Option<String>,
    /// A label.
    #[validate(default = "none")]
    label: String,
    /// A real with a default.
    #[validate(range = 1.0..=10.0, default = 1.5)]
    backoff: f64,
) -> Value {
    json!([word, unit, day, step, short, label, backoff])
}

/// Sends `text` to tool `name` of both toolboxes, and the same arguments parsed (through
/// `call`), and holds the envelopes equal byte for byte; whether the call was answered `ok`.
fn answered_alike(typed: &Toolbox, general: &Toolbox, name: &str, text: &str) -> Result<bool, TestCaseError> {
    let a = block_on(typed.call_json(name, text)).expect("a known tool").to_json();
    let b = block_on(general.call_json(name, text)).expect("a known tool").to_json();
    prop_assert_eq!(&a, &b, "{} {}", name, text);
    if let Ok(parsed) = serde_json::from_str::<Value>(text) {
        let a = block_on(typed.call(name, Some(&parsed))).expect("a known tool").to_json();
        let b = block_on(general.call(name, Some(&parsed))).expect("a known tool").to_json();
        prop_assert_eq!(a, b, "{} {} (as a Value)", name, text);
    }
    Ok(a.starts_with("{\"status\":\"ok\""))
}

/// A state whose method is a tool of scalar parameters: `#[tools]` methods read the typed way too.
struct Scale {
    factor: u64,
}

#[envelope_core::tools]
impl Scale {
    /// Scales a count.
    #[tool]
    fn scaled(
        &self,
        /// The count.
        #[validate(range = 0..=1000)]
        n: u64,
        /// A unit.
        #[validate(choices = ["m", "km"])]
        unit: Option<String>,
    ) -> Value {
        json!([n * self.factor, unit])
    }
}

fn toolbox(untyped: bool) -> Toolbox {
    let scale = <Scale as envelope_core::call::ToolSet>::tools(std::sync::Arc::new(Scale { factor: 3 }));
    let tools = [scalars::tool(), texts::tool()].into_iter().chain(scale);
    tools.fold(Toolbox::new(), |t, tool| t.with(if untyped { tool.__untyped() } else { tool }))
}

#[test]
fn typed_and_general_readings_answer_alike() {
    let (typed, general) = (toolbox(false), toolbox(true));
    let tools: Vec<(&str, Vec<&str>)> = vec![
        ("scalars", vec!["hours_back", "group_by", "top", "priority", "rate", "tag", "flag", "count"]),
        ("texts", vec!["word", "unit", "day", "step", "x", "label", "backoff"]),
        ("scaled", vec!["n", "unit"]),
    ];
    let extra = [
        "\"abc\"",
        "\"2026-11-30\"",
        "\"2026-02-30\"",
        "\"DAY\"",
        "\"Hour\"",
        "\"day\"",
        "\"12345678\"",
        "\"123456789\"",
        "\"ab\"",
        "\"abcdef\"",
        "25",
        "-25",
        "7",
        "\"application\"",
        "[1]",
        "{\"a\":1}",
        "[]",
    ];
    let extra: &'static [&'static str] = Box::leak(extra.to_vec().into_boxed_slice());
    let values = prop_oneof![4 => value(), 1 => proptest::sample::select(extra).prop_map(str::to_owned)];
    let members = proptest::collection::vec((0..10usize, values, ws(), ws()), 0..9);
    let seen_ok = std::cell::Cell::new(0);
    let mut runner = TestRunner::new(Config { cases: 4000, ..Config::default() });
    runner
        .run(&(0..tools.len(), members, any::<bool>()), |(t, members, tail)| {
            let (name, params) = &tools[t];
            // Indices past the parameters name an unknown name; repeats are keys sent twice.
            let key = |i: usize| params.get(i).map_or_else(|| "extra".to_owned(), |p| (*p).to_owned());
            let body: Vec<String> =
                members.iter().map(|(i, v, a, b)| format!("{a}\"{}\"{b}:{a}{v}{b}", key(*i))).collect();
            let mut text = format!("{{{}}}", body.join(","));
            if tail {
                text.push(' ');
            }
            if answered_alike(&typed, &general, name, &text)? {
                seen_ok.set(seen_ok.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    assert!(seen_ok.get() > 0, "no call was valid");
}

/// Valid arguments of every shape (each optional parameter sent or not, in any order, `null`
/// for an `Option`), and the same with one value replaced by any value: the typed reading's own
/// answers, and its declines one value away from them.
#[test]
fn valid_calls_and_their_neighbours_answer_alike() {
    let (typed, general) = (toolbox(false), toolbox(true));
    type Valid = (&'static str, &'static [&'static str]);
    let scalars: &[Valid] = &[
        ("hours_back", &["1", "24", "720"]),
        ("group_by", &["\"database\"", "\"query_hash\"", "\"appl\\u0069cation\""]),
        ("top", &["1", "100", "null"]),
        ("priority", &["-10", "0", "10", "null"]),
        ("rate", &["0", "0.0", "1", "0.25", "-0", "1e-3", "null"]),
        ("tag", &["\"a\"", "\"ééééé\"", "\"😀\"", "null"]),
        ("flag", &["true", "false", "null"]),
        ("count", &["0", "18446744073709551615", "null"]),
    ];
    let texts: &[Valid] = &[
        ("word", &["\"abc\"", "\"z\""]),
        ("unit", &["\"Day\"", "\"hour\"", "\"DAY\"", "null"]),
        ("day", &["\"2026-11-30\"", "\"2024-02-29\"", "null"]),
        ("step", &["0", "-15", "5", "null"]),
        ("x", &["\"12345678\"", "\"é\"", "null"]),
        ("label", &["\"\"", "\"tab\\there\"", "null"]),
        ("backoff", &["1", "10.0", "2.5", "null"]),
    ];
    let tools: [(&str, &[Valid]); 2] = [("scalars", scalars), ("texts", texts)];
    let seen_ok = std::cell::Cell::new(0);
    let mut runner = TestRunner::new(Config { cases: 3000, ..Config::default() });
    let picks = proptest::collection::vec((any::<bool>(), 0..8usize, ws()), 8);
    let mutation = proptest::option::of((0..8usize, value()));
    runner
        .run(&(0..2usize, picks, mutation, any::<u64>()), |(t, picks, mutation, order)| {
            let (name, params) = tools[t];
            let mut members: Vec<(String, String)> = params
                .iter()
                .zip(&picks)
                .enumerate()
                // The first two of each tool are required.
                .filter(|(i, (_, (send, _, _)))| *i < 2 || *send)
                .map(|(_, ((p, valid), (_, v, w)))| (format!("{w}\"{p}\""), valid[v % valid.len()].to_owned()))
                .collect();
            if let Some((i, v)) = mutation
                && !members.is_empty()
            {
                let i = i % members.len();
                members[i].1 = v;
            }
            let turn = usize::try_from(order).unwrap_or(0) % members.len().max(1);
            members.rotate_left(turn);
            let body: Vec<String> = members.iter().map(|(k, v)| format!("{k}:{v}")).collect();
            let text = format!("{{{}}}", body.join(","));
            if answered_alike(&typed, &general, name, &text)? {
                seen_ok.set(seen_ok.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    // Most of these calls are valid: the typed reading's own answers were compared.
    assert!(seen_ok.get() > 1000, "only {} calls were valid", seen_ok.get());
}

/// The usual calls, by hand: the typed reading gives the values the general one does.
#[test]
fn the_typed_reading_reads_what_the_general_one_does() {
    let toolbox = toolbox(false);
    // Functions and methods of scalar parameters have one (so do arrays, objects and choices:
    // `nested_pass.rs`); a tool with cross-parameter rules, a confirm tool and a key tool do not.
    let typed: Vec<(&str, bool)> = toolbox.tools().iter().map(|t| (t.name(), t.__reads_typed())).collect();
    assert_eq!(typed, [("scalars", true), ("texts", true), ("scaled", true)]);
    let examples = crate::tools::toolbox();
    let without: Vec<&str> = examples.tools().iter().filter(|t| !t.__reads_typed()).map(|t| t.name()).collect();
    assert_eq!(without, ["search_analytics", "create_note", "delete_note", "confirm_action"]);
    let ok = |name: &str, args: &str| block_on(toolbox.call_json(name, args)).unwrap().to_json();
    assert_eq!(
        ok(
            "scalars",
            r#"{"hours_back": 24, "group_by": "database", "rate": 0.25, "tag": "a\u00e9", "count": 18446744073709551615}"#
        ),
        r#"{"status":"ok","success":true,"data":[24,"database",10,null,0.25,"aé",null,18446744073709551615]}"#
    );
    assert_eq!(ok("scaled", r#"{"n": 7, "unit": "km"}"#), r#"{"status":"ok","success":true,"data":[21,"km"]}"#);
    // `ignore_case`: the canonical spelling, which only the general reading gives.
    assert_eq!(
        ok("texts", r#"{"word": "abc", "unit": "DAY", "x": null, "backoff": 2}"#),
        r#"{"status":"ok","success":true,"data":["abc","Day",null,null,null,"none",2.0]}"#
    );
}
