//! MCP server adapter over the official `rmcp` SDK (feature `rmcp`).
//!
//! [`McpServer`] answers the two tool methods of the MCP specification (2025-11-25, "Server
//! Features / Tools") from a [`Toolbox`]:
//!
//! - `tools/list` lists every tool as `{name, title?, description, inputSchema, outputSchema,
//!   annotations?}`, where `inputSchema` is the JSON Schema object the toolbox generates from the
//!   same rules that check the arguments, `outputSchema` the envelope every call answers, and
//!   `annotations` the hints declared on `#[tool(...)]` — the same as the manifest's.
//! - `tools/call` answers a `CallToolResult` that carries the envelope twice:
//!
//!   ```json
//!   {
//!     "content": [{"type": "text", "text": "{\"status\":\"invalid\",\"success\":false,...}"}],
//!     "structuredContent": {"status": "invalid", "success": false, ...},
//!     "isError": true
//!   }
//!   ```
//!
//!   `structuredContent` is the envelope as a JSON object, the one text block is its exact
//!   serialization (for clients that read only `content`), and `isError` is `true` for the
//!   statuses `invalid` and `error`. A problem with the arguments is a tool execution error, not
//!   a protocol error (2025-11-25, "Error Handling"; SEP-1303): the model reads the refusal and
//!   corrects its call.
//!
//! Two requests are protocol errors instead, JSON-RPC `-32602` (invalid params):
//! - a tool name the toolbox does not have; the message lists the tools and the closest name;
//! - `arguments` that is not a JSON object (an array, a number, a string that does not hold an
//!   object, any string for a strict tool). The message is the refusal sentence and `data` is
//!   the refusal envelope. A string that holds a JSON object is decoded and served when the tool
//!   is not strict, since some clients double-encode `arguments`.
//!
//! [`serve_stdio`] serves over stdin/stdout (2025-11-25, "Transports / stdio": one JSON-RPC
//! message per line):
//!
//! ```no_run
//! use envelope_core::{Toolbox, tool};
//!
//! /// Adds two small numbers.
//! #[tool]
//! fn add(#[validate(range = 0..=100)] a: u32, #[validate(range = 0..=100)] b: u32) -> u32 {
//!     a + b
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> std::io::Result<()> {
//!     envelope_core::mcp::serve_stdio(Toolbox::new().with(add::tool())).await
//! }
//! ```

use std::{borrow::Cow, io, sync::Arc};

use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest, CustomResult, ErrorCode,
        Implementation, ListToolsResult, PaginatedRequestParams, RequestId, ServerCapabilities, ServerConfig,
        ServerJsonRpcMessage, ServerResult,
    },
    service::{RequestContext, ServerInitializeError},
};
use serde::Deserialize;
use serde_json::{Value, value::RawValue};
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader},
    sync::mpsc,
};

use crate::{Envelope, Toolbox, UnknownTool};

/// An `rmcp` [`ServerHandler`] that serves the tools of one [`Toolbox`].
///
/// It advertises the `tools` capability and answers `tools/list` and `tools/call` as the
/// [module documentation](self) describes. Serve it over stdio with [`serve_stdio`], or hand it
/// to any `rmcp` transport with [`rmcp::ServiceExt::serve`]: every behaviour except the one for
/// `arguments` nested deeper than 127 levels (see [`serve_stdio`]) lives here, so it holds on
/// every transport.
#[derive(Clone)]
pub struct McpServer {
    toolbox: Arc<Toolbox>,
}

impl McpServer {
    /// Wraps `toolbox`; the server identifies itself as `envelope` with this crate's version.
    #[must_use]
    pub fn new(toolbox: Toolbox) -> Self {
        Self { toolbox: Arc::new(toolbox) }
    }

