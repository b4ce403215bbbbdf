//! The typed reading: a tool whose parameters all have it ([`FromArg::reads_typed`]: integers to
//! 64 bits, `f64`, `String`, `bool`, `#[derive(Choice)]` enums, and `Option`, `Vec`, maps and
//! `#[derive(Object)]` structs of those) has its arguments read straight into their Rust types,
//! as serde's derive reads a struct: one pass over the text (or the parsed object), each key
//! matched to its parameter (or field), each value deserialized by serde into its type and
//! checked against its rules in place, an array item by item (each type's reading of one value
//! is its `FromArg::read_typed`, in `read::readers`). Nothing is built between the text and the
//! types: no `serde_json::Value`, no slot per value.
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
//! generated code then gives); a choice's exact name; an array of items it takes, counted
//! within the `length` rule; an object of fields it takes.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::read::input::param_index;
use crate::read::path::{ArgPath, Reading};
use crate::read::readers::{FromArg, Seed};
use crate::spec::{ObjectSpec, ParamSpec, ToolSpec, Ty};

/// The arguments as the typed reading receives them: their JSON text, or the parsed object.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Raw<'a> {
    /// The JSON text of the arguments object.
    Text(&'a str),
    /// The parsed arguments object.
    Object(&'a Map<String, Value>),
}

/// The parameters' (or fields') types as a tuple, and the tuple of `Option`s the typed reading
/// fills (`None`: not sent; an `Option` parameter sent as `null` is `Some(None)`). Implemented
/// for every tuple of 1 to 12 types, readable or not, so generated code can name `Read` before
/// it is known whether the types have the typed reading (see [`Probe`]).
#[doc(hidden)]
pub trait Slots {
    /// One `Option` per type.
    type Read;
}

/// The parameters' types as a tuple, read into their [`Slots::Read`], or `None` when the
/// arguments hold anything the general reading must read (a name that is not a parameter or is
/// sent twice, a value its rules refuse). Implemented for tuples of 1 to 12 [`FromArg`] types.
#[doc(hidden)]
pub trait TypedArgs: Slots {
    /// Whether every type has the typed reading ([`FromArg::reads_typed`]).
    fn reads_typed() -> bool;
    /// Reads the arguments from `de`, each key matched to `params` (in declared order first):
    /// `Ok(None)` or `Err` when it declines (a value its rules refuse is never copied), `Err`
    /// where serde refuses the text.
    fn read<'de, D: Deserializer<'de>>(
        params: &[ParamSpec],
        strict: bool,
        de: D,
    ) -> Result<Option<Self::Read>, D::Error>;
    /// [`read`](Self::read) of a held object, walked directly (each value read from its
    /// `&Value`): what serde's `Deserializer for &Map` would give, without its map access and a
    /// key deserializer per key. `None` where it declines.
    fn read_object(params: &[ParamSpec], strict: bool, obj: &Map<String, Value>) -> Option<Self::Read>;
}

/// What generated code asks of a tuple of parameter (or field) types `T`, by method call on
/// `&&Probe::<T>::NEW` with [`ProbeTyped`] and [`ProbeGeneral`] in scope: when every type is a
/// [`FromArg`] the call resolves to [`ProbeTyped`] (the typed reading), else to
/// [`ProbeGeneral`] (none). So a type that is no parameter type is reported once, where the
/// general reading asks for it, not again here.
#[doc(hidden)]
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    /// The probe.
    pub const NEW: Self = Probe(PhantomData);
}

