//! Who is calling, and the call a tool body sees.
//!
//! A [`Caller`] is what a server's authentication established: a subject id, the scopes
//! granted, the tenant, the verified claims. Every surface hands one to the call: the HTTP
//! surfaces take it from the auth hook (`http::Authenticate`, feature `http`), MCP over stdio
//! from the server's configuration (MCP's authorization spec leaves a local server's caller to
//! its environment), [`Toolbox::call`](crate::Toolbox::call) calls as [`Caller::anonymous`].
//!
//! A [`Context`] is one call as it travels through the toolbox: its caller, its call id, the
//! surface it came in on and the MCP protocol version. Policy, the audit record and the tool's
//! own body read it; [`Toolbox::call_in`](crate::Toolbox::call_in) takes one.
//!
//! A tool takes the call's [`Context`] as a parameter (`cx: Context` or `cx: &Context`, never
//! part of any schema) to see it live: whether it was cancelled ([`Context::is_cancelled`],
//! [`Context::cancelled`]), to report progress ([`Context::progress`]) and to log to the client
//! ([`Context::log`]).

// Who is calling: `Caller`, its key.
mod caller;
// Cancellation: the `Cancelled` future, a deadline, a call cancelled when its future is dropped.
mod cancel;
// What a tool asks its client: sampling, elicitation, roots.
mod asks;
// The kinds of ask, why one got no answer, the user's answer to an elicitation.
mod requests;
// The live part of a call, shared by every clone of its context; where its messages go.
mod live;
// Progress and log messages, within their rates and sizes.
mod progress;
// Log levels, a checked progress report, the rate bound's memory, the sizes messages are cut to.
mod messages;
#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

pub(crate) use caller::add_scopes;
#[cfg(feature = "http")]
pub(crate) use caller::counted_address;
pub use caller::{ANONYMOUS, Caller};
pub use cancel::Cancelled;
use live::Live;
#[cfg(feature = "rmcp")]
pub(crate) use live::{BodyStart, Sink};
pub use messages::LogLevel;
#[cfg(feature = "rmcp")]
pub(crate) use messages::Progress;
#[cfg(feature = "rmcp")]
pub(crate) use requests::Asked;
pub use requests::{ClientAsk, ClientError, ElicitAction, Elicitation};

/// One call as it travels through the toolbox: who made it, its id, where it came in, and (for
/// the tool's body) whether it was cancelled, its progress and its log messages. Cheap to clone
/// (one `Arc`); every clone is the same call. A context is one call: make a new one for each
/// (a cancellation or a timeout stays with it).
///
/// ```
/// use envelope_core::{Caller, Context};
///
/// let cx = Context::new(Caller::new("alice")).with_surface("internal");
/// assert_eq!(cx.caller().subject(), Some("alice"));
/// assert_eq!(cx.surface(), "internal");
/// assert_eq!(cx.call_id().len(), 26); // "call_" and 21 characters
/// assert!(cx.call_id().starts_with("call_"));
/// ```
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
}

struct Inner {
    caller: Caller,
    /// This process's number of the call; its id is written from it when first asked for.
    seq: u64,
    call_id: std::sync::OnceLock<String>,
    surface: std::borrow::Cow<'static, str>,
    protocol_version: Option<String>,
    /// The call's live part, when this context made it (`parent` is `None`).
    live: Live,
    /// The context this one was made from while a clone of it was held: the live part is that
    /// one's, so every clone still sees one cancellation.
    parent: Option<Arc<Inner>>,
}

impl Inner {
    /// The call's live part: its own, or the first context's it was made from.
    fn live(&self) -> &Live {
        match &self.parent {
            Some(parent) => parent.live(),
            None => &self.live,
        }
    }
}

impl Context {
    /// Whether the body of this call waits for its transport before it runs
    /// ([`Sink::waits_before_body`]).
    pub(crate) fn waits_before_body(&self) -> bool {
        self.inner.live().sink.as_ref().is_some_and(|sink| sink.waits_before_body())
    }

