//! Schema and runtime agree (issue 4).
//!
//! Every example tool's `inputSchema` is valid JSON Schema 2020-12, and a property test per tool
//! sends thousands of random argument objects — values at and just past every bound, every
//! choice and its near misses, wrong JSON types, `null`, missing and extra keys, numeric strings,
//! whole floats, long and multi-byte strings, arrays too long, items that break the item
//! pattern — both to a JSON Schema validator (the `jsonschema` crate) on the generated schema
//! and to the tool through the toolbox, and compares the verdicts (`ok` vs `invalid`).
//!
//! - Strict (`#[tool(strict)]` twins of the example tools, declared below with the same rules):
//!   the two verdicts agree on every value.
//! - Lax (the example tools as they are): they differ only where the tool accepts one of the
//!   documented coercions (`"48"` or `48.0` for an integer, `"0.5"` for a number, `"true"` /
//!   `"false"` for a boolean, arguments sent as a JSON string holding the object), and every
//!   such disagreement is checked to be explained by them: with the coercions undone, the schema
//!   accepts the arguments.
//!
//! - Both: `null` for a parameter that is not required is the one documented exemption. The
//!   runtime reads it as absent; the schema gives such a parameter its plain `type` (what MCP
//!   clients and function-calling schema subsets fill in well) and leaves it out of `required`.
//!   Every such disagreement is checked to be explained by it: with those `null` members left
//!   out, the schema accepts the arguments.
//!
//! Both forms of the `inputSchema` are held to the runtime:
//!
//! - Full (`Toolbox::with_full_input_schema`): the cross-field rule of `search_analytics` is in
//!   the schema (a top-level `allOf` of `if`/`then`), so it gets no exception: a refusal of a
//!   combination the schema accepts is a disagreement.
//! - Portable (the default): no top-level `allOf`; the rule is stated in the tool's description.
//!   The one further exemption: the tool refuses a combination the portable schema accepts, the
//!   full schema refuses it too, and the description states a rule naming the refused parameter.
//!
//! Known disagreements that are bugs of the library (see `KnownBug`) are allowed by the main
//! tests, counted, and pinned by `#[ignore]`d tests that run the same property with no
//! exception: remove the exception and the `#[ignore]` once the library is fixed.

use std::cell::RefCell;
use std::collections::BTreeMap;

use envelope_core::spec::{Bound, Choices, Num, ParamSpec, Rules, Ty, Unit};
use envelope_core::{Tool, Toolbox};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};

use crate::{block_on, tools};

/// Cases per tool and mode. Each case is one schema check and one or two tool calls.
const CASES: u32 = 4000;

/// `#[tool(strict)]` twins of the four example tools: the same parameters, rules and doc
/// comments (so the same schema, checked by `strict_twins_declare_the_example_rules`).
mod strict {
    use envelope_core::tool;
    use serde_json::{Value, json};

    /// Strict twin of get_top_queries.
    #[tool(strict, read_only, idempotent)]
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
    ) -> Value {
        json!([hours_back, group_by, top])
    }

    /// Strict twin of search_analytics.
    #[tool(strict, read_only, idempotent)]
    pub fn search_analytics(
        /// The dimension to group rows by.
        #[validate(
            choices = ["query", "page", "country", "device", "date", "searchAppearance", "hour"],
            requires(data_state = "HOURLY_ALL", when = "hour")
        )]
        dimension: String,
        /// Which data to include: final data only (ALL) or also fresh hourly data (HOURLY_ALL).
        #[validate(choices = ["ALL", "HOURLY_ALL"], default = "ALL", requires(dimension = "hour", when = "HOURLY_ALL"))]
        data_state: String,
        /// The most rows to return.
        #[validate(range = 1..=25000)]
        row_limit: Option<u32>,
    ) -> Value {
        json!([dimension, data_state, row_limit])
    }

    /// Strict twin of create_note.
    #[tool(strict, destructive, idempotency_key)]
    pub fn create_note(
        /// The note's title.
        #[validate(length = 1..=120)]
        title: String,
        /// Tags for finding the note later.
        #[validate(length = ..=10, each(pattern = "^[a-z0-9-]{1,32}$", example = "release-notes"))]
        tags: Option<Vec<String>>,
        /// Whether to pin the note to the top.
        #[validate(default = false)]
        pinned: bool,
    ) -> Value {
        json!([title, tags, pinned])
    }

    /// Strict twin of set_threshold.
    #[tool(strict, idempotent)]
    pub fn set_threshold(
        /// The share of failed calls that raises an alert.
        #[validate(range = 0.0..1.0)]
        ratio: f64,
        /// The API key: "sk-" then 16 to 64 letters or digits.
        #[validate(secret, pattern = "^sk-[A-Za-z0-9]{16,64}$")]
        api_key: String,
    ) -> Value {
        let _ = api_key;
        json!(ratio)
    }

    pub fn toolbox() -> envelope_core::Toolbox {
        envelope_core::Toolbox::new()
            .with(get_top_queries::tool())
            .with(search_analytics::tool())
            .with(create_note::tool())
            .with(set_threshold::tool())
    }
}

const TOOLS: [&str; 4] = ["get_top_queries", "search_analytics", "create_note", "set_threshold"];

/// Example tools outside this property, each driven through every kind of bad argument in
/// codes.rs: `delete_note` and `confirm_action`, whose valid calls do not answer `ok` (a preview
/// waiting for approval, an id to confirm; their conversations are in confirm.rs), and
/// `list_notes`, which has no required parameter, so `null` arguments read as `{}` (documented)
/// where a schema of type object refuses them; its one boolean reads as create_note's `pinned`.
const OTHER_TOOLS: [&str; 3] = ["delete_note", "list_notes", "confirm_action"];

