//! Who is calling, end to end over loopback: bearer JWTs verified against a JWKS served by a
//! test server (RS256, ES256, EdDSA; the test-only keys of `tests/fixtures/auth`), over the
//! HTTP endpoints and MCP Streamable HTTP on every protocol version; the Protected Resource
//! Metadata; the caller arriving in the call's `Context`; a key rotation; two replicas.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::routing::get;
use base64::Engine as _;
use envelope_core::__private010::{Input, Outcome, Tool};
use envelope_core::http::auth::{Introspect, Jwks, JwtVerifier, ProtectedResource};
use envelope_core::http::{AuthLayer, BearerTokens, HttpTools, TransportError};
use envelope_core::mcp::streamable::McpHttp;
use envelope_core::{Caller, Envelope, Toolbox, tool};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

use crate::http::{send, serve};

const ISSUER: &str = "https://auth.test.example";
const RSA_A: &str = include_str!("../fixtures/auth/TEST-ONLY-rsa-a.pem");
const RSA_A_PUBLIC: &str = include_str!("../fixtures/auth/TEST-ONLY-rsa-a.pub.pem");
const RSA_B: &str = include_str!("../fixtures/auth/TEST-ONLY-rsa-b.pem");
const EC: &str = include_str!("../fixtures/auth/TEST-ONLY-ec-p256.pem");
const ED: &str = include_str!("../fixtures/auth/TEST-ONLY-ed25519.pem");

const VERSIONS: [ProtocolVersion; 3] =
    [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

fn b64(text: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

/// A test key: its private half, its algorithm, its `kid`.
struct TestKey {
    key: EncodingKey,
    alg: Algorithm,
    kid: &'static str,
}

impl TestKey {
    fn rsa_a() -> Self {
        TestKey { key: EncodingKey::from_rsa_pem(RSA_A.as_bytes()).unwrap(), alg: Algorithm::RS256, kid: "rsa-a" }
    }
    fn rsa_b() -> Self {
        TestKey { key: EncodingKey::from_rsa_pem(RSA_B.as_bytes()).unwrap(), alg: Algorithm::RS256, kid: "rsa-b" }
    }
    fn ec() -> Self {
        TestKey { key: EncodingKey::from_ec_pem(EC.as_bytes()).unwrap(), alg: Algorithm::ES256, kid: "ec-a" }
    }
    fn ed() -> Self {
        TestKey { key: EncodingKey::from_ed_pem(ED.as_bytes()).unwrap(), alg: Algorithm::EdDSA, kid: "ed-a" }
    }

    /// Its public half as a JWK, with its `kid`.
    fn jwk(&self) -> Value {
        let mut jwk = serde_json::to_value(Jwk::from_encoding_key(&self.key, self.alg).unwrap()).unwrap();
        jwk["kid"] = json!(self.kid);
        jwk["use"] = json!("sig");
        jwk
    }

    fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.to_owned());
        jsonwebtoken::encode(&header, claims, &self.key).unwrap()
    }
}

