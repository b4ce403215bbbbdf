//! A tenant named by a header is the caller's space, never a caller of its own: a token without
//! a tenant claim that sends a new `X-Tenant-ID` on every call is still one caller for its rate
//! limit and its store quota (`Caller::quota_key`), over the HTTP endpoints on loopback.

use std::sync::Arc;

use envelope_core::call::Surface;
use envelope_core::call::guard::store::{Capacity, Limits, MemoryStore};
use envelope_core::http::{AuthLayer, BearerTokens, HttpTools};
use envelope_core::spec::rate::RateLimit;
use envelope_core::{Caller, Toolbox};

use crate::client::{send, serve};
use crate::tools;

/// `toolbox` on a surface that needs a tenant, for the one token `tok-bob` (subject `bob`, no
/// tenant claim), served on loopback.
async fn served(toolbox: Toolbox) -> std::net::SocketAddr {
    let surface = Surface::internal("internal").requiring_tenant();
    let hook = BearerTokens::new(["tok-bob"]).with_caller("tok-bob", Caller::new("bob"));
    serve(HttpTools::new(toolbox).with_surface(surface).router().layer(AuthLayer::new(hook))).await
}

/// `create_note` by bob naming tenant `tenant`, with `body`: the envelope's status or error code.
async fn create(addr: std::net::SocketAddr, tenant: &str, body: &str) -> String {
    let headers = [("authorization", "Bearer tok-bob"), ("x-tenant-id", tenant)];
    let reply = send(addr, "POST", "/tools/create_note", &headers, body).await;
    let env = reply.json();
    match env["error_code"].as_str() {
        Some(code) => code.to_owned(),
        None => env["status"].as_str().unwrap_or_else(|| panic!("{}", reply.text)).to_owned(),
    }
}

/// At 1 call per hour, 20 calls each naming a new tenant: 1 runs, 19 are `RATE_LIMITED`
/// (all 20 ran when each tenant made a caller of its own).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotating_the_tenant_header_escapes_no_rate_limit() {
    let toolbox = tools::toolbox().with_tool_rate_limit("create_note", RateLimit::per_hour(1));
    let addr = served(toolbox).await;
    let mut answers = Vec::new();
    for i in 0..20 {
        answers.push(create(addr, &format!("tenant-{i:02}"), r#"{"title": "a note"}"#).await);
    }
    let ran = answers.iter().filter(|a| *a == "ok").count();
    let limited = answers.iter().filter(|a| *a == "RATE_LIMITED").count();
    assert_eq!((ran, limited), (1, 19), "{answers:?}");
    assert_eq!(answers[0], "ok");
}

/// With 3 idempotency records per caller, 10 keyed writes each naming a new tenant: 3 are
/// recorded, 7 are `RATE_LIMITED`; a key sent again under its own tenant still replays there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotating_the_tenant_header_escapes_no_store_quota() {
    let limits = Limits::default().with_idempotency_records(Capacity { total: 10_000, per_caller: 3 });
    let store = Arc::new(MemoryStore::default().with_limits(limits));
    let notes = Arc::new(tools::NoteStore::default());
    let addr = served(tools::toolbox_over(Arc::clone(&notes)).with_store(store.clone())).await;
    let mut answers = Vec::new();
    for i in 0..10 {
        let body = format!(r#"{{"title": "a note", "idempotency_key": "key-{i:04}-abcd"}}"#);
        answers.push(create(addr, &format!("tenant-{i:02}"), &body).await);
    }
    assert_eq!(answers.iter().filter(|a| *a == "ok").count(), 3, "{answers:?}");
    assert_eq!(answers.iter().filter(|a| *a == "RATE_LIMITED").count(), 7, "{answers:?}");
    assert_eq!(store.len(), 3);
    let writes = notes.writes();
    // The same key in its own tenant replays without a write.
    let again = create(addr, "tenant-00", r#"{"title": "a note", "idempotency_key": "key-0000-abcd"}"#).await;
    assert_eq!(again, "ok");
    assert_eq!(notes.writes(), writes);
}

/// A comma in `X-Tenant-ID` names two tenants (a field sent twice reads as one with a comma,
/// RFC 9110 §5.3), never one called `acme,globex`: refused 400 `tenant_required`, as is the
/// header sent twice with two tenants, or a value with a space, empty or too long, each quoted
/// (cut) with why it names no tenant; `acme` alone, or sent twice, is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenant_header_that_names_no_tenant_is_quoted_with_why() {
    let addr = served(tools::toolbox()).await;
    let refused = |why: &str| {
        serde_json::json!({"error": "tenant_required", "message": format!("The surface internal serves calls for a \
            tenant, and the header `X-Tenant-ID` names no valid tenant: {why}; send the header `X-Tenant-ID: <tenant>` \
            (1 to 128 visible ASCII characters, no comma), or use a credential that names a tenant.")})
    };
    let comma = "holds a comma: it names two tenants (RFC 9110 §5.3)";
    let not_ascii = "holds a character that is not visible ASCII (a space, a control or a non-ASCII character)";
    let long = "T".repeat(200);
    let bearer = ("authorization", "Bearer tok-bob");
    for (tenants, why) in [
        (&["acme,globex"][..], format!("\"acme,globex\" {comma}")),
        (&["acme, globex"], format!("\"acme, globex\" {comma}")),
        (&["acme", "globex"], "\"acme\", \"globex\" are two tenants (the header is sent twice)".to_owned()),
        (&["a b"], format!("\"a b\" {not_ascii}")),
        (&[""], "\"\" is empty".to_owned()),
        (&[long.as_str()], format!("\"{}…\" (200 characters) is longer than 128 characters", "T".repeat(120))),
    ] {
        let mut headers = vec![bearer];
        headers.extend(tenants.iter().map(|t| ("x-tenant-id", *t)));
        let reply = send(addr, "POST", "/tools/list_notes", &headers, "{}").await;
        assert_eq!((reply.status, reply.json()), (400, refused(&why)), "{tenants:?}");
    }
    for tenants in [&["acme"][..], &["acme", "acme"]] {
        let mut headers = vec![bearer];
        headers.extend(tenants.iter().map(|t| ("x-tenant-id", *t)));
        let reply = send(addr, "POST", "/tools/list_notes", &headers, "{}").await;
        assert_eq!((reply.status, reply.json()["status"].as_str()), (200, Some("ok")), "{tenants:?}: {}", reply.text);
    }
}
