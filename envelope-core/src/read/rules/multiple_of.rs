//! `multiple_of`: a number must be a whole multiple of a step (JSON Schema 2020-12 Validation
//! §6.2.1 `multipleOf`). Its checks for integers (exact) and floats, its words (`a multiple of
//! 5 from 0 to 100`; the fix offers the multiples on either side of the value sent) and its
//! keyword.

use serde_json::{Map, Value, json};

use crate::cx::Cx;
use crate::refusal::Problem;
use crate::render;
use crate::spec::Num;

/// The step as text: `5`, `0.25`.
fn step(m: Num) -> String {
    match m {
        Num::Int(i) => i.to_string(),
        Num::Float(f) => render::number(f),
    }
}

/// An integer's accepted set under the rule, within its bounds: `a multiple of 5 from 0 to 100`.
pub(crate) fn int_words(m: Num, min: i128, max: i128) -> String {
    format!("a multiple of {} from {min} to {max}", step(m))
}

/// A float's accepted set under the rule: `a number from 0 to 1` becomes `a multiple of 0.25
/// from 0 to 1`.
pub(crate) fn float_words(m: Num, range_words: &str) -> String {
    range_words.replacen("a number", &format!("a multiple of {}", step(m)), 1)
}

/// The multiple nearest to `example` within `[min, max]` (the example a fix offers), if any.
pub(crate) fn int_example(m: Num, example: i128, min: i128, max: i128) -> Option<i128> {
    let m = int_step(m)?;
    let below = example.div_euclid(m) * m;
    [below, below.saturating_add(m), below.saturating_sub(m)].into_iter().find(|x| (min..=max).contains(x))
}

fn int_step(m: Num) -> Option<i128> {
    match m {
        Num::Int(i) if i > 0 => Some(i),
        _ => None,
    }
}

/// Whether the integer `n` is a multiple of `m`: exact for a whole step; a fractional step
/// (on a type the macro could not name) as for a float.
pub(crate) fn int_accepts(m: Num, n: i128) -> bool {
    match int_step(m) {
        Some(s) => n.rem_euclid(s) == 0,
        None => float_accepts(m, n as f64),
    }
}

/// Refuses an integer that is not a multiple of `m`, offering the multiples on either side of
/// it within `[min, max]`: `7 is not a multiple of 5 ... Send 5 or 10.`
pub(crate) fn check_int(
    cx: &Cx<'_>,
    v: &Value,
    n: i128,
    m: Num,
    (min, max): (i128, i128),
    accepted: impl FnOnce() -> String,
) -> Result<(), Problem> {
    if int_accepts(m, n) {
        return Ok(());
    }
    let near: Vec<String> = match int_step(m) {
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
    Err(cx.problem(v, format!("is not a multiple of {}", step(m)), accepted(), fix(&near, m)))
}

/// Whether the float `f` is a multiple of `m`: `f / m` is a whole number, to within the
/// rounding of one division (0.3 is a multiple of 0.1, as a person reads it).
pub(crate) fn float_accepts(m: Num, f: f64) -> bool {
    let m = m.as_f64();
    if !(m.is_finite() && m > 0.0) {
        return true;
    }
    let q = f / m;
    (q - q.round()).abs() <= 1e-9 * q.abs().max(1.0)
}

/// Refuses a float that is not a multiple of `m`, offering the multiples on either side.
pub(crate) fn check_float(
    cx: &Cx<'_>,
    v: &Value,
    f: f64,
    m: Num,
    in_range: impl Fn(f64) -> bool,
    accepted: String,
) -> Result<(), Problem> {
    if float_accepts(m, f) {
        return Ok(());
    }
    let s = m.as_f64();
    let below = (f / s).floor() * s;
    let near: Vec<String> = [below, below + s].into_iter().filter(|x| in_range(*x)).map(render::number).collect();
    Err(cx.problem(v, format!("is not a multiple of {}", step(m)), accepted, fix(&near, m)))
}

fn fix(near: &[String], m: Num) -> String {
    match near {
        [a, b] => format!("Send {a} or {b}."),
        [a] => format!("Send {a}."),
        _ => format!("Send a multiple of {}.", step(m)),
    }
}

/// The JSON Schema keyword.
pub(crate) fn schema(m: &mut Map<String, Value>, step: Num) {
    let value = match step {
        Num::Int(i) => i64::try_from(i).map_or_else(|_| json!(i as f64), |i| json!(i)),
        Num::Float(f) => json!(f),
    };
    m.insert("multipleOf".into(), value);
}
