//! The approval and idempotency store under a flood and under Redis faults, with the example
//! tools (`delete_note` waits for approval, `create_note` takes an idempotency key):
//!
//! - 10 000 previews and 1 500 keyed writes from one caller leave an earlier pending approval
//!   confirmable and an earlier key replaying without a second write; past the bound a new one
//!   is refused with `RATE_LIMITED`, as a caller sees it through `Toolbox` and over HTTP;
//! - a Redis that is down, or that stops answering, answers `BACKEND_ERROR` within about a
//!   second per call (a stand-in speaking just enough of the protocol, on loopback);
//! - a claim written after its call gave up on it does not hold its key.
//!
//! Tests against a real Redis are in tests/redis.rs.

use crate::tools;

use crate::client as http_client;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use envelope_core::Toolbox;
use envelope_core::call::guard::store::{
    Admission, Capacity, Limits, MemoryStore, RedisStore, Store, StoreError, StoreFuture,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

const SECRET: &str = "a secret the hostile store tests share, 32 bytes+";

async fn call(toolbox: &Toolbox, tool: &str, args: Value) -> Value {
    toolbox.call(tool, Some(&args)).await.unwrap().to_value()
}

async fn note(toolbox: &Toolbox, title: &str) -> u64 {
    let created = call(toolbox, "create_note", json!({ "title": title })).await;
    created["data"]["id"].as_u64().unwrap_or_else(|| panic!("{created}"))
}

// --- a flood of previews and keys ------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_previews_leave_an_approval_confirmable_and_a_key_replaying() {
    let notes = Arc::new(tools::NoteStore::default());
    let store = Arc::new(MemoryStore::default());
    let toolbox = tools::toolbox_over(notes.clone()).with_store(store.clone());
    // A person's write under a key, and a delete waiting for their approval.
    let keyed = json!({"title": "the person's note", "idempotency_key": "person-key-0001"});
    let first = call(&toolbox, "create_note", keyed.clone()).await;
    assert_eq!(first["status"], "ok", "{first}");
    let kept = first["data"]["id"].as_u64().unwrap();
    let doomed = note(&toolbox, "to delete").await;
    let queued = call(&toolbox, "delete_note", json!({ "note_id": doomed })).await;
    let pending = queued["pending_action_id"].as_str().unwrap().to_owned();
    let target = note(&toolbox, "the flood's target").await;
    let writes = notes.writes();

    let started = Instant::now();
    let (mut queued_n, mut refused) = (0, Vec::new());
    for _ in 0..10_000 {
        let env = call(&toolbox, "delete_note", json!({ "note_id": target })).await;
        match env["status"].as_str() {
            Some("needs_confirmation") => queued_n += 1,
            _ => refused.push(env),
        }
    }
    let (mut written, mut keys_refused) = (0, 0);
    for i in 0..1_500 {
        let env =
            call(&toolbox, "create_note", json!({"title": "flood", "idempotency_key": format!("flood-{i:06}")})).await;
        match env["status"].as_str() {
            Some("ok") => written += 1,
            _ => {
                assert_eq!(env["error_code"], "RATE_LIMITED", "{env}");
                keys_refused += 1;
            }
        }
    }
    eprintln!("10 000 previews and 1 500 keyed writes in {:?}", started.elapsed());
    // Every caller is one caller today: 1 000 pending actions of it (the person's among them),
    // 1 000 idempotency records.
    assert_eq!(queued_n, 999);
    assert_eq!(refused.len(), 10_000 - 999);
    assert_eq!((written, keys_refused), (999, 501));
    // A refused keyed write wrote nothing.
    assert_eq!(notes.writes(), writes + 999);
    assert!(store.len() <= 2_000, "{} records", store.len());

    // The refusal, as a caller sees it.
    let refusal = &refused[0];
    let wait = refusal["hints"]["retry_after_ms"].as_u64().unwrap();
    assert!(wait > 14 * 60_000 && wait <= 15 * 60_000, "until the person's action expires: {wait} ms");
    assert_eq!(
        refusal,
        &json!({
            "status": "invalid",
            "success": false,
            "error_code": "RATE_LIMITED",
            "message": "arguments: cannot be queued for approval, so nothing was done: 1000 actions of this caller already wait for approval, the most one caller may have waiting; accepted: this call once fewer than 1000 of this caller's actions wait (each waits at most 15 minutes). Send this call again in 15 minutes (hints.retry_after_ms), when the oldest expires.",
            "hints": {
                "parameter": "arguments",
                "accepted": "this call once fewer than 1000 of this caller's actions wait (each waits at most 15 minutes)",
                "fix": "Send this call again in 15 minutes (hints.retry_after_ms), when the oldest expires.",
                "retry_after_ms": wait
            },
            "retryable": true, "retry": "after_delay"
        })
    );
    let key_refused = call(&toolbox, "create_note", json!({"title": "late", "idempotency_key": "flood-late-01"})).await;
    assert_eq!(
        key_refused["message"],
        "idempotency_key: \"flood-late-01\" cannot be recorded, so nothing was written: 1000 idempotency keys of this caller are kept, the most one caller may have kept; accepted: a new idempotency_key once fewer than 1000 of this caller's keys are kept (each is kept 24 hours). Send this call again in 24 hours (hints.retry_after_ms), when the oldest key expires."
    );
    assert_eq!(key_refused["retryable"], true);

    // The person's approval still runs, once.
    let done = call(&toolbox, "confirm_action", json!({"pending_action_id": pending, "approved": true})).await;
    assert_eq!(
        done,
        json!({"status": "ok", "success": true, "data": {"deleted": {"id": doomed, "title": "to delete"}}})
    );
    // The person's key still replays, without a second write.
    let writes = notes.writes();
    let replayed = replayed(call(&toolbox, "create_note", keyed).await);
    assert_eq!(replayed, first);
    assert_eq!(notes.writes(), writes);
    let titles = call(&toolbox, "list_notes", json!({})).await;
    assert!(titles["data"].as_array().unwrap().iter().any(|n| n["id"] == kept));
    // Decided, the person's action keeps its place until its id expires (a second confirm
    // answers CONFLICT): the flood still waits.
    let again = call(&toolbox, "confirm_action", json!({"pending_action_id": pending, "approved": true})).await;
    assert_eq!(again["error_code"], "CONFLICT", "{again}");
    let more = call(&toolbox, "delete_note", json!({ "note_id": target })).await;
    assert_eq!(more["error_code"], "RATE_LIMITED", "{more}");
}

