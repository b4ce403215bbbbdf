//! MCP over stdio (2025-11-25 and 2026-07-28, "Transports / stdio": one JSON-RPC message per
//! line, UTF-8, `\n`-terminated), as an rmcp transport that reads each line before rmcp does.

use std::{
    collections::{HashMap, HashSet},
    io,
    sync::{
        Arc, Mutex, OnceLock,
        atomic::{AtomicBool, Ordering},
    },
};

use rmcp::{
    RoleServer, ServerHandler, ServiceExt,
    model::{
        ClientJsonRpcMessage, ClientNotification, ClientRequest, ErrorData, JsonRpcMessage, ProtocolVersion, RequestId,
        ServerJsonRpcMessage, ServerResult,
    },
    service::ServerInitializeError,
    transport::Transport,
};
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, BufWriter},
    sync::{OwnedSemaphorePermit, Semaphore, mpsc},
};

use super::{
    McpServer, call_tool,
    direct::{self, PlainCall, StdioSession},
    frame::{self, Incoming, TopLevel},
};
use crate::{Caller, Context, Toolbox};

/// The most requests one stdio session has in flight (read, not yet answered). Past it the
/// server stops reading stdin until a reply is written, so a client that writes without
/// reading meets backpressure (its writes block) instead of growing the server's memory.
pub const MAX_REQUESTS_IN_FLIGHT: usize = 64;

/// The bytes of replies gathered before one write to the output: replies ready together go out
/// in one write (one trip through tokio's blocking threads on stdout) instead of one each.
const WRITE_BUFFER_BYTES: usize = 64 << 10;

/// The longest line read (16 MiB, rmcp's own stdio limit). A longer line is not held: its `id`
/// is read as it streams past and the request is answered `-32600` under that id.
const MAX_LINE_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// Serves `toolbox` over stdin/stdout until stdin closes (MCP "Transports / stdio").
///
/// Every line is read before rmcp parses it (see the [module documentation](super)): a line
/// that is not JSON is answered `-32700`, a message of the wrong shape `-32600`, each under the
/// request's `id` whenever one can be read, even from a line longer than 16 MiB or one that
/// sends `id` twice (the last is used); a notification is never answered, malformed or not. A
/// `tools/call` goes to [`McpServer`] with the exact text of its `arguments`.
///
/// At most [`MAX_REQUESTS_IN_FLIGHT`] requests are in flight; replies go out in the order they
/// are ready, each under its request's id. A request whose id is held by a request still in
/// flight is not run: it is answered at once, under that id, with `-32600` ("id 7 is already in
/// use by a request in flight; ..."), and that reply waits in the same bounded queue as every
/// other, so a client that floods one id without reading meets the same backpressure. An id is
/// free again once its reply is sent, or once the client cancels it
/// (`notifications/cancelled`).
///
/// Returns `Ok` when stdin reaches end of file and every reply has been written (or when the
/// client closes stdout).
///
/// # Errors
/// An I/O failure on stdin or stdout, or an MCP session that could not start (its first
/// request was neither `initialize`, `server/discover`, `ping`, nor a 2026-07-28 request).
pub async fn serve_stdio(toolbox: Toolbox) -> io::Result<()> {
    serve_handler_stdio(McpServer::new(toolbox)).await
}

/// [`serve_stdio`] for your own rmcp [`ServerHandler`], for example one that serves resources
/// and prompts and delegates `tools/list` and `tools/call` to an [`McpServer`]: the exact
/// `arguments` text reaches [`McpServer::call_tool`](ServerHandler::call_tool) through the
/// request context it is given.
///
/// # Errors
/// As [`serve_stdio`].
pub async fn serve_handler_stdio<H: ServerHandler>(handler: H) -> io::Result<()> {
    serve_io(handler, tokio::io::stdin(), tokio::io::stdout()).await
}

