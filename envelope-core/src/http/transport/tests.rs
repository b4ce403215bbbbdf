//! Transport errors' words, statuses, challenges and bodies.

use super::*;

#[test]
fn words_statuses_and_challenges() {
    let cases = [
        (TransportError::missing_bearer_token(), "missing_bearer_token", 401, Some("Bearer")),
        (TransportError::invalid_bearer_token(), "invalid_bearer_token", 401, Some(r#"Bearer error="invalid_token""#)),
        (
            TransportError::insufficient_scope("tools:call"),
            "insufficient_scope",
            403,
            Some(r#"Bearer error="insufficient_scope", scope="tools:call""#),
        ),
        (TransportError::forbidden_origin("http://evil.example"), "forbidden_origin", 403, None),
        (TransportError::method_not_allowed("PUT", &["POST"]), "method_not_allowed", 405, None),
        (TransportError::payload_too_large(10), "payload_too_large", 413, None),
        (TransportError::forbidden_host("evil.example", "localhost"), "forbidden_host", 403, None),
        (TransportError::not_found("/", &["POST /mcp"]), "not_found", 404, None),
        (TransportError::request_timeout(30_000), "request_timeout", 408, None),
        (TransportError::malformed_request(), "malformed_request", 400, None),
        (TransportError::uri_too_long(65_534), "uri_too_long", 414, None),
        (TransportError::header_fields_too_large(16_384), "header_fields_too_large", 431, None),
        (TransportError::service_unavailable("busy", 1), "service_unavailable", 503, None),
    ];
    for (e, word, status, challenge) in cases {
        assert_eq!((e.word(), e.http_status(), e.www_authenticate().as_deref()), (word, status, challenge));
        let body: Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(body.as_object().unwrap().len(), 2);
        assert_eq!(body["error"], word);
        assert_eq!(body["message"], e.message());
    }
}

#[test]
fn messages_quote_what_was_refused() {
    assert_eq!(
        TransportError::forbidden_origin("http://evil.example").message(),
        "The origin \"http://evil.example\" is not served by this server. Send the request from an allowed \
         origin, or from a program that sends no Origin header."
    );
    let e = TransportError::method_not_allowed("PUT", &["POST"]);
    assert_eq!(e.message(), "PUT is not a method this path takes; accepted: POST. Send the request with POST.");
    assert_eq!(e.allow(), Some("POST"));
    let long = format!("http://{}.example", "a".repeat(500));
    assert!(TransportError::forbidden_origin(&long).message().len() < 250);
    assert_eq!(
        TransportError::not_found("/MCP", &["POST /mcp", "GET /tools"]).message(),
        "No route of this server serves the path \"/MCP\"; it serves POST /mcp, GET /tools. Send the request to \
         one of those."
    );
    assert!(TransportError::not_found(&"/x".repeat(400), &[]).message().len() < 250);
    assert_eq!(
        TransportError::forbidden_host("rebind.example:8080", "localhost, 127.0.0.1 or [::1]").message(),
        "The host \"rebind.example:8080\" is not served by this server. Send the request to localhost, \
         127.0.0.1 or [::1], as the Host header names it."
    );
    let busy = TransportError::service_unavailable("this server is at its bound of 2 requests in flight", 3);
    assert_eq!(
        busy.message(),
        "The request was not served: this server is at its bound of 2 requests in flight. Send it again after 3 s."
    );
    assert_eq!(busy.retry_after_seconds(), Some(3));
}

#[test]
fn resource_metadata_goes_in_the_challenge() {
    let e = TransportError::invalid_bearer_token().with_resource_metadata("https://x.example/.well-known/oauth");
    assert_eq!(
        e.www_authenticate().as_deref(),
        Some(r#"Bearer error="invalid_token", resource_metadata="https://x.example/.well-known/oauth""#)
    );
    let missing = TransportError::missing_bearer_token().with_resource_metadata("https://x.example/m");
    assert_eq!(missing.www_authenticate().as_deref(), Some(r#"Bearer resource_metadata="https://x.example/m""#));
    assert_eq!(
        missing.with_scope("notes:read notes:write").www_authenticate().as_deref(),
        Some(r#"Bearer resource_metadata="https://x.example/m", scope="notes:read notes:write""#)
    );
    let narrower = TransportError::insufficient_scope("a").with_scope("b");
    assert_eq!(narrower.www_authenticate().as_deref(), Some(r#"Bearer error="insufficient_scope", scope="a""#));
}

#[test]
fn every_kind_reads_its_row_of_the_one_table() {
    let table = crate::codes::transport_words::ALL;
    assert_eq!(TransportErrorKind::ALL.len(), table.len());
    for (kind, row) in TransportErrorKind::ALL.iter().zip(table) {
        assert_eq!(
            (kind.word(), kind.http_status(), kind.json_rpc_code(), kind.retry()),
            (row.word(), row.http_status(), row.json_rpc_code(), row.retry())
        );
    }
    let walked: Vec<(&str, u16, &str)> =
        table.iter().map(|r| (r.word(), r.http_status(), r.retry().as_str())).collect();
    // The words of DESIGN's transport table, with their statuses and retry classes.
    for expected in [
        ("missing_bearer_token", 401, "reauthorize"),
        ("invalid_bearer_token", 401, "reauthorize"),
        ("insufficient_scope", 403, "reauthorize"),
        ("forbidden_origin", 403, "never"),
        ("method_not_allowed", 405, "never"),
        ("payload_too_large", 413, "never"),
        ("unsupported_content_encoding", 415, "never"),
        ("unsupported_media_type", 415, "never"),
        ("tenant_required", 400, "never"),
        ("tenant_policy_unavailable", 403, "with_backoff"),
        ("tenant_mismatch", 403, "never"),
        ("legacy_sse_retired", 410, "never"),
        ("service_unavailable", 503, "with_backoff"),
        ("rate_limited", 429, "after_delay"),
    ] {
        assert!(walked.contains(&expected), "{expected:?} not in {walked:?}");
    }
    // What a client sees of each: the status and the word, in both body shapes.
    let samples = [
        TransportError::missing_bearer_token(),
        TransportError::invalid_bearer_token(),
        TransportError::insufficient_scope("a"),
        TransportError::forbidden_origin("http://x"),
        TransportError::method_not_allowed("PUT", &["POST"]),
        TransportError::payload_too_large(1),
        TransportError::unsupported_content_encoding("gzip"),
        TransportError::unsupported_media_type(Some("text/plain")),
        TransportError::unsupported_media_type(None),
        TransportError::tenant_required("s"),
        TransportError::tenant_policy_unavailable(),
        TransportError::tenant_mismatch(),
        TransportError::legacy_sse_retired("/sse"),
        TransportError::service_unavailable("busy", 1),
    ];
    for e in samples {
        let row = e.kind().row();
        assert_eq!(e.http_status(), row.http_status());
        assert_eq!(e.to_value()["error"], row.word());
        let rpc = e.to_json_rpc(None);
        assert_eq!((rpc["error"]["code"].as_i64(), &rpc["error"]["data"]["error"]), (Some(-32000), &json!(row.word())));
    }
}

#[test]
fn json_rpc_form() {
    let e = TransportError::payload_too_large(4);
    assert_eq!(
        e.to_json_rpc(Some(&json!(7))),
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32000, "message": e.message(),
               "data": {"error": "payload_too_large"}}})
    );
    assert_eq!(e.body(ErrorBody::JsonRpc)["id"], Value::Null);
}
