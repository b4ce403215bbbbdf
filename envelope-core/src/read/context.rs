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

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{self, Poll, Waker};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

/// The caller key of every call without a verified identity ([`Caller::key`] of an anonymous
/// caller without a tenant). Keys of verified callers differ from it (`sub:alice`).
pub const ANONYMOUS: &str = "anonymous";

/// Who is calling: a subject id, the scopes granted, the tenant, and the claims they were read
/// from (a verified JWT's payload, an introspection answer). [`Caller::anonymous`] when nothing
/// was verified.
///
/// ```
/// use envelope_core::Caller;
///
/// let alice = Caller::new("alice").with_scopes(["notes:read", "notes:write"]).with_tenant("acme");
/// assert_eq!(alice.subject(), Some("alice"));
/// assert!(alice.has_scope("notes:write"));
/// assert_eq!(alice.tenant(), Some("acme"));
/// assert_eq!(alice.key(), "sub:alice@acme");
/// assert_eq!(Caller::anonymous().key(), "anonymous");
/// ```
///
/// Its `Debug` shows the subject, scopes and tenant, and counts the claims without showing them.
#[derive(Clone, Default, PartialEq)]
pub struct Caller {
    subject: Option<String>,
    scopes: Vec<String>,
    tenant: Option<String>,
    claims: Map<String, Value>,
}

impl Caller {
    /// No verified identity: no subject, no scopes, no tenant.
    pub fn anonymous() -> Self {
        Caller::default()
    }

    /// A verified subject (a JWT's `sub`, an introspection answer's `sub`, a configured id).
    pub fn new(subject: impl Into<String>) -> Self {
        Caller { subject: Some(subject.into()), ..Caller::default() }
    }

    /// With these scopes granted (OAuth 2.0 scope tokens, RFC 6749 §3.3), in addition to any
    /// already granted; each kept once.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        add_scopes(&mut self.scopes, scopes);
        self
    }

    /// With this tenant (a verified claim, or a header a surface accepted).
    #[must_use]
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self
    }

    /// With the claims the identity was read from (kept as verified; never shown in a reply).
    #[must_use]
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// The subject id; `None` for an anonymous caller.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The scopes granted, in the order first granted.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// The tenant, if any.
    pub fn tenant(&self) -> Option<&str> {
        self.tenant.as_deref()
    }

    /// The verified claims (empty when none were read).
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }

    /// Whether no identity was verified.
    pub fn is_anonymous(&self) -> bool {
        self.subject.is_none()
    }

    /// The key a quota, an idempotency key or a rate limit is counted under:
    /// `sub:<subject>@<tenant>`, `sub:<subject>` without a tenant, `tenant:<tenant>` for an
    /// anonymous caller of a tenant, else [`ANONYMOUS`]. In the subject, `%` is
    /// written `%25` and `@` `%40` (subject `a@b` is `sub:a%40b`, never the key of subject `a`
    /// of tenant `b`), so two different callers never share a key.
    pub fn key(&self) -> String {
        match (&self.subject, &self.tenant) {
            (Some(s), Some(t)) => format!("sub:{}@{t}", escape_subject(s)),
            (Some(s), None) => format!("sub:{}", escape_subject(s)),
            (None, Some(t)) => format!("tenant:{t}"),
            (None, None) => ANONYMOUS.to_owned(),
        }
    }
}

/// A subject with `%` and `@` percent-encoded, so the first `@` of a key ends the subject.
fn escape_subject(subject: &str) -> std::borrow::Cow<'_, str> {
    if !subject.contains(['%', '@']) {
        return std::borrow::Cow::Borrowed(subject);
    }
    std::borrow::Cow::Owned(subject.replace('%', "%25").replace('@', "%40"))
}

/// Adds each of `scopes` to `list` that it does not hold yet, in order: the scope set of a
/// [`Caller`] and of a surface.
pub(crate) fn add_scopes<S: Into<String>>(list: &mut Vec<String>, scopes: impl IntoIterator<Item = S>) {
    for s in scopes {
        let s = s.into();
        if !list.contains(&s) {
            list.push(s);
        }
    }
}

impl fmt::Debug for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Caller")
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .field("tenant", &self.tenant)
            .field("claims", &self.claims.len())
            .finish()
    }
}

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

