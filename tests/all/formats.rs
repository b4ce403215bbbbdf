//! Every string case of the JSON Schema Test Suite's format files (draft 2020-12, the five
//! formats envelope checks; `../shared/cases/json-schema-test-suite/`, copied under
//! `tests/data/json-schema-test-suite/`) as a test of both sides: a parameter declared with that
//! `format` accepts the string exactly when the suite says it is valid, and the generated
//! `inputSchema`, under a validator with format assertion on, says the same.

use envelope_core::{Toolbox, tool};
use serde_json::{Value, json};

use crate::block_on;

/// `format = "date"`.
#[tool]
fn fmt_date(#[validate(format = "date")] v: String) -> String {
    v
}

/// `format = "date-time"`.
#[tool]
fn fmt_date_time(#[validate(format = "date-time")] v: String) -> String {
    v
}

/// `format = "email"`.
#[tool]
fn fmt_email(#[validate(format = "email")] v: String) -> String {
    v
}

/// `format = "uri"`.
#[tool]
fn fmt_uri(#[validate(format = "uri")] v: String) -> String {
    v
}

/// `format = "uuid"`.
#[tool]
fn fmt_uuid(#[validate(format = "uuid")] v: String) -> String {
    v
}

const FILES: [(&str, &str, &str); 5] = [
    ("date", "fmt_date", include_str!("../data/json-schema-test-suite/format/date.json")),
    ("date-time", "fmt_date_time", include_str!("../data/json-schema-test-suite/format/date-time.json")),
    ("email", "fmt_email", include_str!("../data/json-schema-test-suite/format/email.json")),
    ("uri", "fmt_uri", include_str!("../data/json-schema-test-suite/format/uri.json")),
    ("uuid", "fmt_uuid", include_str!("../data/json-schema-test-suite/format/uuid.json")),
];

/// Our copy matches the shared one, when it sits beside the repository.
#[test]
fn our_copy_of_the_suite_is_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (format, _, ours) in FILES {
        let shared = root.join(format!("../shared/cases/json-schema-test-suite/format/{format}.json"));
        if let Ok(text) = std::fs::read_to_string(&shared) {
            assert_eq!(
                text, ours,
                "tests/data/json-schema-test-suite/format/{format}.json differs from the shared copy"
            );
        }
    }
}

