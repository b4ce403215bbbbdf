//! The MCP line fuzzer: JSON-RPC lines, well-formed and not, fed to the stdio server itself
//! (`envelope_core::mcp::serve_io`, which `serve_stdio` runs over stdin/stdout) over in-memory
//! pipes, one session after another, each over a fresh toolbox of the example tools.
//!
//! Lines fed: `initialize`, `ping`, `tools/list`, `tools/call` for every example tool with the
//! argument generator of [`crate::run`] (and mutations of it), unknown and huge tool names,
//! notifications (well-formed and not), responses, bad ids (`null`, floats, `1e400`, integers
//! past 64 bits, objects, long strings, ids sent twice), members sent twice, deep nesting,
//! unknown and huge method names, arbitrary bytes (invalid UTF-8 among them), byte-level
//! mutations of all these, and now and then a line past the server's 16 MiB line limit. Some
//! sessions speak MCP 2025-11-25 (the `initialize` handshake), the others 2026-07-28 (the
//! version and capabilities in each request's `_meta`); some start with lines before the
//! session does.
//!
//! After each line the fuzzer sends a `ping` of its own (the sentinel) and reads replies until
//! the sentinel's, then any reply still owed. The promises checked on every line:
//! - no panic, and the session goes on (the server answers the sentinel, and ends normally when
//!   its input closes);
//! - every reply line is a JSON object with `"jsonrpc": "2.0"` and exactly one of `result` and
//!   `error` (an error with an integer `code` and a string `message`);
//! - exactly one reply to a request, none to a notification or a response. The line's kind is
//!   read independently of the server: a well-formed JSON object is a notification when it has
//!   `method` and no `id`, a response when it has neither `method` nor `id` but `result` or
//!   `error`. Its reply carries the (last) `id` sent when that is a string or an integer that
//!   fits 64 bits, and no `id` (or `null`) otherwise. Text that is not one JSON object gets at
//!   most one reply, an error whose `id` is one the line spells out, and exactly one when the
//!   line does not mention `"method"`;
//! - no reply line over [`MAX_LINE_BYTES`], not counting the `id` echoed (the client chose its
//!   length), except the answers carrying a tool's data: `tools/list` and a `tools/call` whose
//!   envelope is `ok` (largest reported apart);
//! - a `tools/call` answered with a result carries the envelope in `structuredContent` and its
//!   exact text in `content[0].text`; the envelope keeps every promise of [`crate::run`];
//! - a secret never appears in any reply (the fuzzer's secrets are all marked).

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use envelope_core::mcp::{McpServer, serve_io};
use fastrand::Rng;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

use crate::{SECRET_MARK, arguments, check, mutate, random_text, secret, string, tools, typo, value};

/// The longest reply line allowed, in bytes (4.5 KB): a `tools/call` result carries the 2 KB
/// envelope twice (`structuredContent` and its text), with room for the JSON-RPC frame.
pub const MAX_LINE_BYTES: usize = 4608;

/// Lines one session serves before its input closes and a fresh one starts.
const SESSION_LINES: u64 = 20_000;

/// How long a reply may take before the fuzzer calls it missing.
const REPLY_TIMEOUT: Duration = Duration::from_secs(20);

/// The server's line limit (rmcp's 16 MiB); a longer line is answered without being held.
const SERVER_LINE_LIMIT: usize = 16 << 20;

const META_2026: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const META_2026_ELICIT: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;

/// What an MCP line run fed and what came back.
#[derive(Debug, Default)]
pub struct McpReport {
    /// Lines fed (the sentinels and handshakes not counted).
    pub lines: u64,
    /// Sessions served.
    pub sessions: u64,
    /// Lines by kind.
    pub by_kind: BTreeMap<&'static str, u64>,
    /// Replies by what they were: `result`, `error -32602`, ..., `none` for a line not answered.
    pub by_reply: BTreeMap<String, u64>,
    /// The largest reply line held to [`MAX_LINE_BYTES`], in bytes, and its first characters.
    pub largest_line: (usize, String),
    /// The largest reply carrying a tool's data (`tools/list`, an `ok` envelope), in bytes.
    pub largest_data_line: usize,
    /// The largest line fed, in bytes.
    pub largest_input: usize,
}