// ---------------------------------------------------------------------------------------------
// The schemas themselves.

/// The keywords a generated schema may use (JSON Schema 2020-12 core, applicator, validation and
/// meta-data vocabularies, as far as envelope emits them). The metaschema accepts any unknown
/// keyword, so a misspelt one (`writeonly`, `exclusiveMax`) would pass it silently.
const KEYWORDS: &[&str] = &[
    "$schema",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "pattern",
    "format",
    "title",
    "description",
    "default",
    "examples",
    "readOnly",
    "writeOnly",
];

/// Every key in a schema position of `schema` is a known 2020-12 keyword.
fn assert_known_keywords(schema: &Value, at: &str) {
    let Value::Object(m) = schema else {
        assert!(schema.is_boolean(), "{at}: a schema is an object or a boolean: {schema}");
        return;
    };
    for (k, v) in m {
        assert!(KEYWORDS.contains(&k.as_str()), "{at}: unknown keyword {k:?}");
        match k.as_str() {
            "properties" => {
                for (name, s) in v.as_object().expect("properties is an object") {
                    assert_known_keywords(s, &format!("{at}/properties/{name}"));
                }
            }
            "items" | "additionalProperties" | "not" | "if" | "then" | "else" => {
                assert_known_keywords(v, &format!("{at}/{k}"));
            }
            "allOf" | "anyOf" | "oneOf" => {
                for (i, s) in v.as_array().expect("an array of schemas").iter().enumerate() {
                    assert_known_keywords(s, &format!("{at}/{k}/{i}"));
                }
            }
            _ => {}
        }
    }
}

/// Valid against the 2020-12 metaschema, compiles as a validator (every `pattern` is a regex
/// the validator reads), and uses only known keywords.
pub(crate) fn assert_valid_2020_12(name: &str, schema: &Value) {
    if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
        panic!("{name}: the inputSchema is not valid JSON Schema 2020-12: {e}\n{schema:#}");
    }
    if let Err(e) = jsonschema::draft202012::new(schema) {
        panic!("{name}: the inputSchema does not compile as a 2020-12 validator: {e}\n{schema:#}");
    }
    assert_known_keywords(schema, name);
}

#[test]
fn example_schemas_are_valid_json_schema_2020_12() {
    let toolbox = tools::toolbox();
    let mut names: Vec<&str> = toolbox.tools().iter().map(Tool::name).collect();
    names.retain(|n| !OTHER_TOOLS.contains(n));
    assert_eq!(names, TOOLS, "the example tools changed: give each new one a differential test");
    for name in TOOLS {
        let schema = Value::Object(toolbox.get(name).unwrap().input_schema());
        assert_valid_2020_12(name, &schema);
        assert_eq!(schema["type"], "object", "{name}");
        assert_eq!(schema["additionalProperties"], false, "{name}");
    }
    // The metaschema check does catch a broken schema (this test is not vacuous).
    assert!(jsonschema::draft202012::meta::validate(&json!({"type": "integer", "minimum": "1"})).is_err());
    assert!(jsonschema::draft202012::meta::validate(&json!({"type": "whole number"})).is_err());
}

/// The cross-field rule of search_analytics is in its full schema, so the differential test
/// holds it to that schema with no exception.
#[test]
fn search_analytics_schema_carries_the_cross_field_rule() {
    let full = tools::toolbox().with_full_input_schema();
    let schema = Value::Object(full.get("search_analytics").unwrap().input_schema());
    let all_of = schema["allOf"].as_array().expect("allOf");
    assert!(all_of.iter().all(|r| r.get("if").is_some() && r.get("then").is_some()), "{schema:#}");
    let v = jsonschema::draft202012::new(&schema).unwrap();
    assert!(v.is_valid(&json!({"dimension": "hour", "data_state": "HOURLY_ALL"})));
    assert!(!v.is_valid(&json!({"dimension": "hour"})));
    assert!(!v.is_valid(&json!({"dimension": "hour", "data_state": "ALL"})));
    assert!(!v.is_valid(&json!({"dimension": "query", "data_state": "HOURLY_ALL"})));
    assert!(v.is_valid(&json!({"dimension": "query"})));
}

/// The portable inputSchema of search_analytics (the default) has no top-level combinator; its
/// description states the rule, and the tool still refuses what breaks it.
#[test]
fn search_analytics_portable_schema_states_the_rule_and_the_tool_holds_it() {
    let toolbox = tools::toolbox();
    let tool = toolbox.get("search_analytics").unwrap();
    let schema = Value::Object(tool.input_schema());
    for k in ["allOf", "anyOf", "oneOf"] {
        assert!(schema.get(k).is_none(), "{k} at the top: {schema:#}");
    }
    assert_eq!(
        tool.description(),
        "Reports search clicks by one dimension. Hour rows exist only with data_state HOURLY_ALL. When dimension is \
         \"hour\", data_state must be \"HOURLY_ALL\". When data_state is \"HOURLY_ALL\", dimension must be \"hour\"."
    );
    let v = jsonschema::draft202012::new(&schema).unwrap();
    for (args, parameter) in [
        (json!({"dimension": "hour"}), "data_state"),
        (json!({"dimension": "hour", "data_state": "ALL"}), "data_state"),
        (json!({"dimension": "query", "data_state": "HOURLY_ALL"}), "dimension"),
    ] {
        assert!(v.is_valid(&args), "{args}");
        let env = block_on(toolbox.call("search_analytics", Some(&args))).unwrap().to_value();
        assert_eq!((env["status"].as_str(), env["hints"]["parameter"].as_str()), (Some("invalid"), Some(parameter)));
    }
    let ok =
        block_on(toolbox.call("search_analytics", Some(&json!({"dimension": "hour", "data_state": "HOURLY_ALL"}))));
    assert_eq!(ok.unwrap().to_value()["status"], "ok");
}

