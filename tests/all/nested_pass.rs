//! Arrays and nested objects read straight from the arguments' text (`Vec<T>` item by item,
//! `#[derive(Object)]` field by field, in the one pass of `call_json`) answer exactly as reading
//! them from the parsed `serde_json::Value` does, refusals included. Each generated call is sent
//! twice: as generated, and with its first key written with a `\u` escape (the same key to
//! JSON), which the one-pass reader leaves to the general path: the `Value` parsed from the
//! text, with the text's numbers beside it. The envelopes are compared byte for byte.
//!
//! The calls come from a fixed seed: objects and arrays at every place a tool below takes one,
//! mostly well formed (so the one-pass reader takes them), with the mistakes a model makes
//! mixed in: a value of the wrong type, out of range or not among the choices, a string holding
//! the object or array, an unknown field, a field missing or `null`, a key sent twice, numbers
//! written as `1e3` or `1.50`, escapes, empty and long arrays, a secret field.

use envelope_core::{Choice, Object, Toolbox, tool};
use serde_json::Value;

#[derive(Choice, Clone, Copy, Debug, PartialEq)]
#[choice(rename_all = "snake_case")]
enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

/// Where a reading goes deeper.
#[derive(Object, Debug)]
#[allow(dead_code)] // read to be compared, not used
struct Inner {
    #[validate(range = -5..=5)]
    depth: i32,
    #[validate(range = 0.0..=1.0)]
    ratio: Option<f64>,
    #[validate(secret)]
    token: Option<String>,
}

/// A window whose fields depend on each other (cross-field rules: read from the `Value`).
#[derive(Object, Debug)]
#[allow(dead_code)]
struct Window {
    #[validate(requires = "until")]
    since: Option<String>,
    until: Option<String>,
}

/// Which events to read.
#[derive(Object, Debug)]
#[allow(dead_code)]
#[object(rename_all = "camelCase")]
struct Filter {
    #[validate(length = 1..=8)]
    service: String,
    #[validate(choices = ["debug", "info", "warn", "error"])]
    min_level: String,
    #[validate(range = 1..=500, default = 50)]
    page_size: u32,
    level: Option<Level>,
    #[validate(length = ..=3, each(range = 0..=9))]
    codes: Vec<u8>,
    inner: Option<Inner>,
}

/// Reads everything nested it is sent.
#[tool]
#[allow(clippy::too_many_arguments)]
fn nested(
    filter: Filter,
    #[validate(length = 1..=5, each(length = 1..=6))] tags: Vec<String>,
    rows: Option<Vec<Inner>>,
    grid: Option<Vec<Vec<i32>>>,
    levels: Option<Vec<Level>>,
    extra: Option<Value>,
    window: Option<Window>,
    #[validate(range = 1..=168)] hours_back: Option<u32>,
) {
    let _ = (filter, tags, rows, grid, levels, extra, window, hours_back);
}

/// The same, strict: no string holding an object or array, no numeric strings.
#[tool(strict)]
#[allow(clippy::too_many_arguments)]
fn nested_strict(
    filter: Filter,
    #[validate(length = 1..=5, each(length = 1..=6))] tags: Vec<String>,
    rows: Option<Vec<Inner>>,
    grid: Option<Vec<Vec<i32>>>,
    levels: Option<Vec<Level>>,
    extra: Option<Value>,
    window: Option<Window>,
    #[validate(range = 1..=168)] hours_back: Option<u32>,
) {
    let _ = (filter, tags, rows, grid, levels, extra, window, hours_back);
}

/// `nested` without its cross-field object and its `Value`: every parameter type has the typed
/// reading (`read::typed`), which reads the arguments first.
#[tool]
fn typed_nested(
    filter: Filter,
    #[validate(length = 1..=5, each(length = 1..=6))] tags: Vec<String>,
    rows: Option<Vec<Inner>>,
    grid: Option<Vec<Vec<i32>>>,
    levels: Option<Vec<Level>>,
    #[validate(range = 1..=168)] hours_back: Option<u32>,
) -> String {
    format!("{:?}", (filter, tags, rows, grid, levels, hours_back))
}

