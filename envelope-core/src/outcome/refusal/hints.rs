//! How a refusal's `hints` are written and read: typed, straight from their problems' texts,
//! or as recorded; equal when their JSON is.

use super::*;

impl Hints {
    /// `hints.retry_after_ms`, when set.
    pub(crate) fn retry_after_ms(&self) -> Option<u64> {
        match self {
            Hints::Problems { retry_after_ms, .. } => *retry_after_ms,
            Hints::Recorded(v) => v.get("retry_after_ms").and_then(Value::as_u64),
        }
    }

    /// Sets `hints.retry_after_ms` (last; in place when set already). A recorded `hints` that
    /// is not an object is left as it is.
    pub(crate) fn set_retry_after_ms(&mut self, ms: u64) {
        match self {
            Hints::Problems { retry_after_ms, .. } => *retry_after_ms = Some(ms),
            Hints::Recorded(Value::Object(hints)) => {
                hints.insert("retry_after_ms".into(), Value::from(ms));
            }
            Hints::Recorded(_) => {}
        }
    }

    /// `hints.parameter` as a JSON value, when there is one.
    pub(crate) fn parameter(&self) -> Option<Value> {
        match self {
            Hints::Problems { problems, .. } => problems.first().map(|p| Value::String(p.0.parameter.clone())),
            Hints::Recorded(v) => v.get("parameter").cloned(),
        }
    }

    /// About how many bytes `hints` takes as JSON text (a buffer's first capacity).
    pub(crate) fn size_hint(&self) -> usize {
        match self {
            Hints::Problems { problems, .. } => problems
                .iter()
                .map(|p| {
                    let d = &p.0;
                    80 + d.parameter.len()
                        + d.path.as_ref().map_or(0, String::len)
                        + d.accepted.len()
                        + d.fix.len()
                        + d.suggestion.as_ref().map_or(0, String::len)
                        + match &d.rejected {
                            Rejected::Shown(v) => v.len() + 16,
                            _ => 0,
                        }
                })
                .sum(),
            Hints::Recorded(_) => 256,
        }
    }
}

impl Hints {
    /// The sentence of the one problem these hints hold: the message [`Refusal::rendered`]
    /// leaves unwritten. Empty for any other hints (never the case for such a message).
    pub(crate) fn lone_sentence(&self) -> String {
        match self {
            Hints::Problems { problems, .. } if problems.len() == 1 => problems[0].sentence(),
            _ => String::new(),
        }
    }
}