impl fmt::Display for McpReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} MCP lines in {} sessions, no promise broken", self.lines, self.sessions)?;
        writeln!(f, "by kind: {:?}", self.by_kind)?;
        writeln!(f, "by reply: {:?}", self.by_reply)?;
        writeln!(f, "largest reply line {} B (limit {MAX_LINE_BYTES}): {}", self.largest_line.0, self.largest_line.1)?;
        write!(
            f,
            "largest reply carrying tool data {} B (tools/list, ok envelopes), largest line fed {} B",
            self.largest_data_line, self.largest_input
        )
    }
}

/// A broken promise: the line that broke it (and the line before, whose reply may come late).
#[derive(Debug)]
pub struct McpFailure {
    /// The line's number in the run (from 0; sessions' handshakes not counted).
    pub index: u64,
    /// The line sent, as text (bytes that are not UTF-8 escaped).
    pub line: String,
    /// The line fed before it.
    pub previous: String,
    /// What went wrong.
    pub what: String,
}

impl fmt::Display for McpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}\nline sent: {}\nline before: {}", self.index, self.what, self.line, self.previous)
    }
}

/// Feeds `lines` MCP lines generated from `seed` (the same seed gives the same lines) to the
/// stdio server, checking every reply; stops at the first broken promise.
///
/// # Errors
/// The first [`McpFailure`].
///
/// # Panics
/// If no tokio runtime can be built.
pub fn run_mcp(lines: u64, seed: u64) -> Result<McpReport, McpFailure> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let names: Vec<(String, Vec<String>)> = crate::tool_names();
        let mut rng = Rng::with_seed(seed);
        let mut report = McpReport::default();
        let mut fuzzer =
            Fuzzer { rng: &mut rng, names: &names, report: &mut report, index: 0, previous: String::new() };
        while fuzzer.index < lines {
            let n = SESSION_LINES.min(lines - fuzzer.index);
            fuzzer.session(n).await?;
        }
        Ok(report)
    })
}

struct Fuzzer<'a> {
    rng: &'a mut Rng,
    names: &'a [(String, Vec<String>)],
    report: &'a mut McpReport,
    index: u64,
    previous: String,
}

/// One stdio session: the client's ends of the server's stdin and stdout.
struct Session {
    input: WriteHalf<DuplexStream>,
    output: BufReader<ReadHalf<DuplexStream>>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    /// 2026-07-28: every request carries the version in `_meta`.
    inline: bool,
    sentinel: u64,
}

/// What the line is, read independently of the server.
#[derive(Debug, PartialEq)]
enum Expect {
    /// A notification, a response, an empty line: never answered.
    Nothing,
    /// A request: one reply under this id (a JSON string or integer).
    Id(Value),
    /// A request whose id no reply can carry: one reply, without an id.
    NoId,
    /// Not one JSON object: at most one reply (exactly one when `one`), an error whose id, if
    /// any, the line spells out.
    Malformed { one: bool },
}