/// What a tool's body sees of its call while it runs: cancellation, progress, log messages.
///
/// These work on every surface. Over MCP (stdio and Streamable HTTP) progress becomes
/// `notifications/progress` and log messages `notifications/message` to the client (see
/// [`crate::mcp`]); over the plain HTTP endpoints and [`Toolbox::call`](crate::Toolbox::call)
/// they go to `tracing` (target `envelope::tool`, with the field `call_id`).
impl Context {
    /// Whether the call was cancelled: by the client (MCP `notifications/cancelled`), by a
    /// dropped connection (Streamable HTTP, `POST /tools/...`), by its timeout
    /// (`#[tool(timeout_ms = N)]`, sync bodies too), by the server shutting down under it, or
    /// by [`cancel`](Self::cancel). One atomic load (and a clock read when the call has a
    /// timeout): cheap enough to check on every step of a sync loop.
    ///
    /// Nothing stops a body by force: a sync body that never checks runs to its end (its
    /// envelope is then dropped, or answered `TIMEOUT`); an async body is dropped at its next
    /// `.await` when its call is cancelled.
    ///
    /// ```
    /// use envelope_core::Context;
    ///
    /// let cx = Context::anonymous();
    /// assert!(!cx.is_cancelled());
    /// cx.clone().cancel();
    /// assert!(cx.is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        self.inner.live().is_cancelled()
    }

    /// A future that completes when the call is cancelled (see
    /// [`is_cancelled`](Self::is_cancelled)); at once if it already was. For an async body:
    /// `tokio::select! { r = work() => r, () = cx.cancelled() => ... }`. It owns what it needs
    /// (`'static`), so a task the body spawns can hold it. A call's timeout makes it complete
    /// where the call's future is polled by a timer (`timeout_ms` on an async tool cancels the
    /// call when it fires); a sync body reads [`is_cancelled`](Self::is_cancelled), which
    /// counts the timeout by the clock.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled { inner: Arc::clone(&self.inner), slot: None }
    }

    /// Cancels the call: every clone of this context sees it, every [`cancelled`](Self::cancelled)
    /// future completes. The transports call it; a server of your own can too.
    pub fn cancel(&self) {
        self.inner.live().cancel();
    }

    /// Reports progress: `done` of `total` (in any unit; MCP `progress` and `total`). See
    /// [`progress_with`](Self::progress_with).
    pub fn progress(&self, done: impl Into<f64>, total: impl Into<f64>) {
        self.inner.live().progress(self, done.into(), Some(total.into()), None);
    }

    /// Reports progress with a message for a person (`message`, cut to 512 characters).
    ///
    /// Over MCP it is a `notifications/progress` (MCP 2025-11-25, "Utilities / Progress")
    /// `{"progressToken": T, "progress": done, "total": total, "message": message}` with the
    /// request's own `progressToken`, and only when the client sent one: none otherwise. A
    /// value that does not increase on the last one sent (or is not a finite number) is
    /// dropped, as the spec asks `progress` to increase. At most one notification goes out per
    /// 50 milliseconds, except the last: a report within 50 ms of the last
    /// one sent is held until a later report replaces it or goes out, and the call's end sends
    /// the one still held, so the last value reported always arrives. A report that reaches
    /// `total` goes out at once.
    pub fn progress_with(&self, done: impl Into<f64>, total: impl Into<f64>, message: &str) {
        self.inner.live().progress(self, done.into(), Some(total.into()), Some(message));
    }

    /// Logs `message` at `level` to the client: an MCP `notifications/message`
    /// `{"level": "info", "logger": "envelope", "data": message}` (MCP 2025-11-25, "Utilities /
    /// Logging"), sent only when `level` is at or above the level the client set (with
    /// `logging/setLevel`, or on 2026-07-28 the request's `_meta`
    /// `io.modelcontextprotocol/logLevel`); see [`crate::mcp`] for how long a level holds. The
    /// message is cut to 4096 bytes (at a character, ending `…`). Never put a secret in it:
    /// it is sent as written.
    pub fn log(&self, level: LogLevel, message: impl AsRef<str>) {
        self.inner.live().log(self, level, message.as_ref());
    }

    /// [`log`](Self::log) at `debug`.
    pub fn debug(&self, message: impl AsRef<str>) {
        self.log(LogLevel::Debug, message);
    }

    /// [`log`](Self::log) at `info`.
    pub fn info(&self, message: impl AsRef<str>) {
        self.log(LogLevel::Info, message);
    }

    /// [`log`](Self::log) at `warning`.
    pub fn warning(&self, message: impl AsRef<str>) {
        self.log(LogLevel::Warning, message);
    }

    /// [`log`](Self::log) at `error`.
    pub fn error(&self, message: impl AsRef<str>) {
        self.log(LogLevel::Error, message);
    }

    /// Asks the client's model for a completion: an MCP `sampling/createMessage` request with
    /// `params` as sent (MCP 2025-11-25, "Client Features / Sampling":
    /// `{"messages": [{"role": "user", "content": {"type": "text", "text": ..}}], "maxTokens": N,
    /// ...}`), answered with the client's result (`{"role": "assistant", "content": {..},
    /// "model": .., "stopReason": ..}`).
    ///
    /// Refused with [`ClientError::MissingCapability`] (`"sampling"`) when the client did not
    /// declare the capability (SEP-2575's `-32021` names it), with
    /// [`ClientError::Unavailable`] when the call was not made over an MCP session that can
    /// carry a request to its client (an HTTP tool endpoint, [`crate::Toolbox::call`]), never by
    /// waiting; [`ClientError::Failed`] carries the client's JSON-RPC error; a cancelled call
    /// stops waiting with [`ClientError::Cancelled`].
    pub async fn create_message(&self, params: Value) -> Result<Value, ClientError> {
        self.ask_client(ClientAsk::Sampling, params).await
    }

    /// Asks the client's model to answer `prompt` (one user text message, at most `max_tokens`
    /// tokens; [`create_message`](Self::create_message)) and answers the text of its reply
    /// (`""` when the reply is not text).
    pub async fn sample(&self, prompt: impl Into<String>, max_tokens: u32) -> Result<String, ClientError> {
        let params = serde_json::json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt.into()}}],
            "maxTokens": max_tokens,
        });
        let reply = self.create_message(params).await?;
        let content = reply.get("content");
        // A 2025-11-25 reply may hold a list of blocks.
        let text = content
            .and_then(|c| c.get("text").or_else(|| c.get(0).and_then(|b| b.get("text"))))
            .and_then(Value::as_str)
            .unwrap_or("");
        Ok(text.to_owned())
    }

    /// Asks the user for values: an MCP `elicitation/create` form request (MCP 2025-11-25,
    /// "Client Features / Elicitation"): `{"mode": "form", "message": message,
    /// "requestedSchema": schema}`, `schema` a flat object schema of primitive properties
    /// (with `default`s, SEP-1034; enums titled or not, single or multiple, SEP-1330). Refused as
    /// [`create_message`](Self::create_message) is, the capability named `"elicitation"`.
    pub async fn elicit(&self, message: impl Into<String>, schema: Value) -> Result<Elicitation, ClientError> {
        let params = serde_json::json!({"mode": "form", "message": message.into(), "requestedSchema": schema});
        let reply = self.ask_client(ClientAsk::Elicitation, params).await?;
        let action = match reply.get("action").and_then(Value::as_str) {
            Some("accept") => ElicitAction::Accept,
            Some("decline") => ElicitAction::Decline,
            Some("cancel") => ElicitAction::Cancel,
            _ => {
                return Err(ClientError::Failed {
                    code: -32602,
                    message: "the elicitation answer has no action".into(),
                });
            }
        };
        let content = reply.get("content").and_then(Value::as_object).cloned();
        Ok(Elicitation { action, content })
    }

    /// Asks the client `ask` with `params` as sent, under `key`: the key of the request in a
    /// 2026-07-28 input-required result (SEP-2322, `inputRequests.<key>`; see
    /// [`crate::mcp`]), unused in a 2025 session, where the request goes to the client at once.
    /// Answers the client's result object; refused as [`create_message`](Self::create_message)
    /// is. Each ask of one call needs its own key.
    pub async fn ask(&self, key: &str, ask: ClientAsk, params: Value) -> Result<Value, ClientError> {
        self.ask_keyed(ask, Some(key), params).await
    }

    /// Whether this call can ask its client `ask`: the client declared the capability and the
    /// transport carries the request (a 2025 session, or a stateless 2026-07-28 call).
    pub fn can_ask(&self, ask: ClientAsk) -> bool {
        self.inner.live().sink.as_ref().is_some_and(|sink| sink.can_ask(ask))
    }

    async fn ask_client(&self, ask: ClientAsk, params: Value) -> Result<Value, ClientError> {
        self.ask_keyed(ask, None, params).await
    }

    async fn ask_keyed(&self, ask: ClientAsk, key: Option<&str>, params: Value) -> Result<Value, ClientError> {
        let Some(sink) = self.inner.live().sink.clone() else { return Err(ClientError::Unavailable) };
        let mut asked = sink.ask(ask, key, params);
        let mut cancelled = self.cancelled();
        std::future::poll_fn(|cx| {
            if Pin::new(&mut cancelled).poll(cx).is_ready() {
                return Poll::Ready(Err(ClientError::Cancelled));
            }
            asked.as_mut().poll(cx)
        })
        .await
    }

    /// This call, with its progress and log messages sent to `sink` (a transport's).
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
    pub(crate) fn with_sink(self, sink: Arc<dyn Sink>) -> Self {
        self.map(|i| {
            i.live = Live::new(Some(sink));
            i.parent = None;
        })
    }

    /// The call ends: a progress report held back by the rate bound is sent now.
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
    pub(crate) fn flush(&self) {
        self.inner.live().flush(self);
    }

    /// The call times out `ms` milliseconds from now (a deadline already set is kept when
    /// earlier): [`is_cancelled`](Self::is_cancelled) is then true.
    pub(crate) fn time_out_in(&self, ms: u64) {
        let at = Instant::now().checked_add(Duration::from_millis(ms));
        if let Some(at) = at {
            let _ = self.inner.live().deadline.set(at);
        }
    }

    /// When the call times out, if it has a timeout.
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))]
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.inner.live().deadline.get().copied()
    }

    /// Whether the call's timeout has passed.
    pub(crate) fn timed_out(&self) -> bool {
        self.inner.live().deadline.get().is_some_and(|d| Instant::now() >= *d)
    }

    /// A guard that cancels this call when dropped before [`CancelOnDrop::disarm`]: a
    /// transport holds one while it waits, so a dropped connection or a runtime shutting down
    /// (which drop the waiting future) cancels the call.
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))]
    pub(crate) fn cancel_on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(Some(self.clone()))
    }
}