fn jwks_of(keys: &[&TestKey]) -> Value {
    json!({"keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>()})
}

/// The claims of a good token for `resource`, valid for ten minutes.
fn claims(resource: &str) -> Value {
    json!({"iss": ISSUER, "sub": "alice", "aud": resource, "iat": now(), "exp": now() + 600,
           "scope": "notes:read notes:write", "tenant_id": "acme"})
}

/// A JWKS document served on loopback, counting its fetches; its document can change.
#[derive(Clone)]
struct JwksServer {
    document: Arc<Mutex<Value>>,
    fetches: Arc<AtomicUsize>,
    url: String,
}

impl JwksServer {
    async fn start(document: Value) -> Self {
        let document = Arc::new(Mutex::new(document));
        let fetches = Arc::new(AtomicUsize::new(0));
        let (doc, count) = (Arc::clone(&document), Arc::clone(&fetches));
        let app = Router::new().route(
            "/jwks.json",
            get(move || {
                count.fetch_add(1, Ordering::SeqCst);
                let body = doc.lock().unwrap().to_string();
                async move { ([("content-type", "application/json")], body) }
            }),
        );
        let addr = serve(app).await;
        JwksServer { document, fetches, url: format!("http://{addr}/jwks.json") }
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }

    fn publish(&self, document: Value) {
        *self.document.lock().unwrap() = document;
    }
}

/// Answers who called, as the call's `Context` says.
#[tool(read_only)]
fn whoami() -> String {
    unreachable!("the test's own call function answers")
}

fn whoami_call<'a>(_: &'a envelope_core::spec::ToolSpec, input: Input<'_>) -> Outcome<'a> {
    let cx = input.context();
    let caller = cx.caller();
    Outcome::Ready(Envelope::ok(json!({
        "subject": caller.subject(),
        "scopes": caller.scopes(),
        "tenant": caller.tenant(),
        "issuer": caller.claims().get("iss"),
        "surface": cx.surface(),
        "protocol_version": cx.protocol_version(),
    })))
}

fn toolbox() -> Toolbox {
    Toolbox::new().with(Tool::__new(whoami::tool().spec().clone(), whoami_call))
}

/// A server of `/mcp` and `/tools/*` behind `verifier`, as the protected resource `resource`.
fn app(verifier: JwtVerifier, resource: &ProtectedResource) -> Router {
    let mcp = McpHttp::new(toolbox()).with_auth(verifier.clone()).with_protected_resource(resource.clone()).router();
    let tools = HttpTools::new(toolbox())
        .router()
        .layer(AuthLayer::new(verifier).with_resource_metadata(resource.metadata_url()));
    mcp.merge(tools)
}

/// A bound loopback listener and the resource URL of its `/mcp`.
async fn listener() -> (tokio::net::TcpListener, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    (listener, resource)
}

fn resource_of(url: &str) -> ProtectedResource {
    ProtectedResource::new(url).with_authorization_server(ISSUER).with_scopes(["notes:read", "notes:write"])
}

/// Serves `app` on `listener`.
fn spawn(listener: tokio::net::TcpListener, app: Router) -> std::net::SocketAddr {
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// A JSON-RPC `tools/call` of `whoami` on `version`, with its headers.
fn mcp_call(version: &ProtocolVersion, token: Option<&str>) -> (Vec<(&'static str, String)>, String) {
    let mut headers =
        vec![("content-type", "application/json".to_owned()), ("mcp-protocol-version", version.to_string())];
    let params = if version.has_initialize() {
        r#"{"name":"whoami","arguments":{}}"#.to_owned()
    } else {
        headers.push(("mcp-method", "tools/call".to_owned()));
        headers.push(("mcp-name", "whoami".to_owned()));
        r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"whoami","arguments":{}}"#.to_owned()
    };
    if let Some(token) = token {
        headers.push(("authorization", format!("Bearer {token}")));
    }
    (headers, format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#))
}

/// What every refused request is answered: status, `WWW-Authenticate`, body (plain or JSON-RPC).
struct Expected {
    status: u16,
    challenge: String,
    error: TransportError,
}

fn refused(error: TransportError, resource: &ProtectedResource) -> Expected {
    let error = resource.challenge(error);
    Expected { status: error.http_status(), challenge: error.www_authenticate().unwrap(), error }
}

fn invalid(why: &str, resource: &ProtectedResource) -> Expected {
    refused(TransportError::invalid_bearer_token_because(why), resource)
}

/// Sends `token` to `/tools/whoami` and, on every protocol version, to `/mcp`; each answer must
/// be `expected`, and none may carry any part of the token.
async fn assert_refused(addr: std::net::SocketAddr, token: Option<&str>, expected: &Expected, case: &str) {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("authorization", a.as_str())).collect();
    let reply = send(addr, "POST", "/tools/whoami", &headers, "{}").await;
    assert_eq!(reply.status, expected.status, "{case}: {}", reply.text);
    // `/tools` here sits behind an `AuthLayer` of the test's own, whose 401 names no scope;
    // `/mcp` names the resource's `scopes_supported` on every 401.
    let plain = match expected.status {
        401 => expected.challenge.split(", scope=").next().unwrap_or_default(),
        _ => expected.challenge.as_str(),
    };
    assert_eq!(reply.header("www-authenticate"), Some(plain), "{case}");
    assert_eq!(reply.header("content-type"), Some("application/json"), "{case}");
    assert_eq!(reply.json(), expected.error.to_value(), "{case}");
    assert_no_part_of(token, &reply.text, case);
    for version in &VERSIONS {
        let (headers, body) = mcp_call(version, token);
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let reply = send(addr, "POST", "/mcp", &headers, &body).await;
        assert_eq!(reply.status, expected.status, "{case} on {version}: {}", reply.text);
        assert_eq!(reply.header("www-authenticate"), Some(expected.challenge.as_str()), "{case} on {version}");
        assert_eq!(reply.json(), expected.error.to_json_rpc(None), "{case} on {version}");
        assert_no_part_of(token, &reply.text, case);
    }
}

/// No part of `token` (a dot-separated segment, or its first 12 characters) is in `text`.
pub(crate) fn assert_no_part_of(token: Option<&str>, text: &str, case: &str) {
    let Some(token) = token else { return };
    for part in token.split('.').filter(|p| p.len() >= 12) {
        assert!(!text.contains(part), "{case}: a part of the token is echoed: {text}");
        assert!(!text.contains(&part[..12]), "{case}: a part of the token is echoed: {text}");
    }
    assert!(!text.contains(token), "{case}: the token is echoed: {text}");
}

/// An rmcp client speaking `version` to `url` with `token`; `whoami`'s data.
async fn whoami_over_mcp(url: &str, version: &ProtocolVersion, token: &str) -> Value {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token.to_owned()),
    );
    let config = ClientConfig::new(ClientCapabilities::default(), Implementation::new("auth_tests", "0"))
        .with_protocol_version(version.clone());
    let lifecycle = if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover { preferred_versions: vec![version.clone()] }
    };
    let client = tokio::time::timeout(Duration::from_secs(20), config.serve_with_lifecycle(transport, lifecycle))
        .await
        .expect("the session starts in time")
        .expect("the session starts");
    let result = client.call_tool(CallToolRequestParams::new("whoami")).await.unwrap();
    client.cancel().await.unwrap();
    let structured = result.structured_content.expect("structuredContent");
    assert_eq!(structured["status"], "ok", "{structured}");
    structured["data"].clone()
}

