//! `range`: a number's bounds, each inclusive, exclusive or absent. Its check, its words (the
//! accepted set and the fix) and its JSON Schema keywords (`minimum`, `maximum`,
//! `exclusiveMinimum`, `exclusiveMaximum`; 2020-12 Validation §6.2).

use serde_json::{Map, Value, json};

use crate::cx::Cx;
use crate::refusal::Problem;
use crate::render;
use crate::spec::{Bound, Num, Range, Ty};

/// The inclusive bounds an integer must meet: the type's, `[lo, hi]`, narrowed by the rule. No
/// allocation: this runs on every successful read.
pub(crate) fn int_bounds(r: Option<&Range>, lo: i128, hi: i128) -> (i128, i128) {
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

/// An integer's bounds and its accepted set: `a whole number from 1 to 720`.
pub(crate) fn int_accepted(r: Option<&Range>, lo: i128, hi: i128) -> (i128, i128, String) {
    let (min, max) = int_bounds(r, lo, hi);
    (min, max, format!("a whole number from {min} to {max}"))
}

/// The integer a fix offers: 10 when in range, else the bound nearest to it.
pub(crate) fn example_int(min: i128, max: i128) -> i128 {
    if (min..=max).contains(&10) {
        10
    } else if min > 10 {
        min
    } else {
        max
    }
}

/// The refusal of an integer outside its bounds: `is out of range`, both bounds stated.
pub(crate) fn int_out_of_range(cx: &Cx<'_>, v: &Value, accepted: String) -> Problem {
    // `a whole number from 1 to 720` (or `a multiple of 5 from 0 to 100`): the bounds.
    let fix = accepted
        .find(" from ")
        .map_or_else(|| "Send a value in range.".to_owned(), |i| format!("Send a value {}.", &accepted[i + 1..]));
    cx.problem(v, "is out of range", accepted, fix)
}

/// A float's accepted set (each bound with whether it is included) and an example within it.
pub(crate) fn float_accepted(r: Option<&Range>) -> (String, String) {
    let (min, max) = r.map_or((Bound::Unbounded, Bound::Unbounded), |r| (r.min, r.max));
    let n = |x: Num| render::number(x.as_f64());
    let accepted = match (min, max) {
        (Bound::Unbounded, Bound::Unbounded) => "a number".to_owned(),
        (Bound::Inclusive(a), Bound::Inclusive(b)) => format!("a number from {} to {}", n(a), n(b)),
        (Bound::Inclusive(a), Bound::Exclusive(b)) => {
            format!("a number from {} up to but not including {}", n(a), n(b))
        }
        (Bound::Exclusive(a), Bound::Inclusive(b)) => {
            format!("a number greater than {a} ({a} itself not allowed) and at most {}", n(b), a = n(a))
        }
        (Bound::Exclusive(a), Bound::Exclusive(b)) => format!(
            "a number greater than {a} and less than {b} ({a} and {b} themselves not allowed)",
            a = n(a),
            b = n(b)
        ),
        (Bound::Inclusive(a), Bound::Unbounded) => format!("a number of at least {}", n(a)),
        (Bound::Exclusive(a), Bound::Unbounded) => {
            format!("a number greater than {a} ({a} itself not allowed)", a = n(a))
        }
        (Bound::Unbounded, Bound::Inclusive(b)) => format!("a number of at most {}", n(b)),
        (Bound::Unbounded, Bound::Exclusive(b)) => format!("a number less than {b} ({b} itself not allowed)", b = n(b)),
    };
    let example = match (min, max) {
        (Bound::Inclusive(a), _) => n(a),
        (Bound::Exclusive(a), Bound::Inclusive(b) | Bound::Exclusive(b)) => {
            render::number((a.as_f64() + b.as_f64()) / 2.0)
        }
        (_, Bound::Inclusive(b)) => n(b),
        (Bound::Exclusive(a), _) => render::number(a.as_f64() + 1.0),
        (Bound::Unbounded, Bound::Exclusive(b)) => render::number(b.as_f64() - 1.0),
        _ => "0.5".to_owned(),
    };
    (accepted, example)
}

/// Whether the float `f` is within `r`.
pub(crate) fn in_float_range(f: f64, r: &Range) -> bool {
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

/// The refusal of a float outside its range.
pub(crate) fn float_out_of_range(cx: &Cx<'_>, v: &Value, accepted: String) -> Problem {
    let fix = format!("Send {}.", accepted.replacen("a number", "a value", 1));
    cx.problem(v, "is out of range", accepted, fix)
}

fn num(n: Num) -> Value {
    match n {
        Num::Int(i) => i64::try_from(i).map_or_else(|_| json!(i as f64), |i| json!(i)),
        Num::Float(f) => json!(f),
    }
}

/// The JSON Schema keywords of `r` on a value of shape `ty`, narrowing the type's own bounds.
pub(crate) fn schema(m: &mut Map<String, Value>, r: &Range, ty: &Ty) {
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
