//! How a rejected value is shown in a refusal: as JSON, cut when long.

use serde_json::Value;

/// Values whose JSON text is longer than this many characters are cut.
pub(crate) const SHOWN_CHARS: usize = 40;

/// The JSON text of `value` as a refusal quotes it: exact when short; otherwise its first
/// characters, an ellipsis and, for a string, its length in characters (`"aaaa…" (5000
/// characters)`). The result is bounded (under 100 bytes) whatever the input.
pub(crate) fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => {
            let count = s.chars().count();
            if count <= SHOWN_CHARS {
                return json_text(value);
            }
            let prefix: String = s.chars().take(SHOWN_CHARS - 8).collect();
            let quoted = json_text(&Value::String(prefix));
            format!("{}…\" ({count} characters)", &quoted[..quoted.len() - 1])
        }
        Value::Array(_) | Value::Object(_) => {
            let mut out = Bounded { buf: Vec::new(), limit: SHOWN_CHARS * 4 };
            let complete = serde_json::to_writer(&mut out, value).is_ok();
            let text = String::from_utf8_lossy(&out.buf).into_owned();
            if complete && text.chars().count() <= SHOWN_CHARS {
                return text;
            }
            let prefix: String = text.chars().take(SHOWN_CHARS - 8).collect();
            let what = match value {
                Value::Object(o) => plural(o.len(), "key"),
                Value::Array(a) => plural(a.len(), "item"),
                _ => String::new(),
            };
            format!("{prefix}… (cut; {what})")
        }
        // A whole number too large for 64 bits arrives as a float: show all its digits, not
        // an exponent (`18446744073709551616`, not `1.8446744073709552e19`).
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() >= 1e15 && f.abs() < 1e30) => {
            let f = n.as_f64().unwrap_or_default();
            exact_digits(f).unwrap_or_else(|| format!("{f:.0}"))
        }
        _ => json_text(value),
    }
}

std::thread_local! {
    /// Integer literals of the arguments being read that do not fit 64 bits, as sent.
    static EXACT: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` (a tool's synchronous argument reading) with `digits` available to [`shown`].
pub(crate) fn with_exact_digits<R>(digits: Vec<String>, f: impl FnOnce() -> R) -> R {
    if digits.is_empty() {
        return f();
    }
    let previous = EXACT.with(|e| e.replace(digits));
    let out = f();
    EXACT.with(|e| e.replace(previous));
    out
}

/// The digits sent for the float `f`, when `f` was read from an integer literal past 64 bits.
fn exact_digits(f: f64) -> Option<String> {
    EXACT.with(|e| e.borrow().iter().find(|d| d.parse::<f64>().ok() == Some(f)).cloned())
}

/// Calls `f` with each byte of JSON text that is outside strings (an opening `"` included, so a
/// token before a string ends there), with its index; stops when `f` returns true, and says
/// whether it did. Works on malformed text too: it only scans.
pub(crate) fn scan_outside_strings(json: &[u8], mut f: impl FnMut(usize, u8) -> bool) -> bool {
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

/// Integer literals in JSON text (outside strings) that fit neither `i64` nor `u64`: a JSON
/// parser reads them as floats and loses digits.
pub(crate) fn long_integers(json: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut take = |from: usize, to: usize| {
        let token = &json[from..to];
        let integer = token.trim_start_matches('-').bytes().all(|c| c.is_ascii_digit());
        if integer
            && token.len() >= 19
            && token.parse::<i64>().is_err()
            && token.parse::<u64>().is_err()
            && out.len() < 16
        {
            out.push(token.to_owned());
        }
    };
    scan_outside_strings(json.as_bytes(), |i, b| {
        let in_number = b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E');
        match (start, in_number) {
            (None, true) if b == b'-' || b.is_ascii_digit() => start = Some(i),
            (Some(from), false) => {
                take(from, i);
                start = None;
            }
            _ => {}
        }
        false
    });
    if let Some(from) = start {
        take(from, json.len());
    }
    out
}

fn plural(n: usize, unit: &str) -> String {
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

/// The closest of `candidates` to `given`, if close enough to be worth offering: a case-only
/// difference always is; otherwise Jaro-Winkler similarity of at least 0.8 (strsim).
pub(crate) fn closest<'c>(given: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let lower = given.to_lowercase();
    let mut best: Option<(&str, f64)> = None;
    for c in candidates {
        if c.to_lowercase() == lower {
            return Some(c);
        }
        let score = strsim::jaro_winkler(&lower, &c.to_lowercase());
        if score >= 0.8 && best.is_none_or(|(_, s)| score > s) {
            best = Some((c, score));
        }
    }
    best.map(|(c, _)| c)
}

/// `"a", "b", "c"` — each quoted as JSON.
pub(crate) fn quoted_list<'s>(items: impl IntoIterator<Item = &'s str>) -> String {
    let mut out = String::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&json_text(&Value::String(item.to_owned())));
    }
    out
}

/// Formats a float the way a person writes it: `0`, `0.5`, `1e300`.
pub(crate) fn number(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 { format!("{}", f as i64) } else { format!("{f}") }
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

    #[test]
    fn suggestions() {
        assert_eq!(closest("databse", ["query_hash", "database", "application"]), Some("database"));
        assert_eq!(closest("Country", ["query", "country"]), Some("country"));
        assert_eq!(closest("topN", ["hours_back", "group_by", "top"]), Some("top"));
        assert_eq!(closest("zzz", ["hours_back", "group_by", "top"]), None);
    }
}
