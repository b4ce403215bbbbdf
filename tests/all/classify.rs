//! `envelope_core::client::classify`: every wire format's lines, prose and listing shapes, and arbitrary text.

use envelope_core::{
    Code, Status, Toolbox, client::Classifier, client::Reply, client::classify, http, outcome::WireFormat,
};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::http::{answer, archive_note};

const FORMATS: [WireFormat; 4] =
    [WireFormat::Envelope, WireFormat::StatusHints, WireFormat::SuccessFlag, WireFormat::ErrorCodeSummary];

const OUTCOMES: [&str; 15] = [
    "ok",
    "VALIDATION_ERROR",
    "NOT_FOUND",
    "CONFLICT",
    "VERSION_CONFLICT",
    "IDEMPOTENCY_CONFLICT",
    "IN_PROGRESS",
    "RATE_LIMITED",
    "QUOTA_EXCEEDED",
    "UNAUTHORIZED",
    "FORBIDDEN",
    "BACKEND_ERROR",
    "NOT_IMPLEMENTED",
    "TIMEOUT",
    "NOT_QUEUED",
];

fn kind(reply: &Reply) -> Option<Status> {
    match reply {
        Reply::Ok { .. } => Some(Status::Ok),
        Reply::Refused { .. } => Some(Status::Invalid),
        Reply::Failed { .. } => Some(Status::Error),
        Reply::NeedsConfirmation { .. } => Some(Status::NeedsConfirmation),
        _ => None,
    }
}

/// Every outcome in every format reads as its status, with the HTTP status of the rule where the
/// format carries the code, and the status class where it does not.
#[test]
fn every_format_reads_back() {
    for format in FORMATS {
        let toolbox = Toolbox::new()
            .with(answer::tool())
            .with(archive_note::tool())
            .with_code_prefix("ACME_")
            .with_wire_format(format);
        let mut envelopes: Vec<_> = OUTCOMES
            .iter()
            .map(|o| crate::block_on(toolbox.call("answer", Some(&json!({ "outcome": o })))).unwrap())
            .collect();
        envelopes.push(crate::block_on(toolbox.call("archive_note", Some(&json!({"note_id": 3})))).unwrap());
        let classifier = Classifier::new().with_format(format);
        for envelope in envelopes {
            let text = envelope.to_json();
            let classified = classifier.classify(&text);
            assert_eq!(kind(&classified.reply), Some(envelope.status()), "{format:?}: {text}");
            let expected = http::status(&envelope);
            let carries_code = matches!(format, WireFormat::Envelope | WireFormat::ErrorCodeSummary);
            if carries_code {
                assert_eq!(classified.http_status, Some(expected), "{format:?}: {text}");
            } else {
                assert_eq!(classified.http_status.map(|s| s / 100), Some(expected / 100), "{format:?}: {text}");
            }
            if envelope.status() != Status::Ok {
                assert_eq!(classified.format, Some(format), "{text}");
            }
            // Without being told the format, only format 2's bare data object is unreadable.
            let plain = classify(&text);
            if format == WireFormat::SuccessFlag && envelope.status() == Status::Ok {
                assert!(matches!(plain.reply, Reply::Unreadable { .. }), "{text}");
            } else {
                assert_eq!(plain.reply, classified.reply, "{text}");
            }
        }
    }
}

#[test]
fn the_parts_of_a_refusal_and_a_fault() {
    let refusal = classify(
        r#"{"status":"invalid","message":"hours_back: 0 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720.","hints":{"parameter":"hours_back"}}"#,
    );
    assert_eq!(
        refusal.reply,
        Reply::Refused {
            code: None,
            parameter: Some("hours_back".into()),
            message:
                "hours_back: 0 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720."
                    .into()
        }
    );
    assert_eq!((refusal.http_status, refusal.format), (Some(400), Some(WireFormat::StatusHints)));

    let fault = classify(
        r#"{"status":"error","success":false,"error_code":"TIMEOUT","message":"m","hints":{"operation":"get_top_queries","trace_id":"4f1c"},"retryable":false,"retry":"after_reread"}"#,
    );
    assert_eq!(
        fault.reply,
        Reply::Failed {
            code: Some("TIMEOUT".into()),
            message: "m".into(),
            operation: Some("get_top_queries".into()),
            trace_id: Some("4f1c".into())
        }
    );
    assert_eq!(fault.http_status, Some(504));

    let confirmation = classify(
        r#"{"status":"needs_confirmation","error_code":"ACME_CONFIRMATION_REQUIRED","pending_action_id":"pa_1","preview":{"delete":{"id":3}},"preview_hash":"ab","summary":"Approve?"}"#,
    );
    assert_eq!(
        confirmation.reply,
        Reply::NeedsConfirmation {
            pending_action_id: "pa_1".into(),
            message: Some("Approve?".into()),
            preview: json!({"delete": {"id": 3}}),
            preview_hash: Some("ab".into())
        }
    );
    assert_eq!(confirmation.http_status, Some(202));
}

