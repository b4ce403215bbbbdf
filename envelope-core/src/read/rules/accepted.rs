//! The accepted set of a value, as data: what its shape and rules admit — a number's bounds
//! (each end inclusive, exclusive or open) and step, a string's length (with its unit), format
//! and pattern, the choices, an array's length and its items' own rules, a map's length and its
//! values' own rules. Built from the rules
//! without allocating, and rendered once: into the sentence and `hints.accepted` ([`Display`]),
//! the fix of a value out of range ([`Accepted::out_of_range_fix`]) and the examples a fix
//! offers ([`Accepted::example_json`] and the readers' `example_whole`/`example_real`). Each
//! rule module writes its own part of the words (its `accepted`).

use std::fmt::Display;

use crate::read::path::{Reading, holds_secret};
use crate::spec::{Choices, Format, Length, Num, Pattern, Range, Rules, Ty};

/// What a value may be. `Display` gives the accepted set in words: `a whole number from 1 to
/// 720`, `a multiple of 0.25 from 0 to 1`, `a string of 1 to 120 characters matching the pattern
/// ^[a-z]+$`, `an array of at most 10 items, each one of "a", "b"`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Accepted<'a> {
    /// `one of 10, 25, 50`, `one of "asc", "desc"`: the choices, in declared order.
    Choices(Choices),
    /// A number within its ends, a multiple of `step` if one is set: `a whole number from 1 to
    /// 720`, `a multiple of 5 from 0 to 100`, `a number greater than 0 (0 itself not allowed)
    /// and at most 1`.
    Number {
        /// Whole numbers between two inclusive ends, or finite numbers within a `range`.
        ends: Ends,
        /// `multiple_of`.
        step: Option<Num>,
    },
    /// A number an `f32` holds, when no `range` narrows it: `a number of at most 3.4028235e38
    /// in size`.
    Single,
    /// A string: its length (characters or bytes), or its `format` (which then states the
    /// form instead of the length), then its `pattern`.
    Text {
        /// `length` / `byte_length`.
        length: Option<Length>,
        /// `format`.
        format: Option<Format>,
        /// `pattern`.
        pattern: Option<&'a Pattern>,
    },
    /// An array: its `length` (in items) and each item's shape, under its own rules when
    /// `each(...)` sets some: `an array of 1 to 3 items, each a whole number`.
    Items {
        /// `length`.
        length: Option<Length>,
        /// The items' shape.
        item: &'a Ty,
        /// `each(...)`: the items' rules.
        each: Option<&'a Rules>,
    },
    /// A map: its `length` (in entries) and each value's shape, under its own rules when
    /// `each(...)` sets some: `an object of at most 20 entries, each value a string of 1 to 64
    /// characters`.
    Entries {
        /// `length`.
        length: Option<Length>,
        /// The values' shape.
        value: &'a Ty,
        /// `each(...)`: the values' rules.
        each: Option<&'a Rules>,
    },
    /// A shape without rules of its own: `true or false`, `an object with the keys "a", "b"`,
    /// `any JSON value`.
    Shape(&'a Ty),
}

/// A value as its reader read it, for the rules to check.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Subject<'s> {
    /// A whole number, of a type holding `lo..=hi`.
    Whole {
        /// The value.
        n: i128,
        /// The type's least value.
        lo: i128,
        /// The type's greatest value.
        hi: i128,
    },
    /// A finite number.
    Real(f64),
    /// A string.
    Text(&'s str),
    /// An array of `n` items, each of the shape `item` gives (called only to word a refusal).
    Items {
        /// How many items.
        n: usize,
        /// The items' shape.
        item: fn() -> Ty,
    },
    /// An object (a map) of `n` entries, each value of the shape `value` gives (called only to
    /// word a refusal).
    Entries {
        /// How many entries.
        n: usize,
        /// The values' shape.
        value: fn() -> Ty,
    },
}

/// The ends of a number's accepted set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Ends {
    /// Whole numbers from the first to the second, both included: the type's own bounds
    /// narrowed by the rule (see [`range::bounds`](super::range::bounds)).
    Whole(i128, i128),
    /// Finite numbers within the rule, each end inclusive, exclusive or open; any without one.
    Real(Option<Range>),
}

/// A fix that offers an example: `Send a JSON number, like 10.`, `Send the object itself, like
/// {"id": 10}, not a string holding it.` Under a secret rule, the lead alone (`Send a JSON
/// number.`): a fix must not quote back what was sent.
pub(crate) fn fix_like(reading: &Reading<'_>, lead: &str, example: impl Display, tail: &str) -> String {
    use std::fmt::Write as _;
    fix_with(reading, lead, tail, |out| {
        let _ = write!(out, "{example}");
    })
}

/// [`fix_like`] with a whole number for the example, its digits written without `core::fmt`.
pub(crate) fn fix_like_whole(reading: &Reading<'_>, lead: &str, example: i128) -> String {
    fix_with(reading, lead, "", |out| out.push_str(itoa::Buffer::new().format(example)))
}