/// Every bad token is refused alike over the HTTP endpoints and `/mcp` (every protocol
/// version), with the status, `WWW-Authenticate` and body a client reads; a good token of each
/// key type is served, and the tool sees its verified caller.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_jwts_over_http_and_mcp() {
    let (rsa, ec, ed) = (TestKey::rsa_a(), TestKey::ec(), TestKey::ed());
    let jwks_server = JwksServer::start(jwks_of(&[&rsa, &ec, &ed])).await;
    let (listener, url) = listener().await;
    let resource = resource_of(&url);
    let verifier = JwtVerifier::new(ISSUER, &url).with_jwks(Jwks::from_url(&jwks_server.url).unwrap());
    let addr = spawn(listener, app(verifier, &resource));

    let metadata = format!("http://{addr}/.well-known/oauth-protected-resource/mcp");
    let missing = refused(TransportError::missing_bearer_token(), &resource);
    assert_eq!(missing.challenge, format!(r#"Bearer resource_metadata="{metadata}", scope="notes:read notes:write""#));
    assert_refused(addr, None, &missing, "no token").await;

    let good = claims(&url);
    let with = |changes: Value| {
        let mut c = good.clone();
        for (k, v) in changes.as_object().unwrap() {
            if v.is_null() {
                c.as_object_mut().unwrap().remove(k);
            } else {
                c[k] = v.clone();
            }
        }
        c
    };
    let alg_none = format!("{}.{}.", b64(r#"{"alg":"none","typ":"JWT","kid":"rsa-a"}"#), b64(&good.to_string()));
    let hs256_with_public_key = {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("rsa-a".to_owned());
        jsonwebtoken::encode(&header, &good, &EncodingKey::from_secret(RSA_A_PUBLIC.as_bytes()).unwrap()).unwrap()
    };
    let resigned = {
        // Claims of another token under a valid signature: the signature does not verify.
        let other = rsa.sign(&with(json!({"sub": "mallory"})));
        let genuine = rsa.sign(&good);
        let mut parts: Vec<&str> = genuine.split('.').collect();
        parts[1] = other.split('.').nth(1).unwrap();
        parts.join(".")
    };
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "malformed",
            "not-a-jwt".to_owned(),
            "it is not a JWT this server can read (three base64url parts: header, claims, signature)",
        ),
        ("expired", rsa.sign(&with(json!({"exp": now() - 3600, "iat": now() - 7200}))), "it has expired (exp)"),
        ("not yet valid", rsa.sign(&with(json!({"nbf": now() + 3600}))), "it is not valid yet (nbf)"),
        (
            "wrong issuer",
            rsa.sign(&with(json!({"iss": "https://evil.test.example"}))),
            "it was issued by another issuer (iss)",
        ),
        (
            "wrong audience",
            rsa.sign(&with(json!({"aud": "https://other.test.example/mcp"}))),
            "it was issued for another resource (aud)",
        ),
        (
            "audience of another path",
            ec.sign(&with(json!({"aud": [format!("{url}/other")]}))),
            "it was issued for another resource (aud)",
        ),
        (
            "no audience",
            ed.sign(&with(json!({"aud": null}))),
            "it names no audience (aud), so it is not bound to this resource",
        ),
        ("no expiry", rsa.sign(&with(json!({"exp": null}))), "it has no expiry (exp)"),
        ("no subject", rsa.sign(&with(json!({"sub": null}))), "it names no subject (sub)"),
        ("alg none", alg_none, "it is signed with an algorithm this server does not accept for it"),
        (
            "HS256 signed with the RSA public key",
            hs256_with_public_key,
            "it is signed with an algorithm this server does not accept for it",
        ),
        ("claims swapped under a signature", resigned, "its signature does not verify"),
        (
            "unknown kid",
            TestKey { kid: "rsa-x", ..TestKey::rsa_b() }.sign(&good),
            "it names a signing key (kid) the issuer does not publish",
        ),
    ];
    for (case, token, why) in &cases {
        assert_refused(addr, Some(token), &invalid(why, &resource), case).await;
    }

    for key in [&rsa, &ec, &ed] {
        let token = key.sign(&good);
        let reply = send(addr, "POST", "/tools/whoami", &[("authorization", &format!("Bearer {token}"))], "{}").await;
        assert_eq!(reply.status, 200, "{}: {}", key.kid, reply.text);
        assert_eq!(
            reply.json()["data"],
            json!({"subject": "alice", "scopes": ["notes:read", "notes:write"], "tenant": "acme", "issuer": ISSUER,
                   "surface": "http", "protocol_version": null}),
            "{}",
            key.kid
        );
        for version in &VERSIONS {
            let data = whoami_over_mcp(&url, version, &token).await;
            assert_eq!(
                data,
                json!({"subject": "alice", "scopes": ["notes:read", "notes:write"], "tenant": "acme",
                       "issuer": ISSUER, "surface": "mcp", "protocol_version": version.to_string()}),
                "{} on {version}",
                key.kid
            );
        }
    }
    // One fetch: the first token; every later key was in the cache.
    assert_eq!(jwks_server.fetches(), 1);
}

/// `scp` (an array) gives the scopes when `scope` is absent; the tenant claim is configurable.
#[tokio::test]
async fn scopes_from_scp_and_the_tenant_claim() {
    let rsa = TestKey::rsa_a();
    let verifier = JwtVerifier::new(ISSUER, "https://notes.test.example/mcp")
        .with_jwks(Jwks::from_json(&jwks_of(&[&rsa]).to_string()).unwrap())
        .with_tenant_claim("org");
    let mut c = claims("https://notes.test.example/mcp");
    c.as_object_mut().unwrap().remove("scope");
    c["scp"] = json!(["notes:read", "notes:admin"]);
    c["org"] = json!("globex");
    let caller = verifier.verify(&rsa.sign(&c)).await.unwrap();
    assert_eq!(caller.scopes(), ["notes:read", "notes:admin"]);
    assert_eq!(caller.key(), "sub:alice@globex");
    assert_eq!(caller.claims()["tenant_id"], "acme");
}

/// A tenant claim the header rule would refuse (not 1 to 128 visible ASCII characters, or a comma) is no
/// tenant to drop: dropped, the caller would have none and `X-Tenant-ID` could name any. The
/// token is refused; an integer claim is its decimal text.
#[tokio::test]
async fn a_tenant_claim_that_is_no_tenant_id_refuses_the_token() {
    let rsa = TestKey::rsa_a();
    let verifier = JwtVerifier::new(ISSUER, "https://notes.test.example/mcp")
        .with_jwks(Jwks::from_json(&jwks_of(&[&rsa]).to_string()).unwrap());
    let with_tenant = |tenant: Value| {
        let mut c = claims("https://notes.test.example/mcp");
        c["tenant_id"] = tenant;
        rsa.sign(&c)
    };
    let caller = verifier.verify(&with_tenant(json!(42))).await.unwrap();
    assert_eq!(caller.tenant(), Some("42"));
    let without = {
        let mut c = claims("https://notes.test.example/mcp");
        c.as_object_mut().unwrap().remove("tenant_id");
        rsa.sign(&c)
    };
    assert_eq!(verifier.verify(&without).await.unwrap().tenant(), None);
    for tenant in [
        json!(""),
        json!("t".repeat(10_000)),
        json!("ac me"),
        json!("acmé"),
        json!("acme,globex"),
        json!(["acme"]),
        json!(1.5),
    ] {
        let refused = verifier.verify(&with_tenant(tenant.clone())).await.unwrap_err();
        assert_eq!(refused.word(), "invalid_bearer_token", "{tenant}");
        assert_eq!(
            refused.message(),
            "The bearer token was not accepted: its tenant claim is not a tenant id (1 to 128 visible ASCII \
             characters, no comma). Get a new token from the authorization server and send it.",
            "{tenant}"
        );
    }
}

/// The metadata documents (RFC 9728) at the root and path forms, exactly; no token needed; a
/// method other than GET is a JSON 405.
#[tokio::test]
async fn protected_resource_metadata() {
    let (listener, url) = listener().await;
    let resource = resource_of(&url);
    let verifier = JwtVerifier::new(ISSUER, &url).with_hs256_secret("0123456789abcdef0123456789abcdef");
    let addr = spawn(listener, app(verifier, &resource));
    let expected = json!({
        "resource": url,
        "authorization_servers": [ISSUER],
        "scopes_supported": ["notes:read", "notes:write"],
        "bearer_methods_supported": ["header"],
    });
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let reply = send(addr, "GET", path, &[], "").await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.text);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(reply.json(), expected, "{path}");
        assert_eq!(
            reply.text,
            format!(
                r#"{{"resource":"{url}","authorization_servers":["{ISSUER}"],"scopes_supported":["notes:read","notes:write"],"bearer_methods_supported":["header"]}}"#
            )
        );
        let post = send(addr, "POST", path, &[], "").await;
        assert_eq!((post.status, post.header("allow")), (405, Some("GET, HEAD")));
        assert_eq!(post.json()["error"], "method_not_allowed");
    }
    assert_eq!(resource.metadata_url(), format!("http://{addr}/.well-known/oauth-protected-resource/mcp"));
}