/// [`serve_handler_stdio`] on any byte streams: newline-delimited JSON-RPC read from `input`,
/// replies written to `output` (a socket, a pipe, an in-memory `tokio::io::duplex`).
///
/// When `handler` is an [`McpServer`] (as [`serve_stdio`] serves), a plain `tools/call` (only
/// `jsonrpc`, `id`, `method` and `params` with only `name` and `arguments`, each once) is
/// answered by the server itself, without rmcp's per-request service: the same call, and byte
/// for byte the reply rmcp would write, the envelope serialized once for the text content and
/// `structuredContent`. That holds in a session opened with `initialize` on a version before
/// 2026-07-28, and in a 2026-07-28 session (no `initialize`, as the official Python SDK runs by
/// default), once rmcp has answered the request that started it, for a call whose
/// `params._meta` holds just that version's own keys:
/// `io.modelcontextprotocol/protocolVersion` `"2026-07-28"`,
/// `io.modelcontextprotocol/clientCapabilities`, and optionally
/// `io.modelcontextprotocol/clientInfo` (no `progressToken`, no `logLevel`).
/// That is, unless the tool waits for approval, the server has a default log level, or the
/// client has sent `logging/setLevel` in this session (its calls then send log messages).
/// Every other message goes through rmcp. Replies ready together are written together.
///
/// # Errors
/// As [`serve_stdio`].
pub async fn serve_io<H, R, W>(handler: H, input: R, output: W) -> io::Result<()>
where
    H: ServerHandler,
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (lines, out_lines) = mpsc::channel::<Vec<u8>>(MAX_REQUESTS_IN_FLIGHT);
    let (messages, from_reader) = mpsc::channel::<ClientJsonRpcMessage>(1);
    let in_flight = InFlight::new();
    // An `McpServer` answers a plain `tools/call` itself; another handler is always served
    // through rmcp.
    let direct = (&handler as &dyn std::any::Any).downcast_ref::<McpServer>().cloned();
    let writer = tokio::spawn(write_lines(output, out_lines));
    let reader = tokio::spawn(read_lines(input, messages, lines.clone(), in_flight.clone(), direct));
    let _session = Session { reader: reader.abort_handle(), in_flight: in_flight.clone() };
    let transport = LineTransport { messages: from_reader, lines, in_flight };
    let served = match handler.serve(transport).await {
        Ok(running) => running.waiting().await.map(drop).map_err(io::Error::other),
        // stdin closed before a session started: nothing to serve.
        Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(error) => Err(io::Error::new(io::ErrorKind::InvalidData, error.to_string())),
    };
    // The reader ends by itself at end of input; it is stopped only when rmcp ended first.
    reader.abort();
    let read = match reader.await {
        Ok(read) => read,
        Err(_) => Ok(()),
    };
    let written = writer.await.unwrap_or(Ok(()));
    served.and(read).and(written)
}

/// Ends what [`serve_io`] started when its future is dropped before the session ends (a server
/// shutting down): the reader stops, and every call answered without rmcp is cancelled, as
/// rmcp cancels its own. After a session that ended, there is nothing left to stop.
struct Session {
    reader: tokio::task::AbortHandle,
    in_flight: InFlight,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.reader.abort();
        self.in_flight.cancel_all();
    }
}