/// Cancels its call when dropped, unless disarmed.
pub(crate) struct CancelOnDrop(Option<Context>);

impl CancelOnDrop {
    /// The call ended: dropping the guard cancels nothing.
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))]
    pub(crate) fn disarm(mut self) {
        self.0 = None;
    }
}

#[cfg(feature = "http")]
pin_project_lite::pin_project! {
    /// `future`, its call's context cancelled before it is dropped unfinished (a dropped
    /// connection): an async body dropped with it sees `cx.is_cancelled()`. The future is held
    /// in place, where a future named and pinned in its caller's would keep its room there
    /// past its await.
    pub(crate) struct CancelFirst<F> {
        // Dropped first (fields drop in order): the context is cancelled, then the future dropped.
        guard: CancelOnDrop,
        #[pin]
        future: F,
    }
}

#[cfg(feature = "http")]
impl<F: std::future::Future> std::future::Future for CancelFirst<F> {
    type Output = F::Output;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<F::Output> {
        let this = self.project();
        let output = std::task::ready!(this.future.poll(cx));
        // Finished: nothing to cancel.
        this.guard.0 = None;
        std::task::Poll::Ready(output)
    }
}

#[cfg(feature = "http")]
impl Context {
    /// `future`, this call cancelled first if it is dropped unfinished.
    pub(crate) fn cancel_first<F: std::future::Future>(&self, future: F) -> CancelFirst<F> {
        CancelFirst { guard: self.cancel_on_drop(), future }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cx) = self.0.take() {
            cx.cancel();
        }
    }
}

