//! The arguments as the caller wrote them: what a parsed `serde_json::Value` no longer shows. A
//! key sent twice in one object (a parser keeps one of the two values silently, RFC 8259 §4
//! leaves the outcome undefined), and the characters of each number (`1e3`, which a `Value`
//! holds as the double 1000.0).
//!
//! Read from the JSON text on the raw-text paths (`Tool::call_json`, and the MCP server, which
//! hands it the argument text), before anything is built from it, so that an object of more
//! than [`MAX_KEYS`] members is refused before it costs more: the scan reads well-formed JSON
//! exactly, and on anything else stops early without a panic (its duplicates and numbers are
//! then not used: `serde_json` refuses the text).
//!
//! The scan runs on the async worker that reads the call, on text a caller chose: it costs time
//! linear in the text's length, however many keys an object has or repeats (a key is counted
//! in a hash table, never compared with every other key), and past [`MAX_KEYS`] members an
//! object's keys are only counted, in one tight loop.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

/// Where a value sits in the text sent, named by the keys sent (as [`ArgPath`] names declared
/// parameters): `qty`, `order.qty`, `items[0].qty`.
///
/// [`ArgPath`]: crate::read::path::ArgPath
#[derive(Clone, Copy, Debug)]
enum At<'a> {
    /// A key of the arguments object.
    Key(&'a str),
    /// `parent[i]`.
    Index(&'a At<'a>, usize),
    /// `parent.field`.
    Field(&'a At<'a>, &'a str),
}

impl At<'_> {
    /// The same place, owned: the top-level key and the segments below it.
    fn location(&self) -> Location {
        match self {
            At::Key(k) => Location { parameter: (*k).to_owned(), segments: Vec::new() },
            At::Index(parent, i) => {
                let mut location = parent.location();
                location.segments.push(Segment::Index(*i));
                location
            }
            At::Field(parent, name) => {
                let mut location = parent.location();
                location.segments.push(Segment::Key((*name).to_owned()));
                location
            }
        }
    }
}

/// One segment of a path from a value to a value inside it, as sent: an array's index or an object's key. The
/// scan does not know which keys are a `#[derive(Object)]`'s fields and which a map's keys; the
/// refusal, which knows the declared types, writes each ([`crate::read::args`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Segment {
    Index(usize),
    Key(String),
}

/// Where a value is in the text sent: the key of the arguments object it is under, and the
/// segments below it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Location {
    pub(crate) parameter: String,
    pub(crate) segments: Vec<Segment>,
}

/// Written as if every key were a field (`order.n`, `tags[0].a`): the place without the types.
impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.parameter)?;
        for segment in &self.segments {
            match segment {
                Segment::Index(i) => write!(f, "[{i}]")?,
                Segment::Key(k) => write!(f, ".{k}")?,
            }
        }
        Ok(())
    }
}

/// A key sent more than once in one object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Duplicate {
    /// The value the key names (`qty`, `order.qty`, `items[0].qty`): its parameter is the key
    /// itself at the top level.
    pub(crate) at: Location,
    /// The key, decoded.
    pub(crate) key: String,
    /// The JSON text of the first values sent under the key, in order (at most
    /// [`SHOWN_VALUES`]).
    pub(crate) values: Vec<String>,
    /// How many times the key was sent (2 or more).
    pub(crate) times: usize,
}

/// An object of more than [`MAX_KEYS`] members: not read further.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Crowded<'t> {
    /// Where the object is (`filter`, `rows[3].meta`); `None` for the arguments object itself.
    pub(crate) at: Option<Location>,
    /// How many members it has, a key sent twice counted twice.
    pub(crate) keys: usize,
    /// Its JSON text as sent.
    pub(crate) text: &'t str,
}

/// What one scan of the argument text finds.
#[derive(Debug, Default)]
pub(crate) struct Scan<'t> {
    /// Keys sent twice, object by object in the order the objects end, and within one object
    /// in the order of their first occurrence (at most [`MAX_DUPLICATES`]).
    pub(crate) duplicates: Vec<Duplicate>,
    /// Objects of more than [`MAX_KEYS`] members, in the order they end (at most
    /// [`MAX_DUPLICATES`]); their keys are not checked for duplicates.
    pub(crate) crowded: Vec<Crowded<'t>>,
    /// Every number token, in document order.
    pub(crate) numbers: Vec<&'t str>,
}

/// How many duplicated keys (and crowded objects) are described; more are unlikely from a model
/// and cost words.
const MAX_DUPLICATES: usize = 8;

/// How many of the values sent under one duplicated key are kept to be quoted; the rest are
/// counted.
pub(crate) const SHOWN_VALUES: usize = 4;

/// The most members one object of the arguments may have, at any depth: 4096. The arguments
/// object of a tool has one key per parameter, and a `serde_json::Value` parameter holding a
/// map of thousands of entries is rare in a tool call; an object past this is refused whole
/// (`crate::read::args::too_many_keys`) and its keys are not compared with each other.
pub(crate) const MAX_KEYS: usize = 4096;

