//! `range`: a number's bounds, each inclusive, exclusive or absent. Its check, its words (`from
//! 1 to 720`, `greater than 0 (0 itself not allowed) and at most 1`) and its JSON Schema keywords
//! (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`; 2020-12 Validation §6.2).

use std::fmt::{self, Formatter};

use serde_json::{Map, Value, json};

use crate::outcome::refusal::Problem;
use crate::read::path::Reading;
use crate::read::rules::{Accepted, Subject};
use crate::spec::{Bound, Num, Range, Rules, Ty};
use crate::words::render;

/// Refuses a number outside its bounds (a whole number: its type's, narrowed by the rule).
#[inline]
pub(crate) fn check(reading: &Reading<'_>, v: &Value, x: Subject<'_>) -> Result<(), Problem> {
    match x {
        Subject::Whole { n, lo, hi } => {
            let (min, max) = bounds(reading.rules.range.as_ref(), lo, hi);
            if n < min || n > max {
                return Err(out_of_range(reading, v, &Accepted::whole(reading.rules, lo, hi)));
            }
        }
        Subject::Real(f) => {
            if let Some(r) = &reading.rules.range
                && !contains(r, f)
            {
                return Err(out_of_range(reading, v, &Accepted::real(reading.rules)));
            }
        }
        Subject::Text(_) | Subject::Items { .. } | Subject::Entries { .. } => {}
    }
    Ok(())
}

/// The inclusive bounds a whole number must meet: its type's, `[lo, hi]`, narrowed by the
/// rule. No allocation: this runs on every successful read.
pub(crate) fn bounds(r: Option<&Range>, lo: i128, hi: i128) -> (i128, i128) {
    let (mut min, mut max) = (lo, hi);
    if let Some(r) = r {
        // A float bound reaches an integer only on a type the macro could not name (an alias, a
        // newtype): the whole numbers it admits, as JSON Schema's `minimum: 0.5` on an integer.
        match r.min {
            Bound::Inclusive(Num::Int(a)) => min = min.max(a),
            Bound::Exclusive(Num::Int(a)) => min = min.max(a.saturating_add(1)),
            Bound::Inclusive(Num::Float(a)) => min = min.max(a.ceil() as i128),
            Bound::Exclusive(Num::Float(a)) => min = min.max((a.floor() as i128).saturating_add(1)),
            Bound::Unbounded => {}
        }
        match r.max {
            Bound::Inclusive(Num::Int(b)) => max = max.min(b),
            Bound::Exclusive(Num::Int(b)) => max = max.min(b.saturating_sub(1)),
            Bound::Inclusive(Num::Float(b)) => max = max.min(b.floor() as i128),
            Bound::Exclusive(Num::Float(b)) => max = max.min((b.ceil() as i128).saturating_sub(1)),
            Bound::Unbounded => {}
        }
    }
    (min, max)
}

pub(crate) use super::accepted::Ends;

/// The ends in words, after the set's noun (`a number`): ` from 1 to 720`, ` from 0 up to but
/// not including 1`; nothing for a number without a range.
pub(crate) fn accepted(f: &mut Formatter<'_>, ends: Ends) -> fmt::Result {
    let r = match ends {
        // As `i64` when they fit: its formatting is several times quicker than `i128`'s.
        Ends::Whole(min, max) => {
            return match (i64::try_from(min), i64::try_from(max)) {
                (Ok(min), Ok(max)) => write!(f, " from {min} to {max}"),
                _ => write!(f, " from {min} to {max}"),
            };
        }
        Ends::Real(None) => return Ok(()),
        Ends::Real(Some(r)) => r,
    };
    let n = |x: Num| render::number(x.as_f64());
    match (r.min, r.max) {
        (Bound::Unbounded, Bound::Unbounded) => Ok(()),
        (Bound::Inclusive(a), Bound::Inclusive(b)) => write!(f, " from {} to {}", n(a), n(b)),
        (Bound::Inclusive(a), Bound::Exclusive(b)) => write!(f, " from {} up to but not including {}", n(a), n(b)),
        (Bound::Exclusive(a), Bound::Inclusive(b)) => {
            write!(f, " greater than {a} ({a} itself not allowed) and at most {}", n(b), a = n(a))
        }
        (Bound::Exclusive(a), Bound::Exclusive(b)) => {
            write!(f, " greater than {a} and less than {b} ({a} and {b} themselves not allowed)", a = n(a), b = n(b))
        }
        (Bound::Inclusive(a), Bound::Unbounded) => write!(f, " of at least {}", n(a)),
        (Bound::Exclusive(a), Bound::Unbounded) => write!(f, " greater than {a} ({a} itself not allowed)", a = n(a)),
        (Bound::Unbounded, Bound::Inclusive(b)) => write!(f, " of at most {}", n(b)),
        (Bound::Unbounded, Bound::Exclusive(b)) => write!(f, " less than {b} ({b} itself not allowed)", b = n(b)),
    }
}

