//! The wire contract: every outcome is one JSON object of one shape.

use std::sync::OnceLock;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::outcome::code::{Code, Retry, Status, codes};
use crate::outcome::fault::Fault;
use crate::outcome::refusal::{Hints, Refusal};
use crate::outcome::wire::{Extra, Parts, WireFormat};
use crate::words::escape;

/// One outcome of one tool call, serialized as the wire contract says.
///
/// Keys, in this order, each absent where it does not apply:
///
/// | status | keys |
/// |---|---|
/// | `ok` | `status`, `success: true`, `data` |
/// | `invalid` | `status`, `success: false`, `error_code`, `message`, `hints` (`parameter`, `rejected`, `accepted`, `fix`, `suggestion`, `others`), `retryable: false` |
/// | `error` | `status`, `success: false`, `error_code`, `message`, `hints` (`operation`), `retryable` |
/// | `needs_confirmation` | `status`, `success: false`, `error_code: "CONFIRMATION_REQUIRED"`, `message`, `retryable: false`, `pending_action_id`, `preview`, `preview_hash` |
/// | `error` (cannot queue) | `status`, `success: false`, `error_code: "CONFIRMATION_REQUIRED"`, `message`, `retryable: false` |
///
/// Then, on any status, `warning` (one sentence: [`with_warning`](Self::with_warning), a tool's
/// [`Warned`] answer, or envelope's own for a degraded mode) and `provenance` (opt-in,
/// [`Toolbox::with_provenance`](crate::Toolbox::with_provenance)), each when set.
///
/// ```
/// use envelope_core::Envelope;
///
/// let ok = Envelope::ok(serde_json::json!({"rows": []}));
/// assert_eq!(ok.to_json(), r#"{"status":"ok","success":true,"data":{"rows":[]}}"#);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    inner: Inner,
    prefix: Option<&'static str>,
    format: WireFormat,
    /// `warning` and `provenance`, when either is set (boxed: most envelopes carry neither).
    extra: Option<Box<Extra>>,
}

#[derive(Clone, Debug, PartialEq)]
enum Inner {
    Ok(Data),
    // Boxed: the common `ok` envelope stays small, so moving one costs little.
    Invalid(Box<Invalid>),
    Error(Box<Failed>),
    NeedsConfirmation(Box<Confirmation>),
}

#[derive(Clone)]
struct Invalid {
    code: Code,
    /// Unset while the message is the sentence of the one problem `hints` holds: written when
    /// asked for ([`Invalid::message`]); the wire writes it from the problem's parts.
    message: OnceLock<String>,
    hints: Hints,
}

impl Invalid {
    fn new(code: Code, message: Option<String>, hints: Hints) -> Self {
        let cell = OnceLock::new();
        if let Some(message) = message {
            let _ = cell.set(message);
        }
        Invalid { code, message: cell, hints }
    }

    /// The message, its problems' sentences written now if they were left unwritten.
    fn message(&self) -> &str {
        self.message.get_or_init(|| self.hints.sentences())
    }
}

impl PartialEq for Invalid {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code && self.message() == other.message() && self.hints == other.hints
    }
}

impl std::fmt::Debug for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Invalid")
            .field("code", &self.code)
            .field("message", &self.message())
            .field("hints", &self.hints)
            .finish()
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Failed {
    code: Code,
    message: String,
    operation: Option<String>,
    /// The retry class: the code's, or `after_reread` for a fault of a tool that is not
    /// idempotent (`not_retryable`).
    retry: Retry,
    trace_id: Option<String>,
}

/// An action that waits for approval: its id, what it would do, and a hash of that preview.
///
/// A `#[tool(confirm = preview_fn)]` builds it: `pending_action_id` is the sealed id that
/// `confirm_action` takes (see [`Toolbox::confirm`](crate::Toolbox::confirm)), `preview` is what
/// the preview function returned, and `preview_hash` is the SHA-256 (lowercase hex) of the
/// RFC 8785 canonical JSON of `{"tool", "arguments", "preview"}`, the arguments without any
/// `secret` parameter ([`crate::call::guard::confirm::preview_hash`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Confirmation {
    pending_action_id: String,
    message: String,
    preview: Value,
    preview_hash: String,
}

