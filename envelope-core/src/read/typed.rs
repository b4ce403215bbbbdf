//! The typed reading: a tool whose parameters are all scalars (integers to 64 bits, `f64`,
//! `String`, `bool`, and `Option` of those) has its arguments read straight into their Rust
//! types, as serde's derive reads a struct: one pass over the text (or the parsed object), each
//! key matched to its parameter, each value deserialized by serde into the parameter's type and
//! checked against its rules in place. Nothing is built between the text and the types.
//!
//! It only ever accepts: on anything it does not read exactly as the general reading would (a key
//! that is not a parameter or is sent twice, `null` for a required parameter, a value serde does
//! not take for the type, such as `5.0` or `"5"` for an integer, a broken rule, a choice under
//! `ignore_case`, text after the object), it declines (`None`), and the general reading
//! (`crate::read::input`'s walk, or [`Args`](crate::read::args::Args) over the parsed object)
//! reads the arguments again and words the refusal. So every reply is the general reading's,
//! byte for byte; the typed one only makes the usual valid call fast.
//!
//! Values it takes are those the general reading takes, with the same Rust value: an integer
//! literal within the type's bounds; any JSON number for `f64` (serde_json's parse, the one the
//! general reading uses); a JSON string, escapes decoded as serde_json decodes them; `true` or
//! `false`; `null` or nothing for an `Option` (and for a parameter with a default, which the
//! generated code then gives).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::read::input::param_index;
use crate::read::path::{ArgPath, Reading};
use crate::read::rules::{self, Subject};
use crate::spec::{Choices, ParamSpec, ToolSpec};

/// The arguments as the typed reading receives them: their JSON text, or the parsed object.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Raw<'a> {
    /// The JSON text of the arguments object.
    Text(&'a str),
    /// The parsed arguments object.
    Object(&'a Map<String, Value>),
}

/// A parameter type the typed reading reads: deserialized by serde and checked against the
/// parameter's rules as it is read, as the general reading's readers check it.
#[doc(hidden)]
pub trait Typed: Sized {
    /// Reads the value from `de` and checks it: `Ok(None)` when it is read but its rules refuse
    /// it (a string refused is never copied), `Err` when serde does not read it as `Self`.
    fn read<'de, D: Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error>;
}

macro_rules! typed_int {
    ($($t:ty),*) => {$(
        impl Typed for $t {
            fn read<'de, D: Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
                // `read_int`'s checks on an integer within the type's bounds.
                let n = <$t as serde::Deserialize>::deserialize(de)?;
                let whole = Subject::Whole { n: n as i128, lo: <$t>::MIN as i128, hi: <$t>::MAX as i128 };
                Ok(rules::accepts(reading, whole).then_some(n))
            }
        }
    )*};
}
typed_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl Typed for f64 {
    fn read<'de, D: Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
        // `read_f64`'s checks on a finite number (serde_json reads no other).
        let f = <f64 as serde::Deserialize>::deserialize(de)?;
        Ok((f.is_finite() && rules::accepts(reading, Subject::Real(f))).then_some(f))
    }
}

impl Typed for bool {
    fn read<'de, D: Deserializer<'de>>(de: D, _reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
        <bool as serde::Deserialize>::deserialize(de).map(Some)
    }
}

impl Typed for String {
    fn read<'de, D: Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
        de.deserialize_string(Checked(reading))
    }
}

/// A string checked where serde lends it, and copied only when its rules take it (`read_str`'s
/// checks); a choice under `ignore_case` is left to the general reading, which gives the
/// canonical spelling.
struct Checked<'r, 'a>(&'r Reading<'a>);

impl Visitor<'_> for Checked<'_, '_> {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Option<String>, E> {
        let rules = self.0.rules;
        let canonical = rules.ignore_case && matches!(rules.choices, Some(Choices::Str(_)));
        Ok((!canonical && rules::accepts(self.0, Subject::Text(s))).then(|| s.to_owned()))
    }
}

impl<T: Typed> Typed for Option<T> {
    fn read<'de, D: Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
        de.deserialize_option(Optional::<T>(reading, std::marker::PhantomData))
    }
}

/// `null` as `None`, anything else as `T` (an `Option` parameter).
struct Optional<'r, 'a, T>(&'r Reading<'a>, std::marker::PhantomData<T>);