/// Writes each line whole, and the lines ready together in one write (flushed once none is
/// left); a client that closed its end of stdout ends the session normally.
async fn write_lines(output: impl AsyncWrite + Unpin, mut lines: mpsc::Receiver<Vec<u8>>) -> io::Result<()> {
    let mut output = BufWriter::with_capacity(WRITE_BUFFER_BYTES, output);
    while let Some(line) = lines.recv().await {
        let written = async {
            output.write_all(&line).await?;
            while let Ok(line) = lines.try_recv() {
                output.write_all(&line).await?;
            }
            output.flush().await
        };
        match written.await {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The start of rmcp's refusal of a request without the `_meta` a 2026-07-28 request carries,
/// which is what a session that did not open with `initialize` is held to.
const MISSING_META: &str = "request _meta is missing or has malformed required fields:";

/// What [`MISSING_META`] leaves a client to guess: why the fields are asked, and the other way
/// in (a 2025 client never sends them).
const MISSING_META_WHY: &str = "; a session that does not open with `initialize` is of protocol 2026-07-28, whose every \
     request names the protocol version and the client's capabilities in `params._meta`: send them, or open the \
     session with `initialize` (MCP 2025-11-25 and earlier)";

fn line_of(message: &ServerJsonRpcMessage) -> Vec<u8> {
    if let rmcp::model::JsonRpcMessage::Error(e) = message
        && e.error.message.starts_with(MISSING_META)
        && !e.error.message.ends_with(MISSING_META_WHY)
    {
        let mut explained = e.clone();
        explained.error.message = format!("{}{MISSING_META_WHY}", e.error.message).into();
        return line_of(&rmcp::model::JsonRpcMessage::Error(explained));
    }
    let serialized = match message {
        // JSON-RPC 2.0 §5: an error whose request id could not be read carries `"id": null`
        // (rmcp leaves the member out), as over Streamable HTTP.
        rmcp::model::JsonRpcMessage::Error(e) if e.id.is_none() => serde_json::to_value(message).and_then(|mut v| {
            if let Some(object) = v.as_object_mut() {
                object.insert("id".into(), serde_json::Value::Null);
            }
            serde_json::to_vec(&v)
        }),
        _ => serde_json::to_vec(message),
    };
    let mut line = serialized.unwrap_or_else(|_| {
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"the reply did not serialize"}}"#.to_vec()
    });
    line.push(b'\n');
    line
}

/// The requests read and not yet answered, each holding one of [`MAX_REQUESTS_IN_FLIGHT`]
/// permits.
///
/// It also knows when rmcp's session has started: before it, rmcp reads only requests (a
/// notification or a response would end the session), so those are dropped unanswered; and the
/// protocol version `initialize` negotiated, which decides whether a plain `tools/call` is
/// answered without rmcp.
#[derive(Clone)]
struct InFlight {
    permits: Arc<Semaphore>,
    held: Arc<Mutex<HashMap<RequestId, Held>>>,
    /// Requests that start a session when answered with a result: `initialize`, or on
    /// 2026-07-28 any request but `ping` and `server/discover`.
    openers: Arc<Mutex<HashSet<RequestId>>>,
    started: Arc<AtomicBool>,
    /// The version of the `initialize` result that started the session, once queued.
    version: Arc<OnceLock<String>>,
}

/// A request in flight: its place, and for a `tools/call` answered without rmcp its number and
/// its call, which `notifications/cancelled` cancels.
struct Held {
    _place: OwnedSemaphorePermit,
    direct: Option<(u64, Context)>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl InFlight {
    fn new() -> Self {
        InFlight {
            permits: Arc::new(Semaphore::new(MAX_REQUESTS_IN_FLIGHT)),
            held: Arc::default(),
            openers: Arc::default(),
            started: Arc::default(),
            version: Arc::default(),
        }
    }

    fn started(&self) -> bool {
        self.started.load(Ordering::Acquire)
    }

    /// Notes a request read before the session started, that starts it if answered.
    fn may_open(&self, request: &ClientRequest, id: &RequestId) {
        let probe = matches!(request, ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_));
        if !self.started() && !probe {
            lock(&self.openers).insert(id.clone());
        }
    }

    /// Request `id` was answered with a result; whether that started the session.
    fn succeeded(&self, id: &RequestId) -> bool {
        if !self.started() && lock(&self.openers).remove(id) {
            self.started.store(true, Ordering::Release);
            return true;
        }
        false
    }

    /// The version a session opened with `initialize` negotiated, when it is one before
    /// 2026-07-28 (whose requests carry their own version and capabilities in `_meta`).
    fn legacy_version(&self) -> Option<&str> {
        let version = self.version.get()?.as_str();
        (self.started() && version < ProtocolVersion::V_2026_07_28.as_str()).then_some(version)
    }

    /// Whether request `id` was read and is not answered yet.
    fn holds(&self, id: &RequestId) -> bool {
        lock(&self.held).contains_key(id)
    }

    /// Waits for a free place, then holds it for request `id`; `direct`: a call answered
    /// without rmcp, its number and its context.
    async fn enter(&self, id: RequestId, direct: Option<(u64, Context)>) {
        if let Ok(place) = Arc::clone(&self.permits).acquire_owned().await {
            lock(&self.held).insert(id, Held { _place: place, direct });
        }
    }

    /// Request `id` was cancelled (rmcp then sends no reply; a call answered without rmcp is
    /// cancelled here and sends none either).
    fn leave(&self, id: &RequestId) {
        let held = lock(&self.held).remove(id);
        if let Some((_, cx)) = held.and_then(|held| held.direct) {
            cx.cancel();
        }
    }

    /// Request `id` is being answered: its id is free again at once, its place only when the
    /// returned value is dropped (once the reply is queued), so a client that does not read
    /// its replies still meets the bound. `direct`: the number of the call answered without
    /// rmcp, which is answered only while the id is still its own (not cancelled, and not
    /// sent again since).
    fn answering(&self, id: &RequestId, direct: Option<u64>) -> Option<Held> {
        let mut held = lock(&self.held);
        if let Some(serial) = direct
            && held.get(id).and_then(|h| h.direct.as_ref()).is_none_or(|(own, _)| *own != serial)
        {
            return None;
        }
        held.remove(id)
    }

    /// Cancels every call in flight answered without rmcp (the session is dropped).
    fn cancel_all(&self) {
        for held in lock(&self.held).values() {
            if let Some((_, cx)) = &held.direct {
                cx.cancel();
            }
        }
    }

    /// Waits until every request read has been answered.
    async fn drain(&self) {
        let all = u32::try_from(MAX_REQUESTS_IN_FLIGHT).unwrap_or(u32::MAX);
        drop(self.permits.acquire_many(all).await);
    }
}

/// Reads stdin line by line: what rmcp must see goes to `messages`, what is answered here goes
/// to `lines`. At end of input, waits for every reply before closing `messages`, so rmcp ends
/// the session only once nothing is left to answer.
async fn read_lines(
    input: impl AsyncRead + Unpin,
    messages: mpsc::Sender<ClientJsonRpcMessage>,
    lines: mpsc::Sender<Vec<u8>>,
    in_flight: InFlight,
    direct: Option<McpServer>,
) -> io::Result<()> {
    let mut input = BufReader::with_capacity(1 << 16, input);
    let mut line = Vec::new();
    let closed = || io::Error::new(io::ErrorKind::BrokenPipe, "the session ended");
    // Whether the client sent `logging/setLevel`: its calls then send log messages, which
    // rmcp's path writes.
    let mut logging = false;
    // Whether the client sent `initialize` again: rmcp's `initialize` sets the peer's info, so
    // the calls after it see the version it names, which rmcp's path answers with.
    let (mut initialized, mut reinitialized) = (false, false);
    // Numbers the calls answered without rmcp.
    let mut calls = 0u64;
    loop {
        if line.capacity() > 1 << 20 {
            line = Vec::new();
        }
        line.clear();
        let read = (&mut input).take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut line).await?;
        if read == 0 {
            break;
        }
        if line.len() > MAX_LINE_BYTES && !line.ends_with(b"\n") {
            if let Some(reply) = too_long(&mut input, &line).await? {
                lines.send(line_of(&reply)).await.map_err(|_| closed())?;
            }
            continue;
        }
        if let Some(server) = direct.as_ref()
            && let Some(call) = direct::plain_call(&line)
            && let Some(version) = direct::over_stdio(
                &call,
                &StdioSession {
                    logging,
                    initialized,
                    reinitialized,
                    started: in_flight.started(),
                    negotiated: in_flight.legacy_version(),
                },
            )
            && direct::server_answers(server, &call.name)
        {
            if in_flight.holds(&call.id) {
                lines.send(line_of(&id_in_use(call.id))).await.map_err(|_| closed())?;
                continue;
            }
            let serial = calls;
            calls += 1;
            let cx = direct_context(server, version);
            in_flight.enter(call.id.clone(), Some((serial, cx.clone()))).await;
            tokio::spawn(answer_directly(
                Arc::clone(&server.toolbox),
                cx,
                call,
                serial,
                in_flight.clone(),
                lines.clone(),
            ));
            continue;
        }
        match frame::read_message(&line, frame::Framing::Line) {
            Incoming::Message(message) => {
                match &*message {
                    JsonRpcMessage::Request(request) => {
                        if in_flight.holds(&request.id) {
                            // rmcp keeps one slot per id: passed on, one of the two replies
                            // would be lost and both bodies would run.
                            let reply = id_in_use(request.id.clone());
                            lines.send(line_of(&reply)).await.map_err(|_| closed())?;
                            continue;
                        }
                        logging |= matches!(request.request, ClientRequest::SetLevelRequest(_));
                        if matches!(request.request, ClientRequest::InitializeRequest(_)) {
                            reinitialized |= initialized;
                            initialized = true;
                        }
                        in_flight.may_open(&request.request, &request.id);
                        in_flight.enter(request.id.clone(), None).await;
                    }
                    _ if !in_flight.started() => continue,
                    JsonRpcMessage::Notification(n) => {
                        if let ClientNotification::CancelledNotification(c) = &n.notification
                            && let Some(id) = &c.params.request_id
                        {
                            in_flight.leave(id);
                        }
                    }
                    _ => {}
                }
                messages.send(*message).await.map_err(|_| closed())?;
            }
            Incoming::Answered(Some(reply)) => lines.send(line_of(&reply)).await.map_err(|_| closed())?,
            Incoming::Answered(None) => {}
        }
    }
    in_flight.drain().await;
    Ok(())
}

