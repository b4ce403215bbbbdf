//! Kinds of public bug reports about tool-argument validation (MCP SDKs, pydantic, zod, serde,
//! validator, garde) that envelope failed (issue 11): each reported input and its neighbours of
//! the same kind, with the value a user sees. The formats' kind is `formats.rs`.

use envelope_core::{Object, Toolbox, tool};
use serde::Serialize;
use serde_json::{Value, json};

use crate::block_on;

// ---------------------------------------------------------------------------------------------
// Tools shaped like the reports.

/// A density: 0 itself is not a density (an exclusive lower bound).
#[tool]
fn density(#[validate(range(exclusive_min = 0.0, max = 1.0))] density: f64) -> f64 {
    density
}

/// The workaround the report tried before `exclusive_min` existed.
#[tool]
fn density_workaround(#[validate(range = 5e-324..=1.0)] density: f64) -> f64 {
    density
}

/// Both bounds exclusive, on a float.
#[tool]
fn open_interval(#[validate(range(exclusive_min = -1.5, exclusive_max = 1.5))] x: f64) -> f64 {
    x
}

/// Only an exclusive upper bound.
#[tool]
fn below_zero(#[validate(range(exclusive_max = 0))] x: f64) -> f64 {
    x
}

/// Only an inclusive lower bound, by name.
#[tool]
fn at_least(#[validate(range(min = 0.5))] x: f64) -> f64 {
    x
}

/// A tiny exclusive bound: printed short.
#[tool]
fn tiny(#[validate(range(exclusive_min = 1e-300, max = 1e300))] x: f64) -> f64 {
    x
}

/// Exclusive bounds on an integer: the whole numbers strictly between.
#[tool]
fn qty_open(#[validate(range(exclusive_min = 0, exclusive_max = 10))] qty: u32) -> u32 {
    qty
}

/// The named form of `range = 1..=720`.
#[tool]
fn hours_named(#[validate(range(min = 1, max = 720))] hours_back: u32) -> u32 {
    hours_back
}

/// `range = 1..=720`, to compare with the named form.
#[tool]
fn hours_rust(#[validate(range = 1..=720)] hours_back: u32) -> u32 {
    hours_back
}

/// An order line.
#[derive(Object, Serialize)]
struct Line {
    /// How many.
    #[validate(range = 1..=10)]
    n: u32,
    /// A note.
    note: Option<String>,
}

/// Places an order.
#[tool]
fn order(
    #[validate(range = 1..=10)] qty: u32,
    line: Option<Line>,
    #[validate(secret)] token: Option<String>,
    extra: Option<Value>,
) -> Value {
    json!({"qty": qty, "line": line.map(|l| json!({"n": l.n, "note": l.note})), "token": token.is_some(), "extra": extra})
}

/// A user.
#[derive(Object, Serialize)]
struct User {
    /// Their name.
    name: String,
    /// Their age.
    #[validate(range = 0..=150)]
    age: Option<u32>,
}

/// Greets a user (lax).
#[tool]
fn greet(user: User, tags: Option<Vec<String>>, note: Option<String>, users: Option<Vec<User>>) -> Value {
    json!({"user": user, "tags": tags, "note": note, "users": users})
}

/// Greets a user (strict).
#[tool(strict)]
fn greet_strict(user: User, tags: Option<Vec<String>>, note: Option<String>) -> Value {
    json!({"user": user, "tags": tags, "note": note})
}

/// Numbers in every position a refusal can quote them.
#[tool]
fn numbers(
    #[validate(range = 1..=720)] hours: Option<u32>,
    #[validate(range = 0.0..1.0)] ratio: Option<f64>,
    #[validate(each(range = 1..=10))] xs: Option<Vec<u32>>,
    user: Option<User>,
    #[validate(choices = [1, 7, 30])] days: Option<u32>,
    #[validate(excludes = "ratio")] limit: Option<f64>,
) -> bool {
    let _ = (hours, ratio, xs, user, days, limit);
    true
}

/// Patterns anchored four ways.
#[tool]
fn patterns(
    #[validate(pattern = "baz")] search: Option<String>,
    #[validate(pattern = "^ab")] start: Option<String>,
    #[validate(pattern = "ab$")] end: Option<String>,
    #[validate(pattern = "^ab$")] full: Option<String>,
    #[validate(pattern = "^a|b$")] either: Option<String>,
    #[validate(pattern = "^\\d+$")] code: Option<String>,
    #[validate(pattern = "^\\w.$")] word: Option<String>,
) -> bool {
    let _ = (search, start, end, full, either, code, word);
    true
}

