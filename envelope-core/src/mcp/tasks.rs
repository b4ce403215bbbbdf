//! Long-running tools as tasks: the MCP tasks extension (`io.modelcontextprotocol/tasks`,
//! SEP-2663).
//!
//! A tool declared as a task ([`super::McpServer::with_task`]) called by a client that declared
//! the extension (in its request's `_meta` `io.modelcontextprotocol/clientCapabilities`, or at
//! `initialize`) is answered at once with the flat create-task result, and its body runs on:
//!
//! ```json
//! {"resultType": "task", "taskId": "5f0c…", "status": "working",
//!  "createdAt": "2026-12-06T03:50:00Z", "lastUpdatedAt": "2026-12-06T03:50:00Z",
//!  "ttlMs": 3600000, "pollIntervalMs": 500}
//! ```
//!
//! - The call goes through the toolbox's one pipeline first: a refusal (an unknown tool, a bad
//!   argument, a caller without the scopes) is answered as a direct call answers it, and no task
//!   is created. A sync (`fn`) body comes back unrun and runs in the task; an `async fn` (or
//!   guarded) tool's call runs up to its body, which waits there until the task is created, so
//!   its refusal too is answered before any task exists, and a call past the caller's bound of
//!   stored tasks never begins its body.
//! - `tasks/get` answers the task's status; once `completed`, `result` is the `CallToolResult`
//!   a direct call would have answered (the envelope as `structuredContent` and as the last
//!   text block, after the tool's own blocks when it answers [`super::content::Contents`];
//!   `isError` when the envelope is not ok). A call that ends in a JSON-RPC error (the
//!   body asked its client for a capability the client did not declare: `-32021`) is `failed`
//!   with that `error` inlined, and no `result`.
//! - A body's request to its client ([`crate::Context::elicit`], [`crate::Context::ask`], ...)
//!   parks the task in `input_required`, its requests under `inputRequests` (keyed as the body
//!   asked, else `input-<n>`); `tasks/update` delivers `inputResponses`, the task staying
//!   `input_required` while any request is unanswered.
//! - `tasks/cancel` answers the empty acknowledgement, on a terminal task too; a working task
//!   settles to `cancelled`, its body's [`crate::Context`] is cancelled (on this replica at
//!   once, on another within [`WATCH_INTERVAL`]), and a body that ends after that has its
//!   result dropped.
//! - Each change of status the replica running the body sees goes to the session that started
//!   the task as `notifications/tasks` (the task as `tasks/get` answers it), when that session
//!   can receive one later: stdio, or Streamable HTTP with a session (on its `GET` stream);
//!   never to a stateless request (2026-07-28, or 2025 without a session), whose client polls.
//! - A client that did not declare the extension gets the direct answer of an `optional` task
//!   tool, and `-32021` (`data.requiredCapabilities.extensions["io.modelcontextprotocol/tasks"]`)
//!   for a `required` one.
//!
//! State lives in the toolbox's [`Store`](crate::call::guard::store::Store) (replicas on one
//! shared store poll and cancel each other's tasks): `envelope:task:<caller digest>:<task id>`
//! holds the task (JSON: status, timestamps, result or error, pending requests) for its TTL
//! ([`DEFAULT_TTL`], [`super::McpServer::with_task_ttl`]), and `envelope:tasks:<quota key>` the
//! caller's live task ids, at most [`DEFAULT_PER_CALLER`] of them (a call past the bound is
//! refused `-32600` and runs nothing; a cancelled or finished task counts until it expires).
//! Both are admitted as [`Kind::Task`](crate::call::guard::store::Kind::Task) records of the
//! caller's quota key, under the store's own bounds of them, in all and per caller
//! ([`Limits`](crate::call::guard::store::Limits): 10 000 and 1 000 by default); a call past
//! one is refused and runs nothing. The caller digest is the first 32 hex digits of the
//! SHA-256 of [`crate::Caller::key`] (subject and tenant), so another caller's task id is
//! answered exactly as an unknown one: `-32602` `unknown task id`.
//!
//! A server runs at most [`DEFAULT_MAX_RUNNING`] task bodies at once
//! ([`super::McpServer::with_max_running_tasks`]), every caller's together; a task-tool call
//! past it is refused `-32600` (`this server runs 256 tasks, the most it runs at once`) and
//! runs nothing, so tasks never take the threads plain calls need.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use rmcp::model::{
    ClientCapabilities, CreateTaskResult, ErrorCode, ErrorData, GetTaskResult, JsonObject, Task, TaskStatus,
};

