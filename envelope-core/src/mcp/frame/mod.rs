//! Reading one JSON-RPC message before rmcp does (JSON-RPC 2.0; MCP "Base Protocol").
//!
//! rmcp parses each message with `serde_json` into typed structs, and some messages do not
//! survive that parse: a value nested 128 levels or deeper (`serde_json`'s recursion limit), a
//! number no double holds (`1e400`), a member sent twice (`"id":6,"id":7`: a derived struct
//! refuses a duplicate field), an integer past 64 bits (read as a float, digits lost). rmcp then
//! answers without the request's `id`, or not at all. [`read_message`] reads what the parse
//! would lose first: the `id` whenever it can be read, whether the message is a notification
//! (never answered), and for `tools/call` the exact text of `arguments`, which it takes out of
//! the message and hands on beside it ([`RawArguments`]), so the toolbox reads the arguments
//! from the text the client sent.

use std::sync::Arc;

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorData, GetExtensions, GetMeta, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage,
};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value, value::RawValue};

use crate::read::broken;

/// The exact JSON text of a `tools/call`'s `params.arguments` (`None`: not sent, or `null`),
/// carried in the request's extensions (or, over HTTP, in the extensions of the request's
/// `http::request::Parts`) for [`super::McpServer`] to read.
#[derive(Clone, Debug)]
pub(crate) struct RawArguments(pub(crate) Option<Arc<str>>);

/// `serde_json` refuses a value nested this deep or deeper: its parser starts with 128 levels
/// and fails when none is left (`remaining_depth` in `serde_json/src/de.rs`). rmcp parses each
/// message with `serde_json`, so this is the first depth rmcp cannot read.
pub(crate) const RMCP_UNREADABLE_DEPTH: usize = 128;

/// What became of one message.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// For rmcp. A `tools/call` request carries [`RawArguments`] in its extensions and no
    /// `arguments` in its params.
    Message(Box<ClientJsonRpcMessage>),
    /// Answered here: an error under the request's id, or `None` for a notification or a
    /// response, which are never answered (JSON-RPC 2.0 §4.1).
    Answered(Option<Box<ServerJsonRpcMessage>>),
}

/// The members of a JSON object in the order sent, duplicates kept, each value unparsed.
/// `RawValue` skips a value without recursion in `serde_json`: no depth limit, and a number is
/// only scanned, never converted.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, &'de RawValue>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Object)
    }
}

impl<'a> Members<'a> {
    fn all<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'a RawValue> + 's {
        self.0.iter().filter(move |(n, _)| n == name).map(|(_, v)| *v)
    }
    fn last(&self, name: &str) -> Option<&'a RawValue> {
        self.all(name).last()
    }
    /// The first member of any name sent more than once, with its values as sent.
    /// Compared pairwise (params have a few members); past 16, by counting in a hash set.
    fn any_repeated(&self) -> Option<(String, Vec<&'a str>)> {
        let (name, _) = if self.0.len() <= 16 {
            self.0.iter().enumerate().find(|(i, (name, _))| self.0[..*i].iter().any(|(n, _)| n == name))?.1
        } else {
            let mut seen = std::collections::HashSet::with_capacity(self.0.len());
            self.0.iter().find(|(name, _)| !seen.insert(name.as_str()))?
        };
        Some((name.clone(), self.all(name).map(RawValue::get).collect()))
    }
    /// The first of `names` sent more than once, with its values as sent.
    fn repeated(&self, names: &[&str]) -> Option<(String, Vec<&'a str>)> {
        names.iter().find_map(|name| {
            let values: Vec<&str> = self.all(name).map(RawValue::get).collect();
            (values.len() > 1).then(|| ((*name).to_owned(), values))
        })
    }
}