impl Confirmation {
    /// A queued action built by hand (an adapter, a hand-written handler). `preview` is the JSON
    /// of what it would do; `preview_hash` is the SHA-256 (lowercase hex) of its RFC 8785
    /// canonical JSON. `message` tells the model what to ask the person and how to confirm.
    pub fn new(pending_action_id: impl Into<String>, message: impl Into<String>, preview: Value) -> Self {
        let preview_hash = crate::outcome::digest::sha256_hex(&crate::outcome::digest::canonical(&preview));
        Confirmation { pending_action_id: pending_action_id.into(), message: message.into(), preview, preview_hash }
    }

    pub(crate) fn hashed(pending_action_id: String, message: String, preview: Value, preview_hash: String) -> Self {
        Confirmation { pending_action_id, message, preview, preview_hash }
    }

    /// The id `confirm_action` takes (an MCP 2026-07-28 adapter sends it as `requestState`).
    pub fn pending_action_id(&self) -> &str {
        &self.pending_action_id
    }

    /// What the action would do, to show the person.
    pub fn preview(&self) -> &Value {
        &self.preview
    }

    /// The SHA-256 of the preview (and, from a `#[tool]`, of the tool and its arguments).
    pub fn preview_hash(&self) -> &str {
        &self.preview_hash
    }

    /// What to ask the person and how to confirm.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl Envelope {
    /// `ok` with `data`.
    pub fn ok(data: Value) -> Self {
        Envelope { inner: Inner::Ok(Data::Value(data)), prefix: None, format: WireFormat::Envelope, extra: None }
    }

    /// `needs_confirmation` for a queued action.
    pub fn needs_confirmation(confirmation: Confirmation) -> Self {
        Envelope {
            inner: Inner::NeedsConfirmation(Box::new(confirmation)),
            prefix: None,
            format: WireFormat::Envelope,
            extra: None,
        }
    }

    /// The queued action of a `needs_confirmation` envelope.
    pub fn confirmation(&self) -> Option<&Confirmation> {
        match &self.inner {
            Inner::NeedsConfirmation(c) => Some(c),
            _ => None,
        }
    }

    /// `error` with `CONFIRMATION_REQUIRED`: the action needs approval and this toolbox cannot
    /// queue it. No `pending_action_id`; not retryable.
    pub(crate) fn cannot_queue(message: String) -> Self {
        let failed = Failed {
            code: codes::CONFIRMATION_REQUIRED,
            message,
            operation: None,
            retry: Retry::Never,
            trace_id: None,
        };
        Envelope { inner: Inner::Error(Box::new(failed)), prefix: None, format: WireFormat::Envelope, extra: None }
    }

    /// An envelope recorded as JSON (`to_value`) read back: `ok`, or `invalid` with one of
    /// `codes`. `None` for anything else (faults and confirmations are never recorded).
    pub(crate) fn from_recorded(v: &Value, codes: &[Code]) -> Option<Self> {
        match v.get("status")?.as_str()? {
            "ok" => Some(Envelope::ok(v.get("data")?.clone())),
            "invalid" => {
                let name = v.get("error_code")?.as_str()?;
                let code = *codes.iter().find(|c| c.name() == name && c.status() == Status::Invalid)?;
                let invalid = Invalid::new(
                    code,
                    Some(v.get("message")?.as_str()?.to_owned()),
                    Hints::Recorded(v.get("hints").cloned().unwrap_or_else(|| Value::Object(serde_json::Map::new()))),
                );
                Some(Envelope {
                    inner: Inner::Invalid(Box::new(invalid)),
                    prefix: None,
                    format: WireFormat::Envelope,
                    extra: None,
                })
            }
            _ => None,
        }
    }

    /// Prefixes `error_code` on the wire (`ACME_` + `NOT_FOUND`); `None` removes it.
    #[must_use]
    pub fn with_code_prefix(mut self, prefix: Option<&'static str>) -> Self {
        self.prefix = prefix;
        self
    }

    /// Serializes in `format` ([`to_json`](Self::to_json), [`to_value`](Self::to_value), the
    /// HTTP body, MCP's text content and `structuredContent`); [`WireFormat::Envelope`], the
    /// default, is the wire contract above. The accessors are the same in every format.
    #[must_use]
    pub fn with_wire_format(mut self, format: WireFormat) -> Self {
        self.format = format;
        self
    }

    /// The wire format it serializes in.
    pub fn wire_format(&self) -> WireFormat {
        self.format
    }