/// Objects nested deeper than this are skipped, not checked (serde_json refuses past 128 levels).
const MAX_DEPTH: usize = 128;

/// Objects of at most this many members are checked for a repeated key pairwise, without a hash
/// table; larger ones by counting each key in one.
const PAIRWISE_KEYS: usize = 16;

/// Scans `text` (JSON text, well-formed or not) for duplicate keys, crowded objects and number
/// tokens, in time linear in its length.
pub(crate) fn scan(text: &str) -> Scan<'_> {
    let mut s = Scanner { text, b: text.as_bytes(), i: 0, out: Scan::default() };
    s.value(None, 0);
    s.out
}

struct Scanner<'t> {
    text: &'t str,
    b: &'t [u8],
    i: usize,
    out: Scan<'t>,
}

impl<'t> Scanner<'t> {
    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// Reads one value at `path` (`None`: the arguments object itself); `None` on malformed text.
    fn value(&mut self, path: Option<&At<'_>>, depth: usize) -> Option<()> {
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
                // No token here (`[}`, `{"a":]`): malformed, and a loop that read nothing would
                // read it again forever.
                if self.i == start {
                    return None;
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

    fn object(&mut self, path: Option<&At<'_>>, depth: usize) -> Option<()> {
        let start = self.i;
        self.i += 1;
        // (key, value's text) in order; keys compared after decoding escapes (`"q\u0074y"` is
        // `qty`). Only the first `MAX_KEYS` are kept: past them the object is refused whole.
        let mut seen: Vec<(Cow<'t, str>, &'t str)> = Vec::new();
        let mut members = 0usize;
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
            // A member's name, or malformed text (the scan reads any text).
            if self.b[self.i] != b'"' {
                return None;
            }
            let (ks, ke) = self.string()?;
            let raw_key = self.text.get(ks..ke)?;
            // A key whose escapes name no character (`"\\ud800"`) is compared as written: the
            // scan still sees it sent twice.
            let key = if raw_key.contains('\\') {
                serde_json::from_str::<String>(raw_key)
                    .map_or_else(|_| Cow::Borrowed(&raw_key[1..raw_key.len() - 1]), Cow::Owned)
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
                    Some(parent) => At::Field(parent, &key),
                    None => At::Key(&key),
                };
                self.value(Some(&child), depth + 1)?;
            }
            let value = self.text.get(vs..self.i)?.trim_end();
            members += 1;
            if members <= MAX_KEYS {
                seen.push((key, value));
                continue;
            }
            // Past the limit: the rest is only counted, in one tight loop.
            members += self.count_members()?;
            if self.out.crowded.len() < MAX_DUPLICATES {
                self.out.crowded.push(Crowded {
                    at: path.map(At::location),
                    keys: members,
                    text: self.text.get(start..self.i)?,
                });
            }
            return Some(());
        }
        self.record_duplicates(path, &seen);
        Some(())
    }