/// `<lead>, like <example><tail>.`, the example written by `example`; `<lead>.` under a secret
/// rule.
fn fix_with(reading: &Reading<'_>, lead: &str, tail: &str, example: impl FnOnce(&mut String)) -> String {
    let mut out = String::with_capacity(lead.len() + tail.len() + 32);
    out.push_str(lead);
    if !holds_secret(reading.rules, None) {
        out.push_str(", like ");
        example(&mut out);
        out.push_str(tail);
    }
    out.push('.');
    out
}

/// `words` as text, written into room for the usual set or fix (a `String` grown from empty
/// would be reallocated at each part written).
pub(crate) fn rendered(words: impl Display) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(64);
    let _ = write!(out, "{words}");
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::read::path::ArgPath as Path;
    use crate::spec::{Bound, Range, Unit};

    fn real(min: Bound, max: Bound, step: Option<Num>) -> Accepted<'static> {
        Accepted::Number { ends: Ends::Real(Some(Range::new(min, max))), step }
    }

    #[test]
    fn a_number_is_worded_with_each_end_and_its_step() {
        let (i, e) = (|x: f64| Bound::Inclusive(Num::Float(x)), |x: i128| Bound::Exclusive(Num::Int(x)));
        let set = real(e(0), i(0.5), Some(Num::Float(0.25)));
        assert_eq!(set.words(), "a multiple of 0.25 greater than 0 (0 itself not allowed) and at most 0.5");
        assert_eq!(
            set.out_of_range_fix(),
            "Send a multiple of 0.25 greater than 0 (0 itself not allowed) and at most 0.5."
        );
        assert_eq!(set.example_json(), "0.25");
        let set = real(i(1.0), Bound::Exclusive(Num::Float(2.5)), None);
        assert_eq!(set.words(), "a number from 1 up to but not including 2.5");
        assert_eq!(set.out_of_range_fix(), "Send a value from 1 up to but not including 2.5.");
        assert_eq!(real(Bound::Unbounded, Bound::Unbounded, None).out_of_range_fix(), "Send a value.");
        // A whole number states its step in the set and in the fix (a value in range may be
        // refused for its step).
        let set = Accepted::Number { ends: Ends::Whole(720, i128::from(i32::MAX)), step: Some(Num::Int(5)) };
        assert_eq!(set.words(), "a multiple of 5 from 720 to 2147483647");
        assert_eq!(set.out_of_range_fix(), "Send a multiple of 5 from 720 to 2147483647.");
        assert_eq!(set.example_whole(), 720);
        assert_eq!(Accepted::Choices(Choices::Int(&[10, 25])).out_of_range_fix(), "Send a value in range.");
        let step = Rules::NONE.with_multiple_of(Num::Float(0.1));
        assert_eq!(
            (Accepted::real(&step).words(), Accepted::real(&step).example_json()),
            ("a multiple of 0.1".into(), "0.1".into())
        );
    }

    #[test]
    fn a_string_states_its_form_and_its_length_and_an_array_its_items() {
        let pattern = Pattern::new("^[a-z]+$", None);
        let length = Some(Length::new(0, 3, Unit::Bytes));
        assert_eq!(Accepted::Text { length, format: None, pattern: None }.words(), "a string of at most 3 bytes");
        let set = Accepted::Text { length, format: Some(Format::Date), pattern: Some(&pattern) };
        assert_eq!(set.words(), "a date as YYYY-MM-DD of at most 3 bytes matching the pattern ^[a-z]+$");
        // A length every date meets (10 characters) goes without saying.
        let ten = Some(Length::new(0, 10, Unit::Characters));
        assert_eq!(
            Accepted::Text { length: ten, format: Some(Format::Date), pattern: None }.words(),
            "a date as YYYY-MM-DD"
        );
        let email = Accepted::Text { length: ten, format: Some(Format::Email), pattern: None };
        assert_eq!(email.words(), "an email address of at most 10 characters");
        let each = Rules::NONE.with_choices(Choices::Str(&["a"]));
        let rules = Rules::NONE.with_length(Length::new(2, 5, Unit::Items)).with_items(each);
        assert_eq!(Accepted::items(&Ty::String, &rules).words(), "an array of 2 to 5 items, each one of \"a\"");
        let rules = Rules::NONE.with_items(Rules::NONE);
        assert_eq!(Accepted::items(&Ty::Number, &rules).words(), "an array, each item a number");
        assert_eq!(Accepted::items(&Ty::Number, &Rules::NONE).words(), "an array of numbers");
    }

    #[test]
    fn a_fix_offers_an_example_unless_the_value_is_secret() {
        let rules = Rules::NONE.with_range(Range::new(Bound::Unbounded, Bound::Exclusive(Num::Float(2.5))));
        let read = |rules: &Rules| {
            let reading = Reading::new(rules, false, Path::Param("p"));
            crate::read::readers::read_f64(&json!("ten"), &reading).unwrap_err().fix().to_owned()
        };
        assert_eq!(read(&rules), "Send a JSON number, like 1.5.");
        assert_eq!(read(&rules.with_secret()), "Send a JSON number.");
    }
}