/// The severity of a log message: the eight levels of syslog (RFC 5424 §6.2.1), as MCP names
/// them (`"debug"` to `"emergency"`, MCP 2025-11-25 "Utilities / Logging"), least severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum LogLevel {
    /// `debug`
    Debug,
    /// `info`
    Info,
    /// `notice`
    Notice,
    /// `warning`
    Warning,
    /// `error`
    Error,
    /// `critical`
    Critical,
    /// `alert`
    Alert,
    /// `emergency`
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The MCP word: `"debug"`, `"info"`, ..., `"emergency"`.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level an MCP word names.
    pub fn from_word(word: &str) -> Option<Self> {
        LogLevel::ALL.into_iter().find(|l| l.as_str() == word)
    }
}

/// A progress report that passed the checks, as a transport sends it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Progress {
    pub(crate) done: f64,
    pub(crate) total: Option<f64>,
    pub(crate) message: Option<String>,
}

/// Where a call's progress and log messages go (a transport's channel to its client).
/// What a tool asks its client for ([`Context::create_message`], [`Context::elicit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientAsk {
    /// `sampling/createMessage` (capability `sampling`).
    Sampling,
    /// `elicitation/create` (capability `elicitation`).
    Elicitation,
    /// `roots/list` (capability `roots`).
    Roots,
}

