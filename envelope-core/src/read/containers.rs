//! A JSON container sent where one is expected: the object a `#[derive(Object)]` value is
//! read from (or its refusal), and the object or array a JSON string holds, which models often
//! send in place of the container itself.

use serde_json::{Map, Value};

use crate::outcome::refusal::{Problem, Rejected};
use crate::read::path::{Reading, holds_secret};
use crate::read::rules::{Accepted, fix_like};
use crate::spec::ObjectSpec;
use crate::words::render;

/// The object a `#[derive(Object)]` value is read from: the one sent, or the one a JSON string
/// held, with the characters its numbers were sent with.
#[doc(hidden)]
pub struct ObjectOf<'v> {
    map: std::borrow::Cow<'v, Map<String, Value>>,
    numbers: Vec<(usize, &'v str)>,
}

impl<'v> ObjectOf<'v> {
    /// The object's members.
    pub fn map(&self) -> &Map<String, Value> {
        &self.map
    }

    /// `base` for the object's fields: with the numbers of the object a string held as sent
    /// (`36893488147419103233`, not the double a `Value` holds), else `base` itself.
    pub fn reading<'r>(&'r self, base: &Reading<'r>) -> Reading<'r> {
        if self.numbers.is_empty() { *base } else { base.with_numbers(&self.numbers) }
    }
}

/// The object a `#[derive(Object)]` value is read from, or the refusal of a non-object.
///
/// A JSON string holding an object (`"{\"name\": \"Ada\"}"`, as models often send) is decoded
/// and read in lax mode; `#[tool(strict)]` refuses it, saying to send the object itself.
pub fn object_of<'v>(v: &'v Value, reading: &Reading<'_>, spec: &ObjectSpec) -> Result<ObjectOf<'v>, Problem> {
    let like = || {
        spec.params.iter().find(|p| p.required).or(spec.params.first()).map_or_else(
            || "{}".to_owned(),
            |p| format!("{{\"{}\": {}}}", p.name, Accepted::of(&p.ty, &p.rules).example_json()),
        )
    };
    let hide = |mut problem: Problem| {
        if spec.params.iter().any(|p| holds_secret(&p.rules, Some(&p.ty))) {
            problem.0.rejected = Rejected::Hidden;
        }
        problem
    };
    let accepted = || format!("an object with the keys {}", spec.keys());
    match v {
        Value::Object(o) => Ok(ObjectOf { map: std::borrow::Cow::Borrowed(o), numbers: Vec::new() }),
        Value::String(s) => match container_in_string(s) {
            Some(Decoded { value: Value::Object(o), numbers }) if !reading.strict => {
                // The map's members stay where they are when it moves: the numbers' addresses hold.
                Ok(ObjectOf { map: std::borrow::Cow::Owned(o), numbers })
            }
            Some(Decoded { value: Value::Object(_), .. }) => Err(hide(reading.problem_of(
                v,
                "is a string holding an object",
                accepted(),
                fix_like(reading, "Send the object itself", like(), ", not a string holding it"),
            ))),
            _ => Err(hide(reading.problem_of(
                v,
                render::type_issue(v),
                accepted(),
                fix_like(reading, "Send a JSON object", like(), ""),
            ))),
        },
        _ => Err(hide(reading.problem_of(
            v,
            render::type_issue(v),
            accepted(),
            fix_like(reading, "Send a JSON object", like(), ""),
        ))),
    }
}

/// A container a JSON string held, decoded, with the characters its numbers were sent with (by
/// the address of their node, as [`Reading`] keeps them): `"[36893488147419103233]"` reads as
/// that integer, not as the double a `Value` holds. The nodes of an array or object live in its
/// heap storage, so the addresses hold when `value` moves.
pub(crate) struct Decoded<'t> {
    pub(crate) value: Value,
    pub(crate) numbers: Vec<(usize, &'t str)>,
}

impl Decoded<'_> {
    /// `base` for reading `value`: its numbers as sent.
    pub(crate) fn reading<'r>(&'r self, base: &Reading<'r>) -> Reading<'r> {
        base.with_numbers(&self.numbers)
    }
}

/// The object or array a JSON string holds (`"{\"a\": 1}"`, `"[1, 2]"`), for a parameter that
/// expects that container: models often send a container as its JSON text. `None` for any other
/// string (a number, a word, invalid JSON), and for text with a key sent twice in one object
/// (a `Value` would hold its last value, where the container sent itself is refused naming the
/// key) or an object of more than [`MAX_KEYS`](crate::read::sent::MAX_KEYS) keys (whose keys
/// are not compared): that string is refused as a string, and the container sent in its place
/// is read (and its key refused) as any other.
pub(crate) fn container_in_string(s: &str) -> Option<Decoded<'_>> {
    // Not MCP's `decoded_object` (text to text, no `Value`): these callers hold a `Value` and want one.
    if !s.trim_start().starts_with(['{', '[']) {
        return None;
    }
    let value = serde_json::from_str::<Value>(s).ok().filter(|v| v.is_object() || v.is_array())?;
    let sent = crate::read::sent::scan(s);
    if !sent.duplicates.is_empty() || !sent.crowded.is_empty() {
        return None;
    }
    let numbers = crate::read::sent::numbers_as_sent(&sent.numbers, &value);
    Some(Decoded { value, numbers })
}