    /// Whether a refusal's message is still unwritten (its problems' sentences, written when
    /// asked for).
    #[cfg(test)]
    pub(crate) fn message_unwritten(&self) -> bool {
        matches!(&self.inner, Inner::Invalid(i) if i.message.get().is_none())
    }

    /// Sets a refusal's hints by hand (for tests of shapes the crate does not build).
    #[cfg(test)]
    pub(crate) fn set_hints(&mut self, hints: Hints) {
        if let Inner::Invalid(i) = &mut self.inner {
            // The message stays the one the old hints gave.
            i.message();
            i.hints = hints;
        }
    }

    /// The parts a wire format writes.
    pub(crate) fn parts(&self) -> Parts<'_> {
        match &self.inner {
            Inner::Ok(data) => Parts::Ok(data.value()),
            Inner::Invalid(i) => Parts::Invalid { message: i.message(), hints: &i.hints },
            Inner::Error(f) => Parts::Error { message: &f.message, operation: f.operation.as_deref() },
            Inner::NeedsConfirmation(c) => Parts::Confirm {
                message: &c.message,
                pending_action_id: &c.pending_action_id,
                preview: &c.preview,
                preview_hash: &c.preview_hash,
            },
        }
    }

    /// `error_code` as sent: the code with the prefix, if any.
    pub(crate) fn code_on_wire(&self) -> Option<String> {
        self.error_code().map(|c| format!("{}{}", self.prefix.unwrap_or(""), c.name()))
    }

    /// The status word.
    pub fn status(&self) -> Status {
        match self.inner {
            Inner::Ok(_) => Status::Ok,
            Inner::Invalid(_) => Status::Invalid,
            Inner::Error(_) => Status::Error,
            Inner::NeedsConfirmation(_) => Status::NeedsConfirmation,
        }
    }

    /// True for `invalid` and `error`: MCP's `isError`.
    pub fn is_error(&self) -> bool {
        matches!(self.status(), Status::Invalid | Status::Error)
    }

    /// The `error_code`, for every status but `ok` (the toolbox's prefix is added on the wire).
    pub fn error_code(&self) -> Option<Code> {
        match &self.inner {
            Inner::Ok(_) => None,
            Inner::Invalid(i) => Some(i.code),
            Inner::Error(f) => Some(f.code),
            Inner::NeedsConfirmation(_) => Some(codes::CONFIRMATION_REQUIRED),
        }
    }

    /// `data` of an `ok` envelope.
    pub fn data(&self) -> Option<&Value> {
        match &self.inner {
            Inner::Ok(data) => Some(data.value()),
            _ => None,
        }
    }

    /// `message`, for every status but `ok`.
    pub fn message(&self) -> Option<&str> {
        match &self.inner {
            Inner::Ok(_) => None,
            Inner::Invalid(i) => Some(i.message()),
            Inner::Error(f) => Some(&f.message),
            Inner::NeedsConfirmation(c) => Some(&c.message),
        }
    }

    /// `retryable`: whether the same call, unchanged, can succeed later (`None` for `ok`).
    pub fn retryable(&self) -> Option<bool> {
        match &self.inner {
            Inner::Ok(_) => None,
            Inner::Invalid(i) => Some(i.code.retryable()),
            Inner::NeedsConfirmation(_) => Some(false),
            Inner::Error(f) => Some(f.retry.unchanged()),
        }
    }

    /// `retry`: the retry class, from the one code table (`None` for `ok`): what a client does
    /// next (`never`, `after_reread`, `after_delay`, `with_backoff`, `reauthorize`).
    /// [`retryable`](Self::retryable) is derived from it. A fault of a tool that is not
    /// idempotent is `after_reread`: a retry of a call that may have acted could act twice, so
    /// check whether it took effect first.
    pub fn retry(&self) -> Option<Retry> {
        match &self.inner {
            Inner::Ok(_) => None,
            Inner::Invalid(i) => Some(i.code.retry()),
            Inner::NeedsConfirmation(_) => Some(Retry::Never),
            Inner::Error(f) => Some(f.retry),
        }
    }

    /// The envelope as a JSON value (MCP `structuredContent`).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The envelope as JSON text, keys in wire order (MCP text content, HTTP body).
    pub fn to_json(&self) -> String {
        match self.written() {
            Some(wire) => wire.to_owned(),
            None => self.write_json(),
        }
    }

    /// [`to_json`](Self::to_json), the envelope consumed: a tool's answer, whose envelope was
    /// written when the tool answered, gives that text without a copy (with a `warning` or
    /// `provenance`, the text is copied once with those keys added).
    pub fn into_json(self) -> String {
        match self.inner {
            Inner::Ok(Data::Json(json)) if self.format == WireFormat::Envelope && self.extra.is_none() => json.wire,
            _ => self.write_json(),
        }
    }

    /// [`to_json`](Self::to_json), borrowed when the envelope is written already (a tool's
    /// answer in the wire contract, with no `warning` or other key added).
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))] // read by the MCP transports
    pub(crate) fn json(&self) -> std::borrow::Cow<'_, str> {
        match self.written() {
            Some(wire) => std::borrow::Cow::Borrowed(wire),
            None => std::borrow::Cow::Owned(self.write_json()),
        }
    }

    /// The envelope's JSON text when it was written with the tool's answer
    /// ([`Envelope::ok_serialized`]) and nothing was added since.
    fn written(&self) -> Option<&str> {
        match &self.inner {
            Inner::Ok(Data::Json(json)) if self.format == WireFormat::Envelope && self.extra.is_none() => {
                Some(&json.wire)
            }
            _ => None,
        }
    }

    /// The envelope written as JSON text (one buffer, sized for the whole envelope).
    fn write_json(&self) -> String {
        // A refusal's message and hints are written straight into the buffer.
        let size = match &self.inner {
            Inner::Invalid(i) => {
                // An unwritten message is about as long as its hints.
                let hints = i.hints.size_hint();
                160 + i.message.get().map_or(hints, String::len) + hints
            }
            Inner::Ok(Data::Json(json)) => 128 + json.wire.len(),
            _ => 128,
        };
        let mut out = Vec::with_capacity(size);
        let written = match (&self.inner, self.format) {
            // A refusal in the wire contract, the path every refused call takes: written
            // straight, the same bytes as through serde_json.
            (Inner::Invalid(i), WireFormat::Envelope) => self.write_invalid(i, &mut out),
            // An answer with a `warning` or `provenance`: its written text, the keys before
            // its closing brace (the answer is neither read again nor checked).
            (Inner::Ok(Data::Json(json)), WireFormat::Envelope) => write_answer(json, self.extra.as_deref(), &mut out),
            _ => serde_json::to_writer(&mut out, self),
        };
        match written {
            Ok(()) => String::from_utf8(out).unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// Appends a refusal envelope (wire contract) as JSON to `out`: the bytes its `Serialize`
    /// writes through serde_json, keys in the same order, each text escaped once.
    fn write_invalid(&self, i: &Invalid, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(b"{\"status\":\"");
        out.extend_from_slice(self.status().as_str().as_bytes());
        out.extend_from_slice(b"\",\"success\":false,\"error_code\":\"");
        if let Some(prefix) = self.prefix {
            escape::push_contents(out, prefix);
        }
        // UPPER_SNAKE (`Code::new` holds it to that): nothing to escape.
        out.extend_from_slice(i.code.name().as_bytes());
        out.extend_from_slice(b"\",\"message\":");
        // Sentences unwritten, or one problem's: their parts escaped once, for the message and
        // the hints.
        if !i.hints.write_message_and_hints(i.message.get().map(String::as_str), out)? {
            escape::push_str(out, i.message());
            out.extend_from_slice(b",\"hints\":");
            i.hints.write_json(out)?;
        }
        out.extend_from_slice(if i.code.retryable() { b",\"retryable\":true" } else { b",\"retryable\":false" });
        out.extend_from_slice(b",\"retry\":\"");
        out.extend_from_slice(i.code.retry().as_str().as_bytes());
        out.push(b'"');
        if let Some(extra) = &self.extra {
            if let Some(w) = &extra.warning {
                out.extend_from_slice(b",\"warning\":");
                escape::push_str(out, w);
            }
            if let Some(p) = &extra.provenance {
                out.extend_from_slice(b",\"provenance\":");
                serde_json::to_writer(&mut *out, p)?;
            }
        }
        out.push(b'}');
        Ok(())
    }

    /// Adds `hints.trace_id` to a fault (status `error`): the id its log line carries too, so an
    /// operator finds the details the message leaves out. Other statuses are returned unchanged.
    ///
    /// ```
    /// use envelope_core::{Envelope, Fault};
    ///
    /// let env = Envelope::from(Fault::backend("reading notes")).with_trace_id("4f1c2a9e0b7d3e65");
    /// assert_eq!(env.trace_id(), Some("4f1c2a9e0b7d3e65"));
    /// assert_eq!(env.to_value()["hints"], serde_json::json!({"operation": "reading notes", "trace_id": "4f1c2a9e0b7d3e65"}));
    /// ```
    #[must_use]
    pub fn with_trace_id(mut self, trace_id: impl Into<String>) -> Self {
        if let Inner::Error(f) = &mut self.inner {
            f.trace_id = Some(trace_id.into());
        }
        self
    }

    /// `hints.trace_id` of a fault, when set with [`with_trace_id`](Self::with_trace_id).
    pub fn trace_id(&self) -> Option<&str> {
        match &self.inner {
            Inner::Error(f) => f.trace_id.as_deref(),
            _ => None,
        }
    }

    /// Adds `hints.retry_after_ms` to a refusal (status `invalid`): how long to wait, in
    /// milliseconds, before the same call can succeed (`RATE_LIMITED`); over HTTP it is the
    /// `Retry-After` of the 429, in whole seconds rounded up. Other statuses are returned
    /// unchanged.
    ///
    /// ```
    /// use envelope_core::{Envelope, Refusal, codes};
    ///
    /// let refusal = Refusal::parameter("query").rejected("x").accepted("any").fix("Wait.").build();
    /// let env = Envelope::from(refusal).with_retry_after_ms(1500);
    /// assert_eq!(env.retry_after_ms(), Some(1500));
    /// assert_eq!(env.to_value()["hints"]["retry_after_ms"], 1500);
    /// ```
    #[must_use]
    pub fn with_retry_after_ms(mut self, ms: u64) -> Self {
        if let Inner::Invalid(i) = &mut self.inner {
            i.hints.set_retry_after_ms(ms);
        }
        self
    }

    /// [`with_retry_after_ms`](Self::with_retry_after_ms) with `wait` rounded up to whole
    /// milliseconds, and the delay in the sentence: the message ends with `Try again in 2
    /// seconds.` (unless it says when to try again already). Other statuses are returned
    /// unchanged.
    #[must_use]
    pub fn with_retry_after(mut self, wait: std::time::Duration) -> Self {
        if let Inner::Invalid(i) = &mut self.inner
            && !i.message().contains("ry again in ")
        {
            let message = format!("{} Try again in {}.", i.message().trim_end(), crate::words::render::in_words(wait));
            i.message = OnceLock::from(message);
        }
        let ms = u64::try_from(wait.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX);
        self.with_retry_after_ms(ms)
    }

    /// `hints.retry_after_ms` of a refusal, when it gives one.
    pub fn retry_after_ms(&self) -> Option<u64> {
        match &self.inner {
            Inner::Invalid(i) => i.hints.retry_after_ms(),
            _ => None,
        }
    }

    /// Adds a `warning`: one sentence of caution or degraded mode, on any status (data served
    /// from a stale cache, a call not recorded in the audit trail, an answer replayed from an
    /// idempotency record). A second warning is appended to the first, after a space.
    ///
    /// ```
    /// use envelope_core::Envelope;
    ///
    /// let env = Envelope::ok(serde_json::json!([1])).with_warning("The prices are 10 minutes old.");
    /// assert_eq!(env.to_json(), r#"{"status":"ok","success":true,"data":[1],"warning":"The prices are 10 minutes old."}"#);
    /// ```
    #[must_use]
    pub fn with_warning(self, warning: impl Into<String>) -> Self {
        self.warned(warning.into())
    }

    pub(crate) fn warned(mut self, warning: String) -> Self {
        let extra = self.extra.get_or_insert_with(Box::default);
        extra.warning = Some(match extra.warning.take() {
            Some(first) => format!("{first} {warning}"),
            None => warning,
        });
        self
    }

    /// The `warning`, if any.
    pub fn warning(&self) -> Option<&str> {
        self.extra.as_ref().and_then(|e| e.warning.as_deref())
    }

    /// Sets `provenance` (see [`Toolbox::with_provenance`](crate::Toolbox::with_provenance)).
    #[must_use]
    pub(crate) fn with_provenance(mut self, provenance: Value) -> Self {
        self.extra.get_or_insert_with(Box::default).provenance = Some(provenance);
        self
    }

    /// The `provenance`, when the toolbox adds it: `{"call_id", "surface", "tool", "tier",
    /// "caller", "tenant", "approval", "replay"}`.
    pub fn provenance(&self) -> Option<&Value> {
        self.extra.as_ref().and_then(|e| e.provenance.as_ref())
    }

    /// Makes a fault not retryable, for a tool whose call is not idempotent (a retry could act
    /// twice).
    pub(crate) fn not_retryable(mut self) -> Self {
        // A fault after which nothing ran (the audit intent or the policy's verdict was not
        // had) is safe to retry whatever the tool is.
        if let Inner::Error(f) = &mut self.inner
            && f.retry.unchanged()
            && f.code != codes::AUDIT_UNAVAILABLE
            && f.code != codes::POLICY_UNAVAILABLE
        {
            f.retry = Retry::AfterReread;
            // The code's action leaves the choice to the reader; this tool's is known.
            if let Some(head) = f.message.strip_suffix(EITHER_WAY) {
                f.message = format!("{head}It may have taken effect: read the current state before calling again.");
            }
        }
        self
    }

    /// Says, for a tool declared idempotent (or read-only), that calling again is safe, where
    /// the fault's code leaves it to the reader (`TIMEOUT`, `BACKEND_ERROR`: "Retry later if the
    /// tool is idempotent; ...").
    pub(crate) fn retry_is_safe(mut self) -> Self {
        if let Inner::Error(f) = &mut self.inner
            && let Some(head) = f.message.strip_suffix(EITHER_WAY)
        {
            f.message = format!("{head}Retry later: the tool is idempotent, so calling again is safe.");
        }
        self
    }
}

/// The action of `TIMEOUT` and `BACKEND_ERROR` as a fault's message ends with it: which way
/// depends on the tool, which [`Envelope::not_retryable`] and [`Envelope::retry_is_safe`] know.
const EITHER_WAY: &str = "Retry later if the tool is idempotent; otherwise check whether it took effect.";

impl From<Refusal> for Envelope {
    fn from(r: Refusal) -> Self {
        let (code, retry_after) = (r.error_code(), r.retry_after());
        let (message, hints) = r.rendered();
        let invalid = Invalid::new(code, message, hints);
        let envelope = Envelope {
            inner: Inner::Invalid(Box::new(invalid)),
            prefix: None,
            format: WireFormat::Envelope,
            extra: None,
        };
        match retry_after {
            Some(wait) => envelope.with_retry_after(wait),
            None => envelope,
        }
    }
}

impl From<Fault> for Envelope {
    fn from(f: Fault) -> Self {
        let code = f.error_code();
        Envelope {
            inner: Inner::Error(Box::new(Failed {
                code,
                message: f.message(),
                operation: f.operation().map(str::to_owned),
                retry: code.retry(),
                trace_id: None,
            })),
            prefix: None,
            format: WireFormat::Envelope,
            extra: None,
        }
    }
}

struct CodeName<'a>(Option<&'a str>, Code);