/// `-32602`'s words when the object `text` (under the place `under` writes, only then:
/// `prompts/get: params`) has a key sent more than once, or an object of more than [`MAX_KEYS`](crate::read::sent::MAX_KEYS) keys,
/// whose keys are not compared (a key sent twice among 4,097 would be read as its last value);
/// `None` when every key is read once. The place is written below `under`, one line, cut to 80
/// characters; the values are not quoted: they may hold what a person answered.
fn keys_not_read_once(under: impl FnOnce() -> String, text: &str) -> Option<String> {
    let scan = crate::read::sent::scan(text);
    let place = |at: String| crate::words::cut::one_line(&at, 80);
    if let Some(twice) = scan.duplicates.first() {
        let times = if twice.times == 2 { "twice".to_owned() } else { format!("{} times", twice.times) };
        return Some(format!(
            "{}.{} is sent {times}; send each key once, with the one value meant",
            under(),
            place(twice.at.to_string())
        ));
    }
    let crowded = scan.crowded.first()?;
    let at = crowded.at.as_ref().map_or_else(String::new, |at| format!(".{}", place(at.to_string())));
    Some(format!(
        "{}{at} is an object of {} keys; this server reads objects of at most {} keys: send fewer",
        under(),
        crowded.keys,
        crate::read::sent::MAX_KEYS
    ))
}

/// The longest `id` this server answers under, and the longest `progressToken` it sends
/// progress under, in bytes of the JSON text sent (quotes and escapes counted). Each is echoed
/// in every reply or notification of its request, which a client that does not read leaves in
/// the server's memory: bounded, a reply held for a slow reader stays small whatever was sent.
/// The same as the most of an `id` the lexical scan of an unreadable message keeps.
pub(crate) const MAX_ID_BYTES: usize = 256;

/// A JSON-RPC id as rmcp can answer it: a string, or an integer that fits `i64`, of at most
/// [`MAX_ID_BYTES`] as sent.
fn request_id(raw: &str) -> Option<RequestId> {
    if raw.len() > MAX_ID_BYTES {
        return None;
    }
    match serde_json::from_str::<Value>(raw).ok()? {
        Value::String(s) => Some(RequestId::String(s.into())),
        Value::Number(n) => n.as_i64().map(RequestId::Number),
        _ => None,
    }
}

/// Why an `id` sent ([`request_id`] read none from it) cannot be answered under: a number
/// written with a fraction or an exponent (`1e3`) is not written as a whole number; a whole
/// number past `i64` (rmcp's `NumberOrString` holds an `i64`) is out of the range this server
/// reads, named; anything else is neither a string nor a number. The number is quoted, cut.
fn id_unread(raw: &str) -> String {
    if raw.len() > MAX_ID_BYTES {
        return format!(
            "`id` is {} bytes long; this server answers under an id of at most {MAX_ID_BYTES} bytes as sent: send a shorter one",
            raw.len()
        );
    }
    if raw.starts_with('"') {
        // A string no parser reads into text: an escape of no character (a lone `\ud800`).
        return "`id` is a string with an escape of no character (a surrogate `\\uD800` to `\\uDFFF` alone); send it without that escape".to_owned();
    }
    let number = raw.starts_with(|c: char| c == '-' || c.is_ascii_digit());
    if !number || serde_json::from_str::<IgnoredAny>(raw).is_err() {
        return "`id` must be a string or a whole number".to_owned();
    }
    let sent = shorten(raw);
    if raw.contains(['.', 'e', 'E']) {
        return format!(
            "`id` {sent} is not written as a whole number; send it without a fraction or exponent, or as a string"
        );
    }
    format!(
        "`id` {sent} is out of the range this server reads: a whole number from -2^63 to 2^63-1 ({} to {}), or a string; send a smaller number, or the id as a string",
        i64::MIN,
        i64::MAX
    )
}

const EXAMPLE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"...","arguments":{}}}"#;

fn error(id: Option<RequestId>, error: ErrorData) -> Incoming {
    Incoming::Answered(Some(Box::new(ServerJsonRpcMessage::error(error, id))))
}

/// The answer to a message of the wrong shape: -32600 under `id` for a request, nothing for a
/// notification.
fn invalid(id: Option<RequestId>, notification: bool, why: &str) -> Incoming {
    if notification {
        return Incoming::Answered(None);
    }
    error(id, ErrorData::invalid_request(format!("{why}; a request looks like {EXAMPLE}"), None))
}

