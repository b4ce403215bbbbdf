//! The accepted set in words: how a set is built from a value's rules, its sentence
//! (`Display`), its fix and its example, composed from each rule's own words
//! (`range::accepted`, `multiple_of::accepted`, `format::accepted`, ...). The set itself is
//! data in [`accepted`](super::accepted), beneath the rules; the rules' checks word their
//! refusals through these methods.

use std::fmt::{self, Display, Formatter};

use crate::read::rules::accepted::{Accepted, Ends, rendered};
use crate::read::rules::{choices, format, length, multiple_of, pattern, range};
use crate::spec::KeptKey;
use crate::spec::{Choices, Num, Rules, Ty};
use crate::words::render;
use crate::words::texts::Text;

impl<'a> Accepted<'a> {
    /// The set of a value of shape `ty` under `rules`, every rule stated (the choices first,
    /// whatever the shape).
    pub(crate) fn of(ty: &'a Ty, rules: &'a Rules) -> Self {
        match (&rules.choices, ty) {
            (Some(c), _) => Accepted::Choices(*c),
            (None, Ty::Integer { min, max }) => Accepted::whole(rules, *min, *max),
            (None, Ty::Number | Ty::Float) => Accepted::real(rules),
            (None, Ty::Enum(names)) => Accepted::Choices(Choices::Str(names)),
            (None, Ty::String) => Accepted::text(rules),
            (None, Ty::Array(item)) => Accepted::items(item, rules),
            (None, Ty::Map(value)) => Accepted::entries(value, rules),
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

    /// A map of `value`s under the map's `rules` (`length`, and `each(...)`).
    pub(crate) fn entries(value: &'a Ty, rules: &'a Rules) -> Self {
        Accepted::Entries { length: rules.length, value, each: rules.items.as_deref() }
    }

    /// The set in words, as [`Display`] gives them, in one allocation for most sets. The sets
    /// of most refusals (whole numbers from one end to another, a list of choices) are written
    /// straight, without `core::fmt`.
    pub(crate) fn words(&self) -> String {
        match *self {
            Accepted::Number { ends: Ends::Whole(min, max), step: None } => {
                let mut out = String::with_capacity(64);
                out.push_str("a whole number");
                push_whole_ends(&mut out, min, max);
                out
            }
            Accepted::Choices(c) => {
                let mut out = String::with_capacity(64);
                out.push_str("one of ");
                match c {
                    Choices::Str(c) => {
                        // A `String`'s `fmt::Write`: its text pushed, no formatting.
                        let _ = render::write_quoted_list(&mut out, c.iter().copied());
                    }
                    Choices::Int(c) => {
                        let mut digits = itoa::Buffer::new();
                        for (i, &x) in c.iter().enumerate() {
                            if i > 0 {
                                out.push_str(", ");
                            }
                            out.push_str(digits.format(x));
                        }
                    }
                }
                out
            }
            _ => rendered(self),
        }
    }

    /// [`words`](Self::words), kept in `rules`' slot once written (`spec::kept`) under what they
    /// depend on (a number's ends and step, the choices); written each time for other sets.
    pub(crate) fn words_under(&self, rules: &Rules) -> Text {
        match self.kept_key() {
            Some(key) => rules.kept.accepted(key, || self.words()),
            None => Text::Owned(self.words()),
        }
    }

    /// [`out_of_range_fix`](Self::out_of_range_fix), kept as [`words_under`](Self::words_under).
    pub(crate) fn out_of_range_fix_under(&self, rules: &Rules) -> Text {
        match self.kept_key() {
            Some(key) => rules.kept.out_of_range_fix(key, || self.out_of_range_fix()),
            None => Text::Owned(self.out_of_range_fix()),
        }
    }

    /// What this set's words depend on, as the key they are kept under: a number's ends and step,
    /// or the choices' address. `None` for a set whose words depend on more (a pattern, an
    /// array's items).
    fn kept_key(&self) -> Option<KeptKey> {
        match *self {
            Accepted::Number { ends: Ends::Whole(min, max), step } => Some(KeptKey::Whole(min, max, step)),
            Accepted::Number { ends: Ends::Real(range), step } => Some(KeptKey::Real(range, step)),
            Accepted::Choices(c) => Some(KeptKey::choices(c)),
            _ => None,
        }
    }

    /// The fix of a number out of range: `Send a value from 1 to 720.`, `Send a value of at
    /// least 0.5.`, `Send a multiple of 0.25 from 0 to 1.`, `Send a multiple of 5 from 1 to 50.`
    pub(crate) fn out_of_range_fix(&self) -> String {
        match *self {
            Accepted::Number { ends: ends @ Ends::Real(_), step: Some(m) } => {
                rendered(format_args!("Send {}.", Number { ends, step: Some(m), noun: "" }))
            }
            Accepted::Number { ends: Ends::Whole(min, max), step } => {
                let mut out = String::with_capacity(48);
                // With a step, a value in range may still be refused: the step is named too.
                match step {
                    Some(Num::Int(m)) => {
                        out.push_str("Send a multiple of ");
                        out.push_str(itoa::Buffer::new().format(m));
                    }
                    _ => out.push_str("Send a value"),
                }
                push_whole_ends(&mut out, min, max);
                out.push('.');
                out
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
            Accepted::Entries { .. } | Accepted::Shape(Ty::Object(_) | Ty::Map(_)) => "{…}".into(),
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
                    // A length that every string of the form meets goes without saying.
                    (Some(form), Some(l)) if form.one_length().is_none_or(|n| n < l.min || n > l.max) => {
                        length::accepted(f, form.words(), &l)?
                    }
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
            Accepted::Entries { length, value, each } => {
                match length {
                    Some(l) => length::accepted(f, "an object", &l)?,
                    None => f.write_str("an object")?,
                }
                match each {
                    Some(rules) => write!(f, ", each value {}", Accepted::of(value, rules)),
                    None if length.is_some() => write!(f, ", each value {}", value.words()),
                    None => write!(f, " whose values are {}", value.plural()),
                }
            }
            Accepted::Shape(ty) => f.write_str(&ty.words()),
        }
    }
}

/// ` from 1 to 720`: the ends of whole numbers as [`range::accepted`] words them.
fn push_whole_ends(out: &mut String, min: i128, max: i128) {
    let mut digits = itoa::Buffer::new();
    // As `i64` when they fit: its digits are several times quicker than `i128`'s.
    let mut push = |out: &mut String, n: i128| match i64::try_from(n) {
        Ok(n) => out.push_str(digits.format(n)),
        Err(_) => out.push_str(digits.format(n)),
    };
    out.push_str(" from ");
    push(out, min);
    out.push_str(" to ");
    push(out, max);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Num;

    /// The sets and fixes written straight are the words `Display` gives them, byte for byte:
    /// whole numbers at every end (`i128`'s too), choices that need escapes, none at all.
    #[test]
    fn the_sets_written_straight_are_their_display() {
        let whole = |min, max, step| Accepted::Number { ends: Ends::Whole(min, max), step };
        let sets = [
            whole(1, 720, None),
            whole(-5, 0, None),
            whole(i128::MIN, i128::MAX, None),
            whole(0, u64::MAX.into(), None),
            Accepted::Choices(Choices::Str(&["query_hash", "database", "application"])),
            Accepted::Choices(Choices::Str(&["a \"b\"", "tab\there", "é✓", ""])),
            Accepted::Choices(Choices::Str(&[])),
            Accepted::Choices(Choices::Int(&[10, -25, i64::MIN, i64::MAX])),
            Accepted::Choices(Choices::Int(&[])),
        ];
        for set in &sets {
            assert_eq!(set.words(), rendered(set), "{set:?}");
        }
        assert_eq!(sets[0].words(), "a whole number from 1 to 720");
        assert_eq!(sets[5].words(), r#"one of "a \"b\"", "tab\there", "é✓", """#);
        assert_eq!(sets[7].words(), "one of 10, -25, -9223372036854775808, 9223372036854775807");
        for (min, max, step) in [(1, 720, None), (-5, 5, Some(Num::Int(5))), (i128::MIN, i128::MAX, None)] {
            let ends = Ends::Whole(min, max);
            let noun = if step.is_some() { "" } else { "a value" };
            let display = rendered(format_args!("Send {}.", Number { ends, step, noun }));
            assert_eq!(whole(min, max, step).out_of_range_fix(), display);
        }
        assert_eq!(whole(1, 720, None).out_of_range_fix(), "Send a value from 1 to 720.");
    }

    /// A parameter's rules keep its refusals' words: the second refusal shares the first's
    /// texts. The same rules given to parameters of other types (a clone shares the place)
    /// word each type's own bounds, refused in any order.
    #[test]
    fn kept_words_are_the_rule_and_type_s_own() {
        use serde_json::json;

        use crate::read::path::{ArgPath, Reading};
        use crate::read::readers::read_int;
        use crate::spec::{Bound, ParamSpec, Range};
        use crate::words::texts::Text;

        let rules = Rules::NONE.with_range(Range::new(Bound::Inclusive(Num::Int(3)), Bound::Unbounded));
        let byte = ParamSpec::new("small", "", Ty::Integer { min: 0, max: 255 }, true).with_rules(rules.clone());
        let word =
            ParamSpec::new("large", "", Ty::Integer { min: 0, max: 65_535 }, true).with_rules(byte.rules.clone());
        let refuse =
            |p: &ParamSpec, hi: i128, v| read_int(&v, &Reading::new(&p.rules, true, ArgPath::Param(p.name)), 0, hi);
        for _ in 0..2 {
            for (p, hi, max) in [(&byte, 255, "255"), (&word, 65_535, "65535"), (&byte, 255, "255")] {
                let problem = refuse(p, hi, json!(1)).unwrap_err();
                assert_eq!(problem.accepted(), format!("a whole number from 3 to {max}"));
                assert_eq!(&*problem.0.fix, format!("Send a value from 3 to {max}."));
                let problem = refuse(p, hi, json!("x")).unwrap_err();
                assert_eq!(problem.accepted(), format!("a whole number from 3 to {max}"));
            }
        }
        // Rules that differ sharing the place (a clone given another step or range, a field
        // changed after a refusal): each refusal says its own rules, whichever came first.
        let stepped = ParamSpec::new("stepped", "", Ty::Integer { min: 0, max: 255 }, true)
            .with_rules(byte.rules.clone().with_multiple_of(Num::Int(5)));
        for _ in 0..2 {
            let problem = refuse(&stepped, 255, json!(1)).unwrap_err();
            assert_eq!(problem.accepted(), "a multiple of 5 from 3 to 255");
            assert_eq!(refuse(&byte, 255, json!(1)).unwrap_err().accepted(), "a whole number from 3 to 255");
        }
        let real = |p: &ParamSpec, v| {
            crate::read::readers::read_f64(&v, &Reading::new(&p.rules, true, ArgPath::Param(p.name))).unwrap_err()
        };
        let mut at_least = ParamSpec::new("at_least", "", Ty::Number, true)
            .with_rules(Rules::NONE.with_range(Range::new(Bound::Inclusive(Num::Int(3)), Bound::Unbounded)));
        let unit = ParamSpec::new("unit", "", Ty::Number, true).with_rules(
            at_least.rules.clone().with_range(Range::new(Bound::Inclusive(Num::Int(0)), Bound::Inclusive(Num::Int(1)))),
        );
        for _ in 0..2 {
            assert_eq!(real(&at_least, json!(1)).accepted(), "a number of at least 3");
            let problem = real(&unit, json!(5));
            assert_eq!((problem.accepted(), &*problem.0.fix), ("a number from 0 to 1", "Send a value from 0 to 1."));
        }
        at_least.rules.multiple_of = Some(Num::Float(0.5));
        let problem = real(&at_least, json!(1));
        assert_eq!(problem.accepted(), "a multiple of 0.5 of at least 3");

        let first = refuse(&byte, 255, json!(0)).unwrap_err();
        let again = refuse(&byte, 255, json!(300)).unwrap_err();
        match (&first.0.accepted, &again.0.accepted) {
            (Text::Kept(a), Text::Kept(b)) => assert!(std::sync::Arc::ptr_eq(a, b)),
            other => panic!("not kept: {other:?}"),
        }
    }
}