/// The [`Context`] of a `tools/call` answered without rmcp, as [`McpServer::call_tool`] makes
/// it over stdio: the server's configured caller, its surface, the session's version, and a
/// sink that sends nothing (no `progressToken`, no log level).
fn direct_context(server: &McpServer, version: &str) -> Context {
    Context::on_surface(Caller::clone(&server.caller), &server.surface)
        .with_protocol_version(version)
        .with_sink(super::notify::silent())
}

/// Answers a plain `tools/call` without rmcp ([`call_tool::call_directly`]) and queues its
/// reply line, unless the call was cancelled (`notifications/cancelled`: no reply, as rmcp
/// sends none).
async fn answer_directly(
    toolbox: Arc<Toolbox>,
    cx: Context,
    call: PlainCall,
    serial: u64,
    in_flight: InFlight,
    lines: mpsc::Sender<Vec<u8>>,
) {
    let PlainCall { id, name, arguments, self_contained } = call;
    // rmcp writes `"resultType":"complete"` for a 2026-07-28 request only.
    let answered = call_tool::call_directly(&toolbox, &cx, &id, &name, arguments, self_contained);
    let reply = tokio::select! {
        biased;
        reply = answered => reply,
        () = cx.cancelled() => return,
    };
    let line = match reply {
        Ok(mut line) => {
            line.push(b'\n');
            line
        }
        Err(error) => line_of(&ServerJsonRpcMessage::error(error, Some(id.clone()))),
    };
    let Some(place) = in_flight.answering(&id, Some(serial)) else { return };
    // Only when the writer has stopped (the client closed stdout).
    let _ = lines.send(line).await;
    drop(place);
}