/// 10 000 distinct callers each store one keyed write, filling the store's bound in all of
/// idempotency records; another caller's keyed write is then served (a settled record of the
/// oldest holders gives way), not refused for a day (before: `RATE_LIMITED`, 24 hours; then 1 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_callers_storing_a_key_each_leave_another_callers_key_served() {
    use envelope_core::{Caller, Context};
    let notes = Arc::new(tools::NoteStore::default());
    let store = Arc::new(MemoryStore::default());
    let toolbox = tools::toolbox_over(notes.clone()).with_store(store.clone());
    let started = Instant::now();
    for i in 0..10_000 {
        let cx = Context::new(Caller::new(format!("caller-{i:05}")));
        let args = json!({"title": "one", "idempotency_key": format!("key-of-{i:05}")});
        let env = toolbox.call_in(&cx, "create_note", Some(&args)).await.unwrap().to_value();
        assert_eq!(env["status"], "ok", "{i}: {env}");
    }
    eprintln!("10 000 callers' keyed writes in {:?}", started.elapsed());
    assert_eq!(store.len(), 10_000);
    let cx = Context::new(Caller::new("another"));
    let args = json!({"title": "mine", "idempotency_key": "another-key-01"});
    let env = toolbox.call_in(&cx, "create_note", Some(&args)).await.unwrap().to_value();
    assert_eq!(env["status"], "ok", "{env}");
    assert_eq!(env["data"]["title"], "mine");
    // Its key replays: its record is kept.
    let writes = notes.writes();
    let again = toolbox.call_in(&cx, "create_note", Some(&args)).await.unwrap().to_value();
    assert_eq!(again["status"], "ok", "{again}");
    assert_eq!(notes.writes(), writes);
    assert_eq!(store.len(), 10_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_the_bound_is_a_429_with_its_delay() {
    let limits = Limits::default()
        .with_pending_actions(Capacity { total: 10, per_caller: 2 })
        .with_idempotency_records(Capacity { total: 10, per_caller: 2 });
    let store = Arc::new(MemoryStore::default().with_limits(limits));
    let toolbox = tools::toolbox().with_store(store).with_confirmation_ttl(Duration::from_secs(90));
    let target = note(&toolbox, "target").await;
    let app = envelope_core::http::HttpTools::new(toolbox).router();
    let addr = http_client::serve(app).await;
    let body = json!({ "note_id": target }).to_string();
    for _ in 0..2 {
        let reply = http_client::send(addr, "POST", "/tools/delete_note", &[], &body).await;
        assert_eq!(reply.status, 202, "{}", reply.text);
    }
    let reply = http_client::send(addr, "POST", "/tools/delete_note", &[], &body).await;
    assert_eq!(reply.status, 429, "{}", reply.text);
    let env = reply.json();
    assert_eq!(env["error_code"], "RATE_LIMITED");
    assert_eq!(env["retryable"], true);
    assert_eq!(
        env["message"],
        "arguments: cannot be queued for approval, so nothing was done: 2 actions of this caller already wait for approval, the most one caller may have waiting; accepted: this call once fewer than 2 of this caller's actions wait (each waits at most 90 seconds). Send this call again in 90 seconds (hints.retry_after_ms), when the oldest expires."
    );
    let wait = env["hints"]["retry_after_ms"].as_u64().unwrap();
    assert!(wait > 80_000 && wait <= 90_000, "{wait}");
    assert_eq!(reply.header("retry-after"), Some(wait.div_ceil(1000).to_string().as_str()));
    // The manifest lists the code for both kinds of tool.
    let manifest = http_client::send(addr, "GET", "/manifest", &[], "").await.json();
    for tool in ["delete_note", "create_note"] {
        let entry = manifest["tools"].as_array().unwrap().iter().find(|t| t["name"] == tool).unwrap();
        assert!(
            entry["error_codes"].as_array().unwrap().contains(&json!({"code": "RATE_LIMITED", "retryable": true})),
            "{tool}: {}",
            entry["error_codes"]
        );
    }
}

// --- a claim whose outcome is unknown --------------------------------------------------------

/// A store that writes an admission and then answers as if it had timed out: what a Redis that
/// stalled past the deadline does with a `SET NX` it applies late.
#[derive(Debug)]
struct LateAnswers {
    inner: MemoryStore,
    late: AtomicBool,
}

impl Store for LateAnswers {
    fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        self.inner.put_new(key, value, ttl)
    }
    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        self.inner.put(key, value, ttl)
    }
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        self.inner.get(key)
    }
    fn remove<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
        self.inner.remove(key)
    }
    fn admit<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration, who: Admission<'a>) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let applied = self.inner.admit(key, value, ttl, who).await?;
            if self.late.swap(false, Ordering::SeqCst) {
                return Err(StoreError::new("no answer within 1000 ms"));
            }
            Ok(applied)
        })
    }
    fn replace_if<'a>(
        &'a self,
        key: &'a str,
        expected: &'a str,
        new: Option<&'a str>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        self.inner.replace_if(key, expected, new, ttl)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_applied_after_its_call_gave_up_does_not_hold_the_key() {
    let notes = Arc::new(tools::NoteStore::default());
    let store = Arc::new(LateAnswers { inner: MemoryStore::default(), late: AtomicBool::new(true) });
    let toolbox = tools::toolbox_over(notes.clone()).with_store(store.clone());
    let args = json!({"title": "once", "idempotency_key": "late-claim-0001"});
    let failed = call(&toolbox, "create_note", args.clone()).await;
    assert_eq!(failed["error_code"], "BACKEND_ERROR", "{failed}");
    assert_eq!(failed["hints"]["operation"], "claiming the idempotency key");
    assert_eq!(notes.writes(), 0);
    // The retry runs now: it neither waits for the claim's lease nor answers IN_PROGRESS.
    let started = Instant::now();
    let retried = call(&toolbox, "create_note", args.clone()).await;
    assert_eq!(retried["status"], "ok", "{retried}");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(notes.writes(), 1);
    assert_eq!(replayed(call(&toolbox, "create_note", args).await), retried);
    assert_eq!(notes.writes(), 1);
    // The same for a pending action: the late record is taken back, not left counted.
    store.late.store(true, Ordering::SeqCst);
    let id = note(&toolbox, "n").await;
    let failed = call(&toolbox, "delete_note", json!({ "note_id": id })).await;
    assert_eq!(failed["hints"]["operation"], "queueing the action for approval", "{failed}");
    tokio::time::sleep(Duration::from_millis(50)).await;
    // Left: the idempotency record. Taken back: the pending action.
    assert_eq!(store.inner.len(), 1);
}