use serde_json::Value;

use super::notify::declared;
use super::task_notices::StatusNotices;
use crate::call::pipeline::Started;
use crate::context::{Asked, BodyStart, Sink};
use crate::{ClientAsk, ClientError, Context, Envelope, Toolbox};

// The places of the bodies running here, in all and per caller.
mod places;
// A task as stored, its key, and as `tasks/get` answers it.
mod stored;
use stored::{
    Record, admission, announce, detailed, error_object, index_key, now_ms, result_object, store_error, task_key,
    timestamp, ttl_left, unknown,
};

/// How long a task is kept after it was created, unless set otherwise: one hour.
pub const DEFAULT_TTL: Duration = Duration::from_secs(3600);
/// How many live tasks one caller may have stored, unless set otherwise.
pub const DEFAULT_PER_CALLER: usize = 64;
pub use stored::POLL_INTERVAL_MS;
/// How many task bodies one server runs at once, unless set otherwise
/// ([`super::McpServer::with_max_running_tasks`]): 256, half the threads of the pool sync bodies
/// run on (512), so the requests in flight (128 for `http::serve` by default) and the bodies of
/// calls cancelled or timed out still find a thread.
pub const DEFAULT_MAX_RUNNING: usize = 256;
/// How often a running body checks the store for a cancellation made on another replica.
pub const WATCH_INTERVAL: Duration = Duration::from_millis(250);

/// Whether a tool runs as a task (SEP-2663; listed in the tool's `_meta`
/// `{"io.modelcontextprotocol/tasks": {"taskSupport": "optional" | "required"}}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskSupport {
    /// A client that declared the extension gets a task; any other the direct answer.
    Optional,
    /// Only as a task: a client that did not declare the extension is refused `-32021`.
    Required,
}

impl TaskSupport {
    /// The value listed as `taskSupport`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// The task tools of a server, their settings, and the contexts of the bodies running here.
#[derive(Debug)]
pub(super) struct Tasks {
    pub(super) tools: HashMap<String, TaskSupport>,
    /// The task tools that gather their input through rounds first.
    pub(super) gathering: std::collections::HashSet<String>,
    pub(super) ttl: Duration,
    pub(super) per_caller: usize,
    /// The tools that answer [`super::content::Contents`]: a completed task's result carries
    /// their blocks, as a direct call's does.
    pub(super) blocks: Arc<std::collections::HashSet<String>>,
    /// The places of running bodies ([`DEFAULT_MAX_RUNNING`], a share per caller): a task is
    /// created only with one.
    places: places::Places,
    /// The bodies running on this replica, by store key: their contexts, the notices of their
    /// status to the session that started them, and their places, each held until its body
    /// ends (a cancelled task's sync body counts until it ends; an async one is dropped).
    running: Mutex<HashMap<String, Running>>,
}

/// A body running on this replica: its call's context, where its status changes go, and its
/// place among the bodies running.
struct Running {
    cx: Context,
    notices: Option<Arc<StatusNotices>>,
    _place: places::RunningPlace,
    /// An async body's task: aborted when the task is cancelled, so the body is dropped at its
    /// next `.await` (as a direct call's is) and its place freed then. `None` for a sync body,
    /// which runs on until it looks at `cx.is_cancelled()`.
    body: Option<tokio::task::AbortHandle>,
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running").field("notices", &self.notices).finish_non_exhaustive()
    }
}

impl Default for Tasks {
    fn default() -> Self {
        Tasks {
            tools: HashMap::new(),
            gathering: std::collections::HashSet::new(),
            ttl: DEFAULT_TTL,
            per_caller: DEFAULT_PER_CALLER,
            blocks: Arc::default(),
            places: places::Places::new(DEFAULT_MAX_RUNNING, None),
            running: Mutex::default(),
        }
    }
}

impl Clone for Tasks {
    fn clone(&self) -> Self {
        Tasks {
            tools: self.tools.clone(),
            gathering: self.gathering.clone(),
            ttl: self.ttl,
            per_caller: self.per_caller,
            blocks: Arc::clone(&self.blocks),
            places: self.places.fresh(),
            running: Mutex::default(),
        }
    }
}

/// `-32021` for a `required` task tool called by a client without the extension.
pub(super) fn missing_extension() -> ErrorData {
    ErrorData::missing_required_client_capability(ClientCapabilities::builder().enable_tasks().build())
}

