//! Two replicas of the example server sharing one real Redis (`RedisStore`): an approval queued
//! on one is confirmed on the other, a key replayed on one answers the other's envelope, and one
//! approval confirmed on both at once runs once. The replicas share the note store too, as
//! replicas share a database; each has its own toolbox, Redis connection and secret copy.
//!
//! Needs a running Redis: `cargo test --features redis --test redis`, with
//! `ENVELOPE_TEST_REDIS_URL` (default `redis://127.0.0.1:6379/`). `.ci/run` installs and starts
//! one. Without a reachable Redis these tests fail; they never skip.
#![cfg(feature = "redis")]

#[path = "../examples/tools/mod.rs"]
#[allow(dead_code)]
mod tools;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use envelope_core::Toolbox;
use envelope_core::store::RedisStore;
use serde_json::{Value, json};

const SECRET: &str = "a secret both replicas hold, 32 bytes or more";

fn url() -> String {
    std::env::var("ENVELOPE_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/".to_owned())
}

/// Two replicas over one note store and one Redis, under a key prefix of this test run.
async fn replicas() -> (Toolbox, Toolbox, Arc<tools::NoteStore>) {
    let run = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    let prefix = format!("envelope-test-{run}:");
    let mut boxes = Vec::new();
    let notes = Arc::new(tools::NoteStore::default());
    for _ in 0..2 {
        let store = RedisStore::connect(&url())
            .await
            .unwrap_or_else(|e| panic!("these tests need Redis at {} (ENVELOPE_TEST_REDIS_URL): {e}", url()))
            .with_prefix(prefix.clone());
        boxes.push(tools::toolbox_over(notes.clone()).with_store(Arc::new(store)).with_secret(SECRET).unwrap());
    }
    let b = boxes.pop().unwrap();
    let a = boxes.pop().unwrap();
    (a, b, notes)
}

async fn call(toolbox: &Toolbox, tool: &str, args: Value) -> Value {
    toolbox.call(tool, Some(&args)).await.unwrap().to_value()
}

async fn note(toolbox: &Toolbox, title: &str) -> u64 {
    call(toolbox, "create_note", json!({ "title": title })).await["data"]["id"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_queued_on_one_replica_is_confirmed_on_the_other() {
    let (a, b, notes) = replicas().await;
    let id = note(&a, "shared").await;
    let writes = notes.writes();
    let queued = call(&a, "delete_note", json!({ "note_id": id })).await;
    assert_eq!(queued["status"], "needs_confirmation", "{queued}");
    let pending = queued["pending_action_id"].as_str().unwrap();
    let done = call(&b, "confirm_action", json!({"pending_action_id": pending, "approved": true})).await;
    assert_eq!(done, json!({"status": "ok", "success": true, "data": {"deleted": {"id": id, "title": "shared"}}}));
    assert_eq!(notes.writes(), writes + 1);
    // Used, on either replica.
    for replica in [&a, &b] {
        let again = call(replica, "confirm_action", json!({"pending_action_id": pending, "approved": true})).await;
        assert_eq!(again["error_code"], "CONFLICT", "{again}");
    }
    // A rejection on B uses up an id queued on A.
    let id = note(&a, "kept").await;
    let queued = call(&a, "delete_note", json!({ "note_id": id })).await;
    let pending = queued["pending_action_id"].as_str().unwrap();
    let rejected = call(&b, "confirm_action", json!({"pending_action_id": pending, "approved": false})).await;
    assert_eq!(rejected["data"], json!({"done": false, "reason": "rejected"}));
    let late = call(&a, "confirm_action", json!({"pending_action_id": pending, "approved": true})).await;
    assert_eq!(late["error_code"], "CONFLICT");
    assert_eq!(call(&b, "list_notes", json!({})).await["data"][0]["title"], "kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_replayed_on_one_replica_answers_the_others_envelope() {
    let (a, b, notes) = replicas().await;
    let args = json!({"title": "once", "tags": ["x"], "idempotency_key": "replica-key-0001"});
    let first = call(&a, "create_note", args.clone()).await;
    assert_eq!(first["status"], "ok");
    let replayed = call(&b, "create_note", args).await;
    assert_eq!(replayed, first);
    assert_eq!(notes.writes(), 1);
    let conflict = call(&b, "create_note", json!({"title": "other", "idempotency_key": "replica-key-0001"})).await;
    assert_eq!(conflict["error_code"], "IDEMPOTENCY_CONFLICT");
    assert!(
        conflict["message"]
            .as_str()
            .unwrap()
            .starts_with("idempotency_key: \"replica-key-0001\" was used with other arguments")
    );
    assert_eq!(notes.writes(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_approval_confirmed_on_both_replicas_at_once_runs_once() {
    let (a, b, notes) = replicas().await;
    let mut pending = Vec::new();
    for i in 0..20 {
        let id = note(&a, &format!("n{i}")).await;
        let queued = call(if i % 2 == 0 { &a } else { &b }, "delete_note", json!({ "note_id": id })).await;
        pending.push(queued["pending_action_id"].as_str().unwrap().to_owned());
    }
    let writes = notes.writes();
    for id in &pending {
        let args = json!({"pending_action_id": id, "approved": true});
        let (x, y) = tokio::join!(
            tokio::spawn({
                let (a, args) = (a.clone(), args.clone());
                async move { call(&a, "confirm_action", args).await }
            }),
            tokio::spawn({
                let (b, args) = (b.clone(), args.clone());
                async move { call(&b, "confirm_action", args).await }
            }),
        );
        let (x, y) = (x.unwrap(), y.unwrap());
        let mut statuses = [x["status"].as_str().unwrap().to_owned(), y["status"].as_str().unwrap().to_owned()];
        statuses.sort();
        assert_eq!(statuses, ["invalid", "ok"], "{x} {y}");
        let refused = if x["status"] == "ok" { &y } else { &x };
        assert_eq!(refused["error_code"], "CONFLICT");
    }
    // Counted writes: one delete per approval, 20 in all.
    assert_eq!(notes.writes(), writes + 20);
    assert_eq!(call(&a, "list_notes", json!({})).await["data"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_key_sent_to_both_replicas_at_once_writes_once() {
    let (a, b, notes) = replicas().await;
    for i in 0..10 {
        let args = json!({"title": format!("t{i}"), "idempotency_key": format!("both-at-once-{i:04}")});
        let (x, y) = tokio::join!(call(&a, "create_note", args.clone()), call(&b, "create_note", args));
        // The second waited for the first one's envelope.
        assert_eq!(x, y);
        assert_eq!(x["status"], "ok");
    }
    assert_eq!(notes.writes(), 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_redis_is_an_error_at_start_up() {
    let err = RedisStore::connect("redis://127.0.0.1:1/").await.unwrap_err();
    assert!(err.to_string().starts_with("store failed: connecting to redis://127.0.0.1:1/"), "{err}");
    // Records kept by Redis expire by Redis's own clock (PX).
    let (a, _, _) = replicas().await;
    let a = a.with_confirmation_ttl(Duration::from_secs(1));
    let id = note(&a, "brief").await;
    let queued = call(&a, "delete_note", json!({ "note_id": id })).await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let late =
        call(&a, "confirm_action", json!({"pending_action_id": queued["pending_action_id"], "approved": true})).await;
    assert_eq!(late["error_code"], "NOT_FOUND");
}