    /// The toolbox this server answers from.
    #[must_use]
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("envelope", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.toolbox.tools().iter().map(|tool| {
            let mut listed = rmcp::model::Tool::new(
                tool.name().to_owned(),
                tool.description().to_owned(),
                Arc::new(tool.input_schema()),
            );
            listed.title = tool.title().map(str::to_owned);
            listed.output_schema = Some(Arc::new(tool.output_schema(self.toolbox.code_prefix())));
            let a = tool.spec().annotations;
            if a != envelope_core_annotations_none() {
                listed.annotations = Some(rmcp::model::ToolAnnotations::from_raw(
                    None,
                    a.read_only,
                    a.destructive,
                    a.idempotent,
                    a.open_world,
                ));
            }
            listed
        });
        Ok(ListToolsResult::with_all_items(tools.collect()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.map(Value::Object);
        let envelope = self.toolbox.call(&request.name, arguments.as_ref()).await;
        Ok(call_tool_result(&envelope.map_err(unknown_tool)?).into())
    }

    /// rmcp reads `params.arguments` as an object; a `tools/call` whose `arguments` is anything
    /// else fails that shape and arrives here, as the catch-all `CustomRequest` of its request
    /// union, instead of at [`Self::call_tool`]. Left to rmcp, it would answer `-32601` (method
    /// not found) with the message `tools/call`.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != "tools/call" {
            let message = format!(
                "method not found: {}; this server answers initialize, ping, tools/list and tools/call",
                request.method
            );
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, message, None));
        }
        let params = request.params.unwrap_or_default();
        let name = params.get("name").and_then(Value::as_str).ok_or_else(|| wrong_name(params.get("name")))?;
        let arguments = params.get("arguments").filter(|a| !a.is_null()).map(Value::to_string);
        let result = call_with_raw_arguments(&self.toolbox, name, arguments.as_deref()).await?;
        let result = serde_json::to_value(result)
            .map_err(|_| ErrorData::internal_error("the tools/call result did not serialize", None))?;
        Ok(CustomResult::new(result))
    }
}

/// The `CallToolResult` for one envelope: `structuredContent` is the envelope, the one text
/// block is its exact serialization, `isError` is [`Envelope::is_error`].
fn call_tool_result(envelope: &Envelope) -> CallToolResult {
    let mut result = CallToolResult::default();
    result.content = vec![ContentBlock::text(envelope.to_json())];
    result.structured_content = Some(envelope.to_value());
    result.is_error = Some(envelope.is_error());
    result
}

fn unknown_tool(unknown: UnknownTool) -> ErrorData {
    ErrorData::invalid_params(unknown.to_string(), None)
}

/// `params.name` sent, but not a string: quoted.
fn wrong_name(name: Option<&Value>) -> ErrorData {
    match name {
        Some(v) => {
            let shown: String = v.to_string().chars().take(40).collect();
            ErrorData::invalid_params(
                format!(
                    "tools/call: params.name {shown} is not a string; send the tool's name as a JSON string (see tools/list)"
                ),
                None,
            )
        }
        None => missing_name(),
    }
}

fn missing_name() -> ErrorData {
    ErrorData::invalid_params(
        "tools/call needs params.name, a JSON string naming the tool to call (see tools/list)",
        None,
    )
}

/// A `tools/call` whose `arguments` arrive as JSON text of any shape and any depth (`None`: not
/// sent). An object is served; a string that holds an object is decoded and served for a tool
/// that is not strict; anything else is refused with `-32602`, because MCP defines `arguments`
/// as an object and such a request is malformed, not a call the tool could serve.
async fn call_with_raw_arguments(
    toolbox: &Toolbox,
    name: &str,
    arguments: Option<&str>,
) -> Result<CallToolResult, ErrorData> {
    let Some(arguments) = arguments.map(str::trim) else {
        return served(toolbox.call(name, None).await);
    };
    let lenient = toolbox.get(name).is_some_and(|tool| !tool.strict());
    match arguments.as_bytes().first() {
        Some(b'{') => served(toolbox.call_json(name, arguments).await),
        Some(b'"') if lenient => match decoded_object(arguments) {
            Some(object) => served(toolbox.call_json(name, &object).await),
            None => refused(toolbox.call_json(name, arguments).await),
        },
        _ => refused(toolbox.call_json(name, arguments).await),
    }
}