fn new_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        let seed = format!("{:?}{:p}", SystemTime::now(), &bytes);
        bytes.copy_from_slice(&<sha2::Sha256 as sha2::Digest>::digest(seed.as_bytes())[..16]);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Tasks {
    /// Adds `id` to the index of live tasks of `caller` (its quota key, `Caller::quota_key`),
    /// unless it holds `per_caller` already.
    async fn admit(&self, toolbox: &Toolbox, caller: &str, id: &str, expires_ms: u64) -> Result<(), ErrorData> {
        let store = &toolbox.guard.store;
        let key = index_key(caller);
        for _ in 0..32 {
            let old = store.get(&key).await.map_err(|e| store_error(&e))?;
            let now = now_ms();
            let mut live: Vec<(String, u64)> =
                old.as_deref().and_then(|text| serde_json::from_str(text).ok()).unwrap_or_default();
            live.retain(|(_, expires)| *expires > now);
            if live.len() >= self.per_caller {
                return Err(ErrorData::new(
                    ErrorCode::INVALID_REQUEST,
                    format!(
                        "this caller has {} tasks stored, the bound; wait for one to expire (tasks are kept {} s)",
                        live.len(),
                        self.ttl.as_secs()
                    ),
                    None,
                ));
            }
            live.push((id.to_owned(), expires_ms));
            let new = serde_json::to_string(&live).unwrap_or_default();
            let written = match &old {
                None => store.admit(&key, &new, self.ttl, admission(caller)).await,
                Some(old) => store.replace_if(&key, old, Some(&new), self.ttl).await,
            };
            if written.map_err(|e| store_error(&e))? {
                return Ok(());
            }
        }
        Err(ErrorData::internal_error("the task index is contended; try again", None))
    }

    /// Replaces the stored task with `f(record)` while its status is not terminal; `false` when
    /// it is absent or terminal (a result then dropped), or `f` leaves it (`false`).
    async fn settle(toolbox: &Toolbox, key: &str, f: impl Fn(&mut Record)) -> Result<bool, ErrorData> {
        update(&*toolbox.guard.store, key, |record| {
            f(record);
            true
        })
        .await
    }

    /// A task-tool call from a client that declared the extension: refused or answered at once
    /// when the pipeline does so before the body (`Ok(Err(result))`), else a task created, its
    /// body running on, and the create-task result. `session`: the peer its status changes go
    /// to ([`super::task_notices::session_peer`]), if any.
    pub(super) async fn start(
        self: &Arc<Self>,
        toolbox: &Arc<Toolbox>,
        cx: Context,
        capabilities: Option<ClientCapabilities>,
        name: &str,
        arguments: Option<Arc<str>>,
        session: Option<rmcp::Peer<rmcp::RoleServer>>,
    ) -> Result<Result<CreateTaskResult, Envelope>, ErrorData> {
        let caller = cx.caller().key();
        let id = new_id();
        let key = task_key(&caller, &id);
        let notices = session.map(|peer| Arc::new(StatusNotices::new(peer, id.clone(), self.ttl_ms())));
        // The body's context from the start, so the one it holds is the one a cancel reaches.
        let sync = toolbox.get(name).is_some_and(crate::Tool::has_sync_body);
        // An async (or guarded) body waits at its start for the task's creation.
        let (reached, may_start) = (tokio::sync::oneshot::channel(), tokio::sync::oneshot::channel());
        let sink = Arc::new(TaskSink::new(
            toolbox,
            key.clone(),
            capabilities,
            notices.clone(),
            (!sync).then_some((reached.0, may_start.1)),
        ));
        let cx = cx.with_sink(Arc::clone(&sink) as Arc<dyn Sink>);
        // The pipeline first: a refusal never becomes a task. A sync body comes back unrun; an
        // async one is run up to its start, where it waits.
        let mut answer = None;
        let mut abort = None;
        let body = if sync {
            let text = arguments.as_deref().unwrap_or("{}").trim_start();
            if !text.starts_with('{') {
                // Not an object: answered as a direct call answers it (`-32602`).
                return super::call_tool::call_with_raw_arguments(toolbox, &cx, name, arguments).await.map(Err);
            }
            let started = match arguments.as_deref() {
                Some(text) => toolbox.call_json_started(&cx, name, text).await,
                None => toolbox.call_started(&cx, name).await,
            };
            match started.map_err(|unknown| ErrorData::invalid_params(unknown.to_string(), None))? {
                Started::Done(envelope) => return Ok(Err(envelope)),
                Started::Body(body) => Some(body),
            }
        } else {
            let (answered, mut answer_rx) = tokio::sync::oneshot::channel();
            let (toolbox, cx, name, arguments) = (Arc::clone(toolbox), cx.clone(), name.to_owned(), arguments.clone());
            let spawned = tokio::spawn(async move {
                let _ = answered.send(super::call_tool::call_with_raw_arguments(&toolbox, &cx, &name, arguments).await);
            });
            abort = Some(spawned.abort_handle());
            tokio::select! {
                biased;
                Ok(()) = reached.1 => {}
                done = &mut answer_rx => {
                    // Answered before any body ran (a refusal, a policy's answer, a replayed key):
                    // as a direct call, no task.
                    return done.unwrap_or_else(|_| Err(ErrorData::internal_error("the call ended without an answer", None))).map(Err);
                }
            }
            answer = Some(answer_rx);
            None
        };
        let (now, place) = match self.create(toolbox, &caller, &cx.caller().quota_key(), &id).await {
            Ok(created) => created,
            Err(refused) => {
                // No task: the waiting body runs nothing.
                cx.cancel();
                let _ = may_start.0.send(false);
                return Err(refused);
            }
        };
        let _ = may_start.0.send(true);
        self.running.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(
            key.clone(),
            Running { cx: cx.clone(), notices: notices.clone(), _place: place, body: abort.clone() },
        );

        let tasks = Arc::clone(self);
        let toolbox = Arc::clone(toolbox);
        let blocks = self.blocks.contains(name);
        let name = name.to_owned();
        let watched = notices.clone();
        tokio::spawn(async move {
            let run = async {
                match (body, answer) {
                    (Some(body), _) => Ok(body.run_off_the_runtime(&cx).await),
                    (None, Some(answer)) => answer
                        .await
                        .unwrap_or_else(|_| Err(ErrorData::internal_error("the call ended without an answer", None))),
                    (None, None) => super::call_tool::call_with_raw_arguments(&toolbox, &cx, &name, arguments).await,
                }
            };
            tokio::pin!(run);
            // Cancelled on another replica: seen in the store.
            let watch = async {
                loop {
                    tokio::time::sleep(WATCH_INTERVAL).await;
                    match toolbox.guard.store.get(&key).await {
                        Ok(Some(text)) => {
                            let status = serde_json::from_str::<Record>(&text).map(|r| r.status);
                            if !matches!(status, Ok(TaskStatus::Working | TaskStatus::InputRequired)) {
                                cx.cancel();
                                if let Some(task) = &abort {
                                    task.abort();
                                }
                                // Cancelled on another replica: its session hears it from here.
                                announce(watched.as_deref(), &*toolbox.guard.store, &key).await;
                                return;
                            }
                        }
                        Ok(None) => {
                            cx.cancel();
                            if let Some(task) = &abort {
                                task.abort();
                            }
                            return;
                        }
                        Err(_) => {}
                    }
                }
            };
            let mut outcome = tokio::select! {
                outcome = &mut run => outcome,
                () = watch => run.await,
            };
            let missing = *sink.missing.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(capability) = missing {
                // As a direct call: the request the body needed is a protocol error.
                outcome = Err(super::input_required::missing_capability(capability));
            }
            // Its place freed once its body ended (or its timeout passed).
            tasks.running.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&key);
            Self::finish(&toolbox, &key, &outcome, blocks).await;
            announce(sink.notices.as_deref(), &*toolbox.guard.store, &key).await;
        });

        let created = self.created(id, now);
        if let Some(notices) = &notices {
            notices.announced();
        }
        Ok(Ok(created))
    }

    /// The `ttlMs` of this server's tasks.
    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// The create-task result of a task just created.
    fn created(&self, id: String, now: String) -> CreateTaskResult {
        let task = Task::new(id, TaskStatus::Working, now.clone(), now)
            .with_ttl_ms(self.ttl_ms())
            .with_poll_interval_ms(POLL_INTERVAL_MS);
        CreateTaskResult::new(task)
    }

    /// A new `working` task `id` of `caller`, given a place among the bodies running here
    /// (else refused: [`busy`]), admitted under the store's bounds of task records and the
    /// caller's bound of stored tasks, and stored before the create-task result goes out (a
    /// `tasks/get` right after it resolves): its creation time, and the place its body holds
    /// until it ends.
    async fn create(
        &self,
        toolbox: &Toolbox,
        caller: &str,
        quota: &str,
        id: &str,
    ) -> Result<(String, places::RunningPlace), ErrorData> {
        let place = self.places.take(quota)?;
        let now = timestamp();
        let expires_ms = now_ms().saturating_add(u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX));
        let record = Record {
            status: TaskStatus::Working,
            created_at: now.clone(),
            last_updated_at: now.clone(),
            expires_ms,
            result: None,
            error: None,
            input_requests: JsonObject::new(),
            responses: JsonObject::new(),
        };
        let key = task_key(caller, id);
        let text = serde_json::to_string(&record).unwrap_or_default();
        // Counted per caller identity: a tenant a header named makes no new caller.
        let store = &toolbox.guard.store;
        if !store.admit(&key, &text, self.ttl, admission(quota)).await.map_err(|e| store_error(&e))? {
            return Err(ErrorData::internal_error("the task store failed: a new task id was taken", None));
        }
        if let Err(refused) = self.admit(toolbox, quota, id, expires_ms).await {
            // Past the caller's bound of stored tasks: the record is taken back.
            let _ = store.remove(&key).await;
            return Err(refused);
        }
        Ok((now, place))
    }

    /// The end of a task's body: `completed` with the call's result (with the tool's content
    /// blocks when it answers them: `blocks`), or `failed` with its JSON-RPC error; dropped
    /// when the task is no longer running (cancelled, expired).
    async fn finish(toolbox: &Toolbox, key: &str, outcome: &Result<Envelope, ErrorData>, blocks: bool) {
        let _ = Self::settle(toolbox, key, |record| match outcome {
            Ok(envelope) if blocks => {
                record.status = TaskStatus::Completed;
                record.result = Some(result_object(&super::call_tool::call_tool_result_with_blocks(envelope)));
            }
            Ok(envelope) => {
                record.status = TaskStatus::Completed;
                record.result = Some(result_object(&super::call_tool::call_tool_result(envelope)));
            }
            Err(error) => {
                record.status = TaskStatus::Failed;
                record.error = Some(error_object(error));
            }
        })
        .await;
    }

    /// A call of a tool that gathers its input first ([`super::McpServer::with_task_after_input`])
    /// on 2026-07-28: its body runs with this request's input round (SEP-2322). A request it
    /// makes that the round has no answer for ends the round (`InputRequiredResult`, no task);
    /// once it has taken every answer this request carries (a later round), the task is
    /// created and the body runs on in it (`CreateTaskResult`; further requests park the task
    /// in `input_required`). A body that ends first is answered directly.
    pub(super) async fn gather(
        self: &Arc<Self>,
        toolbox: &Arc<Toolbox>,
        cx: Context,
        capabilities: Option<ClientCapabilities>,
        request: &rmcp::model::CallToolRequestParams,
        arguments: Option<Arc<str>>,
        state_key: &[u8],
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let state = request.request_state.as_deref();
        let round = super::input_required::Round::open(state_key, name, state, request.input_responses.as_ref())?;
        let given = round.answers();
        let gate = Arc::new(Gate {
            round: Arc::clone(&round),
            task: Mutex::new(None),
            escalate: tokio::sync::Notify::new(),
            taken: std::sync::atomic::AtomicUsize::new(0),
            given,
            capabilities: capabilities.clone(),
        });
        let cx = cx.with_sink(Arc::clone(&gate) as Arc<dyn Sink>);
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        let blocks = self.blocks.contains(name);
        let body = {
            let tasks = Arc::clone(self);
            let toolbox = Arc::clone(toolbox);
            let gate = Arc::clone(&gate);
            let cx = cx.clone();
            let name = name.to_owned();
            tokio::spawn(async move {
                let mut outcome = super::call_tool::call_with_raw_arguments(&toolbox, &cx, &name, arguments).await;
                let task = {
                    let task = gate.task.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    if task.is_none() {
                        // No task yet: answered directly, sent under the lock, so a task
                        // created meanwhile finds the answer ([`Tasks::escalated`]).
                        let _ = tx.send(outcome);
                        return;
                    }
                    task.clone()
                };
                if let Some(sink) = task {
                    let missing = *sink.missing.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    if let Some(capability) = missing {
                        outcome = Err(super::input_required::missing_capability(capability));
                    }
                    // Its place freed, its context (and the answers it holds) dropped.
                    tasks.running.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&sink.key);
                    Self::finish(&toolbox, &sink.key, &outcome, blocks).await;
                }
            })
        };
        tokio::select! {
            biased;
            outcome = &mut rx => {
                let envelope = outcome.map_err(|_| ErrorData::internal_error("the call's body was lost", None))??;
                Ok(super::call_tool::call_tool_result(&envelope).into())
            }
            () = round.wait() => {
                cx.cancel();
                body.abort();
                if let Some(malformed) = round.malformed() {
                    return Err(malformed);
                }
                Ok(round.input_required(state_key)?.into())
            }
            () = gate.escalate.notified() => {
                let created = self.escalated(toolbox, &cx, capabilities, &gate, &mut rx, blocks).await;
                if created.is_err() {
                    // No task: the body runs on for nobody; it is stopped.
                    cx.cancel();
                    body.abort();
                }
                created
            }
        }
    }

    /// The task of a gathering call whose body took every answer its request carries
    /// ([`Tasks::gather`]): created (a place among the running bodies, the store's bounds, the
    /// caller's), the body's requests from now on parking it; its body, running on, settles it
    /// (and frees its place) when it ends. A body that ended meanwhile (its answer in `answer`)
    /// settles it here. Refused (`Err`): no task exists and the caller stops the body.
    async fn escalated(
        &self,
        toolbox: &Toolbox,
        cx: &Context,
        capabilities: Option<ClientCapabilities>,
        gate: &Gate,
        answer: &mut tokio::sync::oneshot::Receiver<Result<Envelope, ErrorData>>,
        blocks: bool,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let caller = cx.caller().key();
        let id = new_id();
        let key = task_key(&caller, &id);
        let (now, place) = self.create(toolbox, &caller, &cx.caller().quota_key(), &id).await?;
        let sink = Arc::new(TaskSink::new(
            toolbox,
            key.clone(),
            capabilities,
            // A stateless request: its client polls.
            None,
            None,
        ));
        // Running before the body can see its task, so the body's end finds the entry to remove.
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key.clone(), Running { cx: cx.clone(), notices: None, _place: place, body: None });
        let ended = {
            let mut task = gate.task.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            *task = Some(sink);
            answer.try_recv().ok()
        };
        if let Some(outcome) = ended {
            self.running.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&key);
            Self::finish(toolbox, &key, &outcome, blocks).await;
        }
        Ok(rmcp::model::CallToolResponse::Task(self.created(id, now)))
    }

    /// How many task bodies run on this replica now, each holding one of its places
    /// ([`DEFAULT_MAX_RUNNING`]); a cancelled task's sync body counts until it ends (an async
    /// one is dropped at its next `.await`).
    pub(super) fn bodies_running(&self) -> usize {
        self.running.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    /// Sets the most task bodies one caller may run at once to `share` (at least 1).
    pub(super) fn set_running_share(&mut self, share: usize) {
        self.places = self.places.with_share(share);
    }

    /// Sets the most task bodies running at once to `bound` (at least 1).
    pub(super) fn set_max_running(&mut self, bound: usize) {
        self.places = self.places.with_max(bound);
    }

    /// `tasks/get`: the caller's task, its result or error inlined once terminal.
    pub(super) async fn get(&self, toolbox: &Toolbox, cx: &Context, id: &str) -> Result<GetTaskResult, ErrorData> {
        let key = task_key(&cx.caller().key(), id);
        let text = toolbox.guard.store.get(&key).await.map_err(|e| store_error(&e))?.ok_or_else(|| unknown(id))?;
        let record: Record = serde_json::from_str(&text).map_err(|_| unknown(id))?;
        Ok(GetTaskResult::new(detailed(id, record, self.ttl_ms())))
    }

    /// `tasks/update`: the answers to the task's pending input requests, each taken by the
    /// body on whichever replica runs it; keys the task does not wait on are ignored. The task
    /// stays `input_required` while any request is unanswered. Unknown id: `-32602`; an answer
    /// that is not an object (the client's result, `{"action": "accept", ...}`): `-32602`
    /// `inputResponses.<key> must be the client's result object`, as an input-required round
    /// refuses it, and nothing is delivered.
    pub(super) async fn update(
        &self,
        toolbox: &Toolbox,
        cx: &Context,
        id: &str,
        responses: &JsonObject,
    ) -> Result<(), ErrorData> {
        let key = task_key(&cx.caller().key(), id);
        if toolbox.guard.store.get(&key).await.map_err(|e| store_error(&e))?.is_none() {
            return Err(unknown(id));
        }
        if let Some((k, _)) = responses.iter().find(|(_, answer)| !answer.is_object()) {
            return Err(super::input_required::not_a_result(k));
        }
        update(&*toolbox.guard.store, &key, |record| {
            let mut changed = false;
            for (k, answer) in responses {
                if record.input_requests.remove(k).is_some() {
                    record.responses.insert(k.clone(), answer.clone());
                    changed = true;
                }
            }
            if changed && record.input_requests.is_empty() {
                record.status = TaskStatus::Working;
            }
            changed
        })
        .await?;
        Ok(())
    }

    /// `tasks/cancel`: a working task settles to `cancelled` and its body's context is
    /// cancelled; a terminal one is left as it is. Unknown (or another caller's): `-32602`.
    pub(super) async fn cancel(&self, toolbox: &Toolbox, cx: &Context, id: &str) -> Result<(), ErrorData> {
        let key = task_key(&cx.caller().key(), id);
        if toolbox.guard.store.get(&key).await.map_err(|e| store_error(&e))?.is_none() {
            return Err(unknown(id));
        }
        Self::settle(toolbox, &key, |record| record.status = TaskStatus::Cancelled).await?;
        // A sync body keeps its place until it ends (it runs on until it looks); an async one is
        // dropped at its next `.await`.
        let running = self
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            .map(|running| (running.cx.clone(), running.notices.clone(), running.body.clone()));
        if let Some((body, notices, task)) = running {
            body.cancel();
            if let Some(task) = task {
                task.abort();
            }
            announce(notices.as_deref(), &*toolbox.guard.store, &key).await;
        }
        Ok(())
    }
}