/// A surface that requires a scope: a valid token without it is 403 `insufficient_scope`
/// naming the scope, with `resource_metadata`; with it, served.
#[tokio::test]
async fn a_surface_requires_its_scope() {
    let secret = "dev-secret-of-at-least-32-bytes!";
    let (listener, url) = listener().await;
    let resource = resource_of(&url);
    let verifier = JwtVerifier::new(ISSUER, &url).with_hs256_secret(secret);
    let mcp = McpHttp::new(toolbox())
        .with_auth(verifier)
        .with_protected_resource(resource.clone())
        .with_required_scopes(["internal"])
        .router();
    let addr = spawn(listener, mcp);
    let hs256 = |claims: &Value| {
        jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            claims,
            &EncodingKey::from_secret(secret.as_bytes()).unwrap(),
        )
        .unwrap()
    };
    let without = hs256(&claims(&url));
    let expected = Expected {
        status: 403,
        challenge: format!(
            r#"Bearer error="insufficient_scope", scope="internal", resource_metadata="http://{addr}/.well-known/oauth-protected-resource/mcp""#
        ),
        error: resource.insufficient_scope(&["internal"]),
    };
    assert_eq!(expected.error.www_authenticate().as_deref(), Some(expected.challenge.as_str()));
    for version in &VERSIONS {
        let (headers, body) = mcp_call(version, Some(&without));
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let reply = send(addr, "POST", "/mcp", &headers, &body).await;
        assert_eq!(reply.status, 403, "{version}: {}", reply.text);
        assert_eq!(reply.header("www-authenticate"), Some(expected.challenge.as_str()));
        assert_eq!(
            reply.json(),
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000,
                   "message": "The bearer token lacks the scope this request needs (internal). Send a token granted that scope.",
                   "data": {"error": "insufficient_scope"}}})
        );
    }
    let mut granted = claims(&url);
    granted["scope"] = json!("notes:read internal");
    let data = whoami_over_mcp(&url, &ProtocolVersion::V_2026_07_28, &hs256(&granted)).await;
    assert_eq!(data["scopes"], json!(["notes:read", "internal"]));
}

