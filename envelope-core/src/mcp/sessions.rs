//! The sessions of a Streamable HTTP endpoint ([`McpHttp::with_sessions`](super::streamable::McpHttp::with_sessions),
//! MCP 2025-11-25 "Transports / Streamable HTTP / Session Management"): rmcp's
//! [`LocalSessionManager`] behind a [`Book`] that bounds them (in all, and per caller), knows who
//! opened each (so another caller's request naming it is answered as for an unknown session),
//! closes one whose client never completed initialization, and lists the request ids in flight
//! of each (so an id in use is refused, not left to steal the first request's reply).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
    local::{LocalSessionManager, LocalSessionManagerError},
};

use crate::http::TransportError;
use crate::words::render::plural;

/// How long a session lives whose client has not sent `notifications/initialized` (MCP
/// 2025-11-25 "Lifecycle / Initialization"): 30 s from its `initialize`, then it is closed as a
/// `DELETE` would close it. A session that completed initialization lives until rmcp's idle
/// timeout (5 minutes without a request) or its `DELETE`.
pub const UNINITIALIZED_SESSION_LIFE: Duration = Duration::from_secs(30);

/// The `Retry-After` of a refusal for a bound on sessions, in seconds: the life of a session that
/// never completed initialization ([`UNINITIALIZED_SESSION_LIFE`]).
const RETRY_AFTER_SECONDS: u64 = 30;

/// The open sessions of one endpoint, by `Mcp-Session-Id`, and what each opener holds.
pub(super) struct Book {
    state: Mutex<BookState>,
    /// The most sessions open at once, in all.
    max_sessions: usize,
    /// The most one opener holds at once ([`Opener::share_key`]).
    max_per_caller: usize,
    uninitialized_life: Duration,
}

#[derive(Default)]
struct BookState {
    sessions: HashMap<SessionId, Session>,
    /// Sessions open or being opened, per opener's share key.
    per_caller: HashMap<String, usize>,
    /// Sessions being opened (`initialize` handed to rmcp, no id yet).
    opening: usize,
}

struct Session {
    opener: Opener,
    /// `notifications/initialized` arrived.
    initialized: bool,
    /// The JSON-RPC ids of the session's requests in flight (their JSON text).
    in_flight: HashSet<String>,
}

/// Who opened a session: the verified caller ([`crate::Caller::key`], `None` for an anonymous
/// one), and the key its sessions count under (the verified caller's
/// [`quota_key`](crate::Caller::quota_key), else `peer:<address>`; `None` when neither is known:
/// then only the bound in all applies).
#[derive(Clone, Debug, Default)]
pub(super) struct Opener {
    pub(super) caller: Option<String>,
    pub(super) share_key: Option<String>,
}

/// A place for a session being opened, taken before its `initialize` reaches rmcp and turned
/// into the session once rmcp names it ([`Sessions::create_session`]); given back when dropped
/// unused (rmcp refused the `initialize`).
pub(super) struct Opening {
    book: Arc<Book>,
    opener: Option<Opener>,
}

tokio::task_local! {
    /// The place of the session the current request opens: rmcp calls
    /// [`SessionManager::create_session`] on the request's own task, without the request.
    static OPENING: RefCell<Option<Opening>>;
}

/// Runs `future` (rmcp's handling of one request) with `opening` for the session it opens.
pub(super) async fn opening<F: Future>(opening: Option<Opening>, future: F) -> F::Output {
    OPENING.scope(RefCell::new(opening), future).await
}

impl Book {
    pub(super) fn new(max_sessions: usize, max_per_caller: usize) -> Self {
        Book {
            state: Mutex::default(),
            max_sessions: max_sessions.max(1),
            max_per_caller: max_per_caller.max(1),
            uninitialized_life: UNINITIALIZED_SESSION_LIFE,
        }
    }

