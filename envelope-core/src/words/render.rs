//! How a rejected value is shown in a refusal: as JSON, cut when long.

use serde_json::Value;

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
fn number_as_sent<'n>(value: &Value, numbers: Numbers<'n>) -> Option<&'n str> {
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

/// Calls `f` with each byte of JSON text that is outside strings (an opening `"` included, so a
/// token before a string ends there), with its index; stops when `f` returns true, and says
/// whether it did. Works on malformed text too: it only scans.
#[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
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

/// How many characters longer than the longest candidate a name may be and still be compared
/// with the candidates: past that it is close to none, and no edit distance is computed.
pub(crate) const CLOSEST_MARGIN: usize = 16;

/// The closest of `candidates` to `given`, if close enough to be worth offering: a case-only
/// difference always is; otherwise one edit away by optimal string alignment (a letter added,
/// dropped, changed, or two neighbours swapped: `tpo` for `top`), or a Jaro-Winkler similarity
/// of at least 0.8 (both from strsim). Fewer edits win, then the higher similarity.
///
/// `given` is the caller's text, of any length; the measures cost time in the product of the
/// two lengths. A `given` longer than the longest candidate by more than [`CLOSEST_MARGIN`]
/// characters is offered nothing, after a look at its length only: the cost is then bounded by
/// the candidates, whatever was sent.
pub(crate) fn closest<'c>(given: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let candidates: Vec<&'c str> = candidates.into_iter().collect();
    let longest = candidates.iter().map(|c| c.chars().count()).max()?;
    // A character is at most 4 bytes: past this many bytes, `given` is past the bound in
    // characters too, and is not even counted.
    let bound = longest + CLOSEST_MARGIN;
    if given.len() > 4 * bound || given.chars().count() > bound {
        return None;
    }
    let lower = lowercase(given);
    let given_chars = lower.chars().count();
    let mut best: Option<(&str, usize, f64)> = None;
    for c in candidates {
        let c_lower = lowercase(c);
        if c_lower == lower {
            return Some(c);
        }
        let score = strsim::jaro_winkler(&lower, &c_lower);
        // Two names whose lengths differ by two or more are two or more edits apart: with a
        // low similarity too, the name is not offered, and the edits need no counting.
        if score < 0.8 && given_chars.abs_diff(c_lower.chars().count()) > 1 {
            continue;
        }
        let edits = strsim::osa_distance(&lower, &c_lower);
        if !(one_edit_apart(&lower, &c_lower, edits) || score >= 0.8) {
            continue;
        }
        if best.is_none_or(|(_, e, s)| edits < e || (edits == e && score > s)) {
            best = Some((c, edits, score));
        }
    }
    best.map(|(c, _, _)| c)
}

/// `s` in lower case, borrowed when it has no upper-case letter.
fn lowercase(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(char::is_uppercase) {
        std::borrow::Cow::Owned(s.to_lowercase())
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// One edit between names of three or more characters: below that, one edit is most of the name
/// (`x` is one edit from every other one-letter name).
fn one_edit_apart(a: &str, b: &str, edits: usize) -> bool {
    edits == 1 && a.chars().count() >= 3 && b.chars().count() >= 3
}

/// `"a", "b", "c"` — each quoted as JSON.
pub(crate) fn quoted_list<'s>(items: impl IntoIterator<Item = &'s str>) -> String {
    let mut out = String::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if item.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
            out.push_str(&json_text(&Value::String(item.to_owned())));
        } else {
            // Nothing to escape: the JSON text is the item in quotes.
            out.push('"');
            out.push_str(item);
            out.push('"');
        }
    }
    out
}

/// Formats a float the way a person writes it, in its shortest form that reads back as the same
/// float: `0`, `0.5`, `1e300`, `5e-324` (never a long decimal expansion).
pub(crate) fn number(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        return format!("{}", f as i64);
    }
    let plain = format!("{f}");
    let exp = format!("{f:e}");
    // `{}` gives the shortest digits but never an exponent; `{:e}` always one. Take the plain
    // form unless the exponent saves a few characters (`0.0001`, but `1e-7`).
    if exp.len() + 2 < plain.len() { exp } else { plain }
}