fn served(call: Result<Envelope, UnknownTool>) -> Result<CallToolResult, ErrorData> {
    Ok(call_tool_result(&call.map_err(unknown_tool)?))
}

/// `-32602` carrying the toolbox's refusal of the `arguments` value: its sentence as `message`,
/// the envelope as `data`.
fn refused(call: Result<Envelope, UnknownTool>) -> Result<CallToolResult, ErrorData> {
    let envelope = call.map_err(unknown_tool)?;
    match envelope.message() {
        Some(message) if envelope.is_error() => {
            Err(ErrorData::invalid_params(message.to_owned(), Some(envelope.to_value())))
        }
        // The toolbox served it after all: answer what it answered.
        _ => Ok(call_tool_result(&envelope)),
    }
}

/// The text of the object a JSON string holds (`"{\"a\":1}"` → `{"a":1}`), if it holds one.
fn decoded_object(string_json: &str) -> Option<String> {
    let text: String = serde_json::from_str(string_json).ok()?;
    // `IgnoredAny` checks the syntax without building a value, so a deep object is no problem.
    let is_object = text.trim_start().starts_with('{') && serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
    is_object.then_some(text)
}

/// Serves `toolbox` over stdin/stdout until stdin closes (MCP 2025-11-25, "Transports /
/// stdio": newline-delimited JSON-RPC messages).
///
/// Between stdin and rmcp sits a line filter for one trap of rmcp's stdio transport: a line
/// that `serde_json` cannot parse within its recursion limit (nesting 128 levels or deeper)
/// is dropped without a reply (rmcp `transport/async_rw.rs`, rust-sdk#938), so a client
/// waits forever. The filter reads such a line with a shallow parse that has no depth limit
/// and answers it itself: a `tools/call` gets the same answer [`McpServer`] would give (the
/// toolbox refuses the too-deep parameter), any other request `-32600` (invalid request). All
/// of stdout, rmcp's lines and the filter's, goes through one writer, so lines never interleave.
///
/// Returns when stdin reaches end of file and every answer has been written.
///
/// # Errors
/// An I/O failure on stdin or stdout, or an MCP session that could not start (the first message
/// was not `initialize` or `server/discover`).
pub async fn serve_stdio(toolbox: Toolbox) -> io::Result<()> {
    let server = McpServer::new(toolbox);
    let toolbox = Arc::clone(&server.toolbox);
    let (rmcp_io, filter_io) = tokio::io::duplex(1 << 16);
    let (from_rmcp, to_rmcp) = tokio::io::split(filter_io);
    let (lines, mut stdout_lines) = mpsc::channel::<Vec<u8>>(64);

    let rmcp = async move {
        match server.serve(rmcp_io).await {
            Ok(running) => running.waiting().await.map(drop).map_err(io::Error::other),
            // stdin closed before a session started: nothing to serve.
            Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(error) => Err(io::Error::new(io::ErrorKind::InvalidData, error.to_string())),
        }
    };
    let filter = filter_stdin(&toolbox, tokio::io::stdin(), to_rmcp, lines.clone());
    let forward = forward_lines(from_rmcp, lines);
    let write = async {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = stdout_lines.recv().await {
            stdout.write_all(&line).await?;
            stdout.flush().await?;
        }
        Ok(())
    };
    tokio::try_join!(rmcp, filter, forward, write).map(drop)
}