    fn lock(&self) -> MutexGuard<'_, BookState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for a session `opener` opens: `rate_limited` (429) when it holds its share,
    /// `service_unavailable` (503) when the endpoint holds its bound of sessions; both with
    /// `Retry-After: 30`.
    pub(super) fn open(self: &Arc<Self>, opener: Opener) -> Result<Opening, TransportError> {
        let mut state = self.lock();
        if state.sessions.len() + state.opening >= self.max_sessions {
            let bound = format!("this endpoint is at its bound of {} open", plural(self.max_sessions, "session"));
            return Err(TransportError::service_unavailable(&bound, RETRY_AFTER_SECONDS));
        }
        if let Some(key) = &opener.share_key {
            let held = state.per_caller.get(key).copied().unwrap_or(0);
            if held >= self.max_per_caller {
                return Err(TransportError::sessions_limited(self.max_per_caller, RETRY_AFTER_SECONDS));
            }
            state.per_caller.insert(key.clone(), held + 1);
        }
        state.opening += 1;
        Ok(Opening { book: Arc::clone(self), opener: Some(opener) })
    }

    /// Whether `id` names an open session that the verified caller `caller` (`None`: anonymous)
    /// may use: the one that opened it. Any other is answered as for an unknown session (MCP
    /// 2025-11-25 "Security Best Practices / Session Hijacking": bind session ids to the user).
    pub(super) fn serves(&self, id: &str, caller: Option<&str>) -> bool {
        self.lock().sessions.get(id).is_some_and(|s| s.opener.caller.as_deref() == caller)
    }

    /// The client of session `id` completed initialization.
    pub(super) fn initialized(&self, id: &str) {
        if let Some(session) = self.lock().sessions.get_mut(id) {
            session.initialized = true;
        }
    }

    /// Lists request `request_id` (its JSON text) in flight in session `id`: `None` when a
    /// request of the session under that id is in flight already. The id is free again when the
    /// returned guard drops (the request's response has ended). A session unknown here lists
    /// nothing (rmcp answers it 404).
    pub(super) fn request(self: &Arc<Self>, id: &str, request_id: String) -> Option<InFlight> {
        let mut state = self.lock();
        let Some(session) = state.sessions.get_mut(id) else {
            return Some(InFlight { book: Arc::clone(self), session: None, request_id });
        };
        if !session.in_flight.insert(request_id.clone()) {
            return None;
        }
        Some(InFlight { book: Arc::clone(self), session: Some(SessionId::from(id.to_owned())), request_id })
    }

    fn bind(&self, id: &SessionId, opening: Option<Opening>) {
        let mut opening = opening;
        let opener = opening.as_mut().and_then(|o| o.opener.take()).unwrap_or_default();
        let mut state = self.lock();
        if opening.is_some() {
            state.opening -= 1;
        }
        state.sessions.insert(id.clone(), Session { opener, initialized: false, in_flight: HashSet::new() });
    }

    /// Session `id` is closed: its place is given back.
    fn forget(&self, id: &SessionId) {
        let mut state = self.lock();
        let Some(session) = state.sessions.remove(id) else { return };
        if let Some(key) = session.opener.share_key {
            leave(&mut state.per_caller, &key);
        }
    }

    fn uninitialized(&self, id: &SessionId) -> bool {
        self.lock().sessions.get(id).is_some_and(|s| !s.initialized)
    }

    /// How many sessions are open.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.lock().sessions.len()
    }
}

fn leave(per_caller: &mut HashMap<String, usize>, key: &str) {
    if let Some(held) = per_caller.get_mut(key) {
        *held -= 1;
        if *held == 0 {
            per_caller.remove(key);
        }
    }
}

impl Drop for Opening {
    fn drop(&mut self) {
        let Some(opener) = self.opener.take() else { return };
        let mut state = self.book.lock();
        state.opening -= 1;
        if let Some(key) = opener.share_key {
            leave(&mut state.per_caller, &key);
        }
    }
}

