//! A fuzzer for envelope's argument reading that runs on the stable toolchain: random JSON text,
//! structured arguments for every example tool (their own parameter names and typos of them,
//! tricky numbers, deep nesting, duplicate keys, strings holding JSON), and byte-level mutations
//! of those, each fed to `Toolbox::call_json` as an MCP or HTTP adapter would.
//!
//! The promises checked on every input:
//! - no panic, and no `BACKEND_ERROR` (the example tools never fault, so one means a panic was
//!   caught inside envelope);
//! - the answer is one JSON object whose first key is `status`, one of the four status words,
//!   with `success` true exactly for `ok`;
//! - no refusal, fault or confirmation over 2 KB (2,048 bytes of JSON text), whatever the
//!   input's size (an `ok` envelope carries the tool's data, as large as the tool makes it);
//! - a `secret` parameter's value (`set_threshold`'s `api_key`) never appears in the answer;
//! - an unknown tool name gives `UnknownTool`, whose message stays under 2 KB.
//!
//! [`run_mcp`] (module [`mcp`]) feeds JSON-RPC lines to the MCP stdio server itself;
//! [`run_http`] (module [`http`]) sends HTTP requests over loopback TCP to the example tools
//! served at `/mcp` and `/tools/{name}`.

use std::collections::BTreeMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use fastrand::Rng;
use serde_json::Value;

pub mod http;
pub mod mcp;

pub use http::{HttpFailure, HttpReport, run_http};
pub use mcp::{McpFailure, McpReport, run_mcp};

#[path = "../../examples/tools/mod.rs"]
#[allow(dead_code, clippy::all, clippy::pedantic)]
mod tools;

/// The largest envelope the contract allows, in bytes of JSON text.
pub const MAX_ENVELOPE_BYTES: usize = 2048;

/// Inputs served by one toolbox before a fresh one takes over.
const FRESH_EVERY: u64 = 20_000;

/// The distinctive part of every secret value the fuzzer sends; never in an answer.
const SECRET_MARK: &str = "sk-Zq9XsEcReT";

/// What a run fed and what came back.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs fed, all kinds together.
    pub inputs: u64,
    /// Answers by `status` word (and `unknown tool` for the name errors).
    pub by_status: BTreeMap<String, u64>,
    /// Inputs by kind: `random text`, `structured`, `mutated`, `unknown tool`.
    pub by_kind: BTreeMap<&'static str, u64>,
    /// The largest envelope seen that is not `ok`, in bytes.
    pub largest_envelope: usize,
    /// The largest input fed, in bytes.
    pub largest_input: usize,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} inputs, no promise broken", self.inputs)?;
        writeln!(f, "by kind: {:?}", self.by_kind)?;
        writeln!(f, "by answer: {:?}", self.by_status)?;
        write!(
            f,
            "largest envelope {} B (limit {MAX_ENVELOPE_BYTES}), largest input {} B",
            self.largest_envelope, self.largest_input
        )
    }
}

/// A broken promise: the input that broke it and what was wrong.
#[derive(Debug)]
pub struct Failure {
    /// The tool called.
    pub tool: String,
    /// The arguments text sent.
    pub input: String,
    /// What went wrong, with the answer where there was one.
    pub what: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool {:?} with arguments {:?}: {}", self.tool, self.input, self.what)
    }
}

/// Each example tool's name and its parameters' names (from its `inputSchema`).
fn tool_names() -> Vec<(String, Vec<String>)> {
    tools::toolbox()
        .tools()
        .iter()
        .map(|t| {
            let schema = t.input_schema();
            let params = schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            (t.name().to_owned(), params)
        })
        .collect()
}

