//! The example tools of the project (`get_top_queries`, `search_analytics`, the note store's
//! `create_note`, `delete_note` and `list_notes`, and `set_threshold`; with `confirm_action`,
//! which the toolbox adds for `delete_note`), answering from small in-memory data. Shared by the
//! example server and the tests. The example servers add `rebuild_index` and `whoami`, two
//! tools that read their call's [`Context`] ([`with_context_tools`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use envelope_core::{Context, ToolError, codes, tool, tools};
use serde::Serialize;

#[derive(Serialize)]
struct QueryRow {
    key: &'static str,
    calls: u64,
    total_ms: u64,
}

const QUERY_STATS: &[(&str, &str, &str, u64, u64)] = &[
    // (query_hash, database, application, calls, total_ms)
    ("9f2c1a", "orders", "checkout", 1200, 84_000),
    ("41be07", "orders", "backoffice", 90, 61_000),
    ("c3d4e5", "users", "checkout", 5400, 27_000),
    ("77aa10", "analytics", "reports", 12, 240_000),
];

/// The JSON Schema of `get_top_queries`' answer (its `outputSchema` wraps it in the envelope).
fn query_rows_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "key": {"type": "string"},
                "calls": {"type": "integer", "minimum": 0},
                "total_ms": {"type": "integer", "minimum": 0}
            },
            "required": ["key", "calls", "total_ms"]
        }
    })
}

/// Lists the queries that spent the most time, grouped by query hash, database or application.
#[tool(read_only, idempotent, output_schema = query_rows_schema)]
fn get_top_queries(
    /// How far back to look, in hours.
    #[validate(range = 1..=720)]
    hours_back: u32,
    /// What to group the statistics by.
    #[validate(choices = ["query_hash", "database", "application"])]
    group_by: String,
    /// How many rows to return.
    #[validate(range = 1..=100, default = 10)]
    top: u32,
) -> Vec<QueryRow> {
    let _ = hours_back;
    let mut rows: Vec<QueryRow> = Vec::new();
    for &(hash, db, app, calls, total_ms) in QUERY_STATS {
        let key = match group_by.as_str() {
            "query_hash" => hash,
            "database" => db,
            _ => app,
        };
        match rows.iter_mut().find(|r| r.key == key) {
            Some(r) => {
                r.calls += calls;
                r.total_ms += total_ms;
            }
            None => rows.push(QueryRow { key, calls, total_ms }),
        }
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.total_ms));
    rows.truncate(top as usize);
    rows
}

#[derive(Serialize, schemars::JsonSchema)]
struct AnalyticsRow {
    key: String,
    clicks: u32,
}

/// Reports search clicks by one dimension. Hour rows exist only with data_state HOURLY_ALL.
#[tool(read_only, idempotent)]
fn search_analytics(
    /// The dimension to group rows by.
    #[validate(
        choices = ["query", "page", "country", "device", "date", "searchAppearance", "hour"],
        requires(data_state = "HOURLY_ALL", when = "hour")
    )]
    dimension: String,
    /// Which data to include: final data only (ALL) or also fresh hourly data (HOURLY_ALL).
    #[validate(choices = ["ALL", "HOURLY_ALL"], default = "ALL", requires(dimension = "hour", when = "HOURLY_ALL"))]
    data_state: String,
    /// The most rows to return.
    #[validate(range = 1..=25000)]
    row_limit: Option<u32>,
) -> Vec<AnalyticsRow> {
    let _ = data_state;
    let keys: &[&str] = match dimension.as_str() {
        "country" => &["usa", "deu", "fra"],
        "device" => &["DESKTOP", "MOBILE", "TABLET"],
        "hour" => &["2026-11-29T10:00:00Z", "2026-11-29T11:00:00Z"],
        _ => &["a", "b"],
    };
    let limit = row_limit.unwrap_or(1000) as usize;
    keys.iter()
        .take(limit)
        .enumerate()
        .map(|(i, k)| AnalyticsRow { key: (*k).to_owned(), clicks: 100 / (i as u32 + 1) })
        .collect()
}

/// A note: its id, title, tags and whether it is pinned.
#[derive(Clone, Serialize, schemars::JsonSchema)]
pub struct Note {
    id: u32,
    title: String,
    tags: Vec<String>,
    pinned: bool,
}

/// The notes written so far, kept per tenant: the state behind `create_note`, `delete_note`,
/// `list_notes` and `purge_notes`. Replicas of a server share it as they would share a database.
#[derive(Default)]
pub struct NoteStore {
    spaces: Mutex<HashMap<String, Space>>,
    writes: AtomicU64,
}

