//! The consumer's side: classify any reply text by its fields, never by its prose.

use serde_json::{Map, Value};

use crate::outcome::code::Code;
use crate::outcome::code::Status;
use crate::outcome::wire::WireFormat;
use crate::words::cut::cut;

/// What a reply says, read from its fields.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Reply {
    /// Served: `data` is the answer (an empty answer is still `Ok`).
    Ok {
        /// The answer.
        data: Value,
    },
    /// A refusal: the request must change; retrying it unchanged will not help (unless the code
    /// says so, like `RATE_LIMITED`).
    Refused {
        /// `error_code` as sent (with any service prefix), when the reply has one.
        code: Option<String>,
        /// `hints.parameter`: the parameter to fix, when named.
        parameter: Option<String>,
        /// The sentence(s) for the model.
        message: String,
    },
    /// A fault: the request was valid and the server failed.
    Failed {
        /// `error_code` as sent, when the reply has one.
        code: Option<String>,
        /// The sentence for the model.
        message: String,
        /// `hints.operation`, when named.
        operation: Option<String>,
        /// `hints.trace_id`: the id of the server's log line.
        trace_id: Option<String>,
    },
    /// Nothing has happened yet: the action waits for approval.
    NeedsConfirmation {
        /// The id to confirm or reject.
        pending_action_id: String,
        /// What to ask the user, when sent.
        message: Option<String>,
        /// What the action would do (`null` when not sent).
        preview: Value,
        /// The preview's hash, when sent.
        preview_hash: Option<String>,
    },
    /// Nothing in the reply says how the call went: prose (`Error: ...`), JSON that is not an
    /// object, an object without `status` or `success`, a listing shape that hides a failure
    /// (`{"count": 0, "results": [], "error": "..."}`), fields that contradict each other.
    /// Treat it as a failure: it is not an answer.
    Unreadable {
        /// Why, in one sentence.
        reason: String,
    },
}

/// A classified reply: what it says, the HTTP status the status rule gives it, and the wire
/// format it was recognised as.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Classified {
    /// What the reply says.
    pub reply: Reply,
    /// The status of [`http::status`](crate::http::status) for it: 200, 202, the code's own
    /// 4xx for a refusal (400 when the code is unknown), the code's own 5xx for a fault (500
    /// when unknown). `None` for an unreadable reply.
    pub http_status: Option<u16>,
    /// The format recognised, when the reply's keys say which (the `ok` lines of
    /// [`WireFormat::StatusHints`] and [`WireFormat::ErrorCodeSummary`] are the same bytes, and
    /// classified as the classifier's format, else as `None`).
    pub format: Option<WireFormat>,
}

impl Classified {
    /// Whether the reply is a success (`ok`) and nothing else.
    pub fn is_ok(&self) -> bool {
        matches!(self.reply, Reply::Ok { .. })
    }
}

/// Classifies any reply text (see [`Classifier`]), with the standard codes and no format assumed.
///
/// ```
/// use envelope_core::{client::classify, client::Reply};
///
/// let refusal = classify(r#"{"status":"error","error_code":"ACME_VALIDATION_ERROR","summary":"hours_back: 0 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720."}"#);
/// assert!(matches!(refusal.reply, Reply::Refused { .. }));
/// assert_eq!(refusal.http_status, Some(400));
///
/// let listing = classify(r#"{"count": 0, "results": [], "error": "upstream timed out"}"#);
/// assert!(matches!(listing.reply, Reply::Unreadable { .. }));
/// assert!(!listing.is_ok());
///
/// assert!(matches!(classify("Error: connection refused").reply, Reply::Unreadable { .. }));
/// ```
pub fn classify(text: &str) -> Classified {
    Classifier::new().classify(text)
}