/// Feeds `iterations` inputs generated from `seed` (the same seed gives the same inputs) and
/// checks every answer; stops at the first broken promise.
///
/// # Errors
/// The first [`Failure`].
pub fn run(iterations: u64, seed: u64) -> Result<Report, Failure> {
    let mut toolbox = tools::toolbox();
    let names = tool_names();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let mut rng = Rng::with_seed(seed);
    let mut report = Report::default();
    for i in 0..iterations {
        if i % FRESH_EVERY == 0 && i > 0 {
            // A fresh server now and then: the note store grows with every note the fuzzer
            // creates, and `list_notes` answers all of them.
            toolbox = tools::toolbox();
        }
        let (tool, params) = &names[rng.usize(..names.len())];
        let (kind, input, secret) = match rng.u8(..10) {
            0 => ("random text", random_text(&mut rng), false),
            1..=5 => {
                let secret = rng.bool();
                ("structured", arguments(&mut rng, params, secret), secret)
            }
            6..=8 => {
                let text = arguments(&mut rng, params, false);
                ("mutated", mutate(&mut rng, text), false)
            }
            _ => ("unknown tool", arguments(&mut rng, params, false), false),
        };
        *report.by_kind.entry(kind).or_default() += 1;
        report.inputs += 1;
        report.largest_input = report.largest_input.max(input.len());
        let fail = |what: String| Failure { tool: tool.clone(), input: input.clone(), what };
        if kind == "unknown tool" {
            let name = typo(&mut rng, tool);
            if names.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let call = catch_unwind(AssertUnwindSafe(|| runtime.block_on(toolbox.call_json(&name, &input))));
            match call {
                Ok(Err(unknown)) if unknown.to_string().len() <= MAX_ENVELOPE_BYTES => {
                    *report.by_status.entry("unknown tool".into()).or_default() += 1;
                }
                Ok(Err(unknown)) => return Err(fail(format!("unknown-tool message over 2 KB: {unknown}"))),
                Ok(Ok(envelope)) => return Err(fail(format!("tool {name:?} answered {}", envelope.to_json()))),
                Err(_) => return Err(fail(format!("panicked for the unknown tool {name:?}"))),
            }
            continue;
        }
        let Ok(call) = catch_unwind(AssertUnwindSafe(|| runtime.block_on(toolbox.call_json(tool, &input)))) else {
            return Err(fail("panicked".into()));
        };
        let Ok(envelope) = call else { return Err(fail("the tool was not found".into())) };
        let text = envelope.to_json();
        let status = check(&text, secret).map_err(|what| fail(format!("{what}: {text}")))?;
        if status != "ok" {
            report.largest_envelope = report.largest_envelope.max(text.len());
        }
        *report.by_status.entry(status).or_default() += 1;
    }
    Ok(report)
}

/// Checks one envelope's text; answers its status word. The 2 KB budget is envelope's own words
/// (refusals, faults, confirmations); an `ok` envelope's `data` is the tool's answer, as large as
/// the tool makes it (`list_notes` after many `create_note` calls).
fn check(text: &str, secret: bool) -> Result<String, String> {
    if text.len() > MAX_ENVELOPE_BYTES && !text.starts_with(r#"{"status":"ok","#) {
        return Err(format!("envelope of {} bytes", text.len()));
    }
    if secret && text.contains(SECRET_MARK) {
        return Err("a secret value was echoed".into());
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
    let object = value.as_object().ok_or("not an object")?;
    let (first, status) = object.iter().next().ok_or("an empty object")?;
    let status = status.as_str().filter(|_| first == "status").ok_or("`status` is not the first key")?;
    if !["ok", "invalid", "error", "needs_confirmation"].contains(&status) {
        return Err(format!("unknown status {status:?}"));
    }
    if object.get("success").and_then(Value::as_bool) != Some(status == "ok") {
        return Err("`success` disagrees with `status`".into());
    }
    if object.get("error_code").and_then(Value::as_str).is_some_and(|c| c.ends_with("BACKEND_ERROR")) {
        return Err("a fault (a panic caught inside envelope)".into());
    }
    Ok(status.to_owned())
}

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "24",
    "720",
    "721",
    "100",
    "101",
    "0.5",
    "0.999999999999",
    "1.0",
    "48.0",
    "48.5",
    "1e3",
    "1E3",
    "1e-100",
    "5e-324",
    "1e400",
    "-1e400",
    "1e-400",
    "123456789012345678901234567890",
    "-9223372036854775809",
    "18446744073709551616",
    "0.1e1",
    "25000",
    "25001",
    "2.5e4",
    "1e308",
];
const STRINGS: &[&str] = &[
    "",
    "database",
    "databse",
    "query_hash",
    "application",
    "hour",
    "HOURLY_ALL",
    "ALL",
    "page",
    "pages",
    "release-notes",
    "Bad Tag",
    "48",
    "0.5",
    "-3",
    "true",
    "NaN",
    "inf",
    "Infinity",
    "1e3",
    "üüü",
    "\\u0000",
    "\\ud800",
    "\\\"",
    "{\\\"hours_back\\\": 1}",
    "[1, 2]",
    "{}",
    "null",
    "a\\nb",
    "\u{202e}txt",
    "🦀",
];

