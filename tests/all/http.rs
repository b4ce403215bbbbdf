//! The HTTP endpoints over loopback, driven by hyper's HTTP/1.1 client: every status of the rule,
//! every transport error, the listing and the manifest. (The log lines are tested in
//! `tests/http_log.rs`, a binary of its own: `tracing` caches per call site whether anyone
//! listens, and tests running beside a capturing one race with that cache.)

use axum::Router;
use envelope_core::http::{AuthLayer, BearerTokens, HttpTools, OriginLayer, TransportError};
use envelope_core::{Code, Envelope, Status, ToolError, Toolbox, codes, outcome::Confirmation, tool};
use serde_json::{Value, json};

/// Where an action cannot be queued, the confirmation it needs is a fault.
const NOT_QUEUED: Code = Code::new("CONFIRMATION_REQUIRED", Status::Error)
    .with_meaning("the action needs approval and this server cannot queue it")
    .with_action("ask the user to run the action where it can be approved")
    .with_http_status(202);

#[derive(ToolError)]
pub(crate) enum Answer {
    #[refuse(code = codes::VALIDATION_ERROR, parameter = "outcome", accepted = "any", fix = "Send another.")]
    Validation { rejected: String },
    #[refuse(code = codes::NOT_FOUND, parameter = "outcome", accepted = "any", fix = "Send another.")]
    NotFound { rejected: String },
    #[refuse(code = codes::CONFLICT, parameter = "outcome", accepted = "any", fix = "Send another.")]
    Conflict { rejected: String },
    #[refuse(code = codes::VERSION_CONFLICT, parameter = "outcome", accepted = "any", fix = "Send another.")]
    VersionConflict { rejected: String },
    #[refuse(code = codes::IDEMPOTENCY_CONFLICT, parameter = "outcome", accepted = "any", fix = "Send another.")]
    IdempotencyConflict { rejected: String },
    #[refuse(code = codes::IN_PROGRESS, parameter = "outcome", accepted = "any", fix = "Send another.")]
    InProgress { rejected: String },
    #[refuse(code = codes::RATE_LIMITED, parameter = "outcome", accepted = "any", fix = "Send another.")]
    RateLimited { rejected: String },
    #[refuse(code = codes::QUOTA_EXCEEDED, parameter = "outcome", accepted = "any", fix = "Send another.")]
    QuotaExceeded { rejected: String },
    #[refuse(code = codes::UNAUTHORIZED, parameter = "outcome", accepted = "any", fix = "Send another.")]
    Unauthorized { rejected: String },
    #[refuse(code = codes::FORBIDDEN, parameter = "outcome", accepted = "any", fix = "Send another.")]
    Forbidden { rejected: String },
    #[fault(code = codes::BACKEND_ERROR, operation = "answering {what}")]
    Backend { what: &'static str },
    #[fault(code = codes::NOT_IMPLEMENTED, operation = "answering {what}")]
    NotImplemented { what: &'static str },
    #[fault(code = codes::TIMEOUT, operation = "answering {what}")]
    Timeout { what: &'static str },
    #[fault(code = NOT_QUEUED, operation = "queueing {what}")]
    NotQueued { what: &'static str },
}

/// Answers the outcome named, for driving every status.
#[tool]
pub(crate) fn answer(
    #[validate(choices = [
        "ok", "VALIDATION_ERROR", "NOT_FOUND", "CONFLICT", "VERSION_CONFLICT", "IDEMPOTENCY_CONFLICT",
        "IN_PROGRESS", "RATE_LIMITED", "QUOTA_EXCEEDED", "UNAUTHORIZED", "FORBIDDEN", "BACKEND_ERROR",
        "NOT_IMPLEMENTED", "TIMEOUT", "NOT_QUEUED", "panic"
    ])]
    outcome: String,
) -> Result<Value, Answer> {
    let r = outcome.clone();
    Err(match outcome.as_str() {
        "ok" => return Ok(json!({"answered": true})),
        "VALIDATION_ERROR" => Answer::Validation { rejected: r },
        "NOT_FOUND" => Answer::NotFound { rejected: r },
        "CONFLICT" => Answer::Conflict { rejected: r },
        "VERSION_CONFLICT" => Answer::VersionConflict { rejected: r },
        "IDEMPOTENCY_CONFLICT" => Answer::IdempotencyConflict { rejected: r },
        "IN_PROGRESS" => Answer::InProgress { rejected: r },
        "RATE_LIMITED" => Answer::RateLimited { rejected: r },
        "QUOTA_EXCEEDED" => Answer::QuotaExceeded { rejected: r },
        "UNAUTHORIZED" => Answer::Unauthorized { rejected: r },
        "FORBIDDEN" => Answer::Forbidden { rejected: r },
        "BACKEND_ERROR" => Answer::Backend { what: "the test" },
        "NOT_IMPLEMENTED" => Answer::NotImplemented { what: "the test" },
        "TIMEOUT" => Answer::Timeout { what: "the test" },
        "NOT_QUEUED" => Answer::NotQueued { what: "the test" },
        _ => panic!("asked to panic"),
    })
}

/// A queued action, as a confirmation store would answer it.
pub(crate) struct Queued(u32);

impl ToolError for Queued {
    const CODES: &'static [Code] = &[codes::CONFIRMATION_REQUIRED];
    fn into_envelope(self) -> Envelope {
        let preview = json!({"delete": {"id": self.0, "title": "Release notes"}});
        Envelope::needs_confirmation(Confirmation::new(
            "pa_7Qx2",
            "Deleting note 3 waits for approval: show the preview, then call confirm_action.",
            preview,
        ))
    }
}

/// Archives a note, after approval (an envelope built by hand, as an adapter would).
#[tool(destructive)]
pub(crate) fn archive_note(#[validate(range = 1..)] note_id: u32) -> Result<(), Queued> {
    Err(Queued(note_id))
}

#[path = "../support/http_client.rs"]
mod client;
pub(crate) use client::{send, send_bytes, serve};

/// Counts to `n`, strictly: no lax coercions.
#[tool(strict)]
fn count_to(#[validate(range = 1..=10)] n: u32) -> Vec<u32> {
    (1..=n).collect()
}

fn test_toolbox() -> Toolbox {
    crate::tools::toolbox().with(answer::tool()).with(archive_note::tool()).with(count_to::tool())
}

#[tokio::test]
async fn every_status_of_the_rule() {
    let addr = serve(HttpTools::new(test_toolbox()).retry_after_seconds(30).router()).await;
    let expect = [
        ("ok", 200, "ok"),
        ("VALIDATION_ERROR", 400, "invalid"),
        ("NOT_FOUND", 404, "invalid"),
        ("CONFLICT", 409, "invalid"),
        ("VERSION_CONFLICT", 409, "invalid"),
        ("IDEMPOTENCY_CONFLICT", 422, "invalid"),
        ("IN_PROGRESS", 409, "invalid"),
        ("RATE_LIMITED", 429, "invalid"),
        ("QUOTA_EXCEEDED", 429, "invalid"),
        ("UNAUTHORIZED", 401, "invalid"),
        ("FORBIDDEN", 403, "invalid"),
        ("BACKEND_ERROR", 500, "error"),
        ("NOT_IMPLEMENTED", 501, "error"),
        ("TIMEOUT", 504, "error"),
        ("NOT_QUEUED", 500, "error"),
        ("panic", 500, "error"),
    ];
    for (outcome, http, word) in expect {
        let body = json!({ "outcome": outcome }).to_string();
        let reply = send(addr, "POST", "/tools/answer", &[("content-type", "application/json")], &body).await;
        assert_eq!((reply.status, reply.json()["status"].as_str()), (http, Some(word)), "{outcome}: {}", reply.text);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(reply.header("retry-after"), if http == 429 { Some("30") } else { None }, "{outcome}");
        if word == "invalid" {
            assert_eq!(reply.json()["error_code"], outcome);
        }
    }

    let queued = send(addr, "POST", "/tools/archive_note", &[], r#"{"note_id": 3}"#).await;
    assert_eq!(queued.status, 202, "{}", queued.text);
    assert_eq!(queued.json()["status"], "needs_confirmation");
    assert_eq!(queued.json()["pending_action_id"], "pa_7Qx2");

    // The envelope is the body, byte for byte as the toolbox serializes it.
    let ok =
        send(addr, "POST", "/tools/get_top_queries", &[], r#"{"hours_back": 24, "group_by": "database", "top": 1}"#)
            .await;
    let direct = test_toolbox()
        .call("get_top_queries", Some(&json!({"hours_back": 24, "group_by": "database", "top": 1})))
        .await
        .unwrap();
    assert_eq!((ok.status, ok.text.as_str()), (200, direct.to_json().as_str()));
}

#[tokio::test]
async fn the_body_is_read_as_text_as_over_mcp() {
    let addr = serve(HttpTools::new(test_toolbox()).router()).await;
    // Lax: "48" is read as 48.
    let lax =
        send(addr, "POST", "/tools/get_top_queries", &[], r#"{"hours_back": "48", "group_by": "database"}"#).await;
    assert_eq!(lax.status, 200, "{}", lax.text);
    // A duplicate key is seen, not silently overwritten.
    let dup = send(
        addr,
        "POST",
        "/tools/get_top_queries",
        &[],
        r#"{"hours_back": 24, "hours_back": 0, "group_by": "database"}"#,
    )
    .await;
    assert_eq!(dup.status, 400, "{}", dup.text);
    // A refusal quotes an integer past 64 bits with the digits sent.
    let big = send(
        addr,
        "POST",
        "/tools/get_top_queries",
        &[],
        r#"{"hours_back": 18446744073709551616, "group_by": "database"}"#,
    )
    .await;
    assert_eq!(big.status, 400);
    assert!(
        big.json()["message"].as_str().unwrap().starts_with("hours_back: 18446744073709551616 is out of range"),
        "{}",
        big.text
    );
    // A strict tool refuses the coercion; a lax one decodes a JSON string holding the object.
    let strict = send(addr, "POST", "/tools/count_to", &[], r#"{"n": "3"}"#).await;
    assert_eq!(strict.status, 400, "{}", strict.text);
    assert_eq!(strict.json()["hints"]["parameter"], "n");
    assert_eq!(
        send(addr, "POST", "/tools/count_to", &[], r#"{"n": 3}"#).await.text,
        r#"{"status":"ok","success":true,"data":[1,2,3]}"#
    );
    let encoded =
        send(addr, "POST", "/tools/get_top_queries", &[], r#""{\"hours_back\": 24, \"group_by\": \"database\"}""#)
            .await;
    assert_eq!(encoded.status, 200, "{}", encoded.text);
    // An empty body is no arguments: every required parameter is missing.
    let empty = send(addr, "POST", "/tools/get_top_queries", &[], "").await;
    assert_eq!(empty.status, 400);
    assert_eq!(empty.json()["hints"]["parameter"], "hours_back");
}

#[tokio::test]
async fn unknown_tool_and_bodies_that_are_not_objects() {
    let addr = serve(HttpTools::new(crate::tools::toolbox()).router()).await;
    let unknown = send(addr, "POST", "/tools/get_top_query", &[], "{}").await;
    assert_eq!(unknown.status, 404);
    assert_eq!(
        unknown.json(),
        json!({
            "status": "invalid", "success": false, "error_code": "NOT_FOUND",
            "message": "name: \"get_top_query\" is not a tool of this server; accepted: \"get_top_queries\", \
                        \"search_analytics\", \"create_note\", \"delete_note\", \"list_notes\", \"set_threshold\", \
                        \"confirm_action\". Did you mean \"get_top_queries\"? \
                        Send POST /tools/get_top_queries.",
            "hints": {"parameter": "name", "rejected": "\"get_top_query\"",
                      "accepted": "\"get_top_queries\", \"search_analytics\", \"create_note\", \"delete_note\", \"list_notes\", \"set_threshold\", \"confirm_action\"",
                      "fix": "Send POST /tools/get_top_queries.", "suggestion": "get_top_queries"},
            "retryable": false, "retry": "never"
        })
    );

    let prose = send(addr, "POST", "/tools/get_top_queries", &[], "hours_back=24&group_by=database").await;
    assert_eq!(prose.status, 400);
    assert_eq!(
        prose.json()["message"],
        "arguments: \"hours_back=24&group_by=database\" is not JSON; accepted: an object with the keys \
         \"hours_back\", \"group_by\", \"top\". Send the arguments as a JSON object, like {\"hours_back\": 10, \"group_by\": \"query_hash\"}."
    );
    // Where broken JSON breaks, in the words MCP's parse error uses: a body cut short, a raw
    // control character in a string, a word without quotes.
    for (body, where_) in [
        ("{\"hours_back\": 24, \"group_by\": ", ": it ends before its object does (a missing `}`, `]` or `\"`)"),
        (
            "{\"hours_back\": 24, \"group_by\": \"data\u{1}base\"}",
            ": the string opened at character 32 holds, near character 36, what a JSON string cannot (a raw \
             control character, or an escape other than \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
        ),
        ("{\"hours_back\": 24,\n \"group_by\": database}", " from character 33 (\"database}\")"),
    ] {
        let broken = send(addr, "POST", "/tools/get_top_queries", &[], body).await;
        assert_eq!(broken.status, 400, "{}", broken.text);
        let message = broken.json()["message"].as_str().unwrap().to_owned();
        let reason = message.split_once(" is not JSON").map(|(_, r)| r).unwrap_or_default();
        assert_eq!(
            reason,
            format!(
                "{where_}; accepted: an object with the keys \"hours_back\", \"group_by\", \"top\". Send the arguments as a JSON object, like {{\"hours_back\": 10, \"group_by\": \"query_hash\"}}."
            ),
            "{body:?}"
        );
    }
    // JSON's whitespace around the object is read past; Unicode's is not JSON (RFC 8259 §2).
    let spaced =
        send(addr, "POST", "/tools/get_top_queries", &[], " \t\r\n{\"hours_back\": 1, \"group_by\": \"database\"}\n ")
            .await;
    assert_eq!(spaced.status, 200, "{}", spaced.text);
    let nbsp =
        send(addr, "POST", "/tools/get_top_queries", &[], "{\"hours_back\": 1, \"group_by\": \"database\"}\u{a0}")
            .await;
    assert_eq!(nbsp.status, 400, "{}", nbsp.text);
    assert!(
        nbsp.json()["message"]
            .as_str()
            .unwrap()
            .contains(" is not JSON from character 42 (\"\\u{a0}\"); accepted: an object with the keys"),
        "{}",
        nbsp.text
    );
    // JSON text that is no object and cannot be read is named for what it is, not nesting.
    let huge = send(addr, "POST", "/tools/get_top_queries", &[], "1e400").await;
    assert_eq!(huge.status, 400, "{}", huge.text);
    assert_eq!(
        huge.json()["message"].as_str().unwrap().split(';').next(),
        Some("arguments: 1e400 is too large to read as a number")
    );
    let lone = send(addr, "POST", "/tools/get_top_queries", &[], "\"\\ud800\"").await;
    assert_eq!(lone.status, 400, "{}", lone.text);
    let said = lone.json()["message"].as_str().unwrap().to_owned();
    assert!(
        said.contains("is not valid JSON text (an invalid escape or number)") && !said.contains("nested"),
        "{said}"
    );
    let long = "x".repeat(5000);
    let cut = send(addr, "POST", "/tools/get_top_queries", &[], &long).await;
    assert_eq!(cut.status, 400);
    assert_eq!(cut.json()["hints"]["rejected"], format!("\"{}…\" (5000 characters)", "x".repeat(32)));
    assert!(cut.text.len() < 700, "{}", cut.text.len());

    let array = send(addr, "POST", "/tools/get_top_queries", &[], "[24, \"database\"]").await;
    assert_eq!(array.status, 400);
    assert_eq!(array.json()["hints"]["rejected"], "[24,\"database\"]");
    assert_eq!(array.json()["error_code"], "VALIDATION_ERROR");

    // A tool with a secret parameter never quotes the body: it may hold the secret.
    let secret = send(addr, "POST", "/tools/set_threshold", &[], "api_key=sk-AAAAAAAAAAAAAAAAAAAA").await;
    assert_eq!(secret.status, 400);
    assert!(!secret.text.contains("sk-AAAA"), "{}", secret.text);
}

#[tokio::test]
async fn listing_and_manifest() {
    let toolbox = crate::tools::toolbox();
    let addr = serve(HttpTools::new(toolbox.clone()).router()).await;
    let manifest = send(addr, "GET", "/manifest", &[], "").await;
    assert_eq!((manifest.status, manifest.json()), (200, toolbox.manifest()));
    let tools = send(addr, "GET", "/tools", &[], "").await;
    assert_eq!(tools.status, 200);
    let listed = tools.json();
    let first = &listed["tools"][0];
    assert_eq!(first["name"], "get_top_queries");
    assert_eq!(first["inputSchema"], Value::Object(toolbox.tools()[0].input_schema()));
    assert_eq!(first["outputSchema"], Value::Object(toolbox.tools()[0].output_schema(None)));
    assert_eq!(first["annotations"], json!({"readOnlyHint": true, "idempotentHint": true}));
    assert!(first.get("error_codes").is_none());
    assert_eq!(listed["tools"].as_array().unwrap().len(), toolbox.tools().len());
    assert_eq!(listed["tools"].as_array().unwrap().len(), 7);
}

#[tokio::test]
async fn transport_errors() {
    let tools = HttpTools::new(crate::tools::toolbox()).body_limit(64).router();
    let app = tools
        .layer(AuthLayer::new(
            BearerTokens::new(["tok-writer"])
                .with_resource_metadata("http://127.0.0.1/.well-known/oauth-protected-resource"),
        ))
        .layer(OriginLayer::loopback().allow("https://dash.example.com"));
    let addr = serve(app).await;
    let auth = ("authorization", "Bearer tok-writer");
    let args = r#"{"hours_back": 24, "group_by": "database"}"#;

    let missing = send(addr, "POST", "/tools/get_top_queries", &[], args).await;
    assert_eq!(missing.status, 401);
    assert_eq!(missing.json(), TransportError::missing_bearer_token().to_value());
    assert_eq!(
        missing.header("www-authenticate"),
        Some(r#"Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource""#)
    );
    let wrong = send(addr, "POST", "/tools/get_top_queries", &[("authorization", "Bearer tok-guess")], args).await;
    assert_eq!((wrong.status, wrong.json()["error"].as_str()), (401, Some("invalid_bearer_token")));
    assert!(wrong.header("www-authenticate").unwrap().starts_with(r#"Bearer error="invalid_token""#));
    assert!(!wrong.text.contains("tok-guess"));

    let evil = send(addr, "POST", "/tools/get_top_queries", &[auth, ("origin", "http://evil.example")], args).await;
    assert_eq!((evil.status, evil.json()["error"].as_str()), (403, Some("forbidden_origin")));
    for origin in ["http://localhost:5173", "https://dash.example.com"] {
        let ok = send(addr, "POST", "/tools/get_top_queries", &[auth, ("origin", origin)], args).await;
        assert_eq!(ok.status, 200, "{origin}: {}", ok.text);
    }

    let put = send(addr, "PUT", "/tools/get_top_queries", &[auth], args).await;
    assert_eq!(put.status, 405);
    assert_eq!(put.header("allow"), Some("POST"));
    assert_eq!(
        put.json(),
        json!({"error": "method_not_allowed",
               "message": "PUT is not a method this path takes; accepted: POST. Send the request with POST."})
    );
    // A tool's name percent-encoded reaches the same tool as its own route does.
    let encoded = send(addr, "POST", "/tools/get%5Ftop_queries", &[auth], args).await;
    assert_eq!(encoded.status, 200, "{}", encoded.text);
    let put_encoded = send(addr, "PUT", "/tools/get%5Ftop_queries", &[auth], args).await;
    assert_eq!((put_encoded.status, put_encoded.header("allow")), (405, Some("POST")));
    let post_list = send(addr, "POST", "/tools", &[auth], "").await;
    assert_eq!((post_list.status, post_list.header("allow")), (405, Some("GET, HEAD")));

    let big =
        send(addr, "POST", "/tools/get_top_queries", &[auth], &format!("{{\"group_by\": \"{}\"}}", "d".repeat(100)))
            .await;
    assert_eq!(big.status, 413);
    assert_eq!(big.json(), TransportError::payload_too_large(64).to_value());

    // A chunked body, with no Content-Length, is cut off at the limit as it streams.
    let raw = format!(
        "POST /tools/get_top_queries HTTP/1.1\r\nhost: x\r\nauthorization: Bearer tok-writer\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{}\r\n0\r\n\r\n",
        100,
        "a".repeat(100)
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut stream, raw.as_bytes()).await.unwrap();
    let mut reply = vec![0u8; 4096];
    let n = tokio::io::AsyncReadExt::read(&mut stream, &mut reply).await.unwrap();
    let reply = String::from_utf8_lossy(&reply[..n]);
    assert!(reply.starts_with("HTTP/1.1 413 "), "{reply}");
    assert!(reply.ends_with(&TransportError::payload_too_large(64).to_json()), "{reply}");

    // Over MCP the same failures are JSON-RPC errors.
    let mcp = Router::new()
        .route("/mcp", axum::routing::post(|| async { "unreachable" }))
        .layer(AuthLayer::new(BearerTokens::new(["tok-writer"])).json_rpc());
    let mcp_addr = serve(mcp).await;
    let rpc = send(mcp_addr, "POST", "/mcp", &[], "{}").await;
    assert_eq!(rpc.status, 401);
    assert_eq!(rpc.json(), TransportError::missing_bearer_token().to_json_rpc(None));
    assert_eq!(rpc.json()["error"]["data"]["error"], "missing_bearer_token");
}

/// Sleeps `ms` milliseconds on the calling thread, as a slow sync body would.
#[tool]
fn slow_sync(#[validate(range = 1..=5000)] ms: u64) -> u64 {
    std::thread::sleep(std::time::Duration::from_millis(ms));
    ms
}

/// A slow sync body runs on a thread of envelope's pool of body threads, never on the runtime's one thread: while
/// it sleeps 1.5 s, another request on the same current-thread runtime is answered at once (it
/// waited the whole 1.5 s when the endpoint ran the body inline). A refusal of the same tool
/// never leaves the runtime's thread, and answers as `call_json` does.
#[tokio::test(flavor = "current_thread")]
async fn a_slow_sync_body_stalls_no_other_request() {
    let toolbox = crate::tools::toolbox().with(slow_sync::tool());
    let refusal = toolbox.call_json("slow_sync", r#"{"ms": 0}"#).await.unwrap().to_json();
    let addr = serve(HttpTools::new(toolbox).router()).await;
    // The client shares the server's one thread: a body run inline would block both, so the
    // clock starts before the slow call is under way.
    let started = std::time::Instant::now();
    let slow = tokio::spawn(async move { send(addr, "POST", "/tools/slow_sync", &[], r#"{"ms": 1500}"#).await });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let quick = send(addr, "POST", "/tools/list_notes", &[], "{}").await;
    let waited = started.elapsed();
    assert_eq!(quick.status, 200, "{}", quick.text);
    assert!(!slow.is_finished(), "the slow call was still running");
    assert!(waited < std::time::Duration::from_millis(900), "list_notes answered {waited:?} after the slow call began");
    let slow = slow.await.unwrap();
    assert_eq!((slow.status, slow.json()["data"].clone()), (200, json!(1500)), "{}", slow.text);
    let refused = send(addr, "POST", "/tools/slow_sync", &[], r#"{"ms": 0}"#).await;
    assert_eq!((refused.status, refused.text), (400, refusal));
}

/// Answers whether its body runs on the thread of the test's runtime (`runtime`: that thread's
/// name), and whether it can reach a runtime.
#[tool]
fn where_it_runs(runtime: String) -> Value {
    let here = std::thread::current().name().unwrap_or("").to_owned();
    json!({"on_the_runtime": here == runtime, "reaches_a_runtime": tokio::runtime::Handle::try_current().is_ok()})
}

/// A sync body runs off the runtime's thread (in its context, as on tokio's blocking threads:
/// `Handle::current()` works), unless its tool is declared quick (`Tool::inline_body`): then on
/// the worker that read the call.
#[tokio::test]
async fn a_sync_body_runs_inline_only_when_declared_quick() {
    let runtime = std::thread::current().name().unwrap_or("").to_owned();
    let arguments = json!({ "runtime": runtime }).to_string();
    for (tool, inline) in [(where_it_runs::tool(), false), (where_it_runs::tool().inline_body(), true)] {
        let addr = serve(HttpTools::new(Toolbox::new().with(tool)).router()).await;
        let reply = send(addr, "POST", "/tools/where_it_runs", &[], &arguments).await;
        let expected = json!({"on_the_runtime": inline, "reaches_a_runtime": true});
        assert_eq!((reply.status, reply.json()["data"].clone()), (200, expected), "{}", reply.text);
    }
}

/// A rate limit that asks for no wait at all (`hints.retry_after_ms: 0`).
struct NoWait;

impl ToolError for NoWait {
    const CODES: &'static [Code] = &[codes::RATE_LIMITED];
    fn into_envelope(self) -> Envelope {
        Answer::RateLimited { rejected: "now".to_owned() }.into_envelope().with_retry_after_ms(0)
    }
}

/// Is rate limited, with no wait.
#[tool]
fn limited_now() -> Result<Value, NoWait> {
    Err(NoWait)
}

#[tokio::test]
async fn retry_after_is_whole_seconds_and_at_least_one() {
    let toolbox = test_toolbox().with(limited_now::tool());
    let addr = serve(HttpTools::new(toolbox).retry_after_seconds(0).router()).await;
    let reply = send(addr, "POST", "/tools/limited_now", &[], "{}").await;
    assert_eq!((reply.status, reply.json()["hints"]["retry_after_ms"].clone()), (429, json!(0)), "{}", reply.text);
    assert_eq!(reply.header("retry-after"), Some("1"));
    let reply = send(addr, "POST", "/tools/answer", &[], r#"{"outcome": "RATE_LIMITED"}"#).await;
    assert_eq!(reply.status, 429, "{}", reply.text);
    assert_eq!(reply.header("retry-after"), Some("1"));
}
