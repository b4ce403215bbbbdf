//! No tool can emit a code its manifest does not list. Every example tool, and test tools that
//! return a `#[derive(ToolError)]` enum, are driven through every argument failure (missing,
//! unknown name, wrong type, out of range, not among the choices, length, pattern, a bad array
//! item, cross-field, arguments that are not an object, nesting too deep, text that is not JSON)
//! and through every variant; each envelope's `error_code` must be one its tool lists, with the
//! `retryable` the manifest gives it and the status the code table gives it. The other way
//! round, every listed code must actually be emitted (`BACKEND_ERROR` of a tool that cannot
//! panic aside): the list is exact, not merely safe.

use std::collections::{BTreeMap, BTreeSet};

use envelope_core::{Code, Envelope, Status, ToolError, Toolbox, codes, tool};
use serde::Serialize;
use serde_json::{Value, json};

use crate::{block_on, tools};

// --- test tools returning a derived error enum -------------------------------------------------

const DOMAIN_TAKEN: Code = Code::new("DOMAIN_TAKEN", Status::Invalid)
    .with_meaning("the domain is registered to someone else")
    .with_action("choose another domain name")
    .with_http_status(409);

const REGISTRY_UNAVAILABLE: Code = Code::new("REGISTRY_UNAVAILABLE", Status::Error)
    .with_meaning("the domain registry did not answer")
    .with_action("retry later if the tool is idempotent; otherwise check whether the domain was registered")
    .retryable_unchanged()
    .with_http_status(503);

#[derive(Debug, ToolError)]
enum RegisterError {
    #[refuse(
        code = DOMAIN_TAKEN,
        parameter = "domain",
        reason = "is registered already",
        accepted = "a domain nobody holds",
        fix = "Choose another domain, like {suggestion}."
    )]
    Taken { rejected: String, suggestion: String },
    #[refuse(
        code = codes::FORBIDDEN,
        parameter = "domain",
        reason = "is reserved for {holder}",
        accepted = "a domain under .com or .org",
        fix = "Choose a domain under .com or .org."
    )]
    Reserved { rejected: String, holder: &'static str },
    #[refuse(
        code = codes::RATE_LIMITED,
        parameter = "api_key",
        secret,
        reason = "has made {calls} calls this minute",
        accepted = "at most 10 calls a minute per key",
        fix = "Wait a minute, then send the same call."
    )]
    Throttled { calls: u32 },
    #[fault(code = REGISTRY_UNAVAILABLE, operation = "reading the registry")]
    Registry,
    #[fault(code = codes::TIMEOUT, operation = "registering {domain}")]
    Slow { domain: String },
    /// The same code as `Taken`: listed once.
    #[refuse(
        code = DOMAIN_TAKEN,
        parameter = "domain",
        reason = "is yours already",
        accepted = "a domain you do not hold",
        fix = "Renew it with renew_domain instead."
    )]
    Yours { rejected: String },
    #[fault(code = codes::BACKEND_ERROR, operation = "charging the card")]
    Billing(#[allow(dead_code)] &'static str),
}

#[derive(Serialize)]
struct Registration {
    domain: String,
    years: u8,
}

/// What the registry says about `domain`; `panic.com` panics (a bug in the tool).
fn registry(domain: &str) -> Result<(), RegisterError> {
    match domain {
        "taken.com" => Err(RegisterError::Taken { rejected: domain.to_owned(), suggestion: "taken.org".to_owned() }),
        "gov.com" => Err(RegisterError::Reserved { rejected: domain.to_owned(), holder: "the government" }),
        "busy.com" => Err(RegisterError::Throttled { calls: 11 }),
        "down.com" => Err(RegisterError::Registry),
        "slow.com" => Err(RegisterError::Slow { domain: domain.to_owned() }),
        "mine.com" => Err(RegisterError::Yours { rejected: domain.to_owned() }),
        "card.com" => Err(RegisterError::Billing("card declined: 402 from the processor")),
        // `resume_unwind` skips the panic hook: no noise in the test output.
        "panic.com" => std::panic::resume_unwind(Box::new("a bug")),
        _ => Ok(()),
    }
}

