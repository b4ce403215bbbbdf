//! Every public bad-input case (`tests/data/public-cases.jsonl`, a copy of the shared cases) as
//! a test through the toolbox; `mcp_e2e` runs the transport-specific ones over MCP.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::{block_on, tools};

#[derive(Deserialize)]
struct Case<'a> {
    id: String,
    tool: String,
    // Raw: one case nests 300 levels deep, past serde_json's default depth limit.
    #[serde(borrow)]
    args: &'a RawValue,
    expect: String,
    parameter: Option<String>,
    rejected: Option<String>,
    accepted: Vec<String>,
    suggestion: Option<String>,
}

const CASES: &str = include_str!("../data/public-cases.jsonl");

/// The shared cases, when a copy sits beside the repository, must match ours: a new shared case
/// must become a test here.
#[test]
fn our_copy_of_the_cases_is_current() {
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/cases/public-cases.jsonl");
    if let Ok(text) = std::fs::read_to_string(&shared) {
        assert_eq!(text, CASES, "tests/data/public-cases.jsonl differs from {}", shared.display());
    }
}

#[test]
fn every_public_case() {
    let toolbox = tools::toolbox();
    let mut count = 0;
    for line in CASES.lines().filter(|l| !l.trim().is_empty()) {
        let case: Case = serde_json::from_str(line).expect("a case line");
        let args = case.args.get();
        let env = if args == "null" {
            block_on(toolbox.call(&case.tool, None))
        } else {
            block_on(toolbox.call_json(&case.tool, args))
        }
        .expect("a known tool")
        .to_value();
        check(&case, &env);
        count += 1;
    }
    assert_eq!(count, 15, "the number of public cases changed: look at the new ones");
}

fn check(case: &Case, env: &Value) {
    let id = &case.id;
    let text = env.to_string();
    assert!(text.len() < 2048, "{id}: reply is {} bytes", text.len());
    match case.expect.as_str() {
        "ok" => {
            assert_eq!(env["status"], "ok", "{id}: {env:#}");
            assert_eq!(env["success"], true, "{id}");
        }
        "refuse" => {
            assert_eq!(env["status"], "invalid", "{id}: {env:#}");
            assert_eq!(env["success"], false, "{id}");
            assert_eq!(env["error_code"], "VALIDATION_ERROR", "{id}");
            assert_eq!(env["retryable"], false, "{id}");
            for key in ["data", "count", "results"] {
                assert!(env.get(key).is_none(), "{id}: a refusal carries no {key}");
            }
            let message = env["message"].as_str().expect("message");
            let hints = &env["hints"];
            if let Some(p) = &case.parameter {
                assert_eq!(hints["parameter"], p.as_str(), "{id}: {env:#}");
                assert!(message.contains(p.as_str()), "{id}: message does not name {p}: {message}");
            }
            if let Some(r) = &case.rejected {
                assert!(message.contains(r.as_str()), "{id}: message does not quote {r}: {message}");
                assert_eq!(hints["rejected"], r.as_str(), "{id}");
            }
            for word in &case.accepted {
                assert!(message.contains(word.as_str()), "{id}: message lacks {word:?}: {message}");
            }
            if let Some(s) = &case.suggestion {
                assert_eq!(hints["suggestion"], s.as_str(), "{id}");
                assert!(message.contains(&format!("Did you mean \"{s}\"?")), "{id}: {message}");
            }
            assert!(!hints["fix"].as_str().unwrap_or("").is_empty(), "{id}: no fix");
            for word in ["u32", "u64", "f64", "i64", "Option", "String", "serde", "::", "line 1", "column"] {
                assert!(!message.contains(word), "{id}: message has library word {word:?}: {message}");
            }
        }
        other => panic!("{id}: unknown expectation {other}"),
    }
}

/// The lax coercion of a numeric string, refused by a strict tool with "send a JSON number".
#[test]
fn strict_tool_refuses_the_lax_coercions() {
    use envelope_core::{Toolbox, tool};

    /// Strict twin of get_top_queries' hours_back.
    #[tool(strict)]
    fn hours(#[validate(range = 1..=720)] hours_back: u32) -> u32 {
        hours_back
    }
    let toolbox = Toolbox::new().with(hours::tool());
    let env = block_on(toolbox.call("hours", Some(&serde_json::json!({"hours_back": "48"})))).unwrap();
    assert_eq!(
        env.message().unwrap(),
        "hours_back: \"48\" is a string; accepted: a whole number from 1 to 720. Send it as a JSON number, like 48."
    );
    // 48.0 is the integer 48 in JSON's data model (JSON Schema 2020-12 Core §4.2.2), so the
    // schema accepts it and strict mode does too: strict and schema agree on every value.
    let env = block_on(toolbox.call("hours", Some(&serde_json::json!({"hours_back": 48.0})))).unwrap();
    assert_eq!(env.to_json(), r#"{"status":"ok","success":true,"data":48}"#);
}
