//! `length` and `byte_length`: how long a string (characters or UTF-8 bytes) or an array
//! (items) may be. Its checks, its words and its JSON Schema keywords (`minLength`/`maxLength`,
//! `minItems`/`maxItems`; 2020-12 Validation §6.3, §6.4).

use serde_json::{Map, Value, json};

use crate::cx::{Cx, count};
use crate::refusal::Problem;
use crate::spec::{Length, Ty, Unit};

/// `a string of 1 to 120 characters`, `an array of at most 10 items`.
pub(crate) fn words(what: &str, len: &Length) -> String {
    let unit = len.unit.word();
    match (len.min, len.max) {
        (0, usize::MAX) => what.to_owned(),
        (0, b) => format!("{what} of at most {}", count(b, len.unit)),
        (a, usize::MAX) => format!("{what} of at least {}", count(a, len.unit)),
        (a, b) if a == b => format!("{what} of exactly {}", count(a, len.unit)),
        (a, b) => format!("{what} of {a} to {b} {unit}"),
    }
}

/// Refuses a string whose length (in the rule's unit) is outside the rule.
pub(crate) fn check_str(cx: &Cx<'_>, v: &Value, s: &str, len: &Length) -> Result<(), Problem> {
    let n = if len.unit == Unit::Bytes { s.len() } else { s.chars().count() };
    if n >= len.min && n <= len.max {
        return Ok(());
    }
    let fix = if len.min == len.max {
        format!("Send exactly {}.", count(len.max, len.unit))
    } else if n > len.max {
        format!("Shorten it to at most {}.", count(len.max, len.unit))
    } else {
        format!("Send at least {}.", count(len.min, len.unit))
    };
    Err(cx.problem(v, format!("is {} long", count(n, len.unit)), words("a string", len), fix))
}

/// Refuses an array of `n` items outside the rule; `accepted` is the array's accepted set.
pub(crate) fn check_items(
    cx: &Cx<'_>,
    v: &Value,
    n: usize,
    len: &Length,
    accepted: impl FnOnce() -> String,
) -> Result<(), Problem> {
    if n >= len.min && n <= len.max {
        return Ok(());
    }
    let fix = if len.min == len.max {
        format!("Send exactly {}.", count(len.max, Unit::Items))
    } else if n > len.max {
        format!("Send at most {}.", count(len.max, Unit::Items))
    } else {
        format!("Send at least {}.", count(len.min, Unit::Items))
    };
    Err(cx.problem(v, format!("has {}", count(n, Unit::Items)), accepted(), fix))
}

/// The JSON Schema keywords of `l` on a value of shape `ty`.
pub(crate) fn schema(m: &mut Map<String, Value>, l: &Length, ty: &Ty) {
    // JSON Schema counts string length in characters (2020-12 Validation §6.3) and has no
    // byte length: a `byte_length` rule is stated in the description instead.
    let (lo, hi) = match (l.unit, ty) {
        (Unit::Items, _) | (_, Ty::Array(_)) => ("minItems", "maxItems"),
        (Unit::Characters, _) => ("minLength", "maxLength"),
        (Unit::Bytes, _) => ("", ""),
    };
    if lo.is_empty() {
        let note = words("a string", l).replacen("a string of", "UTF-8 length:", 1);
        m.insert("description".into(), json!(note));
        // What characters can say of bytes: a character is 1 to 4 bytes in UTF-8.
        if l.min > 0 {
            m.insert("minLength".into(), json!(l.min.div_ceil(4)));
        }
        if l.max != usize::MAX {
            m.insert("maxLength".into(), json!(l.max));
        }
    } else {
        if l.min > 0 {
            m.insert(lo.into(), json!(l.min));
        }
        if l.max != usize::MAX {
            m.insert(hi.into(), json!(l.max));
        }
    }
}