/// The typed reading of `T` (see [`Probe`]).
#[doc(hidden)]
pub trait ProbeTyped<T: Slots> {
    /// Whether every type has the typed reading.
    fn reads(&self) -> bool;
    /// A tool's arguments read by [`read_typed`].
    fn read_args(&self, spec: &ToolSpec, raw: Raw<'_>) -> Option<T::Read>;
    /// An object's fields read from `de` (see [`TypedArgs::read`]).
    fn read_fields<'de, D: Deserializer<'de>>(
        &self,
        spec: &ObjectSpec,
        reading: &Reading<'_>,
        de: D,
    ) -> Result<Option<T::Read>, D::Error>;
}

impl<T: TypedArgs> ProbeTyped<T> for &Probe<T> {
    fn reads(&self) -> bool {
        T::reads_typed()
    }
    fn read_args(&self, spec: &ToolSpec, raw: Raw<'_>) -> Option<T::Read> {
        read_typed::<T>(spec, raw)
    }
    fn read_fields<'de, D: Deserializer<'de>>(
        &self,
        spec: &ObjectSpec,
        reading: &Reading<'_>,
        de: D,
    ) -> Result<Option<T::Read>, D::Error> {
        T::read(&spec.params, reading.strict, de)
    }
}

/// No typed reading, for a `T` that is not all [`FromArg`] types (see [`Probe`]).
#[doc(hidden)]
pub trait ProbeGeneral<T: Slots> {
    /// `false`.
    fn reads(&self) -> bool {
        false
    }
    /// `None`.
    fn read_args(&self, _spec: &ToolSpec, _raw: Raw<'_>) -> Option<T::Read> {
        None
    }
    /// `Ok(None)`.
    fn read_fields<'de, D: Deserializer<'de>>(
        &self,
        _spec: &ObjectSpec,
        _reading: &Reading<'_>,
        _de: D,
    ) -> Result<Option<T::Read>, D::Error> {
        Ok(None)
    }
}

impl<T: Slots> ProbeGeneral<T> for Probe<T> {}

/// The JSON shape of a parameter (or field) type `T`, asked by method call on
/// `&&Probe::<T>::NEW` with [`ProbeShape`] and [`ProbeNoShape`] in scope: `T::ty()` for a
/// [`FromArg`] type. A type that is not one gets `Ty::Any` here and its one diagnostic where
/// the reading asks for it.
#[doc(hidden)]
pub trait ProbeShape {
    /// `T::ty()`.
    fn ty(&self) -> Ty;
}

impl<T: FromArg> ProbeShape for &Probe<T> {
    fn ty(&self) -> Ty {
        T::ty()
    }
}

/// The shape of a type that is no parameter type (see [`ProbeShape`]).
#[doc(hidden)]
pub trait ProbeNoShape {
    /// `Ty::Any`.
    fn ty(&self) -> Ty {
        Ty::Any
    }
}

impl<T> ProbeNoShape for Probe<T> {}

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
        Raw::Object(obj) => T::read_object(&spec.params, spec.strict, obj),
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

/// The map visitor of a tuple of parameter (or field) types.
struct ArgsVisitor<'p, T> {
    params: &'p [ParamSpec],
    strict: bool,
    read: PhantomData<T>,
}

macro_rules! typed_args {
    ($($n:tt $t:ident),+) => {
        impl<$($t),+> Slots for ($($t,)+) {
            type Read = ($(Option<$t>,)+);
        }

        impl<$($t: FromArg),+> TypedArgs for ($($t,)+) {
            fn reads_typed() -> bool {
                $($t::reads_typed())&&+
            }
            fn read<'de, D: Deserializer<'de>>(params: &[ParamSpec], strict: bool, de: D) -> Result<Option<Self::Read>, D::Error> {
                de.deserialize_map(ArgsVisitor::<($($t,)+)> { params, strict, read: PhantomData })
            }
            fn read_object(params: &[ParamSpec], strict: bool, obj: &Map<String, Value>) -> Option<Self::Read> {
                // As `ArgsVisitor::visit_map` below, over the map's entries.
                let mut read: ($(Option<$t>,)+) = Default::default();
                let mut next = 0;
                for (key, value) in obj {
                    match param_index(params, key, next) {
                        $(Some($n) if read.$n.is_none() => {
                            let p = &params[$n];
                            let reading = Reading { rules: &p.rules, strict, path: ArgPath::Param(p.name), numbers: &[] };
                            read.$n = Some($t::read_typed_value(value, &reading)?);
                            next = $n + 1;
                        })+
                        _ => return None,
                    }
                }
                Some(read)
            }
        }

        impl<'de, $($t: FromArg),+> Visitor<'de> for ArgsVisitor<'_, ($($t,)+)> {
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
                            read.$n = map.next_value_seed(Seed::<$t>(&reading, PhantomData))?;
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
    use crate::read::rules::{self, Subject};
    use crate::spec::{Bound, Choices, Format, Length, Num, Pattern, Range, Rules, Unit};

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
