//! The example server (`examples/http_server.rs`) as its configuration builds it, served in
//! process on loopback: bearer JWTs (an HS256 secret, a JWKS served on loopback), its public and
//! internal surfaces, scopes, notes per tenant, the audit file, provenance and `create_note`'s
//! rate limit.

use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::routing::get;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

#[allow(dead_code)] // `serve`: these tests serve with envelope's server
#[path = "support/http_client.rs"]
mod client;
use client::{Reply, send};

#[allow(dead_code)] // its `main` and what only `main` uses
#[path = "../examples/http_server.rs"]
mod http_server;
use http_server::{Auth, Config};

const ISSUER: &str = "https://auth.test.example";
const SECRET: &str = "example-server-test-secret-0123456789";
const RSA_A: &str = include_str!("fixtures/auth/TEST-ONLY-rsa-a.pem");
const VERSIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// The claims of a token of `sub` for `aud`, valid for ten minutes.
fn claims(sub: &str, aud: &str, scope: &str, tenant: Option<&str>) -> Value {
    let mut claims = json!({"iss": ISSUER, "sub": sub, "aud": aud, "iat": now(), "exp": now() + 600, "scope": scope});
    if let Some(tenant) = tenant {
        claims["tenant_id"] = json!(tenant);
    }
    claims
}

fn hs256(claims: &Value) -> String {
    jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &EncodingKey::from_secret(SECRET.as_bytes()).unwrap())
        .unwrap()
}

fn rs256(claims: &Value) -> String {
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("rsa-a".to_owned());
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_rsa_pem(RSA_A.as_bytes()).unwrap()).unwrap()
}

/// The JWKS document of the test key `rsa-a`.
fn jwks() -> Value {
    let key = EncodingKey::from_rsa_pem(RSA_A.as_bytes()).unwrap();
    let mut jwk = serde_json::to_value(Jwk::from_encoding_key(&key, Algorithm::RS256).unwrap()).unwrap();
    jwk["kid"] = json!("rsa-a");
    json!({"keys": [jwk]})
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap().block_on(f)
}

/// Serves the example server of `config` on a loopback port, as its `main` does (its resource
/// URL is its own `http://<address>/mcp`).
async fn start(config: &Config) -> Result<SocketAddr, String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = http_server::app(config, addr).await?;
    tokio::spawn(http_server::server(config, listener, addr, app).into_future());
    Ok(addr)
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// One JSON-RPC request over MCP Streamable HTTP, at protocol `version`, with `token`.
async fn rpc(addr: SocketAddr, path: &str, version: &str, token: Option<&str>, method: &str, params: Value) -> Reply {
    let mut params = params;
    let auth = token.map(bearer);
    let mut headers = vec![("content-type", "application/json"), ("mcp-protocol-version", version)];
    if let Some(auth) = &auth {
        headers.push(("authorization", auth.as_str()));
    }
    let name = params.get("name").and_then(Value::as_str).map(str::to_owned);
    if version >= "2026-07-28" {
        params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": version,
                                 "io.modelcontextprotocol/clientCapabilities": {}});
        headers.push(("mcp-method", method));
        if let Some(name) = &name {
            headers.push(("mcp-name", name.as_str()));
        }
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string();
    send(addr, "POST", path, &headers, &body).await
}

/// `POST /tools/{tool}` with `token`.
async fn call(addr: SocketAddr, tool: &str, token: &str, args: Value) -> Reply {
    let auth = bearer(token);
    send(addr, "POST", &format!("/tools/{tool}"), &[("authorization", auth.as_str())], &args.to_string()).await
}