/// The notes of one tenant (or of one caller without a tenant), and the id the next gets.
#[derive(Default)]
struct Space {
    notes: Vec<Note>,
    next_id: u32,
}

/// Whose notes a call reads and writes: its caller's tenant (`tenant:acme`) over every surface
/// alike; a caller without a tenant has a space of its own (`sub:alice`, `anonymous`).
fn space_of(cx: &Context) -> String {
    let caller = cx.caller();
    match caller.tenant() {
        Some(tenant) => format!("tenant:{tenant}"),
        None => caller.key(),
    }
}

impl NoteStore {
    /// How many times a write ran (a note created or deleted, a purge): what confirmation and
    /// idempotency keys keep from happening twice.
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::SeqCst)
    }

    /// Runs `f` over the notes of `cx`'s tenant.
    fn with_space<T>(&self, cx: &Context, f: impl FnOnce(&mut Space) -> T) -> T {
        let mut spaces = self.spaces.lock().unwrap_or_else(PoisonError::into_inner);
        f(spaces.entry(space_of(cx)).or_default())
    }

    /// The JSON Schema of `delete_note`'s answer: `{"deleted": {"id": 3, "title": "..."}}`.
    fn deleted_schema() -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {"deleted": {
                "type": "object",
                "properties": {"id": {"type": "integer", "minimum": 1}, "title": {"type": "string"}},
                "required": ["id", "title"],
                "additionalProperties": false
            }},
            "required": ["deleted"],
            "additionalProperties": false
        })
    }

    /// What `delete_note` would delete: `{"delete": {"id": 3, "title": "..."}}`.
    fn delete_preview(&self, note_id: &u32, cx: &Context) -> Result<serde_json::Value, NoteError> {
        self.with_space(cx, |space| match space.notes.iter().find(|n| n.id == *note_id) {
            Some(note) => Ok(serde_json::json!({"delete": {"id": note.id, "title": note.title}})),
            None => Err(NoteError::NotFound { rejected: *note_id, ids: ids(&space.notes) }),
        })
    }
}

/// The ids a refusal lists: the first ten, then how many more, so the refusal stays short however
/// many notes there are.
fn ids(notes: &[Note]) -> String {
    const SHOWN: usize = 10;
    if notes.is_empty() {
        return "none yet".to_owned();
    }
    let shown = notes.iter().take(SHOWN).map(|n| n.id.to_string()).collect::<Vec<_>>().join(", ");
    match notes.len().saturating_sub(SHOWN) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// Why a note tool refuses.
#[derive(ToolError)]
pub enum NoteError {
    #[refuse(code = codes::NOT_FOUND, parameter = "note_id", reason = "is not the id of a note",
             accepted = "the id of an existing note (ids now: {ids})",
             fix = "Call list_notes to see the notes and their ids, then send one of them.")]
    NotFound { rejected: u32, ids: String },
}

#[tools]
impl NoteStore {
    /// Creates a note with a title and optional tags. Send an idempotency_key to make a retry safe.
    #[tool(destructive = false, idempotency_key)]
    fn create_note(
        &self,
        /// The note's title.
        #[validate(length = 1..=120)]
        title: String,
        /// Tags for finding the note later.
        #[validate(length = ..=10, each(pattern = "^[a-z0-9-]{1,32}$", example = "release-notes"))]
        tags: Option<Vec<String>>,
        /// Whether to pin the note to the top.
        #[validate(default = false)]
        pinned: bool,
        cx: &Context,
    ) -> Note {
        self.writes.fetch_add(1, Ordering::SeqCst);
        self.with_space(cx, |space| {
            space.next_id = space.next_id.saturating_add(1);
            let note = Note { id: space.next_id, title, tags: tags.unwrap_or_default(), pinned };
            space.notes.push(note.clone());
            note
        })
    }

    /// Deletes a note. Nothing is deleted until the person approves: the call answers a preview
    /// and a pending_action_id for confirm_action.
    #[tool(destructive, confirm = delete_preview, output_schema = Self::deleted_schema)]
    fn delete_note(
        &self,
        /// The id of the note to delete (see list_notes).
        #[validate(range = 1..)]
        note_id: u32,
        cx: &Context,
    ) -> Result<serde_json::Value, NoteError> {
        self.with_space(cx, |space| {
            let Some(at) = space.notes.iter().position(|n| n.id == note_id) else {
                return Err(NoteError::NotFound { rejected: note_id, ids: ids(&space.notes) });
            };
            self.writes.fetch_add(1, Ordering::SeqCst);
            let note = space.notes.remove(at);
            Ok(serde_json::json!({"deleted": {"id": note.id, "title": note.title}}))
        })
    }

