//! The arguments read from their JSON text when the one-pass walk (see `crate::read::input`) does not
//! take them: scanned for keys past the limit and keys sent twice, parsed whole (or, when the
//! text does not parse whole, field by field), with every number's characters as sent, so a
//! refusal quotes `1e400` or `0.10` rather than the double it was read as.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::outcome::refusal::Refusal;
use crate::read::args::{self, Args};
use crate::read::input::Input;
use crate::read::sent;
use crate::spec::ToolSpec;

/// Where [`read`] puts what it reads, kept by its caller for as long as the numbers it answers:
/// they are keyed by the address of each value in `parsed` (see `sent::numbers_as_sent`), and
/// borrow the text or, read field by field, `fields`.
#[derive(Default)]
pub(crate) struct Read {
    /// The arguments as parsed (any JSON; `call_with` refuses what is not an object).
    parsed: Value,
    /// Each field with its JSON text as sent, when the text was read field by field.
    fields: Vec<(String, String)>,
}

/// The characters of each number as sent, by the address of its value, in order of address.
pub(crate) type NumbersSent<'t> = Vec<(usize, &'t str)>;

/// Reads the arguments `text` of a call of `spec` into `into`: answers the parsed value and the
/// characters of each number as sent, by address of its value, in order of address (so a refusal
/// quotes `1e400` or `0.10` rather than the double it was read as). Refuses, naming every
/// problem: an object past `sent::MAX_KEYS` keys (having cost a scan of its first `MAX_KEYS`
/// members and a count of the rest, before anything is built from the text); a key sent twice
/// (with any names that are not parameters); text that does not parse, or a field that cannot be
/// read (nested past the depth limit, a number no double holds, an invalid escape), by name.
pub(crate) fn read<'t>(
    spec: &ToolSpec,
    text: &'t str,
    into: &'t mut Read,
) -> Result<(&'t Value, NumbersSent<'t>), Refusal> {
    let sent = sent::scan(text);
    if !sent.crowded.is_empty() {
        let problems = sent.crowded.iter().map(|c| args::too_many_keys(spec, c)).collect();
        return Err(Refusal::from_problems(problems));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(parsed) => {
            if !sent.duplicates.is_empty() {
                return Err(refuse_duplicates(spec, &sent.duplicates, &parsed));
            }
            // Placed before the numbers are paired with it: they are keyed by address.
            into.parsed = parsed;
            let into: &'t Read = into;
            Ok((&into.parsed, sent::numbers_as_sent(&sent.numbers, &into.parsed)))
        }
        // A key sent twice is refused whether or not the text parses whole: read field by field,
        // a map of fields would keep the last (`"approved": 1e400, "approved": true`).
        Err(_) if !sent.duplicates.is_empty() => Err(refuse_duplicates(spec, &sent.duplicates, &Value::Null)),
        Err(_) => {
            read_fields(spec, text, into)?;
            let into: &'t Read = into;
            // Read field by field: each field's text pairs with its own value.
            Ok((&into.parsed, numbers_by_field(&into.parsed, &into.fields)))
        }
    }
}

/// The refusal of keys sent twice, with the names that are not parameters.
fn refuse_duplicates(spec: &ToolSpec, duplicates: &[sent::Duplicate], parsed: &Value) -> Refusal {
    let problems = duplicates.iter().map(|d| args::duplicate_key(spec, d)).collect();
    let mut refusal = Refusal::from_problems(problems);
    if let Value::Object(obj) = parsed
        && let Err(unknown) = Args::new(spec, Input::object(Some(obj))).finish()
    {
        refusal = refusal.and(unknown);
    }
    refusal
}

fn numbers_by_field<'t>(parsed: &Value, raws: &'t [(String, String)]) -> NumbersSent<'t> {
    let mut all = Vec::new();
    for (name, raw) in raws {
        if let Some(v) = parsed.get(name) {
            all.extend(sent::numbers_as_sent(&sent::scan(raw).numbers, v));
        }
    }
    all.sort_unstable_by_key(|(addr, _)| *addr);
    all
}

/// The arguments object read field by field, for text that does not parse whole: each field
/// that cannot be read (nested past the depth limit, a number no double holds, an invalid
/// escape) is refused by name, with any names that are not parameters. Read, the object and
/// each field's text go `into` the holder.
fn read_fields(spec: &ToolSpec, arguments: &str, into: &mut Read) -> Result<(), Refusal> {
    // Skipping a value with RawValue is iterative in serde_json: no depth limit.
    let Ok(fields) = serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(arguments) else {
        // Text that does not parse even skipped (no depth limit) is not JSON at all.
        if serde_json::from_str::<serde::de::IgnoredAny>(arguments).is_err() {
            return Err(args::not_json(spec, arguments));
        }
        // JSON text that is not an object and cannot be read: nested too deep, or a number no
        // double holds or an escape no character is (`1e400`, `"\ud800"`).
        let deep = serde_json::from_str::<Value>(arguments)
            .is_err_and(|e| e.to_string().starts_with("recursion limit exceeded"));
        let p = args::unreadable(spec, "arguments", arguments, deep);
        return Err(Refusal::from_problems(vec![p]));
    };
    let mut problems = Vec::new();
    let mut fields_read = Map::new();
    let mut raws = Vec::new();
    for (name, raw) in fields {
        match serde_json::from_str::<Value>(raw.get()) {
            Ok(v) => {
                raws.push((name.clone(), raw.get().to_owned()));
                fields_read.insert(name, v);
            }
            // A name that is not a parameter is refused as such, whatever its value.
            Err(_) if !spec.params.iter().any(|p| p.name == name) => {
                fields_read.insert(name, Value::Null);
            }
            Err(e) => {
                let deep = e.to_string().starts_with("recursion limit exceeded");
                problems.push(args::unreadable(spec, &name, raw.get(), deep));
            }
        }
    }
    if problems.is_empty() {
        into.parsed = Value::Object(fields_read);
        into.fields = raws;
        return Ok(());
    }
    // Report names that are not parameters too, without calling the tool.
    let mut refusal = Refusal::from_problems(problems);
    if let Err(unknown) = Args::new(spec, Input::object(Some(&fields_read))).finish() {
        refusal = refusal.and(unknown);
    }
    Err(refusal)
}

/// The JSON text of a call's arguments sent as bytes (an HTTP body): JSON's own whitespace
/// trimmed (RFC 8259 §2: space, tab, line feed, carriage return, not Unicode's), no text read as
/// `{}`. `Err`: the refusal of bytes that are not UTF-8 (RFC 8259 §8.1: strict, never replaced
/// with U+FFFD and served), `VALIDATION_ERROR` on `arguments` naming the offset (in bytes, from
/// 0) of the first byte that does not begin or continue a character. Nothing of the bytes is
/// quoted: they may be part of a secret.
pub(crate) fn of_bytes<'b>(spec: &ToolSpec, bytes: &'b [u8]) -> Result<&'b str, Refusal> {
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            let text = text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
            Ok(if text.is_empty() { "{}" } else { text })
        }
        Err(e) => {
            let offset = e.valid_up_to();
            let shape = args::not_an_object(spec, &Value::Null, &[]);
            Err(Refusal::parameter("arguments")
                .missing()
                .reason(format!(
                    "the body is not UTF-8 text: the byte at offset {offset} (counted from 0) does not begin or continue a UTF-8 character"
                ))
                .accepted(format!("{}, as JSON text encoded in UTF-8 (RFC 8259 §8.1)", shape.accepted()))
                .fix("Send the body encoded as UTF-8; a character your client cannot encode may be sent as a \\uXXXX escape inside a string.")
                .build())
        }
    }
}