/// The twins below must be the example tools with `strict` on: same parameters, rules and
/// schema. If an example tool changes, change its twin.
#[test]
fn strict_twins_declare_the_example_rules() {
    let (lax, strict) = (tools::toolbox(), strict::toolbox());
    for name in TOOLS {
        let (l, s) = (lax.get(name).unwrap(), strict.get(name).unwrap());
        assert!(!l.strict() && s.strict(), "{name}");
        assert_eq!(l.spec().params, s.spec().params, "{name}: the strict twin's parameters differ");
        assert_eq!(l.input_schema(), s.input_schema(), "{name}: the strict twin's schema differs");
        assert_valid_2020_12(name, &Value::Object(s.input_schema()));
    }
}

// ---------------------------------------------------------------------------------------------
// Generators, derived from each parameter's declared type and rules.

/// A JSON integer for `n` (a float where it is beyond 64 bits, as a JSON parser would read it).
fn int_json(n: i128) -> Value {
    if let Ok(i) = i64::try_from(n) {
        json!(i)
    } else if let Ok(u) = u64::try_from(n) {
        json!(u)
    } else {
        json!(n as f64)
    }
}

/// A JSON number for a float (NaN and infinities have none: `null` stands in).
fn float_json(f: f64) -> Value {
    serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// Values of the wrong JSON type for any parameter, and odd ones.
fn wrong_type() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        Just(json!("")),
        Just(json!("ten")),
        Just(json!([])),
        Just(json!([1])),
        Just(json!({})),
        Just(json!({"value": 1})),
        Just(json!(0)),
        Just(json!(1.5)),
        Just(json!(-1)),
        Just(json!("x".repeat(5000))),
        Just(json!([[["deep"]]])),
    ]
    .boxed()
}

/// The bounds a rule and the type give an integer: `[min, max]`.
fn int_bounds(min: i128, max: i128, rules: &Rules) -> (i128, i128) {
    let (mut lo, mut hi) = (min, max);
    if let Some(r) = &rules.range {
        match r.min {
            Bound::Inclusive(Num::Int(a)) => lo = lo.max(a),
            Bound::Exclusive(Num::Int(a)) => lo = lo.max(a + 1),
            _ => {}
        }
        match r.max {
            Bound::Inclusive(Num::Int(b)) => hi = hi.min(b),
            Bound::Exclusive(Num::Int(b)) => hi = hi.min(b - 1),
            _ => {}
        }
    }
    (lo, hi)
}

fn integer(tmin: i128, tmax: i128, rules: &Rules, good: bool) -> BoxedStrategy<Value> {
    let (lo, hi) = int_bounds(tmin, tmax, rules);
    let mut inside: Vec<i128> = vec![lo, hi, lo + 1, hi - 1, 10, 1, 0];
    inside.retain(|n| (lo..=hi).contains(n));
    if let Some(Choices::Int(c)) = &rules.choices {
        inside = c.iter().map(|&x| i128::from(x)).collect();
    }
    let mut edges: Vec<i128> = vec![lo - 1, lo, hi, hi + 1, tmin - 1, tmin, tmax, tmax + 1, 0, -1, 48];
    if let Some(Choices::Int(c)) = &rules.choices {
        for &x in *c {
            edges.extend([i128::from(x) - 1, i128::from(x), i128::from(x) + 1]);
        }
    }
    let near = ((lo - 3)..=(hi + 3)).boxed();
    let pick = |v: Vec<i128>| proptest::sample::select(v).boxed();
    let number = prop_oneof![3 => pick(edges.clone()), 2 => near.clone()].boxed();
    if good {
        return prop_oneof![
            4 => pick(inside.clone()).prop_map(int_json),
            1 => near.prop_map(int_json),
        ]
        .boxed();
    }
    prop_oneof![
        6 => number.clone().prop_map(int_json),
        // Whole floats: 48.0 (documented lax coercion).
        3 => number.clone().prop_map(|n| json!(n as f64)),
        // Fractions.
        2 => number.clone().prop_map(|n| json!(n as f64 + 0.5)),
        // Numeric strings (documented lax coercion), and strings that are not plain digits.
        3 => number.clone().prop_map(|n| json!(n.to_string())),
        2 => (number, 0..8usize).prop_map(|(n, k)| json!(match k {
            0 => format!("0{n}"),
            1 => format!("+{n}"),
            2 => format!(" {n}"),
            3 => format!("{n} "),
            4 => format!("{n}.0"),
            5 => format!("{n}e0"),
            6 => format!("{n}.5"),
            _ => format!("0x{n:x}"),
        })),
        1 => proptest::sample::select(vec![
            json!(1e20), json!(-1e20), json!(1e300), json!(-1e300), json!(1.8446744073709552e19),
            json!(-9.223372036854776e18), json!("1e2"), json!("٤٨"), json!("-"), json!("NaN"),
            json!(18_446_744_073_709_551_615u64), json!(i64::MIN), json!(-0.0),
        ]),
        2 => wrong_type(),
    ]
    .boxed()
}