/// Registers a domain for some years.
#[tool(destructive)]
fn register_domain(
    /// The domain, like example.com.
    #[validate(length = 4..=63, pattern = "^[a-z0-9-]+\\.[a-z]+$", example = "example.com")]
    domain: String,
    /// For how many years.
    #[validate(range = 1..=10, default = 1)]
    years: u8,
    /// The API key.
    #[validate(secret)]
    api_key: Option<String>,
) -> Result<Registration, RegisterError> {
    let _ = api_key;
    registry(&domain).map(|()| Registration { domain, years })
}

/// Checks whether a domain could be registered.
#[tool(read_only, idempotent)]
async fn check_domain(
    /// The domain, like example.com.
    domain: String,
) -> Result<bool, RegisterError> {
    registry(&domain).map(|()| true)
}

/// Who holds a domain; `hang.com` never answers (past the tool's deadline), `panic.com` panics.
#[tool(read_only, idempotent, timeout_ms = 100)]
async fn whois(
    /// The domain, like example.com.
    domain: String,
) -> String {
    match domain.as_str() {
        "hang.com" => {
            tokio::time::sleep(std::time::Duration::from_secs(10)).await;
            "nobody".to_owned()
        }
        "panic.com" => std::panic::resume_unwind(Box::new("a bug")),
        _ => "nobody".to_owned(),
    }
}

/// Answers that the server is up.
#[tool(read_only, idempotent)]
fn ping() -> bool {
    true
}

fn test_toolbox() -> Toolbox {
    Toolbox::new().with(register_domain::tool()).with(check_domain::tool()).with(whois::tool()).with(ping::tool())
}

// --- the derive itself -------------------------------------------------------------------------

#[test]
fn derived_codes_are_the_variants_codes_once_each_in_declaration_order() {
    assert_eq!(
        RegisterError::CODES,
        [
            DOMAIN_TAKEN,
            codes::FORBIDDEN,
            codes::RATE_LIMITED,
            REGISTRY_UNAVAILABLE,
            codes::TIMEOUT,
            codes::BACKEND_ERROR
        ]
    );
    let names =
        |tool: envelope_core::Tool| -> Vec<&'static str> { tool.spec().error_codes.iter().map(Code::name).collect() };
    // A deadline adds TIMEOUT, and nothing else.
    assert_eq!(names(whois::tool()), ["VALIDATION_ERROR", "TIMEOUT", "BACKEND_ERROR"]);
    assert_eq!(
        names(register_domain::tool()),
        [
            "VALIDATION_ERROR",
            "DOMAIN_TAKEN",
            "FORBIDDEN",
            "RATE_LIMITED",
            "REGISTRY_UNAVAILABLE",
            "TIMEOUT",
            "BACKEND_ERROR"
        ]
    );
}

#[test]
fn a_derived_refusal_quotes_the_value_and_interpolates_fields() {
    let env = RegisterError::Taken { rejected: "taken.com".into(), suggestion: "taken.org".into() }.into_envelope();
    assert_eq!(
        env.to_value(),
        json!({
            "status": "invalid",
            "success": false,
            "error_code": "DOMAIN_TAKEN",
            "message": "domain: \"taken.com\" is registered already; accepted: a domain nobody holds. Did you mean \"taken.org\"? Choose another domain, like taken.org.",
            "hints": {
                "parameter": "domain",
                "rejected": "\"taken.com\"",
                "accepted": "a domain nobody holds",
                "fix": "Choose another domain, like taken.org.",
                "suggestion": "taken.org"
            },
            "retryable": false, "retry": "never"
        })
    );
}

#[test]
fn a_derived_secret_refusal_never_shows_the_value() {
    let env = RegisterError::Throttled { calls: 11 }.into_envelope();
    assert_eq!(
        env.to_value(),
        json!({
            "status": "invalid",
            "success": false,
            "error_code": "RATE_LIMITED",
            "message": "api_key: the value sent (secret, not shown) has made 11 calls this minute; accepted: at most 10 calls a minute per key. Wait a minute, then send the same call.",
            "hints": {
                "parameter": "api_key",
                "accepted": "at most 10 calls a minute per key",
                "fix": "Wait a minute, then send the same call."
            },
            "retryable": true, "retry": "after_delay"
        })
    );
}