/// The answer to a request whose id is already held by a request in flight: JSON-RPC `-32600`
/// under that id (JSON-RPC 2.0 §4: an id identifies one request; MCP "Base Protocol / Requests":
/// the id must not have been used by the requestor in the same session).
pub(super) fn id_in_use(id: RequestId) -> ServerJsonRpcMessage {
    let shown = match &id {
        RequestId::Number(n) => n.to_string(),
        RequestId::String(s) => serde_json::to_string(&crate::words::budget::cut_text(s, 64, 256)).unwrap_or_default(),
    };
    let why = format!(
        "id {shown} is already in use by a request in flight; send this request under an id of its \
         own, or wait for the reply to the first"
    );
    ServerJsonRpcMessage::error(ErrorData::invalid_request(why, None), Some(id))
}

/// Reads the rest of a line past [`MAX_LINE_BYTES`] without holding it, and answers it under
/// its id (`None` for a notification).
async fn too_long(
    input: &mut BufReader<impl AsyncRead + Unpin>,
    start: &[u8],
) -> io::Result<Option<ServerJsonRpcMessage>> {
    let mut scan = TopLevel::default();
    scan.feed(start);
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            break;
        }
        if let Some(end) = buffer.iter().position(|&b| b == b'\n') {
            scan.feed(&buffer[..end]);
            input.consume(end + 1);
            break;
        }
        scan.feed(buffer);
        let n = buffer.len();
        input.consume(n);
    }
    scan.finish();
    if scan.is_notification() {
        return Ok(None);
    }
    let why = format!(
        "the message is longer than {} MiB, the most this server reads; send smaller arguments",
        MAX_LINE_BYTES >> 20
    );
    Ok(Some(ServerJsonRpcMessage::error(ErrorData::invalid_request(why, None), scan.id())))
}

/// rmcp's side of the session: messages the reader let through; replies to the writer.
struct LineTransport {
    messages: mpsc::Receiver<ClientJsonRpcMessage>,
    lines: mpsc::Sender<Vec<u8>>,
    in_flight: InFlight,
}

impl Transport<RoleServer> for LineTransport {
    type Error = io::Error;

    fn send(&mut self, item: ServerJsonRpcMessage) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let (lines, in_flight) = (self.lines.clone(), self.in_flight.clone());
        async move {
            // The session counts as started before its opening reply can reach the client, so
            // the notification the client sends on reading it (`notifications/initialized`) is
            // passed on.
            let mut version = None;
            if let JsonRpcMessage::Response(response) = &item
                && in_flight.succeeded(&response.id)
                && let ServerResult::InitializeResult(result) = &response.result
            {
                // Only the `initialize` that starts the session gives it its version: one sent
                // in a session a 2026-07-28 request started leaves each request its own.
                version = Some(result.protocol_version.as_str().to_owned());
            }
            // The id is free again before its reply can reach the client, so a client that
            // reads the reply and sends the same id at once is served, not refused; the place
            // in flight is held until the reply is queued.
            let answered = match &item {
                JsonRpcMessage::Response(response) => Some(&response.id),
                JsonRpcMessage::Error(error) => error.id.as_ref(),
                _ => None,
            };
            let place = answered.and_then(|id| in_flight.answering(id, None));
            let line = line_of(&item);
            lines.send(line).await.map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout closed"))?;
            // The version is known only once `initialize`'s reply is queued, so a call answered
            // without rmcp is queued after it, never before; a call read in between goes
            // through rmcp, which answers it the same.
            if let Some(version) = version {
                let _ = in_flight.version.set(version);
            }
            drop(place);
            Ok(())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.messages.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.messages.close();
        Ok(())
    }
}
