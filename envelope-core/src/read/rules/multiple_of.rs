//! `multiple_of`: a number must be a whole multiple of a step (JSON Schema 2020-12 Validation
//! §6.2.1 `multipleOf`). Its check (exact for whole numbers), its words (`a multiple of 5`, the
//! noun of the accepted set; the fix offers the multiples on either side of the value sent) and
//! its keyword.

use std::fmt::{self, Formatter};

use serde_json::{Map, Value};

use crate::outcome::refusal::Problem;
use crate::read::path::Reading;
use crate::read::rules::range;
use crate::read::rules::{Accepted, Subject};
use crate::spec::{Num, Range, Rules, Ty};
use crate::words::render;

/// Refuses a number that is not a multiple of the step, offering the multiples on either side
/// of it within range: `7 is not a multiple of 5 ... Send 5 or 10.`
#[inline]
pub(crate) fn check(reading: &Reading<'_>, v: &Value, x: Subject<'_>) -> Result<(), Problem> {
    let Some(m) = reading.rules.multiple_of else { return Ok(()) };
    let (near, set): (Vec<String>, Accepted<'_>) = match x {
        Subject::Whole { n, lo, hi } => {
            if whole_accepts(m, n) {
                return Ok(());
            }
            let (min, max) = range::bounds(reading.rules.range.as_ref(), lo, hi);
            let near = match whole_step(m) {
                Some(s) => {
                    let below = n.div_euclid(s) * s;
                    [below, below.saturating_add(s)]
                        .into_iter()
                        .filter(|x| (min..=max).contains(x))
                        .map(|x| x.to_string())
                        .collect()
                }
                None => {
                    let s = m.as_f64();
                    let below = (n as f64 / s).floor() * s;
                    [below, below + s]
                        .into_iter()
                        .filter(|x| x.fract() == 0.0 && *x >= min as f64 && *x <= max as f64)
                        .map(render::number)
                        .collect()
                }
            };
            (near, Accepted::whole(reading.rules, lo, hi))
        }
        Subject::Real(f) => {
            if real_accepts(m, f) {
                return Ok(());
            }
            let s = m.as_f64();
            let below = (f / s).floor() * s;
            let in_range = |x: &f64| reading.rules.range.as_ref().is_none_or(|r| range::contains(r, *x));
            let near = [below, below + s].into_iter().filter(in_range).map(render::number).collect();
            (near, Accepted::real(reading.rules))
        }
        Subject::Text(_) | Subject::Items { .. } | Subject::Entries { .. } => return Ok(()),
    };
    let step = match m {
        Num::Int(i) => i.to_string(),
        Num::Float(x) => render::number(x),
    };
    let fix = match near.as_slice() {
        [a, b] => format!("Send {a} or {b}."),
        [a] => format!("Send {a}."),
        _ => format!("Send a multiple of {step}."),
    };
    Err(reading.problem_of(v, format!("is not a multiple of {step}"), set.words_under(reading.rules), fix))
}

/// The rule in words, as the noun of its accepted set: `a multiple of 5`, `a multiple of 0.25`.
pub(crate) fn accepted(f: &mut Formatter<'_>, m: Num) -> fmt::Result {
    match m {
        Num::Int(i) => write!(f, "a multiple of {i}"),
        Num::Float(x) => write!(f, "a multiple of {}", render::number(x)),
    }
}

/// The multiple nearest to `example` within `[min, max]` (the example a fix offers), if any.
pub(crate) fn example_whole(m: Num, example: i128, min: i128, max: i128) -> Option<i128> {
    let m = whole_step(m)?;
    let below = example.div_euclid(m) * m;
    [below, below.saturating_add(m), below.saturating_sub(m)].into_iter().find(|x| (min..=max).contains(x))
}

/// The multiple next to `example` (above it, else below it) within `r`, else `example`.
pub(crate) fn example_real(m: Num, example: f64, r: &Range) -> f64 {
    let s = m.as_f64();
    [(example / s).ceil() * s, (example / s).floor() * s]
        .into_iter()
        .find(|x| range::contains(r, *x))
        .unwrap_or(example)
}

fn whole_step(m: Num) -> Option<i128> {
    match m {
        Num::Int(i) if i > 0 => Some(i),
        _ => None,
    }
}

/// Whether the whole number `n` is a multiple of `m`: exact for a whole step; a fractional step
/// (on a type the macro could not name) as for a float.
pub(crate) fn whole_accepts(m: Num, n: i128) -> bool {
    match whole_step(m) {
        Some(s) => n.rem_euclid(s) == 0,
        None => real_accepts(m, n as f64),
    }
}

/// Whether the number `f` is a multiple of `m`: `f / m` is a whole number, to within the
/// rounding of one division (0.3 is a multiple of 0.1, as a person reads it).
pub(crate) fn real_accepts(m: Num, f: f64) -> bool {
    let m = m.as_f64();
    if !(m.is_finite() && m > 0.0) {
        return true;
    }
    let q = f / m;
    (q - q.round()).abs() <= 1e-9 * q.abs().max(1.0)
}

/// The JSON Schema keyword.
pub(crate) fn schema(m: &mut Map<String, Value>, _ty: &Ty, rules: &Rules) {
    if let Some(step) = rules.multiple_of {
        m.insert("multipleOf".into(), range::num(step));
    }
}