/// A number and an integer, lax.
#[tool]
fn finite(x: Option<f64>, #[validate(range = 1..=100)] n: Option<u32>) -> bool {
    let _ = (x, n);
    true
}

/// The same, strict.
#[tool(strict)]
fn finite_strict(x: Option<f64>) -> bool {
    let _ = x;
    true
}

/// Lists the queries that spent the most time.
#[tool]
fn top_queries(
    #[validate(range = 1..=720)] hours_back: u32,
    #[validate(choices = ["query_hash", "database", "application"])] group_by: String,
    #[validate(range = 1..=100, default = 10)] top: u32,
) -> u32 {
    hours_back + top + u32::try_from(group_by.len()).unwrap_or(0)
}

fn toolbox() -> Toolbox {
    [
        density::tool(),
        density_workaround::tool(),
        open_interval::tool(),
        below_zero::tool(),
        at_least::tool(),
        tiny::tool(),
        qty_open::tool(),
        hours_named::tool(),
        hours_rust::tool(),
        order::tool(),
        greet::tool(),
        greet_strict::tool(),
        numbers::tool(),
        patterns::tool(),
        finite::tool(),
        finite_strict::tool(),
        top_queries::tool(),
    ]
    .into_iter()
    .fold(Toolbox::new(), Toolbox::with)
}

/// The envelope of a call with the arguments as JSON text (the raw-text path a server takes).
fn text(tool: &str, args: &str) -> Value {
    block_on(toolbox().call_json(tool, args)).expect("a test tool").to_value()
}

/// The envelope of a call with a parsed `serde_json::Value`.
fn value(tool: &str, args: &Value) -> Value {
    block_on(toolbox().call(tool, Some(args))).expect("a test tool").to_value()
}

fn schema(tool: &str) -> Value {
    Value::Object(toolbox().get(tool).expect("a test tool").input_schema())
}

#[track_caller]
fn assert_ok(env: &Value, data: &Value) {
    assert_eq!(env["status"], "ok", "expected ok with {data}, got {env}");
    assert_eq!(env["data"], *data, "{env}");
}

#[track_caller]
fn assert_refused(env: &Value, parameter: &str, rejected: Option<&str>, message: &str) {
    assert_eq!(env["status"], "invalid", "expected a refusal, got {env}");
    assert_eq!(env["message"], message, "{env}");
    assert_eq!(env["hints"]["parameter"], parameter, "{env}");
    assert_eq!(env["hints"].get("rejected").and_then(Value::as_str), rejected, "{env}");
}

// ---------------------------------------------------------------------------------------------
// 1. An exclusive lower bound, `range(min, max, exclusive_min, exclusive_max)`.

#[test]
fn exclusive_min_refuses_the_bound_itself_and_says_so() {
    let accepted = "a number greater than 0 (0 itself not allowed) and at most 1";
    let sentence = |shown: &str| {
        format!(
            "density: {shown} is out of range; accepted: {accepted}. Send a value greater than 0 (0 itself not allowed) and at most 1."
        )
    };
    assert_refused(&value("density", &json!({"density": 0})), "density", Some("0"), &sentence("0"));
    assert_refused(&value("density", &json!({"density": 0.0})), "density", Some("0.0"), &sentence("0.0"));
    assert_refused(&value("density", &json!({"density": -0.0})), "density", Some("-0.0"), &sentence("-0.0"));
    assert_refused(&value("density", &json!({"density": -5e-324})), "density", Some("-5e-324"), &sentence("-5e-324"));
    assert_refused(
        &value("density", &json!({"density": 1.0000000000000002})),
        "density",
        Some("1.0000000000000002"),
        &sentence("1.0000000000000002"),
    );
    assert_ok(&value("density", &json!({"density": 5e-324})), &json!(5e-324));
    assert_ok(&value("density", &json!({"density": 1})), &json!(1.0));
    assert_ok(&value("density", &json!({"density": 0.5})), &json!(0.5));
    // Missing: the accepted set and an example inside it.
    assert_refused(
        &value("density", &json!({})),
        "density",
        None,
        &format!(
            "density: required, but not sent; accepted: {accepted}. Add \"density\" to the arguments, like \"density\": 0.5."
        ),
    );
    let property = &schema("density")["properties"]["density"];
    assert_eq!((&property["exclusiveMinimum"], &property["maximum"]), (&json!(0.0), &json!(1.0)), "{property}");
    assert!(property.get("minimum").is_none(), "{property}");
}