impl Serialize for CodeName<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(p) => s.collect_str(&format_args!("{p}{}", self.1.name())),
            None => s.serialize_str(self.1.name()),
        }
    }
}

impl Serialize for Envelope {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.format != WireFormat::Envelope {
            let extra = self.extra.as_deref();
            return crate::outcome::wire::serialize(
                self.format,
                self.status(),
                self.code_on_wire(),
                self.parts(),
                extra,
                s,
            );
        }
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("status", self.status().as_str())?;
        m.serialize_entry("success", &matches!(self.inner, Inner::Ok(_)))?;
        match &self.inner {
            Inner::Ok(Data::Value(data)) => m.serialize_entry("data", data)?,
            // Written as it was serialized: verbatim into JSON text, parsed into a `Value`.
            Inner::Ok(Data::Json(json)) => {
                // serde_json wrote the text: it reads back as raw JSON (one pass over the answer, no
                // allocation). `to_json` does not come here (`write_answer`); other serializers do.
                let raw: &serde_json::value::RawValue =
                    serde_json::from_str(json.text()).map_err(serde::ser::Error::custom)?;
                m.serialize_entry("data", raw)?;
            }
            Inner::Invalid(i) => {
                m.serialize_entry("error_code", &CodeName(self.prefix, i.code))?;
                m.serialize_entry("message", i.message())?;
                m.serialize_entry("hints", &i.hints)?;
                m.serialize_entry("retryable", &i.code.retryable())?;
                m.serialize_entry("retry", i.code.retry().as_str())?;
            }
            Inner::Error(f) => {
                m.serialize_entry("error_code", &CodeName(self.prefix, f.code))?;
                m.serialize_entry("message", &f.message)?;
                if f.operation.is_some() || f.trace_id.is_some() {
                    m.serialize_entry("hints", &FaultHints(f))?;
                }
                m.serialize_entry("retryable", &f.retry.unchanged())?;
                m.serialize_entry("retry", f.retry.as_str())?;
            }
            Inner::NeedsConfirmation(c) => {
                m.serialize_entry("error_code", &CodeName(self.prefix, codes::CONFIRMATION_REQUIRED))?;
                m.serialize_entry("message", &c.message)?;
                m.serialize_entry("retryable", &false)?;
                m.serialize_entry("retry", Retry::Never.as_str())?;
                m.serialize_entry("pending_action_id", &c.pending_action_id)?;
                m.serialize_entry("preview", &c.preview)?;
                m.serialize_entry("preview_hash", &c.preview_hash)?;
            }
        }
        if let Some(extra) = &self.extra {
            crate::outcome::wire::serialize_extra(&mut m, extra)?;
        }
        m.end()
    }
}