#[test]
fn every_string_case_agrees_at_run_time_and_in_the_schema() {
    let toolbox = Toolbox::new()
        .with(fmt_date::tool())
        .with(fmt_date_time::tool())
        .with(fmt_email::tool())
        .with(fmt_uri::tool())
        .with(fmt_uuid::tool());
    let mut failures = Vec::new();
    let mut count = 0;
    for (format, tool, text) in FILES {
        let schema = Value::Object(toolbox.get(tool).expect("a test tool").input_schema());
        assert_eq!(schema["properties"]["v"]["format"], format, "{tool} declares its format in the schema");
        let validator = jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("a valid inputSchema");
        let groups: Value = serde_json::from_str(text).expect("a suite file");
        for group in groups.as_array().expect("a list of groups") {
            for case in group["tests"].as_array().expect("a list of tests") {
                let Some(data) = case["data"].as_str() else { continue };
                let valid = case["valid"].as_bool().expect("a verdict");
                let what = format!("{format} {:?} ({})", data, case["description"].as_str().unwrap_or(""));
                let args = json!({ "v": data });
                let env = block_on(toolbox.call(tool, Some(&args))).expect("a test tool").to_value();
                let served = env["status"] == "ok";
                if served != valid {
                    failures.push(format!("runtime: {what}: expected valid={valid}, got {env}"));
                } else if served && env["data"] != data {
                    failures.push(format!("runtime: {what}: the function received {}", env["data"]));
                } else if !served {
                    let expected_issue = format!("is not a valid {}", article_word(format));
                    let message = env["message"].as_str().unwrap_or("");
                    if env["hints"]["parameter"] != "v" || !message.contains(&expected_issue) {
                        failures.push(format!("runtime: {what}: refusal {message:?} does not say {expected_issue:?}"));
                    }
                }
                if validator.is_valid(&args) != valid {
                    failures.push(format!("schema: {what}: expected valid={valid}"));
                }
                count += 1;
            }
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(count, 185, "the number of string cases changed: look at the new ones");
}

fn article_word(format: &str) -> &str {
    match format {
        "email" => "email address",
        "uri" => "absolute URI",
        "uuid" => "UUID",
        other => other,
    }
}

/// The neighbours of the suite's cases that the issue named: each kind, a few of its members.
#[test]
fn reported_format_kinds_and_their_neighbours() {
    let toolbox = Toolbox::new().with(fmt_date_time::tool()).with(fmt_email::tool()).with(fmt_uri::tool());
    let cases: &[(&str, &str, bool)] = &[
        // uri: what RFC 3986 refuses, which the WHATWG URL parser takes.
        ("fmt_uri", "https://example.org/foo bar.txt", false),
        ("fmt_uri", "https://example.org/foo%20bar.txt", true),
        ("fmt_uri", "https://example.org/a<b>.txt", false),
        ("fmt_uri", "https://example.org/{id}", false),
        ("fmt_uri", "https://example.org/a\\b", false),
        ("fmt_uri", "https://example.org/%zz", false),
        ("fmt_uri", "https://example.org/%4", false),
        ("fmt_uri", "https://example.org/%4a", true),
        ("fmt_uri", "urn:isbn:0451450523", true),
        ("fmt_uri", "example.org/path", false),
        // email: the domain is a host name or an address literal.
        ("fmt_email", "joe.bloggs@invalid=domain.com", false),
        ("fmt_email", "joe.bloggs@invalid_domain.com", false),
        ("fmt_email", "joe.bloggs@-invalid.com", false),
        ("fmt_email", "joe.bloggs@valid-domain.com", true),
        ("fmt_email", "joe.bloggs@[IPv6:2001:db8::1]", true),
        // date-time: `T` (or `t`) between date and time; a leap second only at 23:59:60 UTC.
        ("fmt_date_time", "2026-07-29 14:30:00Z", false),
        ("fmt_date_time", "2026-07-29T14:30:00Z", true),
        ("fmt_date_time", "2026-07-29t14:30:00Z", true),
        ("fmt_date_time", "1998-12-31T23:58:60Z", false),
        ("fmt_date_time", "1998-12-31T23:59:60Z", true),
        ("fmt_date_time", "1999-01-01T00:59:60+01:00", true),
        ("fmt_date_time", "1998-12-31T23:59:60+01:00", false),
    ];
    let mut failures = Vec::new();
    for &(tool, data, valid) in cases {
        let schema = Value::Object(toolbox.get(tool).unwrap().input_schema());
        let validator = jsonschema::draft202012::options().should_validate_formats(true).build(&schema).unwrap();
        let args = json!({ "v": data });
        let env = block_on(toolbox.call(tool, Some(&args))).unwrap().to_value();
        if (env["status"] == "ok") != valid {
            failures.push(format!("runtime: {tool} {data:?}: expected valid={valid}, got {env}"));
        }
        if validator.is_valid(&args) != valid {
            failures.push(format!("schema: {tool} {data:?}: expected valid={valid}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The refusal of a URI with a space: the value quoted, the form stated, an example to copy.
#[test]
fn a_uri_with_a_space_is_refused_with_the_three_parts() {
    let toolbox = Toolbox::new().with(fmt_uri::tool());
    let env = block_on(toolbox.call("fmt_uri", Some(&json!({"v": "http:// shouldfail.com"})))).unwrap().to_value();
    assert_eq!(
        env["message"],
        "v: \"http:// shouldfail.com\" is not a valid absolute URI; accepted: an absolute URI with a scheme. Send a URI like \"https://example.com/path\"."
    );
}
