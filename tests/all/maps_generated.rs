//! Maps of every value type under every rule, generated: the typed, walked and general readings
//! answer alike, byte for byte, from the text and from a parsed `Value` (a property test over
//! keys sent twice or escaped, empty, long, non-ASCII, and values of every type, nested).

use std::collections::{BTreeMap, HashMap};

use envelope_core::{Choice, Object, Toolbox, tool};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};

use crate::block_on;

#[derive(Choice, Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[choice(rename_all = "snake_case")]
pub enum Env {
    Prod,
    Dev,
}

#[derive(Object, Debug, serde::Serialize)]
#[object(rename_all = "camelCase")]
pub struct Quota {
    #[validate(range = 1..=64)]
    pub max_units: u32,
    #[validate(each(range = 1..=9))]
    pub weights: Option<BTreeMap<String, u8>>,
    #[validate(secret)]
    pub token: Option<String>,
}

/// Every value type.
#[tool]
#[allow(clippy::too_many_arguments)]
fn kinds(
    ints: Option<BTreeMap<String, i64>>,
    reals: Option<HashMap<String, f64>>,
    flags: Option<BTreeMap<String, bool>>,
    texts: Option<BTreeMap<String, String>>,
    lists: Option<BTreeMap<String, Vec<u8>>>,
    opts: Option<BTreeMap<String, Option<u8>>>,
    envs: Option<BTreeMap<String, Env>>,
    objs: Option<BTreeMap<String, Quota>>,
    nested: Option<BTreeMap<String, BTreeMap<String, u8>>>,
    vec_of_maps: Option<Vec<BTreeMap<String, u8>>>,
) -> Value {
    let reals: Option<BTreeMap<String, f64>> = reals.map(|r| r.into_iter().collect());
    json!([ints, reals, flags, texts, lists, opts, envs, objs, nested, vec_of_maps])
}

/// Rules on values.
#[tool]
#[allow(clippy::too_many_arguments)]
fn ruled(
    #[validate(length = 1..=5, each(range = 1..=10))] a: BTreeMap<String, u32>,
    #[validate(each(choices = ["x", "y"], ignore_case))] b: Option<BTreeMap<String, String>>,
    #[validate(each(pattern = "^[a-z]+$", example = "abc"))] c: Option<BTreeMap<String, String>>,
    #[validate(each(format = "date"))] d: Option<BTreeMap<String, String>>,
    #[validate(each(length = 2..=3))] e: Option<BTreeMap<String, String>>,
    #[validate(each(secret, length = 8..=8))] f: Option<BTreeMap<String, String>>,
    #[validate(each(range = 0..=5, fix = "Send a small number.", reason = "ours"))] g: Option<BTreeMap<String, u8>>,
    #[validate(secret, length = ..=2)] h: Option<BTreeMap<String, String>>,
    #[validate(rename = "x-map")] i: Option<BTreeMap<String, u8>>,
    #[validate(each(multiple_of = 5))] j: Option<BTreeMap<String, i32>>,
    #[validate(each(each(range = 1..=3)))] k: Option<BTreeMap<String, Vec<u8>>>,
    #[validate(length = 1..=2, each(length = ..=1, each(range = 0..=1)))] l: Option<
        BTreeMap<String, BTreeMap<String, u8>>,
    >,
) -> Value {
    json!([a, b, c, d, e, f, g, h, i, j, k, l])
}

/// Strict.
#[tool(strict)]
fn strict_maps(
    #[validate(each(range = 1..=10))] a: BTreeMap<String, u32>,
    b: Option<BTreeMap<String, f64>>,
    c: Option<BTreeMap<String, bool>>,
) -> Value {
    json!([a, b, c])
}

/// Renamed.
#[tool(rename_all = "camelCase")]
fn renamed(some_map: BTreeMap<String, u8>, other_map: Option<HashMap<String, String>>) -> usize {
    some_map.len() + other_map.map_or(0, |m| m.len())
}

fn toolbox(untyped: bool) -> Toolbox {
    let tools = [kinds::tool(), ruled::tool(), strict_maps::tool(), renamed::tool()];
    tools.into_iter().fold(Toolbox::new(), |t, tool| t.with(if untyped { tool.__untyped() } else { tool }))
}

const KEYS: &[&str] = &[
    "a",
    "b",
    "A",
    "\\u0041",
    "\\u0061",
    "",
    "a\\\"b",
    "\\u0000",
    "\\n",
    "\\u001b[31m",
    "é",
    "\\u00e9",
    "😀",
    "\\ud83d\\ude00",
    "a.b",
    "[0]",
    "env",
    "maxUnits",
    "max_units",
    "weights",
    "h",
    "\\u2028",
    "k k",
];