/// Classifies replies in every wire format ([`WireFormat`]), telling their outcomes apart by fields:
///
/// - `status` says it, in the envelope and in [`WireFormat::StatusHints`]; under
///   [`WireFormat::ErrorCodeSummary`], where refusals and faults share the word `error`, the
///   code after any service prefix tells them apart (`ACME_VALIDATION_ERROR` is a refusal,
///   `ACME_BACKEND_ERROR` a fault; a code the classifier does not know is a fault — give domain
///   refusal codes with [`with_codes`](Self::with_codes));
/// - `success: false` with `refused` says it in [`WireFormat::SuccessFlag`]; a
///   `pending_action_id` makes it a confirmation;
/// - a success in [`WireFormat::SuccessFlag`] is the data object itself, with no `success`
///   field: it is `ok` only to a classifier told that format
///   ([`with_format`](Self::with_format)), and only when it has no `error` key. Otherwise an
///   object with neither `status` nor `success` is unreadable: nothing in it says the call
///   succeeded.
///
/// It never panics, on any text.
#[derive(Clone, Debug, Default)]
pub struct Classifier {
    format: Option<WireFormat>,
    codes: Vec<Code>,
}

impl Classifier {
    /// A classifier of every format, knowing the standard codes.
    pub fn new() -> Self {
        Classifier::default()
    }

    /// Classifies the replies of a server known to answer in `format`.
    #[must_use]
    pub fn with_format(mut self, format: WireFormat) -> Self {
        self.format = Some(format);
        self
    }

    /// Also knows `codes` (a server's domain codes): their status word tells a refusal from a
    /// fault, and their HTTP status is given.
    #[must_use]
    pub fn with_codes(mut self, codes: &[Code]) -> Self {
        self.codes.extend_from_slice(codes);
        self
    }

    /// Classifies `text`.
    pub fn classify(&self, text: &str) -> Classified {
        let trimmed = text.trim_start_matches('\u{feff}').trim();
        if trimmed.is_empty() {
            return unreadable("the reply is empty");
        }
        match serde_json::from_str::<Value>(trimmed) {
            Ok(Value::Object(o)) => self.by_fields(&o),
            Ok(other) => {
                unreadable(&format!("the reply is {}, not an object", crate::words::render::json_type(&other)))
            }
            // `IgnoredAny` checks the syntax at any depth.
            Err(_) if serde_json::from_str::<serde::de::IgnoredAny>(trimmed).is_ok() => {
                unreadable("the reply nests deeper than the 128 levels this reader reads")
            }
            Err(_) if trimmed.starts_with(['{', '[']) => unreadable("the reply starts like JSON but is not valid JSON"),
            Err(_) => {
                let shown = crate::words::render::shown(&Value::String(trimmed.to_owned()));
                unreadable(&format!("the reply is prose, not JSON: {shown}"))
            }
        }
    }

    fn by_fields(&self, o: &Map<String, Value>) -> Classified {
        let success = o.get("success");
        match (o.get("status"), success) {
            (Some(Value::String(word)), _) => self.by_status(word, o),
            (Some(other), _) => {
                unreadable(&format!("`status` is {}, not a status word", crate::words::render::json_type(other)))
            }
            (None, Some(Value::Bool(false))) => self.by_refused(o),
            (None, Some(Value::Bool(true))) => {
                let data = match o.get("data") {
                    Some(data) if o.len() == 2 => data.clone(),
                    _ => without(o, "success"),
                };
                self.classified(Reply::Ok { data }, Some(WireFormat::SuccessFlag))
            }
            (None, Some(other)) => {
                unreadable(&format!("`success` is {}, not a boolean", crate::words::render::json_type(other)))
            }
            (None, None) if o.contains_key("error") => unreadable(
                "the reply has `error` but neither `status` nor `success`: a listing shape that hides a failure",
            ),
            (None, None) if self.format == Some(WireFormat::SuccessFlag) => {
                self.classified(Reply::Ok { data: Value::Object(o.clone()) }, Some(WireFormat::SuccessFlag))
            }
            (None, None) => unreadable("the reply has neither `status` nor `success`: nothing says the call succeeded"),
        }
    }