/// Under one status word for refusals and faults, the code after the prefix tells them apart; a
/// domain code is known once given.
#[test]
fn codes_tell_refusals_from_faults() {
    let line = |code: &str| format!(r#"{{"status":"error","error_code":"{code}","summary":"s"}}"#);
    let kind_of = |r: &Classifier, code: &str| {
        let classified = r.classify(&line(code));
        (kind(&classified.reply), classified.http_status)
    };
    let plain = Classifier::new();
    assert_eq!(kind_of(&plain, "ACME_NOT_FOUND"), (Some(Status::Invalid), Some(404)));
    assert_eq!(kind_of(&plain, "ACME_RATE_LIMITED"), (Some(Status::Invalid), Some(429)));
    assert_eq!(kind_of(&plain, "ACME_IN_PROGRESS"), (Some(Status::Invalid), Some(409)));
    assert_eq!(kind_of(&plain, "ACME_NOT_IMPLEMENTED"), (Some(Status::Error), Some(501)));
    assert_eq!(kind_of(&plain, "ACME_DOMAIN_TAKEN"), (Some(Status::Error), Some(500)));
    const DOMAIN_TAKEN: Code = Code::new("DOMAIN_TAKEN", Status::Invalid).with_http_status(409);
    let told = Classifier::new().with_codes(&[DOMAIN_TAKEN]);
    assert_eq!(kind_of(&told, "ACME_DOMAIN_TAKEN"), (Some(Status::Invalid), Some(409)));
}

/// Prose, listing shapes, contradictions: unreadable, never a success.
#[test]
fn unreadable_replies() {
    let cases = [
        ("Error: connection refused", "the reply is prose, not JSON: \"Error: connection refused\""),
        ("", "the reply is empty"),
        ("[]", "the reply is an array, not an object"),
        ("{\"status\": \"ok\"", "the reply starts like JSON but is not valid JSON"),
        (
            r#"{"count": 0, "results": [], "error": "upstream timed out"}"#,
            "the reply has `error` but neither `status` nor `success`: a listing shape that hides a failure",
        ),
        (
            r#"{"count": 0, "results": []}"#,
            "the reply has neither `status` nor `success`: nothing says the call succeeded",
        ),
        (r#"{"status": "ok", "success": false, "data": 1}"#, "`status` \"ok\" contradicts `success` false"),
        (r#"{"status": "done", "data": 1}"#, "`status` \"done\" is not a status word"),
        (r#"{"status": 200}"#, "`status` is a number, not a status word"),
        (r#"{"status": "ok"}"#, "`status` is \"ok\" but there is no `data`"),
        (
            r#"{"success": false, "error": "x"}"#,
            "`success` is false but `refused` is not a boolean: a failure that does not say whether to fix the request or retry it",
        ),
    ];
    for (text, reason) in cases {
        let classified = classify(text);
        assert_eq!(classified.reply, Reply::Unreadable { reason: reason.into() }, "{text}");
        assert_eq!(classified.http_status, None);
        assert!(!classified.is_ok());
    }
    // A format 2 classifier takes a bare object as data, but never one with `error`.
    let format_2 = Classifier::new().with_format(WireFormat::SuccessFlag);
    assert_eq!(
        format_2.classify(r#"{"count": 0, "results": []}"#).reply,
        Reply::Ok { data: json!({"count": 0, "results": []}) }
    );
    assert!(!format_2.classify(r#"{"count": 0, "results": [], "error": "x"}"#).is_ok());
    let long = format!("Error: {}", "x".repeat(5000));
    let Reply::Unreadable { reason } = classify(&long).reply else { panic!() };
    assert!(reason.len() < 120, "{reason}");
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        prop::sample::select(vec!["ok", "invalid", "error", "needs_confirmation", "x", ""]).prop_map(|s| json!(s)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        let keys = prop::sample::select(vec![
            "status",
            "success",
            "data",
            "error",
            "error_code",
            "message",
            "summary",
            "hints",
            "refused",
            "pending_action_id",
            "preview",
            "parameter",
            "count",
        ]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((keys, inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any text: no panic, and a success only with a field that says so.
    #[test]
    fn any_text(text in ".{0,200}") {
        let classified = classify(&text);
        prop_assert!(!classified.is_ok() || text.contains("status") || text.contains("success"));
        let _ = Classifier::new().with_format(WireFormat::SuccessFlag).classify(&text);
    }

    /// JSON-looking text, broken or not.
    #[test]
    fn json_like_text(text in r#"[{}\[\]":,a-z0-9 \\.e+-]{0,120}"#) {
        let _ = classify(&text);
    }

    /// Any object of the reply's keys: `ok` only when `status` is "ok" or `success` is true.
    #[test]
    fn objects_of_reply_keys(value in json_value()) {
        let classified = classify(&value.to_string());
        if classified.is_ok() {
            prop_assert!(value["status"] == "ok" || (value.get("status").is_none() && value["success"] == true), "{}", value);
        }
        prop_assert_eq!(classified.http_status.is_none(), matches!(classified.reply, Reply::Unreadable { .. }));
    }
}

#[test]
fn deep_nesting_is_unreadable_not_a_crash() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let nested = Reply::Unreadable { reason: "the reply nests deeper than the 128 levels this reader reads".into() };
    assert_eq!(classify(&deep).reply, nested);
    assert_eq!(
        classify(&deep[..150_000]).reply,
        Reply::Unreadable { reason: "the reply starts like JSON but is not valid JSON".into() }
    );
    let deep_object = format!(r#"{{"status":"ok","data":{}{}}}"#, "[".repeat(5000), "]".repeat(5000));
    assert_eq!(classify(&deep_object).reply, nested);
}
