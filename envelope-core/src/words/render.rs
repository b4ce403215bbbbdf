//! How a rejected value is shown in a refusal: as JSON, cut when long.

use serde_json::Value;

pub(crate) use super::number::{in_words, number};
pub(crate) use super::suggest::closest;

/// Number nodes of the value being read and the characters each was sent with, sorted by
/// node address (see `sent::numbers_as_sent`): how a refusal quotes a number as sent.
pub(crate) type Numbers<'a> = &'a [(usize, &'a str)];

/// Values whose JSON text is longer than this many characters are cut.
pub(crate) const SHOWN_CHARS: usize = 40;

/// The JSON text of `value` as a refusal quotes it: exact when short; otherwise its first
/// characters, an ellipsis and, for a string, its length in characters (`"aaaa…" (5000
/// characters)`). The result is bounded (under 100 bytes) whatever the input.
pub(crate) fn shown(value: &Value) -> String {
    shown_as_sent(value, &[])
}

/// [`shown`] of the JSON string `s`, without copying `s` into a `Value` first (it may be
/// megabytes long: a tool name as sent).
pub(crate) fn shown_str(s: &str) -> String {
    super::cut::quoted_cut(s, SHOWN_CHARS, SHOWN_CHARS - 8)
}

/// [`shown`], with each number of `value` found in `numbers` (by node address) quoted with
/// the characters it was sent with.
pub(crate) fn shown_as_sent(value: &Value, numbers: Numbers<'_>) -> String {
    match value {
        Value::String(s) => shown_str(s),
        Value::Array(_) | Value::Object(_) => {
            let mut out = Bounded { buf: Vec::new(), limit: SHOWN_CHARS * 4 };
            let complete = if !numbers.is_empty() {
                write_as_sent(&mut out, value, numbers).is_ok()
            } else {
                serde_json::to_writer(&mut out, value).is_ok()
            };
            let text = String::from_utf8_lossy(&out.buf).into_owned();
            if complete && text.chars().count() <= SHOWN_CHARS {
                return text;
            }
            let prefix = super::cut::head(&text, SHOWN_CHARS - 8);
            let what = match value {
                Value::Object(o) => plural(o.len(), "key"),
                Value::Array(a) => plural(a.len(), "item"),
                _ => String::new(),
            };
            format!("{prefix}… (cut; {what})")
        }
        Value::Number(_) => match number_as_sent(value, numbers) {
            Some(text) => super::cut::cut_counted(text, SHOWN_CHARS),
            None => number_as_parsed(value),
        },
        _ => json_text(value),
    }
}

/// A number read from a `Value` with no text beside it: as serde_json writes it, except that a
/// whole number too large for 64 bits (it arrives as a float) shows all its digits, not an
/// exponent (`18446744073709551616`, not `1.8446744073709552e19`).
fn number_as_parsed(value: &Value) -> String {
    match value.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() >= 1e15 && f.abs() < 1e30 && !value.is_i64() && !value.is_u64() => {
            format!("{f:.0}")
        }
        _ => json_text(value),
    }
}

/// The characters `value` (a number node of the arguments being read) was sent with, when
/// `numbers` has them.
pub(crate) fn number_as_sent<'n>(value: &Value, numbers: Numbers<'n>) -> Option<&'n str> {
    let addr = std::ptr::from_ref(value) as usize;
    numbers.binary_search_by_key(&addr, |(a, _)| *a).ok().map(|i| numbers[i].1)
}

/// Writes `value` as JSON with each number as sent; stops with an error once `out` is full.
fn write_as_sent(out: &mut Bounded, value: &Value, numbers: Numbers<'_>) -> std::io::Result<()> {
    use std::io::Write as _;
    match value {
        Value::Number(_) => match number_as_sent(value, numbers) {
            Some(text) => out.write_all(text.as_bytes()),
            None => serde_json::to_writer(&mut *out, value).map_err(std::io::Error::other),
        },
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_as_sent(out, item, numbers)?;
            }
            out.write_all(b"]")
        }
        Value::Object(map) => {
            out.write_all(b"{")?;
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                serde_json::to_writer(&mut *out, k).map_err(std::io::Error::other)?;
                out.write_all(b":")?;
                write_as_sent(out, v, numbers)?;
            }
            out.write_all(b"}")
        }
        _ => serde_json::to_writer(&mut *out, value).map_err(std::io::Error::other),
    }
}

/// `1 key`, `2 keys`.
pub(crate) fn plural(n: usize, unit: &str) -> String {
    if n == 1 { format!("1 {unit}") } else { format!("{n} {unit}s") }
}

fn json_text(value: &Value) -> String {
    // Serializing a `Value` with string keys cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

/// A writer that refuses to grow past `limit` bytes, so showing a huge value costs little.
struct Bounded {
    buf: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Bounded {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let room = self.limit.saturating_sub(self.buf.len());
        if room == 0 {
            return Err(std::io::Error::other("cut"));
        }
        let n = room.min(data.len());
        self.buf.extend_from_slice(&data[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What is wrong with a value of the wrong JSON type: `is a string`; for `null`, `is not a value`.
pub(crate) fn type_issue(value: &Value) -> String {
    match value {
        Value::Null => "is not a value".to_owned(),
        _ => format!("is {}", json_type(value)),
    }
}

/// The JSON word for a value's type, with its article: `a string`, `an array`, `null`.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `"a", "b", "c"` — each quoted as JSON.
pub(crate) fn quoted_list<'s>(items: impl IntoIterator<Item = &'s str>) -> String {
    let mut out = String::new();
    // Writing to a `String` cannot fail.
    let _ = write_quoted_list(&mut out, items);
    out
}

/// Appends `item` quoted as JSON (`"database"`), escaped where it needs it.
pub(crate) fn push_quoted(out: &mut String, item: &str) {
    super::escape::push_str_to(out, item);
}

/// [`quoted_list`] written to `f`, each item straight (no list built first).
pub(crate) fn write_quoted_list<'s>(
    f: &mut impl std::fmt::Write,
    items: impl IntoIterator<Item = &'s str>,
) -> std::fmt::Result {
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        if super::escape::quotes_and_controls(item.as_bytes()) == (0, 0) {
            // Nothing to escape: the JSON text is the item in quotes.
            f.write_char('"')?;
            f.write_str(item)?;
            f.write_char('"')?;
        } else {
            let mut quoted = String::with_capacity(item.len() + 8);
            push_quoted(&mut quoted, item);
            f.write_str(&quoted)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn short_values_are_exact() {
        assert_eq!(shown(&json!("databse")), r#""databse""#);
        assert_eq!(shown(&json!(48.5)), "48.5");
        assert_eq!(shown(&json!(null)), "null");
        assert_eq!(shown(&json!([1, 2])), "[1,2]");
    }

    #[test]
    fn long_string_is_cut_with_its_length() {
        let s = "ü".repeat(121);
        let out = shown(&json!(s));
        assert_eq!(out, format!("\"{}…\" (121 characters)", "ü".repeat(32)));
    }

    #[test]
    fn deep_array_is_cut() {
        let mut v = json!([]);
        for _ in 0..100 {
            v = json!([v]);
        }
        let out = shown(&v);
        assert_eq!(out, format!("{}… (cut; 1 item)", "[".repeat(32)));
    }
}