/// A fault's `hints`: `operation`, then `trace_id`, each when known.
struct FaultHints<'a>(&'a Failed);

impl Serialize for FaultHints<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(op) = &self.0.operation {
            m.serialize_entry("operation", op)?;
        }
        if let Some(id) = &self.0.trace_id {
            m.serialize_entry("trace_id", id)?;
        }
        m.end()
    }
}

/// A tool's answer with a `warning`: return `Warned::new(data, "sentence")` (or
/// `Ok(Warned::new(...))`) from a `#[tool]` function and the call answers `ok` with `data` and
/// `warning` (data served from a stale cache, a partial result). `data`'s JSON Schema is `T`'s.
///
/// ```
/// use envelope_core::{tool, Toolbox, outcome::Warned};
///
/// /// Reads the prices.
/// #[tool(read_only)]
/// fn prices() -> Warned<Vec<u32>> {
///     Warned::new(vec![12, 15], "The prices are from the cache, 10 minutes old.")
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let env = Toolbox::new().with(prices::tool()).call("prices", None).await.unwrap();
/// assert_eq!(env.to_json(), r#"{"status":"ok","success":true,"data":[12,15],"warning":"The prices are from the cache, 10 minutes old."}"#);
/// # });
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Warned<T> {
    data: T,
    warning: String,
}