/// Passes each stdin line to rmcp, except a request nested too deep for rmcp to read, which it
/// answers on `replies`. Closes rmcp's input at end of file.
async fn filter_stdin(
    toolbox: &Toolbox,
    stdin: impl AsyncRead + Unpin,
    mut to_rmcp: impl AsyncWrite + Unpin,
    replies: mpsc::Sender<Vec<u8>>,
) -> io::Result<()> {
    let mut stdin = BufReader::new(stdin);
    let mut line = Vec::new();
    let mut in_long_line = false;
    loop {
        line.clear();
        // Buffer at most rmcp's own line limit: a longer line streams through untouched and rmcp
        // discards it, as it would without the filter.
        let limit = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH as u64;
        let read = (&mut stdin).take(limit).read_until(b'\n', &mut line).await?;
        if read == 0 {
            break;
        }
        let ends_line = line.ends_with(b"\n");
        if in_long_line || (!ends_line && read as u64 == limit) {
            in_long_line = !ends_line;
            to_rmcp.write_all(&line).await?;
            if !in_long_line {
                // rmcp discards the line unanswered; the client learns why.
                let why = format!("the request line is longer than {limit} bytes");
                let reply = parse_error(&why);
                replies.send(reply).await.map_err(|_| closed_stdout())?;
            }
            continue;
        }
        match answer_too_deep(toolbox, &line).await {
            Some(reply) => replies.send(reply).await.map_err(|_| closed_stdout())?,
            None => to_rmcp.write_all(&line).await?,
        }
    }
    to_rmcp.shutdown().await
}

/// Copies rmcp's output to the stdout writer, whole lines at a time.
async fn forward_lines(from_rmcp: impl AsyncRead + Unpin, lines: mpsc::Sender<Vec<u8>>) -> io::Result<()> {
    let mut from_rmcp = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        if from_rmcp.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        lines.send(line).await.map_err(|_| closed_stdout())?;
    }
}

fn closed_stdout() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the stdout writer stopped")
}

/// `serde_json` refuses a value nested this deep or deeper: its parser starts with 128 levels
/// and fails when none is left (`remaining_depth` in `serde_json/src/de.rs`). rmcp parses each
/// line with `serde_json::from_slice`, so this is the first depth at which rmcp drops a line.
const RMCP_UNREADABLE_DEPTH: usize = 128;

/// The parts of a request the filter reads. `RawValue`, and the skipping of the other fields, are
/// iterative in `serde_json`: this parse has no depth limit.
#[derive(Deserialize)]
struct DeepRequest<'a> {
    id: RequestId,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

/// The `params` of a `tools/call`, read the same way.
#[derive(Deserialize)]
struct DeepCallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
}

/// JSON-RPC -32600 for a JSON value that is not a request rmcp can read, with the request's id
/// when it has a usable one (else `null`) and the member to change; `None` when the basic shape
/// holds (rmcp reads it).
fn invalid_request(value: &Value) -> Option<Vec<u8>> {
    let example = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"...","arguments":{}}}"#;
    let Some(obj) = value.as_object() else {
        let why = if value.is_array() {
            "a batch (a JSON array) is not supported: send one request object per line".to_owned()
        } else {
            format!("a request is a JSON object, like {example}")
        };
        return Some(error_line(Value::Null, ErrorData::invalid_request(why, None)));
    };
    let id = obj.get("id");
    let id_ok = match id {
        None => true,
        Some(Value::String(_)) => true,
        Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
        Some(_) => false,
    };
    let why = if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        "`jsonrpc` must be \"2.0\"".to_owned()
    } else if !id_ok {
        "`id` must be a string or a whole number".to_owned()
    } else if !obj.get("method").is_some_and(Value::is_string)
        && obj.get("result").is_none()
        && obj.get("error").is_none()
    {
        "`method` must be a string naming the method, like \"tools/call\"".to_owned()
    } else if obj.get("params").is_some_and(|p| !p.is_object() && !p.is_null()) {
        "`params` must be an object".to_owned()
    } else {
        return None;
    };
    let id = if id_ok { id.cloned().unwrap_or(Value::Null) } else { Value::Null };
    Some(error_line(id, ErrorData::invalid_request(format!("{why}; a request looks like {example}"), None)))
}

fn error_line(id: Value, error: ErrorData) -> Vec<u8> {
    let message = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error});
    let mut line = serde_json::to_vec(&message).unwrap_or_default();
    line.push(b'\n');
    line
}