#[test]
fn a_derived_fault_names_the_operation_and_nothing_of_its_fields() {
    let env = RegisterError::Slow { domain: "slow.com".into() }.into_envelope();
    assert_eq!(
        env.to_json(),
        r#"{"status":"error","success":false,"error_code":"TIMEOUT","message":"registering slow.com failed: the server did not finish in time. Retry later if the tool is idempotent; otherwise check whether it took effect.","hints":{"operation":"registering slow.com"},"retryable":true,"retry":"with_backoff"}"#
    );
    // A field the template does not name (here an internal error text) never reaches the wire.
    let env = RegisterError::Billing("card declined: 402 from the processor").into_envelope();
    assert!(!env.to_json().contains("402"), "{}", env.to_json());
    assert_eq!(
        env.message(),
        Some(
            "charging the card failed: the server failed while serving a valid request. Retry later if the tool is idempotent; otherwise check whether it took effect."
        )
    );
}

// --- driving every failure ---------------------------------------------------------------------

/// How the arguments of one call were made, to show that every kind was driven.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Valid,
    Missing,
    Unknown,
    WrongType,
    Range,
    Choices,
    Length,
    Pattern,
    Item,
    CrossField,
    NotAnObject,
    TooDeep,
    NotJson,
    Variant,
    Mixed,
}

/// One call: the tool, how its arguments were made, and the arguments (a value, none, or JSON
/// text for `call_json`).
struct Drive {
    kind: Kind,
    args: Args,
}

enum Args {
    None,
    Value(Value),
    Text(String),
}

/// Values that are wrong for most shapes, and right for some.
fn any_json() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(-1),
        json!(2.5),
        json!(1e300),
        json!(""),
        json!("x"),
        json!("48"),
        json!("true"),
        json!([]),
        json!([1]),
        json!(["x"]),
        json!({}),
        json!({"a": 1}),
    ]
}

/// Values around the rules a property schema states (JSON Schema keywords), by kind.
fn around(schema: &Value) -> Vec<(Kind, Value)> {
    let mut out = Vec::new();
    let num = |k: &str| schema.get(k).and_then(Value::as_f64);
    for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if let Some(b) = num(key) {
            for d in [-1.0, -0.5, 0.0, 0.5, 1.0] {
                let v = b + d;
                let v = if v.fract() == 0.0 && v.abs() < 9e15 { json!(v as i64) } else { json!(v) };
                out.push((Kind::Range, v.clone()));
                out.push((Kind::Range, json!(v.to_string())));
            }
        }
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        for c in choices {
            out.push((Kind::Choices, c.clone()));
            match c {
                Value::String(s) => {
                    out.push((Kind::Choices, json!(format!("{s}x"))));
                    out.push((Kind::Choices, json!(s.to_uppercase())));
                    out.push((Kind::Choices, json!(&s[1..])));
                }
                Value::Number(n) => {
                    let n = n.as_i64().unwrap_or_default();
                    out.push((Kind::Choices, json!(n + 1)));
                    out.push((Kind::Choices, json!(n - 1)));
                }
                _ => {}
            }
        }
    }
    for key in ["minLength", "maxLength"] {
        if let Some(n) = schema.get(key).and_then(Value::as_u64) {
            for len in [n.saturating_sub(1), n, n + 1] {
                out.push((Kind::Length, json!("a".repeat(len as usize))));
                out.push((Kind::Length, json!("é".repeat(len as usize))));
            }
        }
    }
    if schema.get("type") == Some(&json!("string")) {
        out.push((Kind::Length, json!("b".repeat(5000))));
    }
    if schema.get("pattern").is_some() {
        for v in ["release-notes", "Bad Value", "example.com", "sk-0123456789abcdef", "sk-short", "x.y", "-"] {
            out.push((Kind::Pattern, json!(v)));
        }
    }
    if let Some(items) = schema.get("items") {
        let item_values: Vec<(Kind, Value)> =
            around(items).into_iter().chain(any_json().into_iter().map(|v| (Kind::Item, v))).collect();
        for (_, v) in &item_values {
            out.push((Kind::Item, json!([v])));
            out.push((Kind::Item, json!(["release-notes", v])));
        }
        for key in ["minItems", "maxItems"] {
            if let Some(n) = schema.get(key).and_then(Value::as_u64) {
                for len in [n.saturating_sub(1), n, n + 1] {
                    out.push((Kind::Length, Value::Array(vec![json!("release-notes"); len as usize])));
                }
            }
        }
    }
    if let Some(d) = schema.get("default") {
        out.push((Kind::Valid, d.clone()));
    }
    out
}

