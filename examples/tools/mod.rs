//! The four example tools of the project (`get_top_queries`, `search_analytics`, `create_note`,
//! `set_threshold`), answering from small in-memory data. Shared by the example server and the
//! tests.

use std::sync::{Arc, Mutex, PoisonError};

use envelope_core::{tool, tools};
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

#[derive(Serialize)]
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

#[derive(Clone, Serialize)]
struct Note {
    id: u32,
    title: String,
    tags: Vec<String>,
    pinned: bool,
}

/// The notes written so far: the state behind `create_note`.
#[derive(Default)]
pub struct NoteStore {
    notes: Mutex<Vec<Note>>,
}

#[tools]
impl NoteStore {
    /// Creates a note with a title and optional tags.
    #[tool(destructive = false)]
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
    ) -> Note {
        let mut notes = self.notes.lock().unwrap_or_else(PoisonError::into_inner);
        let note = Note { id: notes.len() as u32 + 1, title, tags: tags.unwrap_or_default(), pinned };
        notes.push(note.clone());
        note
    }
}

/// Sets the alerting threshold, authorised by an API key.
#[tool(idempotent)]
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

/// The four example tools.
pub fn toolbox() -> envelope_core::Toolbox {
    envelope_core::Toolbox::new()
        .with(get_top_queries::tool())
        .with(search_analytics::tool())
        .with_state(Arc::new(NoteStore::default()))
        .with(set_threshold::tool())
}