// --- Redis down or stalled -------------------------------------------------------------------

/// A stand-in for Redis on a loopback port: answers `+OK` to every command (enough for the
/// client's connection handshake) until it goes silent (reads, never answers) or down (drops
/// every connection and stops listening).
struct FakeRedis {
    addr: std::net::SocketAddr,
    silent: Arc<AtomicBool>,
    tasks: Arc<std::sync::Mutex<Vec<JoinHandle<()>>>>,
}

impl FakeRedis {
    async fn start() -> FakeRedis {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let silent = Arc::new(AtomicBool::new(false));
        let tasks: Arc<std::sync::Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let accept = tokio::spawn({
            let (silent, tasks) = (silent.clone(), tasks.clone());
            async move {
                while let Ok((sock, _)) = listener.accept().await {
                    let conn = tokio::spawn(answer(sock, silent.clone()));
                    tasks.lock().unwrap().push(conn);
                }
            }
        });
        tasks.lock().unwrap().push(accept);
        FakeRedis { addr, silent, tasks }
    }

    fn url(&self) -> String {
        format!("redis://{}/", self.addr)
    }

    /// Reads every command and answers none, on open and new connections.
    fn go_silent(&self) {
        self.silent.store(true, Ordering::SeqCst);
    }

    /// Closes every connection and the port.
    fn go_down(&self) {
        for task in self.tasks.lock().unwrap().drain(..) {
            task.abort();
        }
    }
}