impl ClientAsk {
    /// The client capability it needs: `"sampling"`, `"elicitation"`.
    pub fn capability(self) -> &'static str {
        match self {
            ClientAsk::Sampling => "sampling",
            ClientAsk::Elicitation => "elicitation",
            ClientAsk::Roots => "roots",
        }
    }

    /// The JSON-RPC method: `"sampling/createMessage"`, `"elicitation/create"`.
    pub fn method(self) -> &'static str {
        match self {
            ClientAsk::Sampling => "sampling/createMessage",
            ClientAsk::Elicitation => "elicitation/create",
            ClientAsk::Roots => "roots/list",
        }
    }
}

/// Why a request to the client got no answer ([`Context::create_message`], [`Context::elicit`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientError {
    /// The client did not declare this capability (`"sampling"`, `"elicitation"`); MCP answers
    /// `-32021` (SEP-2575, MissingRequiredClientCapabilityError) with
    /// `data.requiredCapabilities` `{"<capability>": {}}`.
    MissingCapability(&'static str),
    /// The call was not made over an MCP session that can send a request to its client.
    Unavailable,
    /// The client answered a JSON-RPC error (or no answer that reads).
    Failed {
        /// The JSON-RPC error code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// The call was cancelled while waiting.
    Cancelled,
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::MissingCapability(c) => write!(f, "the client did not declare the `{c}` capability"),
            ClientError::Unavailable => f.write_str("this call cannot send a request to its client"),
            ClientError::Failed { code, message } => write!(f, "the client answered error {code}: {message}"),
            ClientError::Cancelled => f.write_str("the call was cancelled"),
        }
    }
}

impl std::error::Error for ClientError {}

/// The user's answer to [`Context::elicit`].
#[derive(Clone, Debug, PartialEq)]
pub struct Elicitation {
    /// What the user did.
    pub action: ElicitAction,
    /// The values entered (on `accept`), by property name.
    pub content: Option<Map<String, Value>>,
}

/// What the user did with an elicitation (`"accept"`, `"decline"`, `"cancel"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElicitAction {
    /// Submitted the form.
    Accept,
    /// Refused explicitly.
    Decline,
    /// Dismissed it.
    Cancel,
}

impl ElicitAction {
    /// The wire word.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitAction::Accept => "accept",
            ElicitAction::Decline => "decline",
            ElicitAction::Cancel => "cancel",
        }
    }
}

/// A request to the client, answered later.
pub(crate) type Asked = Pin<Box<dyn Future<Output = Result<Value, ClientError>> + Send>>;

pub(crate) trait Sink: Send + Sync {
    /// Sends `ask` with `params` to the client, under `key` where the answer comes back keyed
    /// (2026-07-28 input requests); by default there is none to ask.
    fn ask(&self, ask: ClientAsk, key: Option<&str>, params: Value) -> Asked {
        let _ = (ask, key, params);
        Box::pin(async { Err(ClientError::Unavailable) })
    }

    /// Whether [`ask`](Self::ask) can reach the client with `ask` (declared and carried).
    fn can_ask(&self, ask: ClientAsk) -> bool {
        let _ = ask;
        false
    }
    /// Sends a progress report (already checked: increasing, within the rate).
    fn progress(&self, note: Progress);
    /// The least severe level the client receives; `None`: no log message is sent.
    fn log_level(&self) -> Option<LogLevel>;
    /// Sends a log message at or above [`log_level`](Self::log_level) (already cut).
    fn log(&self, level: LogLevel, message: String);
}

/// The least time between two progress notifications of one call.
pub(crate) const PROGRESS_INTERVAL: Duration = Duration::from_millis(50);

/// The most bytes of a log message sent.
pub(crate) const MAX_LOG_BYTES: usize = 4096;

/// The most characters of a progress message sent.
const MAX_PROGRESS_CHARS: usize = 512;

