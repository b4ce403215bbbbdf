//! `length` and `byte_length`: how long a string (characters or UTF-8 bytes), an array (items)
//! or a map (entries) may be. Its check, its words (`of 1 to 120 characters`) and its JSON Schema
//! keywords (`minLength`/`maxLength`, `minItems`/`maxItems`, `minProperties`/`maxProperties`;
//! 2020-12 Validation §6.3, §6.4, §6.5).

use std::fmt::{self, Display, Formatter};

use serde_json::{Map, Value, json};

use crate::outcome::refusal::Problem;
use crate::read::path::{Reading, count};
use crate::read::rules::{Accepted, Subject};
use crate::spec::{Length, Rules, Ty, Unit};

/// Whether an array of `n` items is within the rule's count (or there is no rule): what
/// [`check`] lets through on an array.
pub(crate) fn takes_items(reading: &Reading<'_>, n: usize) -> bool {
    reading.rules.length.is_none_or(|len| n >= len.min && n <= len.max)
}

/// Whether the string `s` is within the rule's length (or there is no rule): what [`check`]
/// lets through on a string. A string of n bytes holds from n/4 (rounded up) to n characters:
/// within the rule on both counts, it is within it without counting.
pub(crate) fn takes_text(rules: &crate::spec::Rules, s: &str) -> bool {
    let Some(len) = rules.length else { return true };
    let n = match len.unit {
        Unit::Bytes => s.len(),
        _ if s.len() <= len.max && s.len().div_ceil(4) >= len.min => return true,
        _ => s.chars().count(),
    };
    n >= len.min && n <= len.max
}

/// Refuses a string whose length (in the rule's unit) or an array whose count of items is
/// outside the rule. A string's accepted set states its length alone; an array's, its items too.
#[inline]
pub(crate) fn check(reading: &Reading<'_>, v: &Value, x: Subject<'_>) -> Result<(), Problem> {
    let Some(len) = reading.rules.length else { return Ok(()) };
    let n = match x {
        Subject::Text(s) if takes_text(reading.rules, s) => return Ok(()),
        Subject::Text(s) if len.unit == Unit::Bytes => s.len(),
        Subject::Text(s) => s.chars().count(),
        Subject::Items { n, .. } | Subject::Entries { n, .. } => n,
        Subject::Whole { .. } | Subject::Real(_) => return Ok(()),
    };
    if n >= len.min && n <= len.max {
        return Ok(());
    }
    let (issue, accepted, longer) = match x {
        Subject::Items { item, .. } => {
            let accepted = Accepted::items(&item(), reading.rules).words();
            (format!("has {}", count(n, Unit::Items)), accepted, "Send")
        }
        Subject::Entries { value, .. } => {
            let accepted = Accepted::entries(&value(), reading.rules).words();
            (format!("has {}", count(n, Unit::Entries)), accepted, "Send")
        }
        _ => {
            let accepted = Accepted::text(reading.rules).words();
            (format!("is {} long", count(n, len.unit)), accepted, "Shorten it to")
        }
    };
    let unit = match x {
        Subject::Items { .. } => Unit::Items,
        Subject::Entries { .. } => Unit::Entries,
        _ => len.unit,
    };
    let fix = if len.min == len.max {
        format!("Send exactly {}.", count(len.max, unit))
    } else if n > len.max {
        format!("{longer} at most {}.", count(len.max, unit))
    } else {
        format!("Send at least {}.", count(len.min, unit))
    };
    Err(reading.problem_of(v, issue, accepted, fix))
}

/// `what` with its length: `a string of 1 to 120 characters`, `an array of at most 10 items`;
/// `what` alone when the rule bounds neither end.
pub(crate) fn accepted(f: &mut Formatter<'_>, what: &str, len: &Length) -> fmt::Result {
    f.write_str(what)?;
    if bounded(len) { write!(f, " of {}", Span(*len)) } else { Ok(()) }
}

fn bounded(len: &Length) -> bool {
    (len.min, len.max) != (0, usize::MAX)
}

/// The length a rule admits, in words: `at most 10 characters`.
pub(crate) fn span(len: Length) -> impl Display {
    Span(len)
}

/// The length a rule admits, of a bounded rule: `at most 10 items`, `exactly 1 character`,
/// `8 to 16 bytes`.
struct Span(Length);

impl Display for Span {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let len = self.0;
        match (len.min, len.max) {
            (0, b) => write!(f, "at most {}", count(b, len.unit)),
            (a, usize::MAX) => write!(f, "at least {}", count(a, len.unit)),
            (a, b) if a == b => write!(f, "exactly {}", count(a, len.unit)),
            (a, b) => write!(f, "{a} to {b} {}", len.unit.word()),
        }
    }
}

/// The JSON Schema keywords of the rule on a value of shape `ty`.
pub(crate) fn schema(m: &mut Map<String, Value>, ty: &Ty, rules: &Rules) {
    let Some(l) = &rules.length else { return };
    // JSON Schema counts string length in characters (2020-12 Validation §6.3) and has no
    // byte length: a `byte_length` rule is stated in the description instead.
    let (lo, hi) = match (l.unit, ty) {
        (Unit::Entries, _) | (_, Ty::Map(_)) => ("minProperties", "maxProperties"),
        (Unit::Items, _) | (_, Ty::Array(_)) => ("minItems", "maxItems"),
        (Unit::Characters, _) => ("minLength", "maxLength"),
        (Unit::Bytes, _) => ("", ""),
    };
    if lo.is_empty() {
        let note = if bounded(l) { format!("UTF-8 length: {}", Span(*l)) } else { "a string".to_owned() };
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