/// The next float above / below (`f64::next_up` / `next_down`).
fn next_up(f: f64) -> f64 {
    f.next_up()
}
fn next_down(f: f64) -> f64 {
    f.next_down()
}

fn number(rules: &Rules, good: bool) -> BoxedStrategy<Value> {
    let (lo, hi) = match &rules.range {
        Some(r) => {
            let b = |x: Bound| match x {
                Bound::Unbounded => None,
                Bound::Inclusive(n) | Bound::Exclusive(n) => Some(n.as_f64()),
            };
            (b(r.min), b(r.max))
        }
        None => (None, None),
    };
    let mut edges: Vec<f64> = vec![0.0, -0.0, 5e-324, -5e-324, 1.0, -1.0, 0.5, 1e300, -1e300];
    let mut inside: Vec<f64> = Vec::new();
    for b in [lo, hi].into_iter().flatten() {
        edges.extend([b, next_up(b), next_down(b), b - 1e-9, b + 1e-9, b - 1.0, b + 1.0]);
    }
    if let Some(r) = &rules.range {
        if let Bound::Inclusive(a) = r.min {
            inside.extend([a.as_f64(), next_up(a.as_f64())]);
        }
        if let Bound::Exclusive(a) = r.min {
            inside.push(next_up(a.as_f64()));
        }
        if let Bound::Inclusive(b) = r.max {
            inside.extend([b.as_f64(), next_down(b.as_f64())]);
        }
        if let Bound::Exclusive(b) = r.max {
            inside.push(next_down(b.as_f64()));
        }
    }
    if inside.is_empty() {
        inside.push(0.5);
    }
    let (a, b) = (lo.unwrap_or(-1e6) - 1.0, hi.unwrap_or(1e6) + 1.0);
    let uniform = (a..b).boxed();
    if good {
        let (ia, ib) = (lo.unwrap_or(-1e6), hi.unwrap_or(1e6));
        return prop_oneof![
            3 => proptest::sample::select(inside).prop_map(float_json),
            2 => (ia..ib).prop_map(float_json),
        ]
        .boxed();
    }
    let num = prop_oneof![3 => proptest::sample::select(edges), 2 => uniform].boxed();
    prop_oneof![
        6 => num.clone().prop_map(float_json),
        // Whole numbers sent as JSON integers.
        1 => proptest::sample::select(vec![json!(0), json!(1), json!(-1), json!(2), json!(u64::MAX)]),
        // Numeric strings (documented lax coercion), and near misses.
        3 => num.clone().prop_map(|f| json!(f.to_string())),
        2 => proptest::sample::select(vec![
            ".5", "+0.5", "5e-1", "0.5e0", "1E-3", "5.", "-0", "00.5", " 0.5", "0.5 ", "0,5", "NaN", "nan",
            "inf", "-inf", "infinity", "1e400", "0x1", "1_0", "½", "", "0.5.5", "--1",
        ])
        .prop_map(|s| json!(s)),
        2 => wrong_type(),
    ]
    .boxed()
}

fn boolean(good: bool) -> BoxedStrategy<Value> {
    if good {
        return prop_oneof![Just(json!(true)), Just(json!(false))].boxed();
    }
    prop_oneof![
        4 => prop_oneof![Just(json!(true)), Just(json!(false))],
        // The documented lax coercion, and strings that are not it.
        3 => proptest::sample::select(vec!["true", "false"]).prop_map(|s| json!(s)),
        2 => proptest::sample::select(vec!["True", "FALSE", "1", "0", "yes", "no", "", " true", "t"])
            .prop_map(|s| json!(s)),
        1 => proptest::sample::select(vec![json!(0), json!(1), json!(0.0)]),
        2 => wrong_type(),
    ]
    .boxed()
}

/// Near misses of an accepted string: case changes, a letter dropped, added or doubled, spaces.
fn near_misses(s: &str) -> BoxedStrategy<String> {
    let s = s.to_owned();
    let n = s.chars().count().max(1);
    (0..10usize, 0..n)
        .prop_map(move |(k, i)| {
            let chars: Vec<char> = s.chars().collect();
            match k {
                0 => s.to_uppercase(),
                1 => s.to_lowercase(),
                2 => {
                    let mut c = chars.clone();
                    if let Some(x) = c.get_mut(i) {
                        *x = if x.is_uppercase() { x.to_ascii_lowercase() } else { x.to_ascii_uppercase() };
                    }
                    c.into_iter().collect()
                }
                3 => chars.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, c)| *c).collect(),
                4 => {
                    let mut c = chars.clone();
                    if i < c.len() {
                        c.insert(i, c[i]);
                    }
                    c.into_iter().collect()
                }
                5 => format!("{s} "),
                6 => format!(" {s}"),
                7 => format!("{s}\n"),
                8 => format!("{s}s"),
                _ => {
                    let mut c = chars.clone();
                    if i < c.len() {
                        c[i] = 'é';
                    }
                    c.into_iter().collect()
                }
            }
        })
        .boxed()
}

/// Characters of 1 to 4 UTF-8 bytes, a combining accent, and characters JSON escapes.
const ALPHABET: &[char] = &['a', 'Z', '0', '-', ' ', 'ü', '日', '😀', '\u{301}', '\n', '"', '\\', '\u{0}'];

fn text(len: impl Strategy<Value = usize> + 'static) -> BoxedStrategy<String> {
    len.prop_flat_map(|n| proptest::collection::vec(proptest::sample::select(ALPHABET), n))
        .prop_map(|c| c.into_iter().collect())
        .boxed()
}