impl Fuzzer<'_> {
    fn fail(&self, line: &[u8], what: impl Into<String>) -> McpFailure {
        McpFailure { index: self.index, line: shown(line), previous: self.previous.clone(), what: what.into() }
    }

    async fn session(&mut self, lines: u64) -> Result<(), McpFailure> {
        self.report.sessions += 1;
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_in, server_out) = tokio::io::split(server);
        let handler = McpServer::new(tools::toolbox());
        let server = tokio::spawn(serve_io(handler, server_in, server_out));
        let (output, input) = tokio::io::split(client);
        let inline = self.rng.bool();
        let mut s = Session { input, output: BufReader::new(output), server, inline, sentinel: 0 };
        let mut left = lines;
        // Lines before the session starts: rmcp answers requests then, and drops the rest.
        if self.rng.u8(..4) == 0 {
            for _ in 0..self.rng.u64(1..6).min(left) {
                let (kind, line) = self.pre_session_line(&s);
                self.feed(&mut s, kind, line).await?;
                left -= 1;
            }
        }
        if !inline {
            let init = r#"{"jsonrpc":"2.0","id":"~init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"envelope-fuzz","version":"0"}}}"#;
            send(&mut s, init.as_bytes()).await.map_err(|e| self.fail(init.as_bytes(), e))?;
            let mut seen = Vec::new();
            self.read_until(&mut s, &Value::String("~init".into()), init.as_bytes(), &mut seen).await?;
            let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
            send(&mut s, initialized).await.map_err(|e| self.fail(initialized, e))?;
        }
        for _ in 0..left {
            let (kind, line) = self.line(&s);
            self.feed(&mut s, kind, line).await?;
        }
        // End of input: the server answers what it read, then ends normally.
        let _ = s.input.shutdown().await;
        drop(s.input);
        let mut rest = Vec::new();
        let _ = tokio::time::timeout(REPLY_TIMEOUT, tokio::io::AsyncReadExt::read_to_end(&mut s.output, &mut rest))
            .await
            .map_err(|_| self.fail(b"(end of input)", "the server did not close its output"))?;
        if !rest.is_empty() {
            return Err(self.fail(b"(end of input)", format!("replies nobody was owed: {}", shown(&rest))));
        }
        match tokio::time::timeout(REPLY_TIMEOUT, s.server).await {
            Ok(Ok(Ok(()))) => Ok(()),
            Ok(Ok(Err(e))) => Err(self.fail(b"(end of input)", format!("the session ended with an error: {e}"))),
            Ok(Err(e)) => Err(self.fail(b"(end of input)", format!("the server task failed: {e}"))),
            Err(_) => Err(self.fail(b"(end of input)", "the server did not end at end of input")),
        }
    }

    /// Sends one fuzz line and its sentinel, reads and checks every reply.
    async fn feed(&mut self, s: &mut Session, kind: &'static str, line: Vec<u8>) -> Result<(), McpFailure> {
        *self.report.by_kind.entry(kind).or_default() += 1;
        self.report.lines += 1;
        self.report.largest_input = self.report.largest_input.max(line.len());
        let expect = expectation(&line);
        send(s, &line).await.map_err(|e| self.fail(&line, e))?;
        let mut replies = Vec::new();
        if let Expect::Id(id) = &expect {
            // A request: its reply closes the exchange (a second reply, or any other, would be
            // read with the next line's and fail it).
            self.read_until(s, id, &line, &mut replies).await?;
        } else {
            self.sync(s, &line, &mut replies).await?;
        }
        self.judge(&line, &expect, &replies)?;
        let word = match replies.first() {
            None => "none".to_owned(),
            Some((_, r)) => match r.get("error") {
                Some(e) => format!("error {}", e["code"]),
                None if r["result"].get("structuredContent").is_some() => {
                    format!("tools/call {}", r["result"]["structuredContent"]["status"].as_str().unwrap_or("?"))
                }
                None => "result".to_owned(),
            },
        };
        *self.report.by_reply.entry(word).or_default() += 1;
        self.previous = shown(&line);
        self.index += 1;
        Ok(())
    }

    /// Sends the sentinel `ping` and reads every reply up to its own.
    async fn sync(
        &mut self,
        s: &mut Session,
        line: &[u8],
        replies: &mut Vec<(usize, Value)>,
    ) -> Result<(), McpFailure> {
        s.sentinel += 1;
        let sentinel = Value::String(format!("~sentinel-{}", s.sentinel));
        let ping = if s.inline {
            format!(r#"{{"jsonrpc":"2.0","id":{sentinel},"method":"ping","params":{{{META_2026}}}}}"#)
        } else {
            format!(r#"{{"jsonrpc":"2.0","id":{sentinel},"method":"ping"}}"#)
        };
        send(s, ping.as_bytes()).await.map_err(|e| self.fail(line, e))?;
        self.read_until(s, &sentinel, line, replies).await
    }

    /// Reads reply lines until the one under `until`, checking each; the others are collected.
    async fn read_until(
        &mut self,
        s: &mut Session,
        until: &Value,
        line: &[u8],
        replies: &mut Vec<(usize, Value)>,
    ) -> Result<(), McpFailure> {
        loop {
            let mut reply = Vec::new();
            let read = tokio::time::timeout(REPLY_TIMEOUT, s.output.read_until(b'\n', &mut reply)).await;
            match read {
                Err(_) => return Err(self.fail(line, format!("no reply under id {until} within {REPLY_TIMEOUT:?}"))),
                Ok(Err(e)) => return Err(self.fail(line, format!("reading the server's output: {e}"))),
                Ok(Ok(0)) => {
                    return Err(self.fail(line, format!("the server closed its output before answering {until}")));
                }
                Ok(Ok(_)) => {}
            }
            let message =
                self.check_line(&reply).map_err(|what| self.fail(line, format!("{what}: {}", shown(&reply))))?;
            if message.get("id") == Some(until) {
                if until.as_str().is_some_and(|id| id.starts_with('~')) {
                    // The sentinel `ping` may be refused (2026-07-28 has no `ping`, and a
                    // fuzzed `initialize` can move the session there); `initialize` may not.
                    if until == "~init" && message.get("result").is_none() {
                        return Err(self.fail(line, format!("the fuzzer's own request failed: {message}")));
                    }
                } else {
                    replies.push((reply.len(), message));
                }
                return Ok(());
            }
            replies.push((reply.len(), message));
        }
    }

    /// The promises every reply line keeps, whatever it answers.
    fn check_line(&mut self, reply: &[u8]) -> Result<Value, String> {
        if !reply.ends_with(b"\n") {
            return Err("a reply line without its `\\n`".into());
        }
        if memchr(reply, SECRET_MARK.as_bytes()) {
            return Err("a secret was echoed".into());
        }
        let message: Value = serde_json::from_slice(reply).map_err(|e| format!("a reply that is not JSON ({e})"))?;
        let object = message.as_object().ok_or("a reply that is not a JSON object")?;
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err("a reply without `\"jsonrpc\": \"2.0\"`".into());
        }
        if object.contains_key("method") {
            return Err("the server sent a request or notification of its own".into());
        }
        let id = object.get("id");
        if !matches!(id, None | Some(Value::Null | Value::String(_) | Value::Number(_))) {
            return Err("an `id` that is not a string, a number or null".into());
        }
        match (object.get("result"), object.get("error")) {
            (Some(_), None) => {}
            (None, Some(error)) => {
                if !error.get("code").is_some_and(Value::is_i64) || !error.get("message").is_some_and(Value::is_string)
                {
                    return Err("an error without an integer `code` and a string `message`".into());
                }
            }
            _ => return Err("a reply without exactly one of `result` and `error`".into()),
        }
        let mut data = false;
        if let Some(result) = object.get("result") {
            data = result.get("tools").is_some();
            if let Some(envelope) = result.get("structuredContent") {
                let text = result["content"][0]["text"].as_str().ok_or("a tools/call result without its text")?;
                let parsed: Value = serde_json::from_str(text).map_err(|_| "content[0].text is not JSON")?;
                if parsed != *envelope {
                    return Err("content[0].text is not structuredContent".into());
                }
                let status = check(text, true)?;
                if result.get("isError").and_then(Value::as_bool)
                    != Some(status != "ok" && status != "needs_confirmation")
                {
                    return Err(format!("isError disagrees with the envelope's status {status:?}"));
                }
                data = status == "ok";
            }
        }
        let id_len = id.map_or(0, |id| id.to_string().len());
        let words = reply.len() - 1 - id_len.min(reply.len() - 1);
        if data {
            self.report.largest_data_line = self.report.largest_data_line.max(reply.len() - 1);
        } else {
            if words > MAX_LINE_BYTES {
                return Err(format!("a reply line of {} bytes ({words} not counting the id)", reply.len() - 1));
            }
            if words > self.report.largest_line.0 {
                let start: String = String::from_utf8_lossy(reply).chars().take(160).collect();
                self.report.largest_line = (words, start);
            }
        }
        Ok(message)
    }

    /// Whether the replies read for `line` are the ones it is owed.
    fn judge(&self, line: &[u8], expect: &Expect, replies: &[(usize, Value)]) -> Result<(), McpFailure> {
        let ids: Vec<Option<&Value>> = replies.iter().map(|(_, r)| r.get("id").filter(|id| !id.is_null())).collect();
        let fail = |what: String| {
            Err(self.fail(line, format!("{what}; replies: {:?}", replies.iter().map(|r| &r.1).collect::<Vec<_>>())))
        };
        match expect {
            Expect::Nothing if !replies.is_empty() => fail("a notification or response was answered".into()),
            Expect::Id(id) if ids.len() != 1 || ids[0] != Some(id) => {
                fail(format!("{} replies, where one under id {id} is owed", ids.len()))
            }
            Expect::NoId if ids.len() != 1 || ids[0].is_some() => {
                fail(format!("{} replies, where one without an id is owed", ids.len()))
            }
            Expect::Malformed { one } => {
                if ids.len() > 1 || (*one && ids.is_empty()) {
                    return fail(format!("{} replies to a line that is not one JSON object", ids.len()));
                }
                if replies.iter().any(|(_, r)| r.get("error").is_none()) {
                    return fail("a line that is not one JSON object was served".into());
                }
                if let Some(Some(id)) = ids.first() {
                    let decoded = id.as_str().unwrap_or_default();
                    if !memchr(line, id.to_string().as_bytes()) && !memchr(line, decoded.as_bytes()) {
                        return fail(format!("the reply's id {id} is not in the line"));
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    // -----------------------------------------------------------------------------------------
    // Lines

    fn pre_session_line(&mut self, s: &Session) -> (&'static str, Vec<u8>) {
        loop {
            let (kind, line) = self.line(s);
            // An `initialize` that fails ends the session (rmcp answers it, then stops).
            if !memchr(&line, b"initialize") {
                return (kind, line);
            }
        }
    }

    fn line(&mut self, s: &Session) -> (&'static str, Vec<u8>) {
        if self.rng.u32(..50_000) == 0 {
            return ("past the line limit", past_the_limit(self.rng));
        }
        let (kind, text) = match self.rng.u8(..100) {
            0..=29 => ("tools/call", self.tools_call(s, true)),
            30..=37 => ("unknown tool", self.tools_call(s, false)),
            38..=42 => {
                let params = list_params(self.rng);
                ("tools/list", self.request(s, "tools/list", Some(params)))
            }
            43..=44 => ("ping", self.request(s, "ping", None)),
            45..=46 => {
                let params = init_params(self.rng);
                ("initialize", self.request(s, "initialize", Some(params)))
            }
            47..=51 => ("notification", notification(self.rng)),
            52..=53 => ("response", response(self.rng)),
            54..=58 => {
                let method = method(self.rng);
                let params = if self.rng.bool() { Some(value(self.rng, 1)) } else { None };
                ("other method", self.request(s, &method, params))
            }
            59..=63 => ("bad id", self.bad_id(s)),
            64..=69 => ("bad shape", self.bad_shape(s)),
            70..=77 => return ("random bytes", random_bytes(self.rng)),
            _ => {
                let (_, line) = self.line(s);
                return ("mutated", mutate_bytes(self.rng, line));
            }
        };
        (kind, text.into_bytes())
    }

    /// An id as a client would send it: mostly a number, sometimes a string.
    fn id(&mut self) -> String {
        match self.rng.u8(..10) {
            0..=6 => (self.index as i64 * 7 + i64::from(self.rng.u8(..7))).to_string(),
            7 => (-self.rng.i64(1..1 << 40)).to_string(),
            8 => format!("\"req-{}\"", self.rng.u32(..)),
            _ => format!("\"{}\"", string(self.rng).replace('~', "-")),
        }
    }

    /// `params` with the session's `_meta` (on 2026-07-28, usually).
    fn params(&mut self, s: &Session, members: &str) -> String {
        if s.inline && self.rng.u8(..10) != 0 {
            let meta = if self.rng.u8(..4) == 0 { META_2026_ELICIT } else { META_2026 };
            if members.is_empty() { format!("{{{meta}}}") } else { format!("{{{meta},{members}}}") }
        } else {
            format!("{{{members}}}")
        }
    }

    /// A request for `method`; `params` is its members' text (an object's inside) or any JSON.
    fn request(&mut self, s: &Session, method: &str, params: Option<String>) -> String {
        let id = self.id();
        let method = serde_json::to_string(method).unwrap_or_default();
        let params = match params {
            Some(p) if p.starts_with('{') && p.ends_with('}') => {
                let inner = &p[1..p.len() - 1];
                self.params(s, inner)
            }
            Some(p) => p,
            None if s.inline || self.rng.bool() => self.params(s, ""),
            None => return format!(r#"{{"jsonrpc":"2.0","id":{id},"method":{method}}}"#),
        };
        let mut members = vec![
            r#""jsonrpc":"2.0""#.to_owned(),
            format!(r#""id":{id}"#),
            format!(r#""method":{method}"#),
            format!(r#""params":{params}"#),
        ];
        if self.rng.u8(..8) == 0 {
            self.rng.shuffle(&mut members);
        }
        format!("{{{}}}", members.join(","))
    }

    fn tools_call(&mut self, s: &Session, known: bool) -> String {
        let (tool, params) = &self.names[self.rng.usize(..self.names.len())];
        let with_secret = params.iter().any(|p| p == "api_key") && self.rng.bool();
        let name = if known {
            serde_json::to_string(tool).unwrap_or_default()
        } else {
            match self.rng.u8(..10) {
                0..=5 => serde_json::to_string(&typo(self.rng, tool)).unwrap_or_default(),
                6 => format!("\"{}\"", string(self.rng)),
                7 => format!("\"{}\"", "t".repeat(self.rng.usize(..20_000))),
                _ => value(self.rng, 1),
            }
        };
        let arguments = match self.rng.u8(..20) {
            0 => None,
            1 => Some("null".to_owned()),
            2 => Some(value(self.rng, 1)),
            3 => {
                let text = arguments(self.rng, params, false);
                Some(mutate(self.rng, text))
            }
            _ => Some(arguments(self.rng, params, with_secret)),
        };
        let mut members = vec![format!(r#""name":{name}"#)];
        if let Some(a) = arguments {
            members.push(format!(r#""arguments":{a}"#));
        }
        if self.rng.u8(..25) == 0 {
            // A member sent twice.
            let again = members[self.rng.usize(..members.len())].clone();
            members.push(again);
        }
        if self.rng.u8(..25) == 0 {
            members.push(format!(r#""{}":{}"#, string(self.rng), value(self.rng, 1)));
        }
        self.rng.shuffle(&mut members);
        let params = format!("{{{}}}", members.join(","));
        self.request(s, "tools/call", Some(params))
    }

    /// A request whose `id` no reply can carry, or one sent twice.
    fn bad_id(&mut self, s: &Session) -> String {
        let id = match self.rng.u8(..16) {
            0 => "null".to_owned(),
            1 => "1.5".to_owned(),
            2 => "1e400".to_owned(),
            3 => "18446744073709551616".to_owned(),
            4 => "123456789012345678901234567890".to_owned(),
            5 => "9223372036854775807".to_owned(),
            6 => "-9223372036854775808".to_owned(),
            7 => "-0".to_owned(),
            8 => "true".to_owned(),
            9 => "[1]".to_owned(),
            10 => r#"{"id":1}"#.to_owned(),
            11 => format!("\"{}\"", "i".repeat(self.rng.usize(..8000))),
            12 => format!("{},\"id\":{}", self.id(), self.id()),
            13 => "1.0".to_owned(),
            14 => format!("\"{}\"", string(self.rng).replace('~', "-")),
            _ => format!("{},\"id\":{}", value(self.rng, 2), self.id()),
        };
        let method = ["ping", "tools/list", "tools/call", "initialize"][self.rng.usize(..4)];
        let params = match method {
            "tools/call" => {
                let (tool, params) = &self.names[self.rng.usize(..self.names.len())];
                let args = arguments(self.rng, params, params.iter().any(|p| p == "api_key"));
                self.params(s, &format!(r#""name":"{tool}","arguments":{args}"#))
            }
            _ => self.params(s, ""),
        };
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
    }

    /// A message of the wrong shape: members missing, sent twice or of the wrong type, deep
    /// nesting, a batch, a scalar.
    fn bad_shape(&mut self, s: &Session) -> String {
        let id = self.id();
        let secret_params = {
            let args = format!(r#"{{"api_key":{},"threshold":1}}"#, secret(self.rng));
            self.params(s, &format!(r#""name":"set_threshold","arguments":{args}"#))
        };
        match self.rng.u8(..16) {
            0 => format!(r#"{{"id":{id},"method":"ping"}}"#),
            1 => format!(r#"{{"jsonrpc":"1.0","id":{id},"method":"ping"}}"#),
            2 => format!(r#"{{"jsonrpc":"2.0","jsonrpc":"2.0","id":{id},"method":"ping"}}"#),
            3 => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{secret_params},"params":{secret_params}}}"#
            ),
            4 => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":{},"params":{{}}}}"#, value(self.rng, 1)),
            5 => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{}}}"#,
                ["[]", "1", "\"x\"", "true"][self.rng.usize(..4)]
            ),
            6 => format!(r#"{{"jsonrpc":"2.0","id":{id}}}"#),
            7 => {
                let n = self.rng.usize(100..400);
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"_meta":{{"x":{}1{}}}}}}}"#,
                    "[".repeat(n),
                    "]".repeat(n)
                )
            }
            8 => {
                let n = self.rng.usize(100..400);
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{}"x"{},"arguments":{{}}}}}}"#,
                    "[".repeat(n),
                    "]".repeat(n)
                )
            }
            9 => format!("[{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}]"),
            10 => value(self.rng, 0),
            11 => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"x":1e400}}}}"#),
            12 => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","method":"tools/call","params":{secret_params}}}"#
            ),
            13 => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}},"error":{{"code":1,"message":"x"}}}}"#),
            14 => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"set_threshold","name":"set_threshold","arguments":{}}}}}"#,
                secret(self.rng)
            ),
            _ => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"{}","params":{{}}}}"#,
                "m".repeat(self.rng.usize(..10_000))
            ),
        }
    }
}

