//! What an HTTP client sees of a call short of a tool's scopes (403 with the step-up challenge,
//! MCP 2025-11-25 "Authorization / Scope challenge handling", RFC 6750 §3.1, RFC 9728 §5.1) and
//! of a rate-limited call (429 with `Retry-After`), over MCP Streamable HTTP on every protocol
//! version and over `/tools/{name}`.
//!
//! A verified caller is put in the request's extensions by a small layer (the auth hook's job),
//! read from the test headers `x-test-subject` and `x-test-scopes` (space-separated).

use axum::Router;
use axum::extract::Request;
use axum::middleware::Next;
use envelope_core::http::HttpTools;
use envelope_core::http::auth::ProtectedResource;
use envelope_core::mcp::streamable::McpHttp;
use envelope_core::spec::rate::RateLimit;
use envelope_core::{Caller, Toolbox, tool};
use serde_json::{Value, json};

#[path = "support/http_client.rs"]
mod client;
use client::{Reply, send, serve};

/// Reads a note.
#[tool(read_only, scopes = ["notes:read"])]
fn read_note(#[validate(range = 1..=100)] id: u32) -> Value {
    json!({"id": id})
}

/// Writes a note.
#[tool(scopes = ["notes:read", "notes:write"])]
fn write_note(#[validate(length = 1..=20)] title: String) -> Value {
    json!({"title": title})
}

fn toolbox() -> Toolbox {
    Toolbox::new().with(read_note::tool()).with(write_note::tool())
}

async fn test_caller(mut request: Request, next: Next) -> axum::response::Response {
    if let Some(caller) = caller_of(request.headers()) {
        request.extensions_mut().insert(caller);
    }
    next.run(request).await
}

fn caller_of(headers: &axum::http::HeaderMap) -> Option<Caller> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let scopes = header("x-test-scopes").unwrap_or_default();
    Some(Caller::new(header("x-test-subject")?).with_scopes(scopes.split(' ').map(str::to_owned)))
}

fn with_callers(router: Router) -> Router {
    router.layer(axum::middleware::from_fn(test_caller))
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap().block_on(f)
}

const VERSIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

fn resource() -> ProtectedResource {
    ProtectedResource::new("https://notes.example.com/mcp").with_scopes(["notes:read", "notes:write"])
}

const METADATA: &str = "https://notes.example.com/.well-known/oauth-protected-resource/mcp";

/// A `tools/call` of `name` with `arguments` over `/mcp` on `version`, as `headers`' caller.
async fn call(
    addr: std::net::SocketAddr,
    version: &str,
    caller: &[(&str, &str)],
    name: &str,
    arguments: Value,
) -> Reply {
    let mut params = json!({"name": name, "arguments": arguments});
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", version),
    ];
    if version >= "2026-07-28" {
        params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": version,
                                 "io.modelcontextprotocol/clientCapabilities": {}});
        headers.push(("mcp-method", "tools/call"));
        headers.push(("mcp-name", name));
    }
    headers.extend_from_slice(caller);
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}).to_string();
    send(addr, "POST", "/mcp", &headers, &body).await
}