/// Lengths at and around a length rule's edges.
fn lengths_near(min: usize, max: usize) -> BoxedStrategy<usize> {
    let top = if max == usize::MAX { min + 40 } else { max };
    let mut l = vec![min, min + 1, top, top.saturating_sub(1), top + 1];
    if min > 0 {
        l.push(min - 1);
    }
    prop_oneof![3 => proptest::sample::select(l), 1 => 0..=top + 2].boxed()
}

/// The regex without its anchors, for proptest's generator (which has no anchors).
fn unanchored(src: &str) -> &str {
    let s = src.strip_prefix('^').unwrap_or(src);
    s.strip_suffix('$').unwrap_or(s)
}

fn string(rules: &Rules, good: bool) -> BoxedStrategy<Value> {
    let mut good_s: Vec<BoxedStrategy<String>> = Vec::new();
    let mut bad_s: Vec<BoxedStrategy<String>> = Vec::new();
    if let Some(Choices::Str(c)) = &rules.choices {
        let c: Vec<String> = c.iter().map(|s| (*s).to_owned()).collect();
        good_s.push(proptest::sample::select(c.clone()).boxed());
        bad_s.push(proptest::sample::select(c).prop_flat_map(|s| near_misses(&s)).boxed());
    }
    if let Some(p) = &rules.pattern {
        if let Ok(valid) = proptest::string::string_regex(unanchored(p.source)) {
            let valid = valid.boxed();
            good_s.push(valid.clone());
            bad_s.push(valid.prop_flat_map(|s| near_misses(&s)).boxed());
        }
        if let Some(e) = p.example {
            good_s.push(Just(e.to_owned()).boxed());
        }
    }
    if let Some(l) = &rules.length {
        if l.unit == Unit::Characters {
            let fit = l.min..=l.max.min(l.min + 60);
            good_s.push(text(fit).boxed());
            bad_s.push(text(lengths_near(l.min, l.max)));
        } else {
            bad_s.push(text(lengths_near(l.min, l.max)));
        }
    }
    if good_s.is_empty() {
        good_s.push(text(0..20usize));
    }
    bad_s.push(text(0..12usize));
    bad_s.push(Just("x".repeat(300)).boxed());
    bad_s.push(Just("ü".repeat(121)).boxed());
    let good_s = proptest::strategy::Union::new(good_s).boxed();
    if good {
        return good_s.prop_map(Value::String).boxed();
    }
    let bad_s = proptest::strategy::Union::new(bad_s).boxed();
    prop_oneof![
        4 => good_s.prop_map(Value::String),
        5 => bad_s.prop_map(Value::String),
        2 => wrong_type(),
        // A number where a string is wanted: never coerced.
        1 => proptest::sample::select(vec![json!(48), json!(0.5), json!(true)]),
    ]
    .boxed()
}

fn array(item: &Ty, rules: &Rules, good: bool) -> BoxedStrategy<Value> {
    let (min, max) = match &rules.length {
        Some(l) => (l.min, l.max),
        None => (0, usize::MAX),
    };
    let item_rules = rules.items.as_deref().cloned().unwrap_or_default();
    let good_item = value(item, &item_rules, true);
    let any_item = prop_oneof![8 => good_item.clone(), 1 => value(item, &item_rules, false)].boxed();
    let top = if max == usize::MAX { min + 6 } else { max };
    if good {
        return proptest::collection::vec(good_item, min..=top).prop_map(Value::Array).boxed();
    }
    prop_oneof![
        4 => lengths_near(min, max)
            .prop_flat_map(move |n| proptest::collection::vec(any_item.clone(), n))
            .prop_map(Value::Array),
        2 => proptest::collection::vec(good_item, min..=top + 2).prop_map(Value::Array),
        // One item where an array is wanted.
        1 => value(item, &item_rules, false),
        1 => wrong_type(),
    ]
    .boxed()
}

/// A value for a parameter (or an item) of type `ty` under `rules`; `good` biases it to the
/// accepted set (for items, so that arrays are often accepted as a whole).
fn value(ty: &Ty, rules: &Rules, good: bool) -> BoxedStrategy<Value> {
    match ty {
        Ty::Integer { min, max } => integer(*min, *max, rules, good),
        Ty::Number => number(rules, good),
        Ty::Boolean => boolean(good),
        Ty::String => string(rules, good),
        Ty::Enum(names) => {
            let rules = rules.clone().with_choices(Choices::Str(names));
            string(&rules, good)
        }
        Ty::Array(item) => array(item, rules, good),
        // No example tool takes an object or any JSON value yet: odd values only.
        _ => wrong_type(),
    }
}

/// A parameter's entry: absent (`None`), `null`, or a value, mostly accepted.
fn entry(p: &ParamSpec) -> BoxedStrategy<Option<Value>> {
    let v = prop_oneof![3 => value(&p.ty, &p.rules, true), 4 => value(&p.ty, &p.rules, false)];
    let (absent, null) = if p.required { (1, 1) } else { (4, 2) };
    prop_oneof![
        12 => v.prop_map(Some),
        absent => Just(None),
        null => Just(Some(Value::Null)),
    ]
    .boxed()
}

/// Names that are not parameters: near misses of the real ones, and others.
fn extra_names(params: &[ParamSpec]) -> BoxedStrategy<String> {
    let names: Vec<String> = params.iter().map(|p| p.name.to_owned()).collect();
    prop_oneof![
        2 => proptest::sample::select(names).prop_flat_map(|n| near_misses(&n)),
        1 => proptest::sample::select(vec![
            String::new(), "limit".to_owned(), "arguments".to_owned(), "__proto__".to_owned(), "x".repeat(60),
        ]),
    ]
    .boxed()
}