/// A key rotation: a token under a new `kid` fetches the document once and is served; another
/// unknown `kid` right after is refused without a fetch; many concurrent requests naming an
/// unknown `kid` fetch once (single flight). At the default interval (60 s), no second fetch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_rotation_is_fetched_once() {
    let (a, b) = (TestKey::rsa_a(), TestKey::rsa_b());
    let jwks_server = JwksServer::start(jwks_of(&[&a])).await;
    let resource = "https://notes.test.example/mcp";
    let interval = Duration::from_millis(400);
    let jwks = Jwks::from_url(&jwks_server.url).unwrap().with_min_refetch_interval(interval);
    let verifier = JwtVerifier::new(ISSUER, resource).with_jwks(jwks.clone());
    let good = claims(resource);
    let is_unknown_kid = |r: Result<Caller, TransportError>| {
        r.unwrap_err().message()
            == TransportError::invalid_bearer_token_because("it names a signing key (kid) the issuer does not publish")
                .message()
    };

    assert_eq!(verifier.verify(&a.sign(&good)).await.unwrap().subject(), Some("alice"));
    assert_eq!(jwks_server.fetches(), 1);
    tokio::time::sleep(interval + Duration::from_millis(100)).await;
    jwks_server.publish(jwks_of(&[&a, &b]));
    assert_eq!(verifier.verify(&b.sign(&good)).await.unwrap().subject(), Some("alice"));
    assert_eq!(jwks_server.fetches(), 2);
    assert_eq!(jwks.kids(), ["rsa-a", "rsa-b"]);
    let stranger = TestKey { kid: "rsa-c", ..TestKey::rsa_b() };
    assert!(is_unknown_kid(verifier.verify(&stranger.sign(&good)).await));
    assert_eq!(jwks_server.fetches(), 2, "an unknown kid within the interval is not fetched");
    assert_eq!(verifier.verify(&a.sign(&good)).await.unwrap().subject(), Some("alice"));

    tokio::time::sleep(interval + Duration::from_millis(100)).await;
    let token = stranger.sign(&good);
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..16 {
        let (verifier, token) = (verifier.clone(), token.clone());
        calls.spawn(async move { verifier.verify(&token).await });
    }
    while let Some(answer) = calls.join_next().await {
        assert!(is_unknown_kid(answer.unwrap()));
    }
    assert_eq!(jwks_server.fetches(), 3, "16 concurrent unknown kids: one fetch");

    // At the default interval: the first token fetches, an unknown kid after it does not.
    let other_server = JwksServer::start(jwks_of(&[&a])).await;
    let default = JwtVerifier::new(ISSUER, resource).with_jwks(Jwks::from_url(&other_server.url).unwrap());
    assert!(default.verify(&a.sign(&good)).await.is_ok());
    other_server.publish(jwks_of(&[&a, &b]));
    assert!(is_unknown_kid(default.verify(&b.sign(&good)).await));
    assert_eq!(other_server.fetches(), 1);

    // Keys past their max age are fetched again in the background while the request is served:
    // a key the issuer withdrew stops verifying.
    let aging_server = JwksServer::start(jwks_of(&[&a])).await;
    let aging = Jwks::from_url(&aging_server.url).unwrap().with_max_age(Duration::ZERO);
    assert_eq!(aging.refresh().await, Ok(1));
    let verifier = JwtVerifier::new(ISSUER, resource).with_jwks(aging.with_min_refetch_interval(Duration::ZERO));
    aging_server.publish(jwks_of(&[&b]));
    assert!(verifier.verify(&a.sign(&good)).await.is_ok());
    for _ in 0..100 {
        if aging_server.fetches() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(aging_server.fetches(), 2);
    assert!(is_unknown_kid(verifier.verify(&a.sign(&good)).await));
    assert!(verifier.verify(&b.sign(&good)).await.is_ok());
}