/// Every call for one tool: `valid` is an arguments object the tool serves; `extra` adds
/// values of its own (triggers of error variants, cross-field combinations).
fn drives(tool: &envelope_core::Tool, valid: &Value, extra: &[(Kind, Value)]) -> Vec<Drive> {
    let mut out = vec![Drive { kind: Kind::Valid, args: Args::Value(valid.clone()) }];
    let schema = Value::Object(tool.input_schema());
    let props = schema["properties"].as_object().cloned().unwrap_or_default();
    let with = |name: &str, v: Value| {
        let mut a = valid.clone();
        a[name] = v;
        Args::Value(a)
    };
    for (name, prop) in &props {
        let mut a = valid.clone();
        a.as_object_mut().unwrap().remove(name);
        out.push(Drive { kind: Kind::Missing, args: Args::Value(a) });
        for v in any_json() {
            out.push(Drive { kind: Kind::WrongType, args: with(name, v) });
        }
        for (kind, v) in around(prop) {
            out.push(Drive { kind, args: with(name, v) });
        }
        let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
        let mut text = valid.as_object().unwrap().clone();
        text.remove(name);
        let text = Value::Object(text).to_string();
        let text = if text == "{}" {
            format!("{{\"{name}\": {deep}}}")
        } else {
            format!("{{\"{name}\": {deep}, {}", &text[1..])
        };
        out.push(Drive { kind: Kind::TooDeep, args: Args::Text(text) });
        // Misspelt: the name with a letter more, and the name alone without the others.
        out.push(Drive { kind: Kind::Unknown, args: with(&format!("{name}s"), json!(1)) });
    }
    for (kind, v) in extra {
        let mut a = valid.clone();
        for (k, x) in v.as_object().unwrap() {
            a[k] = x.clone();
        }
        out.push(Drive { kind: *kind, args: Args::Value(a) });
    }
    out.push(Drive { kind: Kind::Unknown, args: with("nope", json!(1)) });
    // Every parameter wrong at once.
    let all_wrong: serde_json::Map<String, Value> = props.keys().map(|k| (k.clone(), json!([[]]))).collect();
    out.push(Drive { kind: Kind::Mixed, args: Args::Value(Value::Object(all_wrong)) });
    out.push(Drive { kind: Kind::Missing, args: Args::None });
    for v in [json!(true), json!(1), json!("text"), json!([1]), json!([valid]), json!(valid.to_string())] {
        out.push(Drive { kind: Kind::NotAnObject, args: Args::Value(v) });
    }
    out.push(Drive { kind: Kind::TooDeep, args: Args::Text(format!("{}{}", "[".repeat(300), "]".repeat(300))) });
    out.push(Drive { kind: Kind::TooDeep, args: Args::Text(format!("{}1{}", "{\"a\":".repeat(300), "}".repeat(300))) });
    for text in ["{\"a\":", "", "{'a': 1}", "nul", "{\"a\": 1} x"] {
        out.push(Drive { kind: Kind::NotJson, args: Args::Text(text.to_owned()) });
    }
    // A few hundred random mixes of the values above, the same every run.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let pools: Vec<(String, Vec<Value>)> = props
        .iter()
        .map(|(name, prop)| (name.clone(), around(prop).into_iter().map(|(_, v)| v).chain(any_json()).collect()))
        .collect();
    for _ in 0..300 {
        let mut a = serde_json::Map::new();
        for (name, pool) in &pools {
            match next(4) {
                0 => {}
                1 => {
                    a.insert(name.clone(), valid[name.as_str()].clone());
                }
                _ => {
                    a.insert(name.clone(), pool[next(pool.len())].clone());
                }
            }
        }
        out.push(Drive { kind: Kind::Mixed, args: Args::Value(Value::Object(a)) });
    }
    out
}

/// What one run over a toolbox saw, per tool: the wire codes emitted, and the kinds refused.
#[derive(Default)]
struct Seen {
    codes: BTreeSet<String>,
    refused_kinds: BTreeSet<Kind>,
    answered_kinds: BTreeSet<Kind>,
}