/// Random arguments for a tool: each parameter present, absent or `null`; sometimes extra
/// names; sometimes not an object at all, or the object sent as a JSON string.
fn arguments(tool: &Tool) -> BoxedStrategy<Value> {
    let params = tool.spec().params.clone();
    let entries: Vec<BoxedStrategy<Option<Value>>> = params.iter().map(entry).collect();
    let names: Vec<String> = params.iter().map(|p| p.name.to_owned()).collect();
    let extras = prop_oneof![
        10 => Just(Vec::new()),
        2 => proptest::collection::vec((extra_names(&params), wrong_type()), 1..=2),
        // An extra name whose value is null is still refused.
        1 => extra_names(&params).prop_map(|n| vec![(n, Value::Null)]),
    ];
    let object = (entries, extras)
        .prop_map(move |(values, extras)| {
            let mut m = Map::new();
            for (name, v) in names.iter().zip(values) {
                if let Some(v) = v {
                    m.insert(name.clone(), v);
                }
            }
            for (name, v) in extras {
                m.entry(name).or_insert(v);
            }
            Value::Object(m)
        })
        .boxed();
    prop_oneof![
        30 => object.clone(),
        // Arguments sent as a JSON string holding the object (documented lax coercion).
        2 => object.prop_map(|o| Value::String(o.to_string())),
        1 => proptest::sample::select(vec![json!([]), json!("{}"), json!(1), json!("x"), json!(null), json!({})]),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// The differential check.

/// A disagreement that is a bug of the library today, allowed by the main tests (and counted)
/// and pinned by an `#[ignore]`d test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum KnownBug {
    /// A whole float (`48.0`) for an integer, strict: JSON Schema counts `48.0` an integer
    /// (2020-12 Validation §6.1.1: "any number with a zero fractional part") and accepts it; a
    /// strict tool refuses it.
    StrictWholeFloat,
}

/// How one case came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    /// Both accept.
    BothOk,
    /// Both refuse.
    BothRefuse,
    /// The tool accepts a documented lax coercion the schema refuses.
    Coercion,
    /// The documented exemption: `null` for a parameter that is not required, read as absent
    /// by the tool, outside the plain `type` of the schema.
    NullIsAbsent,
    /// Portable schema: the tool refuses a combination for a cross-field rule that the full
    /// schema holds and the description states.
    RuleStated,
    /// An allowed known bug.
    Known(KnownBug),
}

struct Harness {
    toolbox: Toolbox,
    tool: Tool,
    schema: jsonschema::Validator,
    lax: bool,
    allow_known: bool,
    /// Portable form: the full schema's validator, and the sentences the description adds.
    portable: Option<(jsonschema::Validator, String)>,
}

impl Harness {
    /// The full `inputSchema` held to the runtime.
    fn new(toolbox: Toolbox, name: &str, allow_known: bool) -> Self {
        Harness::of(toolbox.with_full_input_schema(), name, allow_known, false)
    }

    /// `portable`: the default (portable) `inputSchema` of `toolbox`, else its full one.
    fn of(toolbox: Toolbox, name: &str, allow_known: bool, portable: bool) -> Self {
        let full = toolbox.clone().with_full_input_schema();
        let toolbox = if portable { toolbox } else { full.clone() };
        let tool = toolbox.get(name).unwrap().clone();
        let lax = !tool.strict();
        let schema = jsonschema::draft202012::new(&Value::Object(tool.input_schema())).expect("a valid schema");
        let portable = portable.then(|| {
            let full_tool = full.get(name).unwrap();
            let validator =
                jsonschema::draft202012::new(&Value::Object(full_tool.input_schema())).expect("a valid schema");
            let added = tool.description().strip_prefix(full_tool.description()).unwrap_or("").to_owned();
            (validator, added)
        });
        // The property is about reading arguments: records kept for no time, so a random
        // idempotency_key drawn twice is never replayed or refused as reused.
        let toolbox = toolbox.with_idempotency_ttl(std::time::Duration::ZERO);
        Harness { toolbox, tool, schema, lax, allow_known, portable }
    }

    /// Portable form: the tool refused `args` (its envelope `env`) for a rule the full schema
    /// holds and the description states (names the refused parameter in a sentence it adds).
    fn rule_stated(&self, args: &Value, env: &Value) -> bool {
        let Some((full, added)) = &self.portable else { return false };
        let parameter = env["hints"]["parameter"].as_str().unwrap_or("");
        let base = if self.lax { self.undo_coercions(args) } else { args.clone() };
        let base = self.drop_null_optionals(&base);
        !full.is_valid(&base) && !parameter.is_empty() && added.contains(&format!(" {parameter} "))
    }

    /// The tool's envelope for `args`, through the toolbox.
    fn call(&self, args: &Value) -> Value {
        block_on(self.toolbox.call(self.tool.name(), Some(args))).expect("a known tool").to_value()
    }

    fn runtime_ok(&self, args: &Value) -> Result<bool, String> {
        let env = self.call(args);
        match env["status"].as_str() {
            Some("ok") => Ok(true),
            Some("invalid") => Ok(false),
            _ => Err(format!("neither ok nor invalid: {env}")),
        }
    }