    /// Lists the notes, oldest first; an empty list when there are none.
    #[tool(read_only, idempotent)]
    fn list_notes(
        &self,
        /// Only the pinned notes.
        #[validate(default = false)]
        pinned_only: bool,
        cx: &Context,
    ) -> Vec<Note> {
        self.with_space(cx, |space| space.notes.iter().filter(|n| n.pinned || !pinned_only).cloned().collect())
    }
}

/// `purge_notes` over a note store: a T4 tool, which no public surface shows. Register it
/// beside the others for an internal surface: `toolbox_over(notes.clone()).with_state(Arc::new(Purge(notes)))`.
pub struct Purge(pub Arc<NoteStore>);

impl Purge {
    /// What `purge_notes` would delete: `{"purge": {"notes": 3}}`.
    fn purge_preview(&self, cx: &Context) -> Result<serde_json::Value, NoteError> {
        let count = self.0.with_space(cx, |space| space.notes.len());
        Ok(serde_json::json!({"purge": {"notes": count}}))
    }
}

#[tools]
impl Purge {
    /// Deletes every note of the caller's tenant. Tier 4: never offered on a public surface.
    /// Nothing is deleted until the person approves: the call answers a preview and a
    /// pending_action_id for confirm_action.
    #[tool(destructive, tier = 4, scopes = ["notes:admin"], confirm = purge_preview)]
    fn purge_notes(&self, cx: &Context) -> Result<serde_json::Value, NoteError> {
        self.0.writes.fetch_add(1, Ordering::SeqCst);
        let purged = self.0.with_space(cx, |space| std::mem::take(&mut space.notes).len());
        Ok(serde_json::json!({"purged": purged}))
    }
}

/// The JSON Schema of `set_threshold`'s answer.
fn threshold_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {"ratio": {"type": "number", "minimum": 0, "exclusiveMaximum": 1}},
        "required": ["ratio"],
        "additionalProperties": false
    })
}

/// Sets the alerting threshold, authorised by an API key.
#[tool(idempotent, output_schema = threshold_schema)]
fn set_threshold(
    /// The share of failed calls that raises an alert.
    #[validate(range = 0.0..1.0)]
    ratio: f64,
    /// The API key: "sk-" then 16 to 64 letters or digits.
    #[validate(secret, pattern = "^sk-[A-Za-z0-9]{16,64}$")]
    api_key: String,
) -> serde_json::Value {
    let _ = api_key;
    serde_json::json!({ "ratio": ratio })
}

/// The JSON Schema of `rebuild_index`'s answer.
fn rebuild_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "rebuilt": {"type": "boolean"},
            "ticks": {"type": "integer", "minimum": 0},
            "of": {"type": "integer", "minimum": 10, "maximum": 600}
        },
        "required": ["rebuilt", "ticks", "of"],
        "additionalProperties": false
    })
}

/// Rebuilds the search index. Takes `seconds` seconds, reporting progress every 100 ms tick
/// (when the client asked for progress) and logging each tick at debug, its start and end at
/// info. Stops at the next tick when the call is cancelled; answers how many ticks it did.
#[tool(idempotent, output_schema = rebuild_schema)]
fn rebuild_index(
    /// How long the rebuild takes, in seconds.
    #[validate(range = 1..=60)]
    seconds: u32,
    cx: Context,
) -> serde_json::Value {
    let of = seconds * 10;
    cx.info(format!("rebuilding the index: {of} ticks of 100 ms"));
    let mut ticks = 0;
    while ticks < of && !cx.is_cancelled() {
        std::thread::sleep(std::time::Duration::from_millis(100));
        ticks += 1;
        cx.progress(ticks, of);
        cx.debug(format!("tick {ticks} of {of}"));
    }
    let rebuilt = ticks == of;
    cx.info(if rebuilt { "the index is rebuilt".to_owned() } else { format!("stopped after {ticks} of {of} ticks") });
    serde_json::json!({"rebuilt": rebuilt, "ticks": ticks, "of": of})
}

/// The JSON Schema of `whoami`'s answer.
fn whoami_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "anonymous": {"type": "boolean"},
            "subject": {"type": ["string", "null"]},
            "tenant": {"type": ["string", "null"]},
            "scopes": {"type": "array", "items": {"type": "string"}},
            "surface": {"type": "string"},
            "protocol_version": {"type": ["string", "null"]}
        },
        "required": ["anonymous", "subject", "tenant", "scopes", "surface", "protocol_version"],
        "additionalProperties": false
    })
}