#[test]
fn a_call_short_of_a_tools_scopes_is_403_with_the_step_up_challenge_on_every_version() {
    block_on(async {
        let app = McpHttp::new(toolbox()).with_protected_resource(resource()).router();
        let addr = serve(with_callers(app)).await;
        let bare = serve(with_callers(McpHttp::new(toolbox()).router())).await;
        let reader = [("x-test-subject", "bob"), ("x-test-scopes", "notes:read")];
        let writer = [("x-test-subject", "bob"), ("x-test-scopes", "notes:read notes:write")];
        for version in VERSIONS {
            let reply = call(addr, version, &reader, "write_note", json!({"title": "hi"})).await;
            assert_eq!(reply.status, 403, "{version}: {}", reply.text);
            assert_eq!(
                reply.header("www-authenticate"),
                Some(
                    format!(
                        r#"Bearer error="insufficient_scope", scope="notes:write", resource_metadata="{METADATA}""#
                    )
                    .as_str()
                ),
                "{version}"
            );
            // The body is still the JSON-RPC result carrying the envelope.
            let body = reply.json();
            assert_eq!(body["id"], 7, "{version}");
            assert_eq!(body["result"]["isError"], true, "{version}");
            let envelope = &body["result"]["structuredContent"];
            assert_eq!(envelope["error_code"], "FORBIDDEN", "{version}: {envelope}");
            assert_eq!(envelope["hints"]["accepted"], "a caller granted notes:write", "{version}");

            // Without a protected resource: the challenge without resource_metadata.
            let reply = call(bare, version, &reader, "write_note", json!({"title": "hi"})).await;
            assert_eq!(reply.status, 403, "{version}");
            assert_eq!(
                reply.header("www-authenticate"),
                Some(r#"Bearer error="insufficient_scope", scope="notes:write""#),
                "{version}"
            );

            // With the scope: 200 and ok. A refusal that is not about scopes stays 200.
            let reply = call(addr, version, &writer, "write_note", json!({"title": "hi"})).await;
            assert_eq!((reply.status, reply.header("www-authenticate")), (200, None), "{version}: {}", reply.text);
            assert_eq!(reply.json()["result"]["structuredContent"]["data"], json!({"title": "hi"}), "{version}");
            let reply = call(addr, version, &reader, "read_note", json!({"id": 0})).await;
            assert_eq!(reply.status, 200, "{version}");
            assert_eq!(reply.json()["result"]["structuredContent"]["error_code"], "VALIDATION_ERROR", "{version}");
        }
    });
}

#[test]
fn a_rate_limited_call_over_mcp_is_429_with_retry_after_on_every_version() {
    block_on(async {
        let limited = toolbox().with_rate_limit(RateLimit::per_minute(1));
        let addr = serve(with_callers(McpHttp::new(limited).router())).await;
        for version in VERSIONS {
            let subject = format!("caller-{version}");
            let caller = [("x-test-subject", subject.as_str()), ("x-test-scopes", "notes:read")];
            let first = call(addr, version, &caller, "read_note", json!({"id": 1})).await;
            assert_eq!((first.status, first.header("retry-after")), (200, None), "{version}: {}", first.text);
            let second = call(addr, version, &caller, "read_note", json!({"id": 1})).await;
            assert_eq!(second.status, 429, "{version}: {}", second.text);
            let body = second.json();
            let envelope = &body["result"]["structuredContent"];
            assert_eq!(envelope["error_code"], "RATE_LIMITED", "{version}: {envelope}");
            assert_eq!(body["result"]["isError"], true);
            let delay_ms = envelope["hints"]["retry_after_ms"].as_u64().unwrap();
            let seconds: u64 = second.header("retry-after").unwrap().parse().unwrap();
            assert_eq!(seconds, delay_ms.div_ceil(1000).max(1), "{version}");
            assert!((55..=60).contains(&seconds), "{version}: {seconds}");
        }
    });
}

#[test]
fn the_tools_endpoint_names_the_resource_metadata_in_its_step_up_challenge() {
    block_on(async {
        let app = HttpTools::new(toolbox()).with_protected_resource(&resource()).router();
        let addr = serve(with_callers(app)).await;
        let reader = [("content-type", "application/json"), ("x-test-subject", "bob"), ("x-test-scopes", "notes:read")];
        let reply = send(addr, "POST", "/tools/write_note", &reader, r#"{"title":"hi"}"#).await;
        assert_eq!(reply.status, 403, "{}", reply.text);
        assert_eq!(
            reply.header("www-authenticate"),
            Some(
                format!(r#"Bearer error="insufficient_scope", scope="notes:write", resource_metadata="{METADATA}""#)
                    .as_str()
            )
        );
        assert_eq!(reply.json()["error_code"], "FORBIDDEN");
    });
}

#[test]
fn every_401_over_mcp_names_the_scopes_and_a_narrow_token_steps_up() {
    use envelope_core::http::BearerTokens;
    block_on(async {
        let tokens = BearerTokens::new(["unused"])
            .with_caller("tok-read", Caller::new("bob").with_scopes(["notes:read"]))
            .with_caller("tok-write", Caller::new("bob").with_scopes(["notes:read", "notes:write"]));
        let app = McpHttp::new(toolbox()).with_auth(tokens.clone()).with_protected_resource(resource()).router();
        let addr = serve(app).await;
        // No token, then a token not accepted: 401 naming resource_metadata and the scopes.
        let none = call(addr, "2025-11-25", &[], "read_note", json!({"id": 1})).await;
        assert_eq!(none.status, 401, "{}", none.text);
        assert_eq!(
            none.header("www-authenticate"),
            Some(format!(r#"Bearer resource_metadata="{METADATA}", scope="notes:read notes:write""#).as_str())
        );
        assert_eq!(none.json()["error"]["data"]["error"], "missing_bearer_token");
        let bad = call(addr, "2025-11-25", &[("authorization", "Bearer nope")], "read_note", json!({"id": 1})).await;
        assert_eq!(bad.status, 401, "{}", bad.text);
        let challenge = bad.header("www-authenticate").unwrap();
        assert!(challenge.starts_with(r#"Bearer error="invalid_token""#), "{challenge}");
        assert!(challenge.ends_with(r#"scope="notes:read notes:write""#), "{challenge}");

        // Without a protected resource, the tools' own scopes are named.
        let bare = serve(McpHttp::new(toolbox()).with_auth(tokens).router()).await;
        let none = call(bare, "2026-07-28", &[], "read_note", json!({"id": 1})).await;
        assert_eq!(
            (none.status, none.header("www-authenticate")),
            (401, Some(r#"Bearer scope="notes:read notes:write""#))
        );

        // A verified token short of the tool's scope: 403 with the full challenge; the
        // stepped-up token is served.
        for version in VERSIONS {
            let narrow = [("authorization", "Bearer tok-read")];
            let reply = call(addr, version, &narrow, "write_note", json!({"title": "t"})).await;
            assert_eq!(reply.status, 403, "{version}: {}", reply.text);
            assert_eq!(
                reply.header("www-authenticate"),
                Some(
                    format!(
                        r#"Bearer error="insufficient_scope", scope="notes:write", resource_metadata="{METADATA}""#
                    )
                    .as_str()
                ),
                "{version}"
            );
            let wide = [("authorization", "Bearer tok-write")];
            let reply = call(addr, version, &wide, "write_note", json!({"title": "t"})).await;
            assert_eq!(reply.status, 200, "{version}: {}", reply.text);
        }
    });
}

fn purge_preview() -> Result<Value, envelope_core::Fault> {
    Ok(json!({"would_purge": "all"}))
}

/// Purges every note, once a person approves.
#[tool(destructive, scopes = ["notes:admin"], confirm = purge_preview)]
fn purge_notes() -> Value {
    json!({"purged": "all"})
}

#[test]
fn an_approval_by_the_caller_who_queued_it_with_a_narrower_token_is_403_with_the_challenge() {
    block_on(async {
        let toolbox = Toolbox::new().with(purge_notes::tool());
        let tools =
            serve(with_callers(HttpTools::new(toolbox.clone()).with_protected_resource(&resource()).router())).await;
        let mcp = serve(with_callers(McpHttp::new(toolbox).with_protected_resource(resource()).router())).await;
        const ADMIN: &[(&str, &str)] = &[("x-test-subject", "alice"), ("x-test-scopes", "notes:admin")];
        const NARROWER: &[(&str, &str)] = &[("x-test-subject", "alice"), ("x-test-scopes", "notes:read")];
        const OTHER: &[(&str, &str)] = &[("x-test-subject", "bob"), ("x-test-scopes", "notes:read")];
        let (admin, narrower, other) = (ADMIN, NARROWER, OTHER);
        let challenge =
            format!(r#"Bearer error="insufficient_scope", scope="notes:admin", resource_metadata="{METADATA}""#);

        // Over /tools.
        let post = |caller: &'static [(&'static str, &'static str)], path: &'static str, body: String| async move {
            let mut headers = vec![("content-type", "application/json")];
            headers.extend_from_slice(caller);
            send(tools, "POST", path, &headers, &body).await
        };
        let queued = post(admin, "/tools/purge_notes", "{}".to_owned()).await;
        assert_eq!(queued.status, 202, "{}", queued.text);
        let id = queued.json()["pending_action_id"].as_str().unwrap().to_owned();
        let approve = json!({"pending_action_id": id, "approved": true}).to_string();
        let stranger = post(other, "/tools/confirm_action", approve.clone()).await;
        assert_eq!((stranger.status, stranger.header("www-authenticate")), (404, None), "{}", stranger.text);
        assert_eq!(stranger.json()["error_code"], "NOT_FOUND");
        let narrow = post(narrower, "/tools/confirm_action", approve.clone()).await;
        assert_eq!(narrow.status, 403, "{}", narrow.text);
        assert_eq!(narrow.header("www-authenticate"), Some(challenge.as_str()));
        assert_eq!(narrow.json()["error_code"], "FORBIDDEN");
        // Nothing was used up: the stepped-up token approves it, once.
        let ran = post(admin, "/tools/confirm_action", approve.clone()).await;
        assert_eq!((ran.status, ran.json()["data"].clone()), (200, json!({"purged": "all"})), "{}", ran.text);

        // Over /mcp (a 2025 client: the action's id in the envelope, confirm_action a tool).
        let queued = call(mcp, "2025-11-25", admin, "purge_notes", json!({})).await;
        let envelope = queued.json()["result"]["structuredContent"].clone();
        let id = envelope["pending_action_id"].as_str().unwrap_or_else(|| panic!("{envelope}")).to_owned();
        let approve = json!({"pending_action_id": id, "approved": true});
        let stranger = call(mcp, "2025-11-25", other, "confirm_action", approve.clone()).await;
        assert_eq!(stranger.status, 200, "{}", stranger.text);
        assert_eq!(stranger.json()["result"]["structuredContent"]["error_code"], "NOT_FOUND");
        let narrow = call(mcp, "2025-11-25", narrower, "confirm_action", approve.clone()).await;
        assert_eq!(narrow.status, 403, "{}", narrow.text);
        assert_eq!(narrow.header("www-authenticate"), Some(challenge.as_str()));
        assert_eq!(narrow.json()["result"]["structuredContent"]["error_code"], "FORBIDDEN");
        let ran = call(mcp, "2025-11-25", admin, "confirm_action", approve).await;
        assert_eq!(ran.status, 200, "{}", ran.text);
        assert_eq!(ran.json()["result"]["structuredContent"]["data"], json!({"purged": "all"}));
    });
}
