//! The typed reading of one scalar (`FromArg::read_typed` of the integers, `f64`, `bool`,
//! `String` and a `#[derive(Choice)]` type, asked by `read::typed`): serde's visitors that accept
//! exactly the values the general readers (`read_int`, `read_f64`, `read_bool`, `read_str`,
//! `read_choice`) accept, with the rules checked as `rules::check` would but without words, and
//! that decline (`Ok(None)`) anything else without an error; and the same reading of a held
//! `Value`, matched on the `Value` itself.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde_json::Value;

use crate::read::path::Reading;
use crate::read::rules::{self, Subject};
use crate::spec::Choices;

/// Visitor methods that decline (`Ok(None)`) a value of another kind than the one read: a value
/// of the wrong kind (`"24h"` for an integer) costs the typed reading no error message, which
/// serde would format only for it to be dropped; the general reading words it.
macro_rules! decline {
    ($($kind:ident),*) => {$(decline!(@ $kind);)*};
    (@ bool) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
    };
    (@ integer) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
    };
    (@ float) => {
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
    };
    (@ str) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
    };
    (@ null) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    };
}

/// An integer of a type whose bounds are `lo..=hi`, read from `de` and accepted as `read_int`
/// accepts it (serde's integer visitors' values: a JSON integer token, not `1.0` or `1e3`);
/// any other value declined.
pub(crate) fn typed_whole<'de, D: Deserializer<'de>>(
    de: D,
    reading: &Reading<'_>,
    lo: i128,
    hi: i128,
) -> Result<Option<i128>, D::Error> {
    de.deserialize_any(Whole { reading, lo, hi })
}

/// An integer held in `v`, read and accepted as [`typed_whole`] reads it from text.
pub(crate) fn whole_value(v: &Value, reading: &Reading<'_>, lo: i128, hi: i128) -> Option<i128> {
    Whole { reading, lo, hi }.of_value(v)
}

/// The visitor of [`typed_whole`].
struct Whole<'r, 'a> {
    reading: &'r Reading<'a>,
    lo: i128,
    hi: i128,
}

impl Whole<'_, '_> {
    #[inline]
    fn accepts(&self, n: i128) -> Option<i128> {
        let (lo, hi) = (self.lo, self.hi);
        (lo <= n && n <= hi && rules::accepts(self.reading, Subject::Whole { n, lo, hi })).then_some(n)
    }

    /// The integer a held value is, as serde's visitors see it (`visit_u64`, `visit_i64`; a
    /// float declined), accepted as above.
    fn of_value(&self, v: &Value) -> Option<i128> {
        let Value::Number(n) = v else { return None };
        let n = match n.as_u64() {
            Some(u) => i128::from(u),
            None => i128::from(n.as_i64()?),
        };
        self.accepts(n)
    }
}

impl Visitor<'_> for Whole<'_, '_> {
    type Value = Option<i128>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer")
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Option<i128>, E> {
        Ok(self.accepts(i128::from(n)))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Option<i128>, E> {
        Ok(self.accepts(i128::from(n)))
    }
    decline!(bool, float, str, null);
}

/// A number read as serde reads an `f64` (an integer token converted), accepted as `read_f64`
/// accepts a finite one; any other value declined.
pub(crate) fn typed_real<'de, D: Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<f64>, D::Error> {
    de.deserialize_any(Real(reading))
}

/// A number held in `v`, as serde's `f64` reads a `Value` (an integer converted, as `as_f64`
/// gives it), accepted as [`typed_real`] accepts it.
pub(crate) fn real_value(v: &Value, reading: &Reading<'_>) -> Option<f64> {
    let Value::Number(n) = v else { return None };
    Real(reading).accepts(n.as_f64()?)
}

/// The visitor of [`typed_real`].
struct Real<'r, 'a>(&'r Reading<'a>);

impl Real<'_, '_> {
    fn accepts(&self, f: f64) -> Option<f64> {
        (f.is_finite() && rules::accepts(self.0, Subject::Real(f))).then_some(f)
    }
}

impl Visitor<'_> for Real<'_, '_> {
    type Value = Option<f64>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number")
    }
    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Option<f64>, E> {
        Ok(self.accepts(f))
    }
    #[allow(clippy::cast_precision_loss)] // as serde's `f64` reads an integer
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Option<f64>, E> {
        Ok(self.accepts(n as f64))
    }
    #[allow(clippy::cast_precision_loss)] // as serde's `f64` reads an integer
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Option<f64>, E> {
        Ok(self.accepts(n as f64))
    }
    decline!(bool, str, null);
}

/// `true` or `false`; any other value declined.
pub(crate) fn typed_flag<'de, D: Deserializer<'de>>(de: D) -> Result<Option<bool>, D::Error> {
    de.deserialize_any(Flag)
}

/// The visitor of [`typed_flag`].
struct Flag;

impl Visitor<'_> for Flag {
    type Value = Option<bool>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a boolean")
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Option<bool>, E> {
        Ok(Some(b))
    }
    decline!(integer, float, str, null);
}

/// A string read from `de` and checked where serde lends it (`read_str`'s checks), copied only
/// when its rules take it; any other value declined.
pub(crate) fn typed_text<'de, D: Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<String>, D::Error> {
    de.deserialize_any(Checked(reading))
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
        Ok(checked_text(self.0, s))
    }
    decline!(bool, integer, float, null);
}

/// A string held in `v`, copied when its rules take it, as [`typed_text`] reads it from text.
pub(crate) fn text_value(v: &Value, reading: &Reading<'_>) -> Option<String> {
    checked_text(reading, v.as_str()?)
}

/// `s`, copied, when `reading`'s rules take it as `read_str` does; `None` for a choice under
/// `ignore_case` (the general reading gives its canonical spelling).
#[inline]
fn checked_text(reading: &Reading<'_>, s: &str) -> Option<String> {
    let rules = reading.rules;
    let canonical = rules.ignore_case && matches!(rules.choices, Some(Choices::Str(_)));
    (!canonical && rules::accepts(reading, Subject::Text(s))).then(|| s.to_owned())
}

/// The index of the name among `names` a string is, for a `#[derive(Choice)]` type
/// (`read_choice`'s exact match); `None` for any other string or value.
#[doc(hidden)]
pub fn typed_choice<'de, D: Deserializer<'de>>(
    de: D,
    names: &'static [&'static str],
) -> Result<Option<usize>, D::Error> {
    de.deserialize_any(Named(names))
}

/// The visitor of [`typed_choice`].
struct Named(&'static [&'static str]);

impl Visitor<'_> for Named {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("one of the names")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|n| *n == s))
    }
    decline!(bool, integer, float, null);
}