/// Answers who is calling, as this server sees the call: the subject, tenant and scopes
/// (anonymous when none was verified), the surface and the protocol version.
#[tool(read_only, idempotent, output_schema = whoami_schema)]
fn whoami(cx: &Context) -> serde_json::Value {
    let caller = cx.caller();
    serde_json::json!({
        "anonymous": caller.is_anonymous(),
        "subject": caller.subject(),
        "tenant": caller.tenant(),
        "scopes": caller.scopes(),
        "surface": cx.surface(),
        "protocol_version": cx.protocol_version(),
    })
}

/// `toolbox` with the two tools that read their call: `rebuild_index` and `whoami`.
pub fn with_context_tools(toolbox: envelope_core::Toolbox) -> envelope_core::Toolbox {
    toolbox.with(rebuild_index::tool()).with(whoami::tool())
}

/// `server` with `rebuild_index` served as an MCP task (SEP-2663, optional): a client that
/// declared the extension `io.modelcontextprotocol/tasks` gets the create-task result at once
/// (`{"resultType": "task", "taskId": ..., "status": "working", ...}`) and polls `tasks/get`;
/// any other client gets the direct answer. Its `tools/list` entry says so in its `_meta`:
/// `{"io.modelcontextprotocol/tasks": {"taskSupport": "optional"}}`.
pub fn with_tasks(server: envelope_core::mcp::McpServer) -> envelope_core::mcp::McpServer {
    server.with_task("rebuild_index", envelope_core::mcp::tasks::TaskSupport::Optional)
}

/// The OAuth scopes the example server requires when it verifies its callers (the tools
/// themselves declare none, so the tests and the servers without authentication call them
/// anonymously): the reads (`get_top_queries`, `search_analytics`, `list_notes`, `whoami`)
/// `notes:read`; the writes (`create_note`, `set_threshold`, `rebuild_index`) `notes:write`;
/// `delete_note` `notes:admin` (`purge_notes` declares `notes:admin` itself).
pub const SCOPES: &[(&str, &[&str])] = &[
    ("get_top_queries", &["notes:read"]),
    ("search_analytics", &["notes:read"]),
    ("list_notes", &["notes:read"]),
    ("whoami", &["notes:read"]),
    ("create_note", &["notes:write"]),
    ("set_threshold", &["notes:write"]),
    ("rebuild_index", &["notes:write"]),
    ("delete_note", &["notes:admin"]),
];

/// `toolbox` with [`SCOPES`] required of every caller.
pub fn with_scopes(toolbox: envelope_core::Toolbox) -> envelope_core::Toolbox {
    SCOPES.iter().fold(toolbox, |toolbox, &(name, scopes)| toolbox.with_tool_scopes(name, scopes))
}

/// The example tools, over a fresh note store, with the in-memory store of approvals and keys.
pub fn toolbox() -> envelope_core::Toolbox {
    toolbox_over(Arc::new(NoteStore::default()))
}

/// The example tools over `notes` (replicas of one server share it, as they would a database).
pub fn toolbox_over(notes: Arc<NoteStore>) -> envelope_core::Toolbox {
    envelope_core::Toolbox::new()
        .with(get_top_queries::tool())
        .with(search_analytics::tool())
        .with_state(notes)
        .with(set_threshold::tool())
}

/// The example tools as the example servers run them: `ENVELOPE_SECRET` (at least 32 bytes)
/// seals pending actions, else a random key of this process; `ENVELOPE_REDIS_URL` set, approvals
/// and idempotency keys live in that Redis (feature `redis`), else in memory.
///
/// # Errors
/// A sentence for the operator: a secret too short, a Redis that cannot be reached.
pub async fn configured() -> Result<envelope_core::Toolbox, String> {
    let mut toolbox = toolbox();
    if let Ok(secret) = std::env::var("ENVELOPE_SECRET") {
        toolbox = toolbox.with_secret(secret).map_err(|e| format!("ENVELOPE_SECRET: {e}"))?;
    }
    if let Ok(url) = std::env::var("ENVELOPE_REDIS_URL") {
        let store = envelope_core::call::guard::store::RedisStore::connect(&url)
            .await
            .map_err(|e| format!("ENVELOPE_REDIS_URL: {e}"))?;
        toolbox = toolbox.with_store(Arc::new(store));
    }
    Ok(toolbox)
}
