//! A JSON container sent where one is expected: the object a `#[derive(Object)]` value is
//! read from (or its refusal), and the object or array a JSON string holds, which models often
//! send in place of the container itself.

use serde_json::{Map, Value};

use crate::outcome::refusal::{Problem, Rejected};
use crate::read::path::{Reading, holds_secret};
use crate::read::rules::{Accepted, fix_like};
use crate::spec::ObjectSpec;
use crate::words::render;

/// The object a `#[derive(Object)]` value is read from, or the refusal of a non-object.
///
/// A JSON string holding an object (`"{\"name\": \"Ada\"}"`, as models often send) is decoded
/// and read in lax mode; `#[tool(strict)]` refuses it, saying to send the object itself.
pub fn object_of<'v>(
    v: &'v Value,
    reading: &Reading<'_>,
    spec: &ObjectSpec,
) -> Result<std::borrow::Cow<'v, Map<String, Value>>, Problem> {
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
        Value::Object(o) => Ok(std::borrow::Cow::Borrowed(o)),
        Value::String(s) => match container_in_string(s) {
            Some(Value::Object(o)) if !reading.strict => Ok(std::borrow::Cow::Owned(o)),
            Some(Value::Object(_)) => Err(hide(reading.problem_of(
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

/// The object or array a JSON string holds (`"{\"a\": 1}"`, `"[1, 2]"`), for a parameter that
/// expects that container: models often send a container as its JSON text. `None` for any other
/// string (a number, a word, invalid JSON), and for text with a key sent twice in one object,
/// which a `Value` would hold as its last value where the container sent itself is refused
/// naming the key: that string is refused as a string, and the container sent in its place is
/// read (and its key refused) as any other.
pub(crate) fn container_in_string(s: &str) -> Option<Value> {
    // Not MCP's `decoded_object` (text to text, no `Value`): these callers hold a `Value` and want one.
    if !s.trim_start().starts_with(['{', '[']) {
        return None;
    }
    let decoded = serde_json::from_str::<Value>(s).ok().filter(|v| v.is_object() || v.is_array())?;
    crate::read::sent::scan(s).duplicates.is_empty().then_some(decoded)
}