#[test]
fn the_workaround_bound_prints_short() {
    let env = value("density_workaround", &json!({"density": 0}));
    assert_refused(
        &env,
        "density",
        Some("0"),
        "density: 0 is out of range; accepted: a number from 5e-324 to 1. Send a value from 5e-324 to 1.",
    );
    assert!(env.to_string().len() < 600, "no long decimal expansion: {env}");
}

#[test]
fn every_exclusive_and_named_form() {
    assert_refused(
        &value("open_interval", &json!({"x": 1.5})),
        "x",
        Some("1.5"),
        "x: 1.5 is out of range; accepted: a number greater than -1.5 and less than 1.5 (-1.5 and 1.5 themselves not allowed). Send a value greater than -1.5 and less than 1.5 (-1.5 and 1.5 themselves not allowed).",
    );
    assert_refused(
        &value("open_interval", &json!({"x": -1.5})),
        "x",
        Some("-1.5"),
        "x: -1.5 is out of range; accepted: a number greater than -1.5 and less than 1.5 (-1.5 and 1.5 themselves not allowed). Send a value greater than -1.5 and less than 1.5 (-1.5 and 1.5 themselves not allowed).",
    );
    assert_ok(&value("open_interval", &json!({"x": 1.4999999999999998})), &json!(1.4999999999999998));
    assert_refused(
        &value("below_zero", &json!({"x": 0})),
        "x",
        Some("0"),
        "x: 0 is out of range; accepted: a number less than 0 (0 itself not allowed). Send a value less than 0 (0 itself not allowed).",
    );
    assert_ok(&value("below_zero", &json!({"x": -5e-324})), &json!(-5e-324));
    assert_refused(
        &value("at_least", &json!({"x": 0.49})),
        "x",
        Some("0.49"),
        "x: 0.49 is out of range; accepted: a number of at least 0.5. Send a value of at least 0.5.",
    );
    assert_ok(&value("at_least", &json!({"x": 0.5})), &json!(0.5));
    assert_refused(
        &value("tiny", &json!({"x": 0})),
        "x",
        Some("0"),
        "x: 0 is out of range; accepted: a number greater than 1e-300 (1e-300 itself not allowed) and at most 1e300. Send a value greater than 1e-300 (1e-300 itself not allowed) and at most 1e300.",
    );
    assert_eq!(schema("tiny")["properties"]["x"]["exclusiveMinimum"], json!(1e-300));
    assert_eq!(schema("below_zero")["properties"]["x"]["exclusiveMaximum"], json!(0.0));
    assert_eq!(schema("at_least")["properties"]["x"]["minimum"], json!(0.5));
}

#[test]
fn exclusive_bounds_on_an_integer_are_the_whole_numbers_between() {
    let sentence =
        |n: &str| format!("qty: {n} is out of range; accepted: a whole number from 1 to 9. Send a value from 1 to 9.");
    assert_refused(&value("qty_open", &json!({"qty": 0})), "qty", Some("0"), &sentence("0"));
    assert_refused(&value("qty_open", &json!({"qty": 10})), "qty", Some("10"), &sentence("10"));
    assert_ok(&value("qty_open", &json!({"qty": 1})), &json!(1));
    assert_ok(&value("qty_open", &json!({"qty": 9})), &json!(9));
    let s = schema("qty_open");
    assert_eq!(s["properties"]["qty"]["minimum"], 1);
    assert_eq!(s["properties"]["qty"]["maximum"], 9);
}

#[test]
fn the_named_form_is_the_rust_range() {
    for args in [json!({"hours_back": 0}), json!({"hours_back": 721}), json!({"hours_back": 1}), json!({})] {
        let (a, b) = (value("hours_named", &args), value("hours_rust", &args));
        assert_eq!(a, b, "{args}");
    }
    assert_eq!(schema("hours_named")["properties"], schema("hours_rust")["properties"]);
}

// ---------------------------------------------------------------------------------------------
// 2. A key sent twice.

