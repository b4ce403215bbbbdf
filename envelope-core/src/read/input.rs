//! The arguments as the generated reader receives them: a parsed JSON object, or the JSON text
//! walked once.
//!
//! [`walk`] reads an arguments object's text in one pass, borrowing from the text: each key is
//! matched to its parameter and each value, a JSON scalar, is kept with the characters it was
//! sent with, and nothing is allocated for it (a string with an escape is decoded into its own
//! `String`). A value that is an array or an object is checked in the same pass and kept as its
//! text ([`Scalar::Raw`]), nothing built: its keys are checked for one sent twice, and each of
//! its numbers must read back as it was sent (`100`, `0.25`; not `1e3` or `0.10`), so a refusal
//! that quotes it quotes the characters sent without the general path's table of numbers. Its
//! reader reads it from that text into its Rust type (`Vec<T>` item by item with [`Sent::items`],
//! a `#[derive(Object)]` struct field by field with [`walk`] again), or builds the
//! `serde_json::Value` the general path would have parsed ([`Sent::to_value`]) where it needs
//! one. The walk declines, and the caller reads the text the general way (`serde_json::Value`
//! first, then the scan of `crate::read::sent`), for anything it does not describe exactly:
//! text that is not an object of parameters, a name that is not a parameter, a key sent twice
//! at any depth, a key with an escape inside a value, an object of more than `sent::MAX_KEYS`
//! members, nesting deeper than [`WALK_DEPTH`], a number no double holds, a number inside an
//! array or object written otherwise than serde_json writes it back. The refusals are the
//! general path's, so the two paths answer every input alike; the walk only makes the usual
//! call fast.

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

use crate::context::Context;
use crate::read::path::Numbers;
use crate::spec::ParamSpec;

/// A JSON scalar of the arguments' text, as `serde_json` reads it.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as a `Value` would hold it (an integer when it fits 64 bits, else a double).
    Number(Number),
    /// A string, borrowed from the text unless it had an escape.
    Str(Cow<'a, str>),
    /// An array or an object, checked and kept as its text ([`Sent::text`]): it is what
    /// `serde_json` would parse, without a key sent twice, and each of its numbers reads back as
    /// it was sent (see `walk`), so a refusal that quotes it needs no text beside it.
    Raw,
}

/// One value of the arguments' text: its characters as sent and the scalar they hold.
#[derive(Clone, Debug)]
pub struct Sent<'a> {
    /// The JSON text of the value, without the whitespace around it (`1e3`, `"day"`).
    pub text: &'a str,
    /// What the text holds.
    pub scalar: Scalar<'a>,
}

impl<'a> Sent<'a> {
    /// The value as a `serde_json::Value`, moved out (a borrowed string is copied; an array or
    /// object is built from its text).
    pub fn into_value(self) -> Value {
        match self.scalar {
            Scalar::Str(s) => Value::String(s.into_owned()),
            _ => self.to_value(),
        }
    }

    /// The value as a `serde_json::Value` (a string is copied; an array or object is built from
    /// its text, as `serde_json` parses it).
    pub fn to_value(&self) -> Value {
        match &self.scalar {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(*b),
            Scalar::Number(n) => Value::Number(n.clone()),
            Scalar::Str(s) => Value::String(s.as_ref().to_owned()),
            // The walk checked the text against a subset of what serde_json reads.
            Scalar::Raw => serde_json::from_str(self.text).unwrap_or_else(|_| {
                debug_assert!(false, "the walk checked this text: {}", self.text);
                Value::Null
            }),
        }
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        self.scalar == Scalar::Null
    }

