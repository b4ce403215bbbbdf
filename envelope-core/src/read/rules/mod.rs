//! The rules of `#[validate(...)]`, one module each, every one of the same shape:
//!
//! - `check(reading, v, x)`: refuses the value `x` (as its reader read it, see [`Subject`]) when the
//!   rule is set on `reading.rules` and the value breaks it; a rule that is not set, or does not
//!   apply to that shape, accepts;
//! - `accepted(f, ...)`: writes the rule's part of the accepted set in words (see [`Accepted`],
//!   the set as data, which the refusals, the fixes and the examples render);
//! - `schema(m, ty, rules)`: inserts the rule's JSON Schema keywords, when it is set.
//!
//! [`check`] and [`schema`] apply every rule in one fixed order. They stand on the reading
//! context ([`crate::read::path`]) alone; the value readers ([`crate::read::readers`]) call them, and the
//! schema and the refusals of a whole parameter read their words here.
//!
//! Beside the six rules: `accepted` holds the accepted set as data (with [`Subject`] and the
//! number's ends), beneath every rule; `wording` builds a set from a value's rules and renders
//! its sentence, fix and example from each rule's `accepted` words, above every rule.

pub(crate) mod accepted;
pub(crate) mod choices;
pub(crate) mod format;
// The fix of a string more than one of its rules refuses, meeting them all.
pub(crate) mod joint;
// The `format` checks (date, date-time, email, uri), each by its RFC; `format` calls them.
pub(crate) mod formats;
pub(crate) mod length;
pub(crate) mod multiple_of;
pub(crate) mod pattern;
pub(crate) mod range;
pub(crate) mod wording;

use serde_json::{Map, Value};

pub(crate) use accepted::{Accepted, Subject, fix_like, fix_like_whole};

use crate::outcome::refusal::Problem;
use crate::read::path::Reading;
use crate::spec::{Choices, Rules, Ty};

/// Every rule of `reading.rules` on `x`, in a fixed order; the first broken one refuses. A whole
/// number among integer `choices` is checked against them alone; a string meets its `length`,
/// `format`, `pattern`, then its `choices`.
#[inline]
pub(crate) fn check(reading: &Reading<'_>, v: &Value, x: Subject<'_>) -> Result<(), Problem> {
    match x {
        Subject::Whole { .. } if matches!(reading.rules.choices, Some(Choices::Int(_))) => {
            choices::check(reading, v, x)
        }
        Subject::Whole { .. } | Subject::Real(_) => {
            range::check(reading, v, x)?;
            multiple_of::check(reading, v, x)
        }
        Subject::Text(s) => {
            length::check(reading, v, x).map_err(|p| joint::after_length(reading.rules, s, p))?;
            format::check(reading, v, x).map_err(|p| joint::after_format(reading.rules, s, p))?;
            pattern::check(reading, v, x)?;
            choices::check(reading, v, x)
        }
        Subject::Items { .. } | Subject::Entries { .. } => length::check(reading, v, x),
    }
}

/// Whether `x` meets every rule of `reading`: exactly when [`check`] answers `Ok`, with nothing
/// built on the way (no words, no allocation), for a reader that only needs the answer and
/// leaves the refusal to the general reading (`crate::read::typed`).
pub(crate) fn accepts(reading: &Reading<'_>, x: Subject<'_>) -> bool {
    let rules = reading.rules;
    match x {
        Subject::Whole { n, .. } if let Some(Choices::Int(c)) = rules.choices => c.iter().any(|&x| i128::from(x) == n),
        Subject::Whole { n, lo, hi } => {
            let (min, max) = range::bounds(rules.range.as_ref(), lo, hi);
            n >= min && n <= max && rules.multiple_of.is_none_or(|m| multiple_of::whole_accepts(m, n))
        }
        Subject::Real(f) => {
            rules.range.as_ref().is_none_or(|r| range::contains(r, f))
                && rules.multiple_of.is_none_or(|m| multiple_of::real_accepts(m, f))
        }
        Subject::Text(s) => {
            length::takes_text(rules, s)
                && rules.format.is_none_or(|form| form.accepts(s))
                && rules.pattern.as_ref().is_none_or(|p| p.regex.is_match(s))
                && match rules.choices {
                    Some(Choices::Str(c)) => {
                        c.contains(&s) || (rules.ignore_case && choices::canonical(c, s).is_some())
                    }
                    _ => true,
                }
        }
        Subject::Items { n, .. } | Subject::Entries { n, .. } => length::takes_items(reading, n),
    }
}

/// Every rule's JSON Schema keywords on a value of shape `ty`, in a fixed order.
pub(crate) fn schema(m: &mut Map<String, Value>, ty: &Ty, rules: &Rules) {
    range::schema(m, ty, rules);
    multiple_of::schema(m, ty, rules);
    choices::schema(m, ty, rules);
    length::schema(m, ty, rules);
    format::schema(m, ty, rules);
    pattern::schema(m, ty, rules);
}

/// The accepted set of a value of shape `ty` under `rules`, every rule stated: `an array of at
/// most 10 items, each a string matching the pattern ^[a-z]+$`.
pub(crate) fn value_words(ty: &Ty, rules: &Rules) -> String {
    Accepted::of(ty, rules).words()
}

/// An accepted value of shape `ty` under `rules`, as JSON text (`10`, `"query_hash"`), or a
/// placeholder with `…` where none is simple to give.
pub(crate) fn example_json(ty: &Ty, rules: &Rules) -> String {
    Accepted::of(ty, rules).example_json()
}