    fn by_status(&self, word: &str, o: &Map<String, Value>) -> Classified {
        if let Some(success) = o.get("success")
            && success.as_bool() != Some(word == "ok")
        {
            return unreadable(&format!("`status` \"{}\" contradicts `success` {success}", cut(word, WORD_CHARS)));
        }
        let format = if o.contains_key("success") {
            Some(WireFormat::Envelope)
        } else if o.contains_key("summary") || o.contains_key("error_code") {
            Some(WireFormat::ErrorCodeSummary)
        } else if o.contains_key("message") || o.contains_key("hints") {
            Some(WireFormat::StatusHints)
        } else {
            self.format
        };
        let code = string(o, "error_code");
        let message = string(o, "message").or_else(|| string(o, "summary"));
        let hint = |key: &str| o.get("hints").and_then(|h| h.get(key)).and_then(Value::as_str).map(str::to_owned);
        let reply = match word {
            "ok" => match o.get("data") {
                Some(data) => Reply::Ok { data: data.clone() },
                None => return unreadable("`status` is \"ok\" but there is no `data`"),
            },
            "invalid" | "error" => {
                let Some(message) = message else {
                    return unreadable(&format!("`status` is \"{word}\" but there is no `message` or `summary`"));
                };
                let refused = word == "invalid"
                    || code.as_deref().and_then(|c| self.known(c)).is_some_and(|c| c.status() == Status::Invalid);
                if refused {
                    Reply::Refused { code, parameter: hint("parameter"), message }
                } else {
                    Reply::Failed { code, message, operation: hint("operation"), trace_id: hint("trace_id") }
                }
            }
            "needs_confirmation" => match string(o, "pending_action_id") {
                Some(pending_action_id) => Reply::NeedsConfirmation {
                    pending_action_id,
                    message,
                    preview: o.get("preview").cloned().unwrap_or(Value::Null),
                    preview_hash: string(o, "preview_hash"),
                },
                None => return unreadable("`status` is \"needs_confirmation\" but there is no `pending_action_id`"),
            },
            other => return unreadable(&format!("`status` \"{}\" is not a status word", cut(other, WORD_CHARS))),
        };
        self.classified(reply, format)
    }

    fn by_refused(&self, o: &Map<String, Value>) -> Classified {
        let Some(message) = string(o, "error").or_else(|| string(o, "message")) else {
            return unreadable("`success` is false but there is no `error` sentence");
        };
        let code = string(o, "error_code");
        let reply = match (o.get("refused"), string(o, "pending_action_id")) {
            (_, Some(pending_action_id)) => Reply::NeedsConfirmation {
                pending_action_id,
                message: Some(message),
                preview: o.get("preview").cloned().unwrap_or(Value::Null),
                preview_hash: string(o, "preview_hash"),
            },
            (Some(Value::Bool(true)), None) => Reply::Refused { code, parameter: None, message },
            (Some(Value::Bool(false)), None) => Reply::Failed { code, message, operation: None, trace_id: None },
            _ => {
                return unreadable(
                    "`success` is false but `refused` is not a boolean: a failure that does not say whether to fix \
                     the request or retry it",
                );
            }
        };
        self.classified(reply, Some(WireFormat::SuccessFlag))
    }

    fn known(&self, code: &str) -> Option<Code> {
        crate::http::known_code(code, &self.codes)
    }

    fn classified(&self, reply: Reply, format: Option<WireFormat>) -> Classified {
        let code_status = |code: &Option<String>| code.as_deref().and_then(|c| self.known(c)).map(|c| c.http_status());
        let http_status = match &reply {
            Reply::Ok { .. } => Some(crate::http::rule(Status::Ok, None)),
            Reply::NeedsConfirmation { .. } => Some(crate::http::rule(Status::NeedsConfirmation, None)),
            Reply::Refused { code, .. } => Some(crate::http::rule(Status::Invalid, code_status(code))),
            Reply::Failed { code, .. } => Some(crate::http::rule(Status::Error, code_status(code))),
            Reply::Unreadable { .. } => None,
        };
        Classified { reply, http_status, format }
    }
}

fn unreadable(reason: &str) -> Classified {
    Classified { reply: Reply::Unreadable { reason: reason.to_owned() }, http_status: None, format: None }
}

fn string(o: &Map<String, Value>, key: &str) -> Option<String> {
    o.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn without(o: &Map<String, Value>, key: &str) -> Value {
    let mut o = o.clone();
    o.shift_remove(key);
    Value::Object(o)
}

/// A word from the reply is cut to 40 characters for a reason sentence.
const WORD_CHARS: usize = 40;
