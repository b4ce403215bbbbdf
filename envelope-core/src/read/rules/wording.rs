//! The accepted set in words: how a set is built from a value's rules, its sentence
//! (`Display`), its fix and its example, composed from each rule's own words
//! (`range::accepted`, `multiple_of::accepted`, `format::accepted`, ...). The set itself is
//! data in [`accepted`](super::accepted), beneath the rules; the rules' checks word their
//! refusals through these methods.

use std::fmt::{self, Display, Formatter};

use crate::render;
use crate::rules::accepted::{Accepted, Ends, rendered};
use crate::rules::{choices, format, length, multiple_of, pattern, range};
use crate::spec::{Choices, Num, Rules, Ty};

impl<'a> Accepted<'a> {
    /// The set of a value of shape `ty` under `rules`, every rule stated (the choices first,
    /// whatever the shape).
    pub(crate) fn of(ty: &'a Ty, rules: &'a Rules) -> Self {
        match (&rules.choices, ty) {
            (Some(c), _) => Accepted::Choices(*c),
            (None, Ty::Integer { min, max }) => Accepted::whole(rules, *min, *max),
            (None, Ty::Number) => Accepted::real(rules),
            (None, Ty::Enum(names)) => Accepted::Choices(Choices::Str(names)),
            (None, Ty::String) => Accepted::text(rules),
            (None, Ty::Array(item)) => Accepted::items(item, rules),
            (None, ty) => Accepted::Shape(ty),
        }
    }

    /// A whole number within `[lo, hi]` (its type's bounds) under `range` and `multiple_of`.
    pub(crate) fn whole(rules: &Rules, lo: i128, hi: i128) -> Self {
        let (min, max) = range::bounds(rules.range.as_ref(), lo, hi);
        Accepted::Number { ends: Ends::Whole(min, max), step: rules.multiple_of }
    }

    /// A number under `range` and `multiple_of`.
    pub(crate) fn real(rules: &Rules) -> Self {
        Accepted::Number { ends: Ends::Real(rules.range), step: rules.multiple_of }
    }

    /// A string under `length`, `format` and `pattern` (not its choices).
    pub(crate) fn text(rules: &'a Rules) -> Self {
        Accepted::Text { length: rules.length, format: rules.format, pattern: rules.pattern.as_ref() }
    }

    /// An array of `item`s under the array's `rules` (`length`, and `each(...)`).
    pub(crate) fn items(item: &'a Ty, rules: &'a Rules) -> Self {
        Accepted::Items { length: rules.length, item, each: rules.items.as_deref() }
    }

    /// The set in words, as [`Display`] gives them, in one allocation for most sets.
    pub(crate) fn words(&self) -> String {
        rendered(self)
    }

    /// The fix of a number out of range: `Send a value from 1 to 720.`, `Send a value of at
    /// least 0.5.`, `Send a multiple of 0.25 from 0 to 1.`
    pub(crate) fn out_of_range_fix(&self) -> String {
        match *self {
            // The step is stated for a float only: `Send a value from 0 to 100.` for integers.
            Accepted::Number { ends: ends @ Ends::Real(_), step: Some(m) } => {
                rendered(format_args!("Send {}.", Number { ends, step: Some(m), noun: "" }))
            }
            Accepted::Number { ends, .. } => {
                rendered(format_args!("Send {}.", Number { ends, step: None, noun: "a value" }))
            }
            _ => "Send a value in range.".to_owned(),
        }
    }

    /// The whole number a fix offers: the first choice (0 without any); else 10 when in range,
    /// else the bound nearest to it, moved to the nearest multiple of the step within range.
    pub(crate) fn example_whole(&self) -> i128 {
        match *self {
            Accepted::Choices(Choices::Int(c)) => c.first().map_or(0, |&x| i128::from(x)),
            Accepted::Number { ends: Ends::Whole(min, max), step } => {
                let e = range::example_whole(min, max);
                step.and_then(|m| multiple_of::example_whole(m, e, min, max)).unwrap_or(e)
            }
            _ => 0,
        }
    }

    /// The number a fix offers: within the range (its lower bound when included), moved to a
    /// multiple of the step within range.
    pub(crate) fn example_real(&self) -> f64 {
        match *self {
            Accepted::Number { ends: Ends::Real(range), step } => {
                let e = range::example_real(range.as_ref());
                match (step, range) {
                    (Some(m), Some(r)) => multiple_of::example_real(m, e, &r),
                    (Some(m), None) => m.as_f64(),
                    (None, _) => e,
                }
            }
            _ => 0.5,
        }
    }

    /// An accepted value as JSON text (`10`, `"query_hash"`), or a placeholder with `…` where
    /// none is simple to give (`"…"`, `[…]`).
    pub(crate) fn example_json(&self) -> String {
        match self {
            Accepted::Choices(c) => choices::example(c),
            Accepted::Number { ends: Ends::Whole(..), .. } => self.example_whole().to_string(),
            Accepted::Number { ends: Ends::Real(_), .. } => render::number(self.example_real()),
            Accepted::Single => render::number(0.5),
            Accepted::Text { .. } => "\"…\"".into(),
            Accepted::Items { .. } => "[…]".into(),
            Accepted::Shape(Ty::Boolean) => "true".into(),
            Accepted::Shape(Ty::Object(_)) => "{…}".into(),
            Accepted::Shape(_) => "…".into(),
        }
    }
}

impl Display for Accepted<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match *self {
            Accepted::Choices(c) => choices::accepted(f, &c),
            Accepted::Number { ends: ends @ Ends::Whole(..), step } => {
                Number { ends, step, noun: "a whole number" }.fmt(f)
            }
            Accepted::Number { ends, step } => Number { ends, step, noun: "a number" }.fmt(f),
            Accepted::Single => write!(f, "a number of at most {:e} in size", f32::MAX),
            Accepted::Text { length, format, pattern } => {
                match (format, length) {
                    (Some(form), _) => format::accepted(f, form)?,
                    (None, Some(l)) => length::accepted(f, "a string", &l)?,
                    (None, None) => f.write_str("a string")?,
                }
                match pattern {
                    Some(p) => pattern::accepted(f, p),
                    None => Ok(()),
                }
            }
            Accepted::Items { length, item, each } => match (length, each) {
                (Some(l), Some(rules)) => {
                    length::accepted(f, "an array", &l)?;
                    write!(f, ", each {}", Accepted::of(item, rules))
                }
                (Some(l), None) => {
                    length::accepted(f, "an array", &l)?;
                    write!(f, ", each {}", item.words())
                }
                (None, Some(rules)) => write!(f, "an array, each item {}", Accepted::of(item, rules)),
                (None, None) => write!(f, "an array of {}", item.plural()),
            },
            Accepted::Shape(ty) => f.write_str(&ty.words()),
        }
    }
}

/// A number in words: its noun (`a whole number`, `a number`, `a value` in a fix), or with a
/// step `a multiple of 0.25`; then its ends.
struct Number {
    ends: Ends,
    step: Option<Num>,
    noun: &'static str,
}

impl Display for Number {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.step {
            Some(m) => multiple_of::accepted(f, m)?,
            None => f.write_str(self.noun)?,
        }
        range::accepted(f, self.ends)
    }
}
