//! No bearer token, nor any part of one, reaches a log line or a reply: every event of every
//! target is captured (TRACE) while refused and served requests go to `/mcp` and `/tools`. A
//! binary of its own, so no other test's threads touch `tracing`'s per-call-site cache while a
//! subscriber captures.

use std::time::{SystemTime, UNIX_EPOCH};

use envelope_core::__private010::{Input, Outcome, Tool};
use envelope_core::http::auth::{Jwks, JwtVerifier, ProtectedResource};
use envelope_core::http::{AuthLayer, HttpTools};
use envelope_core::mcp::streamable::McpHttp;
use envelope_core::{Envelope, Toolbox, tool};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;

#[path = "support/http_client.rs"]
#[allow(dead_code)] // `serve`: the listener is bound here, to know the resource URL first
mod client;
use client::send;

const SECRET: &str = "dev-secret-of-at-least-32-bytes!";
const ISSUER: &str = "https://auth.test.example";

#[path = "support/captured.rs"]
mod captured;
use captured::Captured;

/// Answers the caller's subject.
#[tool(read_only)]
fn whoami() -> String {
    unreachable!("the test's own call function answers")
}

fn whoami_call<'a>(_: &'a envelope_core::spec::ToolSpec, input: Input<'_>) -> Outcome<'a> {
    Outcome::Ready(Envelope::ok(json!(input.context().caller().subject())))
}

fn toolbox() -> Toolbox {
    Toolbox::new().with(Tool::__new(whoami::tool().spec().clone(), whoami_call))
}

fn hs256(claims: &serde_json::Value) -> String {
    jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &EncodingKey::from_secret(SECRET.as_bytes()).unwrap())
        .unwrap()
}

#[test]
fn tokens_are_never_logged_or_echoed() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::TRACE)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    // One thread: the server's tasks see this thread's subscriber.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut tokens = Vec::new();
    let mut replies = String::new();
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let url = format!("http://{addr}/mcp");
        let resource = ProtectedResource::new(&url).with_authorization_server(ISSUER);
        // A JWKS URL that refuses connections: its failed fetch is logged, with no token.
        let dead = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let dead_url = format!("http://{}/jwks.json", dead.local_addr().unwrap());
        drop(dead);
        let verifier =
            JwtVerifier::new(ISSUER, &url).with_hs256_secret(SECRET).with_jwks(Jwks::from_url(&dead_url).unwrap());
        let app = McpHttp::new(toolbox())
            .with_auth(verifier.clone())
            .with_protected_resource(resource.clone())
            .router()
            .merge(
                HttpTools::new(toolbox())
                    .router()
                    .layer(AuthLayer::new(verifier).with_resource_metadata(resource.metadata_url())),
            );
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
        let good = json!({"iss": ISSUER, "sub": "alice", "aud": url, "exp": now + 600});
        let mut expired = good.clone();
        expired["exp"] = json!(now - 600);
        let mut foreign = good.clone();
        foreign["aud"] = json!("https://other.test.example/mcp");
        let rs_unknown = {
            let mut header = Header::new(Algorithm::RS256);
            header.kid = Some("kid-not-published".to_owned());
            let key = include_str!("fixtures/auth/TEST-ONLY-rsa-a.pem");
            jsonwebtoken::encode(&header, &good, &EncodingKey::from_rsa_pem(key.as_bytes()).unwrap()).unwrap()
        };
        tokens = vec![
            hs256(&good),
            hs256(&expired),
            hs256(&foreign),
            rs_unknown,
            "opaque-secret-token-0123456789abcdef".to_owned(),
        ];
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}"#;
        for (i, token) in tokens.iter().enumerate() {
            let auth = format!("Bearer {token}");
            let reply = send(addr, "POST", "/tools/whoami", &[("authorization", &auth)], "{}").await;
            let expected = if i == 0 { (200, None) } else { (401, Some("invalid_bearer_token")) };
            assert_eq!((reply.status, reply.json()["error"].as_str()), expected, "{}", reply.text);
            replies.push_str(&reply.text);
            let mcp_headers = [
                ("authorization", auth.as_str()),
                ("content-type", "application/json"),
                ("mcp-protocol-version", "2025-11-25"),
            ];
            let reply = send(addr, "POST", "/mcp", &mcp_headers, body).await;
            replies.push_str(&reply.text);
        }
    });
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    // The capture works: the refusals, the served calls and the failed key fetch are there.
    assert_eq!(log.matches("request refused: invalid_bearer_token").count(), 8, "{log}");
    assert!(log.contains("mcp request answered"), "{log}");
    assert!(log.contains("the JWKS keys were not refreshed"), "{log}");
    assert!(replies.contains("\"alice\""), "{replies}");
    for token in &tokens {
        for part in token.split('.').chain([token.as_str()]).filter(|p| p.len() >= 12) {
            for prefix in [part, &part[..12], &part[part.len() - 12..]] {
                assert!(!log.contains(prefix), "a part of a token is logged: {prefix}\n{log}");
                assert!(!replies.contains(prefix), "a part of a token is echoed: {prefix}\n{replies}");
            }
        }
    }
}