/// How a transport carries messages, which an answer to one that does not read names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// One message per line (stdio).
    Line,
    /// One message as the body of each request (Streamable HTTP).
    #[cfg_attr(not(feature = "http"), allow(dead_code))] // read by `mcp::streamable`
    Body,
}

impl Framing {
    /// How to send a message, in the words of a parse error's fix.
    fn send(self) -> &'static str {
        match self {
            Framing::Line => "one JSON-RPC message object per line",
            Framing::Body => "one JSON-RPC message object as the request body",
        }
    }
}

/// Reads one message (one line on stdio, one body over HTTP: `framing`) as [the module](self)
/// describes.
pub(crate) fn read_message(bytes: &[u8], framing: Framing) -> Incoming {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let scan = TopLevel::scan(bytes);
            if scan.is_notification() {
                return Incoming::Answered(None);
            }
            let why = format!(
                "the message is not UTF-8 text: the byte at offset {} (counted from 0) does not begin or continue a UTF-8 character; send JSON encoded as UTF-8 (a character a client cannot encode may be sent as a \\uXXXX escape), {}",
                e.valid_up_to(),
                framing.send()
            );
            return error(scan.id(), ErrorData::parse_error(why, None));
        }
    };
    let text = message_text(text);
    if text.is_empty() {
        return Incoming::Answered(None);
    }
    match serde_json::from_str::<Members<'_>>(text) {
        Ok(members) => with_short_token(read_object(text, &members)),
        Err(e) => not_an_object(text, &e, framing),
    }
}

/// The message of a line or body: without the UTF-8 byte order marks before it (RFC 8259 §8.1
/// lets a parser ignore one; the Streamable HTTP endpoint takes them off the body before any
/// reader, rmcp's included, sees it) and without JSON's whitespace around it (a `\r` before
/// the `\n`); any other character, a no-break space say, is the text's own.
pub(crate) fn message_text(text: &str) -> &str {
    text.trim_start_matches('\u{feff}').trim_matches([' ', '\t', '\n', '\r'])
}

/// Text that is not one well-formed JSON object.
fn not_an_object(text: &str, e: &serde_json::Error, framing: Framing) -> Incoming {
    let scan = TopLevel::scan(text.as_bytes());
    if scan.is_notification() {
        return Incoming::Answered(None);
    }
    if serde_json::from_str::<IgnoredAny>(text).is_ok() || e.is_data() {
        let why = if text.starts_with('[') {
            "a batch (a JSON array) is not supported: send one request object per message"
        } else {
            "a message is a JSON object"
        };
        return invalid(None, false, why);
    }
    error(scan.id(), ErrorData::parse_error(parse_error_words(text, e, framing), None))
}

/// The parse error in JSON's words, not the parser's: where the text stops being JSON, and the
/// text there (never the text of a string).
fn parse_error_words(text: &str, e: &serde_json::Error, framing: Framing) -> String {
    let send = format!("send {}", framing.send());
    if e.is_eof() {
        return format!("the message is not valid JSON: {}; {send}", broken::ENDS_EARLY);
    }
    // The words of where it breaks are those of a tool's arguments text (`read::broken`).
    let at = broken::Break::of(text, e);
    let character = at.character;
    let what = if !text.starts_with(['{', '[']) {
        let shown = visible_start(text);
        format!("a JSON-RPC message is a JSON object, starting with `{{`; this one starts with {shown}")
    } else if let Some(words) = at.string_words() {
        // Not quoted: a string's text may be a secret argument.
        words
    } else if inside_arguments(text, at.at) {
        // Not quoted: a tool's arguments may hold a secret sent without its quotes
        // (`"api_key":sk-…`), and which tool is called, and whether it has a secret parameter,
        // cannot be read from text that does not parse (`name` may come after `arguments`).
        format!(
            "the text from character {character}, inside params.arguments, is not JSON ({}; not quoted, since arguments may hold a secret)",
            at.token_kind()
        )
    } else {
        format!("the text from character {character} ({:?}) is not JSON", at.shown())
    };
    format!("the message is not valid JSON: {what}; {send}, like {EXAMPLE}")
}