/// The same, strict.
#[tool(strict)]
fn typed_nested_strict(
    filter: Filter,
    #[validate(length = 1..=5, each(length = 1..=6))] tags: Vec<String>,
    rows: Option<Vec<Inner>>,
    grid: Option<Vec<Vec<i32>>>,
    levels: Option<Vec<Level>>,
    #[validate(range = 1..=168)] hours_back: Option<u32>,
) -> String {
    format!("{:?}", (filter, tags, rows, grid, levels, hours_back))
}

/// xorshift64*: the calls are the same on every run. A clean call makes no mistake.
struct Rng {
    state: u64,
    clean: bool,
}

impl Rng {
    fn next(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A mistake, one time in `n` (never in a clean call).
    fn mistake(&mut self, n: usize) -> bool {
        !self.clean && self.one_in(n)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// A name and what makes its value.
type Field = (&'static str, fn(&mut Rng) -> String);

/// A JSON string of the text.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// A value of the wrong kind, or a number or string a reader must look at twice.
fn odd(r: &mut Rng) -> String {
    r.pick(&[
        "null",
        "true",
        "0",
        "-1",
        "7",
        "1e3",
        "1.50",
        "2.5",
        "-0",
        "\"\"",
        "\"7\"",
        "\"x\"",
        "[]",
        "{}",
        "[1]",
        "\"a\\u0062c\"",
        "\"{\\\"depth\\\": 1}\"",
        "\"[\\\"a\\\"]\"",
        "1e400",
        "[[]]",
        "{\"k\": [1, {\"k\": 2}]}",
    ])
    .to_owned()
}

fn int(r: &mut Rng, lo: i64, hi: i64) -> String {
    if r.mistake(8) {
        return odd(r);
    }
    // Mostly inside, sometimes just past either end.
    if r.clean {
        return (lo + r.below((hi - lo + 1) as usize) as i64).to_string();
    }
    (lo - 1 + r.below((hi - lo + 3) as usize) as i64).to_string()
}

fn ratio(r: &mut Rng) -> String {
    if r.mistake(8) {
        return odd(r);
    }
    if r.clean {
        return r.pick(&["0", "1", "0.5", "0.25", "0.1", "0.333"]).to_owned();
    }
    r.pick(&["0", "1", "0.5", "0.25", "1.5", "-0.1", "0.1", "1.0", "0.333"]).to_owned()
}

fn text(r: &mut Rng, most: usize) -> String {
    if r.mistake(10) {
        return odd(r);
    }
    let len = if r.clean { 1 + r.below(most) } else { r.below(most + 3) };
    let s: String = (0..len).map(|_| r.pick(&["a", "b", "z", "-", "é", " ", "\"", "\\", "\n"])).collect();
    quoted(&s)
}

fn level(r: &mut Rng) -> String {
    if r.mistake(8) {
        return odd(r);
    }
    if r.clean {
        return quoted(r.pick(&["debug", "info", "warn", "error"]));
    }
    quoted(r.pick(&["debug", "info", "warn", "error", "warnn", "Info", "fatal"]))
}

fn array(r: &mut Rng, most: usize, item: impl Fn(&mut Rng) -> String) -> String {
    if r.mistake(12) {
        return odd(r);
    }
    // Now and then far past the count, so the refusal counts its items.
    let n = if r.mistake(25) {
        100 + r.below(60)
    } else if r.clean {
        1 + r.below(most)
    } else {
        r.below(most + 2)
    };
    let items: Vec<String> = (0..n).map(|_| item(r)).collect();
    let text = format!("[{}]", items.join(if r.one_in(3) { ", " } else { "," }));
    if r.mistake(15) { quoted(&text) } else { text }
}

/// An object of `fields` (name, value maker; the first `required` are required), some left out,
/// one now and then unknown, sent twice or `null`; now and then sent as a string holding it.
fn object(r: &mut Rng, required: usize, fields: &[Field]) -> String {
    if r.mistake(14) {
        return odd(r);
    }
    let mut members = Vec::new();
    for (i, (name, make)) in fields.iter().enumerate() {
        if if i < required { r.mistake(6) } else { r.one_in(3) } {
            continue;
        }
        let value = if r.mistake(20) { "null".to_owned() } else { make(r) };
        members.push(format!("{}: {value}", quoted(name)));
        if r.mistake(40) {
            members.push(format!("{}: {}", quoted(name), make(r)));
        }
    }
    if r.mistake(12) {
        members.push(format!("{}: 1", quoted(r.pick(&["servise", "extra", "page_size", "Depth"]))));
    }
    let text = format!("{{{}}}", members.join(", "));
    if r.mistake(15) { quoted(&text) } else { text }
}

fn inner(r: &mut Rng) -> String {
    object(r, 1, &[("depth", |r| int(r, -5, 5)), ("ratio", ratio), ("token", |r| text(r, 4))])
}

fn filter(r: &mut Rng) -> String {
    object(
        r,
        3,
        &[
            ("service", |r| text(r, 8)),
            ("minLevel", level),
            ("codes", |r| array(r, 3, |r| int(r, 0, 9))),
            ("pageSize", |r| int(r, 1, 500)),
            ("level", level),
            ("inner", inner),
        ],
    )
}

fn window(r: &mut Rng) -> String {
    object(r, 0, &[("since", |r| text(r, 3)), ("until", |r| text(r, 3))])
}

/// One call's arguments: the parameters in a shuffled order, some left out (`extra` and
/// `window` only when `all`).
fn arguments(r: &mut Rng, all: bool) -> String {
    let params: [Field; 8] = [
        ("filter", filter),
        ("tags", |r| array(r, 5, |r| text(r, 6))),
        ("rows", |r| array(r, 3, inner)),
        ("grid", |r| array(r, 3, |r| array(r, 2, |r| int(r, -3, 3)))),
        ("levels", |r| array(r, 3, level)),
        ("extra", |r| if r.one_in(2) { filter(r) } else { array(r, 2, inner) }),
        ("window", window),
        ("hours_back", |r| int(r, 1, 168)),
    ];
    let mut order: Vec<usize> = (0..params.len()).filter(|&i| all || !matches!(i, 5 | 6)).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, r.below(i + 1));
    }
    let mut members = Vec::new();
    for i in order {
        // The two required parameters are left out now and then, the others often.
        if (i >= 2 && r.one_in(3)) || r.mistake(20) {
            continue;
        }
        members.push(format!("{}: {}", quoted(params[i].0), (params[i].1)(r)));
    }
    format!("{{{}}}", members.join(", "))
}

#[test]
fn nested_values_read_from_text_answer_as_from_the_value() {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let toolbox = Toolbox::new().with(nested::tool()).with(nested_strict::tool());
    let twin = Toolbox::new().with(nested::tool()).with(nested_strict::tool());
    let mut r = Rng { state: 0x5eed_1234_abcd_0001, clean: false };
    let (mut ok, mut refused) = (0, 0);
    for call in 0..4000 {
        let name = if call % 2 == 0 { "nested" } else { "nested_strict" };
        r.clean = r.one_in(2);
        let text = arguments(&mut r, true);
        // The same text with the first key's first letter escaped: the general path.
        let Some(start) = text.find('"') else { continue };
        let escaped = format!("{}\"\\u{:04x}{}", &text[..start], text.as_bytes()[start + 1], &text[start + 2..]);
        let one_pass = runtime.block_on(toolbox.call_json(name, &text)).expect("a known tool");
        let general = runtime.block_on(twin.call_json(name, &escaped)).expect("a known tool");
        assert_eq!(one_pass.to_json(), general.to_json(), "{name} {text}");
        if one_pass.to_value()["status"] == "ok" { ok += 1 } else { refused += 1 }
    }
    eprintln!("{ok} calls read, {refused} refused");
    // Both answers are frequent: the comparison covers reading and refusing.
    assert!(ok > 400 && refused > 400, "{ok} ok, {refused} refused");
}

/// The typed reading of arrays and nested objects (`Vec<T>`, `Option<Vec<T>>`,
/// `#[derive(Object)]` and `#[derive(Choice)]` types, read straight into their types) answers
/// as the general reading does: each generated call is sent to the tools as declared and with
/// the typed reading taken off (`Tool::__untyped`), as text and as a parsed `Value`, and the
/// envelopes (the values read, debug-printed, or the refusal) are compared byte for byte.
#[test]
fn nested_values_read_typed_answer_as_the_general_reading() {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let typed = Toolbox::new().with(typed_nested::tool()).with(typed_nested_strict::tool());
    let general = Toolbox::new().with(typed_nested::tool().__untyped()).with(typed_nested_strict::tool().__untyped());
    let reads: Vec<bool> = typed.tools().iter().map(envelope_core::Tool::__reads_typed).collect();
    assert_eq!(reads, [true, true]);
    let mut r = Rng { state: 0x7e57_0dd5_9e11_0002, clean: false };
    let (mut ok, mut refused) = (0, 0);
    for call in 0..4000 {
        let name = if call % 2 == 0 { "typed_nested" } else { "typed_nested_strict" };
        r.clean = r.one_in(2);
        let text = arguments(&mut r, false);
        let a = runtime.block_on(typed.call_json(name, &text)).expect("a known tool").to_json();
        let b = runtime.block_on(general.call_json(name, &text)).expect("a known tool").to_json();
        assert_eq!(a, b, "{name} {text}");
        if let Ok(parsed) = serde_json::from_str::<Value>(&text) {
            let c = runtime.block_on(typed.call(name, Some(&parsed))).expect("a known tool").to_json();
            let d = runtime.block_on(general.call(name, Some(&parsed))).expect("a known tool").to_json();
            assert_eq!(c, d, "{name} {text} (as a Value)");
        }
        if a.starts_with("{\"status\":\"ok\"") { ok += 1 } else { refused += 1 }
    }
    eprintln!("{ok} calls read, {refused} refused");
    assert!(ok > 400 && refused > 400, "{ok} ok, {refused} refused");
}

/// The usual nested call is read from the text, its values as sent: a refusal deep inside
/// quotes the value and names its path, as the `Value` reading does.
#[test]
fn a_nested_refusal_from_text_names_its_path() {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let toolbox = Toolbox::new().with(nested::tool());
    let text = r#"{"filter": {"service": "api", "minLevel": "warnn", "codes": [1, 12], "inner": {"depth": 9}},
                   "tags": ["a"], "rows": [{"depth": 1}, {"depth": 2, "ratio": 1.5}]}"#;
    let env = runtime.block_on(toolbox.call_json("nested", text)).unwrap().to_value();
    assert_eq!(
        env["message"],
        "filter.minLevel: \"warnn\" is not an accepted value; accepted: one of \"debug\", \"info\", \"warn\", \"error\". Did you mean \"warn\"? Send \"warn\".\n\
         filter.codes[1]: 12 is out of range; accepted: a whole number from 0 to 9. Send a value from 0 to 9.\n\
         filter.inner.depth: 9 is out of range; accepted: a whole number from -5 to 5. Send a value from -5 to 5.\n\
         rows[1].ratio: 1.5 is out of range; accepted: a number from 0 to 1. Send a value from 0 to 1.",
    );
    // The same refusal as from the parsed `Value`.
    let parsed: Value = serde_json::from_str(text).unwrap();
    assert_eq!(runtime.block_on(toolbox.call("nested", Some(&parsed))).unwrap().to_value(), env);
    let ok = runtime.block_on(toolbox.call_json(
        "nested",
        r#"{"filter": {"service": "api", "minLevel": "warn", "codes": []}, "tags": ["a", "b"], "grid": [[1], []]}"#,
    ));
    assert_eq!(ok.unwrap().to_value()["status"], "ok");
}