/// A delay in words, rounded up: `42 seconds` (under 2 minutes), `15 minutes` (under 2 hours),
/// `24 hours`.
pub(crate) fn in_words(d: std::time::Duration) -> String {
    let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    let (n, unit) = match secs {
        s if s < 120 => (s.max(1), "second"),
        s if s < 2 * 3600 => (s.div_ceil(60), "minute"),
        s => (s.div_ceil(3600), "hour"),
    };
    if n == 1 { format!("1 {unit}") } else { format!("{n} {unit}s") }
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
        // A swapped pair of letters is one edit (optimal string alignment).
        assert_eq!(closest("tpo", ["hours_back", "group_by", "top"]), Some("top"));
        assert_eq!(closest("gorup_by", ["hours_back", "group_by", "top"]), Some("group_by"));
        assert_eq!(closest("hours_bakc", ["hours_back", "group_by", "top"]), Some("hours_back"));
        assert_eq!(closest("topp", ["hours_back", "group_by", "top"]), Some("top"));
        assert_eq!(closest("hoursback", ["hours_back", "group_by", "top"]), Some("hours_back"));
        assert_eq!(closest("dtaabase", ["query_hash", "database", "application"]), Some("database"));
        // Two swaps are two edits: too far for a three-letter name.
        assert_eq!(closest("opt", ["hours_back", "group_by", "top"]), None);
        // One-letter names are not offered for one edit.
        assert_eq!(closest("x", ["y", "zeta"]), None);
        // A name that starts with a candidate is offered it, up to the margin past the longest.
        assert_eq!(closest("hours_back_in_hours", ["hours_back", "top"]), Some("hours_back"));
        let long = format!("hours_back{}", "x".repeat(CLOSEST_MARGIN));
        assert_eq!(closest(&long, ["hours_back", "top"]), Some("hours_back"));
        assert_eq!(closest(&format!("{long}x"), ["hours_back", "top"]), None);
        assert_eq!(closest("anything", std::iter::empty()), None);
    }

    /// The unknown tool name of the issue: 4 MB. The edit distance once took 0.76 s (release)
    /// for it; now its length alone is looked at.
    #[test]
    fn a_huge_name_is_close_to_nothing_and_cheap() {
        let names = ["get_top_queries", "search_analytics", "create_note"];
        for given in ["g".repeat(4_000_000), format!("get_top_queries{}", "s".repeat(4_000_000)), "é".repeat(1_000_000)]
        {
            let started = std::time::Instant::now();
            assert_eq!(closest(&given, names), None);
            let shown = shown_str(&given);
            assert!(
                shown.len() < 100 && shown.ends_with(&format!(" ({} characters)", given.chars().count())),
                "{shown}"
            );
            // Generous for a debug build on a loaded machine.
            assert!(started.elapsed() < std::time::Duration::from_millis(500), "{:?}", started.elapsed());
        }
        assert_eq!(shown_str("databse"), r#""databse""#);
        assert_eq!(shown_str(&"ü".repeat(40)), format!("\"{}\"", "ü".repeat(40)));
    }

    #[test]
    fn numbers_in_their_shortest_exact_form() {
        assert_eq!(number(0.0), "0");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(1e300), "1e300");
        assert_eq!(number(5e-324), "5e-324");
        assert_eq!(number(1e-7), "1e-7");
        assert_eq!(number(0.0001), "0.0001");
        assert_eq!(number(-2.5e-10), "-2.5e-10");
        assert_eq!(number(123456.789), "123456.789");
        for f in [5e-324, 1e-7, 0.1, 1.7976931348623157e308, 2.2250738585072014e-308] {
            assert_eq!(number(f).parse::<f64>().unwrap(), f, "{f} reads back");
            assert!(number(f).len() <= 24, "{} is short", number(f));
        }
    }
}