/// Whether byte offset `at` of a message is inside the value of `params.arguments` (the `:`
/// after `arguments` read, its value not ended), by a lexical pass over the text before it;
/// works on malformed text. Member names are compared after decoding their escapes.
fn inside_arguments(text: &str, at: usize) -> bool {
    let b = &text.as_bytes()[..at.min(text.len())];
    let mut depth = 0usize;
    // The member whose value is being read at depths 1 (the message) and 2 (`params`).
    let mut member: [Option<String>; 2] = [None, None];
    // The last string token ended, and whether a `:` may follow it (it names a member).
    let mut last: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if i >= b.len() {
                    // `at` is inside a string: not a place this lexer names.
                    return false;
                }
                last = Some((start, i + 1));
            }
            b'{' | b'[' => {
                depth += 1;
                if let Some(slot) = member.get_mut(depth.wrapping_sub(1)) {
                    *slot = None;
                }
            }
            b'}' | b']' => {
                if let Some(slot) = member.get_mut(depth.wrapping_sub(1)) {
                    *slot = None;
                }
                depth = depth.saturating_sub(1);
            }
            b':' => {
                if let (Some(slot), Some((s, e))) = (member.get_mut(depth.wrapping_sub(1)), last) {
                    *slot = serde_json::from_str::<String>(&text[s..e]).ok();
                }
            }
            b',' => {
                if let Some(slot) = member.get_mut(depth.wrapping_sub(1)) {
                    *slot = None;
                }
            }
            _ => {}
        }
        if !matches!(b[i], b'"' | b' ' | b'\t' | b'\n' | b'\r' | b':') {
            last = None;
        }
        i += 1;
    }
    depth >= 2 && member[0].as_deref() == Some("params") && member[1].as_deref() == Some("arguments")
}