/// A request of a session listed in flight ([`Book::request`]), unlisted when dropped.
pub(super) struct InFlight {
    book: Arc<Book>,
    session: Option<SessionId>,
    request_id: String,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let Some(id) = &self.session else { return };
        if let Some(session) = self.book.lock().sessions.get_mut(id) {
            session.in_flight.remove(&self.request_id);
        }
    }
}

/// rmcp's in-memory sessions, counted in a [`Book`].
pub(super) struct Sessions {
    inner: Arc<LocalSessionManager>,
    pub(super) book: Arc<Book>,
}

impl Sessions {
    pub(super) fn new(book: Arc<Book>) -> Self {
        Sessions { inner: Arc::new(LocalSessionManager::default()), book }
    }
}

impl SessionManager for Sessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let opening = OPENING.try_with(|o| o.borrow_mut().take()).ok().flatten();
        let (id, transport) = self.inner.create_session().await?;
        self.book.bind(&id, opening);
        // A session whose client never completes initialization is closed early.
        let (book, inner, closing) = (Arc::clone(&self.book), Arc::clone(&self.inner), id.clone());
        tokio::spawn(async move {
            tokio::time::sleep(book.uninitialized_life).await;
            if book.uninitialized(&closing) {
                let _ = inner.close_session(&closing).await;
                book.forget(&closing);
            }
        });
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.inner.close_session(id).await;
        self.book.forget(id);
        closed
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(peer: &str) -> Opener {
        Opener { caller: None, share_key: Some(format!("peer:{peer}")) }
    }

    #[tokio::test]
    async fn sessions_are_bounded_per_caller_and_in_all_and_an_uninitialized_one_is_closed() {
        let mut book = Book::new(3, 2);
        book.uninitialized_life = Duration::from_millis(100);
        let book = Arc::new(book);
        let sessions = Sessions::new(Arc::clone(&book));
        let open = |opener| {
            let place = book.open(opener).unwrap();
            opening(Some(place), sessions.create_session())
        };
        let (never, _t1) = open(from("192.0.2.1")).await.unwrap();
        let (done, _t2) = open(from("192.0.2.1")).await.unwrap();
        let refused = book.open(from("192.0.2.1")).err().unwrap();
        assert_eq!((refused.http_status(), refused.word()), (429, "rate_limited"));
        assert_eq!(refused.retry_after_seconds(), Some(30));
        assert!(refused.message().contains("its share of 2 sessions open"), "{}", refused.message());
        // Another caller has its own share, within the bound in all.
        let (_other, _t3) = open(from("192.0.2.2")).await.unwrap();
        let refused = book.open(from("192.0.2.3")).err().unwrap();
        assert_eq!((refused.http_status(), refused.word()), (503, "service_unavailable"));
        assert!(refused.message().contains("bound of 3 sessions open"), "{}", refused.message());
        // A place not turned into a session is given back.
        assert_eq!(book.len(), 3);

        book.initialized(&done);
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(!sessions.has_session(&never).await.unwrap(), "the uninitialized session is closed");
        assert!(sessions.has_session(&done).await.unwrap());
        // The other caller's session never completed initialization either.
        assert_eq!(book.len(), 1);
        let (_again, _t4) = open(from("192.0.2.1")).await.unwrap();
    }

    #[test]
    fn a_session_serves_its_opener_and_an_id_once_in_flight() {
        let book = Arc::new(Book::new(8, 8));
        let id = SessionId::from("s1");
        let place =
            book.open(Opener { caller: Some("sub:alice".into()), share_key: Some("sub:alice".into()) }).unwrap();
        book.bind(&id, Some(place));
        assert!(book.serves("s1", Some("sub:alice")));
        assert!(!book.serves("s1", Some("sub:mallory")));
        assert!(!book.serves("s1", None));
        assert!(!book.serves("s2", Some("sub:alice")));
        let first = book.request("s1", "5".into()).unwrap();
        assert!(book.request("s1", "5".into()).is_none(), "id 5 is in use");
        assert!(book.request("s1", "6".into()).is_some());
        drop(first);
        assert!(book.request("s1", "5".into()).is_some(), "id 5 is free again");
    }
}