    /// The arguments with the documented lax coercions undone: each value the tool would
    /// coerce, as the JSON value it is read as.
    fn undo_coercions(&self, args: &Value) -> Value {
        let mut args = args.clone();
        if let Value::String(s) = &args {
            // Arguments sent as a JSON string holding an object.
            if let Ok(o @ Value::Object(_)) = serde_json::from_str::<Value>(s) {
                args = o;
            }
        }
        let Value::Object(m) = &mut args else { return args };
        for p in &self.tool.spec().params {
            let Some(v) = m.get_mut(p.name) else { continue };
            let Value::String(s) = &*v else { continue };
            let coerced = match p.ty {
                // "48", "-3": plain decimal digits, optionally negative.
                Ty::Integer { .. } => {
                    let digits = s.strip_prefix('-').unwrap_or(s);
                    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                        s.parse::<i128>().ok().map(int_json)
                    } else {
                        None
                    }
                }
                // "0.5", "-1e-3", ".5": a finite decimal number, no surrounding space.
                Ty::Number => s.parse::<f64>().ok().filter(|f| f.is_finite() && s.trim() == s).map(float_json),
                Ty::Boolean => match s.as_str() {
                    "true" => Some(json!(true)),
                    "false" => Some(json!(false)),
                    _ => None,
                },
                _ => None,
            };
            if let Some(c) = coerced {
                *v = c;
            }
        }
        args
    }

    /// `null` removed from parameters that are not required (the exemption `NullIsAbsent`).
    fn drop_null_optionals(&self, args: &Value) -> Value {
        let mut args = args.clone();
        if let Value::Object(m) = &mut args {
            for p in self.tool.spec().params.iter().filter(|p| !p.required) {
                if m.get(p.name).is_some_and(Value::is_null) {
                    m.remove(p.name);
                }
            }
        }
        args
    }

    /// Whole floats for integer parameters as JSON integers (known bug `StrictWholeFloat`).
    fn whole_floats_as_integers(&self, args: &Value) -> Value {
        let mut args = args.clone();
        if let Value::Object(m) = &mut args {
            for p in &self.tool.spec().params {
                if let (Ty::Integer { .. }, Some(Value::Number(n))) = (&p.ty, m.get(p.name))
                    && let Some(f) = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0 && f.abs() < 9e18)
                {
                    m.insert(p.name.to_owned(), json!(f as i64));
                }
            }
        }
        args
    }

    /// Checks one case: `Ok` with how it came out, or `Err` describing the disagreement.
    fn check(&self, args: &Value) -> Result<Verdict, String> {
        let schema_ok = self.schema.is_valid(args);
        let runtime_ok = self.runtime_ok(args)?;
        match (schema_ok, runtime_ok) {
            (true, true) => return Ok(Verdict::BothOk),
            (false, false) => return Ok(Verdict::BothRefuse),
            (false, true) => {
                if self.lax {
                    let undone = self.undo_coercions(args);
                    if undone != *args && self.schema.is_valid(&undone) {
                        return Ok(Verdict::Coercion);
                    }
                }
                let base = if self.lax { self.undo_coercions(args) } else { args.clone() };
                let undone = self.drop_null_optionals(&base);
                if undone != base && self.schema.is_valid(&undone) {
                    return Ok(Verdict::NullIsAbsent);
                }
            }
            (true, false) => {
                if self.rule_stated(args, &self.call(args)) {
                    return Ok(Verdict::RuleStated);
                }
                if !self.lax && self.allow_known {
                    let undone = self.whole_floats_as_integers(args);
                    if undone != *args && self.schema.is_valid(&undone) && self.runtime_ok(&undone)? {
                        return Ok(Verdict::Known(KnownBug::StrictWholeFloat));
                    }
                }
            }
        }
        Err(format!(
            "{} ({}): the schema {} and the tool {}\narguments: {args}\nenvelope: {}",
            self.tool.name(),
            if self.lax { "lax" } else { "strict" },
            if schema_ok { "accepts" } else { "refuses" },
            if runtime_ok { "accepts" } else { "refuses" },
            self.call(args),
        ))
    }
}