/// A JWKS file: read at start, read again for a new `kid` (rotation by rewriting the file).
#[tokio::test]
async fn a_jwks_file_is_read_again_on_a_new_kid() {
    let (a, b) = (TestKey::rsa_a(), TestKey::rsa_b());
    let path = std::env::temp_dir().join(format!("envelope-auth-test-{}.json", std::process::id()));
    std::fs::write(&path, jwks_of(&[&a]).to_string()).unwrap();
    let jwks = Jwks::from_file(&path).unwrap().with_min_refetch_interval(Duration::ZERO);
    let verifier = JwtVerifier::new(ISSUER, "https://n.test.example/mcp").with_jwks(jwks.clone());
    let good = claims("https://n.test.example/mcp");
    assert!(verifier.verify(&a.sign(&good)).await.is_ok());
    std::fs::write(&path, jwks_of(&[&b]).to_string()).unwrap();
    assert!(verifier.verify(&b.sign(&good)).await.is_ok());
    assert_eq!(jwks.fetches(), 2);
    assert_eq!(jwks.kids(), ["rsa-b"]);
    std::fs::remove_file(&path).unwrap();
}

/// Two replicas verifying against one JWKS server give the same answer to every token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_agree() {
    let (rsa, ed) = (TestKey::rsa_a(), TestKey::ed());
    let jwks_server = JwksServer::start(jwks_of(&[&rsa, &ed])).await;
    // Behind one load balancer, both replicas are the one public resource.
    let public = "https://notes.test.example/mcp";
    let resource = resource_of(public);
    let mut replicas = Vec::new();
    for _ in 0..2 {
        let verifier = JwtVerifier::new(ISSUER, public).with_jwks(Jwks::from_url(&jwks_server.url).unwrap());
        let (listener, _) = listener().await;
        replicas.push(spawn(listener, app(verifier, &resource)));
    }
    let good = claims(public);
    let mut expired = good.clone();
    expired["exp"] = json!(now() - 120);
    let mut foreign = good.clone();
    foreign["aud"] = json!("https://other.test.example/mcp");
    let tokens = [
        rsa.sign(&good),
        ed.sign(&good),
        rsa.sign(&expired),
        ed.sign(&foreign),
        TestKey { kid: "nope", ..TestKey::rsa_b() }.sign(&good),
        "opaque".to_owned(),
    ];
    for token in &tokens {
        let mut answers = Vec::new();
        for addr in &replicas {
            let reply =
                send(*addr, "POST", "/tools/whoami", &[("authorization", &format!("Bearer {token}"))], "{}").await;
            answers.push((reply.status, reply.header("www-authenticate").map(str::to_owned), reply.json()));
            let (headers, body) = mcp_call(&ProtocolVersion::V_2026_07_28, Some(token));
            let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let reply = send(*addr, "POST", "/mcp", &headers, &body).await;
            answers.push((reply.status, reply.header("www-authenticate").map(str::to_owned), reply.json()));
        }
        assert_eq!(answers[0], answers[2], "{}", answers[0].2);
        assert_eq!(answers[1], answers[3], "{}", answers[1].2);
    }
    assert_eq!(jwks_server.fetches(), 2, "each replica fetched once");
}