/// JSON-RPC -32700 with `id: null`, as one line: the answer to text that is not a request.
fn parse_error(why: &str) -> Vec<u8> {
    error_line(Value::Null, ErrorData::parse_error(format!("{why}: send one JSON-RPC request object per line"), None))
}

/// The JSON-RPC reply (one line, `\n`-terminated) to a line that rmcp would drop unanswered
/// (nested too deep, a number past a double, an invalid escape, not JSON at all), or would read
/// with digits lost (a `tools/call` with an integer past 64 bits); `None` for every other line,
/// which goes to rmcp unchanged.
async fn answer_too_deep(toolbox: &Toolbox, line: &[u8]) -> Option<Vec<u8>> {
    // rmcp ignores a UTF-8 byte order mark and a `\r` before the `\n`; so does this.
    let Ok(text) = std::str::from_utf8(line) else {
        return Some(parse_error("the request line is not UTF-8"));
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text).trim_end();
    if text.is_empty() {
        return None;
    }
    let deep = nests_at_least(line, RMCP_UNREADABLE_DEPTH);
    // What rmcp cannot parse, it drops without a reply: parse every line once to know.
    let parsed = if deep { None } else { Some(serde_json::from_str::<Value>(text)) };
    let readable = matches!(parsed, Some(Ok(_)));
    if let Some(Ok(value)) = &parsed {
        // rmcp answers a request of the wrong shape with an id-less -32600 the client cannot
        // match to its call: answer it here, with the id and what to change.
        if let Some(reply) = invalid_request(value) {
            return Some(reply);
        }
        if !has_long_number(line) && !arguments_text_matters(text) {
            return None;
        }
    }
    let Ok(request) = serde_json::from_str::<DeepRequest<'_>>(text) else {
        // Not a request with an id: a readable notification goes to rmcp; anything else is a
        // parse error, answered with `id: null` (JSON-RPC 2.0 §5.1).
        if readable {
            return None;
        }
        let why = match parsed {
            Some(Err(e)) => {
                let what = e.to_string();
                let what = what.split(" at line ").next().unwrap_or("").to_owned();
                format!("the request line is not valid JSON ({what}, at character {})", e.column())
            }
            _ => "the request line is not valid JSON".to_owned(),
        };
        return Some(parse_error(&why));
    };
    if readable && request.method != "tools/call" {
        return None;
    }
    let reply = if request.method == "tools/call" {
        let params = request.params.and_then(|p| serde_json::from_str::<DeepCallParams<'_>>(p.get()).ok());
        match params {
            // Awaited in line, not spawned: lines this deep are rare, and when the depth is in
            // `arguments` the toolbox refuses it without running the tool.
            Some(params) => call_with_raw_arguments(toolbox, &params.name, params.arguments.map(RawValue::get)).await,
            None => Err(missing_name()),
        }
    } else {
        let why = if deep {
            format!("nests deeper than {} levels", RMCP_UNREADABLE_DEPTH - 1)
        } else {
            "holds text JSON cannot read (a number past a double, or an invalid escape)".to_owned()
        };
        Err(ErrorData::invalid_request(format!("{}: the request {why}", request.method), None))
    };
    let message = match reply {
        Ok(mut result) => {
            // The negotiated protocol version is rmcp's to know, not the filter's; every version
            // reads an absent `resultType` as "complete".
            result.result_type = None;
            ServerJsonRpcMessage::response(ServerResult::CallToolResult(result), request.id)
        }
        Err(error) => ServerJsonRpcMessage::error(error, Some(request.id)),
    };
    let mut reply = serde_json::to_vec(&message).ok()?;
    reply.push(b'\n');
    Some(reply)
}

