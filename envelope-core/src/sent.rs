//! The arguments as the caller wrote them: what a parsed `serde_json::Value` no longer shows. A
//! key sent twice in one object (a parser keeps one of the two values silently, RFC 8259 §4
//! leaves the outcome undefined), and the characters of each number (`1e3`, which a `Value`
//! holds as the double 1000.0).
//!
//! Read from the JSON text on the raw-text paths (`Tool::call_json`, and the MCP server, which
//! hands it the argument text), after `serde_json` has accepted the text: the scan assumes
//! well-formed JSON, and on anything else stops early without a panic.

use std::borrow::Cow;

use serde_json::Value;

use crate::cx::Path;

/// A key sent more than once in one object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Duplicate {
    /// The path of the value the key names (`qty`, `order.qty`, `items[0].qty`).
    pub(crate) path: String,
    /// The top-level parameter it is in (the key itself at the top level).
    pub(crate) parameter: String,
    /// The key, decoded.
    pub(crate) key: String,
    /// The JSON text of each value sent under the key, in order.
    pub(crate) values: Vec<String>,
}

/// What one scan of the argument text finds.
#[derive(Debug, Default)]
pub(crate) struct Sent<'t> {
    /// Keys sent twice, in the order their second occurrence appears (at most [`MAX_DUPLICATES`]).
    pub(crate) duplicates: Vec<Duplicate>,
    /// Every number token, in document order.
    pub(crate) numbers: Vec<&'t str>,
}

/// How many duplicated keys are described; more are unlikely from a model and cost words.
const MAX_DUPLICATES: usize = 8;

/// Objects nested deeper than this are skipped, not checked (serde_json refuses past 128 levels).
const MAX_DEPTH: usize = 128;

/// Scans `text` (JSON that `serde_json` accepted) for duplicate keys and number tokens.
pub(crate) fn scan(text: &str) -> Sent<'_> {
    let mut s = Scanner { text, b: text.as_bytes(), i: 0, out: Sent::default() };
    s.value(None, 0);
    s.out
}

struct Scanner<'t> {
    text: &'t str,
    b: &'t [u8],
    i: usize,
    out: Sent<'t>,
}

impl<'t> Scanner<'t> {
    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// Reads one value at `path` (`None`: the arguments object itself); `None` on malformed text.
    fn value(&mut self, path: Option<&Path<'_>>, depth: usize) -> Option<()> {
        self.ws();
        match *self.b.get(self.i)? {
            b'{' | b'[' if depth >= MAX_DEPTH => self.skip_nested(),
            b'{' => self.object(path, depth),
            b'[' => self.array(path, depth),
            b'"' => self.string().map(drop),
            _ => {
                let start = self.i;
                while self
                    .b
                    .get(self.i)
                    .is_some_and(|c| !matches!(c, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'))
                {
                    self.i += 1;
                }
                let token = self.text.get(start..self.i)?;
                if token.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
                    self.out.numbers.push(token);
                }
                Some(())
            }
        }
    }

    /// The byte span of a string token starting at `self.i`, which is left after it.
    fn string(&mut self) -> Option<(usize, usize)> {
        let start = self.i;
        self.i += 1;
        loop {
            match *self.b.get(self.i)? {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return Some((start, self.i));
                }
                _ => self.i += 1,
            }
        }
    }