/// Replaces the stored task at `key` with `f(record)` (compare and set) while it is not
/// terminal and `f` returns `true`; whether it did.
async fn update(
    store: &dyn crate::call::guard::store::Store,
    key: &str,
    f: impl Fn(&mut Record) -> bool,
) -> Result<bool, ErrorData> {
    for _ in 0..32 {
        let Some(old) = store.get(key).await.map_err(|e| store_error(&e))? else { return Ok(false) };
        let Ok(mut record) = serde_json::from_str::<Record>(&old) else { return Ok(false) };
        if record.status.is_terminal() || !f(&mut record) {
            return Ok(false);
        }
        record.last_updated_at = timestamp();
        let new = serde_json::to_string(&record).unwrap_or_default();
        if store.replace_if(key, &old, Some(&new), ttl_left(&record)).await.map_err(|e| store_error(&e))? {
            return Ok(true);
        }
    }
    Err(ErrorData::internal_error("the task record is contended; try again", None))
}

/// The sink of a task's body: its requests to the client park the task in `input_required`
/// (`inputRequests` in the stored record) until `tasks/update` delivers the answer, on any
/// replica; progress and log messages are not kept.
struct TaskSink {
    store: Arc<dyn crate::call::guard::store::Store>,
    key: String,
    capabilities: Option<ClientCapabilities>,
    /// The capability a request needed that the client did not declare: the task fails `-32021`.
    missing: Mutex<Option<&'static str>>,
    asked: std::sync::atomic::AtomicUsize,
    /// Where the task's status changes go, if anywhere.
    notices: Option<Arc<StatusNotices>>,
    /// An async body's start: told when the pipeline reaches it, then whether it may run (its
    /// task created). `None`: nothing waits (a sync body, or once told).
    start: Mutex<Option<(tokio::sync::oneshot::Sender<()>, tokio::sync::oneshot::Receiver<bool>)>>,
}