impl Hints {
    /// Appends `"<message>","hints":{...}` to `out` when `message` is the sentence of the one
    /// problem these hints hold (a refusal of one argument, the usual one): each part of the
    /// sentence escaped once, and the hints copying the escaped bytes of the parts they repeat
    /// (parameter or path, rejected value, accepted set, fix). The bytes are those of
    /// [`write_json`](Self::write_json) after the escaped message. Otherwise writes nothing and
    /// answers `false`.
    ///
    /// `message` `None` is the lone problem's sentence not yet written: it is written from the
    /// parts with nothing to check.
    pub(crate) fn write_message_and_hints(&self, message: Option<&str>, out: &mut Vec<u8>) -> serde_json::Result<bool> {
        let Hints::Problems { problems, retry_after_ms } = self else { return Ok(false) };
        let [p] = problems.as_slice() else { return Ok(false) };
        let d = &p.0;
        // The suggestion as the sentence quotes it: found in the message, or (the sentence
        // unwritten) quoted here.
        let quoted_suggestion = match message {
            Some(message) => match p.sentence_parts(message) {
                Some(parts) => parts.quoted_suggestion,
                None => return Ok(false),
            },
            None => None,
        };
        // Each part escaped into `out`, its escaped bytes' place kept.
        let escaped = |out: &mut Vec<u8>, text: &str| {
            let start = out.len();
            escape::push_contents(out, text);
            start..out.len()
        };
        out.push(b'"');
        let head = escaped(out, d.path.as_deref().unwrap_or(&d.parameter));
        out.extend_from_slice(b": ");
        let rejected = match &d.rejected {
            Rejected::Shown(v) => {
                let at = escaped(out, v);
                out.push(b' ');
                Some(at)
            }
            Rejected::Hidden => {
                out.extend_from_slice(b"the value sent (secret, not shown) ");
                None
            }
            Rejected::Missing => None,
        };
        escape::push_contents(out, &d.issue);
        out.extend_from_slice(b"; accepted: ");
        let accepted = escaped(out, &d.accepted);
        out.extend_from_slice(b". ");
        if let Some(suggestion) = &d.suggestion {
            out.extend_from_slice(b"Did you mean ");
            match quoted_suggestion {
                Some(quoted) => escape::push_contents(out, quoted),
                // Its JSON string escaped again: `\"database\"` when nothing in it needs an escape.
                None if budget::quotes_and_controls(suggestion.as_bytes()) == (0, 0) => {
                    out.extend_from_slice(b"\\\"");
                    out.extend_from_slice(suggestion.as_bytes());
                    out.extend_from_slice(b"\\\"");
                }
                None => {
                    let mut quoted = String::with_capacity(suggestion.len() + 8);
                    render::push_quoted(&mut quoted, suggestion);
                    escape::push_contents(out, &quoted);
                }
            }
            out.extend_from_slice(b"? ");
        }
        let fix = escaped(out, &d.fix);
        out.extend_from_slice(b"\",\"hints\":{\"parameter\":\"");
        let copy = |out: &mut Vec<u8>, key: &[u8], at: std::ops::Range<usize>| {
            out.extend_from_slice(key);
            out.extend_from_within(at);
            out.push(b'"');
        };
        match &d.path {
            Some(_) => {
                escape::push_contents(out, &d.parameter);
                out.push(b'"');
                copy(out, b",\"path\":\"", head);
            }
            None => {
                out.extend_from_within(head);
                out.push(b'"');
            }
        }
        if let Some(at) = rejected {
            copy(out, b",\"rejected\":\"", at);
        }
        copy(out, b",\"accepted\":\"", accepted);
        copy(out, b",\"fix\":\"", fix);
        if let Some(s) = &d.suggestion {
            out.extend_from_slice(b",\"suggestion\":");
            escape::push_str(out, s);
        }
        if let Some(ms) = retry_after_ms {
            out.extend_from_slice(b",\"retry_after_ms\":");
            serde_json::to_writer(&mut *out, ms)?;
        }
        out.push(b'}');
        Ok(true)
    }
}

impl Hints {
    /// Appends `hints` as JSON to `out`: the bytes its `Serialize` writes through serde_json,
    /// each text escaped straight from its problem (no serializer in between).
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            Hints::Problems { problems, retry_after_ms } => {
                out.push(b'{');
                if let Some((first, others)) = problems.split_first() {
                    first.write_hint_fields(out);
                    if !others.is_empty() {
                        out.extend_from_slice(b",\"others\":[");
                        for (i, p) in others.iter().enumerate() {
                            out.extend_from_slice(if i == 0 { b"{" } else { b",{" });
                            p.write_hint_fields(out);
                            out.push(b'}');
                        }
                        out.push(b']');
                    }
                }
                if let Some(ms) = retry_after_ms {
                    if !problems.is_empty() {
                        out.push(b',');
                    }
                    out.extend_from_slice(b"\"retry_after_ms\":");
                    serde_json::to_writer(&mut *out, ms)?;
                }
                out.push(b'}');
                Ok(())
            }
            Hints::Recorded(v) => serde_json::to_writer(out, v),
        }
    }
}

impl Serialize for Hints {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Hints::Problems { problems, retry_after_ms } => {
                let mut m = s.serialize_map(None)?;
                if let Some((first, others)) = problems.split_first() {
                    first.hint_entries(&mut m)?;
                    if !others.is_empty() {
                        m.serialize_entry("others", &OtherHints(others))?;
                    }
                }
                if let Some(ms) = retry_after_ms {
                    m.serialize_entry("retry_after_ms", ms)?;
                }
                m.end()
            }
            Hints::Recorded(v) => v.serialize(s),
        }
    }
}

/// Equal when their JSON is: typed hints and recorded ones compare as the objects they write.
impl PartialEq for Hints {
    fn eq(&self, other: &Self) -> bool {
        let value = |h: &Hints| serde_json::to_value(h).unwrap_or(Value::Null);
        value(self) == value(other)
    }
}