    /// The string, when the value is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.scalar {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The items of an array the walk checked, each with its text, in order; `None` when the
    /// value is not an array.
    pub fn items(&self) -> Option<Items<'a>> {
        (self.scalar == Scalar::Raw && self.text.starts_with('[')).then_some(Items { text: self.text, i: 1 })
    }

    /// The members of an object the walk checked, each in the slot of its field (`slots`: one
    /// per field of `fields`, all `None`); `false` when the value is not an object, or holds a
    /// name that is not a field (its reader reads the built value then, and refuses the name).
    pub(crate) fn fields(&self, fields: &[ParamSpec], slots: &mut [Option<Sent<'a>>]) -> bool {
        self.scalar == Scalar::Raw && self.text.starts_with('{') && walk(self.text, fields, slots)
    }
}

/// The items of an array of the arguments' text that the walk checked ([`Sent::items`]).
#[derive(Clone, Debug)]
pub struct Items<'a> {
    text: &'a str,
    /// Where the next item starts, or the closing bracket.
    i: usize,
}

impl<'a> Iterator for Items<'a> {
    type Item = Sent<'a>;

    fn next(&mut self) -> Option<Sent<'a>> {
        let b = self.text.as_bytes();
        let i = skip_ws(b, self.i);
        if b.get(i).is_none_or(|&c| c == b']') {
            self.i = b.len();
            return None;
        }
        // Checked by the walk: every item reads, nested ones as text.
        let (sent, end) = match b[i] {
            b'[' | b'{' => {
                let end = skip_checked(b, i);
                (Sent { text: &self.text[i..end], scalar: Scalar::Raw }, end)
            }
            _ => scalar(self.text, i)?,
        };
        let j = skip_ws(b, end);
        self.i = if b.get(j) == Some(&b',') { j + 1 } else { j };
        Some(sent)
    }
}

/// The end of the array or object at `i` in text the walk checked: its brackets matched,
/// strings skipped whole.
fn skip_checked(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                i = string_end(b, i).map_or(b.len(), |(end, _)| end);
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// The arguments a tool's generated call function reads, and whether a sync body is to be
/// left for the caller to run (`Outcome::Later`).
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    pub(crate) source: Source<'a>,
    pub(crate) defer: bool,
    pub(crate) context: Option<&'a Context>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Source<'a> {
    /// A parsed object (`None`: no arguments), with the characters its numbers were sent with
    /// when the text is known (see [`Numbers`]).
    Value { obj: Option<&'a Map<String, Value>>, numbers: Numbers<'a> },
    /// The text, walked: each parameter's value in declared order (`None`: not sent).
    Text(&'a [Option<Sent<'a>>]),
}

impl<'a> Input<'a> {
    /// A parsed arguments object (`None`: no arguments were sent).
    pub fn object(obj: Option<&'a Map<String, Value>>) -> Self {
        Input { source: Source::Value { obj, numbers: &[] }, defer: false, context: None }
    }

    /// A parsed object whose numbers were sent as `numbers` (node address, text; sorted).
    pub(crate) fn object_as_sent(obj: Option<&'a Map<String, Value>>, numbers: Numbers<'a>) -> Self {
        Input { source: Source::Value { obj, numbers }, defer: false, context: None }
    }

    /// The walked text of the arguments (see [`walk`]).
    pub(crate) fn text(sent: &'a [Option<Sent<'a>>]) -> Self {
        Input { source: Source::Text(sent), defer: false, context: None }
    }

    /// These arguments, with a sync body left for the caller to run.
    pub(crate) fn deferring(self, defer: bool) -> Self {
        Input { defer, ..self }
    }

    /// These arguments, sent in the call `cx`.
    pub(crate) fn in_context(self, cx: &'a Context) -> Self {
        Input { context: Some(cx), ..self }
    }

    /// The call these arguments were sent in (an anonymous local call when none was given).
    pub fn context(&self) -> Context {
        self.context.cloned().unwrap_or_default()
    }

    /// Whether a sync body is left for the caller to run.
    pub fn defers_body(&self) -> bool {
        self.defer
    }

    /// The parsed object, when the arguments were parsed.
    pub fn as_object(&self) -> Option<&'a Map<String, Value>> {
        match self.source {
            Source::Value { obj, .. } => obj,
            Source::Text(_) => None,
        }
    }
}