impl<T> Warned<T> {
    /// `data`, served with `warning` (one sentence).
    pub fn new(data: T, warning: impl Into<String>) -> Self {
        Warned { data, warning: warning.into() }
    }
}

/// The keys a [`Warned`] is carried under until the envelope is built.
pub(crate) const WARNED_DATA: &str = "$envelope_warned_data";
pub(crate) const WARNED_WARNING: &str = "$envelope_warned_warning";

/// How a [`Warned`] answer's JSON text begins.
const WARNED_TEXT: &str = "{\"$envelope_warned_data\":";

impl<T: Serialize> Serialize for Warned<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry(WARNED_DATA, &self.data)?;
        m.serialize_entry(WARNED_WARNING, &self.warning)?;
        m.end()
    }
}

/// `data` of an `ok` envelope: a [`Value`], or the JSON text a tool's answer serialized to
/// (what `#[tool]` answers build: written as it is, with no `Value` of maps and strings built
/// and dropped per call), read into a `Value` the first time one is asked for.
#[derive(Clone)]
enum Data {
    Value(Value),
    Json(Json),
}

#[derive(Clone)]
struct Json {
    /// The whole `ok` envelope in the wire contract, the answer's text in it as serde_json
    /// wrote it: `{"status":"ok","success":true,"data":<text>}` (see [`Json::text`]).
    wire: String,
    /// Boxed: a `Value` is read only when one is asked for.
    value: std::sync::OnceLock<Box<Value>>,
}