    /// Waits, where the transport asks it, until the body may run: `false` to run nothing
    /// ([`Sink::body_may_start`]).
    pub(crate) async fn body_may_start(&self) -> bool {
        let start = self.inner.live().sink.as_ref().and_then(|sink| sink.body_may_start());
        match start {
            Some(start) => start.await,
            None => true,
        }
    }
}

impl Inner {
    /// A new call by `caller` on the surface `"local"`: its own number, nothing else set.
    fn local(caller: Caller) -> Self {
        Inner {
            caller,
            seq: next_seq(),
            call_id: std::sync::OnceLock::new(),
            surface: std::borrow::Cow::Borrowed("local"),
            protocol_version: None,
            live: Live::new(None),
            parent: None,
        }
    }
}

impl Inner {
    /// This anonymous local call's memory made a new call: its own number and call id, not
    /// cancelled, no deadline, no progress, no pending waker.
    fn renew(&mut self) {
        debug_assert!(
            self.caller.is_anonymous() && self.caller.tenant().is_none() && self.surface == "local",
            "only an anonymous local call is renewed"
        );
        debug_assert!(self.protocol_version.is_none() && self.parent.is_none() && self.live.sink.is_none());
        self.seq = next_seq();
        if self.call_id.get().is_some() {
            self.call_id = std::sync::OnceLock::new();
        }
        self.live.renew();
    }
}

thread_local! {
    /// The memory of the last anonymous local call this thread gave back, nothing holding it:
    /// the next one is written into it instead of a new allocation.
    static SPARE: std::cell::Cell<Option<Context>> = const { std::cell::Cell::new(None) };
}

impl Context {
    /// A call by `caller`, on the surface `"local"` (in-process), with a new call id.
    pub fn new(caller: Caller) -> Self {
        Context { inner: Arc::new(Inner::local(caller)) }
    }