/// Runs the property on `h`: how the cases came out, or the first disagreement (shrunk).
fn run(h: &Harness, cases: u32) -> Result<BTreeMap<Verdict, u32>, String> {
    let strategy = arguments(&h.tool);
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    let counts: RefCell<BTreeMap<Verdict, u32>> = RefCell::new(BTreeMap::new());
    runner
        .run(&strategy, |args| {
            let verdict = h.check(&args).map_err(TestCaseError::fail)?;
            *counts.borrow_mut().entry(verdict).or_default() += 1;
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    Ok(counts.into_inner())
}

/// The property for one example tool and mode, asserted, on the full `inputSchema`.
fn differential(name: &str, lax: bool, allow_known: bool) {
    differential_of(name, lax, allow_known, false);
}

/// The property for one example tool, mode and form of the `inputSchema`, asserted.
fn differential_of(name: &str, lax: bool, allow_known: bool, portable: bool) {
    let toolbox = if lax { tools::toolbox() } else { strict::toolbox() };
    let h = Harness::of(toolbox, name, allow_known, portable);
    assert_eq!(h.lax, lax, "{name}");
    let counts = match run(&h, CASES) {
        Ok(c) => c,
        Err(e) => panic!("schema and runtime disagree (minimal case after shrinking):\n{e}"),
    };
    // The generator reaches both sides of the contract, and the coercions when lax.
    let total: u32 = counts.values().sum();
    assert!(total >= CASES, "{name}: ran {total} cases");
    for v in [Verdict::BothOk, Verdict::BothRefuse] {
        let n = counts.get(&v).copied().unwrap_or(0);
        assert!(n >= CASES / 20, "{name}: only {n} cases of {v:?} in {total}: {counts:?}");
    }
    if lax {
        let n = counts.get(&Verdict::Coercion).copied().unwrap_or(0);
        assert!(n >= CASES / 200, "{name}: only {n} coerced cases in {total}: {counts:?}");
    }
    // The portable schema of a tool with a cross-field rule lets combinations through that the
    // tool refuses, each for a rule its description states; the full one, none.
    let stated = counts.get(&Verdict::RuleStated).copied().unwrap_or(0);
    if portable && !h.tool.spec().params.iter().all(|p| p.requires.is_empty() && p.excludes.is_empty()) {
        assert!(stated >= CASES / 200, "{name}: only {stated} cases refused for a stated rule: {counts:?}");
    } else {
        assert_eq!(stated, 0, "{name}: {counts:?}");
    }
}

/// The check has teeth: where schema and runtime do differ, it finds the case. A
/// `byte_length` rule has no JSON Schema keyword (it is stated in the description only). An
/// `ignore_case` rule, whose schema is a case-blind `pattern`, agrees.
#[test]
fn the_check_finds_a_disagreement() {
    use envelope_core::tool;

    /// Takes a label of at most 8 bytes.
    #[tool(strict)]
    fn label(#[validate(byte_length = 1..=8)] label: String) -> String {
        label
    }
    /// Takes a state in any case.
    #[tool(strict)]
    fn state(#[validate(choices = ["ALL", "HOURLY_ALL"], ignore_case)] state: String) -> String {
        state
    }
    let toolbox = Toolbox::new().with(label::tool()).with(state::tool());
    match run(&Harness::new(toolbox.clone(), "label", true), 2000) {
        Ok(counts) => panic!("label: no disagreement found: {counts:?}"),
        Err(e) => assert!(e.contains("the schema accepts and the tool refuses"), "label: {e}"),
    }
    if let Err(e) = run(&Harness::new(toolbox, "state", true), 2000) {
        panic!("state: {e}");
    }
}

macro_rules! differential_tests {
    ($($tool:ident),*) => {
        /// Lax: the example tools; every disagreement is a documented coercion.
        mod lax {
            $(
                #[test]
                fn $tool() {
                    super::differential(stringify!($tool), true, true);
                }
            )*
        }
        /// Strict twins: the verdicts agree on every value.
        mod strict_agree {
            $(
                #[test]
                fn $tool() {
                    super::differential(stringify!($tool), false, true);
                }
            )*
        }
        /// The portable inputSchema (the default), lax and strict: the verdicts agree but for
        /// the documented exemptions and the cross-field rules the description states.
        mod portable {
            $(
                #[test]
                fn $tool() {
                    super::differential_of(stringify!($tool), true, true, true);
                    super::differential_of(stringify!($tool), false, true, true);
                }
            )*
        }
    };
}

differential_tests!(get_top_queries, search_analytics, create_note, set_threshold);

// ---------------------------------------------------------------------------------------------
// The known bugs, pinned: each `#[ignore]`d test fails today and passes once the bug is fixed;
// then remove its `KnownBug` exception above.

/// The same property with no exception for known bugs, strict and lax, every tool.
#[test]
fn differential_without_known_bug_exceptions() {
    for name in TOOLS {
        differential(name, false, false);
        differential(name, true, false);
    }
}

/// The documented exemption, exactly: the tool serves `null` for a parameter that is not
/// required (as absent), its schema names the plain type, and without the `null` members the
/// schema accepts the same call.
#[test]
fn null_for_an_optional_parameter_is_the_one_exemption() {
    let (lax, strict) = (tools::toolbox(), strict::toolbox());
    for (name, args, without) in [
        (
            "get_top_queries",
            json!({"hours_back": 24, "group_by": "database", "top": null}),
            json!({"hours_back": 24, "group_by": "database"}),
        ),
        (
            "search_analytics",
            json!({"dimension": "query", "data_state": null, "row_limit": null}),
            json!({"dimension": "query"}),
        ),
        ("create_note", json!({"title": "t", "tags": null, "pinned": null}), json!({"title": "t"})),
    ] {
        for toolbox in [&lax, &strict] {
            let tool = toolbox.get(name).unwrap();
            let env = block_on(tool.call(Some(&args))).to_value();
            assert_eq!(env["status"], "ok", "{name}: {env}");
            let schema_json = Value::Object(tool.input_schema());
            for p in tool.spec().params.iter().filter(|p| !p.required) {
                let ty = &schema_json["properties"][p.name]["type"];
                assert!(ty.is_string(), "{name}.{}: a plain type, not {ty}", p.name);
            }
            let schema = jsonschema::draft202012::new(&schema_json).unwrap();
            assert!(!schema.is_valid(&args), "{name}: the schema admits null: {args}");
            assert!(schema.is_valid(&without), "{name}: {without}");
        }
    }
}

#[test]
fn strict_whole_float_agrees() {
    let tool = strict::get_top_queries::tool();
    let args = json!({"hours_back": 48.0, "group_by": "database"});
    let schema = jsonschema::draft202012::new(&Value::Object(tool.input_schema())).unwrap();
    assert!(schema.is_valid(&args));
    let env = block_on(tool.call(Some(&args))).to_value();
    assert_eq!(env["status"], "ok", "the schema accepts 48.0 for an integer; the strict tool refuses it: {env}");
}