/// Walks `text`, an arguments object, filling `slots` (one per parameter of `params`, all
/// `None`, at least `params.len()` long) with each parameter's value. `false`, with `slots` in
/// any state, when the walk declines (see the module's documentation).
///
/// Accepts a subset of RFC 8259 JSON: an object whose keys (without escapes) are parameter
/// names, each at most once, and whose values are scalars, or arrays and objects of at most
/// [`WALK_DEPTH`] levels whose keys (without escapes) are each sent once and whose numbers are
/// written as serde_json writes them; whitespace is the four bytes of RFC 8259 §2. Numbers and strings are read as `serde_json` reads them into a `Value`: an
/// integer literal that fits `u64` (or, negative, `i64`) exactly, any other number through
/// `serde_json`; a string with an escape decoded by `serde_json`. Whatever it cannot read that
/// way (`-0`, an integer past 64 bits, an invalid escape, a control character) it declines.
pub(crate) fn walk<'a>(text: &'a str, params: &[ParamSpec], slots: &mut [Option<Sent<'a>>]) -> bool {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return false;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return skip_ws(b, i + 1) == b.len();
    }
    // Keys usually come in the declared order: the parameter after the last one is tried first.
    let mut next = 0;
    loop {
        let Some((end, false)) = string_end(b, i) else { return false };
        let key = &text[i + 1..end - 1];
        let Some(index) = param_index(params, key, next) else { return false };
        next = index + 1;
        let Some(slot @ None) = slots.get_mut(index) else { return false };
        i = skip_ws(b, end);
        if b.get(i) != Some(&b':') {
            return false;
        }
        i = skip_ws(b, i + 1);
        let Some((sent, end)) = sent_value(text, i) else { return false };
        *slot = Some(sent);
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => return skip_ws(b, i + 1) == b.len(),
            _ => return false,
        }
    }
}

/// The index of the parameter named `key`, trying `next` first: clients send the keys of an
/// arguments object in the declared order (the order of `inputSchema.properties`), so the usual
/// key is found with one comparison, and an object in any other order with at most one more
/// pass than a plain search.
#[inline]
pub(crate) fn param_index(params: &[ParamSpec], key: &str, next: usize) -> Option<usize> {
    match params.get(next) {
        Some(p) if p.name == key => Some(next),
        _ => params.iter().position(|p| p.name == key),
    }
}

/// How deep the walk reads arrays and objects inside a parameter's value (the value itself is
/// level 1); deeper, it declines (serde_json reads up to 128 levels on the general path).
pub(crate) const WALK_DEPTH: usize = 32;

/// The value at `i` (a scalar, or an array or object checked and kept as its text) and the
/// index past it.
fn sent_value(text: &str, i: usize) -> Option<(Sent<'_>, usize)> {
    match text.as_bytes().get(i)? {
        b'[' | b'{' => {
            let end = checked(text, i, 1)?;
            Some((Sent { text: &text[i..end], scalar: Scalar::Raw }, end))
        }
        _ => scalar(text, i),
    }
}

/// How many keys of one object are compared with each other in place; past this, through a
/// hash set (one allocation, for a large object only).
const PAIRWISE_KEYS: usize = 16;

