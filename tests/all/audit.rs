//! The audit trail (`Toolbox::with_audit`): an intent before a governed write and its outcome
//! after, paired with the reply by call id; fail closed when the intent cannot be written; a
//! read served and warned; panics, timeouts and dropped calls recorded; `provenance` and
//! `warning` in the replies.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use envelope_core::call::audit::{Audit, AuditError, AuditFuture, AuditRecord, AuditSink};
use envelope_core::{Caller, Context, Envelope, Status, Toolbox, codes, tool};
use serde_json::{Value, json};

use crate::block_on;
use crate::tools as examples;

/// When the sink fails.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fails {
    Never,
    Intents,
    Outcomes,
    Always,
    /// Answers after 2 s (past the audit's timeout).
    Slowly,
    /// Never answers.
    Hangs,
    /// Panics while writing an intent.
    PanicsOnIntents,
}

/// A sink that keeps what it was asked to write (`attempts`) and what it wrote (`records`).
#[derive(Debug)]
struct Kept {
    fails: Mutex<Fails>,
    attempts: Mutex<Vec<AuditRecord>>,
    records: Mutex<Vec<AuditRecord>>,
}

impl Kept {
    fn new(fails: Fails) -> Arc<Self> {
        Arc::new(Kept { fails: Mutex::new(fails), attempts: Mutex::default(), records: Mutex::default() })
    }

    fn records(&self) -> Vec<Value> {
        self.records.lock().unwrap().iter().map(|r| serde_json::from_str(&r.to_json()).unwrap()).collect()
    }

    fn attempts(&self) -> Vec<Value> {
        self.attempts.lock().unwrap().iter().map(|r| serde_json::from_str(&r.to_json()).unwrap()).collect()
    }
}