/// The live part of a call, shared by every clone of its context.
struct Live {
    cancelled: AtomicBool,
    /// The wakers of pending [`Cancelled`] futures, by slot (`None`: a free slot).
    wakers: Mutex<Vec<Option<Waker>>>,
    deadline: OnceLock<Instant>,
    sink: Option<Arc<dyn Sink>>,
    progress: Mutex<Rate>,
}

/// What the rate bound of progress remembers.
#[derive(Default)]
struct Rate {
    last: Option<f64>,
    sent_at: Option<Instant>,
    held: Option<Progress>,
}

impl Live {
    fn new(sink: Option<Arc<dyn Sink>>) -> Self {
        Live {
            cancelled: AtomicBool::new(false),
            wakers: Mutex::new(Vec::new()),
            deadline: OnceLock::new(),
            sink,
            progress: Mutex::new(Rate::default()),
        }
    }

    /// As [`Live::new`] made it without a sink, keeping the memory it holds.
    fn renew(&mut self) {
        *self.cancelled.get_mut() = false;
        self.wakers.clear_poison();
        self.progress.clear_poison();
        self.wakers.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).clear();
        if self.deadline.get().is_some() {
            self.deadline = OnceLock::new();
        }
        let rate = self.progress.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        if rate.last.is_some() || rate.sent_at.is_some() || rate.held.is_some() {
            *rate = Rate::default();
        }
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire) || self.deadline.get().is_some_and(|d| Instant::now() >= *d)
    }

    fn cancel(&self) {
        self.cancelled.store(true, Ordering::Release);
        let wakers: Vec<Waker> = lock(&self.wakers).iter_mut().filter_map(Option::take).collect();
        for w in wakers {
            w.wake();
        }
    }

    fn progress(&self, cx: &Context, done: f64, total: Option<f64>, message: Option<&str>) {
        if !done.is_finite() || total.is_some_and(|t| !t.is_finite()) {
            return;
        }
        let note = Progress {
            done,
            total,
            message: message.map(|m| crate::words::budget::cut_text(m, MAX_PROGRESS_CHARS, 4 * MAX_PROGRESS_CHARS)),
        };
        let now = Instant::now();
        let send = {
            let mut rate = lock(&self.progress);
            if rate.last.is_some_and(|last| done <= last) {
                return;
            }
            rate.last = Some(done);
            let last = total.is_some_and(|t| done >= t);
            if !last && rate.sent_at.is_some_and(|at| now.duration_since(at) < PROGRESS_INTERVAL) {
                rate.held = Some(note);
                return;
            }
            rate.held = None;
            rate.sent_at = Some(now);
            note
        };
        self.send_progress(cx, send);
    }

    fn flush(&self, cx: &Context) {
        let held = lock(&self.progress).held.take();
        if let Some(note) = held {
            self.send_progress(cx, note);
        }
    }

    fn send_progress(&self, cx: &Context, note: Progress) {
        match &self.sink {
            Some(sink) => sink.progress(note),
            None => trace_progress(cx, &note),
        }
    }

    fn log(&self, cx: &Context, level: LogLevel, message: &str) {
        match &self.sink {
            Some(sink) => {
                if sink.log_level().is_some_and(|least| level >= least) {
                    sink.log(level, cut_bytes(message, MAX_LOG_BYTES));
                }
            }
            None => trace_log(cx, level, &cut_bytes(message, MAX_LOG_BYTES)),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `text` cut to at most `max` bytes at a character boundary, ending `…` when cut.
fn cut_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

fn trace_progress(cx: &Context, note: &Progress) {
    tracing::info!(
        target: "envelope::tool",
        call_id = cx.call_id(),
        progress = note.done,
        total = note.total,
        message = note.message.as_deref(),
        "progress"
    );
}

fn trace_log(cx: &Context, level: LogLevel, message: &str) {
    let call_id = cx.call_id();
    match level {
        LogLevel::Debug => tracing::debug!(target: "envelope::tool", call_id, "{message}"),
        LogLevel::Info | LogLevel::Notice => tracing::info!(target: "envelope::tool", call_id, "{message}"),
        LogLevel::Warning => tracing::warn!(target: "envelope::tool", call_id, "{message}"),
        _ => tracing::error!(target: "envelope::tool", call_id, level = level.as_str(), "{message}"),
    }
}

/// The future of [`Context::cancelled`]: completes when the call is cancelled.
#[must_use = "a future does nothing unless awaited"]
pub struct Cancelled {
    inner: Arc<Inner>,
    slot: Option<usize>,
}

impl fmt::Debug for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancelled").field("cancelled", &self.inner.live().is_cancelled()).finish()
    }
}