fn read_object(text: &str, members: &Members<'_>) -> Incoming {
    let ids: Vec<&str> = members.all("id").map(RawValue::get).collect();
    let method = members.last("method");
    let notification = ids.is_empty() && method.is_some();
    // The last of several ids, as most JSON parsers would read the message.
    let id = ids.last().and_then(|raw| request_id(raw));
    if method.is_none() && (members.last("result").is_some() || members.last("error").is_some()) {
        // The client's answer to a request of the server's (an elicitation, a sample): a member
        // or a key sent twice (`"confirm": false, "confirm": true`) would be read as its last
        // value. The request it answers gets an error instead, so the body waiting on it is
        // told, never handed a misread answer.
        let twice = members
            .repeated(&["id", "result", "error"])
            .map(|(name, values)| {
                format!("the client's answer: `{name}` is sent {} times; send each member once", values.len())
            })
            .or_else(|| {
                ["result", "error"].into_iter().find_map(|member| {
                    let raw = members.last(member)?;
                    keys_not_read_once(|| format!("the client's answer: {member}"), raw.get())
                })
            });
        if let Some(why) = twice {
            return match id {
                Some(id) => Incoming::Message(Box::new(ClientJsonRpcMessage::error(
                    ErrorData::invalid_params(why, None),
                    Some(id),
                ))),
                None => Incoming::Answered(None),
            };
        }
        // A response to a request of the server's, whatever its id or shape: rmcp's to match
        // when it reads it; never answered (JSON-RPC 2.0 §5: only requests are answered).
        return match serde_json::from_str::<ClientJsonRpcMessage>(text) {
            Ok(message) => Incoming::Message(Box::new(message)),
            Err(_) => Incoming::Answered(None),
        };
    }
    if let Some((name, values)) = members.repeated(&["jsonrpc", "id", "method", "params", "result", "error"]) {
        // The values of `jsonrpc`, `id` and `method` are quoted, cut; those of `params`,
        // `result` and `error` are not: they may hold a secret argument, and be long.
        let why = if matches!(name.as_str(), "jsonrpc" | "id" | "method") {
            let shown: Vec<String> = values.iter().take(4).map(|v| shorten(v)).collect();
            let more = if values.len() > 4 { ", …" } else { "" };
            format!("`{name}` is sent {} times ({}{more}); send each member once", values.len(), shown.join(", "))
        } else {
            format!("`{name}` is sent {} times; send each member once", values.len())
        };
        return invalid(id, notification, &why);
    }
    if members.last("jsonrpc").map(RawValue::get) != Some(r#""2.0""#) {
        return invalid(id, notification, "`jsonrpc` must be \"2.0\"");
    }
    if let (None, Some(raw)) = (&id, ids.last()) {
        return invalid(None, false, &id_unread(raw));
    }
    let Some(method) = method else {
        return invalid(id, false, "`method` must be a string naming the method, like \"tools/call\"");
    };
    let Ok(method) = serde_json::from_str::<String>(method.get()) else {
        return invalid(id, notification, "`method` must be a string naming the method, like \"tools/call\"");
    };
    // Named in the answers below, cut: a method name may be of any length.
    let named = shorten(&method);
    let params = members.last("params");
    if params.is_some_and(|p| !p.get().starts_with('{') && p.get() != "null") {
        return invalid(id, notification, "`params` must be an object");
    }
    // A log level that is not one (`logging/setLevel`, a 2026-07-28 request's `_meta`) is
    // invalid params on every version, not an unknown method nor a level ignored.
    if !notification
        && let Some(params) = params.filter(|p| p.get().contains("evel"))
        && let Ok(value) = serde_json::from_str::<Value>(params.get())
        && let Some(refused) = super::notify::unknown_level(&method, Some(&value))
    {
        return error(id, refused);
    }
    if method == "tools/call" && !notification {
        return read_tools_call(id, params);
    }
    // A key sent twice in the params (a prompt's argument, a resource's `uri`) would be read as
    // its last value, where a tool's arguments refuse it: refused the same way, by name.
    if !notification
        && let Some(params) = params
        && let Some(why) = keys_not_read_once(|| format!("{named}: params"), params.get())
    {
        return error(id, ErrorData::invalid_params(why, None));
    }
    let unreadable = if nests_at_least(text.as_bytes(), RMCP_UNREADABLE_DEPTH) {
        Some(format!("nests deeper than {} levels", RMCP_UNREADABLE_DEPTH - 1))
    } else {
        serde_json::from_str::<IgnoredAny>(text)
            .is_err()
            .then(|| "holds text JSON cannot read (a number past a double, or an invalid escape)".to_owned())
    };
    if let Some(why) = unreadable {
        return invalid(id, notification, &format!("{named}: the message {why}"));
    }
    match serde_json::from_str::<ClientJsonRpcMessage>(text) {
        Ok(message) => Incoming::Message(Box::new(message)),
        Err(_) if notification => Incoming::Answered(None),
        Err(_) => error(
            id,
            ErrorData::invalid_params(format!("{named}: params do not have the shape MCP defines for it"), None),
        ),
    }
}