impl<'de, T: Typed> Visitor<'de> for Optional<'_, '_, T> {
    type Value = Option<Option<T>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or null")
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Some(None))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Some(None))
    }
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        Ok(T::read(de, self.0)?.map(Some))
    }
}

/// The value of one parameter, read by [`Typed::read`] with its reading.
struct Seed<'r, 'a, T>(&'r Reading<'a>, std::marker::PhantomData<T>);

impl<'de, T: Typed> DeserializeSeed<'de> for Seed<'_, '_, T> {
    type Value = Option<T>;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Option<T>, D::Error> {
        T::read(de, self.0)
    }
}

/// The parameters' types as a tuple, read into a tuple of `Option`s (`None`: not sent; an
/// `Option` parameter sent as `null` is `Some(None)`), or `None` when the arguments hold anything
/// the general reading must read (a name that is not a parameter or is sent twice, a value its
/// rules refuse). Implemented for tuples of up to 12 [`Typed`] types.
#[doc(hidden)]
pub trait TypedArgs {
    /// One `Option` per parameter.
    type Read;
    /// Reads the arguments from `de`, each key matched to `params` (in declared order first):
    /// `Ok(None)` or `Err` when it declines (a value its rules refuse is never copied), `Err`
    /// where serde refuses the text.
    fn read<'de, D: Deserializer<'de>>(
        params: &[ParamSpec],
        strict: bool,
        de: D,
    ) -> Result<Option<Self::Read>, D::Error>;
}

/// Reads `raw` into `T`'s types for the tool `spec`; `None` where the general reading must read
/// it (see the module's documentation).
#[doc(hidden)]
pub fn read_typed<T: TypedArgs>(spec: &ToolSpec, raw: Raw<'_>) -> Option<T::Read> {
    match raw {
        Raw::Text(text) => {
            let mut de = serde_json::Deserializer::from_str(text);
            let read = T::read(&spec.params, spec.strict, &mut de).ok()??;
            de.end().ok()?;
            Some(read)
        }
        Raw::Object(obj) => T::read(&spec.params, spec.strict, obj).ok()?,
    }
}

/// A key, read as the index of the parameter it names (`next`: the index tried first).
struct KeyIndex<'p> {
    params: &'p [ParamSpec],
    next: usize,
}

impl<'de> DeserializeSeed<'de> for KeyIndex<'_> {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Option<usize>, D::Error> {
        de.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyIndex<'_> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a parameter name")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(param_index(self.params, key, self.next))
    }
}

/// The map visitor of a tuple of parameter types.
struct ArgsVisitor<'p, T> {
    params: &'p [ParamSpec],
    strict: bool,
    read: std::marker::PhantomData<T>,
}