    /// The members left in the object being read (`self.i` just after one of its values), each
    /// counted by its `:`, skipping what they hold; `self.i` is left past the object's `}`.
    fn count_members(&mut self) -> Option<usize> {
        let (mut depth, mut members) = (0usize, 0usize);
        loop {
            match *self.b.get(self.i)? {
                b'"' => {
                    self.string()?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth == 0 => {
                    self.i += 1;
                    return Some(members);
                }
                b'}' | b']' => depth -= 1,
                b':' if depth == 0 => members += 1,
                _ => {}
            }
            self.i += 1;
        }
    }

    /// Records the keys of one object sent more than once, in linear time: each key is counted
    /// once in a hash table (std's, keyed at random per process, so chosen keys cannot make it
    /// slow), then each repeated key's values are gathered in one pass.
    fn record_duplicates(&mut self, path: Option<&At<'_>>, seen: &[(Cow<'t, str>, &'t str)]) {
        if self.out.duplicates.len() >= MAX_DUPLICATES {
            return;
        }
        if seen.len() <= PAIRWISE_KEYS
            && !seen.iter().enumerate().any(|(i, (k, _))| seen[..i].iter().any(|(e, _)| e == k))
        {
            return;
        }
        // For each key: the index of its first occurrence, and how many times it was sent.
        let mut counts: HashMap<&str, (usize, usize)> = HashMap::with_capacity(seen.len());
        for (i, (key, _)) in seen.iter().enumerate() {
            counts.entry(&**key).or_insert((i, 0)).1 += 1;
        }
        for (i, (key, _)) in seen.iter().enumerate() {
            if self.out.duplicates.len() >= MAX_DUPLICATES {
                break;
            }
            let Some(&(first, times)) = counts.get(&**key) else { continue };
            if first != i || times < 2 {
                continue;
            }
            let values =
                seen[i..].iter().filter(|(k, _)| k == key).take(SHOWN_VALUES).map(|(_, v)| (*v).to_owned()).collect();
            let here = match path {
                Some(parent) => At::Field(parent, key),
                None => At::Key(key),
            };
            self.out.duplicates.push(Duplicate { at: here.location(), key: key.to_string(), values, times });
        }
    }

    fn array(&mut self, path: Option<&At<'_>>, depth: usize) -> Option<()> {
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
                Some(parent) => self.value(Some(&At::Index(parent, index)), depth + 1)?,
                // An array as the arguments themselves: refused whole, its items are not parameters.
                None => self.value(Some(&At::Key("arguments")), depth + 1)?,
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
        let found: Vec<(String, &str, Vec<&str>)> = sent
            .duplicates
            .iter()
            .map(|d| (d.at.to_string(), d.at.parameter.as_str(), d.values.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            found,
            vec![
                ("order.n".to_owned(), "order", vec!["1", "\"two\"", "[3]"]),
                ("tags[0].a".to_owned(), "tags", vec!["1", "2"]),
                ("qty".to_owned(), "qty", vec!["-1", "5"]),
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
        assert_eq!(sent.duplicates[0].times, 2);
    }

    #[test]
    fn a_key_sent_many_times_keeps_its_first_values_and_its_count() {
        let mut members: Vec<String> = (0..1000).map(|i| format!("\"a\": {i}")).collect();
        members.push(r#""b": 1, "c": 2, "b": 3"#.to_owned());
        let text = format!("{{{}}}", members.join(","));
        let sent = scan(&text);
        let found: Vec<(&str, usize, Vec<&str>)> = sent
            .duplicates
            .iter()
            .map(|d| (d.key.as_str(), d.times, d.values.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(found, vec![("a", 1000, vec!["0", "1", "2", "3"]), ("b", 2, vec!["1", "3"])]);
    }

    /// The issue's input, at the limit and past it: many keys, the first sent again last. The
    /// old pairwise comparison took seconds on 32,000 keys; the count is linear.
    #[test]
    fn many_keys_one_repeated_are_counted_in_linear_time() {
        let object = |n: usize| {
            let mut text = String::from(r#"{"hours_back":1,"group_by":"database""#);
            for i in 0..n {
                text.push_str(&format!(",\"k{i:06}\":1"));
            }
            text.push_str(",\"k000000\":2}");
            text
        };
        let text = object(MAX_KEYS - 3);
        let started = std::time::Instant::now();
        let sent = scan(&text);
        assert!(sent.crowded.is_empty());
        assert_eq!(sent.duplicates.len(), 1);
        assert_eq!((sent.duplicates[0].key.as_str(), sent.duplicates[0].times), ("k000000", 2));
        assert_eq!(sent.duplicates[0].values, ["1", "2"]);

        let text = object(64_000);
        let sent = scan(&text);
        assert!(sent.duplicates.is_empty(), "a crowded object's keys are not compared");
        assert_eq!(sent.crowded.len(), 1);
        let crowded = &sent.crowded[0];
        assert_eq!((&crowded.at, crowded.keys), (&None, 64_003));
        assert_eq!(crowded.text, text);
        // Generous for a debug build on a loaded machine; quadratic work took seconds in release.
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(1), "{took:?}");
    }

    #[test]
    fn a_crowded_object_is_found_at_its_path() {
        let members: Vec<String> = (0..=MAX_KEYS).map(|i| format!("\"m{i}\":{i}")).collect();
        let text = format!(r#"{{"rows": [{{"x": 1}}, {{"meta": {{{}}}}}], "n": 1, "n": 2}}"#, members.join(","));
        let sent = scan(&text);
        assert_eq!(sent.crowded.len(), 1);
        let crowded = &sent.crowded[0];
        let at = crowded.at.as_ref().unwrap();
        assert_eq!((at.to_string().as_str(), at.parameter.as_str()), ("rows[1].meta", "rows"));
        assert_eq!(crowded.keys, MAX_KEYS + 1);
        assert!(
            crowded.text.starts_with(r#"{"m0":0,"#) && crowded.text.ends_with(&format!("\"m{MAX_KEYS}\":{MAX_KEYS}}}"))
        );
        // The other objects are still checked.
        assert_eq!(sent.duplicates.len(), 1);
        assert_eq!(sent.duplicates[0].key, "n");
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
        for text in
            ["{", "{\"a\"", "{\"a\":", "[1,", "\"abc", "{\"a\" 1}", "{\"\\", "", "[}", "[1}", "{\"a\":[}]}", "[:]"]
        {
            let _ = scan(text);
        }
    }

    /// The scan runs before the parse, on any text: every string of up to 5 pieces of JSON's
    /// punctuation, a digit, a letter, a multi-byte letter and a space is scanned to an end
    /// (a token that read nothing once looped forever; a name not opened by `"` was cut inside a
    /// character).
    #[test]
    fn every_short_text_is_scanned_to_an_end() {
        const PIECES: [&str; 12] = ["{", "}", "[", "]", ":", ",", "\"", "\\", "1", "a", "é", " "];
        fn all(text: &mut String, left: usize) {
            let _ = scan(text);
            if left == 0 {
                return;
            }
            for piece in PIECES {
                text.push_str(piece);
                all(text, left - 1);
                text.truncate(text.len() - piece.len());
            }
        }
        all(&mut String::new(), 5);
    }
}