impl Future for Cancelled {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<()> {
        if self.inner.live().is_cancelled() {
            return Poll::Ready(());
        }
        let inner = Arc::clone(&self.inner);
        let live = inner.live();
        let mut wakers = lock(&live.wakers);
        // Checked again under the lock: `cancel` sets the flag before it takes the wakers.
        if live.cancelled.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        let slot = match self.slot {
            Some(slot) => slot,
            None => match wakers.iter().position(Option::is_none) {
                Some(free) => free,
                None => {
                    wakers.push(None);
                    wakers.len() - 1
                }
            },
        };
        wakers[slot] = Some(cx.waker().clone());
        drop(wakers);
        self.slot = Some(slot);
        Poll::Pending
    }
}

impl Drop for Cancelled {
    fn drop(&mut self) {
        if let Some(slot) = self.slot
            && let Some(w) = lock(&self.inner.live().wakers).get_mut(slot)
        {
            *w = None;
        }
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

#[cfg(test)]
mod tests {
    /// A future dropped unfinished under `cancel_first` finds its call cancelled as it drops;
    /// one that finished leaves its call as it was.
    #[cfg(feature = "http")]
    #[test]
    fn cancel_first_cancels_before_the_future_drops() {
        struct SeesOnDrop(super::Context, std::sync::Arc<std::sync::atomic::AtomicBool>);
        impl Drop for SeesOnDrop {
            fn drop(&mut self) {
                self.1.store(self.0.is_cancelled(), std::sync::atomic::Ordering::SeqCst);
            }
        }
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let cx = super::Context::anonymous();
        let held = SeesOnDrop(cx.clone(), std::sync::Arc::clone(&seen));
        let pending = cx.cancel_first(async move {
            let _held = held;
            std::future::pending::<()>().await;
        });
        drop(pending);
        assert!(seen.load(std::sync::atomic::Ordering::SeqCst), "the body's drop saw its call not cancelled");

        let cx = super::Context::anonymous();
        let mut finished = Box::pin(cx.cancel_first(std::future::ready(7)));
        let polled = finished.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop()));
        assert_eq!(polled, std::task::Poll::Ready(7));
        drop(finished);
        assert!(!cx.is_cancelled());
    }

    use super::*;