/// Drives `tool_name` and checks every envelope against `manifest`.
fn drive(toolbox: &Toolbox, manifest: &Value, tool_name: &str, drives: Vec<Drive>, seen: &mut Seen) {
    let entry = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == tool_name)
        .unwrap_or_else(|| panic!("{tool_name} is not in the manifest"));
    let listed: BTreeMap<&str, bool> = entry["error_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["code"].as_str().unwrap(), c["retryable"].as_bool().unwrap()))
        .collect();
    let tool = toolbox.get(tool_name).expect("a known tool");
    let output_schema = serde_json::Value::Object(tool.output_schema(toolbox.code_prefix()));
    let output = jsonschema::draft202012::new(&output_schema).expect("a valid outputSchema");
    for d in drives {
        let env: Envelope = block_on(async {
            match &d.args {
                Args::None => toolbox.call(tool_name, None).await,
                Args::Value(v) => toolbox.call(tool_name, Some(v)).await,
                Args::Text(t) => toolbox.call_json(tool_name, t).await,
            }
        })
        .expect("a known tool");
        let wire = env.to_value();
        // MCP: structuredContent conforms to the tool's outputSchema.
        assert!(output.is_valid(&wire), "{tool_name}: the envelope does not fit its outputSchema: {wire}");
        let shown = || match &d.args {
            Args::None => "no arguments".to_owned(),
            Args::Value(v) => {
                let s = v.to_string();
                s.chars().take(200).collect()
            }
            Args::Text(t) => t.chars().take(200).collect(),
        };
        if env.status() == Status::Ok {
            assert!(wire.get("error_code").is_none());
            seen.answered_kinds.insert(d.kind);
            continue;
        }
        if env.status() == Status::NeedsConfirmation {
            // Served: the valid call of a confirm tool waits for approval.
            seen.answered_kinds.insert(d.kind);
        }
        if env.status() == Status::Invalid {
            seen.refused_kinds.insert(d.kind);
        }
        let code = wire["error_code"].as_str().expect("an error_code on every failure");
        let Some(&retryable) = listed.get(code) else {
            panic!(
                "{tool_name} emitted {code}, which its manifest does not list ({:?}), for {:?} {}",
                listed.keys(),
                d.kind,
                shown()
            );
        };
        assert_eq!(
            wire["retryable"],
            retryable,
            "{tool_name}: {code} is retryable {retryable} in the manifest, not on the wire, for {}",
            shown()
        );
        assert_eq!(
            wire["status"], manifest["error_codes"][code]["status"],
            "{tool_name}: {code} comes with another status than the manifest's table says"
        );
        seen.codes.insert(code.to_owned());
    }
}

/// The valid arguments of each example tool.
fn example_valid(tool: &str) -> Value {
    match tool {
        "get_top_queries" => json!({"hours_back": 24, "group_by": "database"}),
        "search_analytics" => json!({"dimension": "country"}),
        "create_note" => json!({"title": "Release", "tags": ["release-notes"]}),
        "set_threshold" => json!({"ratio": 0.5, "api_key": "sk-0123456789abcdef"}),
        // Note 1 exists: the test creates it first.
        "delete_note" => json!({"note_id": 1}),
        "list_notes" => json!({"pinned_only": true}),
        other => panic!("no valid arguments written for the example tool {other}: add them here"),
    }
}

/// Combinations one parameter at a time cannot make.
fn example_extra(tool: &str) -> Vec<(Kind, Value)> {
    match tool {
        "search_analytics" => vec![
            (Kind::CrossField, json!({"dimension": "hour"})),
            (Kind::CrossField, json!({"dimension": "query", "data_state": "HOURLY_ALL"})),
            (Kind::Valid, json!({"dimension": "hour", "data_state": "HOURLY_ALL"})),
        ],
        _ => Vec::new(),
    }
}