async fn send(s: &mut Session, line: &[u8]) -> Result<(), String> {
    let written = async {
        s.input.write_all(line).await?;
        s.input.write_all(b"\n").await?;
        s.input.flush().await
    };
    tokio::time::timeout(REPLY_TIMEOUT, written)
        .await
        .map_err(|_| "the server stopped reading its input".to_owned())?
        .map_err(|e| format!("writing to the server: {e}"))
}

/// The members of a JSON object, duplicates kept, values unparsed (no depth limit).
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Box<RawValue>>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Object)
    }
}

/// The longest `id` the server answers under, in bytes as sent: past it, a request is refused
/// under `null` (its reply would echo the id to a client that may not read).
const MAX_ID_BYTES: usize = 256;

/// What a line is owed, from JSON-RPC 2.0 (§4 Request object, §4.1 Notification, §5 Response).
fn expectation(line: &[u8]) -> Expect {
    let malformed = Expect::Malformed { one: !memchr(line, b"\"method\"") };
    let Ok(text) = std::str::from_utf8(line) else { return malformed };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text).trim();
    if text.is_empty() {
        return Expect::Nothing;
    }
    let Ok(Members(members)) = serde_json::from_str::<Members>(text) else { return malformed };
    let last = |name: &str| members.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.get());
    let has = |name: &str| last(name).is_some();
    match (last("id"), has("method")) {
        (None, true) => Expect::Nothing,
        (_, false) if has("result") || has("error") => Expect::Nothing,
        (None, false) => Expect::NoId,
        (Some(raw), _) if raw.len() > MAX_ID_BYTES => Expect::NoId,
        (Some(raw), _) => match serde_json::from_str::<Value>(raw) {
            Ok(Value::String(s)) => Expect::Id(Value::String(s)),
            Ok(Value::Number(n)) if n.as_i64().is_some() => Expect::Id(Value::Number(n)),
            _ => Expect::NoId,
        },
    }
}