/// The refusal of a number outside `set`: `is out of range`, the bounds stated in the fix.
pub(crate) fn out_of_range(reading: &Reading<'_>, v: &Value, set: &Accepted<'_>) -> Problem {
    reading.problem_of(v, "is out of range", set.words_under(reading.rules), set.out_of_range_fix_under(reading.rules))
}

/// The whole number a fix offers: 10 when in range, else the bound nearest to it.
pub(crate) fn example_whole(min: i128, max: i128) -> i128 {
    if (min..=max).contains(&10) {
        10
    } else if min > 10 {
        min
    } else {
        max
    }
}

/// The number a fix offers within `r`: its lower bound when included, else between the bounds,
/// else next to the one bound; 0.5 without a range.
pub(crate) fn example_real(r: Option<&Range>) -> f64 {
    let (min, max) = r.map_or((Bound::Unbounded, Bound::Unbounded), |r| (r.min, r.max));
    match (min, max) {
        (Bound::Inclusive(a), _) => a.as_f64(),
        (Bound::Exclusive(a), Bound::Inclusive(b) | Bound::Exclusive(b)) => (a.as_f64() + b.as_f64()) / 2.0,
        (_, Bound::Inclusive(b)) => b.as_f64(),
        (Bound::Exclusive(a), _) => a.as_f64() + 1.0,
        (Bound::Unbounded, Bound::Exclusive(b)) => b.as_f64() - 1.0,
        _ => 0.5,
    }
}

/// Whether the single-precision `x` is within `r`, its bounds rounded to single precision as the
/// value was (an `f32` parameter's range of `0.0..=0.1` holds `0.1f32`, a little above 0.1).
pub(crate) fn contains_single(r: &Range, x: f32) -> bool {
    let single = |n: Num| n.as_f64() as f32;
    let lo = match r.min {
        Bound::Unbounded => true,
        Bound::Inclusive(a) => x >= single(a),
        Bound::Exclusive(a) => x > single(a),
    };
    let hi = match r.max {
        Bound::Unbounded => true,
        Bound::Inclusive(b) => x <= single(b),
        Bound::Exclusive(b) => x < single(b),
    };
    lo && hi
}

/// Whether the number `f` is within `r`.
pub(crate) fn contains(r: &Range, f: f64) -> bool {
    let lo = match r.min {
        Bound::Unbounded => true,
        Bound::Inclusive(a) => f >= a.as_f64(),
        Bound::Exclusive(a) => f > a.as_f64(),
    };
    let hi = match r.max {
        Bound::Unbounded => true,
        Bound::Inclusive(b) => f <= b.as_f64(),
        Bound::Exclusive(b) => f < b.as_f64(),
    };
    lo && hi
}

pub(crate) fn num(n: Num) -> Value {
    match n {
        Num::Int(i) => i64::try_from(i).map_or_else(|_| json!(i as f64), |i| json!(i)),
        Num::Float(f) => json!(f),
    }
}

/// The JSON Schema keywords of the rule on a value of shape `ty`, narrowing the type's own
/// bounds.
pub(crate) fn schema(m: &mut Map<String, Value>, ty: &Ty, rules: &Rules) {
    let Some(r) = &rules.range else { return };
    let int = matches!(ty, Ty::Integer { .. });
    match r.min {
        Bound::Unbounded => {}
        // For integers an exclusive bound is the next whole number, inclusive.
        Bound::Exclusive(Num::Int(a)) if int => {
            m.insert("minimum".into(), num(Num::Int(a + 1)));
        }
        Bound::Inclusive(a) => {
            m.insert("minimum".into(), num(a));
        }
        Bound::Exclusive(a) => {
            m.remove("minimum");
            m.insert("exclusiveMinimum".into(), num(a));
        }
    }
    match r.max {
        Bound::Unbounded => {}
        Bound::Exclusive(Num::Int(b)) if int => {
            m.insert("maximum".into(), num(Num::Int(b - 1)));
        }
        Bound::Inclusive(b) => {
            m.insert("maximum".into(), num(b));
        }
        Bound::Exclusive(b) => {
            m.remove("maximum");
            m.insert("exclusiveMaximum".into(), num(b));
        }
    }
}