    fn object(&mut self, path: Option<&Path<'_>>, depth: usize) -> Option<()> {
        self.i += 1;
        // (key, value's text) in order; keys compared after decoding escapes (`"q\u0074y"` is `qty`).
        let mut seen: Vec<(Cow<'t, str>, &'t str)> = Vec::new();
        loop {
            self.ws();
            match *self.b.get(self.i)? {
                b'}' => {
                    self.i += 1;
                    break;
                }
                b',' => {
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            let (ks, ke) = self.string()?;
            let raw_key = self.text.get(ks..ke)?;
            let key = if raw_key.contains('\\') {
                Cow::Owned(serde_json::from_str::<String>(raw_key).ok()?)
            } else {
                Cow::Borrowed(&raw_key[1..raw_key.len() - 1])
            };
            self.ws();
            if self.b.get(self.i) != Some(&b':') {
                return None;
            }
            self.i += 1;
            self.ws();
            let vs = self.i;
            {
                let child = match path {
                    Some(parent) => Path::Field(parent, &key),
                    None => Path::Param(&key),
                };
                self.value(Some(&child), depth + 1)?;
            }
            let value = self.text.get(vs..self.i)?.trim_end();
            seen.push((key, value));
        }
        self.record_duplicates(path, &seen);
        Some(())
    }

    fn record_duplicates(&mut self, path: Option<&Path<'_>>, seen: &[(Cow<'t, str>, &'t str)]) {
        if !has_repeats(seen) {
            return;
        }
        for (i, (key, _)) in seen.iter().enumerate() {
            let earlier = seen[..i].iter().any(|(k, _)| k == key);
            let later = seen[i + 1..].iter().any(|(k, _)| k == key);
            if earlier || !later || self.out.duplicates.len() >= MAX_DUPLICATES {
                continue;
            }
            let values = seen.iter().filter(|(k, _)| k == key).map(|(_, v)| (*v).to_owned()).collect();
            let here = match path {
                Some(parent) => Path::Field(parent, key),
                None => Path::Param(key),
            };
            self.out.duplicates.push(Duplicate {
                path: here.to_string(),
                parameter: here.parameter().to_owned(),
                key: key.to_string(),
                values,
            });
        }
    }

    fn array(&mut self, path: Option<&Path<'_>>, depth: usize) -> Option<()> {
        self.i += 1;
        let mut index = 0;
        loop {
            self.ws();
            match *self.b.get(self.i)? {
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                b',' => {
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            match path {
                Some(parent) => self.value(Some(&Path::Index(parent, index)), depth + 1)?,
                // An array as the arguments themselves: refused whole, its items are not parameters.
                None => self.value(Some(&Path::Param("arguments")), depth + 1)?,
            }
            index += 1;
        }
    }

    /// Skips a container too deep to check, without recursion (its numbers are not collected,
    /// so the pairing with the parsed value is not attempted: see [`numbers_as_sent`]).
    fn skip_nested(&mut self) -> Option<()> {
        let mut open = 0usize;
        loop {
            match *self.b.get(self.i)? {
                b'"' => {
                    self.string()?;
                    continue;
                }
                b'{' | b'[' => open += 1,
                b'}' | b']' => {
                    open -= 1;
                    if open == 0 {
                        self.i += 1;
                        // A marker that the token list is incomplete.
                        self.out.numbers.push("");
                        return Some(());
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
    }
}

/// Whether any key repeats: pairwise for the few keys of a usual object, by sorting for many.
fn has_repeats(seen: &[(Cow<'_, str>, &str)]) -> bool {
    if seen.len() <= 16 {
        return seen.iter().enumerate().any(|(i, (k, _))| seen[..i].iter().any(|(e, _)| e == k));
    }
    let mut keys: Vec<&str> = seen.iter().map(|(k, _)| &**k).collect();
    keys.sort_unstable();
    keys.windows(2).any(|w| w[0] == w[1])
}

/// The numbers of `value` (parsed from the text `numbers` came from, with no key sent twice)
/// whose characters as sent differ from how `serde_json` writes them back (`1e3`, `1.50`,
/// `18446744073709551616`): each by the address of its node in `value`, with its text. Empty
/// when the two cannot be paired one to one (a container skipped as too deep).
pub(crate) fn numbers_as_sent<'t>(numbers: &[&'t str], value: &Value) -> Vec<(usize, &'t str)> {
    let mut nodes = Vec::with_capacity(numbers.len());
    collect_numbers(value, &mut nodes);
    if nodes.len() != numbers.len() || numbers.contains(&"") {
        return Vec::new();
    }
    let mut out: Vec<(usize, &'t str)> = nodes
        .iter()
        .zip(numbers)
        // An integer in plain digits is written back as sent: no need to compare.
        .filter(|(node, token)| !((node.is_i64() || node.is_u64()) && plain_integer(token)))
        .filter(|(node, token)| serde_json::to_string(node).is_ok_and(|written| written != **token))
        .map(|(node, token)| (std::ptr::from_ref::<Value>(node) as usize, *token))
        .collect();
    out.sort_unstable_by_key(|(addr, _)| *addr);
    out
}

/// `48`, `-3`: no fraction, no exponent, no leading zero that serde_json would drop.
fn plain_integer(token: &str) -> bool {
    let digits = token.strip_prefix('-').unwrap_or(token);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'))
}

/// Every number node of `v`, in document order (objects keep their order: `preserve_order`).
fn collect_numbers<'v>(v: &'v Value, out: &mut Vec<&'v Value>) {
    match v {
        Value::Number(_) => out.push(v),
        Value::Array(items) => items.iter().for_each(|i| collect_numbers(i, out)),
        Value::Object(map) => map.values().for_each(|i| collect_numbers(i, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_at_every_level() {
        let sent =
            scan(r#"{"qty": -1, "qty": 5, "order": {"n": 1, "n" : "two", "n": [3]}, "tags": [{"a": 1, "a": 2}]}"#);
        let found: Vec<(&str, &str, Vec<&str>)> = sent
            .duplicates
            .iter()
            .map(|d| (d.path.as_str(), d.parameter.as_str(), d.values.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            found,
            vec![
                ("order.n", "order", vec!["1", "\"two\"", "[3]"]),
                ("tags[0].a", "tags", vec!["1", "2"]),
                ("qty", "qty", vec!["-1", "5"]),
            ]
        );
    }

    #[test]
    fn duplicates_among_many_keys() {
        let mut members: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
        assert!(scan(&format!("{{{}}}", members.join(", "))).duplicates.is_empty());
        members.push("\"k7\": 70".to_owned());
        let text = format!("{{{}}}", members.join(", "));
        let sent = scan(&text);
        assert_eq!(sent.duplicates.len(), 1);
        assert_eq!(
            (sent.duplicates[0].key.as_str(), sent.duplicates[0].values.clone()),
            ("k7", vec!["7".to_owned(), "70".to_owned()])
        );
    }

    #[test]
    fn escaped_keys_are_the_same_key() {
        let sent = scan(r#"{"qty": 1, "q\u0074y": 2}"#);
        assert_eq!(sent.duplicates.len(), 1);
        assert_eq!(sent.duplicates[0].key, "qty");
    }

    #[test]
    fn no_duplicates_in_strings_or_distinct_keys() {
        let sent = scan(r#"{"a": "{\"b\": 1, \"b\": 2}", "b": {"a": 1}}"#);
        assert!(sent.duplicates.is_empty());
    }

    #[test]
    fn numbers_paired_with_their_text() {
        let text = r#"{"hours": 1e3, "n": 5, "xs": [1.50, -0E0, 2], "big": 18446744073709551616}"#;
        let value: Value = serde_json::from_str(text).unwrap();
        let sent = scan(text);
        let table = numbers_as_sent(&sent.numbers, &value);
        let texts: Vec<&str> = table.iter().map(|(_, t)| &**t).collect();
        let mut expected = vec!["1e3", "1.50", "-0E0", "18446744073709551616"];
        expected.sort_unstable();
        let mut texts = texts;
        texts.sort_unstable();
        assert_eq!(texts, expected);
        let hours = std::ptr::from_ref(&value["hours"]) as usize;
        assert!(table.iter().any(|(a, t)| *a == hours && &**t == "1e3"));
    }

    #[test]
    fn malformed_text_stops_without_panic() {
        for text in ["{", "{\"a\"", "{\"a\":", "[1,", "\"abc", "{\"a\" 1}", "{\"\\", ""] {
            let _ = scan(text);
        }
    }
}