/// Development: HS256 with a shared secret; an HS256 token signed with the RSA public key is
/// refused there too (its signature does not verify). Opaque tokens go to the introspection hook.
#[tokio::test]
async fn hs256_and_introspection() {
    struct Sessions;
    impl Introspect for Sessions {
        async fn introspect(&self, token: &str) -> Result<Caller, TransportError> {
            match token {
                "opaque-session-of-bob" => Ok(Caller::new("bob").with_scopes(["notes:read"])),
                _ => Err(TransportError::invalid_bearer_token()),
            }
        }
    }
    let secret = "dev-secret-of-at-least-32-bytes!";
    let resource = "http://127.0.0.1:9/mcp";
    let verifier = JwtVerifier::new(ISSUER, resource)
        .with_jwks(Jwks::from_json(&jwks_of(&[&TestKey::rsa_a()]).to_string()).unwrap())
        .with_hs256_secret(secret)
        .with_introspection(Sessions);
    let good = claims(resource);
    let hs = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &good,
        &EncodingKey::from_secret(secret.as_bytes()).unwrap(),
    )
    .unwrap();
    assert_eq!(verifier.verify(&hs).await.unwrap().key(), "sub:alice@acme");
    let with_public_key = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &good,
        &EncodingKey::from_secret(RSA_A_PUBLIC.as_bytes()).unwrap(),
    )
    .unwrap();
    assert_eq!(
        verifier.verify(&with_public_key).await.unwrap_err(),
        TransportError::invalid_bearer_token_because("its signature does not verify")
    );
    assert_eq!(verifier.verify("opaque-session-of-bob").await.unwrap().key(), "sub:bob");
    assert_eq!(verifier.verify("opaque-other").await.unwrap_err().word(), "invalid_bearer_token");
    let hs512 = jsonwebtoken::encode(
        &Header::new(Algorithm::HS512),
        &good,
        &EncodingKey::from_secret(secret.as_bytes()).unwrap(),
    )
    .unwrap();
    assert_eq!(
        verifier.verify(&hs512).await.unwrap_err().message(),
        "The bearer token was not accepted: it is signed with an algorithm this server does not accept for it. Get a \
         new token from the authorization server and send it."
    );
}

/// Static tokens stand for their callers: the HTTP endpoint's tool sees the caller a token was
/// given, and the n-th token without one is `bearer-token-<n>`.
#[tokio::test]
async fn static_tokens_name_their_callers() {
    let hook = BearerTokens::new(["tok-ci"])
        .with_caller("tok-alice", Caller::new("alice").with_scopes(["notes:write"]).with_tenant("acme"));
    let addr = serve(HttpTools::new(toolbox()).router().layer(AuthLayer::new(hook))).await;
    let alice = send(addr, "POST", "/tools/whoami", &[("authorization", "Bearer tok-alice")], "{}").await;
    assert_eq!(
        alice.json()["data"],
        json!({"subject": "alice", "scopes": ["notes:write"], "tenant": "acme", "issuer": null, "surface": "http",
               "protocol_version": null})
    );
    let ci = send(addr, "POST", "/tools/whoami", &[("authorization", "Bearer tok-ci")], "{}").await;
    assert_eq!(ci.json()["data"]["subject"], "bearer-token-1");
    // A plain closure is a hook too.
    let closure = |h: &axum::http::HeaderMap| match h.get("x-test-user").and_then(|v| v.to_str().ok()) {
        Some(user) => Ok(Caller::new(user)),
        None => Err(TransportError::missing_bearer_token()),
    };
    let addr = serve(HttpTools::new(toolbox()).router().layer(AuthLayer::new(closure))).await;
    let reply = send(addr, "POST", "/tools/whoami", &[("x-test-user", "carol")], "{}").await;
    assert_eq!(reply.json()["data"]["subject"], "carol");
}

/// Keys fetched over https come only from a server whose certificate a public root signed: a
/// JWKS server on loopback with a self-signed certificate is refused at the TLS handshake, and
/// no key is taken from it.
#[tokio::test]
async fn a_jwks_server_with_an_untrusted_certificate_is_refused() {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let cert = include_bytes!("../fixtures/auth/TEST-ONLY-localhost-cert.pem");
    let key = include_bytes!("../fixtures/auth/TEST-ONLY-localhost-key.pem");
    let certs = CertificateDer::pem_slice_iter(cert).collect::<Result<Vec<_>, _>>().unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, PrivateKeyDer::from_pem_slice(key).unwrap())
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let handshakes = Arc::new(AtomicUsize::new(0));
    let attempted = Arc::clone(&handshakes);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            attempted.fetch_add(1, Ordering::SeqCst);
            // The client gives up in the handshake; nothing is served.
            let _ = acceptor.accept(stream).await;
        }
    });
    let jwks = Jwks::from_url(&format!("https://localhost:{port}/jwks.json")).unwrap();
    let error = jwks.refresh().await.unwrap_err().to_string();
    assert!(error.starts_with(&format!("https://localhost:{port}/jwks.json: the TLS handshake: ")), "{error}");
    assert!(error.contains("certificate"), "{error}");
    assert_eq!(handshakes.load(Ordering::SeqCst), 1);
    assert!(jwks.kids().is_empty());
    let verifier = JwtVerifier::new(ISSUER, "https://n.test.example/mcp").with_jwks(jwks);
    let token = TestKey::rsa_a().sign(&claims("https://n.test.example/mcp"));
    assert_eq!(
        verifier.verify(&token).await.unwrap_err(),
        TransportError::invalid_bearer_token_because("it names a signing key (kid) the issuer does not publish")
    );
}