#[test]
fn a_key_sent_twice_is_refused_with_both_values() {
    assert_refused(
        &text("order", r#"{"qty": -1, "qty": 5}"#),
        "qty",
        Some("\"qty\": -1, \"qty\": 5"),
        "qty: \"qty\": -1, \"qty\": 5 sends the same key twice; accepted: \"qty\" once, with one value: a whole number from 1 to 10. Send \"qty\" once, with the one value you mean.",
    );
    // Even when both values are good, and the same.
    assert_refused(
        &text("order", r#"{"qty": 5, "qty": 5}"#),
        "qty",
        Some("\"qty\": 5, \"qty\": 5"),
        "qty: \"qty\": 5, \"qty\": 5 sends the same key twice; accepted: \"qty\" once, with one value: a whole number from 1 to 10. Send \"qty\" once, with the one value you mean.",
    );
    // Three times; an escape spelling the same key.
    let env = text("order", r#"{"qty": 1, "q\u0074y": 2, "qty": "3"}"#);
    assert_eq!(env["hints"]["rejected"], "\"qty\": 1, \"qty\": 2, \"qty\": \"3\"");
    assert!(env["message"].as_str().unwrap().contains("sends the same key 3 times"), "{env}");
    // A parsed Value cannot show it: served with the last value (documented on `call`).
    assert_ok(
        &value("order", &serde_json::from_str(r#"{"qty": -1, "qty": 5}"#).unwrap()),
        &json!({"qty": 5, "line": null, "token": false, "extra": null}),
    );
    // Without a duplicate, served as before.
    assert_eq!(text("order", r#"{"qty": 5}"#)["status"], "ok");
}

#[test]
fn a_key_sent_twice_in_a_nested_object_or_a_value() {
    let env = text("order", r#"{"qty": 1, "line": {"n": 1, "n": 2}}"#);
    assert_refused(
        &env,
        "line",
        Some("\"n\": 1, \"n\": 2"),
        "line.n: \"n\": 1, \"n\": 2 sends the same key twice; accepted: each key once, \"n\" with one value. Send \"n\" once, with the one value you mean.",
    );
    assert_eq!(env["hints"]["path"], "line.n");
    let env = text("order", r#"{"qty": 1, "extra": [{"k": true, "k": false}]}"#);
    assert_eq!(env["hints"]["path"], "extra[0].k", "{env}");
    // Keys of the same name in different objects are not duplicates.
    assert_eq!(text("order", r#"{"qty": 1, "line": {"n": 1}, "extra": {"qty": 2, "n": 3}}"#)["status"], "ok");
}

#[test]
fn a_key_sent_twice_comes_with_the_other_problems_of_the_text() {
    let env = text("order", r#"{"qty": 1, "qty": 2, "qtyy": 3}"#);
    let message = env["message"].as_str().unwrap();
    assert!(message.starts_with("qty: \"qty\": 1, \"qty\": 2 sends the same key twice;"), "{message}");
    assert!(message.contains("\nqtyy: \"qtyy\" is not a parameter of order"), "{message}");
}

/// The text that does not parse whole (a number past a double, an escape no character is, a
/// key whose escape names none) is read field by field, where a map of fields would keep a key's
/// last value: the key sent twice is refused all the same.
#[test]
fn a_key_sent_twice_is_refused_when_the_text_does_not_parse_whole() {
    for sent in
        [r#"{"qty": 1e400, "qty": 5}"#, r#"{"qty": "\udc00", "qty": 5}"#, r#"{"qty": 1, "qty": 5, "\ud800": 1}"#]
    {
        let env = text("order", sent);
        assert_eq!(env["status"], "invalid", "{sent}: {env}");
        assert!(env["message"].as_str().unwrap().starts_with("qty: "), "{sent}: {env}");
        assert!(env["message"].as_str().unwrap().contains("sends the same key twice"), "{sent}: {env}");
    }
}

#[test]
fn a_long_key_sent_twice_keeps_the_reply_short() {
    let key = "x".repeat(5000);
    let env = text("order", &format!(r#"{{"qty": 1, "{key}": 1, "{key}": 2}}"#));
    assert_eq!(env["status"], "invalid", "{env}");
    assert!(env.to_string().len() < 2048, "{} bytes", env.to_string().len());
    // The name is cut, and marked so: a name never sent is never quoted as if sent.
    assert_eq!(env["hints"]["parameter"], format!("{}…", "x".repeat(40)));
    assert_eq!(
        env["hints"]["rejected"],
        format!("\"{}…\" (5000 characters): 1, \"{}…\" (5000 characters): 2", "x".repeat(32), "x".repeat(32))
    );
}

#[test]
fn a_secret_sent_twice_is_not_echoed() {
    let env = text("order", r#"{"qty": 1, "token": "sk-first-secret", "token": "sk-second-secret"}"#);
    assert_refused(
        &env,
        "token",
        None,
        "token: was sent twice under one key (secret, the values not shown); accepted: \"token\" once, with one value: a string. Send \"token\" once, with the one value you mean.",
    );
    assert!(!env.to_string().contains("sk-"), "{env}");
}

// ---------------------------------------------------------------------------------------------
// 3. A container sent as JSON text.

#[test]
fn lax_reads_an_object_sent_as_text() {
    let env = value("greet", &json!({"user": "{\"name\": \"Ada\"}"}));
    assert_ok(&env, &json!({"user": {"name": "Ada", "age": null}, "tags": null, "note": null, "users": null}));
    // Its fields are read with their rules, at their path.
    let env = value("greet", &json!({"user": "{\"name\": \"Ada\", \"age\": 200}"}));
    assert_refused(
        &env,
        "user",
        Some("200"),
        "user.age: 200 is out of range; accepted: a whole number from 0 to 150. Send a value from 0 to 150.",
    );
    // Items of an array of objects, and the array itself, as text.
    let env =
        value("greet", &json!({"user": {"name": "Ada"}, "users": ["{\"name\": \"Bo\"}"], "tags": "[\"a\", \"b\"]"}));
    assert_ok(
        &env,
        &json!({"user": {"name": "Ada", "age": null}, "tags": ["a", "b"], "note": null, "users": [{"name": "Bo", "age": null}]}),
    );
    // Over the raw-text path too.
    let env = text("greet", r#"{"user": "{\"name\": \"Ada\"}"}"#);
    assert_eq!(env["data"]["user"]["name"], "Ada", "{env}");
}

#[test]
fn a_string_that_holds_no_such_container_is_still_a_string() {
    let env = value("greet", &json!({"user": "{name: Ada}"}));
    assert_refused(
        &env,
        "user",
        Some("\"{name: Ada}\""),
        "user: \"{name: Ada}\" is a string; accepted: an object with the keys \"name\", \"age\". Send a JSON object, like {\"name\": \"…\"}.",
    );
    // An array where an object is expected, and the other way round.
    assert_eq!(value("greet", &json!({"user": "[1]"}))["hints"]["rejected"], "\"[1]\"");
    assert_eq!(value("greet", &json!({"user": {"name": "A"}, "tags": "{\"a\": 1}"}))["status"], "invalid");
}

#[test]
fn strict_refuses_a_container_sent_as_text() {
    assert_refused(
        &value("greet_strict", &json!({"user": "{\"name\": \"Ada\"}"})),
        "user",
        Some("\"{\\\"name\\\": \\\"Ada\\\"}\""),
        "user: \"{\\\"name\\\": \\\"Ada\\\"}\" is a string holding an object; accepted: an object with the keys \"name\", \"age\". Send the object itself, like {\"name\": \"…\"}, not a string holding it.",
    );
    assert_refused(
        &value("greet_strict", &json!({"user": {"name": "Ada"}, "tags": "[\"a\"]"})),
        "tags",
        Some("\"[\\\"a\\\"]\""),
        "tags: \"[\\\"a\\\"]\" is a string holding an array; accepted: an array of strings. Send the array itself, like [...], not a string holding it.",
    );
}

#[test]
fn a_string_parameter_keeps_its_text() {
    for tool in ["greet", "greet_strict"] {
        let env = value(tool, &json!({"user": {"name": "Ada"}, "note": "{\"a\": 1}"}));
        assert_eq!(env["data"]["note"], "{\"a\": 1}", "{tool}: {env}");
        let env = value(tool, &json!({"user": {"name": "[1, 2]"}}));
        assert_eq!(env["data"]["user"]["name"], "[1, 2]", "{tool}: {env}");
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Numbers quoted as sent.

#[test]
fn numbers_are_quoted_with_the_characters_sent() {
    assert_refused(
        &text("numbers", r#"{"hours": 1e3}"#),
        "hours",
        Some("1e3"),
        "hours: 1e3 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720.",
    );
    assert_refused(
        &text("numbers", r#"{"hours": 7.50E2}"#),
        "hours",
        Some("7.50E2"),
        "hours: 7.50E2 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720.",
    );
    assert_eq!(text("numbers", r#"{"hours": 1.5e0}"#)["hints"]["rejected"], "1.5e0");
    assert_eq!(text("numbers", r#"{"ratio": 1.50}"#)["hints"]["rejected"], "1.50");
    assert_eq!(text("numbers", r#"{"ratio": -0E0, "hours": 0}"#)["status"], "invalid");
    // An item, a field of an object, an integer choice, a container, a cross-field rule.
    let env = text("numbers", r#"{"xs": [1, 2E1]}"#);
    assert_eq!(
        (env["hints"]["path"].as_str(), env["hints"]["rejected"].as_str()),
        (Some("xs[1]"), Some("2E1")),
        "{env}"
    );
    let env = text("numbers", r#"{"user": {"name": "A", "age": 1e3}}"#);
    assert_eq!(
        (env["hints"]["path"].as_str(), env["hints"]["rejected"].as_str()),
        (Some("user.age"), Some("1e3")),
        "{env}"
    );
    assert_eq!(text("numbers", r#"{"days": 3e0}"#)["hints"]["rejected"], "3e0");
    assert_eq!(text("numbers", r#"{"hours": [1e3, 2.0]}"#)["hints"]["rejected"], "[1e3,2.0]");
    assert_eq!(text("numbers", r#"{"user": {"name": "A", "agee": 1E3}}"#)["status"], "invalid");
    let env = text("numbers", r#"{"limit": 1e1, "ratio": 0.5}"#);
    assert_eq!(env["hints"]["rejected"], "1e1", "{env}");
    // The arguments themselves a number.
    assert_eq!(text("numbers", "1e3")["hints"]["rejected"], "1e3");
    // Every digit of an integer too large for 64 bits; a long token cut.
    assert_eq!(text("numbers", r#"{"hours": 18446744073709551616}"#)["hints"]["rejected"], "18446744073709551616");
    let long = format!("{{\"ratio\": 0.{}1}}", "0".repeat(60));
    let env = text("numbers", &long);
    assert_eq!(env["status"], "ok", "{env}");
    let long = format!("{{\"ratio\": 1.{}1}}", "0".repeat(60));
    assert_eq!(text("numbers", &long)["hints"]["rejected"], format!("1.{}… (63 characters)", "0".repeat(30)));
    // A parsed Value has no text: the double as serde_json writes it (documented on `call`).
    assert_eq!(value("numbers", &serde_json::from_str(r#"{"hours": 1e3}"#).unwrap())["hints"]["rejected"], "1000.0");
}

// ---------------------------------------------------------------------------------------------
// 5. An unanchored pattern is a search.

#[test]
fn a_pattern_is_worded_by_where_it_is_anchored() {
    assert_refused(
        &value("patterns", &json!({"search": "qux"})),
        "search",
        Some("\"qux\""),
        "search: \"qux\" does not contain a match for the pattern; accepted: a string containing a match for the pattern baz. Send a string that contains a match for baz somewhere.",
    );
    assert_eq!(value("patterns", &json!({"search": "foobazbar"}))["status"], "ok");
    assert_refused(
        &value("patterns", &json!({"start": "xab"})),
        "start",
        Some("\"xab\""),
        "start: \"xab\" does not match the pattern; accepted: a string starting with a match for the pattern ^ab. Send a string that starts with a match for ^ab.",
    );
    assert_eq!(value("patterns", &json!({"start": "abx"}))["status"], "ok");
    assert_refused(
        &value("patterns", &json!({"end": "abx"})),
        "end",
        Some("\"abx\""),
        "end: \"abx\" does not match the pattern; accepted: a string ending with a match for the pattern ab$. Send a string that ends with a match for ab$.",
    );
    assert_eq!(value("patterns", &json!({"end": "xab"}))["status"], "ok");
    assert_refused(
        &value("patterns", &json!({"full": "abab"})),
        "full",
        Some("\"abab\""),
        "full: \"abab\" does not match the pattern; accepted: a string matching the pattern ^ab$. Send a string that matches ^ab$ in full.",
    );
    // `^a|b$` ties neither end for every match: a search.
    let env = value("patterns", &json!({"either": "xyz"}));
    assert_eq!(env["hints"]["accepted"], "a string containing a match for the pattern ^a|b$", "{env}");
    assert_eq!(value("patterns", &json!({"either": "xb"}))["status"], "ok");
    // Read as ECMA-262 reads it (the schema's dialect): `\d` is ASCII digits, `\w` ASCII word
    // characters, `.` no line terminator.
    assert_refused(
        &value("patterns", &json!({"code": "٣٤"})),
        "code",
        Some("\"٣٤\""),
        "code: \"٣٤\" does not match the pattern; accepted: a string matching the pattern ^\\d+$. Send a string that matches ^\\d+$ in full.",
    );
    assert_eq!(value("patterns", &json!({"code": "34"}))["status"], "ok");
    for refused in ["é!", "a\r", "a\u{2028}"] {
        assert_eq!(value("patterns", &json!({"word": refused}))["status"], "invalid", "{refused:?}");
    }
    assert_eq!(value("patterns", &json!({"word": "a!"}))["status"], "ok");
    assert_eq!(schema("patterns")["properties"]["code"]["pattern"], "^\\d+$");
    // The schema carries the pattern as written: JSON Schema searches too.
    assert_eq!(schema("patterns")["properties"]["search"]["pattern"], "baz");
}

// ---------------------------------------------------------------------------------------------
// 7. A string naming a number that is not finite.

#[test]
fn nan_and_infinity_are_not_finite_numbers() {
    for sent in ["NaN", "nan", "inf", "-inf", "Infinity", "-Infinity", "infinity", "1e400"] {
        let shown = format!("\"{sent}\"");
        assert_refused(
            &value("finite", &json!({"x": sent})),
            "x",
            Some(&shown),
            &format!("x: {shown} is not a finite number; accepted: a number. Send a finite JSON number, like 0.5."),
        );
        assert_refused(
            &value("finite_strict", &json!({"x": sent})),
            "x",
            Some(&shown),
            &format!("x: {shown} is not a finite number; accepted: a number. Send a finite JSON number, like 0.5."),
        );
        let env = value("finite", &json!({"n": sent}));
        assert_eq!(env["hints"]["rejected"], shown.as_str());
        assert!(
            env["message"].as_str().unwrap().contains(
                " is not a finite number; accepted: a whole number from 1 to 100. Send a finite JSON number, like 10."
            ),
            "{env}"
        );
    }
    // A word that is no number is still a string.
    assert_refused(
        &value("finite", &json!({"x": "abc"})),
        "x",
        Some("\"abc\""),
        "x: \"abc\" is a string; accepted: a number. Send a JSON number, like 0.5.",
    );
    assert_eq!(value("finite", &json!({"x": "0.5"}))["status"], "ok");
}

// ---------------------------------------------------------------------------------------------
// 8. A swapped pair of letters is one edit.

#[test]
fn a_transposed_name_gets_a_suggestion() {
    let env = value("top_queries", &json!({"hours_back": 1, "group_by": "database", "tpo": 3}));
    assert_refused(
        &env,
        "tpo",
        Some("\"tpo\""),
        "tpo: \"tpo\" is not a parameter of top_queries; accepted: hours_back, group_by, top. Did you mean \"top\"? Rename \"tpo\" to \"top\".",
    );
    assert_eq!(env["hints"]["suggestion"], "top");
    for (sent, meant) in
        [("topp", "top"), ("hoursback", "hours_back"), ("hours_bakc", "hours_back"), ("gruop_by", "group_by")]
    {
        let mut args = json!({"hours_back": 1, "group_by": "database"});
        args[sent] = json!(3);
        if meant != "top" {
            args.as_object_mut().unwrap().remove(meant);
        }
        let env = value("top_queries", &args);
        let message = env["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("Did you mean \"{meant}\"? Rename \"{sent}\" to \"{meant}\".")),
            "{sent}: {env}"
        );
    }
}

#[test]
fn a_transposed_choice_gets_a_suggestion() {
    for (sent, meant) in [("dtaabase", "database"), ("query_hsah", "query_hash"), ("applictaion", "application")] {
        let env = value("top_queries", &json!({"hours_back": 1, "group_by": sent}));
        assert_eq!(env["hints"]["suggestion"], meant, "{sent}: {env}");
        assert_eq!(env["hints"]["fix"], format!("Send \"{meant}\"."), "{env}");
    }
}