/// Whether a readable `tools/call` line's `arguments` text shows what rmcp's parse would lose: a
/// key sent twice, or a number written otherwise than its double writes back (`1e3`). Such a call
/// is answered from the text (`Toolbox::call_json`), so the refusal names the duplicate and quotes
/// the number as sent.
fn arguments_text_matters(text: &str) -> bool {
    let Ok(request) = serde_json::from_str::<DeepRequest<'_>>(text) else { return false };
    if request.method != "tools/call" {
        return false;
    }
    let params = request.params.and_then(|p| serde_json::from_str::<DeepCallParams<'_>>(p.get()).ok());
    let Some(arguments) = params.and_then(|p| p.arguments).map(RawValue::get) else { return false };
    let sent = crate::sent::scan(arguments);
    if !sent.duplicates.is_empty() {
        return true;
    }
    serde_json::from_str::<Value>(arguments).is_ok_and(|v| !crate::sent::numbers_as_sent(&sent.numbers, &v).is_empty())
}

/// Whether a number token outside strings has 19 or more digits (it may not fit 64 bits) or an
/// exponent of three digits (it may not fit a double). Works on malformed text too.
fn has_long_number(json: &[u8]) -> bool {
    let (mut digits, mut exponent_digits, mut in_exponent) = (0, 0, false);
    crate::render::scan_outside_strings(json, |_, byte| {
        match byte {
            b'0'..=b'9' if in_exponent => exponent_digits += 1,
            b'0'..=b'9' => digits += 1,
            b'e' | b'E' if digits > 0 => in_exponent = true,
            b'.' | b'+' | b'-' => {}
            _ => (digits, exponent_digits, in_exponent) = (0, 0, false),
        }
        digits >= 19 || exponent_digits >= 3
    })
}

/// Whether `[`/`{` nest at least `depth` levels deep somewhere in `json`, outside strings.
/// Works on malformed text too: it only counts.
fn nests_at_least(json: &[u8], depth: usize) -> bool {
    let mut level = 0usize;
    crate::render::scan_outside_strings(json, |_, byte| {
        match byte {
            b'[' | b'{' => level += 1,
            b']' | b'}' => level = level.saturating_sub(1),
            _ => {}
        }
        level >= depth
    })
}

fn envelope_core_annotations_none() -> crate::Annotations {
    crate::Annotations::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools_call_nested(depth: usize) -> String {
        // The message object, `params` and `arguments` are three levels; the rest is `tags`.
        let tags = format!("{}{}", "[".repeat(depth - 3), "]".repeat(depth - 3));
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"t","arguments":{{"tags":{tags}}}}}}}"#
        )
    }

    /// Pins [`RMCP_UNREADABLE_DEPTH`] to what rmcp's own parse of a client message does.
    #[test]
    fn the_depth_limit_is_the_one_rmcp_drops_at() {
        for depth in [RMCP_UNREADABLE_DEPTH - 1, RMCP_UNREADABLE_DEPTH] {
            let line = tools_call_nested(depth);
            let rmcp_reads = serde_json::from_str::<rmcp::model::ClientJsonRpcMessage>(&line).is_ok();
            assert_eq!(rmcp_reads, depth < RMCP_UNREADABLE_DEPTH, "depth {depth}");
            assert_eq!(nests_at_least(line.as_bytes(), RMCP_UNREADABLE_DEPTH), !rmcp_reads, "depth {depth}");
        }
    }

    #[test]
    fn brackets_inside_strings_do_not_count() {
        let line = format!(r#"{{"a":"{}\"{}"}}"#, "[".repeat(300), "{".repeat(300));
        assert!(!nests_at_least(line.as_bytes(), 3));
        assert!(nests_at_least(br#"{"a":[{"b":"]]]"}]}"#, 3));
    }

    #[test]
    fn a_string_that_holds_an_object_is_decoded() {
        assert_eq!(decoded_object(r#""{\"a\": 1}""#).as_deref(), Some(r#"{"a": 1}"#));
        assert_eq!(decoded_object(r#""[1]""#), None);
        assert_eq!(decoded_object(r#""{not json""#), None);
        assert_eq!(decoded_object("[1]"), None);
    }
}