/// Appends an answer's written envelope with `extra`'s keys (`warning`, then `provenance`)
/// before its closing brace: the bytes its `Serialize` writes.
fn write_answer(json: &Json, extra: Option<&Extra>, out: &mut Vec<u8>) -> serde_json::Result<()> {
    /// The extra keys alone, as a JSON object.
    struct Keys<'a>(&'a Extra);
    impl Serialize for Keys<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(None)?;
            crate::outcome::wire::serialize_extra(&mut m, self.0)?;
            m.end()
        }
    }
    let wire = json.wire.as_bytes();
    out.extend_from_slice(&wire[..wire.len() - 1]);
    let at = out.len();
    if let Some(extra) = extra {
        // `{"warning":...}` written at `at`: its `{` becomes the `,` after `data`, its `}` closes
        // the envelope; `{}` (no key set) is taken back.
        serde_json::to_writer(&mut *out, &Keys(extra))?;
        if out.len() > at + 2 {
            out[at] = b',';
            return Ok(());
        }
        out.truncate(at);
    }
    out.push(b'}');
    Ok(())
}

/// What an `ok` envelope in the wire contract starts with, before its `data`.
const OK_OPEN: &str = "{\"status\":\"ok\",\"success\":true,\"data\":";

impl Json {
    /// The answer's JSON text: `data` of [`Json::wire`].
    fn text(&self) -> &str {
        self.wire.get(OK_OPEN.len()..self.wire.len() - 1).unwrap_or("null")
    }
}

