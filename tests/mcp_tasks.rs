//! Long-running tools as MCP tasks (SEP-2663, `McpServer::with_task`) over MCP stdio: a refusal
//! is answered before any task is created, another caller's task id is answered exactly as an
//! unknown one (while the caller itself polls it from a second server on the same store), a
//! body that ends after its task was cancelled has its result dropped, the tasks stored per
//! caller are bounded, and the session hears each change of its task's status as
//! `notifications/tasks` (the task as `tasks/get` answers it). The example servers'
//! `rebuild_index`, served as they serve it, stops at its next tick once its task is cancelled.
//! Task records count against the store's own bounds of them, the bodies running against the
//! server's bound of running tasks, and a task that gathered its input first (2026-07-28, over
//! Streamable HTTP) frees its place and its answers once its body ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use envelope_core::{
    Caller, ClientAsk, Context, Fault, Toolbox,
    call::audit::{Audit, AuditFuture, AuditRecord, AuditSink},
    call::guard::store::{Capacity, Limits, MemoryStore, Store},
    mcp::{McpServer, serve_io, streamable::McpHttp, tasks::TaskSupport},
    tool,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

#[path = "support/http_client.rs"]
#[allow(dead_code)]
mod http_client;

#[path = "../examples/tools/mod.rs"]
#[allow(dead_code)]
mod tools;

const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// Works `seconds` seconds, stopping early when its call is cancelled.
#[tool(read_only)]
fn work(
    cx: &Context,
    /// How long, in seconds
    #[validate(range(max = 60))]
    seconds: u64,
) -> String {
    let until = std::time::Instant::now() + Duration::from_secs(seconds);
    while std::time::Instant::now() < until && !cx.is_cancelled() {
        std::thread::sleep(Duration::from_millis(10));
    }
    WORK_ENDED.lock().unwrap().push(seconds);
    format!("worked {seconds} s")
}

/// The `seconds` of the `work` bodies that ended.
static WORK_ENDED: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());

/// How many `stubborn` bodies ran to their end.
static STUBBORN_ENDED: AtomicUsize = AtomicUsize::new(0);

/// Works `ms` milliseconds whatever happens, then answers.
#[tool(read_only)]
fn stubborn(
    /// How long, in milliseconds
    #[validate(range(max = 10000))]
    ms: u64,
) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    STUBBORN_ENDED.fetch_add(1, Ordering::SeqCst);
    "done anyway".to_owned()
}

/// How many `deaf` bodies slept their whole time.
static DEAF_ENDED: AtomicUsize = AtomicUsize::new(0);

/// Sleeps `ms` milliseconds (an async body) without looking at its cancellation.
#[tool(read_only)]
async fn deaf(
    /// How long, in milliseconds
    #[validate(range(max = 60000))]
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    DEAF_ENDED.fetch_add(1, Ordering::SeqCst);
    "slept".to_owned()
}

/// How many `pause` bodies began.
static PAUSES_BEGUN: AtomicUsize = AtomicUsize::new(0);

/// Pauses `ms` milliseconds (an async body), stopping early when its call is cancelled.
#[tool(read_only)]
async fn pause(
    cx: Context,
    /// How long, in milliseconds
    #[validate(range(max = 60000))]
    ms: u64,
) -> String {
    PAUSES_BEGUN.fetch_add(1, Ordering::SeqCst);
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(ms)) => format!("paused {ms} ms"),
        () = cx.cancelled() => "cancelled".to_owned(),
    }
}

/// Asks its client whether to go on (an elicitation under the key `go`), then says the answer.
#[tool(read_only)]
async fn go_on(cx: Context) -> Result<String, Fault> {
    let form = json!({"message": "Go on?", "requestedSchema": {
        "type": "object", "properties": {"go": {"type": "boolean"}}, "required": ["go"]}});
    let answer = cx.ask("go", ClientAsk::Elicitation, form).await.map_err(|e| Fault::backend(e.to_string()))?;
    Ok(format!("go: {}", answer["content"]["go"]))
}

fn server(store: &Arc<MemoryStore>, caller: &str) -> McpServer {
    server_on(Arc::clone(store) as _, caller)
}

fn server_on(store: Arc<dyn Store>, caller: &str) -> McpServer {
    let toolbox = Toolbox::new()
        .with(work::tool())
        .with(stubborn::tool())
        .with(go_on::tool())
        .with(pause::tool())
        .with(deaf::tool())
        .with_store(store);
    McpServer::new(toolbox)
        .with_caller(Caller::new(caller))
        .with_task("work", TaskSupport::Optional)
        .with_task("stubborn", TaskSupport::Optional)
        .with_task("go_on", TaskSupport::Optional)
        .with_task("pause", TaskSupport::Optional)
        .with_task("deaf", TaskSupport::Optional)
        .with_tasks_per_caller(2)
}