/// The first 12 characters of `text` as a JSON string whose every character shows: a control
/// character, other whitespace than a space, and an invisible format character (a zero-width
/// space or joiner, a byte order mark, a soft hyphen) written as its JSON escape (`"\u200b{"`,
/// not Rust's `"\u{200b}{"`).
fn visible_start(text: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::from("\"");
    for c in crate::words::cut::head(text, 12).chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control()
                || (c.is_whitespace() && c != ' ')
                || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}') =>
            {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `incoming` refused when it is a request whose `progressToken`, as rmcp read it (escaped keys
/// decoded, the last of a member sent twice), is longer than [`MAX_ID_BYTES`] written as JSON:
/// every progress notification of the call carries it. `-32602` under the request's id.
fn with_short_token(incoming: Incoming) -> Incoming {
    let Incoming::Message(message) = &incoming else { return incoming };
    let JsonRpcMessage::Request(request) = &**message else { return incoming };
    let Some(token) = request.request.get_meta().get_progress_token() else { return incoming };
    let length = serde_json::to_string(&token).map_or(0, |t| t.len());
    if length <= MAX_ID_BYTES {
        return incoming;
    }
    let why = format!(
        "`params._meta.progressToken` is {length} bytes long; this server sends progress under a token of at most {MAX_ID_BYTES} bytes: send a shorter one"
    );
    error(Some(request.id.clone()), ErrorData::invalid_params(why, None))
}

/// A `tools/call` request: `arguments` taken out as text, the rest read as rmcp reads it.
fn read_tools_call(id: Option<RequestId>, params: Option<&RawValue>) -> Incoming {
    let Some(id) = id else {
        return invalid(None, false, "`id` must be a string or a whole number");
    };
    let members = match params.map(|p| serde_json::from_str::<Members<'_>>(p.get())) {
        Some(Ok(members)) => members,
        _ => return error(Some(id), missing_name()),
    };
    if let Some((name, values)) = members.repeated(&["name", "arguments"]).or_else(|| members.any_repeated()) {
        // The names sent are quoted, cut; the arguments are not (they may hold a secret).
        let why = if name == "name" {
            let shown: Vec<String> = values.iter().take(4).map(|v| shorten(v)).collect();
            let more = if values.len() > 4 { ", …" } else { "" };
            format!(
                "tools/call: params.name is sent {} times; send it once (sent: {}{more})",
                values.len(),
                shown.join(", ")
            )
        } else if name == "arguments" {
            format!("tools/call: params.arguments is sent {} times; send it once, one object", values.len())
        } else {
            // Not quoted: `inputResponses` holds what a person answered.
            let times = if values.len() == 2 { "twice".to_owned() } else { format!("{} times", values.len()) };
            format!("tools/call: params.{} is sent {times}; send it once", shorten(&name))
        };
        return error(Some(id), ErrorData::invalid_params(why, None));
    }
    let mut rest = Map::new();
    let mut arguments = None;
    for (name, raw) in &members.0 {
        if name == "arguments" {
            arguments = (raw.get() != "null").then(|| Arc::<str>::from(raw.get()));
            continue;
        }
        // A key sent twice inside a member (the person's answers, `_meta`) would be read as its
        // last value, where `confirm_action` refuses the same answer ("sends the same key twice").
        if raw.get().starts_with('{')
            && let Some(why) = keys_not_read_once(|| format!("tools/call: params.{}", shorten(name)), raw.get())
        {
            return error(Some(id), ErrorData::invalid_params(why, None));
        }
        match serde_json::from_str::<Value>(raw.get()) {
            Ok(value) => {
                rest.insert(name.clone(), value);
            }
            Err(_) => {
                let why = format!(
                    "params.{} nests deeper than {} levels or holds text JSON cannot read",
                    shorten(name),
                    RMCP_UNREADABLE_DEPTH - 1
                );
                return invalid(Some(id), false, &format!("tools/call: {why}"));
            }
        }
    }
    match rest.get("name") {
        Some(Value::String(_)) => {}
        other => return error(Some(id), wrong_name(other)),
    }
    if let Some(why) = misshapen_member(&rest) {
        return error(Some(id), ErrorData::invalid_params(why, None));
    }
    // Built by hand: `json!` would copy `rest` (a name may be megabytes long); this moves it.
    let mut message = Map::new();
    message.insert("jsonrpc".into(), Value::from("2.0"));
    message.insert("id".into(), serde_json::to_value(&id).unwrap_or(Value::Null));
    message.insert("method".into(), Value::from("tools/call"));
    message.insert("params".into(), Value::Object(rest));
    let message = Value::Object(message);
    match serde_json::from_value::<ClientJsonRpcMessage>(message) {
        // rmcp read the method but not its params: never handed on, where the catch-all would
        // see a `tools/call` without its `arguments` (taken out above).
        Ok(JsonRpcMessage::Request(request)) if matches!(request.request, ClientRequest::CustomRequest(_)) => error(
            Some(id),
            ErrorData::invalid_params("tools/call: params do not have the shape MCP defines for it", None),
        ),
        Ok(mut message) => {
            if let JsonRpcMessage::Request(request) = &mut message {
                request.request.extensions_mut().insert(RawArguments(arguments));
            }
            Incoming::Message(Box::new(message))
        }
        Err(_) => error(
            Some(id),
            ErrorData::invalid_params("tools/call: params do not have the shape MCP defines for it", None),
        ),
    }
}

/// Why a member of a `tools/call`'s params beside `name` and `arguments` is not of the JSON type
/// MCP gives it (`CallToolRequestParams`; SEP-2322 for `requestState` and `inputResponses`), or
/// `None`: rmcp would not read such a request as a `tools/call` at all. `requestState` is quoted
/// cut (the client had it from this server); the others, which may hold what a person answered,
/// are named by their type:
///
/// `tools/call: params.requestState is 12, a number; MCP defines it as a string: the
/// requestState of an input_required result, sent back exactly as received (or left out)`
fn misshapen_member(params: &Map<String, Value>) -> Option<String> {
    type Member = (&'static str, fn(&Value) -> bool, &'static str);
    let members: [Member; 3] = [
        (
            "requestState",
            Value::is_string,
            "a string: the requestState of an input_required result, sent back exactly as received",
        ),
        (
            "inputResponses",
            Value::is_object,
            "an object: the answers to an input_required result's inputRequests, under their keys",
        ),
        ("_meta", Value::is_object, "an object"),
    ];
    let misshapen = members.into_iter().find_map(|(name, fits, defined)| {
        let v = params.get(name).filter(|v| !v.is_null() && !fits(v))?;
        let kind = crate::words::render::json_type(v);
        let sent =
            if name == "requestState" { format!("{}, {kind}", shorten(&v.to_string())) } else { kind.to_owned() };
        Some(format!("tools/call: params.{name} is {sent}; MCP defines it as {defined} (or left out)"))
    });
    // A token the call's progress cannot be sent under would be ignored, and the client that
    // asked for progress would wait for notifications that never come.
    misshapen.or_else(|| {
        let token = params.get("_meta")?.get("progressToken").filter(|v| !v.is_null())?;
        // As rmcp reads one: an `i64`, or a whole number a double holds exactly (`5.0`).
        let fits = token.is_string()
            || token.is_i64()
            || token.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0);
        (!fits).then(|| {
            format!(
                "tools/call: params._meta.progressToken is {}; MCP defines it as a string or an integer, unique among the client's requests (or left out)",
                crate::words::render::json_type(token)
            )
        })
    })
}

/// A value as sent (or a method's name), cut to 40 characters.
pub(crate) fn shorten(raw: &str) -> String {
    crate::words::cut::cut(raw, 40)
}

/// What a lexical pass over a message's top level finds, for text no parser reads whole
/// (malformed, not UTF-8, longer than the line limit): the raw tokens of its `id` members and
/// whether it names a `method`. Fed in pieces, so a line too long to hold is read as it streams
/// past; it keeps a few bytes of state and at most [`TopLevel::TOKEN_LIMIT`] bytes of a token.
#[derive(Debug, Default)]
pub(crate) struct TopLevel {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At depth 1, the next string is a member name.
    expect_name: bool,
    /// What the string or number being read is.
    reading: Reading,
    token: Vec<u8>,
    /// The member whose value comes next, once its `:` is read.
    name: Option<Vec<u8>>,
    value_next: bool,
    ids: Vec<Vec<u8>>,
    has_method: bool,
    is_object: bool,
    started: bool,
}

#[derive(Debug, Default, PartialEq, Eq)]
enum Reading {
    #[default]
    Nothing,
    Name,
    IdString,
    IdNumber,
}

impl TopLevel {
    const TOKEN_LIMIT: usize = MAX_ID_BYTES;

    /// Scans a whole message.
    pub(crate) fn scan(bytes: &[u8]) -> Self {
        let mut scan = TopLevel::default();
        scan.feed(bytes);
        scan.finish();
        scan
    }

    /// Scans the next piece of a message.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.byte(byte);
        }
    }

    /// Ends the message (a number `id` at the very end is complete).
    pub(crate) fn finish(&mut self) {
        self.end_number();
    }

    fn keep(&mut self, byte: u8) {
        if self.token.len() < Self::TOKEN_LIMIT {
            self.token.push(byte);
        }
    }

    fn end_number(&mut self) {
        if self.reading == Reading::IdNumber {
            self.ids.push(std::mem::take(&mut self.token));
            self.reading = Reading::Nothing;
        }
    }

    fn byte(&mut self, byte: u8) {
        if self.in_string {
            if self.reading != Reading::Nothing {
                self.keep(byte);
            }
            match byte {
                _ if self.escaped => self.escaped = false,
                b'\\' => self.escaped = true,
                b'"' => {
                    self.in_string = false;
                    match std::mem::take(&mut self.reading) {
                        Reading::Name => {
                            self.name = Some(std::mem::take(&mut self.token));
                            self.expect_name = false;
                        }
                        Reading::IdString => self.ids.push(std::mem::take(&mut self.token)),
                        _ => {}
                    }
                }
                _ => {}
            }
            return;
        }
        if self.reading == Reading::IdNumber {
            if matches!(byte, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                self.keep(byte);
                return;
            }
            self.end_number();
        }
        if !self.started {
            if byte.is_ascii_whitespace() || byte == 0xEF || byte == 0xBB || byte == 0xBF {
                return;
            }
            self.started = true;
            self.is_object = byte == b'{';
        }
        let value_starts = self.depth == 1 && self.value_next && !byte.is_ascii_whitespace();
        if value_starts {
            self.value_next = false;
            let name = self.name.take();
            let name = name.as_deref().map(|n| serde_json::from_slice::<String>(n).unwrap_or_default());
            match name.as_deref() {
                Some("method") => self.has_method = true,
                Some("id") => match byte {
                    b'"' => {
                        self.reading = Reading::IdString;
                        self.token.clear();
                    }
                    b'-' | b'0'..=b'9' => {
                        self.reading = Reading::IdNumber;
                        self.token.clear();
                    }
                    // `null`, an object or an array: an id no reply can carry.
                    _ => self.ids.push(Vec::new()),
                },
                _ => {}
            }
        }
        match byte {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_name {
                    self.reading = Reading::Name;
                    self.token.clear();
                }
                if self.reading != Reading::Nothing {
                    self.keep(byte);
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_name = true;
                }
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b':' if self.depth == 1 => self.value_next = true,
            b',' if self.depth == 1 => self.expect_name = true,
            b'0'..=b'9' | b'-' if self.reading == Reading::IdNumber => self.keep(byte),
            _ => {}
        }
    }

    /// The request's id, when one can be read (the last one sent, when several are).
    pub(crate) fn id(&self) -> Option<RequestId> {
        let raw = self.ids.last()?;
        request_id(std::str::from_utf8(raw).ok()?)
    }

    /// An object that names a method and sends no id: a notification, never answered.
    pub(crate) fn is_notification(&self) -> bool {
        self.is_object && self.has_method && self.ids.is_empty()
    }
}