impl TaskSink {
    /// The sink of task `key` in `toolbox`'s store, its client's `capabilities`, where its
    /// status changes go (`notices`) and what an async body's start waits on (`start`).
    fn new(
        toolbox: &Toolbox,
        key: String,
        capabilities: Option<ClientCapabilities>,
        notices: Option<Arc<StatusNotices>>,
        start: Option<(tokio::sync::oneshot::Sender<()>, tokio::sync::oneshot::Receiver<bool>)>,
    ) -> Self {
        TaskSink {
            store: Arc::clone(&toolbox.guard.store),
            key,
            capabilities,
            missing: Mutex::default(),
            asked: std::sync::atomic::AtomicUsize::new(0),
            notices,
            start: Mutex::new(start),
        }
    }
}

/// The sink of a body that gathers its input through rounds before its task exists
/// ([`Tasks::gather`]): the round's answers, then (once the task is created) the task's sink.
struct Gate {
    round: Arc<super::input_required::Round>,
    task: Mutex<Option<Arc<TaskSink>>>,
    /// Told when the body has taken every answer the request carries.
    escalate: tokio::sync::Notify,
    taken: std::sync::atomic::AtomicUsize,
    given: usize,
    capabilities: Option<ClientCapabilities>,
}

impl Sink for Gate {
    fn can_ask(&self, ask: ClientAsk) -> bool {
        declared(self.capabilities.as_ref(), ask)
    }

