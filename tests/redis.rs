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
use envelope_core::call::guard::store::RedisStore;
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

/// `replayed` without its warning, which says it was answered from an earlier call's record.
fn unwarned(replayed: &Value) -> Value {
    let warning = replayed["warning"].as_str().unwrap_or_else(|| panic!("no replay warning: {replayed}"));
    assert!(warning.starts_with("Answered from the call at "), "{warning}");
    let mut v = replayed.clone();
    v.as_object_mut().unwrap().remove("warning");
    v
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
    assert_eq!(unwarned(&replayed), first);
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
        let (x, y) = if x.get("warning").is_none() { (x, y) } else { (y, x) };
        assert_eq!(x, unwarned(&y));
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

// --- bounds in Redis ------------------------------------------------------------------------

use envelope_core::call::guard::store::{Admission, Capacity, Kind, Limits, Store};

/// A store of this test run over the real Redis, with `limits`.
async fn bounded(limits: Limits) -> RedisStore {
    let run = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    RedisStore::connect(&url()).await.unwrap().with_prefix(format!("envelope-test-{run}:")).with_limits(limits)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bound_in_redis_refuses_a_new_record_on_every_replica_and_evicts_none() {
    let limits = Limits::default()
        .with_pending_actions(Capacity { total: 5, per_caller: 3 })
        .with_idempotency_records(Capacity { total: 5, per_caller: 3 });
    let store = Arc::new(bounded(limits).await);
    let notes = Arc::new(tools::NoteStore::default());
    let a = tools::toolbox_over(notes.clone()).with_store(store.clone()).with_secret(SECRET).unwrap();
    let b = tools::toolbox_over(notes.clone()).with_store(store.clone()).with_secret(SECRET).unwrap();
    let id = note(&a, "n").await;
    let mut pending = Vec::new();
    for replica in [&a, &b, &a] {
        let queued = call(replica, "delete_note", json!({ "note_id": id })).await;
        pending.push(queued["pending_action_id"].as_str().unwrap().to_owned());
    }
    for replica in [&a, &b] {
        let refused = call(replica, "delete_note", json!({ "note_id": id })).await;
        assert_eq!(refused["error_code"], "RATE_LIMITED", "{refused}");
        assert_eq!(refused["retryable"], true);
        let wait = refused["hints"]["retry_after_ms"].as_u64().unwrap();
        assert!(wait > 14 * 60_000 && wait <= 15 * 60_000, "{wait}");
    }
    // Keys have a bound of their own: the previews did not use it up.
    let mut firsts = Vec::new();
    for i in 0..3 {
        let args = json!({"title": format!("k{i}"), "idempotency_key": format!("bounded-key-{i:04}")});
        let first = call(if i % 2 == 0 { &a } else { &b }, "create_note", args.clone()).await;
        assert_eq!(first["status"], "ok", "{first}");
        firsts.push((args, first));
    }
    let refused = call(&b, "create_note", json!({"title": "x", "idempotency_key": "bounded-key-9999"})).await;
    assert_eq!(refused["error_code"], "RATE_LIMITED", "{refused}");
    let writes = notes.writes();
    for (args, first) in firsts {
        assert_eq!(unwarned(&call(&b, "create_note", args).await), first);
    }
    assert_eq!(notes.writes(), writes);
    // The first approval is still there, on the other replica.
    let done = call(&b, "confirm_action", json!({"pending_action_id": pending[0], "approved": true})).await;
    assert_eq!(done["status"], "ok", "{done}");
    assert_eq!(
        call(&a, "confirm_action", json!({"pending_action_id": pending[0], "approved": true})).await["error_code"],
        "CONFLICT"
    );
}

/// Full in all, a caller holding fewer takes the place of the oldest settled record of the
/// largest holder, in Redis as in memory; a running claim and a pending action are never
/// displaced, and with no larger holder the newcomer is refused, told 1 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_bound_in_all_redis_displaces_a_larger_holders_settled_record() {
    let done = r#"{"at":1,"envelope":{},"fingerprint":"f","state":"done"}"#;
    let running = r#"{"claim":"c","fingerprint":"f","state":"running"}"#;
    let store = bounded(Limits::uniform(10).with_idempotency_records(Capacity { total: 3, per_caller: 3 })).await;
    let min = Duration::from_secs(60);
    let keyed = |caller| Admission { kind: Kind::IdempotencyRecord, caller };
    assert!(store.admit("eve-1", running, min, keyed("eve")).await.unwrap());
    assert!(store.admit("eve-2", done, 2 * min, keyed("eve")).await.unwrap());
    assert!(store.admit("bob-1", done, min, keyed("bob")).await.unwrap());
    assert!(store.admit("ann-1", done, min, keyed("ann")).await.unwrap());
    assert_eq!(store.get("eve-2").await.unwrap(), None);
    assert_eq!(store.get("eve-1").await.unwrap().as_deref(), Some(running));
    assert_eq!(store.get("bob-1").await.unwrap().as_deref(), Some(done));
    // bob holds 1, as the largest holders do: refused, told when his own record expires.
    let full = store.admit("bob-2", done, min, keyed("bob")).await.unwrap_err();
    assert!(full.as_full().unwrap().retry_after > Duration::from_secs(59), "{full:?}");
    // A running claim alone is never displaced: a newcomer is refused, told 1 s.
    let store = bounded(Limits::uniform(10).with_idempotency_records(Capacity { total: 1, per_caller: 1 })).await;
    assert!(store.admit("eve-1", running, min, keyed("eve")).await.unwrap());
    let full = store.admit("dan-1", done, min, keyed("dan")).await.unwrap_err();
    assert_eq!(full.as_full().unwrap().retry_after, Duration::from_secs(1));
    assert_eq!(store.get("eve-1").await.unwrap().as_deref(), Some(running));
    // Pending actions are never displaced.
    let pending = |caller| Admission { kind: Kind::PendingAction, caller };
    let store = bounded(Limits::uniform(2)).await;
    assert!(store.admit("a", done, min, pending("eve")).await.unwrap());
    assert!(store.admit("b", done, min, pending("eve")).await.unwrap());
    assert!(store.admit("c", done, min, pending("ann")).await.unwrap_err().as_full().is_some());
    assert_eq!(store.get("a").await.unwrap().as_deref(), Some(done));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_removed_or_expired_in_redis_frees_its_place() {
    let store = bounded(Limits::uniform(10).with_idempotency_records(Capacity { total: 10, per_caller: 2 })).await;
    let eve = Admission { kind: Kind::IdempotencyRecord, caller: "eve" };
    let min = Duration::from_secs(60);
    assert!(store.admit("r1", "one", min, eve).await.unwrap());
    assert!(!store.admit("r1", "other", min, eve).await.unwrap());
    assert!(store.admit("r2", "two", Duration::from_millis(300), eve).await.unwrap());
    let full = store.admit("r3", "three", min, eve).await.unwrap_err();
    assert_eq!(full.as_full().unwrap().bound, 2, "{full}");
    assert!(full.as_full().unwrap().retry_after <= Duration::from_millis(300));
    // Another caller has its own share, another kind its own bound.
    assert!(store.admit("r4", "four", min, Admission { caller: "bob", ..eve }).await.unwrap());
    assert!(store.admit("p1", "p", min, Admission { kind: Kind::PendingAction, caller: "eve" }).await.unwrap());
    // Compare and set keeps the count; compare and delete frees it.
    assert!(!store.replace_if("r1", "nope", Some("x"), min).await.unwrap());
    assert!(store.replace_if("r1", "one", Some("done"), min).await.unwrap());
    assert_eq!(store.get("r1").await.unwrap().as_deref(), Some("done"));
    assert!(store.admit("r3", "three", min, eve).await.is_err());
    assert!(store.replace_if("r1", "done", None, min).await.unwrap());
    assert_eq!(store.get("r1").await.unwrap(), None);
    assert!(store.admit("r3", "three", min, eve).await.unwrap());
    // Expired by Redis's own clock, a record frees its place.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(store.get("r2").await.unwrap(), None);
    assert!(store.admit("r5", "five", min, eve).await.unwrap());
    // Plain writes are not counted against anyone, and read back as written.
    store.put("plain", "text\nwith a newline", min).await.unwrap();
    assert_eq!(store.get("plain").await.unwrap().as_deref(), Some("text\nwith a newline"));
    store.remove("r5").await.unwrap();
    assert!(store.admit("r6", "six", min, eve).await.unwrap());
}

// --- Redis faults, through a proxy ----------------------------------------------------------

use std::sync::Mutex;
use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// A TCP proxy on loopback in front of the real Redis that can hold what the client sends
/// (a stall: Redis gets each command late, in order) or go down (drop every connection and stop
/// listening) and come back on the same port.
struct Proxy {
    addr: std::net::SocketAddr,
    upstream: std::net::SocketAddr,
    stall_until: Arc<Mutex<Option<Instant>>>,
    tasks: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Proxy {
    async fn start() -> Proxy {
        let authority = url().split("://").nth(1).unwrap().split('/').next().unwrap().to_owned();
        let hostport = authority.rsplit('@').next().unwrap().to_owned();
        let upstream = tokio::net::lookup_host(hostport).await.unwrap().next().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let proxy = Proxy {
            addr: listener.local_addr().unwrap(),
            upstream,
            stall_until: Arc::default(),
            tasks: Arc::default(),
        };
        proxy.serve(listener);
        proxy
    }

    /// The test's Redis URL, through the proxy.
    fn url(&self) -> String {
        let url = url();
        let (scheme, rest) = url.split_once("://").unwrap();
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let user = authority.rsplit_once('@').map(|(u, _)| format!("{u}@")).unwrap_or_default();
        format!("{scheme}://{user}{}/{path}", self.addr)
    }

    fn serve(&self, listener: TcpListener) {
        let (upstream, stall, tasks) = (self.upstream, self.stall_until.clone(), self.tasks.clone());
        let accept = tokio::spawn({
            let tasks = tasks.clone();
            async move {
                while let Ok((client, _)) = listener.accept().await {
                    let Ok(server) = TcpStream::connect(upstream).await else { continue };
                    let (client_r, client_w) = client.into_split();
                    let (server_r, server_w) = server.into_split();
                    let up = tokio::spawn(pump(client_r, server_w, Some(stall.clone())));
                    let down = tokio::spawn(pump(server_r, client_w, None));
                    tasks.lock().unwrap().extend([up, down]);
                }
            }
        });
        tasks.lock().unwrap().push(accept);
    }

    /// Holds every byte the client sends for `d` from now, then delivers it in order.
    fn stall(&self, d: Duration) {
        *self.stall_until.lock().unwrap() = Some(Instant::now() + d);
    }

    fn down(&self) {
        for task in self.tasks.lock().unwrap().drain(..) {
            task.abort();
        }
    }

    async fn up(&self) {
        self.serve(TcpListener::bind(self.addr).await.unwrap());
    }
}

async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    stall: Option<Arc<Mutex<Option<Instant>>>>,
) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let until = stall.as_ref().and_then(|s| *s.lock().unwrap());
        if let Some(until) = until {
            tokio::time::sleep_until(until.into()).await;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_redis_applies_after_the_deadline_does_not_leave_its_key_in_progress() {
    let proxy = Proxy::start().await;
    let run = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    let prefix = format!("envelope-test-{run}:");
    let store = RedisStore::connect(&proxy.url()).await.unwrap().with_prefix(prefix.clone());
    let notes = Arc::new(tools::NoteStore::default());
    let toolbox = tools::toolbox_over(notes.clone()).with_store(Arc::new(store)).with_secret(SECRET).unwrap();
    let args = json!({"title": "stalled", "idempotency_key": "stalled-key-0001"});
    // Redis gets the claim 1.5 s late, past the call's deadline of 1 s.
    proxy.stall(Duration::from_millis(1500));
    let started = Instant::now();
    let failed = call(&toolbox, "create_note", args.clone()).await;
    let took = started.elapsed();
    assert_eq!(failed["error_code"], "BACKEND_ERROR", "{failed}");
    assert_eq!(failed["hints"]["operation"], "claiming the idempotency key");
    assert!(took < Duration::from_millis(1500), "{took:?}");
    tokio::time::sleep(Duration::from_millis(1000)).await;
    // The late claim was taken back after it was applied: the retry runs at once, once.
    let direct = RedisStore::connect(&url()).await.unwrap().with_prefix(prefix);
    assert_eq!(
        direct
            .get(&format!(
                "envelope:idem:create_note:{}:stalled-key-0001",
                &envelope_core::call::guard::confirm::sha256_hex("anonymous")[..32]
            ))
            .await
            .unwrap(),
        None
    );
    let started = Instant::now();
    let retried = call(&toolbox, "create_note", args.clone()).await;
    assert_eq!(retried["status"], "ok", "{retried}");
    assert!(started.elapsed() < Duration::from_millis(1000), "{:?}", started.elapsed());
    assert_eq!(notes.writes(), 1);
    assert_eq!(unwarned(&call(&toolbox, "create_note", args).await), retried);
    assert_eq!(notes.writes(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_down_answers_within_the_deadline_and_serves_again_when_back() {
    let proxy = Proxy::start().await;
    let store = RedisStore::connect(&proxy.url()).await.unwrap();
    let toolbox = tools::toolbox().with_store(Arc::new(store)).with_secret(SECRET).unwrap();
    let run = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    proxy.down();
    for i in 0..3 {
        let started = Instant::now();
        let env =
            call(&toolbox, "create_note", json!({"title": "t", "idempotency_key": format!("down-{run}-{i}")})).await;
        let took = started.elapsed();
        eprintln!("redis down: {took:?}");
        assert_eq!(env["error_code"], "BACKEND_ERROR", "{env}");
        assert!(took < Duration::from_millis(1500), "{took:?}");
    }
    proxy.up().await;
    // Back: the connection is made again within a few calls.
    let mut served = None;
    for i in 0..20 {
        let env =
            call(&toolbox, "create_note", json!({"title": "t", "idempotency_key": format!("back-{run}-{i}")})).await;
        if env["status"] == "ok" {
            served = Some(i);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(served.is_some(), "Redis back, the store never served again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_one_redis_hold_one_rate_limit_not_two() {
    use envelope_core::{Caller, Context, spec::rate::RateLimit};
    let (a, b, _) = replicas().await;
    let (a, b) = (a.with_rate_limit(RateLimit::per_minute(5)), b.with_rate_limit(RateLimit::per_minute(5)));
    let alice = Context::new(Caller::new("alice").with_tenant("acme"));
    // Ten calls of one caller at once, half on each replica: five are admitted in all.
    let calls = (0..10).map(|i| {
        let (toolbox, cx) = (if i % 2 == 0 { a.clone() } else { b.clone() }, alice.clone());
        tokio::spawn(async move { toolbox.call_in(&cx, "list_notes", None).await.unwrap().to_value() })
    });
    let mut answers = Vec::new();
    for call in calls {
        answers.push(call.await.unwrap());
    }
    let admitted = answers.iter().filter(|a| a["status"] == "ok").count();
    assert_eq!(admitted, 5, "{answers:#?}");
    for limited in answers.iter().filter(|a| a["status"] != "ok") {
        assert_eq!(limited["error_code"], "RATE_LIMITED", "{limited}");
        let ms = limited["hints"]["retry_after_ms"].as_u64().unwrap();
        assert!((1..=12_000).contains(&ms), "{limited}");
    }
    // Another caller has a count of its own, on either replica.
    let bob = Context::new(Caller::new("bob").with_tenant("acme"));
    assert_eq!(b.call_in(&bob, "list_notes", None).await.unwrap().to_value()["status"], "ok");
}

/// A `redis-server` of this test's own on a free loopback port, killed when dropped.
struct OwnRedis {
    child: tokio::process::Child,
    port: u16,
}

impl OwnRedis {
    async fn start() -> OwnRedis {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = tokio::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("this test starts a redis-server of its own (apt-get install redis-server)");
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return OwnRedis { child, port };
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("redis-server did not listen on {port}");
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// `redis-cli` against it: its answer's text.
    fn cli(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("redis-cli").arg("-p").arg(self.port.to_string()).args(args).output();
        String::from_utf8(out.expect("redis-cli").stdout).unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_audit_stream_stopped_mid_stream_fails_governed_writes_closed() {
    use envelope_core::call::audit::{Audit, RedisStream};
    let mut redis = OwnRedis::start().await;
    let store = RedisStore::connect(&redis.url()).await.unwrap();
    let stream = RedisStream::new(store, "envelope:audit").with_cap(1000);
    let notes = Arc::new(tools::NoteStore::default());
    // create_note (tier 2) is a governed write here.
    let audit = Audit::new(Arc::new(stream)).with_intent_from_tier(2).with_timeout(Duration::from_millis(1500));
    let toolbox = tools::toolbox_over(notes.clone()).with_audit(audit).with_provenance();
    for i in 0..3 {
        let env = call(&toolbox, "create_note", json!({"title": format!("n{i}")})).await;
        assert_eq!(env["status"], "ok", "{env}");
    }
    assert_eq!(redis.cli(&["XLEN", "envelope:audit"]).trim(), "6");
    let trail = redis.cli(&["XRANGE", "envelope:audit", "-", "+"]);
    let records: Vec<Value> = trail.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    assert_eq!(records.len(), 6, "{trail}");
    assert_eq!(records[0]["kind"], "intent");
    // What the write was given and produced, as the stream keeps it.
    assert_eq!(records[1]["arguments"]["title"], "n0", "{trail}");
    assert_eq!(records[1]["outcome"]["status"], "ok");
    assert_eq!(records[1]["outcome"]["data"]["title"], "n0", "{trail}");

    // Redis stops mid-stream: the next write does not run; a read is served, warned.
    redis.child.kill().await.unwrap();
    let writes = notes.writes();
    let started = std::time::Instant::now();
    let refused = call(&toolbox, "create_note", json!({"title": "lost"})).await;
    assert_eq!(refused["error_code"], "AUDIT_UNAVAILABLE", "{refused}");
    assert_eq!(refused["status"], "error");
    // Nothing ran: the same call succeeds once the trail is back.
    assert_eq!((&refused["retryable"], &refused["retry"]), (&json!(true), &json!("with_backoff")), "{refused}");
    assert!(started.elapsed() < Duration::from_millis(2000), "{:?}", started.elapsed());
    assert_eq!(notes.writes(), writes, "the write ran without its intent");
    let read = call(&toolbox, "list_notes", json!({})).await;
    assert_eq!(read["status"], "ok", "{read}");
    assert_eq!(read["warning"], "This call was not recorded in the audit trail.");
    assert_eq!(read["data"].as_array().unwrap().len(), 3);
}