/// A JSON value as text, sometimes malformed-adjacent but always valid JSON.
fn value(rng: &mut Rng, depth: u32) -> String {
    match rng.u8(..12) {
        0..=2 => NUMBERS[rng.usize(..NUMBERS.len())].to_owned(),
        3 => rng.i64(..).to_string(),
        4 => format!("{}", f64::from_bits(rng.u64(..)).clamp(-1e300, 1e300)).replace("NaN", "0"),
        5..=7 => format!("\"{}\"", string(rng)),
        8 => ["true", "false", "null"][rng.usize(..3)].to_owned(),
        9 if depth < 4 => {
            let items: Vec<String> = (0..rng.usize(..5)).map(|_| value(rng, depth + 1)).collect();
            format!("[{}]", items.join(","))
        }
        10 if depth < 4 => {
            let items: Vec<String> =
                (0..rng.usize(..4)).map(|_| format!("\"{}\":{}", string(rng), value(rng, depth + 1))).collect();
            format!("{{{}}}", items.join(","))
        }
        _ => {
            // Deep nesting, past what a recursive reader should follow.
            let n = rng.usize(1..300);
            let (open, close) = if rng.bool() { ("[", "]") } else { ("{\"a\":", "}") };
            format!("{}1{}", open.repeat(n), close.repeat(n))
        }
    }
}

/// A value of the kind the parameter takes, often one it accepts (so the success path is fed too).
fn plausible(rng: &mut Rng, name: &str) -> String {
    let pool: &[&str] = match name {
        "hours_back" | "top" | "row_limit" | "note_id" => &["1", "24", "100", "\"48\"", "48.0", "720"],
        "group_by" => &["\"database\"", "\"query_hash\"", "\"application\""],
        "dimension" => &["\"query\"", "\"page\"", "\"hour\"", "\"date\""],
        "data_state" => &["\"ALL\"", "\"HOURLY_ALL\""],
        "title" => &["\"Release notes\"", "\"üü\"", "\"a\""],
        "tags" => &["[]", "[\"release-notes\"]", "[\"a\", \"b-2\"]"],
        "pinned" | "pinned_only" | "approved" => &["true", "false", "\"true\""],
        "ratio" => &["0", "0.5", "\"0.25\"", "0.999"],
        "idempotency_key" => &["\"key-0001-abcd\"", "\"k\""],
        _ => &["null"],
    };
    pool[rng.usize(..pool.len())].to_owned()
}

/// The inside of a JSON string literal (escapes already applied).
fn string(rng: &mut Rng) -> String {
    match rng.u8(..6) {
        0..=3 => STRINGS[rng.usize(..STRINGS.len())].to_owned(),
        4 => (0..rng.usize(..60)).map(|_| rng.alphanumeric()).collect(),
        _ => "x".repeat(rng.usize(..6000)),
    }
}