/// Tokens built to mislead: key locations in the header (`jku`, `x5u`, `jwk`) that must never
/// be fetched or trusted, a `kid` that looks like a path, `crit`, claims of the wrong type, an
/// issuer or audience off by a slash; none is accepted, none echoed, no other URL fetched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_tokens_are_refused_without_fetching_what_they_name() {
    let (rsa, mallory) = (TestKey::rsa_a(), TestKey { kid: "rsa-x", ..TestKey::rsa_b() });
    let jwks_server = JwksServer::start(jwks_of(&[&rsa])).await;
    let elsewhere = JwksServer::start(jwks_of(&[&mallory])).await;
    let (listener, url) = listener().await;
    let resource = resource_of(&url);
    let verifier = JwtVerifier::new(ISSUER, &url).with_jwks(Jwks::from_url(&jwks_server.url).unwrap());
    let addr = spawn(listener, app(verifier, &resource));
    let good = claims(&url);
    let with = |changes: Value| {
        let mut c = good.clone();
        for (k, v) in changes.as_object().unwrap() {
            c[k] = v.clone();
        }
        c
    };
    // Signed by `key`, with `extra` members in the JOSE header.
    let signed_with_header = |key: &TestKey, extra: Value, claims: &Value| {
        let mut header = serde_json::to_value(Header::new(key.alg)).unwrap();
        header["kid"] = json!(key.kid);
        for (k, v) in extra.as_object().unwrap() {
            header[k] = v.clone();
        }
        let input = format!("{}.{}", b64(&header.to_string()), b64(&claims.to_string()));
        let signature = jsonwebtoken::crypto::sign(input.as_bytes(), &key.key, key.alg).unwrap();
        format!("{input}.{signature}")
    };
    let unknown_kid = "it names a signing key (kid) the issuer does not publish";
    let unreadable = "it is not a JWT this server can read (three base64url parts: header, claims, signature)";
    let rsa_b_as_a = TestKey { kid: "rsa-a", ..TestKey::rsa_b() };
    let path_kid = TestKey { kid: "../../jwks.json", ..TestKey::rsa_b() };
    let cases: Vec<(&str, String, &str)> = vec![
        ("jku elsewhere", signed_with_header(&mallory, json!({"jku": elsewhere.url}), &good), unknown_kid),
        ("x5u elsewhere", signed_with_header(&mallory, json!({"x5u": elsewhere.url}), &good), unknown_kid),
        ("jwk embedded", signed_with_header(&mallory, json!({"jwk": mallory.jwk()}), &good), unknown_kid),
        (
            "jwk embedded under a published kid",
            signed_with_header(&rsa_b_as_a, json!({"jwk": rsa_b_as_a.jwk()}), &good),
            "its signature does not verify",
        ),
        ("kid as a path", signed_with_header(&path_kid, json!({}), &good), unknown_kid),
        ("crit not understood", signed_with_header(&rsa, json!({"crit": ["exp"]}), &good), unreadable),
        ("exp as a string", rsa.sign(&with(json!({"exp": (now() + 600).to_string()}))), "it has no expiry (exp)"),
        ("nbf as a string", rsa.sign(&with(json!({"nbf": "0"}))), unreadable),
        (
            "iss with a trailing slash",
            rsa.sign(&with(json!({"iss": format!("{ISSUER}/")}))),
            "it was issued by another issuer (iss)",
        ),
        (
            "aud with a trailing slash",
            rsa.sign(&with(json!({"aud": format!("{url}/")}))),
            "it was issued for another resource (aud)",
        ),
        ("sub a number", rsa.sign(&with(json!({"sub": 42}))), "it names no subject (sub)"),
    ];
    for (case, token, why) in &cases {
        assert_refused(addr, Some(token), &invalid(why, &resource), case).await;
    }
    assert_eq!((jwks_server.fetches(), elsewhere.fetches()), (1, 0), "only the configured JWKS is fetched");

    // An audience array naming this resource among others is accepted.
    let token = rsa.sign(&with(json!({"aud": ["https://other.test.example", url.clone()]})));
    let reply = send(addr, "POST", "/tools/whoami", &[("authorization", &format!("Bearer {token}"))], "{}").await;
    assert_eq!((reply.status, reply.json()["data"]["subject"].clone()), (200, json!("alice")), "{}", reply.text);

    // A 100 KB token is refused like any unreadable one; a token in the query string is no token.
    let big = "a".repeat(100_000);
    assert_refused(addr, Some(&big), &invalid(unreadable, &resource), "100 KB").await;
    let reply = send(addr, "POST", &format!("/tools/whoami?access_token={token}"), &[], "{}").await;
    assert_eq!((reply.status, reply.json()["error"].clone()), (401, json!("missing_bearer_token")), "{}", reply.text);
    assert_no_part_of(Some(&token), &reply.text, "query");
    // The scheme is case-insensitive (RFC 7235 §2.1); two Authorization headers are refused.
    let auth = format!("bEaReR {token}");
    let reply = send(addr, "POST", "/tools/whoami", &[("authorization", &auth)], "{}").await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let good_twice = [("authorization", auth.as_str()), ("authorization", auth.as_str())];
    let reply = send(addr, "POST", "/tools/whoami", &good_twice, "{}").await;
    assert_eq!((reply.status, reply.json()["error"].clone()), (401, json!("invalid_bearer_token")), "{}", reply.text);
    assert_no_part_of(Some(&token), &reply.text, "twice");
}
