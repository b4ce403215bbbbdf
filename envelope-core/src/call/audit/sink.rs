//! Where audit records go: the [`AuditSink`] trait and the sinks envelope provides.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
#[cfg(feature = "tokio")]
use std::sync::{Arc, Mutex, PoisonError};

use super::AuditRecord;

/// A boxed future of one write of a sink.
pub type AuditFuture<'a> = Pin<Box<dyn Future<Output = Result<(), AuditError>> + Send + 'a>>;

/// Where audit records go. `write` answers once the record is kept (appended to the file,
/// acknowledged by Redis): the body of a governed write runs only after its intent's `write`
/// answered `Ok`. A write is bounded by the [`Audit`](super::Audit)'s timeout; passing it, or a panic of
/// `write` or of its future, counts as a failure.
pub trait AuditSink: Send + Sync + fmt::Debug + 'static {
    /// Keeps `record`.
    fn write<'a>(&'a self, record: &'a AuditRecord) -> AuditFuture<'a>;
}

/// A record could not be written: the detail is for the server's log, never for the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditError {
    detail: String,
    /// The write passed its timeout (the sink stalled).
    pub(super) timed_out: bool,
}

impl AuditError {
    /// A failure described by `detail` (no secret: it is logged).
    pub fn new(detail: impl Into<String>) -> Self {
        AuditError { detail: detail.into(), timed_out: false }
    }

    /// No answer within `timeout`.
    #[cfg(feature = "tokio")]
    pub(super) fn timed_out(timeout: std::time::Duration) -> Self {
        AuditError { detail: format!("no answer within {} ms", timeout.as_millis()), timed_out: true }
    }
}

impl fmt::Display for AuditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "audit record not written: {}", self.detail)
    }
}

impl std::error::Error for AuditError {}

/// The default sink: one `tracing` event per record (level INFO, target `envelope::audit`,
/// fields `call_id`, `kind` and `record`, the record's JSON). Never fails: where no subscriber
/// listens, the record is lost, so a server that must keep its trail uses a file or Redis.
#[derive(Clone, Copy, Debug, Default)]
pub struct TracingSink;

impl AuditSink for TracingSink {
    fn write<'a>(&'a self, record: &'a AuditRecord) -> AuditFuture<'a> {
        let kind = record.kind.as_str();
        tracing::info!(target: "envelope::audit", call_id = %record.call_id, kind, record = %record.to_json(), "audit");
        Box::pin(std::future::ready(Ok(())))
    }
}

/// An append-only JSON-lines file (feature `tokio`): each record one line, appended by one
/// `write` on a file opened with `O_APPEND`, on tokio's blocking threads (never on an async
/// worker), one at a time, at most [`MAX_FILE_WRITERS`] waiting. A failed write (disk full, file removed from a read-only mount)
/// fails the call's record. The lines are handed to the operating system, not `fsync`ed.
#[cfg(feature = "tokio")]
#[derive(Debug)]
pub struct JsonLinesFile {
    file: Arc<Mutex<std::fs::File>>,
    /// How many writes are on blocking threads now (at most [`MAX_FILE_WRITERS`]).
    writers: Arc<std::sync::atomic::AtomicUsize>,
}

/// The most writes of one [`JsonLinesFile`] on tokio's blocking threads at once: past them (a
/// file that stopped taking writes: a full pipe, a hung network mount) a write fails at once
/// instead of taking one more thread.
#[cfg(feature = "tokio")]
pub const MAX_FILE_WRITERS: usize = 4;

#[cfg(feature = "tokio")]
impl JsonLinesFile {
    /// Opens (creating it if absent) the file at `path` for appending.
    ///
    /// # Errors
    /// When the file cannot be opened for appending, or is read-only (no write permission bit,
    /// e.g. `/proc/version`, which a process running as root opens but cannot append to): a
    /// server refuses to start with a trail it cannot write (`PermissionDenied`).
    pub fn open(path: impl AsRef<std::path::Path>) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        if file.metadata()?.permissions().readonly() {
            return Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "the file is read-only"));
        }
        Ok(JsonLinesFile { file: Arc::new(Mutex::new(file)), writers: Arc::default() })
    }
}

/// One write's place among a file's [`MAX_FILE_WRITERS`], given back when dropped (written, or
/// never run).
#[cfg(feature = "tokio")]
struct Writer(Arc<std::sync::atomic::AtomicUsize>);

#[cfg(feature = "tokio")]
impl Writer {
    fn enter(writers: Arc<std::sync::atomic::AtomicUsize>) -> Option<Self> {
        use std::sync::atomic::Ordering;
        let place = Writer(writers);
        // Counted first, so the place is given back by its drop whatever happens.
        (place.0.fetch_add(1, Ordering::AcqRel) < MAX_FILE_WRITERS).then_some(place)
    }
}

#[cfg(feature = "tokio")]
impl Drop for Writer {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

#[cfg(feature = "tokio")]
impl AuditSink for JsonLinesFile {
    fn write<'a>(&'a self, record: &'a AuditRecord) -> AuditFuture<'a> {
        let mut line = record.to_json();
        line.push('\n');
        let file = self.file.clone();
        let writers = Arc::clone(&self.writers);
        Box::pin(async move {
            let Some(place) = Writer::enter(writers) else {
                return Err(AuditError::new(format!(
                    "{MAX_FILE_WRITERS} writes already wait for the audit file to take them"
                )));
            };
            let written = tokio::task::spawn_blocking(move || {
                use std::io::Write as _;
                let _place = place;
                let mut f = file.lock().unwrap_or_else(PoisonError::into_inner);
                f.write_all(line.as_bytes())
            })
            .await;
            match written {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(AuditError::new(format!("appending to the audit file: {e}"))),
                Err(_) => Err(AuditError::new("appending to the audit file: the runtime shut down")),
            }
        })
    }
}

/// A Redis stream (feature `redis`): each record an entry `record <JSON>` appended with
/// `XADD <stream> MAXLEN ~ <cap> *`, on the connection (and within the deadline) of a
/// [`RedisStore`](crate::call::guard::store::RedisStore), so every replica appends to one trail. The cap
/// (default 1 000 000 entries) trims the oldest entries (approximately, as `~` lets Redis
/// trim whole nodes): ship the stream elsewhere before it wraps.
#[cfg(feature = "redis")]
#[derive(Clone, Debug)]
pub struct RedisStream {
    store: crate::call::guard::store::RedisStore,
    stream: String,
    cap: usize,
}

#[cfg(feature = "redis")]
impl RedisStream {
    /// Appends to `stream` (e.g. `"envelope:audit"`, under the store's prefix) over `store`'s
    /// connection.
    pub fn new(store: crate::call::guard::store::RedisStore, stream: impl Into<String>) -> Self {
        RedisStream { store, stream: stream.into(), cap: 1_000_000 }
    }

    /// Keeps about `cap` entries (at least 1).
    #[must_use]
    pub fn with_cap(mut self, cap: usize) -> Self {
        self.cap = cap.max(1);
        self
    }
}

#[cfg(feature = "redis")]
impl AuditSink for RedisStream {
    fn write<'a>(&'a self, record: &'a AuditRecord) -> AuditFuture<'a> {
        Box::pin(async move {
            self.store.xadd(&self.stream, self.cap, &record.to_json()).await.map_err(|e| AuditError::new(e.to_string()))
        })
    }
}