/// The index past the value at `i`, `depth` levels deep, when it is what serde_json parses and
/// the walk describes (see [`walk`]); `None` where the walk declines. Nothing is built: the keys
/// of an object are compared as their text (a key with an escape declines), in place for a few,
/// in a hash set for more.
fn checked(text: &str, i: usize, depth: usize) -> Option<usize> {
    let b = text.as_bytes();
    let open = *b.get(i)?;
    if !matches!(open, b'[' | b'{') {
        let (sent, end) = scalar(text, i)?;
        return match sent.scalar {
            Scalar::Number(n) if !reads_back(&n, sent.text) => None,
            _ => Some(end),
        };
    }
    if depth > WALK_DEPTH {
        return None;
    }
    let close = if open == b'[' { b']' } else { b'}' };
    let mut j = skip_ws(b, i + 1);
    let mut few: [&str; PAIRWISE_KEYS] = [""; PAIRWISE_KEYS];
    let mut many: Option<std::collections::HashSet<&str>> = None;
    let mut members = 0usize;
    if b.get(j) != Some(&close) {
        loop {
            if open == b'{' {
                let Some((end, false)) = string_end(b, j) else { return None };
                let key = &text[j + 1..end - 1];
                j = skip_ws(b, end);
                if b.get(j) != Some(&b':') || members == crate::read::sent::MAX_KEYS {
                    return None;
                }
                let fresh = match &mut many {
                    Some(seen) => seen.insert(key),
                    None if members < PAIRWISE_KEYS => {
                        let fresh = !few[..members].contains(&key);
                        few[members] = key;
                        fresh
                    }
                    None => {
                        let seen = many.insert(few.iter().copied().collect());
                        seen.insert(key)
                    }
                };
                if !fresh {
                    return None;
                }
                members += 1;
                j = checked(text, skip_ws(b, j + 1), depth + 1)?;
            } else {
                j = checked(text, j, depth + 1)?;
            }
            j = skip_ws(b, j);
            match b.get(j) {
                Some(b',') => j = skip_ws(b, j + 1),
                Some(&c) if c == close => break,
                _ => return None,
            }
        }
    }
    Some(j + 1)
}

/// Whether `n`, read from `text`, is written back by serde_json as `text` (then a refusal
/// quoting it shows what was sent without the text beside it). An integer literal the walk
/// reads as an integer always is; a double only when its shortest form is the text, and not a
/// whole double of 15 digits or more (shown with all its digits).
fn reads_back(n: &Number, text: &str) -> bool {
    let Some(f) = n.as_f64().filter(|_| n.is_f64()) else { return true };
    if f.fract() == 0.0 && f.abs() >= 1e15 {
        return false;
    }
    let mut buf = [0u8; 40];
    let mut out = &mut buf[..];
    if serde_json::to_writer(&mut out, n).is_err() {
        return false;
    }
    let written = 40 - out.len();
    &buf[..written] == text.as_bytes()
}

/// The first byte at or after `i` that is not JSON whitespace.
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The end (past the closing quote) of the string token at `i`, and whether it has an escape;
/// `None` when there is no string token there, or it holds a control character.
fn string_end(b: &[u8], i: usize) -> Option<(usize, bool)> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    let mut escaped = false;
    loop {
        // The run of bytes that need no look is skipped a word at a time.
        j = crate::words::escape::next_special(b, j.min(b.len()))?;
        match b[j] {
            b'"' => return Some((j + 1, escaped)),
            b'\\' => {
                escaped = true;
                j += 2;
            }
            _ => return None,
        }
    }
}

/// The scalar value at `i` and the index past it; `None` for anything else (see [`walk`]).
fn scalar(text: &str, i: usize) -> Option<(Sent<'_>, usize)> {
    let b = text.as_bytes();
    let (scalar, end) = match *b.get(i)? {
        b'"' => {
            let (end, escaped) = string_end(b, i)?;
            let s = if escaped {
                Cow::Owned(serde_json::from_str::<String>(&text[i..end]).ok()?)
            } else {
                Cow::Borrowed(&text[i + 1..end - 1])
            };
            (Scalar::Str(s), end)
        }
        b't' if b[i..].starts_with(b"true") => (Scalar::Bool(true), i + 4),
        b'f' if b[i..].starts_with(b"false") => (Scalar::Bool(false), i + 5),
        b'n' if b[i..].starts_with(b"null") => (Scalar::Null, i + 4),
        b'-' | b'0'..=b'9' => {
            let (end, whole) = number_end(b, i)?;
            let n = match whole {
                None => Number::from_f64(serde_json::from_str::<f64>(&text[i..end]).ok()?)?,
                // `-0` is a double to serde_json; an integer past `i64` is one too.
                Some(n) if b[i] == b'-' => Number::from(0i64.checked_sub_unsigned(n).filter(|n| *n < 0)?),
                Some(n) => Number::from(n),
            };
            (Scalar::Number(n), end)
        }
        _ => return None,
    };
    Some((Sent { text: &text[i..end], scalar }, end))
}