    /// [`new`](Self::new) on `surface`, as [`with_surface`](Self::with_surface) gives it, in
    /// one allocation: the default surfaces' names (`"http"`, `"mcp"`) are not copied.
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))] // the servers' contexts
    pub(crate) fn on_surface(caller: Caller, surface: &str) -> Self {
        let surface = match surface {
            "http" => std::borrow::Cow::Borrowed("http"),
            "mcp" => std::borrow::Cow::Borrowed("mcp"),
            other => std::borrow::Cow::Owned(other.to_owned()),
        };
        Context { inner: Arc::new(Inner { surface, ..Inner::local(caller) }) }
    }

    /// A new anonymous call on the surface `"local"`, as [`anonymous`](Self::anonymous) makes
    /// it (its own number and call id, not cancelled, no deadline), written into the memory of
    /// the last one this thread gave back ([`recycle`](Self::recycle)) when there is one.
    pub(crate) fn anonymous_local() -> Self {
        if let Some(mut cx) = SPARE.take()
            && let Some(inner) = Arc::get_mut(&mut cx.inner)
        {
            // Only a call's own parts are written again: its caller, surface and version are
            // still those `anonymous_local` gave it (nothing changes a context in place).
            inner.renew();
            return cx;
        }
        Context::anonymous()
    }

    /// Ends this call: when nothing else holds it (no clone kept by a body, a task or a
    /// `Cancelled`), its memory is kept for the next [`anonymous_local`](Self::anonymous_local)
    /// on this thread.
    pub(crate) fn recycle(mut self) {
        if Arc::get_mut(&mut self.inner).is_some() {
            SPARE.set(Some(self));
        }
    }

    /// An anonymous call on the surface `"local"`.
    pub fn anonymous() -> Self {
        Context::new(Caller::anonymous())
    }

    /// On the surface named `surface` (e.g. `"mcp"`, `"internal"`, `"http"`).
    #[must_use]
    pub fn with_surface(self, surface: impl Into<String>) -> Self {
        self.map(|i| i.surface = std::borrow::Cow::Owned(surface.into()))
    }

    /// Made with this MCP protocol version (e.g. `"2026-07-28"`).
    #[must_use]
    pub fn with_protocol_version(self, version: impl Into<String>) -> Self {
        self.map(|i| i.protocol_version = Some(version.into()))
    }

    /// With this call id instead of a new one (e.g. one a gateway assigned).
    #[must_use]
    pub fn with_call_id(self, id: impl Into<String>) -> Self {
        self.map(|i| i.call_id = std::sync::OnceLock::from(id.into()))
    }

    /// This context changed by `f`: in place when no clone is held (one allocation per call,
    /// the context's own), else a copy whose live part stays the clones' (`parent`).
    fn map(mut self, f: impl FnOnce(&mut Inner)) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            // Changed where it is: no copy of the context, no second allocation.
            f(inner);
            return self;
        }
        let inner = match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => {
                f(&mut inner);
                inner
            }
            Err(shared) => {
                let mut inner = Inner {
                    caller: shared.caller.clone(),
                    seq: shared.seq,
                    call_id: shared.call_id.clone(),
                    surface: shared.surface.clone(),
                    protocol_version: shared.protocol_version.clone(),
                    live: Live::new(None),
                    parent: None,
                };
                f(&mut inner);
                if inner.parent.is_none() && inner.live.sink.is_none() {
                    inner.parent = Some(shared);
                }
                inner
            }
        };
        Context { inner: Arc::new(inner) }
    }

    /// This call made by `caller` instead (an approved action run as the caller who queued it):
    /// the same call id, surface, cancellation and deadline.
    #[must_use]
    pub(crate) fn with_caller(self, caller: Caller) -> Self {
        self.map(|i| i.caller = caller)
    }

    /// Who is calling.
    pub fn caller(&self) -> &Caller {
        &self.inner.caller
    }

    /// This call's id: `call_` and 21 characters of base64url (a counter of this process and 62
    /// bits drawn once per process, so unique across calls and replicas; not a secret). The audit
    /// record, the reply's `provenance` and the log line of the call share it.
    pub fn call_id(&self) -> &str {
        self.inner.call_id.get_or_init(|| call_id_of(self.inner.seq))
    }

    /// The surface the call came in on (`"local"` for an in-process call).
    pub fn surface(&self) -> &str {
        &self.inner.surface
    }

    /// The MCP protocol version of the call, when it came over MCP and the version is known.
    pub fn protocol_version(&self) -> Option<&str> {
        self.inner.protocol_version.as_deref()
    }
}

impl Default for Context {
    fn default() -> Self {
        Context::anonymous()
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("call_id", &self.call_id())
            .field("surface", &self.inner.surface)
            .field("caller", &self.inner.caller)
            .field("protocol_version", &self.inner.protocol_version)
            .finish()
    }
}

/// The next number of a call in this process.
fn next_seq() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// `call_` and 21 base64url characters: call `seq` of this process, and 8 bytes drawn once per
/// process from the OS (unique across replicas). No system call per call, and nothing written
/// until the id is asked for.
fn call_id_of(seq: u64) -> String {
    use base64::Engine as _;
    use std::sync::OnceLock;
    static PROCESS: OnceLock<[u8; 8]> = OnceLock::new();
    let process = PROCESS.get_or_init(|| {
        let mut bytes = [0u8; 8];
        if getrandom::fill(&mut bytes).is_err() {
            // No generator: the start time in nanoseconds still tells processes apart.
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
            bytes = (nanos as u64).to_le_bytes();
        }
        bytes
    });
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&seq.to_le_bytes());
    bytes[8..].copy_from_slice(process);
    let mut id = String::with_capacity(26);
    id.push_str("call_");
    // 21 characters carry the number whole and 62 bits of the process's bytes.
    id.push_str(&base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)[..21]);
    id
}
