//! How a refusal's `hints` are written and read: typed, straight from their problems' texts,
//! or as recorded; equal when their JSON is.

use std::ops::Range;

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
            Hints::Problems { problems, .. } => problems.first().map(|p| Value::String(p.0.parameter.to_string())),
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
                        + d.suggestion.as_ref().map_or(0, |s| s.len())
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
    /// The sentences of the problems these hints hold, a line each: the message
    /// [`Refusal::rendered`] leaves unwritten. Empty for any other hints (never the case for
    /// such a message).
    pub(crate) fn sentences(&self) -> String {
        match self {
            Hints::Problems { problems, .. } => {
                let mut message = String::with_capacity(problems.iter().map(|p| p.sentence_len_bound() + 1).sum());
                for (i, p) in problems.iter().enumerate() {
                    if i > 0 {
                        message.push('\n');
                    }
                    p.write_sentence(&mut message);
                }
                message
            }
            Hints::Recorded(_) => String::new(),
        }
    }
}

/// How many problems [`Hints::write_message_and_hints`] writes from their parts, their places
/// kept on the stack; a refusal of more is written from its message.
const PARTS_INLINE: usize = 8;

/// Where the escaped parts of a problem's sentence that its hints repeat lie in the bytes
/// written: the parameter or path, the rejected value (when shown), the accepted set, the fix.
#[derive(Clone, Default)]
struct Places {
    head: Range<usize>,
    rejected: Option<Range<usize>>,
    accepted: Range<usize>,
    fix: Range<usize>,
}

/// Appends `p`'s sentence ([`Problem::write_sentence`]) to `out` as a JSON string's contents,
/// each part escaped once, and answers where the parts its hints repeat lie.
/// `quoted_suggestion`: the suggestion as a written message quotes it (else quoted here).
fn write_sentence_escaped(p: &Problem, quoted_suggestion: Option<&str>, out: &mut Vec<u8>) -> Places {
    let d = &p.0;
    // Each part escaped into `out`, its escaped bytes' place kept.
    let escaped = |out: &mut Vec<u8>, text: &str| {
        let start = out.len();
        escape::push_contents(out, text);
        start..out.len()
    };
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
    // Kept with its rule, already escaped.
    let kept = |out: &mut Vec<u8>, text: &Text| {
        let start = out.len();
        text.push_json_contents(out);
        start..out.len()
    };
    let accepted = kept(out, &d.accepted);
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
    let fix = kept(out, &d.fix);
    Places { head, rejected, accepted, fix }
}

/// Appends `p`'s hint fields (`"parameter":...`, as [`Problem::write_hint_fields`] writes
/// them) to `out`, copying the escaped parts of its sentence at `at`.
fn write_hint_fields_from(p: &Problem, at: &Places, out: &mut Vec<u8>) {
    let d = &p.0;
    let copy = |out: &mut Vec<u8>, key: &[u8], at: &Range<usize>| {
        out.extend_from_slice(key);
        out.extend_from_within(at.clone());
        out.push(b'"');
    };
    out.extend_from_slice(b"\"parameter\":\"");
    match &d.path {
        Some(_) => {
            escape::push_contents(out, &d.parameter);
            out.push(b'"');
            copy(out, b",\"path\":\"", &at.head);
        }
        None => {
            out.extend_from_within(at.head.clone());
            out.push(b'"');
        }
    }
    if let Some(rejected) = &at.rejected {
        copy(out, b",\"rejected\":\"", rejected);
    }
    copy(out, b",\"accepted\":\"", &at.accepted);
    copy(out, b",\"fix\":\"", &at.fix);
    if let Some(s) = &d.suggestion {
        out.extend_from_slice(b",\"suggestion\":");
        escape::push_str(out, s);
    }
}

impl Hints {
    /// Appends `"<message>","hints":{...}` to `out` when `message` is the sentences of the
    /// problems these hints hold, written from their parts: each part of a sentence escaped
    /// once, and the hints copying the escaped bytes of the parts they repeat (parameter or
    /// path, rejected value, accepted set, fix). The bytes are those of
    /// [`write_json`](Self::write_json) after the escaped message. Otherwise writes nothing and
    /// answers `false`.
    ///
    /// `message` `None` is the sentences not yet written (one problem or up to
    /// [`PARTS_INLINE`], a line each): they are written from the parts with nothing to check. A
    /// written `message` is used only when it is a lone problem's sentence, checked part by part.
    pub(crate) fn write_message_and_hints(&self, message: Option<&str>, out: &mut Vec<u8>) -> serde_json::Result<bool> {
        let Hints::Problems { problems, retry_after_ms } = self else { return Ok(false) };
        // The suggestion as the sentence quotes it: found in the message, or (the sentences
        // unwritten) quoted here.
        let quoted_suggestion = match (message, problems.as_slice()) {
            (Some(message), [p]) => match p.sentence_parts(message) {
                Some(parts) => parts.quoted_suggestion,
                None => return Ok(false),
            },
            (None, [_, ..]) if problems.len() <= PARTS_INLINE => None,
            _ => return Ok(false),
        };
        let mut places: [Places; PARTS_INLINE] = Default::default();
        out.push(b'"');
        for (i, p) in problems.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b"\\n");
            }
            places[i] = write_sentence_escaped(p, quoted_suggestion, out);
        }
        out.extend_from_slice(b"\",\"hints\":{");
        write_hint_fields_from(&problems[0], &places[0], out);
        if problems.len() > 1 {
            out.extend_from_slice(b",\"others\":[");
            for (i, (p, at)) in problems.iter().zip(&places).enumerate().skip(1) {
                out.extend_from_slice(if i == 1 { b"{" } else { b",{" });
                write_hint_fields_from(p, at, out);
                out.push(b'}');
            }
            out.push(b']');
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