/// The end of the number token at `i` (RFC 8259 §6 grammar) and, for a plain integer (no
/// fraction, no exponent) whose digits fit `u64`, the magnitude of its digits; `None` when
/// there is no number token at `i`, or its digits are past `u64` (serde_json reads those as a
/// double, and so does the general path).
fn number_end(b: &[u8], i: usize) -> Option<(usize, Option<u64>)> {
    let digits = |mut j: usize| {
        let start = j;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        (j > start).then_some(j)
    };
    let mut j = i + usize::from(b.get(i) == Some(&b'-'));
    let start = j;
    let mut magnitude: u64 = 0;
    match b.get(j)? {
        b'0' => j += 1,
        b'1'..=b'9' => {
            while let Some(d) = b.get(j).filter(|d| d.is_ascii_digit()) {
                magnitude = magnitude.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
                j += 1;
            }
        }
        _ => return None,
    }
    let mut whole = Some(magnitude);
    if b.get(j) == Some(&b'.') {
        whole = None;
        j = digits(j + 1)?;
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        whole = None;
        j += 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        j = digits(j)?;
    }
    debug_assert!(j > start);
    Some((j, whole))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{ParamSpec, Ty};

    fn params() -> Vec<ParamSpec> {
        ["hours_back", "group_by", "top"].into_iter().map(|name| ParamSpec::new(name, "", Ty::String, true)).collect()
    }

    fn walked(text: &str) -> Option<Vec<Option<(String, Scalar<'_>)>>> {
        let params = params();
        let mut slots = vec![None, None, None];
        walk(text, &params, &mut slots)
            .then(|| slots.into_iter().map(|s| s.map(|s| (s.text.to_owned(), s.scalar))).collect())
    }

    #[test]
    fn scalars_with_their_text() {
        let slots = walked(r#" {"top": 1e3, "group_by" : "d\u0061y", "hours_back":-0.5 } "#).unwrap();
        assert_eq!(slots[0], Some(("-0.5".into(), Scalar::Number(Number::from_f64(-0.5).unwrap()))));
        assert_eq!(slots[1], Some((r#""d\u0061y""#.into(), Scalar::Str(Cow::Owned("day".into())))));
        assert_eq!(slots[2], Some(("1e3".into(), Scalar::Number(Number::from_f64(1000.0).unwrap()))));
        assert_eq!(walked("{}").unwrap(), vec![None, None, None]);
        assert_eq!(walked(r#"{"top": null}"#).unwrap()[2], Some(("null".into(), Scalar::Null)));
        let slots = walked(r#"{"top":-12,"hours_back":18446744073709551615,"group_by":true}"#).unwrap();
        assert_eq!(slots[0], Some(("18446744073709551615".into(), Scalar::Number(u64::MAX.into()))));
        assert_eq!(slots[1], Some(("true".into(), Scalar::Bool(true))));
        assert_eq!(slots[2], Some(("-12".into(), Scalar::Number((-12).into()))));
        assert_eq!(
            walked(r#"{"top": 0.1e-2}"#).unwrap()[2].as_ref().unwrap().1,
            Scalar::Number(Number::from_f64(0.001).unwrap())
        );
    }

    /// An array or object is kept as its text; built, it is what serde_json parses, and its
    /// items, read from the text one by one, are the parsed array's.
    #[test]
    fn arrays_and_objects_kept_as_text_read_as_serde_json_parses_them() {
        for text in [
            r#"{"top": [1, -2, 0.25, "a\nb", true, null, [], {}]}"#,
            r#"{"top": {"a": {"b": [1.5, {"c": "d"}]}, "e": 1.0, "f": -0.5, "g": 5e-8}}"#,
            r#"{"top": [ [ [ ] ] ] , "group_by": { } }"#,
            r#"{"top": [ {"a": "]}"} , ["[", "{\"" ] ,"x\\" ,7 ]}"#,
        ] {
            let params = params();
            let mut slots = vec![None, None, None];
            assert!(walk(text, &params, &mut slots), "{text}");
            let parsed: Value = serde_json::from_str(text).unwrap();
            for (slot, name) in slots.iter().zip(["hours_back", "group_by", "top"]) {
                let Some(sent @ Sent { scalar: Scalar::Raw, .. }) = slot else { continue };
                assert_eq!(Some(&sent.to_value()), parsed.get(name), "{text}");
                if let Some(items) = sent.items() {
                    let read: Vec<Value> = items.map(|item| item.to_value()).collect();
                    assert_eq!(Some(&Value::Array(read)), parsed.get(name), "{text}");
                }
            }
        }
        let deep = |n: usize| format!(r#"{{"top": {}{}}}"#, "[".repeat(n), "]".repeat(n));
        assert!(walked(&deep(WALK_DEPTH)).is_some());
        assert!(walked(&deep(WALK_DEPTH + 1)).is_none());
        let wide = |n: usize| {
            let members: Vec<String> = (0..n).map(|i| format!(r#""k{i}": {i}"#)).collect();
            format!(r#"{{"top": {{{}}}}}"#, members.join(","))
        };
        assert!(walked(&wide(crate::read::sent::MAX_KEYS)).is_some());
        assert!(walked(&wide(crate::read::sent::MAX_KEYS + 1)).is_none());
    }

    #[test]
    fn declines_what_it_does_not_describe() {
        for text in [
            r#"{"top": 1, "top": 2}"#,
            r#"{"tpo": 1}"#,
            r#"{"top": [1e3]}"#,
            r#"{"top": [0.10]}"#,
            r#"{"top": [1.0e0]}"#,
            r#"{"top": [1e15]}"#,
            r#"{"top": {"a": 1, "a": 2}}"#,
            r#"{"top": [{"a": 1}, {"b": 1, "b": 1}]}"#,
            format!(
                r#"{{"top": {{{}, "k3": 0}}}}"#,
                (0..20).map(|i| format!(r#""k{i}": {i}"#)).collect::<Vec<_>>().join(",")
            )
            .as_str(),
            format!(
                r#"{{"top": {{{}, "k19": 0}}}}"#,
                (0..20).map(|i| format!(r#""k{i}": {i}"#)).collect::<Vec<_>>().join(",")
            )
            .as_str(),
            r#"{"top": {"\u0061": 1}}"#,
            r#"{"top": [1,]}"#,
            r#"{"top": [1 2]}"#,
            r#"{"top": {"a" 1}}"#,
            r#"{"top": {"a": 1,}}"#,
            r#"{"top": [1}"#,
            r#"{"top": [18446744073709551616]}"#,
            r#"{"top": 1e400}"#,
            r#"{"top": "\ud800"}"#,
            r#"{"top": 1} x"#,
            r#"{"top": 01}"#,
            r#"{"top": 1.}"#,
            r#"{"top": -}"#,
            r#"{"top": 1e}"#,
            r#"{"top": tru}"#,
            r#"{"top": truex}"#,
            r#"{"top": 18446744073709551616}"#,
            r#"{"top": "a\qb"}"#,
            "{\"top\": \"a\tb\"}",
            r#"{"t\u006fp": 1}"#,
            r#"{"top": 1,}"#,
            r#"{"top": -0}"#,
            r#"{,"top": 1}"#,
            r#"{"top" 1}"#,
            r#"{"top": 1"#,
            r#"[1]"#,
            r#""{}""#,
            "null",
            "",
        ] {
            assert!(walked(text).is_none(), "{text}");
        }
    }
}