fn listed(manifest: &Value, tool: &str) -> BTreeSet<String> {
    manifest["tools"].as_array().unwrap().iter().find(|t| t["name"] == tool).unwrap()["error_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn no_example_tool_emits_a_code_its_manifest_does_not_list() {
    for (prefix, toolbox) in [("", tools::toolbox()), ("ACME_", tools::toolbox().with_code_prefix("ACME_"))] {
        let manifest = toolbox.manifest();
        let mut refused_anywhere = BTreeSet::new();
        let seed = block_on(toolbox.call("create_note", Some(&json!({"title": "seed"})))).unwrap();
        assert_eq!(seed.data().unwrap()["id"], 1);
        for tool in toolbox.tools() {
            let name = tool.name();
            let valid = if name == "confirm_action" {
                // Rejecting an action queued now (later drives find it used: CONFLICT).
                let queued = block_on(toolbox.call("delete_note", Some(&json!({"note_id": 1})))).unwrap();
                let id = queued.confirmation().expect("delete_note waits for approval").pending_action_id();
                json!({"pending_action_id": id, "approved": false})
            } else {
                example_valid(name)
            };
            let mut seen = Seen::default();
            drive(&toolbox, &manifest, name, drives(tool, &valid, &example_extra(name)), &mut seen);
            assert!(seen.answered_kinds.contains(&Kind::Valid), "{name} refused its valid arguments {valid}");
            for kind in [Kind::Unknown, Kind::WrongType, Kind::NotAnObject, Kind::TooDeep, Kind::NotJson, Kind::Mixed] {
                assert!(seen.refused_kinds.contains(&kind), "{name}: no {kind:?} call was refused");
            }
            if tool.spec().params.iter().any(|p| p.required) {
                assert!(
                    seen.refused_kinds.contains(&Kind::Missing),
                    "{name}: leaving out a required parameter was not refused"
                );
            }
            refused_anywhere.extend(seen.refused_kinds.iter().copied());
            // Exact, not merely safe: every listed code was emitted, except the panic's
            // BACKEND_ERROR (no example tool panics).
            let mut expected = listed(&manifest, name);
            expected.remove(&format!("{prefix}BACKEND_ERROR"));
            // Codes that only a second call draws (a used approval, a reused or running
            // idempotency key, a store whose bound is reached) may or may not come up here:
            // tests/all/confirm.rs and tests/hostile/store.rs drive those conversations.
            let mut conversation = Vec::new();
            if tool.spec().needs_confirmation || name == "confirm_action" {
                conversation.extend([format!("{prefix}CONFLICT"), format!("{prefix}RATE_LIMITED")]);
            }
            if tool.spec().idempotency_key {
                conversation.extend([
                    format!("{prefix}IDEMPOTENCY_CONFLICT"),
                    format!("{prefix}IN_PROGRESS"),
                    format!("{prefix}RATE_LIMITED"),
                ]);
            }
            for code in &conversation {
                expected.remove(code);
                seen.codes.remove(code);
            }
            assert_eq!(seen.codes, expected, "{name}: the codes emitted are not the codes listed");
        }
        for kind in [Kind::Range, Kind::Choices, Kind::Length, Kind::Pattern, Kind::Item, Kind::CrossField] {
            assert!(refused_anywhere.contains(&kind), "no {kind:?} call was refused by any example tool");
        }
    }
}

#[test]
fn no_tool_with_a_derived_error_emits_a_code_its_manifest_does_not_list() {
    let triggers =
        ["taken.com", "gov.com", "busy.com", "down.com", "slow.com", "mine.com", "card.com", "panic.com", "hang.com"];
    let extra: Vec<(Kind, Value)> = triggers.iter().map(|d| (Kind::Variant, json!({ "domain": d }))).collect();
    for toolbox in [test_toolbox(), test_toolbox().with_code_prefix("REG_")] {
        let manifest = toolbox.manifest();
        let valids = [
            ("register_domain", json!({"domain": "free.com", "years": 2, "api_key": "k"})),
            ("check_domain", json!({"domain": "free.com"})),
            ("whois", json!({"domain": "free.com"})),
            ("ping", json!({})),
        ];
        for (name, valid) in valids {
            let tool = toolbox.get(name).unwrap();
            let extra = if name == "ping" { Vec::new() } else { extra.clone() };
            let mut seen = Seen::default();
            drive(&toolbox, &manifest, name, drives(tool, &valid, &extra), &mut seen);
            assert!(seen.answered_kinds.contains(&Kind::Valid), "{name} refused its valid arguments");
            if name == "ping" {
                // No parameters, and still refused: a name it does not take, arguments that
                // are not an object. Its manifest must list VALIDATION_ERROR.
                assert!(seen.refused_kinds.contains(&Kind::Unknown));
                let mut expected = listed(&manifest, name);
                expected.retain(|c| !c.ends_with("BACKEND_ERROR"));
                assert_eq!(seen.codes, expected, "{name}: the codes emitted are not the codes listed");
            } else {
                // A panic is driven too: every listed code is emitted.
                assert_eq!(seen.codes, listed(&manifest, name), "{name}: the codes emitted are not the codes listed");
            }
        }
    }
}

#[test]
fn a_fault_is_retryable_only_on_an_idempotent_tool() {
    let toolbox = test_toolbox();
    let manifest = toolbox.manifest();
    let retryable = |tool: &str, code: &str| -> bool {
        manifest["tools"].as_array().unwrap().iter().find(|t| t["name"] == tool).unwrap()["error_codes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["code"] == code)
            .unwrap()["retryable"]
            .as_bool()
            .unwrap()
    };
    // The code itself is retryable; only the idempotent tool says so.
    assert_eq!(manifest["error_codes"]["REGISTRY_UNAVAILABLE"]["retryable"], true);
    assert!(retryable("check_domain", "REGISTRY_UNAVAILABLE"));
    assert!(!retryable("register_domain", "REGISTRY_UNAVAILABLE"));
    assert!(retryable("check_domain", "BACKEND_ERROR"));
    assert!(!retryable("register_domain", "BACKEND_ERROR"));
    let call = |tool: &str| block_on(toolbox.call(tool, Some(&json!({"domain": "down.com"})))).unwrap();
    assert_eq!(call("check_domain").retryable(), Some(true));
    assert_eq!(call("register_domain").retryable(), Some(false));
}

/// The one code table, walked: every standard code's envelope says the table's status word,
/// retry class and `retryable` (derived from the class), the HTTP endpoints answer its HTTP
/// status, and MCP marks it `isError` exactly when it is not `ok` or `needs_confirmation`.
#[test]
fn every_surface_reads_a_codes_status_retry_and_http_status_from_the_one_table() {
    use envelope_core::outcome::Retry;
    for code in codes::ALL {
        // Made as a `#[derive(ToolError)]` variant declaring the code makes them.
        let envelope: Envelope = match code.status() {
            Status::Invalid => {
                let refusal = envelope_core::Refusal::parameter("p").missing().accepted("anything").fix("Send it.");
                envelope_core::__private010::refusal_with_code(refusal.build(), *code).into()
            }
            Status::Error => envelope_core::__private010::fault_with_code(*code, "testing the table").into(),
            // CONFIRMATION_REQUIRED: its envelope is a queued action's, made by the toolbox.
            Status::NeedsConfirmation | Status::Ok => continue,
        };
        let wire = envelope.to_value();
        assert_eq!(wire["status"], code.status().as_str(), "{}", code.name());
        assert_eq!(wire["error_code"], code.name());
        assert_eq!(wire["retry"], code.retry().as_str(), "{}", code.name());
        assert_eq!(wire["retryable"], code.retryable(), "{}", code.name());
        assert_eq!(code.retryable(), matches!(code.retry(), Retry::AfterDelay | Retry::WithBackoff), "{}", code.name());
        assert_eq!(envelope.retry(), Some(code.retry()));
        assert_eq!(envelope_core::http::status(&envelope), code.http_status(), "{}", code.name());
        assert!(envelope.is_error(), "{}", code.name());
    }
    // The seed contract's retry rules as rows (DESIGN "One code table").
    let row = |c: Code| (c.status(), c.http_status(), c.retry());
    assert_eq!(row(codes::T4_BLOCKED), (Status::Invalid, 403, Retry::Never));
    assert_eq!(row(codes::AUDIT_UNAVAILABLE), (Status::Error, 503, Retry::WithBackoff));
    assert_eq!(row(codes::POLICY_UNAVAILABLE), (Status::Error, 503, Retry::WithBackoff));
    assert_eq!(row(codes::NOT_IMPLEMENTED), (Status::Error, 501, Retry::Never));
    assert_eq!(row(codes::RATE_LIMITED), (Status::Invalid, 429, Retry::AfterDelay));
    assert_eq!(row(codes::CONFLICT), (Status::Invalid, 409, Retry::AfterReread));
    assert_eq!(row(codes::BACKEND_ERROR), (Status::Error, 500, Retry::WithBackoff));
}