fn names(listed: &Value) -> Vec<String> {
    let tools = listed["result"]["tools"].as_array().unwrap_or_else(|| panic!("{listed}"));
    tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

fn hs256_config(audit: &std::path::Path) -> Config {
    Config {
        auth: Auth::Jwt { issuer: ISSUER.to_owned(), jwks: None, hs256_secret: Some(SECRET.to_owned()) },
        audit_file: Some(audit.to_owned()),
        ..Config::default()
    }
}

/// An audit file of this test's own, removed first.
fn audit_path(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("envelope-example-{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn with_an_hs256_secret_tokens_scopes_surfaces_and_tenants_hold() {
    let audit = audit_path("hs256");
    block_on(async {
        let addr = start(&hs256_config(&audit)).await.unwrap();
        let resource = format!("http://{addr}/mcp");
        let internal = format!("http://{addr}/internal/mcp");
        let metadata = format!("http://{addr}/.well-known/oauth-protected-resource/mcp");
        let reader = hs256(&claims("alice", &resource, "notes:read", Some("acme")));

        // No token: 401 naming the metadata (and, over /mcp, the scopes the tools need), on
        // /mcp and /tools alike.
        let refused = rpc(addr, "/mcp", "2025-11-25", None, "tools/list", json!({})).await;
        assert_eq!(refused.status, 401, "{}", refused.text);
        assert_eq!(
            refused.header("www-authenticate"),
            Some(
                format!("Bearer resource_metadata=\"{metadata}\", scope=\"notes:read notes:write notes:admin\"")
                    .as_str()
            )
        );
        assert_eq!(refused.json()["error"]["data"]["error"], "missing_bearer_token");
        let refused = send(addr, "POST", "/tools/list_notes", &[], "{}").await;
        assert_eq!(refused.status, 401, "{}", refused.text);
        assert!(refused.header("www-authenticate").unwrap().contains(&metadata));
        assert_eq!(refused.json()["error"], "missing_bearer_token");
        // A token for the internal resource is not one for /mcp.
        let elsewhere = hs256(&claims("alice", &internal, "notes:read", Some("acme")));
        let refused = call(addr, "list_notes", &elsewhere, json!({})).await;
        assert_eq!((refused.status, refused.json()["error"].clone()), (401, json!("invalid_bearer_token")));

        // The metadata documents, without a token.
        let doc = send(addr, "GET", "/.well-known/oauth-protected-resource/mcp", &[], "").await.json();
        assert_eq!(doc["resource"], resource);
        assert_eq!(doc["authorization_servers"], json!([ISSUER]));
        assert_eq!(doc["scopes_supported"], json!(["notes:read", "notes:write", "notes:admin"]));
        let doc = send(addr, "GET", "/.well-known/oauth-protected-resource/internal/mcp", &[], "").await.json();
        assert_eq!(doc["resource"], internal);
        assert_eq!(doc["scopes_supported"], json!(["internal", "notes:read", "notes:write", "notes:admin"]));

        // A token-bearing call on /mcp (every version) and /tools; purge_notes is not public.
        for version in VERSIONS {
            let listed = rpc(addr, "/mcp", version, Some(&reader), "tools/list", json!({})).await;
            assert_eq!(listed.status, 200, "{version}: {}", listed.text);
            let names = names(&listed.json());
            assert!(
                names.contains(&"list_notes".to_owned()) && !names.contains(&"purge_notes".to_owned()),
                "{names:?}"
            );
            let listed = rpc(addr, "/mcp", version, Some(&reader), "tools/call", json!({"name": "list_notes"})).await;
            let result = &listed.json()["result"];
            assert_eq!(result["structuredContent"]["data"], json!([]), "{version}: {}", listed.text);
            assert_eq!(result["structuredContent"]["provenance"]["caller"], "alice", "{}", listed.text);
        }
        let listed = call(addr, "list_notes", &reader, json!({})).await;
        assert_eq!(listed.status, 200, "{}", listed.text);
        assert_eq!(listed.json()["data"], json!([]));
        assert_eq!(listed.json()["provenance"]["surface"], "http");

        // purge_notes called on the public surface: answered as a name no tool has.
        let hidden = rpc(addr, "/mcp", "2025-11-25", Some(&reader), "tools/call", json!({"name": "purge_notes"})).await;
        let unknown =
            rpc(addr, "/mcp", "2025-11-25", Some(&reader), "tools/call", json!({"name": "purge_notez"})).await;
        assert_eq!(hidden.status, unknown.status);
        assert_eq!(hidden.text, unknown.text.replace("purge_notez", "purge_notes"));
        let hidden = call(addr, "purge_notes", &reader, json!({})).await;
        let unknown = call(addr, "purge_notez", &reader, json!({})).await;
        assert_eq!((hidden.status, hidden.text), (404, unknown.text.replace("purge_notez", "purge_notes")));

        // delete_note with only notes:read: 403 insufficient_scope naming notes:admin.
        let refused = call(addr, "delete_note", &reader, json!({"note_id": 1})).await;
        assert_eq!(refused.status, 403, "{}", refused.text);
        assert_eq!(
            refused.header("www-authenticate"),
            Some(r#"Bearer error="insufficient_scope", scope="notes:admin""#)
        );
        assert_eq!(refused.json()["error_code"], "FORBIDDEN");
        let refused = rpc(
            addr,
            "/mcp",
            "2025-11-25",
            Some(&reader),
            "tools/call",
            json!({"name": "delete_note", "arguments": {"note_id": 1}}),
        )
        .await;
        let result = &refused.json()["result"];
        assert_eq!(
            (result["isError"].clone(), result["structuredContent"]["error_code"].clone()),
            (json!(true), json!("FORBIDDEN"))
        );

        // The internal surface: a token for its resource with scope internal, and a tenant.
        let no_tenant = hs256(&claims("alice", &internal, "internal notes:read", None));
        let refused = rpc(addr, "/internal/mcp", "2025-11-25", Some(&no_tenant), "tools/list", json!({})).await;
        assert_eq!(refused.status, 400, "{}", refused.text);
        assert_eq!(refused.json()["error"]["data"]["error"], "tenant_required");
        let short = hs256(&claims("alice", &internal, "notes:read", Some("acme")));
        let refused = rpc(addr, "/internal/mcp", "2025-11-25", Some(&short), "tools/list", json!({})).await;
        assert_eq!(refused.status, 403, "{}", refused.text);
        assert_eq!(refused.json()["error"]["data"]["error"], "insufficient_scope");
        let admin = hs256(&claims("alice", &internal, "internal notes:read notes:admin", Some("acme")));
        let listed = rpc(addr, "/internal/mcp", "2025-11-25", Some(&admin), "tools/list", json!({})).await;
        assert!(names(&listed.json()).contains(&"purge_notes".to_owned()), "{}", listed.text);

        // Notes per tenant: acme's note is seen by acme on every surface, never by globex.
        let writer = hs256(&claims("alice", &resource, "notes:read notes:write", Some("acme")));
        let created = call(addr, "create_note", &writer, json!({"title": "Plan"})).await;
        assert_eq!(created.status, 200, "{}", created.text);
        let other = hs256(&claims("bob", &resource, "notes:read", Some("globex")));
        assert_eq!(call(addr, "list_notes", &other, json!({})).await.json()["data"], json!([]));
        let seen =
            rpc(addr, "/internal/mcp", "2025-11-25", Some(&admin), "tools/call", json!({"name": "list_notes"})).await;
        assert_eq!(seen.json()["result"]["structuredContent"]["data"][0]["title"], "Plan", "{}", seen.text);
        let tenantless = hs256(&claims("carol", &resource, "notes:read", None));
        assert_eq!(call(addr, "list_notes", &tenantless, json!({})).await.json()["data"], json!([]));

        // purge_notes on the internal surface deletes acme's notes only, once approved.
        let globex_writer = hs256(&claims("bob", &resource, "notes:write notes:read", Some("globex")));
        assert_eq!(call(addr, "create_note", &globex_writer, json!({"title": "Kept"})).await.status, 200);
        let queued =
            rpc(addr, "/internal/mcp", "2025-11-25", Some(&admin), "tools/call", json!({"name": "purge_notes"})).await;
        let queued = queued.json()["result"]["structuredContent"].clone();
        assert_eq!(queued["preview"]["purge"]["notes"], 1, "{queued}");
        let id = queued["pending_action_id"].as_str().unwrap_or_else(|| panic!("{queued}")).to_owned();
        let approve = json!({"name": "confirm_action", "arguments": {"pending_action_id": id, "approved": true}});
        let done = rpc(addr, "/internal/mcp", "2025-11-25", Some(&admin), "tools/call", approve).await;
        assert_eq!(done.json()["result"]["structuredContent"]["data"], json!({"purged": 1}), "{}", done.text);
        assert_eq!(call(addr, "list_notes", &writer, json!({})).await.json()["data"], json!([]));
        assert_eq!(call(addr, "list_notes", &other, json!({})).await.json()["data"][0]["title"], "Kept");

        // The audit file holds create_note's intent and outcome under the reply's call id.
        let call_id = created.json()["provenance"]["call_id"].as_str().unwrap().to_owned();
        let text = std::fs::read_to_string(&audit).unwrap();
        let records: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|r| r["call_id"] == call_id)
            .collect();
        let kinds: Vec<&str> = records.iter().map(|r| r["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["intent", "outcome"], "{text}");
        assert_eq!(records[1]["tool"], "create_note");
        assert_eq!((records[1]["caller"].clone(), records[1]["tenant"].clone()), (json!("alice"), json!("acme")));
        // What the write was given and what it produced; never the bearer token.
        assert_eq!(records[1]["arguments"]["title"], "Plan", "{text}");
        assert_eq!(records[1]["outcome"]["status"], "ok");
        assert_eq!(records[1]["outcome"]["data"]["title"], "Plan", "{text}");
        for token in [&writer, &other, &admin] {
            let signature = token.rsplit('.').next().unwrap();
            assert!(!text.contains(signature), "a token's signature in the audit trail: {text}");
        }
    });
    let _ = std::fs::remove_file(&audit);
}

#[test]
fn the_thirty_first_create_note_in_a_minute_is_429_with_retry_after() {
    let audit = audit_path("limit");
    block_on(async {
        let addr = start(&hs256_config(&audit)).await.unwrap();
        let token = hs256(&claims("dave", &format!("http://{addr}/mcp"), "notes:write", Some("acme")));
        for i in 0..30 {
            let created = call(addr, "create_note", &token, json!({"title": format!("n{i}")})).await;
            assert_eq!(created.status, 200, "call {i}: {}", created.text);
        }
        let limited = call(addr, "create_note", &token, json!({"title": "one too many"})).await;
        assert_eq!(limited.status, 429, "{}", limited.text);
        let envelope = limited.json();
        assert_eq!(
            (envelope["error_code"].clone(), envelope["retryable"].clone()),
            (json!("RATE_LIMITED"), json!(true))
        );
        let retry_after: u64 = limited.header("retry-after").unwrap().parse().unwrap();
        let ms = envelope["hints"]["retry_after_ms"].as_u64().unwrap();
        assert_eq!(retry_after, ms.div_ceil(1000), "{}", limited.text);
        assert!((1..=2).contains(&retry_after), "one call every 2 s: {retry_after}");
        // Another caller is not limited by dave's calls.
        let erin = hs256(&claims("erin", &format!("http://{addr}/mcp"), "notes:write", Some("acme")));
        assert_eq!(call(addr, "create_note", &erin, json!({"title": "mine"})).await.status, 200);
    });
    let _ = std::fs::remove_file(&audit);
}

#[test]
fn with_a_jwks_served_on_loopback_rs256_tokens_are_verified() {
    block_on(async {
        let document = jwks().to_string();
        let jwks_app = Router::new().route(
            "/jwks.json",
            get(move || {
                let body = document.clone();
                async move { ([("content-type", "application/json")], body) }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let jwks_addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, jwks_app).await.unwrap() });
        let config = Config {
            auth: Auth::Jwt {
                issuer: ISSUER.to_owned(),
                jwks: Some(format!("http://{jwks_addr}/jwks.json")),
                hs256_secret: None,
            },
            ..Config::default()
        };
        let addr = start(&config).await.unwrap();
        let resource = format!("http://{addr}/mcp");
        let token = rs256(&claims("alice", &resource, "notes:read", Some("acme")));
        let listed = rpc(addr, "/mcp", "2026-07-28", Some(&token), "tools/list", json!({})).await;
        assert_eq!(listed.status, 200, "{}", listed.text);
        assert!(names(&listed.json()).contains(&"whoami".to_owned()));
        let listed = call(addr, "list_notes", &token, json!({})).await;
        assert_eq!((listed.status, listed.json()["data"].clone()), (200, json!([])), "{}", listed.text);
        let refused = send(addr, "POST", "/tools/list_notes", &[], "{}").await;
        assert_eq!(refused.status, 401);
        assert!(refused.header("www-authenticate").unwrap().contains("resource_metadata="));
        // An HS256 token is refused where no secret is configured.
        let forged = hs256(&claims("alice", &resource, "notes:read", Some("acme")));
        assert_eq!(call(addr, "list_notes", &forged, json!({})).await.status, 401);

        // A JWKS that cannot be fetched or read stops the server at start, with a sentence.
        let dead = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
        for location in [format!("http://{dead}/jwks.json"), "/nonexistent/jwks.json".to_owned()] {
            let config = Config {
                auth: Auth::Jwt { issuer: ISSUER.to_owned(), jwks: Some(location.clone()), hs256_secret: None },
                ..Config::default()
            };
            let error = start(&config).await.unwrap_err();
            assert!(error.starts_with(&format!("ENVELOPE_JWKS {location}: ")), "{error}");
        }
    });
}

#[test]
fn without_authentication_it_serves_anonymous_callers_as_before() {
    block_on(async {
        let addr = start(&Config::default()).await.unwrap();
        let created = send(addr, "POST", "/tools/create_note", &[], r#"{"title": "Plan"}"#).await;
        assert_eq!(created.status, 200, "{}", created.text);
        assert_eq!(created.json()["provenance"]["caller"], Value::Null);
        let listed = rpc(addr, "/mcp", "2025-11-25", None, "tools/list", json!({})).await;
        assert_eq!(listed.status, 200);
        assert!(!names(&listed.json()).contains(&"purge_notes".to_owned()));
        let internal = rpc(addr, "/internal/mcp", "2025-11-25", None, "tools/list", json!({})).await;
        assert_eq!(internal.status, 404, "no internal surface without authentication: {}", internal.text);
        let doc = send(addr, "GET", "/.well-known/oauth-protected-resource", &[], "").await;
        assert_eq!(doc.status, 404);
    });
}

/// The example's options: `--host`, `--port`, `--token`, each with its value after it or after
/// `=`; anything else is named back (and stops the server with `--help`'s pointer).
#[test]
fn an_argument_that_is_no_option_is_named() {
    let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<String>>();
    assert_eq!(http_server::unknown_argument(&args(&["--port", "0", "--host=::1", "--token", "t"])), None);
    assert_eq!(http_server::unknown_argument(&args(&["--token=x", "--port=8080"])), None);
    assert_eq!(http_server::unknown_argument(&args(&["--port", "0", "--verbose"])), Some("--verbose"));
    assert_eq!(http_server::unknown_argument(&args(&["8080"])), Some("8080"));
    // An option's value is not taken for an option, whatever it looks like.
    assert_eq!(http_server::unknown_argument(&args(&["--token", "--port"])), None);
    assert!(http_server::USAGE.contains("--host ADDRESS") && http_server::USAGE.contains("--token TOKEN"));
}

/// A `not_found` names the routes the server mounts in its mode: `/internal/mcp` only with
/// JWTs; anonymous, `POST /internal/mcp` is a path it does not serve, and says so without
/// naming it among those it serves.
#[test]
fn not_found_names_the_routes_mounted_in_each_mode() {
    let audit = audit_path("routes");
    block_on(async {
        let sentence = |path: &str, routes: &str| {
            format!(
                "No route of this server serves the path \"{path}\"; it serves {routes}. Send the request to one of those."
            )
        };
        let anonymous = start(&Config::default()).await.unwrap();
        let reply = send(anonymous, "POST", "/internal/mcp", &[("content-type", "application/json")], "{}").await;
        assert_eq!(reply.status, 404, "{}", reply.text);
        assert_eq!(
            reply.json()["message"],
            sentence("/internal/mcp", "POST /mcp, POST /tools/{name}, GET /tools, GET /manifest")
        );
        let jwt = start(&hs256_config(&audit)).await.unwrap();
        // Past the auth layer, which answers an unknown path too.
        let token = bearer(&hs256(&claims("alice", &format!("http://{jwt}/mcp"), "notes:read", Some("acme"))));
        let reply = send(jwt, "GET", "/nowhere", &[("authorization", token.as_str())], "").await;
        assert_eq!(reply.status, 404, "{}", reply.text);
        assert_eq!(
            reply.json()["message"],
            sentence("/nowhere", "POST /mcp, POST /internal/mcp, POST /tools/{name}, GET /tools, GET /manifest")
        );
    });
    let _ = std::fs::remove_file(&audit);
}