impl AuditSink for Kept {
    fn write<'a>(&'a self, record: &'a AuditRecord) -> AuditFuture<'a> {
        Box::pin(async move {
            self.attempts.lock().unwrap().push(record.clone());
            let fails = *self.fails.lock().unwrap();
            let intent = record.to_json().starts_with(r#"{"kind":"intent""#);
            match fails {
                Fails::Always => return Err(AuditError::new("disk full")),
                Fails::Intents if intent => return Err(AuditError::new("disk full")),
                Fails::Outcomes if !intent => return Err(AuditError::new("disk full")),
                Fails::Slowly => tokio::time::sleep(Duration::from_secs(2)).await,
                Fails::Hangs => std::future::pending::<()>().await,
                Fails::PanicsOnIntents if intent => panic!("the audit sink broke"),
                _ => {}
            }
            self.records.lock().unwrap().push(record.clone());
            Ok(())
        })
    }
}

fn audited(notes: Arc<examples::NoteStore>, sink: &Arc<Kept>) -> Toolbox {
    examples::toolbox_over(notes)
        .with_audit(Audit::new(sink.clone()).with_timeout(Duration::from_millis(300)))
        .with_provenance()
}

fn alice() -> Context {
    Context::new(Caller::new("alice").with_tenant("acme")).with_surface("internal")
}

fn call_in(toolbox: &Toolbox, cx: &Context, tool: &str, args: Value) -> Envelope {
    block_on(toolbox.call_in(cx, tool, Some(&args))).unwrap()
}

/// Queues a delete of note 1 and approves it: the approval runs the governed write.
fn approve_delete(toolbox: &Toolbox, cx: &Context) -> (String, Envelope) {
    let queued = call_in(toolbox, cx, "delete_note", json!({"note_id": 1}));
    let id = queued.confirmation().unwrap_or_else(|| panic!("{}", queued.to_json())).pending_action_id().to_owned();
    let done = call_in(toolbox, cx, "confirm_action", json!({"pending_action_id": id, "approved": true}));
    (id, done)
}

#[test]
fn a_governed_write_has_an_intent_and_an_outcome_paired_with_the_reply_by_call_id() {
    let notes = Arc::new(examples::NoteStore::default());
    let sink = Kept::new(Fails::Never);
    let toolbox = audited(notes.clone(), &sink);
    let cx = alice();
    call_in(&toolbox, &cx, "create_note", json!({"title": "Plan"}));
    let before = sink.records().len();
    let (id, done) = approve_delete(&toolbox, &cx);
    assert_eq!(done.status(), Status::Ok, "{}", done.to_json());
    let records = sink.records()[before..].to_vec();
    // The preview's outcome, then the approved delete: intent, then outcome.
    assert_eq!(records.len(), 3, "{records:#?}");
    let (intent, outcome) = (&records[1], &records[2]);
    let provenance = done.provenance().unwrap();
    assert_eq!(provenance["call_id"], cx.call_id());
    for r in [intent, outcome] {
        assert_eq!(r["call_id"], cx.call_id());
        assert_eq!(r["tool"], "delete_note");
        assert_eq!(r["tier"], 3);
        assert_eq!(r["surface"], "internal");
        assert_eq!(r["caller"], "alice");
        assert_eq!(r["tenant"], "acme");
        assert_eq!(r["approval"], id);
        assert_eq!(r["replay"], false);
        // A hash of the validated arguments, never their values.
        let hash = envelope_core::call::guard::confirm::sha256_hex(&envelope_core::call::guard::confirm::canonical(
            &json!({"note_id": 1}),
        ));
        assert_eq!(r["arguments_sha256"], hash);
        assert!(r["time"].as_str().unwrap().ends_with('Z'), "{r}");
    }
    assert_eq!(intent["kind"], "intent");
    assert!(intent.get("outcome").is_none() && intent.get("duration_ms").is_none(), "{intent}");
    assert_eq!(outcome["kind"], "outcome");
    // What the approved delete was given, and what it produced.
    assert_eq!(intent["arguments"], json!({"note_id": 1}), "{intent}");
    assert_eq!(outcome["outcome"], json!({"status": "ok", "data": {"deleted": {"id": 1, "title": "Plan"}}}));
    assert!(outcome["duration_ms"].is_u64());
    assert_eq!(
        provenance,
        &json!({"call_id": cx.call_id(), "surface": "internal", "tool": "delete_note", "tier": 3,
                "caller": "alice", "tenant": "acme", "approval": id, "replay": false})
    );
    // The preview's own record: needs_confirmation with its id, no intent (nothing ran).
    assert_eq!(records[0]["outcome"], json!({"status": "needs_confirmation", "pending_action_id": id}));
    assert_eq!(records[0]["tool"], "delete_note");
}

#[test]
fn an_intent_not_written_runs_nothing_and_answers_audit_unavailable() {
    for fails in [Fails::Intents, Fails::Slowly, Fails::Hangs, Fails::PanicsOnIntents] {
        let notes = Arc::new(examples::NoteStore::default());
        let sink = Kept::new(Fails::Never);
        let toolbox = audited(notes.clone(), &sink);
        let cx = alice();
        call_in(&toolbox, &cx, "create_note", json!({"title": "Keep"}));
        let writes = notes.writes();
        *sink.fails.lock().unwrap() = fails;
        let queued = call_in(&toolbox, &cx, "delete_note", json!({"note_id": 1}));
        let id = queued.confirmation().unwrap().pending_action_id().to_owned();
        let refused = call_in(&toolbox, &cx, "confirm_action", json!({"pending_action_id": id, "approved": true}));
        let body = refused.to_value();
        assert_eq!(body["status"], "error", "{fails:?}: {body}");
        assert_eq!(body["error_code"], "AUDIT_UNAVAILABLE");
        assert_eq!((&body["retryable"], &body["retry"]), (&json!(true), &json!("with_backoff")));
        assert_eq!(
            body["message"],
            "recording delete_note in the audit trail before it runs failed: the audit record this write needs could not be written, so the write did not run. Retry with bounded backoff; nothing was done, and the same call succeeds once the audit trail is back."
        );
        assert_eq!(envelope_core::http::status(&refused), 503);
        assert_eq!(notes.writes(), writes, "{fails:?}: the delete ran");
        // The approval was not used up: once the trail is back, it runs once. A sink that
        // passed its timeout is probed again one timeout (300 ms) later.
        *sink.fails.lock().unwrap() = Fails::Never;
        if matches!(fails, Fails::Slowly | Fails::Hangs) {
            std::thread::sleep(Duration::from_millis(310));
        }
        let done = call_in(&toolbox, &cx, "confirm_action", json!({"pending_action_id": id, "approved": true}));
        assert_eq!(done.status(), Status::Ok, "{}", done.to_json());
        assert_eq!(notes.writes(), writes + 1);
    }
}

#[test]
fn an_outcome_not_written_is_still_attempted_and_reported() {
    let notes = Arc::new(examples::NoteStore::default());
    let sink = Kept::new(Fails::Never);
    let toolbox = audited(notes.clone(), &sink);
    let cx = alice();
    call_in(&toolbox, &cx, "create_note", json!({"title": "Gone soon"}));
    *sink.fails.lock().unwrap() = Fails::Outcomes;
    let (_, done) = approve_delete(&toolbox, &cx);
    assert_eq!(done.status(), Status::Ok, "{}", done.to_json());
    assert_eq!(
        done.warning(),
        Some("This call's outcome was not recorded in the audit trail (its intent was): tell the operator.")
    );
    let attempts = sink.attempts();
    let last = attempts.last().unwrap();
    assert_eq!((last["kind"].as_str(), last["call_id"].as_str()), (Some("outcome"), Some(cx.call_id())));
    assert_eq!(last["outcome"], json!({"status": "ok", "data": {"deleted": {"id": 1, "title": "Gone soon"}}}));
    assert_eq!(sink.records().last().unwrap()["kind"], "intent");
}

#[test]
fn a_read_with_a_failing_sink_is_served_and_warned() {
    let sink = Kept::new(Fails::Always);
    let toolbox = audited(Arc::new(examples::NoteStore::default()), &sink);
    let env = call_in(&toolbox, &alice(), "list_notes", json!({}));
    assert_eq!(env.status(), Status::Ok);
    assert_eq!(env.warning(), Some("This call was not recorded in the audit trail."));
    let body = env.to_value();
    assert_eq!(
        body.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["status", "success", "data", "warning", "provenance"]
    );
    assert_eq!(sink.attempts().len(), 1);
    assert_eq!(sink.attempts()[0]["kind"], "outcome");
    assert_eq!(sink.attempts()[0]["tier"], 1);
}

/// Deletes every note; panics on "panic".
#[tool(destructive)]
fn purge(#[validate(choices = ["all", "panic"])] what: String) -> u32 {
    assert!(what != "panic", "purge failed");
    0
}

/// Deletes slowly: past its own timeout.
#[tool(destructive, timeout_ms = 50)]
async fn slow_purge() -> u32 {
    tokio::time::sleep(Duration::from_secs(5)).await;
    0
}

fn purges(sink: &Arc<Kept>) -> Toolbox {
    Toolbox::new().with(purge::tool()).with(slow_purge::tool()).with_audit(Audit::new(sink.clone()))
}

#[test]
fn a_body_that_panics_or_times_out_still_gets_its_outcome_record() {
    let sink = Kept::new(Fails::Never);
    let toolbox = purges(&sink);
    let cx = Context::anonymous();
    let panicked = call_in(&toolbox, &cx, "purge", json!({"what": "panic"}));
    assert_eq!(panicked.error_code(), Some(codes::BACKEND_ERROR));
    let timed_out = block_on(toolbox.call_in(&cx, "slow_purge", None)).unwrap();
    assert_eq!(timed_out.error_code(), Some(codes::TIMEOUT));
    let records = sink.records();
    let kinds: Vec<(&str, &Value)> = records.iter().map(|r| (r["kind"].as_str().unwrap(), &r["outcome"])).collect();
    assert_eq!(
        kinds,
        [
            ("intent", &Value::Null),
            ("outcome", &json!({"status": "error", "error_code": "BACKEND_ERROR"})),
            ("intent", &Value::Null),
            ("outcome", &json!({"status": "error", "error_code": "TIMEOUT"})),
        ]
    );
    // A refusal is recorded as a refusal, without an intent and without a hash.
    let refused = call_in(&toolbox, &cx, "purge", json!({"what": "some"}));
    assert_eq!(refused.status(), Status::Invalid);
    let last = sink.records().pop().unwrap();
    assert_eq!(last["outcome"], json!({"status": "invalid", "error_code": "VALIDATION_ERROR"}));
    assert!(last.get("arguments_sha256").is_none(), "{last}");
    // Governed writes list AUDIT_UNAVAILABLE; the code table has it.
    assert!(toolbox.get("purge").unwrap().spec().error_codes.contains(&codes::AUDIT_UNAVAILABLE));
}

#[test]
fn a_call_dropped_after_its_intent_is_recorded_as_cancelled() {
    let sink = Kept::new(Fails::Never);
    let toolbox = Toolbox::new().with(slow_purge::tool()).with_audit(Audit::new(sink.clone()));
    block_on(async {
        let cx = Context::anonymous();
        let call = toolbox.call_in(&cx, "slow_purge", None);
        assert!(tokio::time::timeout(Duration::from_millis(20), call).await.is_err());
        // The outcome is written from a task of its own.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let records = sink.records();
        assert_eq!(records.len(), 2, "{records:#?}");
        assert_eq!(records[1]["outcome"], json!({"status": "cancelled"}));
        assert_eq!(records[1]["call_id"], cx.call_id());
    });
}

#[test]
fn a_replay_is_recorded_as_one_and_warned() {
    let sink = Kept::new(Fails::Never);
    let toolbox = audited(Arc::new(examples::NoteStore::default()), &sink);
    let args = json!({"title": "Once", "idempotency_key": "audited-key-1"});
    let first = call_in(&toolbox, &alice(), "create_note", args.clone());
    let again = call_in(&toolbox, &alice(), "create_note", args);
    assert_eq!(again.data(), first.data());
    assert!(again.warning().unwrap().starts_with("Answered from the call at 20"), "{}", again.to_json());
    assert_eq!(again.provenance().unwrap()["replay"], true);
    let last = sink.records().pop().unwrap();
    assert_eq!(
        (last["replay"].clone(), last["outcome"].clone()),
        (json!(true), json!({"status": "ok", "data": first.data().unwrap()}))
    );
}

#[test]
fn a_json_lines_file_gets_one_line_per_record() {
    let path = std::env::temp_dir().join(format!("envelope-audit-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let file = envelope_core::call::audit::JsonLinesFile::open(&path).unwrap();
    // Hash-only records: what the call was given is kept as its hash alone.
    let toolbox = Toolbox::new().with(purge::tool()).with_audit(Audit::new(Arc::new(file)).hash_only());
    let cx = Context::new(Caller::new("bob"));
    block_on(async {
        for _ in 0..3 {
            toolbox.call_in(&cx, "purge", Some(&json!({"what": "all"}))).await.unwrap();
        }
    });
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert!(lines.iter().all(|l| l["caller"] == "bob" && l["tool"] == "purge"));
    assert!(!text.contains("\"all\""), "an argument's value in a hash-only trail: {text}");
    assert!(lines.iter().all(|l| l["arguments_sha256"].is_string() && l.get("arguments").is_none()), "{text}");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn over_http_a_sync_write_run_off_the_runtime_is_recorded_and_carries_its_provenance() {
    let sink = Kept::new(Fails::Never);
    let toolbox = Toolbox::new().with(purge::tool()).with_audit(Audit::new(sink.clone())).with_provenance();
    block_on(async {
        let addr = crate::http::serve(envelope_core::http::HttpTools::new(toolbox).router()).await;
        let reply = crate::http::send(addr, "POST", "/tools/purge", &[], r#"{"what": "all"}"#).await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        let body = reply.json();
        let records = sink.records();
        assert_eq!(records.len(), 2, "{records:#?}");
        for r in &records {
            assert_eq!(r["call_id"], body["provenance"]["call_id"]);
            assert_eq!(r["surface"], "http");
        }
        assert_eq!(body["provenance"]["tool"], "purge");
        assert_eq!(body["provenance"]["caller"], Value::Null);
        // Failing before the write: nothing runs, 503 AUDIT_UNAVAILABLE.
        *sink.fails.lock().unwrap() = Fails::Intents;
        let refused = crate::http::send(addr, "POST", "/tools/purge", &[], r#"{"what": "panic"}"#).await;
        assert_eq!(refused.status, 503, "{}", refused.text);
        assert_eq!(refused.json()["error_code"], "AUDIT_UNAVAILABLE");
    });
}

#[test]
fn over_mcp_the_record_and_the_replys_provenance_share_the_call_id() {
    use envelope_core::mcp::{McpServer, serve_io};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let sink = Kept::new(Fails::Never);
    let toolbox = Toolbox::new().with(purge::tool()).with_audit(Audit::new(sink.clone())).with_provenance();
    let replies = block_on(async {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_in, server_out) = tokio::io::split(server);
        let served = tokio::spawn(serve_io(McpServer::new(toolbox), server_in, server_out));
        let (output, mut input) = tokio::io::split(client);
        let mut output = BufReader::new(output);
        let lines = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
                "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "purge", "arguments": {"what": "all"}}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "purge", "arguments": {"what": "panic"}}}),
        ];
        let mut replies = Vec::new();
        for line in lines {
            input.write_all(format!("{line}\n").as_bytes()).await.unwrap();
            if line.get("id").is_some() {
                let mut reply = String::new();
                output.read_line(&mut reply).await.unwrap();
                replies.push(serde_json::from_str::<Value>(&reply).unwrap());
            }
        }
        input.shutdown().await.unwrap();
        drop(input);
        served.await.unwrap().unwrap();
        replies
    });
    let records = sink.records();
    assert_eq!(records.len(), 4, "{records:#?}");
    for (reply, pair) in replies[1..].iter().zip(records.chunks(2)) {
        let envelope = &reply["result"]["structuredContent"];
        let call_id = &envelope["provenance"]["call_id"];
        assert!(call_id.as_str().unwrap().starts_with("call_"), "{reply}");
        assert!(pair.iter().all(|r| &r["call_id"] == call_id), "{pair:#?}");
        assert_eq!(pair[1]["outcome"]["status"], envelope["status"]);
    }
    assert_eq!(records[3]["outcome"], json!({"status": "error", "error_code": "BACKEND_ERROR"}));
    assert_eq!(replies[2]["result"]["isError"], true);
}

#[test]
fn a_runtime_without_timers_still_records_and_runs_a_governed_write() {
    let notes = Arc::new(examples::NoteStore::default());
    let sink = Kept::new(Fails::Never);
    let toolbox = audited(notes.clone(), &sink);
    let cx = alice();
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let created = rt.block_on(toolbox.call_in(&cx, "create_note", Some(&json!({"title": "Keep"})))).unwrap();
    assert_eq!(created.status(), Status::Ok, "{}", created.to_json());
    let queued = rt.block_on(toolbox.call_in(&cx, "delete_note", Some(&json!({"note_id": 1})))).unwrap();
    let id = queued.confirmation().unwrap_or_else(|| panic!("{}", queued.to_json())).pending_action_id().to_owned();
    let approve = json!({"pending_action_id": id, "approved": true});
    let done = rt.block_on(toolbox.call_in(&cx, "confirm_action", Some(&approve))).unwrap();
    assert_eq!(done.status(), Status::Ok, "{}", done.to_json());
    let kinds: Vec<Value> = sink.records().iter().map(|r| r["kind"].clone()).collect();
    assert!(kinds.contains(&json!("intent")) && kinds.contains(&json!("outcome")), "{kinds:?}");
}

// --- one door: every adapter's answer is recorded and carries provenance -----------------------

/// `purge` behind a scope, on an audited toolbox with provenance.
fn scoped_purges(sink: &Arc<Kept>) -> Toolbox {
    Toolbox::new()
        .with(purge::tool())
        .with_tool_scopes("purge", &["ops:purge"])
        .with_audit(Audit::new(sink.clone()))
        .with_provenance()
}

#[test]
fn over_http_a_caller_without_the_scopes_is_recorded_and_carries_provenance() {
    let sink = Kept::new(Fails::Never);
    block_on(async {
        let app = envelope_core::http::HttpTools::new(scoped_purges(&sink)).router();
        let addr = crate::http::serve(app).await;
        let reply = crate::http::send(addr, "POST", "/tools/purge", &[], r#"{"what": "all"}"#).await;
        assert_eq!(reply.status, 403, "{}", reply.text);
        let body = reply.json();
        assert_eq!(body["error_code"], "FORBIDDEN", "{body}");
        assert_eq!(body["provenance"]["tool"], "purge", "{body}");
        let records = sink.records();
        assert_eq!(records.len(), 1, "{records:#?}");
        assert_eq!(records[0]["call_id"], body["provenance"]["call_id"]);
        assert_eq!(records[0]["outcome"]["error_code"], "FORBIDDEN", "{records:#?}");
    });
}

#[test]
fn over_http_a_body_that_is_not_utf8_is_recorded_and_carries_provenance() {
    let sink = Kept::new(Fails::Never);
    let toolbox = Toolbox::new().with(purge::tool()).with_audit(Audit::new(sink.clone())).with_provenance();
    block_on(async {
        let addr = crate::http::serve(envelope_core::http::HttpTools::new(toolbox).router()).await;
        let reply = crate::http::send_bytes(addr, "POST", "/tools/purge", b"{\"what\": \"a\xff\"}").await;
        assert_eq!(reply.status, 400, "{}", reply.text);
        let body = reply.json();
        assert_eq!(body["error_code"], "VALIDATION_ERROR", "{body}");
        assert!(body["message"].as_str().unwrap().contains("the byte at offset 11"), "{body}");
        assert_eq!(body["provenance"]["tool"], "purge", "{body}");
        let records = sink.records();
        assert_eq!(records.len(), 1, "{records:#?}");
        assert_eq!(records[0]["call_id"], body["provenance"]["call_id"]);
        assert_eq!(records[0]["outcome"]["error_code"], "VALIDATION_ERROR", "{records:#?}");
    });
}

/// The records `sink` wrote, once there are `n` (waiting at most a second for records written
/// off the answer's path).
async fn written(sink: &Kept, n: usize) -> Vec<Value> {
    for _ in 0..200 {
        if sink.records().len() >= n {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    sink.records()
}

#[test]
fn a_provider_call_of_a_hidden_tool_is_recorded_as_an_attempt() {
    use envelope_core::call::Surface;
    use envelope_core::providers::{self, Provider};
    let notes = Arc::new(examples::NoteStore::default());
    let sink = Kept::new(Fails::Never);
    let toolbox = audited(notes.clone(), &sink).with_state(Arc::new(examples::Purge(notes)));
    let public = toolbox.on(&Surface::public("public"));
    let cx = Context::new(Caller::new("mallory").with_tenant("acme")).with_call_id("call_hiddenprovider");
    let call = json!({"id": "call_1", "type": "function", "function": {"name": "purge_notes", "arguments": "{}"}});
    let (result, attempts) = block_on(async {
        let result = providers::answer_in(&public, &cx, Provider::OpenAiChat, &call).await;
        // The attempt is written off the answer's path.
        (result, written(&sink, 1).await)
    });
    assert_eq!(result.envelope().error_code(), Some(codes::NOT_FOUND), "{}", result.envelope().to_json());
    assert_eq!(attempts.len(), 1, "{attempts:#?}");
    assert_eq!(
        (&attempts[0]["kind"], &attempts[0]["tool"], &attempts[0]["call_id"]),
        (&json!("attempt"), &json!("purge_notes"), &json!("call_hiddenprovider"))
    );
}

/// An approval retried on MCP 2026-07-28 (`requestState` and `inputResponses`) by a caller
/// without the tool's scopes: refused, recorded, with provenance.
#[test]
fn an_mcp_approval_by_a_caller_without_the_scopes_is_recorded_and_carries_provenance() {
    use envelope_core::mcp::{McpServer, serve_io};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let notes = Arc::new(examples::NoteStore::default());
    let sink = Kept::new(Fails::Never);
    let toolbox = audited(notes, &sink).with_tool_scopes("delete_note", &["notes:admin"]);
    let server = McpServer::new(toolbox).with_caller(Caller::new("bob").with_tenant("acme"));
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    });
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "delete_note", "arguments": {"note_id": 1}, "_meta": meta,
        "requestState": "act_forged", "inputResponses": {"approval": {"action": "accept", "content": {"approved": true}}}}});
    let reply = block_on(async {
        let (client, server_side) = tokio::io::duplex(1 << 16);
        let (server_in, server_out) = tokio::io::split(server_side);
        let served = tokio::spawn(serve_io(server, server_in, server_out));
        let (output, mut input) = tokio::io::split(client);
        let mut output = BufReader::new(output);
        input.write_all(format!("{call}\n").as_bytes()).await.unwrap();
        let mut reply = String::new();
        output.read_line(&mut reply).await.unwrap();
        input.shutdown().await.unwrap();
        drop(input);
        served.await.unwrap().unwrap();
        serde_json::from_str::<Value>(&reply).unwrap()
    });
    let envelope = &reply["result"]["structuredContent"];
    assert_eq!(envelope["error_code"], "FORBIDDEN", "{reply}");
    assert_eq!(envelope["provenance"]["tool"], "delete_note", "{reply}");
    let records = sink.records();
    assert_eq!(records.len(), 1, "{records:#?}");
    assert_eq!(records[0]["call_id"], envelope["provenance"]["call_id"]);
    assert_eq!(records[0]["outcome"]["error_code"], "FORBIDDEN", "{records:#?}");
}

// --- the code table: an audit outage is retried with backoff --------------------------------

static CHARGES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Charges a card once per key: a governed write (tier 3) under an idempotency key.
#[tool(destructive, idempotency_key)]
fn charge(#[validate(range = 1..=1000)] cents: u32) -> u32 {
    CHARGES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    cents
}

#[test]
fn an_audit_outage_is_retried_with_backoff_and_the_same_keyed_call_then_runs_once() {
    let sink = Kept::new(Fails::Intents);
    let toolbox = Toolbox::new().with(charge::tool()).with_audit(Audit::new(sink.clone()));
    let args = json!({"cents": 250, "idempotency_key": "order-17"});
    let refused = block_on(toolbox.call("charge", Some(&args))).unwrap();
    let body = refused.to_value();
    assert_eq!(
        (&body["status"], &body["error_code"], &body["retryable"], &body["retry"]),
        (&json!("error"), &json!("AUDIT_UNAVAILABLE"), &json!(true), &json!("with_backoff")),
        "{body}"
    );
    assert_eq!(envelope_core::http::status(&refused), 503);
    // The key was not used up: once the trail is back, the same call runs, once.
    *sink.fails.lock().unwrap() = Fails::Never;
    let done = block_on(toolbox.call("charge", Some(&args))).unwrap();
    assert_eq!((done.status(), done.data()), (Status::Ok, Some(&json!(250))), "{}", done.to_json());
    let replayed = block_on(toolbox.call("charge", Some(&args))).unwrap();
    assert!(replayed.warning().is_some_and(|w| w.starts_with("Answered from the call at")), "{}", replayed.to_json());
    assert_eq!(CHARGES.load(std::sync::atomic::Ordering::SeqCst), 1, "the charge ran other than once");
}

/// What happened, in the record: the outcome of a governed write names what it was given (its
/// validated arguments, a secret parameter left out) and what it produced (its `data`), and a
/// secret is in no record; an answer past the data limit is kept as its hash and size.
#[test]
fn an_outcome_record_says_what_was_given_and_produced_and_never_a_secret() {
    let sink = Kept::new(Fails::Never);
    let toolbox = audited(Arc::new(examples::NoteStore::default()), &sink);
    let cx = alice();
    let created = call_in(&toolbox, &cx, "create_note", json!({"title": "Plan", "tags": ["q3"]}));
    let id = created.data().unwrap()["id"].clone();
    let record = sink.records().pop().unwrap();
    assert_eq!(record["kind"], "outcome");
    assert_eq!(record["arguments"], json!({"title": "Plan", "tags": ["q3"], "pinned": false}), "{record}");
    assert_eq!(record["outcome"]["status"], "ok");
    assert_eq!(record["outcome"]["data"]["id"], id, "{record}");
    assert_eq!(record["outcome"]["data"]["title"], "Plan");

    let secret = "sk-abcdefghijklmnop1234";
    let set = call_in(&toolbox, &cx, "set_threshold", json!({"ratio": 0.25, "api_key": secret}));
    assert_eq!(set.status(), Status::Ok, "{}", set.to_json());
    let record = sink.records().pop().unwrap();
    assert_eq!(record["arguments"], json!({"ratio": 0.25}), "{record}");
    assert_eq!(record["outcome"]["data"], json!({"ratio": 0.25}));
    for r in sink.attempts() {
        assert!(!r.to_string().contains("abcdefghijklmnop"), "a secret in a record: {r}");
    }

    // Past the data limit: the answer's hash and size, not the answer.
    let sink = Kept::new(Fails::Never);
    let small = examples::toolbox_over(Arc::new(examples::NoteStore::default()))
        .with_audit(Audit::new(sink.clone()).with_data_limit(16));
    let created = block_on(small.call_in(&cx, "create_note", Some(&json!({"title": "A longer title"})))).unwrap();
    let outcome = &sink.records().pop().unwrap()["outcome"];
    assert!(outcome.get("data").is_none(), "{outcome}");
    assert_eq!(outcome["data_bytes"], serde_json::to_string(created.data().unwrap()).unwrap().len(), "{outcome}");
    assert_eq!(outcome["data_sha256"].as_str().map(str::len), Some(64), "{outcome}");
}

/// A path that cannot be appended to is refused at open, not at the first governed write:
/// `/proc/version` (which a process running as root opens, then fails every write), a
/// read-only file, a directory.
#[test]
fn an_unwritable_audit_path_is_refused_at_open() {
    use envelope_core::call::audit::JsonLinesFile;
    let dir = std::env::temp_dir().join(format!("envelope-audit-ro-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let read_only = dir.join("read-only.jsonl");
    std::fs::write(&read_only, "").unwrap();
    let mut perms = std::fs::metadata(&read_only).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&read_only, perms).unwrap();
    for path in [std::path::Path::new("/proc/version"), &read_only, &dir] {
        assert!(JsonLinesFile::open(path).is_err(), "{} was opened", path.display());
    }
    assert!(JsonLinesFile::open(dir.join("writable.jsonl")).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A sink that never answers.
#[derive(Debug)]
struct Stalled;

impl AuditSink for Stalled {
    fn write<'a>(&'a self, _record: &'a AuditRecord) -> AuditFuture<'a> {
        Box::pin(std::future::pending())
    }
}

/// A call of a tool hidden on the surface is answered as a name no tool has, without waiting for
/// the audit sink: with a sink that never answers (its 1 s timeout), both answer in well under
/// 100 ms (the hidden one waited the whole second when its attempt was written first).
#[test]
fn a_hidden_tool_answers_without_waiting_for_a_stalled_sink() {
    use envelope_core::call::Surface;
    let notes = Arc::new(examples::NoteStore::default());
    let toolbox = examples::toolbox_over(notes.clone())
        .with_state(Arc::new(examples::Purge(notes)))
        .with_audit(Audit::new(Arc::new(Stalled)));
    let public = toolbox.on(&Surface::public("public"));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        for name in ["purge_notes", "no_such_tool"] {
            let started = std::time::Instant::now();
            let refused = public.call_in(&Context::anonymous(), name, None).await.unwrap_err();
            let took = started.elapsed();
            assert!(refused.to_string().contains(name), "{refused}");
            assert!(took < Duration::from_millis(100), "{name}: {took:?}");
        }
    });
}

/// Once a write passes its timeout, the sink is not waited for again until it answers: 20
/// governed writes on a sink that never answers (timeout 100 ms) take one timeout and a probe
/// per period, not 20 timeouts (2 s when each waited); each is `AUDIT_UNAVAILABLE`, retried
/// with backoff, and runs nothing.
#[test]
fn a_stalled_sink_is_detected_once_and_failed_fast() {
    let toolbox = Toolbox::new()
        .with(purge::tool())
        .with_audit(Audit::new(Arc::new(Stalled)).with_timeout(Duration::from_millis(100)));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let started = std::time::Instant::now();
        for _ in 0..20 {
            let env = toolbox.call("purge", Some(&json!({"what": "all"}))).await.unwrap();
            assert_eq!(env.error_code(), Some(codes::AUDIT_UNAVAILABLE), "{}", env.to_json());
            assert_eq!(env.to_value()["retry"], "with_backoff");
        }
        let took = started.elapsed();
        assert!(took < Duration::from_millis(800), "20 writes on a stalled sink took {took:?}");
    });
}

/// A JSON-lines file that stopped taking writes (a FIFO whose reader stopped reading) holds at
/// most `MAX_FILE_WRITERS` blocking threads: of 200 writes at once, the others fail at once
/// (each took a blocking thread of its own before, 516 threads measured).
#[test]
fn a_stalled_audit_file_holds_a_bounded_number_of_threads() {
    use envelope_core::call::audit::{JsonLinesFile, MAX_FILE_WRITERS};
    use std::os::unix::fs::OpenOptionsExt as _;
    const O_NONBLOCK: i32 = 0o4000; // Linux
    let dir = std::env::temp_dir().join(format!("envelope-audit-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("trail");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = std::fs::OpenOptions::new().read(true).custom_flags(O_NONBLOCK).open(&fifo).unwrap();
    let file = Arc::new(JsonLinesFile::open(&fifo).unwrap());
    // Fill the pipe, so the next write blocks.
    let mut filler = std::fs::OpenOptions::new().write(true).custom_flags(O_NONBLOCK).open(&fifo).unwrap();
    while std::io::Write::write(&mut filler, &[b' '; 4096]).is_ok() {}
    // A record to write: one a call gave a keeping sink.
    let kept = Kept::new(Fails::Never);
    block_on(purges(&kept).call("purge", Some(&json!({"what": "all"})))).unwrap();
    let record = kept.attempts.lock().unwrap()[0].clone();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (failed_fast, waited) = rt.block_on(async {
        let writes = (0..200).map(|_| {
            let (file, record) = (Arc::clone(&file), record.clone());
            tokio::spawn(
                async move { tokio::time::timeout(Duration::from_millis(300), file.write(&record)).await.is_ok() },
            )
        });
        let mut answered = 0;
        let writes: Vec<_> = writes.collect();
        for w in writes {
            answered += usize::from(w.await.unwrap());
        }
        (answered, 200 - answered)
    });
    assert_eq!(waited, MAX_FILE_WRITERS, "{failed_fast} failed at once");
    // The reader gone, the waiting writes end (broken pipe) and give their threads back.
    drop(reader);
    drop(rt);
    std::fs::remove_dir_all(&dir).unwrap();
}
