//! Scopes per tool, tiers, surfaces and their visible sets, tenants and the policy hooks, over
//! `Toolbox`, the HTTP endpoints and MCP Streamable HTTP (every protocol version). A binary of
//! its own: one test captures `tracing` output.
//!
//! A verified caller is put in the request's extensions by a small layer (the auth hook's job),
//! read from the test headers `x-test-subject`, `x-test-scopes` (space-separated) and
//! `x-test-tenant`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::middleware::Next;
use envelope_core::call::policy::{PolicyError, PolicyFuture, PolicyRequest, TenantAccess, TenantPolicy, Verdict};
use envelope_core::http::HttpTools;
use envelope_core::mcp::streamable::McpHttp;
use envelope_core::spec::Tier;
use envelope_core::{Caller, Context, Toolbox, call::Surface, tool};
use serde_json::{Value, json};

#[path = "support/http_client.rs"]
mod client;
use client::{send, serve};

static WRITES: AtomicUsize = AtomicUsize::new(0);

/// Reads a note.
#[tool(read_only, scopes = ["notes:read"])]
fn read_note(#[validate(range = 1..=100)] id: u32) -> Value {
    json!({"id": id})
}

/// Writes a note.
#[tool(scopes = ["notes:write"])]
fn write_note(#[validate(length = 1..=20)] title: String) -> Value {
    WRITES.fetch_add(1, Ordering::SeqCst);
    json!({"title": title})
}

/// Deletes a note.
#[tool(destructive, scopes = ["notes:write", "notes:admin"])]
fn delete_note(#[validate(range = 1..=100)] id: u32) -> Value {
    json!({"deleted": id})
}

/// Deletes every note of the tenant.
#[tool(destructive, tier = 4)]
async fn purge_notes() -> Value {
    json!({"purged": true})
}

/// Echoes the tenant the policy saw: no scopes, T2.
#[tool]
fn ping(#[validate(default = 1)] n: u32) -> u32 {
    n
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(read_note::tool())
        .with(write_note::tool())
        .with(delete_note::tool())
        .with(purge_notes::tool())
        .with(ping::tool())
}

/// The same tools without `purge_notes`: what a name no tool has is answered with.
fn toolbox_without_purge() -> Toolbox {
    Toolbox::new().with(read_note::tool()).with(write_note::tool()).with(delete_note::tool()).with(ping::tool())
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
}

fn cx(scopes: &[&str]) -> Context {
    Context::new(Caller::new("alice").with_scopes(scopes.iter().copied()))
}

// --- tiers, scopes and the manifest -----------------------------------------------------------