async fn answer(mut sock: TcpStream, silent: Arc<AtomicBool>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = match sock.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        buf.extend_from_slice(&chunk[..n]);
        while let Some(used) = one_command(&buf) {
            buf.drain(..used);
            if !silent.load(Ordering::SeqCst) && sock.write_all(b"+OK\r\n").await.is_err() {
                return;
            }
        }
    }
}

/// The length of the first whole command in `buf` (RESP: `*N` then N bulk strings).
fn one_command(buf: &[u8]) -> Option<usize> {
    fn line(buf: &[u8], at: usize) -> Option<(&[u8], usize)> {
        let end = buf.get(at..)?.windows(2).position(|w| w == b"\r\n")? + at;
        Some((&buf[at..end], end + 2))
    }
    let (head, mut at) = line(buf, 0)?;
    let n: usize = std::str::from_utf8(head.strip_prefix(b"*")?).ok()?.parse().ok()?;
    for _ in 0..n {
        let (len, next) = line(buf, at)?;
        let len: usize = std::str::from_utf8(len.strip_prefix(b"$")?).ok()?.parse().ok()?;
        at = next + len + 2;
        if buf.len() < at {
            return None;
        }
    }
    Some(at)
}

/// The example toolbox over a Redis at `url`, and a `confirm_action` argument whose id is
/// authentic and unexpired (queued on a twin over memory with the same secret), so each call
/// reaches the store.
async fn over_redis(url: &str) -> (Toolbox, Value) {
    let store = RedisStore::connect(url).await.unwrap();
    let twin = tools::toolbox().with_secret(SECRET).unwrap();
    let id = note(&twin, "n").await;
    let queued = call(&twin, "delete_note", json!({ "note_id": id })).await;
    let confirm = json!({"pending_action_id": queued["pending_action_id"], "approved": true});
    (tools::toolbox().with_store(Arc::new(store)).with_secret(SECRET).unwrap(), confirm)
}

/// Each store-backed call: its envelope's code and operation, and how long it took.
async fn every_store_call(toolbox: &Toolbox, confirm: &Value, round: usize) -> Vec<(String, Duration)> {
    let id = note(toolbox, "n").await;
    let calls = [
        ("create_note", json!({"title": "t", "idempotency_key": format!("down-key-{round:04}")})),
        ("delete_note", json!({ "note_id": id })),
        ("confirm_action", confirm.clone()),
    ];
    let mut out = Vec::new();
    for (tool, args) in calls {
        let started = Instant::now();
        let env = call(toolbox, tool, args).await;
        let took = started.elapsed();
        assert_eq!(env["error_code"], "BACKEND_ERROR", "{tool}: {env}");
        out.push((format!("{tool}: {}", env["hints"]["operation"]), took));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_down_answers_within_a_second_per_call() {
    let fake = FakeRedis::start().await;
    let (toolbox, confirm) = over_redis(&fake.url()).await;
    fake.go_down();
    for round in 0..3 {
        for (what, took) in every_store_call(&toolbox, &confirm, round).await {
            eprintln!("redis down, {what}: {took:?}");
            // The deadline is 1 s; the old reconnection loop took 9.45 s per call.
            assert!(took < Duration::from_millis(1500), "{what} took {took:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_that_stops_answering_answers_within_a_second_per_call() {
    let fake = FakeRedis::start().await;
    let (toolbox, confirm) = over_redis(&fake.url()).await;
    fake.go_silent();
    for (what, took) in every_store_call(&toolbox, &confirm, 0).await {
        eprintln!("redis silent, {what}: {took:?}");
        assert!(took >= Duration::from_millis(900) && took < Duration::from_millis(1500), "{what} took {took:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_that_accepts_and_never_answers_cannot_hold_a_connect() {
    let fake = FakeRedis::start().await;
    fake.go_silent();
    let started = Instant::now();
    let err = RedisStore::connect(&fake.url()).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_millis(1500), "{:?}", started.elapsed());
    assert!(err.to_string().starts_with(&format!("store failed: connecting to {}", fake.url())), "{err}");
}

/// A replayed envelope without the warning that says it was replayed (checked here).
fn replayed(mut envelope: Value) -> Value {
    let warning = envelope.as_object_mut().unwrap().remove("warning");
    let warning = warning.unwrap_or_else(|| panic!("no replay warning: {envelope}"));
    assert!(warning.as_str().unwrap().starts_with("Answered from the call at "), "{warning}");
    envelope
}