impl Data {
    fn value(&self) -> &Value {
        match self {
            Data::Value(v) => v,
            // The text is JSON serde_json wrote, so it reads back (a number past 64 bits as a
            // double, as `to_value` would not have taken it).
            Data::Json(json) => {
                json.value.get_or_init(|| Box::new(serde_json::from_str(json.text()).unwrap_or(Value::Null)))
            }
        }
    }
}

impl PartialEq for Data {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}

impl std::fmt::Debug for Data {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value().fmt(f)
    }
}

impl Envelope {
    /// `ok` with a tool's answer: its JSON text as serde_json writes it, unwrapping a
    /// [`Warned`] answer into `data` and `warning`; `Err` if it does not serialize.
    pub(crate) fn ok_serialized<T: Serialize>(answer: &T) -> Result<Self, serde_json::Error> {
        // An answer of no size (`()`, a unit struct) holds no data to write: its `Value` (`null`
        // for those) costs no allocation, where text would cost one.
        if std::mem::size_of::<T>() == 0 {
            return Ok(Envelope::ok_of(serde_json::to_value(answer)?));
        }
        // The answer written straight after the envelope's opening keys: the envelope's text,
        // kept whole for `to_json` and `into_json`. Room for a small answer (up to 218 bytes)
        // and the keys around it without growing; the buffer is never shrunk, so a large
        // answer keeps up to twice its length in capacity.
        let mut wire = Vec::with_capacity(256);
        wire.extend_from_slice(OK_OPEN.as_bytes());
        serde_json::to_writer(&mut wire, answer)?;
        let text = &wire[OK_OPEN.len()..];
        // A `Warned` answer (its first key is this one) is unwrapped from its `Value`.
        if text.starts_with(WARNED_TEXT.as_bytes()) {
            return Ok(Envelope::ok_of(serde_json::from_slice(text)?));
        }
        wire.push(b'}');
        // serde_json writes UTF-8.
        let wire = String::from_utf8(wire).map_err(serde::ser::Error::custom)?;
        let json = Json { wire, value: std::sync::OnceLock::new() };
        Ok(Envelope { inner: Inner::Ok(Data::Json(json)), prefix: None, format: WireFormat::Envelope, extra: None })
    }

    /// `ok` with `data`, unwrapping a [`Warned`] answer into `data` and `warning`.
    pub(crate) fn ok_of(data: Value) -> Self {
        match data {
            Value::Object(mut m)
                if m.len() == 2
                    && m.contains_key(WARNED_DATA)
                    && m.get(WARNED_WARNING).is_some_and(Value::is_string) =>
            {
                let warning = m.remove(WARNED_WARNING).and_then(|w| w.as_str().map(str::to_owned)).unwrap_or_default();
                Envelope::ok(m.remove(WARNED_DATA).unwrap_or(Value::Null)).warned(warning)
            }
            data => Envelope::ok(data),
        }
    }
}

#[cfg(test)]
mod tests;