struct Session {
    input: WriteHalf<DuplexStream>,
    output: Lines<BufReader<ReadHalf<DuplexStream>>>,
    id: u64,
    /// The notifications read so far and not yet taken by [`Session::notice`].
    notices: Vec<Value>,
}

impl Session {
    async fn start(server: McpServer) -> Self {
        Self::start_with(server, json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})).await
    }

    async fn start_with(server: McpServer, capabilities: Value) -> Self {
        let (client, server_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(serve_io(server, server_read, server_write));
        let (read, input) = tokio::io::split(client);
        let mut session = Session { input, output: BufReader::new(read).lines(), id: 0, notices: Vec::new() };
        let reply = session
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                    "clientInfo": {"name": "t", "version": "0"}}),
            )
            .await;
        assert_eq!(reply["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"], json!({}));
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        session
    }

    async fn send(&mut self, message: &Value) {
        self.input.write_all(message.to_string().as_bytes()).await.unwrap();
        self.input.write_all(b"\n").await.unwrap();
        self.input.flush().await.unwrap();
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let id = self.id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        loop {
            let message = self.read().await;
            if message.get("id").is_none() {
                self.notices.push(message);
                continue;
            }
            assert_eq!(message["id"], id, "{message}");
            return message;
        }
    }

    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(READ_TIMEOUT, self.output.next_line())
            .await
            .expect("no line from the server in time")
            .unwrap()
            .expect("the server closed its output");
        serde_json::from_str(&line).unwrap()
    }

    /// The next `notifications/tasks` of task `id` (read earlier, or now).
    async fn notice(&mut self, id: &str) -> Value {
        let of_task = |m: &Value| m["method"] == "notifications/tasks" && m["params"]["taskId"] == id;
        if let Some(at) = self.notices.iter().position(of_task) {
            return self.notices.remove(at);
        }
        loop {
            let message = self.read().await;
            if of_task(&message) {
                return message;
            }
            assert!(message.get("id").is_none(), "a reply nobody waited for: {message}");
            self.notices.push(message);
        }
    }

    /// The `notifications/tasks` read so far.
    fn task_notices(&self) -> Vec<&Value> {
        self.notices.iter().filter(|m| m["method"] == "notifications/tasks").collect()
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": arguments})).await
    }

    async fn get(&mut self, task: &str) -> Value {
        self.request("tasks/get", json!({"taskId": task})).await
    }

    /// `tasks/get` until the task is terminal.
    async fn settled(&mut self, task: &str) -> Value {
        for _ in 0..200 {
            let reply = self.get(task).await;
            if ["completed", "failed", "cancelled"].contains(&reply["result"]["status"].as_str().unwrap_or("")) {
                return reply["result"].clone();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("task {task} did not settle");
    }
}

fn task_id(reply: &Value) -> String {
    assert_eq!(reply["result"]["resultType"], "task", "{reply}");
    reply["result"]["taskId"].as_str().expect("a taskId").to_owned()
}

#[tokio::test]
async fn a_completed_task_inlines_the_envelope_a_direct_call_answers() {
    let store = Arc::new(MemoryStore::default());
    let mut session = Session::start(server(&store, "alice")).await;
    let created = session.call("work", json!({"seconds": 0})).await;
    let id = task_id(&created);
    assert_eq!(created["result"]["status"], "working");
    assert_eq!(created["result"]["ttlMs"], 3_600_000);
    let done = session.settled(&id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], false);
    assert_eq!(done["result"]["structuredContent"]["data"], "worked 0 s", "{done}");
    let text: Value = serde_json::from_str(done["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, done["result"]["structuredContent"]);
}

/// The task as `tasks/get` answers it now, without the response's `resultType`.
async fn polled(session: &mut Session, id: &str) -> Value {
    let mut task = session.get(id).await["result"].clone();
    task.as_object_mut().unwrap().remove("resultType");
    task
}

#[tokio::test]
async fn the_session_hears_each_change_of_its_tasks_status() {
    let store = Arc::new(MemoryStore::default());
    let capabilities = json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    let mut session = Session::start_with(server(&store, "alice"), capabilities).await;
    let id = task_id(&session.call("go_on", json!({})).await);

    // Parked on its question: the notification is the task as tasks/get answers it.
    let parked = session.notice(&id).await;
    assert_eq!(parked["jsonrpc"], "2.0");
    assert_eq!(parked["params"]["status"], "input_required", "{parked}");
    assert_eq!(parked["params"]["ttlMs"], 3_600_000);
    assert_eq!(parked["params"]["pollIntervalMs"], 500);
    let asked = &parked["params"]["inputRequests"]["go"];
    assert_eq!(asked["method"], "elicitation/create", "{parked}");
    assert_eq!(asked["params"]["message"], "Go on?");
    assert_eq!(parked["params"], polled(&mut session, &id).await);

    let answer = json!({"go": {"action": "accept", "content": {"go": true}}});
    let ack = session.request("tasks/update", json!({"taskId": id, "inputResponses": answer})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let working = session.notice(&id).await;
    assert_eq!(working["params"]["status"], "working", "{working}");
    assert!(working["params"].get("inputRequests").is_none(), "{working}");

    // Completed: the result inlined, the envelope a direct call answers.
    let done = session.notice(&id).await;
    assert_eq!(done["params"]["status"], "completed", "{done}");
    let result = &done["params"]["result"];
    assert_eq!(result["structuredContent"]["status"], "ok", "{done}");
    assert_eq!(result["structuredContent"]["data"], "go: true", "{done}");
    assert_eq!(result["isError"], false);
    assert_eq!(done["params"], polled(&mut session, &id).await);
    // One notification a change: none for the `working` the create-task result said.
    assert!(session.task_notices().is_empty(), "{:?}", session.task_notices());
}

#[tokio::test]
async fn a_cancelled_task_is_announced_cancelled_once() {
    let store = Arc::new(MemoryStore::default());
    let mut session = Session::start(server(&store, "alice")).await;
    let id = task_id(&session.call("work", json!({"seconds": 27})).await);
    let ack = session.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let cancelled = session.notice(&id).await;
    assert_eq!(cancelled["method"], "notifications/tasks");
    assert_eq!(cancelled["params"]["status"], "cancelled", "{cancelled}");
    assert!(cancelled["params"].get("result").is_none(), "{cancelled}");
    assert_eq!(cancelled["params"]["taskId"], id.as_str());
    // The body ends soon after (it watches its context); no second notice follows.
    let started = std::time::Instant::now();
    while !WORK_ENDED.lock().unwrap().contains(&27) {
        assert!(started.elapsed() < Duration::from_secs(5), "the body did not see its task cancelled");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(polled(&mut session, &id).await["status"], "cancelled");
    assert!(session.task_notices().is_empty(), "{:?}", session.task_notices());
}

#[tokio::test]
async fn a_refusal_is_answered_before_any_task_is_created() {
    let store = Arc::new(MemoryStore::default());
    let mut session = Session::start(server(&store, "alice")).await;
    let refused = session.call("work", json!({"seconds": 3600})).await;
    let result = &refused["result"];
    assert!(result.get("taskId").is_none(), "{refused}");
    assert_ne!(result["resultType"], "task", "{refused}");
    assert_eq!(result["isError"], true, "{refused}");
    assert_eq!(result["structuredContent"]["status"], "invalid", "{refused}");
    assert_eq!(result["structuredContent"]["error_code"], "VALIDATION_ERROR", "{refused}");
    assert_eq!(result["structuredContent"]["hints"]["parameter"], "seconds");
    // Nothing was stored: no task record, no entry in the caller's index.
    assert_eq!(store.len(), 0);
}

/// An async task tool: its refusal answered at once (no task stored), a valid call a task
/// whose body runs once the task exists; past the caller's bound of stored tasks, refused and
/// its body never begun.
#[tokio::test]
async fn an_async_tools_refusal_is_answered_before_any_task_is_created() {
    let store = Arc::new(MemoryStore::default());
    let mut session = Session::start(server(&store, "carol")).await;
    let begun = PAUSES_BEGUN.load(Ordering::SeqCst);
    let refused = session.call("pause", json!({"ms": 3_600_000})).await;
    let result = &refused["result"];
    assert!(result.get("taskId").is_none(), "{refused}");
    assert_eq!(result["isError"], true, "{refused}");
    assert_eq!(result["structuredContent"]["error_code"], "VALIDATION_ERROR", "{refused}");
    assert_eq!(result["structuredContent"]["hints"]["parameter"], "ms");
    assert_eq!(store.len(), 0);

    let first = task_id(&session.call("pause", json!({"ms": 20})).await);
    let done = session.settled(&first).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"]["data"], "paused 20 ms", "{done}");
    let _second = task_id(&session.call("pause", json!({"ms": 30_000})).await);
    // The bound (2 stored tasks per caller) reached: refused, and that call's body never began.
    let third = session.call("pause", json!({"ms": 10})).await;
    assert_eq!(third["error"]["code"], -32600, "{third}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(PAUSES_BEGUN.load(Ordering::SeqCst) - begun, 2);
}

#[tokio::test]
async fn another_callers_task_id_is_answered_as_an_unknown_one() {
    let store = Arc::new(MemoryStore::default());
    let mut alice = Session::start(server(&store, "alice")).await;
    let mut alice_elsewhere = Session::start(server(&store, "alice")).await;
    let mut bob = Session::start(server(&store, "bob")).await;
    let id = task_id(&alice.call("work", json!({"seconds": 28})).await);

    // The same caller polls it on a second server over the same store.
    let polled = alice_elsewhere.get(&id).await;
    assert_eq!(polled["result"]["taskId"], id.as_str(), "{polled}");
    assert_eq!(polled["result"]["status"], "working");

    let other = bob.get(&id).await;
    let unknown_id = "0123456789abcdef0123456789abcdef";
    let unknown = bob.get(unknown_id).await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    assert_eq!(other["error"]["code"], unknown["error"]["code"]);
    let shape = |reply: &Value, id: &str| reply["error"]["message"].as_str().unwrap().replace(id, "<id>");
    assert_eq!(shape(&other, &id), shape(&unknown, unknown_id));
    assert_eq!(
        shape(&other, &id),
        "unknown task id: \"<id>\"; accepted: a taskId this server returned to this caller in a CreateTaskResult, \
         within its ttl. Send that taskId, or call the tool again for a new task"
    );
    let cancel = bob.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancel["error"]["code"], -32602, "{cancel}");

    // Bob's cancel did nothing; alice's (from the second server) settles it.
    assert_eq!(alice.get(&id).await["result"]["status"], "working");
    let ack = alice_elsewhere.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let settled = alice.settled(&id).await;
    assert_eq!(settled["status"], "cancelled");
    assert!(settled.get("result").is_none(), "{settled}");
    // The body, running on the first server, saw the cancellation through the store.
    let started = std::time::Instant::now();
    while !WORK_ENDED.lock().unwrap().contains(&28) {
        assert!(started.elapsed() < Duration::from_secs(5), "the body did not see its task cancelled");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_body_that_ends_after_its_task_was_cancelled_has_its_result_dropped() {
    let store = Arc::new(MemoryStore::default());
    let mut session = Session::start(server(&store, "alice")).await;
    let before = STUBBORN_ENDED.load(Ordering::SeqCst);
    let id = task_id(&session.call("stubborn", json!({"ms": 600})).await);
    let ack = session.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    // The body runs on to its end...
    for _ in 0..100 {
        if STUBBORN_ENDED.load(Ordering::SeqCst) > before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(STUBBORN_ENDED.load(Ordering::SeqCst) > before, "the body never ended");
    tokio::time::sleep(Duration::from_millis(200)).await;
    // ...and its answer is dropped: the task stays cancelled, with no result.
    let task = session.get(&id).await["result"].clone();
    assert_eq!(task["status"], "cancelled", "{task}");
    assert!(task.get("result").is_none(), "{task}");
    // A second cancel of the terminal task is the same empty acknowledgement.
    let again = session.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(again["result"], json!({"resultType": "complete"}), "{again}");
}

#[tokio::test]
async fn the_tasks_stored_per_caller_are_bounded() {
    let store = Arc::new(MemoryStore::default());
    let mut alice = Session::start(server(&store, "alice")).await;
    let mut bob = Session::start(server(&store, "bob")).await;
    let first = task_id(&alice.call("work", json!({"seconds": 30})).await);
    let _second = task_id(&alice.call("work", json!({"seconds": 30})).await);
    let third = alice.call("work", json!({"seconds": 30})).await;
    assert_eq!(third["error"]["code"], -32600, "{third}");
    assert!(
        third["error"]["message"].as_str().unwrap().starts_with("this caller has 2 tasks stored, the bound"),
        "{third}"
    );
    // The bound is alice's alone.
    task_id(&bob.call("work", json!({"seconds": 0})).await);
    // A cancelled task still counts until it expires: the bound is on stored tasks.
    alice.request("tasks/cancel", json!({"taskId": first})).await;
    assert_eq!(alice.call("work", json!({"seconds": 0})).await["error"]["code"], -32600);
}

/// The audit records of a toolbox, as JSON.
#[derive(Debug, Default)]
struct Kept(std::sync::Mutex<Vec<Value>>);

impl AuditSink for Kept {
    fn write<'a>(&'a self, record: &'a AuditRecord) -> AuditFuture<'a> {
        self.0.lock().unwrap().push(serde_json::from_str(&record.to_json()).unwrap());
        Box::pin(async { Ok(()) })
    }
}

impl Kept {
    /// The outcome records of `tool`'s calls.
    fn outcomes(&self, tool: &str) -> Vec<Value> {
        let records = self.0.lock().unwrap();
        records.iter().filter(|r| r["kind"] == "outcome" && r["tool"] == tool).cloned().collect()
    }
}

/// The example servers' `rebuild_index` (`tools::with_tasks` over the example tools, as
/// `examples/mcp_server.rs` serves them over stdio), started as a task for 60 s of 100 ms ticks:
/// `working` while it ticks, `cancelled` once cancelled, and its body stopped at its next tick,
/// as the audit trail's outcome record of the call shows (not rebuilt, a few of its 600 ticks);
/// its answer was dropped.
#[tokio::test]
async fn the_example_rebuild_index_stops_once_its_task_is_cancelled() {
    let kept = Arc::new(Kept::default());
    let toolbox = tools::with_context_tools(tools::toolbox()).with_audit(Audit::new(Arc::clone(&kept) as _));
    let mut session = Session::start(tools::with_tasks(McpServer::new(toolbox))).await;
    let listed = session.request("tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().unwrap_or_else(|| panic!("{listed}"));
    let rebuild = tools.iter().find(|t| t["name"] == "rebuild_index").expect("rebuild_index is listed");
    assert_eq!(rebuild["_meta"], json!({"io.modelcontextprotocol/tasks": {"taskSupport": "optional"}}));

    let id = task_id(&session.call("rebuild_index", json!({"seconds": 60})).await);
    tokio::time::sleep(Duration::from_millis(350)).await;
    assert_eq!(polled(&mut session, &id).await["status"], "working");
    assert!(kept.outcomes("rebuild_index").is_empty(), "the body is still ticking");

    let ack = session.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let cancelled = Instant::now();
    assert_eq!(session.notice(&id).await["params"]["status"], "cancelled");
    let outcome = loop {
        if let Some(outcome) = kept.outcomes("rebuild_index").pop() {
            break outcome;
        }
        assert!(cancelled.elapsed() < Duration::from_secs(5), "the body did not stop");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(outcome["outcome"]["status"], "ok", "{outcome}");
    let data = &outcome["outcome"]["data"];
    assert_eq!(data["rebuilt"], false, "{outcome}");
    assert_eq!(data["of"], 600, "{outcome}");
    let ticks = data["ticks"].as_u64().unwrap();
    assert!((1..100).contains(&ticks), "stopped after {ticks} of 600 ticks: {outcome}");
    assert!(outcome["duration_ms"].as_u64().unwrap() < 10_000, "{outcome}");
    // Its answer was dropped: the task stays cancelled, with no result.
    let task = polled(&mut session, &id).await;
    assert_eq!(task["status"], "cancelled", "{task}");
    assert!(task.get("result").is_none(), "{task}");
}

/// Two replicas on one real Redis (`RedisStore`): a task started on one is polled and cancelled
/// on the other, and its body, running on the first, stops. Needs Redis as `tests/redis.rs`
/// does (`cargo test --features redis --test mcp_tasks`, `ENVELOPE_TEST_REDIS_URL`).
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_polled_and_cancelled_from_a_second_replica_over_redis() {
    use envelope_core::call::guard::store::RedisStore;
    let url = std::env::var("ENVELOPE_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/".to_owned());
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let replica = || async {
        let store = RedisStore::connect(&url)
            .await
            .unwrap_or_else(|e| panic!("this test needs Redis at {url} (ENVELOPE_TEST_REDIS_URL): {e}"))
            .with_prefix(format!("envelope-test-{run}:"));
        server_on(Arc::new(store), "alice")
    };
    let mut first = Session::start(replica().await).await;
    let mut second = Session::start(replica().await).await;
    let mut bob = Session::start(server_on(
        Arc::new(RedisStore::connect(&url).await.unwrap().with_prefix(format!("envelope-test-{run}:"))),
        "bob",
    ))
    .await;

    let id = task_id(&first.call("work", json!({"seconds": 29})).await);
    let polled = second.get(&id).await;
    assert_eq!(polled["result"]["taskId"], id.as_str(), "{polled}");
    assert_eq!(polled["result"]["status"], "working");
    assert_eq!(bob.get(&id).await["error"]["code"], -32602);

    let started = std::time::Instant::now();
    let ack = second.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let settled = first.settled(&id).await;
    assert_eq!(settled["status"], "cancelled", "{settled}");
    assert!(settled.get("result").is_none(), "{settled}");

    // The body on the first replica saw the cancellation (within the watch interval) and
    // ended long before its 29 s; its answer was dropped, the task stays cancelled.
    while !WORK_ENDED.lock().unwrap().contains(&29) {
        assert!(started.elapsed() < Duration::from_secs(5), "the body did not see its task cancelled");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let after = second.get(&id).await;
    assert_eq!(after["result"]["status"], "cancelled", "{after}");
    assert!(after["result"].get("result").is_none(), "{after}");

    // A task completed on the first replica is read, result inlined, on the second.
    let quick = task_id(&first.call("work", json!({"seconds": 0})).await);
    let done = second.settled(&quick).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"]["data"], "worked 0 s", "{done}");
}

/// A `tasks/update` answer that is not the client's result object is refused `-32602`, as an
/// input-required round refuses it, and nothing reaches the body: the task still waits.
#[tokio::test]
async fn a_tasks_update_answer_that_is_not_an_object_is_refused() {
    let store = Arc::new(MemoryStore::default());
    let capabilities = json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    let mut session = Session::start_with(server(&store, "alice"), capabilities).await;
    let id = task_id(&session.call("go_on", json!({})).await);
    assert_eq!(session.notice(&id).await["params"]["status"], "input_required");

    let refused = session.request("tasks/update", json!({"taskId": id, "inputResponses": {"go": 12345}})).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(refused["error"]["message"], "inputResponses.go must be the client's result object");
    assert_eq!(polled(&mut session, &id).await["status"], "input_required");

    let answer = json!({"go": {"action": "accept", "content": {"go": false}}});
    let ack = session.request("tasks/update", json!({"taskId": id, "inputResponses": answer})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    assert_eq!(session.settled(&id).await["result"]["structuredContent"]["data"], "go: false");
}

/// Subject `a` asking for task id `b:<id>` reaches no task of subject `a:b`: the store key of
/// a task names its caller whatever characters the subject or the id hold.
#[tokio::test]
async fn a_task_id_with_a_colon_reaches_no_other_callers_task() {
    let store = Arc::new(MemoryStore::default());
    let mut ab = Session::start(server(&store, "a:b")).await;
    let mut a = Session::start(server(&store, "a")).await;
    let id = task_id(&ab.call("work", json!({"seconds": 0})).await);
    assert_eq!(ab.settled(&id).await["status"], "completed");
    let forged = format!("b:{id}");
    let got = a.get(&forged).await;
    assert_eq!(got["error"]["code"], -32602, "{got}");
    assert!(got["error"]["message"].as_str().unwrap().starts_with("unknown task id"), "{got}");
    let cancel = a.request("tasks/cancel", json!({"taskId": forged})).await;
    assert_eq!(cancel["error"]["code"], -32602, "{cancel}");
}

/// Task records are admitted under the store's bounds of task records: per caller (a caller's
/// tasks and its index), then in all. Past them a call is refused with the bound it reached and
/// runs nothing.
#[tokio::test]
async fn task_records_count_against_the_stores_bounds_of_them() {
    let limits = Limits::default().with_task_records(Capacity { total: 5, per_caller: 3 });
    let store = Arc::new(MemoryStore::default().with_limits(limits));
    let roomy = |caller: &str| server(&store, caller).with_tasks_per_caller(64);
    let mut alice = Session::start(roomy("alice")).await;
    let mut bob = Session::start(roomy("bob")).await;
    let mut carol = Session::start(roomy("carol")).await;
    // Two tasks and alice's index: her 3 records.
    task_id(&alice.call("work", json!({"seconds": 0})).await);
    task_id(&alice.call("work", json!({"seconds": 0})).await);
    assert_eq!(store.len(), 3);
    let third = alice.call("work", json!({"seconds": 0})).await;
    assert_eq!(third["error"]["code"], -32600, "{third}");
    let message = third["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the task store holds 3 task records of this caller, the most it keeps for one caller; \
             no task was created and nothing ran. Try again in "
        ),
        "{message}"
    );
    assert_eq!(store.len(), 3, "nothing was left of the refused call");
    // Bob's task and index: 5 in all, the bound; carol is refused with the store's bound.
    task_id(&bob.call("work", json!({"seconds": 0})).await);
    let full = carol.call("work", json!({"seconds": 0})).await;
    assert_eq!(full["error"]["code"], -32603, "{full}");
    let message = full["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the task store holds 5 task records, the most it keeps; no task was created and nothing ran. Try again in "
        ),
        "{message}"
    );
    assert_eq!(store.len(), 5);
}

/// A task-tool call past the server's bound of running tasks is refused `-32600`, saying so,
/// and runs nothing; a plain call still answers; once a body ends (its task cancelled) its
/// place is free again.
#[tokio::test]
async fn the_tasks_running_at_once_are_bounded_server_wide() {
    let store = Arc::new(MemoryStore::default());
    let bounded = |caller: &str| {
        server(&store, caller).with_tasks_per_caller(64).with_max_running_tasks(2).with_max_running_tasks_per_caller(2)
    };
    let alice_server = bounded("alice");
    let watch = alice_server.clone();
    let mut alice = Session::start(alice_server).await;
    let first = task_id(&alice.call("work", json!({"seconds": 26})).await);
    let _second = task_id(&alice.call("work", json!({"seconds": 25})).await);
    assert_eq!(watch.running_tasks(), 2);
    let begun = PAUSES_BEGUN.load(Ordering::SeqCst);
    let third = alice.call("pause", json!({"ms": 25})).await;
    assert_eq!(third["error"]["code"], -32600, "{third}");
    assert_eq!(
        third["error"]["message"],
        "this server runs 2 tasks, the most it runs at once; no task was created and nothing ran. Try again once one ends"
    );
    // A plain call of a client without the extension is answered at once.
    let mut plain = Session::start_with(bounded("dave"), json!({})).await;
    let answered = plain.call("work", json!({"seconds": 0})).await;
    assert_eq!(answered["result"]["structuredContent"]["data"], "worked 0 s", "{answered}");
    // A cancelled task's body holds its place until it ends, then frees it.
    alice.request("tasks/cancel", json!({"taskId": first})).await;
    let started = Instant::now();
    while watch.running_tasks() > 1 {
        assert!(started.elapsed() < Duration::from_secs(5), "the cancelled body kept its place");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let again = task_id(&alice.call("pause", json!({"ms": 25})).await);
    assert_eq!(alice.settled(&again).await["status"], "completed");
    assert_eq!(PAUSES_BEGUN.load(Ordering::SeqCst) - begun, 1, "the refused call ran nothing");
}

/// One caller holds at most its share of the running places (an eighth of them by default):
/// past it, its task-tool call is refused and runs nothing, while the places stay for others.
#[tokio::test]
async fn one_caller_runs_at_most_its_share_of_the_tasks() {
    let store = Arc::new(MemoryStore::default());
    let server = server(&store, "erin").with_tasks_per_caller(64).with_max_running_tasks(16);
    let watch = server.clone();
    let mut erin = Session::start(server).await;
    let first = task_id(&erin.call("work", json!({"seconds": 26})).await);
    let _second = task_id(&erin.call("work", json!({"seconds": 25})).await);
    assert_eq!(watch.running_tasks(), 2);
    let third = erin.call("work", json!({"seconds": 0})).await;
    assert_eq!(third["error"]["code"], -32600, "{third}");
    assert_eq!(
        third["error"]["message"],
        "this caller runs 2 tasks, the most one caller runs at once here; no task was created and nothing ran. Try \
         again once one of them ends"
    );
    assert_eq!(watch.running_tasks(), 2);
    // A place of its own given back, it runs one more.
    erin.request("tasks/cancel", json!({"taskId": first})).await;
    let started = Instant::now();
    while watch.running_tasks() > 1 {
        assert!(started.elapsed() < Duration::from_secs(5), "the cancelled body kept its place");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let again = task_id(&erin.call("pause", json!({"ms": 25})).await);
    assert_eq!(erin.settled(&again).await["status"], "completed");
}

/// The `ms` of the `named` bodies that slept their whole time.
static NAMED_SLEPT: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());

/// Asks the name (key `name`), then sleeps `ms` milliseconds, stopping early when its call is
/// cancelled, and greets.
#[tool(read_only)]
async fn named(
    cx: Context,
    /// How long, in milliseconds
    #[validate(range(max = 60000))]
    ms: u64,
) -> Result<String, Fault> {
    let form = json!({"message": "Your name?", "requestedSchema": {
        "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}});
    let answer = cx.ask("name", ClientAsk::Elicitation, form).await.map_err(|e| Fault::backend(e.to_string()))?;
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(ms)) => NAMED_SLEPT.lock().unwrap().push(ms),
        () = cx.cancelled() => {}
    }
    Ok(format!("hello {}", answer["content"]["name"].as_str().unwrap_or("?").len()))
}

/// One stateless 2026-07-28 request `method` over Streamable HTTP, from a client that declared
/// elicitation and the tasks extension.
async fn request_2026(addr: std::net::SocketAddr, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities":
            {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}});
    // `Mcp-Name`: the tool's name, or the task's id.
    let name = params["name"].as_str().or(params["taskId"].as_str()).unwrap_or("").to_owned();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ];
    if !name.is_empty() {
        headers.push(("mcp-name", &name));
    }
    http_client::send(addr, "POST", "/mcp", &headers, &body).await.json_rpc()
}

/// `named` called with `ms`, through its input round, to the create-task result (or the
/// error) of the round that carries the answer: a name of `name_bytes` bytes.
async fn gathered(addr: std::net::SocketAddr, ms: u64, name_bytes: usize) -> Value {
    let call = json!({"name": "named", "arguments": {"ms": ms}});
    let first = request_2026(addr, "tools/call", call.clone()).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let mut retry = call;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"name": {"action": "accept", "content": {"name": "x".repeat(name_bytes)}}});
    request_2026(addr, "tools/call", retry).await
}

/// A task that gathered its input first (SEP-2322 rounds, then the task): once its body ends
/// its place among the running tasks is free and its context, holding every answer the client
/// sent, is dropped; a task refused at its creation (past the bound) has its body stopped.
#[tokio::test]
async fn a_gathered_tasks_body_frees_its_place_and_its_answers_when_it_ends() {
    let toolbox = Toolbox::new().with(named::tool());
    let server = McpServer::new(toolbox).with_task_after_input("named").with_max_running_tasks(1);
    let watch = server.clone();
    let addr = http_client::serve(McpHttp::with_handler(server).router()).await;

    // Twice in a row: a place held by an ended body would refuse the second.
    for _ in 0..2 {
        let created = gathered(addr, 10, 1 << 20).await;
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        let id = created["result"]["taskId"].as_str().unwrap().to_owned();
        let mut done = Value::Null;
        for _ in 0..100 {
            done = request_2026(addr, "tasks/get", json!({"taskId": id})).await;
            if done["result"]["status"] == "completed" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(done["result"]["result"]["structuredContent"]["data"], "hello 1048576", "{done}");
        assert_eq!(watch.running_tasks(), 0, "the ended body still holds its place and its answers");
    }

    // One long task holds the only place: the next gathered call is refused, its body stopped.
    let long = gathered(addr, 30_000, 8).await;
    assert_eq!(long["result"]["resultType"], "task", "{long}");
    let refused = gathered(addr, 300, 8).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "this server runs 1 tasks, the most it runs at once; no task was created and nothing ran. Try again once one ends"
    );
    assert_eq!(watch.running_tasks(), 1);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(!NAMED_SLEPT.lock().unwrap().contains(&300), "the refused call's body ran on");
    let id = long["result"]["taskId"].as_str().unwrap();
    request_2026(addr, "tasks/cancel", json!({"taskId": id})).await;
    let started = Instant::now();
    while watch.running_tasks() > 0 {
        assert!(started.elapsed() < Duration::from_secs(5), "the cancelled body kept its place");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A cancelled task's async body is dropped at its next `.await`, as a direct call's is, even
/// one that never looks at its cancellation: its running place is free at once, not when it
/// would have ended.
#[tokio::test]
async fn a_cancelled_async_body_is_dropped_and_frees_its_place() {
    let store = Arc::new(MemoryStore::default());
    let server = server(&store, "frank");
    let watch = server.clone();
    let mut frank = Session::start(server).await;
    let before = DEAF_ENDED.load(Ordering::SeqCst);
    let id = task_id(&frank.call("deaf", json!({"ms": 3000})).await);
    assert_eq!(watch.running_tasks(), 1);
    frank.request("tasks/cancel", json!({"taskId": id})).await;
    let started = Instant::now();
    while watch.running_tasks() > 0 {
        assert!(started.elapsed() < Duration::from_millis(1500), "the cancelled async body kept its place");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(frank.get(&id).await["result"]["status"], "cancelled");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(DEAF_ENDED.load(Ordering::SeqCst), before, "the body ran on after its cancellation");
}