fn memchr(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// A line or a request as text for a report: cut to 600 characters, bytes that are not UTF-8
/// escaped.
pub(crate) fn shown(line: &[u8]) -> String {
    let text: String = line
        .utf8_chunks()
        .flat_map(|c| {
            let bad: String = c.invalid().iter().map(|b| format!("\\x{b:02X}")).collect();
            c.valid().chars().map(String::from).chain(std::iter::once(bad))
        })
        .collect();
    let cut: String = text.chars().take(600).collect();
    if cut.len() < text.len() { format!("{cut}… ({} bytes)", line.len()) } else { cut }
}

fn list_params(rng: &mut Rng) -> String {
    match rng.u8(..6) {
        0 => "{}".to_owned(),
        1 => format!(r#"{{"cursor":"{}"}}"#, string(rng)),
        2 => format!(r#"{{"cursor":{}}}"#, value(rng, 1)),
        3 => value(rng, 1),
        _ => "{}".to_owned(),
    }
}

fn init_params(rng: &mut Rng) -> String {
    let version = ["\"2025-11-25\"", "\"2025-06-18\"", "\"2026-07-28\"", "\"1999-01-01\"", "1"][rng.usize(..5)];
    match rng.u8(..4) {
        0 => value(rng, 1),
        _ => format!(
            r#"{{"protocolVersion":{version},"capabilities":{},"clientInfo":{{"name":"{}","version":"0"}}}}"#,
            if rng.bool() { "{}".to_owned() } else { value(rng, 2) },
            string(rng)
        ),
    }
}

fn method(rng: &mut Rng) -> String {
    const METHODS: &[&str] = &[
        "resources/list",
        "prompts/list",
        "logging/setLevel",
        "completion/complete",
        "server/discover",
        "tools/get",
        "Tools/List",
        "",
        "notifications/initialized",
    ];
    match rng.u8(..4) {
        0..=1 => METHODS[rng.usize(..METHODS.len())].to_owned(),
        2 => string(rng),
        _ => "m".repeat(rng.usize(..10_000)),
    }
}

fn notification(rng: &mut Rng) -> String {
    const METHODS: &[&str] = &[
        "notifications/initialized",
        "notifications/cancelled",
        "notifications/progress",
        "notifications/roots/list_changed",
        "notifications/message",
        "notifications/unknown",
        "tools/call",
        "ping",
    ];
    let method = match rng.u8(..6) {
        0 => format!("\"{}\"", string(rng)),
        1 => value(rng, 1),
        _ => serde_json::to_string(METHODS[rng.usize(..METHODS.len())]).unwrap_or_default(),
    };
    let params = match rng.u8(..6) {
        0 => format!(r#"{{"requestId":{},"reason":"{}"}}"#, value(rng, 1), string(rng)),
        1 => format!(r#"{{"progressToken":{},"progress":{}}}"#, value(rng, 1), value(rng, 1)),
        2 => value(rng, 0),
        3 => r#"{"name":"set_threshold","arguments":{"api_key":"sk-Zq9XsEcReT0123456789abcdef"}}"#.to_owned(),
        _ => "{}".to_owned(),
    };
    if rng.u8(..8) == 0 {
        format!(r#"{{"jsonrpc":"2.0","method":{method},"params":{params},"params":{params}}}"#)
    } else {
        format!(r#"{{"jsonrpc":"2.0","method":{method},"params":{params}}}"#)
    }
}

fn response(rng: &mut Rng) -> String {
    let id = value(rng, 2);
    match rng.u8(..3) {
        0 => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{}}}"#, value(rng, 1)),
        1 => {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{},"message":"{}"}}}}"#, value(rng, 2), string(rng))
        }
        _ => r#"{"jsonrpc":"2.0","result":{}}"#.to_owned(),
    }
}

/// Bytes of JSON's alphabet and beyond, invalid UTF-8 among them; never a `\n`.
fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    if rng.bool() {
        return random_text(rng).replace('\n', " ").into_bytes();
    }
    (0..rng.usize(..300))
        .map(|_| match rng.u8(..4) {
            0 => rng.u8(0x80..),
            1 => b"{}[]\":,\\ 0-.eatn"[rng.usize(..16)],
            _ => rng.u8(..).max(1),
        })
        .map(|b| if b == b'\n' { b' ' } else { b })
        .collect()
}