#[test]
fn tiers_are_declared_or_derived_and_listed_with_scopes() {
    let toolbox = toolbox();
    let tier = |name: &str| toolbox.get(name).unwrap().tier();
    assert_eq!(
        [tier("read_note"), tier("write_note"), tier("delete_note"), tier("purge_notes")],
        [Tier::T1, Tier::T2, Tier::T3, Tier::T4]
    );
    assert_eq!(toolbox.get("delete_note").unwrap().scopes(), ["notes:write", "notes:admin"]);
    let manifest = toolbox.manifest();
    let entry = |name: &str| manifest["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().clone();
    assert_eq!(entry("write_note")["scopes"], json!(["notes:write"]));
    assert_eq!(entry("write_note")["tier"], 2);
    assert_eq!(entry("purge_notes")["tier"], 4);
    assert_eq!(entry("ping")["scopes"], json!([]));
    let codes = |name: &str| -> Vec<String> {
        entry(name)["error_codes"].as_array().unwrap().iter().map(|c| c["code"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(codes("write_note"), ["VALIDATION_ERROR", "FORBIDDEN", "BACKEND_ERROR"]);
    assert_eq!(codes("ping"), ["VALIDATION_ERROR", "BACKEND_ERROR"]);
    assert_eq!(manifest["error_codes"]["FORBIDDEN"]["http_status"], 403);
    assert_eq!(toolbox.scopes(), ["notes:read", "notes:write", "notes:admin"]);
}

#[test]
fn a_caller_without_a_tools_scopes_is_refused_before_its_arguments_are_read() {
    block_on(async {
        let toolbox = toolbox();
        let before = WRITES.load(Ordering::SeqCst);
        // Arguments that would be refused: the scope is checked first.
        let refused = toolbox.call_in(&cx(&["notes:read"]), "write_note", Some(&json!({"title": ""}))).await.unwrap();
        assert_eq!(
            refused.to_json(),
            r#"{"status":"invalid","success":false,"error_code":"FORBIDDEN","message":"scope: write_note needs the scope notes:write, which this caller was not granted; accepted: a caller granted notes:write. Call with a credential granted notes:write (ask for access), or choose another tool; the same call will be refused again.","hints":{"parameter":"scope","accepted":"a caller granted notes:write","fix":"Call with a credential granted notes:write (ask for access), or choose another tool; the same call will be refused again."},"retryable":false,"retry":"never"}"#
        );
        // Every missing scope is named, space-separated as an OAuth scope value.
        let refused = toolbox.call_json_in(&cx(&["notes:write"]), "delete_note", r#"{"id": 1}"#).await.unwrap();
        assert!(
            refused.message().unwrap().starts_with("scope: delete_note needs the scope notes:admin,"),
            "{refused:?}"
        );
        let refused = toolbox.call_json_in(&Context::anonymous(), "delete_note", r#"{"id": 1}"#).await.unwrap();
        assert!(refused.message().unwrap().contains("the scopes notes:write notes:admin"), "{refused:?}");
        assert_eq!(WRITES.load(Ordering::SeqCst), before, "nothing ran");
        // Granted: served.
        let ok = toolbox.call_in(&cx(&["notes:write"]), "write_note", Some(&json!({"title": "hi"}))).await.unwrap();
        assert_eq!(ok.to_json(), r#"{"status":"ok","success":true,"data":{"title":"hi"}}"#);
    });
}

// --- surfaces and visibility -------------------------------------------------------------------

#[test]
fn a_hidden_tool_is_listed_nowhere_and_answered_as_unknown() {
    block_on(async {
        let public = toolbox().on(&Surface::public("mcp"));
        let names: Vec<&str> = public.tools().iter().map(|t| t.name()).collect();
        assert_eq!(names, ["read_note", "write_note", "delete_note", "ping"]);
        assert!(!public.manifest().to_string().contains("purge"));
        use envelope_core::providers::{Provider, tools};
        for provider in [Provider::OpenAiChat, Provider::Anthropic, Provider::Gemini] {
            let exported = json!(tools(&public, provider).expect("within the limits")).to_string();
            assert!(!exported.contains("purge_notes"), "{exported}");
            assert!(json!(tools(&toolbox(), provider).expect("within the limits")).to_string().contains("purge_notes"));
        }
        let hidden = public.call("purge_notes", None).await.unwrap_err();
        let unknown = toolbox_without_purge().call("purge_notes", None).await.unwrap_err();
        assert_eq!(hidden.to_string(), unknown.to_string());
        assert_eq!(hidden, unknown);
        // The did-you-mean looks among the visible names only.
        let close = public.call("purge_note", None).await.unwrap_err();
        assert_eq!(close, toolbox_without_purge().call("purge_note", None).await.unwrap_err());
        assert_ne!(close.suggestion(), Some("purge_notes"));

        // An internal surface shows it; a visible set hides what it leaves out.
        let internal = toolbox().on(&Surface::internal("internal"));
        assert!(internal.get("purge_notes").is_some());
        let readers = toolbox().on(&Surface::internal("readers").only(["read_note", "purge_notes"]));
        assert_eq!(readers.tools().iter().map(|t| t.name()).collect::<Vec<_>>(), ["read_note", "purge_notes"]);
        let no_ping = toolbox().on(&Surface::public("p").all_but(["ping"]));
        assert!(no_ping.get("ping").is_none() && no_ping.get("read_note").is_some());
        // Served again, a toolbox starts from every tool registered.
        assert!(public.on(&Surface::internal("internal")).get("purge_notes").is_some());
    });
}

#[path = "support/captured.rs"]
mod captured;
use captured::Captured;

#[test]
fn a_t4_attempt_on_a_public_surface_is_recorded_and_refused_as_unknown() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    block_on(async {
        let public = toolbox().on(&Surface::public("public"));
        let cx = Context::new(Caller::new("mallory").with_tenant("acme")).with_call_id("call_t4attempt");
        let refused = public.call_in(&cx, "purge_notes", None).await.unwrap_err();
        assert_eq!(refused, toolbox_without_purge().call("purge_notes", None).await.unwrap_err());
        // A truly unknown name is not recorded as an attempt.
        let _ = public.call_in(&cx, "no_such_tool", None).await.unwrap_err();
        // Over the HTTP endpoints too.
        let addr = serve(HttpTools::new(toolbox()).router()).await;
        let reply = send(addr, "POST", "/tools/purge_notes", &[], "{}").await;
        assert_eq!(reply.status, 404);
        // And over MCP.
        let addr = serve(McpHttp::new(toolbox()).router()).await;
        let call = json!({"name": "purge_notes", "arguments": {}});
        let (status, reply) = rpc(addr, "/mcp", "2025-11-25", &[], "tools/call", call).await;
        assert_eq!((status, reply["error"]["code"].clone()), (200, json!(-32602)), "{reply}");
    });
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let attempts: Vec<&str> = log.lines().filter(|l| l.contains("hidden tool called")).collect();
    assert_eq!(attempts.len(), 3, "{log}");
    assert!(attempts[0].contains("WARN"), "{log}");
    assert!(attempts[0].contains("surface=\"public\"") || attempts[0].contains("surface=public"), "{log}");
    assert!(attempts[0].contains("purge_notes") && attempts[0].contains("call_t4attempt"), "{log}");
    assert!(attempts[0].contains("sub:mallory@acme"), "{log}");
    assert!(attempts[1].contains("surface=\"http\"") || attempts[1].contains("surface=http"), "{log}");
    assert!(attempts[2].contains("surface=\"mcp\"") || attempts[2].contains("surface=mcp"), "{log}");
    assert!(!log.contains("no_such_tool"), "{log}");
}

/// An audit sink that keeps what it is given.
#[derive(Debug, Default)]
struct KeptRecords(std::sync::Mutex<Vec<envelope_core::call::audit::AuditRecord>>);

impl envelope_core::call::audit::AuditSink for KeptRecords {
    fn write<'a>(
        &'a self,
        record: &'a envelope_core::call::audit::AuditRecord,
    ) -> envelope_core::call::audit::AuditFuture<'a> {
        self.0.lock().unwrap().push(record.clone());
        Box::pin(async { Ok(()) })
    }
}

#[test]
fn a_t4_attempt_on_a_public_surface_is_handed_to_the_audit_trail_off_the_answers_path() {
    block_on(async {
        let kept = Arc::new(KeptRecords::default());
        let audited = toolbox().with_audit(envelope_core::call::audit::Audit::new(kept.clone()));
        let public = audited.on(&Surface::public("public"));
        let cx = Context::new(Caller::new("mallory").with_tenant("acme")).with_call_id("call_t4audit");
        let refused = public.call_in(&cx, "purge_notes", None).await.unwrap_err();
        assert_eq!(refused, toolbox_without_purge().call("purge_notes", None).await.unwrap_err());
        let _ = public.call_in(&cx, "no_such_tool", None).await.unwrap_err();
        // Written in a task of its own: the answer did not wait for it.
        for _ in 0..200 {
            if !kept.0.lock().unwrap().is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let records: Vec<Value> =
            kept.0.lock().unwrap().iter().map(|r| serde_json::from_str(&r.to_json()).unwrap()).collect();
        assert_eq!(records.len(), 1, "{records:?}");
        let r = &records[0];
        assert_eq!(
            (&r["kind"], &r["call_id"], &r["tool"], &r["tier"], &r["surface"], &r["caller"], &r["tenant"]),
            (
                &json!("attempt"),
                &json!("call_t4audit"),
                &json!("purge_notes"),
                &json!(4),
                &json!("public"),
                &json!("mallory"),
                &json!("acme")
            ),
            "{r}"
        );
        assert_eq!(r["outcome"], json!({"status": "refused", "reason": "hidden"}), "{r}");
    });
}

// --- the policy hook ---------------------------------------------------------------------------

/// A policy that records what it was asked and answers from the tool's name.
#[derive(Default)]
struct Recorder {
    seen: Mutex<Vec<Value>>,
}

struct Recording(Arc<Recorder>);

impl envelope_core::call::policy::Policy for Recording {
    fn decide<'a>(&'a self, call: &'a PolicyRequest<'a>) -> PolicyFuture<'a, Verdict> {
        Box::pin(async move {
            self.0.seen.lock().unwrap().push(json!({
                "caller": call.caller().subject(), "tenant": call.tenant(), "surface": call.surface(),
                "tool": call.tool(), "tier": call.tier().number(), "arguments": call.arguments(),
            }));
            match call.tool() {
                "write_note" if call.arguments()["title"] == "secret plans" => Ok(Verdict::deny("the role editor")),
                "delete_note" => Ok(Verdict::block("deletes are frozen")),
                "read_note" => Err("the policy service is down".into()),
                "purge_notes" => {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    Ok(Verdict::Allow)
                }
                "ping" if call.arguments()["n"] == 2 => Ok(Verdict::Confirm),
                _ => Ok(Verdict::Allow),
            }
        })
    }
}

fn governed(recorder: &Arc<Recorder>) -> Toolbox {
    toolbox().with_policy(Recording(Arc::clone(recorder))).with_policy_timeout(Duration::from_millis(100))
}

#[test]
fn the_policy_sees_the_validated_call_and_allows_denies_blocks_or_asks() {
    block_on(async {
        let recorder = Arc::new(Recorder::default());
        let toolbox = governed(&recorder);
        let writer = Context::new(
            Caller::new("alice").with_scopes(["notes:read", "notes:write", "notes:admin"]).with_tenant("acme"),
        )
        .with_surface("internal");
        let before = WRITES.load(Ordering::SeqCst);

        // Allowed: it saw the validated arguments (the default filled in), tier and tenant.
        let ok = toolbox.call_json_in(&writer, "write_note", r#"{"title": "hello"}"#).await.unwrap();
        assert_eq!(ok.to_value()["status"], "ok");
        assert_eq!(
            recorder.seen.lock().unwrap()[0],
            json!({"caller": "alice", "tenant": "acme", "surface": "internal", "tool": "write_note", "tier": 2,
                   "arguments": {"title": "hello"}})
        );
        let _ = toolbox.call_in(&writer, "ping", None).await.unwrap();
        assert_eq!(recorder.seen.lock().unwrap()[1]["arguments"], json!({"n": 1}));

        // An invalid call never reaches the policy.
        let invalid = toolbox.call_json_in(&writer, "write_note", r#"{"title": ""}"#).await.unwrap();
        assert_eq!(invalid.to_value()["error_code"], "VALIDATION_ERROR");
        assert_eq!(recorder.seen.lock().unwrap().len(), 2);

        // Denied: FORBIDDEN naming what is missing; the body did not run.
        let denied = toolbox.call_json_in(&writer, "write_note", r#"{"title": "secret plans"}"#).await.unwrap();
        assert_eq!(
            denied.to_json(),
            r#"{"status":"invalid","success":false,"error_code":"FORBIDDEN","message":"policy: write_note is not allowed for this caller: it needs the role editor; accepted: a caller with the role editor. Do not retry unchanged; ask for access, or choose another action.","hints":{"parameter":"policy","accepted":"a caller with the role editor","fix":"Do not retry unchanged; ask for access, or choose another action."},"retryable":false,"retry":"never"}"#
        );
        assert_eq!(WRITES.load(Ordering::SeqCst), before + 1);

        // Blocked: T4_BLOCKED, a refusal (a policy decision, never a server fault), never retried.
        let blocked = toolbox.call_json_in(&writer, "delete_note", r#"{"id": 3}"#).await.unwrap();
        assert_eq!(
            blocked.to_json(),
            r#"{"status":"invalid","success":false,"error_code":"T4_BLOCKED","message":"policy: delete_note is blocked on the surface internal (deletes are frozen): destructive execution is not allowed here; accepted: a call the policy allows on this surface. Nothing was done. Do not retry unchanged; ask a person to do it where it is allowed, or choose another action.","hints":{"parameter":"policy","accepted":"a call the policy allows on this surface","fix":"Nothing was done. Do not retry unchanged; ask a person to do it where it is allowed, or choose another action."},"retryable":false,"retry":"never"}"#
        );
        assert_eq!(envelope_core::http::status(&blocked), 403);

        // A policy that errors gave no decision: POLICY_UNAVAILABLE, retried with backoff (not
        // a denial).
        let failed = toolbox.call_json_in(&writer, "read_note", r#"{"id": 3}"#).await.unwrap();
        assert_eq!(
            failed.to_json(),
            r#"{"status":"error","success":false,"error_code":"POLICY_UNAVAILABLE","message":"authorizing read_note (the policy gave no decision) failed: the policy that authorizes this call gave no decision (it failed or timed out), so nothing ran. Retry with bounded backoff; nothing was done.","hints":{"operation":"authorizing read_note (the policy gave no decision)"},"retryable":true,"retry":"with_backoff"}"#
        );
        assert_eq!(envelope_core::http::status(&failed), 503);
        // A policy past its timeout: the same, within about the timeout.
        let started = std::time::Instant::now();
        let late = toolbox.call_in(&writer, "purge_notes", None).await.unwrap();
        assert_eq!(late.to_value()["error_code"], "POLICY_UNAVAILABLE");
        assert_eq!(late.to_value()["retry"], "with_backoff");
        assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());

        // Asked to confirm: the toolbox's flow, then confirm_action runs it once.
        let asked = toolbox.call_json_in(&writer, "ping", r#"{"n": 2}"#).await.unwrap();
        let asked = asked.to_value();
        assert_eq!(asked["status"], "needs_confirmation", "{asked}");
        assert_eq!(asked["preview"], json!({"tool": "ping", "arguments": {"n": 2}}));
        let id = asked["pending_action_id"].as_str().unwrap();
        let approval = json!({"pending_action_id": id, "approved": true});
        let ran = toolbox.call_in(&writer, "confirm_action", Some(&approval)).await.unwrap();
        assert_eq!(ran.to_json(), r#"{"status":"ok","success":true,"data":2}"#);

        // Every tool lists what the policy can answer.
        let codes = toolbox.get("ping").unwrap().spec().error_codes.iter().map(|c| c.name()).collect::<Vec<_>>();
        assert_eq!(
            codes,
            [
                "VALIDATION_ERROR",
                "FORBIDDEN",
                "T4_BLOCKED",
                "CONFIRMATION_REQUIRED",
                "POLICY_UNAVAILABLE",
                "BACKEND_ERROR"
            ]
        );
    });
}

#[test]
fn a_closure_is_a_policy() {
    block_on(async {
        let toolbox = toolbox().with_policy(|call: &PolicyRequest<'_>| -> Result<Verdict, PolicyError> {
            Ok(if call.tier() >= Tier::T3 { Verdict::block("no destructive calls today") } else { Verdict::Allow })
        });
        let cx = cx(&["notes:write", "notes:admin"]);
        let blocked = toolbox.call_in(&cx, "delete_note", Some(&json!({"id": 1}))).await.unwrap();
        assert_eq!(blocked.to_value()["error_code"], "T4_BLOCKED");
        assert_eq!(blocked.to_value()["retryable"], false);
        let ok = toolbox.call_in(&cx, "ping", None).await.unwrap();
        assert_eq!(ok.to_value()["data"], 1);

        // A policy that panics gave no decision: the call is refused, the server goes on.
        let toolbox = toolbox.with_policy(|call: &PolicyRequest<'_>| -> Result<Verdict, PolicyError> {
            if call.tool() == "ping" { panic!("a bug in the policy") } else { Ok(Verdict::Allow) }
        });
        let refused = toolbox.call_in(&cx, "ping", None).await.unwrap();
        assert_eq!(refused.to_value()["error_code"], "POLICY_UNAVAILABLE");
        assert_eq!(refused.to_value()["retryable"], true);
    });
}

// --- over HTTP: a caller layer, the HTTP endpoints and MCP ------------------------------------

/// Puts the caller the test headers describe in the request's extensions, as an auth hook would.
async fn test_caller(mut request: Request, next: Next) -> axum::response::Response {
    if let Some(caller) = caller_of(request.headers()) {
        request.extensions_mut().insert(caller);
    }
    next.run(request).await
}

fn caller_of(headers: &axum::http::HeaderMap) -> Option<Caller> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let mut caller = Caller::new(header("x-test-subject")?);
    if let Some(scopes) = header("x-test-scopes") {
        caller = caller.with_scopes(scopes.split(' ').map(str::to_owned));
    }
    if let Some(tenant) = header("x-test-tenant") {
        caller = caller.with_tenant(tenant);
    }
    Some(caller)
}

fn with_callers(router: Router) -> Router {
    router.layer(axum::middleware::from_fn(test_caller))
}

/// A tenant policy: `acme` granted, `globex` denied, `down` fails, `slow` does not answer.
struct Tenants;

impl TenantPolicy for Tenants {
    fn admit<'a>(&'a self, _caller: &'a Caller, tenant: &'a str, _surface: &'a str) -> PolicyFuture<'a, TenantAccess> {
        Box::pin(async move {
            match tenant {
                "acme" => Ok(TenantAccess::Granted),
                "down" => Err("the tenant store is down".into()),
                "slow" => {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    Ok(TenantAccess::Granted)
                }
                _ => Ok(TenantAccess::Denied),
            }
        })
    }
}

fn internal() -> Surface {
    Surface::internal("internal")
        .with_scopes(["internal"])
        .with_tenant_policy(Tenants)
        .with_tenant_policy_timeout(Duration::from_millis(100))
}

#[test]
fn the_http_endpoints_refuse_scopes_and_tenants() {
    block_on(async {
        let recorder = Arc::new(Recorder::default());
        let app = Router::new()
            .merge(HttpTools::new(toolbox()).router())
            .nest("/internal", HttpTools::new(governed(&recorder)).with_surface(internal()).router());
        let addr = serve(with_callers(app)).await;
        let reader = [("x-test-subject", "bob"), ("x-test-scopes", "notes:read")];

        // A tool's scope missing: 403, the envelope, and the bearer challenge naming the scope.
        let reply = send(addr, "POST", "/tools/write_note", &reader, r#"{"title": "x"}"#).await;
        assert_eq!(reply.status, 403, "{}", reply.text);
        assert_eq!(reply.json()["error_code"], "FORBIDDEN");
        assert_eq!(reply.header("www-authenticate"), Some(r#"Bearer error="insufficient_scope", scope="notes:write""#));
        let reply = send(addr, "POST", "/tools/read_note", &reader, r#"{"id": 1}"#).await;
        assert_eq!((reply.status, reply.json()["data"]["id"].clone()), (200, json!(1)));

        // The public endpoints list no T4 tool; the internal ones do.
        let listed = send(addr, "GET", "/tools", &[], "").await.json();
        assert!(!listed.to_string().contains("purge_notes"));
        assert!(!send(addr, "GET", "/manifest", &[], "").await.text.contains("purge_notes"));
        let hidden = send(addr, "POST", "/tools/purge_notes", &[], "{}").await;
        let unknown = {
            let addr = serve(HttpTools::new(toolbox_without_purge()).router()).await;
            send(addr, "POST", "/tools/purge_notes", &[], "{}").await
        };
        assert_eq!((hidden.status, hidden.text.as_str()), (unknown.status, unknown.text.as_str()));

        // The internal surface: its scope first, then a tenant.
        let reply = send(addr, "GET", "/internal/tools", &reader, "").await;
        assert_eq!(reply.status, 403);
        assert_eq!(reply.json()["error"], "insufficient_scope");
        assert_eq!(reply.header("www-authenticate"), Some(r#"Bearer error="insufficient_scope", scope="internal""#));
        let staff = [("x-test-subject", "carol"), ("x-test-scopes", "internal notes:read notes:write")];
        let reply = send(addr, "POST", "/internal/tools/ping", &staff, "{}").await;
        assert_eq!((reply.status, reply.json()["error"].clone()), (400, json!("tenant_required")), "{}", reply.text);
        // A header names the tenant of a caller whose credential names none.
        let with_header: Vec<(&str, &str)> = staff.iter().copied().chain([("x-tenant-id", "acme")]).collect();
        let reply = send(addr, "POST", "/internal/tools/write_note", &with_header, r#"{"title": "t"}"#).await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_eq!(recorder.seen.lock().unwrap().last().unwrap()["tenant"], "acme");
        assert_eq!(recorder.seen.lock().unwrap().last().unwrap()["surface"], "internal");
        // A header contradicting the verified tenant is refused; agreeing, it is served.
        let verified: Vec<(&str, &str)> = staff.iter().copied().chain([("x-test-tenant", "acme")]).collect();
        let contradicting: Vec<(&str, &str)> = verified.iter().copied().chain([("x-tenant-id", "globex")]).collect();
        let reply = send(addr, "POST", "/internal/tools/ping", &contradicting, "{}").await;
        assert_eq!((reply.status, reply.json()["error"].clone()), (403, json!("tenant_mismatch")), "{}", reply.text);
        assert!(!reply.text.contains("globex") && !reply.text.contains("acme"), "{}", reply.text);
        let agreeing: Vec<(&str, &str)> = verified.iter().copied().chain([("x-tenant-id", "acme")]).collect();
        assert_eq!(send(addr, "POST", "/internal/tools/ping", &agreeing, "{}").await.status, 200);
        // The tenant policy: denied, failing, too slow.
        for (tenant, status, word) in [
            ("globex", 403, "tenant_forbidden"),
            ("down", 403, "tenant_policy_unavailable"),
            ("slow", 403, "tenant_policy_unavailable"),
        ] {
            let headers: Vec<(&str, &str)> = staff.iter().copied().chain([("x-tenant-id", tenant)]).collect();
            let reply = send(addr, "POST", "/internal/tools/ping", &headers, "{}").await;
            assert_eq!(
                (reply.status, reply.json()["error"].clone()),
                (status, json!(word)),
                "{tenant}: {}",
                reply.text
            );
        }
        // A T4 tool is there on the internal surface.
        let listed = send(addr, "GET", "/internal/tools", &with_header, "").await.json();
        assert!(listed.to_string().contains("purge_notes"));
        // The policy: one that errors gave no decision (503, retried with backoff; no bearer
        // challenge: no scope is missing) ...
        let reply = send(addr, "POST", "/internal/tools/read_note", &with_header, r#"{"id": 2}"#).await;
        assert_eq!(
            (reply.status, reply.json()["error_code"].clone()),
            (503, json!("POLICY_UNAVAILABLE")),
            "{}",
            reply.text
        );
        assert_eq!(reply.json()["retry"], "with_backoff");
        assert_eq!(reply.header("www-authenticate"), None);
        // ... and one that blocks answers T4_BLOCKED (a refusal: 403).
        let admin: Vec<(&str, &str)> = vec![
            ("x-test-subject", "carol"),
            ("x-test-scopes", "internal notes:write notes:admin"),
            ("x-tenant-id", "acme"),
        ];
        let reply = send(addr, "POST", "/internal/tools/delete_note", &admin, r#"{"id": 2}"#).await;
        assert_eq!((reply.status, reply.json()["error_code"].clone()), (403, json!("T4_BLOCKED")), "{}", reply.text);
        assert_eq!(reply.json()["retryable"], false);
    });
}

/// The protocol versions the e2e suite drives.
const VERSIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// A JSON-RPC POST to `path` on `version`, with `extra` headers: the status and the body.
async fn rpc(
    addr: std::net::SocketAddr,
    path: &str,
    version: &str,
    extra: &[(&str, &str)],
    method: &str,
    params: Value,
) -> (u16, Value) {
    let mut params = params;
    let mut headers = vec![("content-type", "application/json"), ("mcp-protocol-version", version)];
    let name = params.get("name").and_then(Value::as_str).map(str::to_owned);
    if version >= "2026-07-28" {
        params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": version,
                                 "io.modelcontextprotocol/clientCapabilities": {}});
        headers.push(("mcp-method", method));
    }
    let name_header;
    if let (true, Some(n)) = (version >= "2026-07-28", name) {
        name_header = n;
        headers.push(("mcp-name", name_header.as_str()));
    }
    headers.extend_from_slice(extra);
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string();
    let reply = send(addr, "POST", path, &headers, &body).await;
    let value = if reply.text.is_empty() { Value::Null } else { reply.json() };
    (reply.status, value)
}

#[test]
fn mcp_surfaces_over_streamable_http_on_every_version() {
    block_on(async {
        let recorder = Arc::new(Recorder::default());
        let app = Router::new()
            .merge(McpHttp::new(toolbox()).router())
            .nest("/internal", McpHttp::new(governed(&recorder)).with_surface(internal()).router());
        let addr = serve(with_callers(app)).await;
        let plain = serve(McpHttp::new(toolbox_without_purge()).router()).await;
        let reader = [("x-test-subject", "bob"), ("x-test-scopes", "notes:read")];
        for version in VERSIONS {
            // tools/list on the public surface: no T4 tool.
            let (status, listed) = rpc(addr, "/mcp", version, &reader, "tools/list", json!({})).await;
            assert_eq!(status, 200, "{version}: {listed}");
            let names: Vec<&str> =
                listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
            assert_eq!(names, ["read_note", "write_note", "delete_note", "ping"], "{version}");

            // A hidden tool called: the reply of a server that never had it, byte for byte.
            let call = json!({"name": "purge_notes", "arguments": {}});
            let hidden = rpc(addr, "/mcp", version, &reader, "tools/call", call.clone()).await;
            let unknown = rpc(plain, "/mcp", version, &reader, "tools/call", call).await;
            assert_eq!(hidden, unknown, "{version}");
            assert_eq!(hidden.1["error"]["code"], -32602, "{version}: {}", hidden.1);

            // A tool's scope missing: 403 (the step-up challenge), isError with the FORBIDDEN
            // envelope.
            let call = json!({"name": "write_note", "arguments": {"title": 5}});
            let (status, reply) = rpc(addr, "/mcp", version, &reader, "tools/call", call).await;
            assert_eq!(status, 403, "{version}: {reply}");
            assert_eq!(reply["result"]["isError"], true, "{version}: {reply}");
            let envelope = &reply["result"]["structuredContent"];
            assert_eq!(envelope["error_code"], "FORBIDDEN", "{version}: {reply}");
            assert_eq!(envelope["hints"]["accepted"], "a caller granted notes:write", "{version}");
            assert_eq!(reply["result"]["content"][0]["text"], envelope.to_string(), "{version}");

            // The internal surface: its scope, then its tenant, as JSON-RPC error bodies.
            let (status, reply) = rpc(addr, "/internal/mcp", version, &reader, "tools/list", json!({})).await;
            assert_eq!(status, 403, "{version}: {reply}");
            assert_eq!(reply["error"]["data"]["error"], "insufficient_scope", "{version}: {reply}");
            let staff = [("x-test-subject", "carol"), ("x-test-scopes", "internal notes:read")];
            let (status, reply) = rpc(addr, "/internal/mcp", version, &staff, "tools/list", json!({})).await;
            assert_eq!((status, reply["error"]["data"]["error"].clone()), (400, json!("tenant_required")), "{version}");
            let contradicting = [
                ("x-test-subject", "carol"),
                ("x-test-scopes", "internal notes:read"),
                ("x-test-tenant", "acme"),
                ("x-tenant-id", "globex"),
            ];
            let (status, reply) = rpc(addr, "/internal/mcp", version, &contradicting, "tools/list", json!({})).await;
            assert_eq!((status, reply["error"]["data"]["error"].clone()), (403, json!("tenant_mismatch")), "{version}");
            let failing = [("x-test-subject", "carol"), ("x-test-scopes", "internal"), ("x-tenant-id", "down")];
            let (status, reply) = rpc(addr, "/internal/mcp", version, &failing, "tools/list", json!({})).await;
            assert_eq!(
                (status, reply["error"]["data"]["error"].clone()),
                (403, json!("tenant_policy_unavailable")),
                "{version}"
            );
            // Admitted: the T4 tool is listed there; the policy answers for the tenant.
            let admitted = [
                ("x-test-subject", "carol"),
                ("x-test-scopes", "internal notes:read notes:write notes:admin"),
                ("x-tenant-id", "acme"),
            ];
            let (status, listed) = rpc(addr, "/internal/mcp", version, &admitted, "tools/list", json!({})).await;
            assert_eq!(status, 200, "{version}: {listed}");
            assert!(listed.to_string().contains("purge_notes"), "{version}");
            let envelope_of = |reply: &Value| reply["result"]["structuredContent"].clone();
            let call = json!({"name": "ping", "arguments": {"n": 3}});
            let (_, reply) = rpc(addr, "/internal/mcp", version, &admitted, "tools/call", call).await;
            assert_eq!(envelope_of(&reply)["data"], 3, "{version}: {reply}");
            let seen = recorder.seen.lock().unwrap().last().unwrap().clone();
            assert_eq!((seen["tenant"].clone(), seen["surface"].clone()), (json!("acme"), json!("internal")));
            // Blocked: T4_BLOCKED, never retried; a policy that errors, or does not answer in
            // time: POLICY_UNAVAILABLE, retried with backoff.
            for (name, arguments, code, retryable) in [
                ("delete_note", json!({"id": 1}), "T4_BLOCKED", false),
                ("read_note", json!({"id": 1}), "POLICY_UNAVAILABLE", true),
                ("purge_notes", json!({}), "POLICY_UNAVAILABLE", true),
            ] {
                let call = json!({"name": name, "arguments": arguments});
                let (status, reply) = rpc(addr, "/internal/mcp", version, &admitted, "tools/call", call).await;
                assert_eq!(status, 200, "{version}: {reply}");
                assert_eq!(reply["result"]["isError"], true, "{version}: {reply}");
                assert_eq!(envelope_of(&reply)["error_code"], code, "{version} {name}: {reply}");
                assert_eq!(envelope_of(&reply)["retryable"], retryable, "{version} {name}: {reply}");
            }
        }
    });
}

#[test]
fn the_retired_sse_transport_answers_410_naming_mcp() {
    block_on(async {
        let addr = serve(McpHttp::new(toolbox()).router()).await;
        for (method, path) in [("GET", "/sse"), ("POST", "/sse"), ("POST", "/messages"), ("GET", "/messages")] {
            let reply = send(addr, method, path, &[("content-type", "application/json")], "{}").await;
            assert_eq!(reply.status, 410, "{method} {path}");
            assert_eq!(reply.header("content-type"), Some("application/json"));
            let body = reply.json();
            assert_eq!(body["error"], "legacy_sse_retired");
            assert!(body["message"].as_str().unwrap().contains("/mcp"), "{body}");
        }
    });
}

fn wipe_preview() -> Result<Value, envelope_core::Fault> {
    Ok(json!({"wipe": "everything"}))
}

/// Wipes everything, once a person approves.
#[tool(destructive, tier = 4, confirm = wipe_preview)]
fn wipe() -> Value {
    json!({"wiped": true})
}

/// Confirms a wipe where it is not shown.
#[tool(destructive, confirm = wipe_preview)]
fn trim() -> Value {
    json!({"trimmed": true})
}

#[test]
fn an_action_queued_on_an_internal_surface_is_not_found_on_a_public_one() {
    block_on(async {
        let toolbox = Toolbox::new().with(wipe::tool()).with(trim::tool());
        let internal = toolbox.on(&Surface::internal("internal"));
        let public = toolbox.on(&Surface::public("public"));
        let queued = internal.call("wipe", None).await.unwrap().to_value();
        let id = queued["pending_action_id"].as_str().unwrap().to_owned();
        let approve = json!({"pending_action_id": id, "approved": true});
        // On the public surface the id is unknown, and the hidden tool is not named.
        let refused = public.call("confirm_action", Some(&approve)).await.unwrap();
        assert_eq!(refused.to_value()["error_code"], "NOT_FOUND");
        assert!(!refused.to_json().contains("wipe\""), "{}", refused.to_json());
        assert!(!refused.message().unwrap().contains("wipe "), "{}", refused.to_json());
        // Where it is shown, the same id still runs it, once.
        let ran = internal.call("confirm_action", Some(&approve)).await.unwrap();
        assert_eq!(ran.to_json(), r#"{"status":"ok","success":true,"data":{"wiped":true}}"#);
    });
}

/// Purges, once a person with the admin scope approves.
#[tool(destructive, scopes = ["notes:admin"], confirm = wipe_preview)]
fn purge_all() -> Value {
    json!({"purged": "all"})
}

#[test]
fn confirm_action_runs_an_action_only_for_a_caller_with_its_scopes() {
    block_on(async {
        let toolbox = Toolbox::new().with(purge_all::tool());
        let admin = cx(&["notes:admin"]);
        let queued = toolbox.call_in(&admin, "purge_all", None).await.unwrap().to_value();
        let approve = json!({"pending_action_id": queued["pending_action_id"], "approved": true});
        // Another subject without the scope: the action is not found.
        let bob = Context::new(Caller::new("bob").with_scopes(["notes:read"]));
        let refused = toolbox.call_in(&bob, "confirm_action", Some(&approve)).await.unwrap();
        assert_eq!(refused.to_value()["error_code"], "NOT_FOUND", "{}", refused.to_json());
        // The subject who queued it, with a narrower token: FORBIDDEN naming the scope to step
        // up to (the adapters' 403 challenge).
        let refused = toolbox.call_in(&cx(&["notes:read"]), "confirm_action", Some(&approve)).await.unwrap();
        let refused = refused.to_value();
        assert_eq!(refused["error_code"], "FORBIDDEN", "{refused}");
        assert_eq!(refused["hints"]["accepted"], "a caller granted notes:admin", "{refused}");
        // The id was not used up: the admin approves it.
        let ran = toolbox.call_in(&admin, "confirm_action", Some(&approve)).await.unwrap();
        assert_eq!(ran.to_json(), r#"{"status":"ok","success":true,"data":{"purged":"all"}}"#);
    });
}

#[test]
fn a_pending_action_is_confirmed_only_within_the_tenant_that_queued_it() {
    block_on(async {
        // Admins approve the actions of their tenant's callers.
        let toolbox =
            Toolbox::new().with(purge_all::tool()).with_approvers(|approver, _| approver.has_scope("notes:admin"));
        let of = |subject: &str, tenant: Option<&str>| {
            let caller = Caller::new(subject).with_scopes(["notes:admin"]);
            Context::new(match tenant {
                Some(t) => caller.with_tenant(t),
                None => caller,
            })
        };
        let alice = of("alice", Some("acme"));
        let queued = toolbox.call_in(&alice, "purge_all", None).await.unwrap().to_value();
        let approve = json!({"pending_action_id": queued["pending_action_id"], "approved": true});
        // An admin of another tenant, or of none, holding the id: not found, and the id not used up.
        for other in [of("mallory", Some("globex")), of("mallory", None), of("alice", None)] {
            let refused = toolbox.call_in(&other, "confirm_action", Some(&approve)).await.unwrap();
            assert_eq!(refused.to_value()["error_code"], "NOT_FOUND", "{other:?}: {}", refused.to_json());
            assert!(!refused.to_json().contains("purge_all"), "{}", refused.to_json());
        }
        // Another admin of the same tenant, named an approver by the policy, approves it.
        let ran = toolbox.call_in(&of("bob", Some("acme")), "confirm_action", Some(&approve)).await.unwrap();
        assert_eq!(ran.to_json(), r#"{"status":"ok","success":true,"data":{"purged":"all"}}"#);
        // An action queued without a tenant is not confirmed within one.
        let queued = toolbox.call_in(&of("carol", None), "purge_all", None).await.unwrap().to_value();
        let approve = json!({"pending_action_id": queued["pending_action_id"], "approved": false});
        let refused = toolbox.call_in(&alice, "confirm_action", Some(&approve)).await.unwrap();
        assert_eq!(refused.to_value()["error_code"], "NOT_FOUND", "{}", refused.to_json());
        let dropped = toolbox.call_in(&of("carol", None), "confirm_action", Some(&approve)).await.unwrap();
        assert_eq!(dropped.to_value()["data"]["done"], false, "{}", dropped.to_json());
    });
}

/// The policy is asked again when an approval runs the queued action, with the approver, the
/// tool and its validated arguments: a decision withdrawn in between refuses the approval, runs
/// nothing and uses nothing up.
#[test]
fn a_policy_decision_withdrawn_before_the_approval_refuses_it() {
    block_on(async {
        let frozen = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (f, s) = (Arc::clone(&frozen), Arc::clone(&seen));
        let toolbox = toolbox().with_policy(move |call: &PolicyRequest<'_>| -> Result<Verdict, PolicyError> {
            s.lock().unwrap().push(json!({"tool": call.tool(), "arguments": call.arguments()}));
            if f.load(Ordering::SeqCst) {
                return Ok(Verdict::deny("the role editor"));
            }
            Ok(if call.tool() == "write_note" { Verdict::Confirm } else { Verdict::Allow })
        });
        let cx = cx(&["notes:write"]);
        let queued = toolbox.call_in(&cx, "write_note", Some(&json!({"title": "plan"}))).await.unwrap().to_value();
        assert_eq!(queued["status"], "needs_confirmation", "{queued}");
        let approval = json!({"pending_action_id": queued["pending_action_id"], "approved": true});

        frozen.store(true, Ordering::SeqCst);
        let refused = toolbox.call_in(&cx, "confirm_action", Some(&approval)).await.unwrap().to_value();
        assert_eq!((&refused["status"], &refused["error_code"]), (&json!("invalid"), &json!("FORBIDDEN")), "{refused}");
        assert_eq!(
            seen.lock().unwrap().last().cloned(),
            Some(json!({"tool": "write_note", "arguments": {"title": "plan"}}))
        );

        // Allowed again: the same id was not used up, and runs once.
        frozen.store(false, Ordering::SeqCst);
        let ran = toolbox.call_in(&cx, "confirm_action", Some(&approval)).await.unwrap().to_value();
        assert_eq!(ran["data"], json!({"title": "plan"}), "{ran}");
        let again = toolbox.call_in(&cx, "confirm_action", Some(&approval)).await.unwrap().to_value();
        assert_eq!(again["error_code"], "CONFLICT", "{again}");
    });
}
