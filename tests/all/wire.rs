//! Golden tests: the exact bytes of each status's envelope.

use envelope_core::{Envelope, Fault, Refusal, outcome::Confirmation};
use serde_json::json;

use crate::call;

#[test]
fn ok_bytes() {
    assert_eq!(
        Envelope::ok(json!({"rows": [], "count": 0})).to_json(),
        r#"{"status":"ok","success":true,"data":{"rows":[],"count":0}}"#
    );
}

#[test]
fn ok_bytes_from_a_tool_keep_field_order() {
    let env = call("search_analytics", json!({"dimension": "query", "row_limit": 1}));
    assert_eq!(env.to_string(), r#"{"status":"ok","success":true,"data":[{"key":"a","clicks":100}]}"#);
}

#[test]
fn invalid_bytes() {
    let env = call("get_top_queries", json!({"hours_back": 0, "group_by": "databse"}));
    assert_eq!(
        serde_json::to_string(&env).unwrap(),
        concat!(
            r#"{"status":"invalid","success":false,"error_code":"VALIDATION_ERROR","#,
            r#""message":"hours_back: 0 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720.\ngroup_by: \"databse\" is not an accepted value; accepted: one of \"query_hash\", \"database\", \"application\". Did you mean \"database\"? Send \"database\".","#,
            r#""hints":{"parameter":"hours_back","rejected":"0","accepted":"a whole number from 1 to 720","fix":"Send a value from 1 to 720.","#,
            r#""others":[{"parameter":"group_by","rejected":"\"databse\"","accepted":"one of \"query_hash\", \"database\", \"application\"","fix":"Send \"database\".","suggestion":"database"}]},"#,
            r#""retryable":false,"retry":"never"}"#
        )
    );
}

#[test]
fn invalid_bytes_from_the_builder() {
    let r = Refusal::parameter("domain")
        .rejected("example.com")
        .reason("is registered already")
        .accepted("a domain nobody holds")
        .fix("Choose another domain.")
        .build();
    assert_eq!(
        Envelope::from(r).to_json(),
        r#"{"status":"invalid","success":false,"error_code":"VALIDATION_ERROR","message":"domain: \"example.com\" is registered already; accepted: a domain nobody holds. Choose another domain.","hints":{"parameter":"domain","rejected":"\"example.com\"","accepted":"a domain nobody holds","fix":"Choose another domain."},"retryable":false,"retry":"never"}"#
    );
}

#[test]
fn error_bytes() {
    assert_eq!(
        Envelope::from(Fault::backend("reading query statistics")).to_json(),
        r#"{"status":"error","success":false,"error_code":"BACKEND_ERROR","message":"reading query statistics failed: the server failed while serving a valid request. Retry later if the tool is idempotent; otherwise check whether it took effect.","hints":{"operation":"reading query statistics"},"retryable":true,"retry":"with_backoff"}"#
    );
}

#[test]
fn needs_confirmation_bytes() {
    let c = Confirmation::new("act_42", "Deleting 3 notes needs the user's approval.", json!({"delete": [1, 2, 3]}));
    assert_eq!(
        Envelope::needs_confirmation(c).to_json(),
        r#"{"status":"needs_confirmation","success":false,"error_code":"CONFIRMATION_REQUIRED","message":"Deleting 3 notes needs the user's approval.","retryable":false,"retry":"never","pending_action_id":"act_42","preview":{"delete":[1,2,3]},"preview_hash":"50b39993438db18dc59b98b4ac4ff9ab7ddedb7bcb03d241fa19a2a1f0b670a9"}"#
    );
}

#[test]
fn code_prefix_applies_on_the_wire() {
    let env = Envelope::from(Fault::timeout("x")).with_code_prefix(Some("ACME_"));
    assert_eq!(env.to_value()["error_code"], "ACME_TIMEOUT");
}