/// `params.name` sent, but not a string: quoted.
pub(super) fn wrong_name(name: Option<&Value>) -> ErrorData {
    match name {
        Some(v) => {
            let shown = shorten(&v.to_string());
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

pub(super) fn missing_name() -> ErrorData {
    ErrorData::invalid_params(
        "tools/call needs params.name, a JSON string naming the tool to call (see tools/list)",
        None,
    )
}

/// Whether `[`/`{` nest at least `depth` levels deep somewhere in `json`, outside strings.
/// Works on malformed text too: it only counts.
pub(super) fn nests_at_least(json: &[u8], depth: usize) -> bool {
    let mut level = 0usize;
    scan_outside_strings(json, |_, byte| {
        match byte {
            b'[' | b'{' => level += 1,
            b']' | b'}' => level = level.saturating_sub(1),
            _ => {}
        }
        level >= depth
    })
}

/// Calls `f` with each byte of JSON text that is outside strings (an opening `"` included, so a
/// token before a string ends there), with its index; stops when `f` returns true, and says
/// whether it did. Works on malformed text too: it only scans.
fn scan_outside_strings(json: &[u8], mut f: impl FnMut(usize, u8) -> bool) -> bool {
    let (mut in_string, mut escaped) = (false, false);
    for (i, &byte) in json.iter().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        if byte == b'"' {
            in_string = true;
        }
        if f(i, byte) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests;