const VALUES: &[&str] = &[
    "1",
    "-1",
    "0",
    "-0",
    "1e2",
    "5.0",
    "1.5",
    "0.10",
    "300",
    "255",
    "256",
    "18446744073709551615",
    "-9223372036854775809",
    "1e19",
    "\"1\"",
    "\"x\"",
    "\"\"",
    "\"prod\"",
    "\"dev\"",
    "\"Prod\"",
    "true",
    "\"true\"",
    "null",
    "[]",
    "[1,2]",
    "[1,300]",
    "[null]",
    "{}",
    "{\"maxUnits\":3}",
    "{\"maxUnits\":3,\"weights\":{\"h\":2}}",
    "{\"maxUnits\":3,\"weights\":{\"h\":2,\"h\":3}}",
    "{\"maxUnits\":\"3\"}",
    "{\"maxUnits\":3,\"extra\":1}",
    "\"{\\\"a\\\":1}\"",
    "\"[1]\"",
    "{\"b\":1,\"b\":2}",
    "{\"b\":1}",
    "{\"b\":300}",
    "\"abc\"",
    "\"2026-11-30\"",
    "\"12345678\"",
    "[[1]]",
    "{\"\\u0062\":1,\"b\":2}",
    "1.0e0",
    "-0.0",
    "1E2",
];

fn ws() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(&["", " ", "\n", "\t "][..])
}

/// A JSON object's text: keys sent twice, escaped, empty, long (to 1 MB), non-ASCII; values
/// of every type, nested maps.
fn map_text(depth: u32) -> BoxedStrategy<String> {
    let key = prop_oneof![
        12 => proptest::sample::select(KEYS).prop_map(str::to_owned),
        1 => (60usize..70).prop_map(|n| "k".repeat(n)),
        1 => (60usize..70).prop_map(|n| "é".repeat(n)),
        1 => Just("x".repeat(1 << 20)),
    ];
    let leaf = proptest::sample::select(VALUES).prop_map(str::to_owned).boxed();
    let value = if depth == 0 { leaf } else { prop_oneof![4 => leaf, 1 => map_text(depth - 1)].boxed() };
    proptest::collection::vec((key, value, ws(), ws()), 0..7)
        .prop_map(|members| {
            let body: Vec<String> = members.iter().map(|(k, v, a, b)| format!("{a}\"{k}\"{b}:{a}{v}")).collect();
            format!("{{{}}}", body.join(","))
        })
        .boxed()
}

/// The typed reading and the general one answer `text` alike byte for byte (from the text and
/// from the parsed `Value`), and so does the general reading of the text when the walk declines
/// it (its first key escaped).
fn answered_alike(typed: &Toolbox, general: &Toolbox, name: &str, text: &str) -> Result<bool, TestCaseError> {
    let a = block_on(typed.call_json(name, text)).unwrap().to_json();
    let b = block_on(general.call_json(name, text)).unwrap().to_json();
    prop_assert_eq!(&a, &b, "call_json {} {}", name, text);
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        let c = block_on(typed.call(name, Some(&v))).unwrap().to_json();
        let d = block_on(general.call(name, Some(&v))).unwrap().to_json();
        prop_assert_eq!(&c, &d, "call(Value) {} {}", name, text);
    }
    if let Some(rest) = text.strip_prefix("{\"")
        && let Some(first) = rest.chars().next()
        && first.is_ascii_alphabetic()
    {
        let escaped = format!("{{\"\\u{:04x}{}", first as u32, &rest[1..]);
        let e = block_on(general.call_json(name, &escaped)).unwrap().to_json();
        prop_assert_eq!(&a, &e, "walked and general {} {}", name, text);
    }
    Ok(a.starts_with("{\"status\":\"ok\""))
}

#[test]
fn typed_walked_and_general_readings_of_maps_answer_alike() {
    let (typed, general) = (toolbox(false), toolbox(true));
    let tools: Vec<(&str, Vec<&str>)> = vec![
        ("kinds", vec!["ints", "reals", "flags", "texts", "lists", "opts", "envs", "objs", "nested", "vec_of_maps"]),
        ("ruled", vec!["a", "b", "c", "d", "e", "f", "g", "h", "x-map", "j", "k", "l"]),
        ("strict_maps", vec!["a", "b", "c"]),
        ("renamed", vec!["someMap", "otherMap"]),
    ];
    let value = prop_oneof![
        6 => map_text(2),
        1 => proptest::sample::select(VALUES).prop_map(str::to_owned),
        1 => map_text(1).prop_map(|m| serde_json::to_string(&m).unwrap()),
        1 => map_text(0).prop_map(|m| format!("[{m}]")),
    ];
    let members = proptest::collection::vec((0..13usize, value, ws()), 0..5);
    let ok = std::cell::Cell::new(0usize);
    let mut runner = TestRunner::new(Config { cases: 400, ..Config::default() });
    runner
        .run(&(0..tools.len(), members), |(t, members)| {
            let (name, params) = &tools[t];
            let key = |i: usize| params.get(i).copied().unwrap_or("extra");
            let body: Vec<String> = members.iter().map(|(i, v, w)| format!("\"{}\":{w}{v}", key(*i))).collect();
            if answered_alike(&typed, &general, name, &format!("{{{}}}", body.join(",")))? {
                ok.set(ok.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    println!("{} of 400 generated calls valid", ok.get());
    assert!(ok.get() > 10, "only {} calls were valid", ok.get());
}