    #[test]
    fn call_ids_differ_and_keep_their_shape() {
        let a = Context::anonymous();
        let b = Context::anonymous();
        assert_ne!(a.call_id(), b.call_id());
        assert!(a.call_id()[5..].bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
    }

    /// A call given back is a new call when its memory is reused: its own id, not cancelled;
    /// a call something still holds is not reused at all.
    #[test]
    fn a_recycled_call_is_a_new_call() {
        let first = Context::anonymous_local();
        let first_id = first.call_id().to_owned();
        let first_at = Arc::as_ptr(&first.inner);
        first.cancel();
        first.recycle();
        let second = Context::anonymous_local();
        assert_eq!(Arc::as_ptr(&second.inner), first_at, "the memory is reused");
        assert_ne!(second.call_id(), first_id);
        assert!(!second.is_cancelled());
        let kept = second.clone();
        second.recycle();
        let third = Context::anonymous_local();
        assert_ne!(Arc::as_ptr(&third.inner), Arc::as_ptr(&kept.inner), "a kept call is not reused");
        assert_eq!(kept.call_id(), kept.clone().call_id());
    }

    #[test]
    fn debug_counts_claims_without_showing_them() {
        let mut claims = Map::new();
        claims.insert("email".into(), Value::from("alice@example.com"));
        let c = Caller::new("alice").with_claims(claims);
        let shown = format!("{c:?}");
        assert!(!shown.contains("example.com"), "{shown}");
        assert!(shown.contains("claims: 1"), "{shown}");
    }

    /// A sink that keeps what it is sent.
    #[derive(Default)]
    struct Kept {
        progress: Mutex<Vec<f64>>,
        logs: Mutex<Vec<(LogLevel, String)>>,
    }

    impl Sink for Kept {
        fn progress(&self, note: Progress) {
            self.progress.lock().unwrap().push(note.done);
        }
        fn log_level(&self) -> Option<LogLevel> {
            Some(LogLevel::Info)
        }
        fn log(&self, level: LogLevel, message: String) {
            self.logs.lock().unwrap().push((level, message));
        }
    }

    #[test]
    fn progress_increases_within_its_rate_and_the_last_held_is_flushed() {
        let kept = Arc::new(Kept::default());
        let cx = Context::anonymous().with_sink(Arc::clone(&kept) as Arc<dyn Sink>);
        cx.progress(1, 10);
        cx.progress(1, 10);
        cx.progress(f64::NAN, 10.0);
        cx.progress(2, 10);
        cx.progress(3, 10);
        assert_eq!(*kept.progress.lock().unwrap(), [1.0]);
        cx.flush();
        assert_eq!(*kept.progress.lock().unwrap(), [1.0, 3.0]);
        cx.progress(10, 10);
        assert_eq!(*kept.progress.lock().unwrap(), [1.0, 3.0, 10.0], "the last goes out at once");
    }

    #[test]
    fn logs_below_the_level_are_not_sent_and_long_ones_are_cut() {
        let kept = Arc::new(Kept::default());
        let cx = Context::anonymous().with_sink(Arc::clone(&kept) as Arc<dyn Sink>);
        cx.debug("hidden");
        cx.info("shown");
        cx.error("é".repeat(5000));
        let logs = kept.logs.lock().unwrap();
        assert_eq!(logs.len(), 2);
        assert_eq!(logs[0], (LogLevel::Info, "shown".to_owned()));
        assert!(logs[1].1.len() <= MAX_LOG_BYTES && logs[1].1.ends_with('…'), "{}", logs[1].1.len());
    }

    #[test]
    fn a_context_changed_while_a_clone_is_held_is_still_one_call() {
        let first = Context::anonymous();
        let held = first.clone();
        let changed = first.with_surface("internal").with_protocol_version("2026-07-28");
        assert_eq!(changed.surface(), "internal");
        assert_eq!(held.surface(), "local");
        assert_eq!(changed.call_id(), held.call_id());
        assert!(!held.is_cancelled());
        changed.cancel();
        assert!(held.is_cancelled(), "the clone made before the change sees the cancellation");
        let again = held.clone().with_call_id("call_given");
        assert!(again.is_cancelled(), "a change of a changed context keeps the first call's state");
    }

    #[test]
    fn cancelled_wakes_its_waiter_and_a_deadline_cancels_by_the_clock() {
        let cx = Context::anonymous();
        let waiting = std::thread::spawn({
            let cx = cx.clone();
            move || {
                let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
                rt.block_on(cx.cancelled());
            }
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(!cx.is_cancelled());
        cx.cancel();
        waiting.join().unwrap();
        let timed = Context::anonymous();
        timed.time_out_in(30);
        assert!(!timed.is_cancelled());
        std::thread::sleep(Duration::from_millis(40));
        assert!(timed.is_cancelled() && timed.timed_out());
    }

    #[test]
    fn keys_of_callers() {
        assert_eq!(Caller::new("a").key(), "sub:a");
        assert_eq!(Caller::anonymous().with_tenant("t").key(), "tenant:t");
        assert_eq!(Caller::new("a").with_scopes(["x", "x", "y"]).scopes(), ["x", "y"]);
    }

    #[test]
    fn two_different_callers_never_share_a_key() {
        let callers = [
            Caller::new("a@b"),
            Caller::new("a").with_tenant("b"),
            Caller::new("a@b").with_tenant("c"),
            Caller::new("a").with_tenant("b@c"),
            Caller::new("a%40b"),
            Caller::new("anonymous"),
            Caller::new(""),
            Caller::new("").with_tenant(""),
            Caller::anonymous(),
            Caller::anonymous().with_tenant(""),
            Caller::anonymous().with_tenant("b"),
            Caller::new("tenant:b"),
        ];
        let keys: Vec<String> = callers.iter().map(Caller::key).collect();
        for (i, key) in keys.iter().enumerate() {
            for (j, other) in keys.iter().enumerate().skip(i + 1) {
                assert_ne!(key, other, "{:?} and {:?}", callers[i], callers[j]);
            }
        }
        assert_eq!(Caller::new("alice").with_tenant("acme").key(), "sub:alice@acme");
        assert_eq!(Caller::new("a@b").key(), "sub:a%40b");
    }
}