macro_rules! typed_args {
    ($($n:tt $t:ident),+) => {
        impl<$($t: Typed),+> TypedArgs for ($($t,)+) {
            type Read = ($(Option<$t>,)+);
            fn read<'de, D: Deserializer<'de>>(params: &[ParamSpec], strict: bool, de: D) -> Result<Option<Self::Read>, D::Error> {
                de.deserialize_map(ArgsVisitor::<($($t,)+)> { params, strict, read: std::marker::PhantomData })
            }
        }

        impl<'de, $($t: Typed),+> Visitor<'de> for ArgsVisitor<'_, ($($t,)+)> {
            type Value = Option<($(Option<$t>,)+)>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of arguments")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                // Each slot `None` until its key is met. At the first thing the general reading
                // must read (a name that is not a parameter or is sent twice, a value refused)
                // it stops, building nothing: the deserializer then finds the object unfinished.
                let mut read: ($(Option<$t>,)+) = Default::default();
                let mut next = 0;
                while let Some(key) = map.next_key_seed(KeyIndex { params: self.params, next })? {
                    match key {
                        $(Some($n) if read.$n.is_none() => {
                            let p = &self.params[$n];
                            let reading = Reading { rules: &p.rules, strict: self.strict, path: ArgPath::Param(p.name), numbers: &[] };
                            read.$n = map.next_value_seed(Seed::<$t>(&reading, std::marker::PhantomData))?;
                            if read.$n.is_none() {
                                return Ok(None);
                            }
                            next = $n + 1;
                        })+
                        _ => return Ok(None),
                    }
                }
                Ok(Some(read))
            }
        }
    };
}
typed_args!(0 T0);
typed_args!(0 T0, 1 T1);
typed_args!(0 T0, 1 T1, 2 T2);
typed_args!(0 T0, 1 T1, 2 T2, 3 T3);
typed_args!(0 T0, 1 T1, 2 T2, 3 T3, 4 T4);
typed_args!(0 T0, 1 T1, 2 T2, 3 T3, 4 T4, 5 T5);
typed_args!(0 T0, 1 T1, 2 T2, 3 T3, 4 T4, 5 T5, 6 T6);
typed_args!(0 T0, 1 T1, 2 T2, 3 T3, 4 T4, 5 T5, 6 T6, 7 T7);
typed_args!(0 T0, 1 T1, 2 T2, 3 T3, 4 T4, 5 T5, 6 T6, 7 T7, 8 T8);
typed_args!(0 T0, 1 T1, 2 T2, 3 T3, 4 T4, 5 T5, 6 T6, 7 T7, 8 T8, 9 T9);
typed_args!(0 T0, 1 T1, 2 T2, 3 T3, 4 T4, 5 T5, 6 T6, 7 T7, 8 T8, 9 T9, 10 T10);
typed_args!(0 T0, 1 T1, 2 T2, 3 T3, 4 T4, 5 T5, 6 T6, 7 T7, 8 T8, 9 T9, 10 T10, 11 T11);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Bound, Format, Length, Num, Pattern, Range, Rules, Unit};

    /// `rules::accepts`, which the typed reading asks, answers exactly what `rules::check` lets
    /// through, for every rule over values on, inside and outside its edges.
    #[test]
    fn accepts_is_checks_answer_without_the_words() {
        let int_range = |a, b| Some(Range::new(Bound::Inclusive(Num::Int(a)), Bound::Exclusive(Num::Int(b))));
        let real_range = Some(Range::new(Bound::Exclusive(Num::Float(0.0)), Bound::Inclusive(Num::Float(1.5))));
        let rules = [
            Rules { range: int_range(-3, 10), ..Rules::NONE },
            Rules { range: int_range(0, 100), multiple_of: Some(Num::Int(5)), ..Rules::NONE },
            Rules { multiple_of: Some(Num::Float(0.25)), ..Rules::NONE },
            Rules { range: real_range, ..Rules::NONE },
            Rules { choices: Some(Choices::Int(&[1, 2, 40])), ..Rules::NONE },
            Rules { choices: Some(Choices::Str(&["day", "hour"])), ..Rules::NONE },
            Rules { choices: Some(Choices::Str(&["day", "hour"])), ignore_case: true, ..Rules::NONE },
            Rules { length: Some(Length::new(2, 4, Unit::Characters)), ..Rules::NONE },
            Rules { length: Some(Length::new(2, 4, Unit::Bytes)), ..Rules::NONE },
            Rules { length: Some(Length::new(0, 3, Unit::Characters)), format: Some(Format::Date), ..Rules::NONE },
            Rules { format: Some(Format::Email), ..Rules::NONE },
            Rules { pattern: Some(Pattern::new("^[a-z]+$", None)), ..Rules::NONE },
            Rules::NONE,
        ];
        let texts =
            ["", "a", "ab", "día", "éééé", "ééééé", "abcd", "abcde", "Day", "day", "hour", "2026-11-30", "x@y.z", "A1"];
        for r in &rules {
            let reading = Reading { rules: r, strict: true, path: ArgPath::Param("p"), numbers: &[] };
            for n in -5i128..=105 {
                for (lo, hi) in [(i128::from(i8::MIN), i128::from(i8::MAX)), (0, i128::from(u32::MAX))] {
                    let x = Subject::Whole { n, lo, hi };
                    assert_eq!(
                        rules::accepts(&reading, x),
                        rules::check(&reading, &Value::Null, x).is_ok(),
                        "{r:?} {n}"
                    );
                }
                let f = n as f64 / 4.0 - 0.5;
                let x = Subject::Real(f);
                assert_eq!(rules::accepts(&reading, x), rules::check(&reading, &Value::Null, x).is_ok(), "{r:?} {f}");
            }
            for t in texts {
                let x = Subject::Text(t);
                assert_eq!(rules::accepts(&reading, x), rules::check(&reading, &Value::Null, x).is_ok(), "{r:?} {t:?}");
            }
        }
    }
}