    fn ask(&self, ask: ClientAsk, key: Option<&str>, params: Value) -> Asked {
        let task = self.task.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        if let Some(task) = task {
            return task.ask(ask, key, params);
        }
        if !declared(self.capabilities.as_ref(), ask) {
            let capability = ask.capability();
            return Box::pin(async move { Err(ClientError::MissingCapability(capability)) });
        }
        match self.round.answer(ask, key, params) {
            Some(answer) => {
                if answer.is_ok() && self.taken.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 >= self.given {
                    self.escalate.notify_one();
                }
                Box::pin(async move { answer })
            }
            // No answer yet: the round ends ([`Tasks::gather`]).
            None => Box::pin(std::future::pending()),
        }
    }

    fn progress(&self, note: crate::context::Progress) {
        let _ = note;
    }

    fn log_level(&self) -> Option<crate::context::LogLevel> {
        None
    }

    fn log(&self, level: crate::context::LogLevel, message: String) {
        let _ = (level, message);
    }
}

/// How often a body waiting for its client's answer reads the store.
const ANSWER_POLL: Duration = Duration::from_millis(100);

impl Sink for TaskSink {
    fn can_ask(&self, ask: ClientAsk) -> bool {
        declared(self.capabilities.as_ref(), ask)
    }

    fn waits_before_body(&self) -> bool {
        self.start.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_some()
    }