/// One to four byte-level edits, invalid UTF-8 possible; never a `\n`.
fn mutate_bytes(rng: &mut Rng, mut line: Vec<u8>) -> Vec<u8> {
    const INSERTS: &[u8] = b"{}[]\":,\\1e-\x00\xFF\xC3\xE2\xF0 ";
    for _ in 0..rng.usize(1..5) {
        let n = line.len();
        if n == 0 {
            line.push(b'{');
            continue;
        }
        let i = rng.usize(..n);
        let j = (i + rng.usize(..8)).min(n);
        match rng.u8(..5) {
            0 => drop(line.drain(i..j)),
            1 => line.insert(i, INSERTS[rng.usize(..INSERTS.len())]),
            2 => {
                let stretch = line[i..j].to_vec();
                line.splice(i..i, stretch);
            }
            3 => line[i] = rng.u8(1..),
            _ => line.truncate(i),
        }
    }
    for b in &mut line {
        if *b == b'\n' {
            *b = b' ';
        }
    }
    line
}

/// A `tools/call` (or a notification) longer than the server reads.
fn past_the_limit(rng: &mut Rng) -> Vec<u8> {
    let id = if rng.bool() { r#""id":"long-1","# } else { "" };
    let mut line = format!(
        r#"{{"jsonrpc":"2.0",{id}"method":"tools/call","params":{{"name":"create_note","arguments":{{"title":""#
    )
    .into_bytes();
    line.resize(line.len() + SERVER_LINE_LIMIT + 16, b'a');
    line.extend_from_slice(br#""}}}"#);
    line
}