/// A secret as a caller might send it: marked, of the accepted form or not.
fn secret(rng: &mut Rng) -> String {
    let tail: String = (0..rng.usize(..60)).map(|_| rng.alphanumeric()).collect();
    match rng.u8(..4) {
        0 => format!("\"{SECRET_MARK}{tail}\""),
        1 => format!("\"{SECRET_MARK} {tail}!\""),
        2 => format!("[\"{SECRET_MARK}{tail}\"]"),
        _ => format!("{{\"key\": \"{SECRET_MARK}{tail}\"}}"),
    }
}

/// An arguments object for a tool with these parameter names: mostly its own names, some typos
/// and strangers, duplicates now and then; sometimes not an object at all.
fn arguments(rng: &mut Rng, params: &[String], with_secret: bool) -> String {
    if rng.u8(..20) == 0 {
        return value(rng, 0);
    }
    let mut pairs = Vec::new();
    for name in params {
        let sent = rng.u8(..10);
        if name == "api_key" && with_secret {
            pairs.push(format!("\"api_key\":{}", secret(rng)));
        } else if sent < 4 {
            pairs.push(format!("\"{name}\":{}", plausible(rng, name)));
        } else if sent < 7 {
            pairs.push(format!("\"{name}\":{}", value(rng, 1)));
        } else if sent == 7 {
            pairs.push(format!("\"{}\":{}", typo(rng, name), value(rng, 1)));
        }
    }
    if rng.u8(..4) == 0 {
        pairs.push(format!("\"{}\":{}", string(rng), value(rng, 1)));
    }
    if !pairs.is_empty() && rng.u8(..8) == 0 {
        let again = pairs[rng.usize(..pairs.len())].clone();
        pairs.push(again);
    }
    rng.shuffle(&mut pairs);
    let object = format!("{{{}}}", pairs.join(","));
    if rng.u8(..30) == 0 && !with_secret {
        // An object sent as JSON text, as models sometimes do.
        serde_json::to_string(&object).unwrap_or(object)
    } else {
        object
    }
}

/// A name one or two edits away (a swap, a dropped or doubled letter, a case change).
fn typo(rng: &mut Rng, name: &str) -> String {
    let mut chars: Vec<char> = name.chars().collect();
    for _ in 0..rng.usize(1..3) {
        if chars.is_empty() {
            break;
        }
        let i = rng.usize(..chars.len());
        match rng.u8(..4) {
            0 if i + 1 < chars.len() => chars.swap(i, i + 1),
            1 => drop(chars.remove(i)),
            2 => chars.insert(i, chars[i]),
            _ => chars[i] = chars[i].to_ascii_uppercase(),
        }
    }
    chars.into_iter().collect()
}

/// Text of JSON's alphabet and beyond, rarely valid.
fn random_text(rng: &mut Rng) -> String {
    const ALPHABET: &[char] = &[
        '{', '}', '[', ']', '"', ':', ',', ' ', '\\', '0', '1', '9', '-', '.', 'e', 'E', '+', 'a', 't', 'n', 'u', 'é',
        '\u{0}', '\n', '🦀',
    ];
    (0..rng.usize(..200)).map(|_| ALPHABET[rng.usize(..ALPHABET.len())]).collect()
}

/// One to four edits at character boundaries: delete a stretch, insert a character, repeat a
/// stretch, cut the end.
fn mutate(rng: &mut Rng, text: String) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..rng.usize(1..5) {
        let n = chars.len();
        if n == 0 {
            chars.push('{');
            continue;
        }
        let i = rng.usize(..n);
        let j = (i + rng.usize(..8)).min(n);
        match rng.u8(..4) {
            0 => drop(chars.drain(i..j)),
            1 => chars.insert(i, ['{', '}', '"', ',', ':', '\\', '1', 'e', '[', ']'][rng.usize(..10)]),
            2 => {
                let stretch: Vec<char> = chars[i..j].to_vec();
                chars.splice(i..i, stretch);
            }
            _ => chars.truncate(i),
        }
    }
    chars.into_iter().collect()
}