    fn body_may_start(&self) -> Option<BodyStart> {
        let (reached, may_start) = self.start.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()?;
        let _ = reached.send(());
        Some(Box::pin(async move { may_start.await.unwrap_or(false) }))
    }

    fn ask(&self, ask: ClientAsk, key: Option<&str>, params: Value) -> Asked {
        if !declared(self.capabilities.as_ref(), ask) {
            let capability = ask.capability();
            *self.missing.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(capability);
            return Box::pin(async move { Err(ClientError::MissingCapability(capability)) });
        }
        let n = self.asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let id = key.map_or_else(|| format!("input-{n}"), str::to_owned);
        let store = Arc::clone(&self.store);
        let key = self.key.clone();
        let notices = self.notices.clone();
        Box::pin(async move {
            let request = serde_json::json!({"method": ask.method(), "params": params});
            let parked = update(&*store, &key, |record| {
                record.input_requests.insert(id.clone(), request.clone());
                record.status = TaskStatus::InputRequired;
                true
            })
            .await
            .map_err(|e| ClientError::Failed { code: -32603, message: e.message.into_owned() })?;
            if !parked {
                return Err(ClientError::Cancelled);
            }
            announce(notices.as_deref(), &*store, &key).await;
            loop {
                tokio::time::sleep(ANSWER_POLL).await;
                let answer = Mutex::new(None);
                let taken = update(&*store, &key, |record| match record.responses.remove(&id) {
                    Some(answer_value) => {
                        *answer.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(answer_value);
                        true
                    }
                    None => false,
                })
                .await
                .map_err(|e| ClientError::Failed { code: -32603, message: e.message.into_owned() })?;
                if taken {
                    // Back to `working` once every request is answered.
                    announce(notices.as_deref(), &*store, &key).await;
                    let answer = answer.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
                    return answer.ok_or(ClientError::Cancelled);
                }
                // Ended (cancelled, expired) while waiting.
                match store.get(&key).await {
                    Ok(Some(text)) if serde_json::from_str::<Record>(&text).is_ok_and(|r| !r.status.is_terminal()) => {}
                    Ok(_) => return Err(ClientError::Cancelled),
                    Err(_) => {}
                }
            }
        })
    }

    fn progress(&self, note: crate::context::Progress) {
        let _ = note;
    }

    fn log_level(&self) -> Option<crate::context::LogLevel> {
        None
    }

    fn log(&self, level: crate::context::LogLevel, message: String) {
        let _ = (level, message);
    }
}
