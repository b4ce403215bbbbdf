//! The value readers, beside the rules: JSON in, a typed value out, or a [`Problem`]. Each
//! reads one JSON shape and hands the value read to `rules::check`, which applies the rules in
//! their one order; a value of the wrong shape is refused with its accepted set
//! (`rules::Accepted`), rendered once. At the end, each type's typed reading of one value
//! (`FromArg::read_typed`, for `read::typed`): serde reads it into the type, and its rules are
//! checked with `rules::check`'s answer but none of its words.
//!
//! The lax policy (default) accepts lossless coercions only, and documents them:
//! - a JSON string holding an integer in plain decimal digits (`"48"`) for an integer parameter;
//! - a JSON string holding a finite decimal number (`"0.5"`) for a number parameter;
//! - the strings `"true"` and `"false"` for a boolean parameter.
//!
//! `#[tool(strict)]` refuses each of these, saying to send the JSON type itself. A whole float
//! (`48.0`) for an integer is taken in both modes: JSON Schema 2020-12 counts it as an integer,
//! so the `inputSchema` accepts it too and strict mode agrees with the schema on every value.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde_json::Value;

use crate::outcome::refusal::Problem;
use crate::read::containers::container_in_string;
pub use crate::read::input::Sent;
use crate::read::path::{ArgPath as Path, Reading, hidden_if_secret};
use crate::read::rules::range::Ends;
use crate::read::rules::{self, Accepted, Subject, choices, fix_like, fix_like_whole, multiple_of, range};
use crate::read::scalars;
use crate::read::tally::Tally;
use crate::read::whole::{self, Exact};
use crate::spec::{Choices, Rules, Ty, Unit};
use crate::words::render;

/// advertises. Implemented for the integer types, `f32`, `f64`, `bool`, `String`, `Option<T>`,
/// `Vec<T>` and `serde_json::Value`.
///
/// # A type of your own
///
/// A type alias of a parameter type is that type. A newtype implements `FromArg` by reading
/// the type it wraps: the rules on the parameter reach the reader through `reading`, so the
/// refusals, the schema and the manifest are the wrapped type's. A newtype of a number that
/// takes `range` or `multiple_of` implements [`Numeric`] too.
///
/// A tool whose parameter types are all the crate's (and `#[derive(Object)]` and
/// `#[derive(Choice)]` types of them) first reads its arguments straight into those types, as
/// serde's derive reads a struct; a tool that takes a type of your own reads them by `from_arg`
/// (and `from_sent`), which answers the same, refusals included, at the cost of a slot per value.
///
/// ```
/// use envelope_core::spec::Ty;
/// use envelope_core::{Reading, FromArg, read::Numeric, Problem, Toolbox, tool};
/// use serde_json::{Value, json};
///
/// /// A number of hours.
/// pub struct Hours(u32);
///
/// impl FromArg for Hours {
///     fn ty() -> Ty {
///         u32::ty()
///     }
///     fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
///         u32::from_arg(v, reading).map(Hours)
///     }
/// }
///
/// impl Numeric for Hours {}
///
/// /// Counts the queries of the last hours.
/// #[tool]
/// fn count_queries(#[validate(range = 1..=720)] hours_back: Hours) -> u32 {
///     hours_back.0
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let toolbox = Toolbox::new().with(count_queries::tool());
/// let ok = toolbox.call("count_queries", Some(&json!({"hours_back": 48}))).await.unwrap();
/// assert_eq!(ok.to_value()["data"], 48);
/// let refused = toolbox.call("count_queries", Some(&json!({"hours_back": 0}))).await.unwrap();
/// assert_eq!(
///     refused.message().unwrap(),
///     "hours_back: 0 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720."
/// );
/// let schema = toolbox.get("count_queries").unwrap().input_schema();
/// assert_eq!(schema["properties"]["hours_back"], json!({"type": "integer", "minimum": 1, "maximum": 720}));
/// # });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "use an integer, f64, bool, String, Vec<T>, Option<T>, BTreeMap<String, T>, HashMap<String, T>, serde_json::Value, or a type with `#[derive(Object)]` or `#[derive(Choice)]`",
    note = "a parameter's type decides the JSON it accepts and the schema it advertises"
)]
pub trait FromArg: Sized {
    /// The JSON shape.
    fn ty() -> Ty;
    /// Reads `v` (never JSON `null` for a top-level parameter: that means absent).
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem>;
    /// Reads a value of the arguments' text (see [`Sent`]: a scalar, or an array or object
    /// kept as its text), read by `Toolbox::call_json` in one pass without a
    /// `serde_json::Value`. It answers exactly as `from_arg` on the equal `Value`, refusals
    /// included. The default reads it as `from_arg` reads the equal `Value` (built, for an
    /// array or object), quoting a number as it was sent; a type overrides it only to skip work
    /// (`String` keeps the one copy it needs, a `Choice` compares the text in place, `Vec<T>`
    /// reads its items from the text, `#[derive(Object)]` its fields).
    #[doc(hidden)]
    fn from_sent(sent: &Sent<'_>, reading: &Reading<'_>) -> Result<Self, Problem> {
        sent_as_value(sent, reading, Self::from_arg)
    }
    /// [`from_arg`](Self::from_arg) of a value whose reading will not be used: another value of
    /// its object was refused before it, so the call is refused whatever this one holds. The
    /// same refusal where it is refused; where it is accepted, any value, which a type may give
    /// without building the one sent (`String` answers an empty string: no copy). The default
    /// reads it.
    #[doc(hidden)]
    fn from_arg_unused(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        Self::from_arg(v, reading)
    }
    /// [`from_arg_unused`](Self::from_arg_unused) of a value of the arguments' text.
    #[doc(hidden)]
    fn from_sent_unused(sent: &Sent<'_>, reading: &Reading<'_>) -> Result<Self, Problem> {
        Self::from_sent(sent, reading)
    }
    /// The value when the parameter is absent or `null`: `Some(None)` for `Option`, else `None`
    /// (the parameter is required).
    fn absent() -> Option<Self> {
        None
    }
    /// Whether [`read_typed`](Self::read_typed) reads this type: the typed reading
    /// (`read::typed`) is tried for a tool only when every parameter's type has it. `false` by
    /// default; the integer types to 64 bits, `f64`, `bool`, `String`, and `Option<T>`,
    /// `Vec<T>`, maps, `#[derive(Object)]` and `#[derive(Choice)]` types of those have it.
    #[doc(hidden)]
    fn reads_typed() -> bool {
        false
    }
    /// Reads the value straight from `de` into `Self`, as serde's derive reads a field, and
    /// checks it against `reading`'s rules as it is read: `Ok(None)` when a rule refuses it (or
    /// the type does not read it the typed way), `Err` where serde does not read it as `Self`.
    /// It accepts only values `from_arg` accepts, and gives the value `from_arg` gives; where
    /// it declines, the general reading reads the arguments again and words the refusal. The
    /// default declines at once.
    #[doc(hidden)]
    fn read_typed<'de, D: serde::Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
        let _ = (de, reading);
        Ok(None)
    }
    /// [`read_typed`](Self::read_typed) of a held value, answering as it does: a scalar type
    /// matches the `Value` itself, without serde's visitors; the default reads the value through
    /// `read_typed`.
    #[doc(hidden)]
    fn read_typed_value(v: &Value, reading: &Reading<'_>) -> Option<Self> {
        Self::read_typed(v, reading).ok().flatten()
    }
}

/// A parameter type that reads a JSON number: `range` and `multiple_of` apply to it. Implemented
/// for the integer types, `f32` and `f64`; a newtype of a number implements it to take those
/// rules (see [`FromArg`]). A type alias of a number is that number and needs nothing.
///
/// The `#[tool]` macro checks the types it knows by name; for any other type it asks for this
/// trait, so `range` on a type that is not a number is a compile error at the rule.
#[diagnostic::on_unimplemented(
    message = "`range` and `multiple_of` apply to numbers, and `{Self}` is not one",
    label = "this rule needs a parameter type that implements `envelope_core::read::Numeric`",
    note = "a newtype of a number implements `FromArg` by reading the number, and `Numeric`"
)]
pub trait Numeric: FromArg {
    /// What the `#[tool]` macro names to check that a rule applies to the type: an unmet bound
    /// on it reports this trait only. Never implemented by hand.
    #[doc(hidden)]
    const RULES_APPLY: () = ();
}

macro_rules! numeric {
    ($($t:ty),*) => {$(impl Numeric for $t {})*};
}
numeric!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

/// Reads `sent` with `read` as the equal `Value`, a number quoted as it was sent: what
/// [`FromArg::from_sent`] does where it does not read the text itself. Used by the code
/// `#[derive(Object)]` generates.
#[doc(hidden)]
pub fn sent_as_value<T>(sent: &Sent<'_>, reading: &Reading<'_>, read: impl FnOnce(&Value, &Reading<'_>) -> T) -> T {
    // An array or object is built from its text: its numbers read back as sent, no table needed.
    let v = sent.to_value();
    if !v.is_number() {
        return read(&v, reading);
    }
    let numbers = [(std::ptr::from_ref(&v) as usize, sent.text)];
    read(&v, &Reading { numbers: &numbers, ..*reading })
}

/// Reads an integer within `[lo, hi]` (the Rust type's bounds) and the value's rules.
///
/// Refusals: a fraction (`48.5 is not a whole number`), a non-number (`"ten" is a string`), a
/// numeric string or whole float in strict mode, a value outside the range (both bounds
/// stated), a value not among the integer choices (every choice listed).
pub fn read_int(v: &Value, reading: &Reading<'_>, lo: i128, hi: i128) -> Result<i128, Problem> {
    // The fast path: an integer within its bounds, no words built.
    if let Value::Number(num) = v
        && reading.rules.choices.is_none()
        && reading.rules.multiple_of.is_none()
        && let Some(n) = num.as_i64().map(i128::from).or_else(|| num.as_u64().map(i128::from))
    {
        let (min, max) = range::bounds(reading.rules.range.as_ref(), lo, hi);
        if n >= min && n <= max {
            return Ok(n);
        }
    }
    // Its accepted set: the integer choices, else its bounds and step.
    let set = match reading.rules.choices {
        Some(Choices::Int(c)) => Accepted::Choices(Choices::Int(c)),
        _ => Accepted::whole(reading.rules, lo, hi),
    };
    let n: i128 = match v {
        Value::Number(num) => {
            if let Some(i) = num.as_i64() {
                i128::from(i)
            } else if let Some(u) = num.as_u64() {
                i128::from(u)
            } else if let Some(exact) = render::number_as_sent(v, reading.numbers).and_then(whole::exact) {
                // The literal as sent, not the double a `Value` holds: `36893488147419103233`
                // is itself, `254.99999999999999999` is not whole.
                match exact {
                    Exact::Whole(n) => n,
                    Exact::Beyond => return Err(range::out_of_range(reading, v, &set)),
                    Exact::Fraction => {
                        let fix = fix_like_whole(reading, "Send a whole number", set.example_whole());
                        return Err(reading.problem_of(
                            v,
                            "is not a whole number",
                            set.words_under(reading.rules),
                            fix,
                        ));
                    }
                }
            } else {
                // A double held without its text (a `Value` built in code): read as it is.
                let f = num.as_f64().unwrap_or(f64::NAN);
                if f.fract() != 0.0 || !f.is_finite() {
                    let fix = fix_like_whole(reading, "Send a whole number", set.example_whole());
                    return Err(reading.problem_of(v, "is not a whole number", set.words_under(reading.rules), fix));
                }
                // A whole float is an integer in JSON's data model (JSON Schema 2020-12 Core
                // §4.2.2), so strict mode takes it too. serde_json reads every integer literal
                // that fits 64 bits as an integer: a float at or past 2^63 came from a literal
                // too large for the 64-bit types, and has lost digits; it is out of their range.
                let beyond_64_bits = f.abs() >= 9.223_372_036_854_776e18;
                if f.abs() >= 1e38 || (beyond_64_bits && lo >= i128::from(i64::MIN) && hi <= i128::from(u64::MAX)) {
                    return Err(range::out_of_range(reading, v, &set));
                }
                f as i128
            }
        }
        Value::String(s) => match parse_decimal_int(s) {
            Some(Ok(n)) if !reading.strict => n,
            // Digits past `i128`: a number out of range, as the same digits sent as a number are.
            Some(Err(Beyond)) if !reading.strict => return Err(range::out_of_range(reading, v, &set)),
            Some(Err(Beyond)) => {
                let fix = fix_like_whole(reading, "Send a JSON number", set.example_whole());
                return Err(reading.problem_of(v, "is a string", set.words_under(reading.rules), fix));
            }
            Some(Ok(n)) => {
                // The number the string holds, when it would be accepted; else an accepted one.
                let fix = if lo <= n && n <= hi && rules::accepts(reading, Subject::Whole { n, lo, hi }) {
                    fix_like_whole(reading, "Send it as a JSON number", n)
                } else {
                    fix_like_whole(reading, "Send a JSON number", set.example_whole())
                };
                return Err(reading.problem_of(v, "is a string", set.words_under(reading.rules), fix));
            }
            None if names_non_finite(s) => {
                return Err(not_finite(reading, v, &set, set.example_whole()));
            }
            None => {
                let fix = fix_like_whole(reading, "Send it as a JSON number", set.example_whole());
                return Err(reading.problem_of(v, "is a string", set.words_under(reading.rules), fix));
            }
        },
        _ => {
            let fix = fix_like_whole(reading, "Send a JSON number", set.example_whole());
            return Err(reading.problem_of(v, render::type_issue(v), set.words_under(reading.rules), fix));
        }
    };
    rules::check(reading, v, Subject::Whole { n, lo, hi })?;
    Ok(n)
}

/// An integer of the arguments' text within `[lo, hi]` and its range, when its rules have no
/// choices or step: what `read_int` accepts at once; `None` for anything `read_int` must look at.
fn int_in_range(sent: &Sent<'_>, reading: &Reading<'_>, lo: i128, hi: i128) -> Option<i128> {
    let crate::read::input::Scalar::Number(num) = &sent.scalar else { return None };
    if reading.rules.choices.is_some() || reading.rules.multiple_of.is_some() {
        return None;
    }
    let n = num.as_i64().map(i128::from).or_else(|| num.as_u64().map(i128::from))?;
    let (min, max) = range::bounds(reading.rules.range.as_ref(), lo, hi);
    (n >= min && n <= max).then_some(n)
}

/// Digits past what `i128` holds.
struct Beyond;

/// `"48"`, `"-3"`: optional minus, then ASCII digits only (no spaces, signs, exponents); `None`
/// for any other string, `Err` for digits past `i128` (`i128::MAX`'s 39 digits are read).
fn parse_decimal_int(s: &str) -> Option<Result<i128, Beyond>> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(s.parse().map_err(|_| Beyond))
}

/// `"NaN"`, `"inf"`, `"Infinity"` (any case, any sign) sent for a number: a string that names a
/// number JSON cannot carry. Its issue is that, not that it is a string (lax mode reads `"0.5"`).
fn names_non_finite(s: &str) -> bool {
    s.trim().parse::<f64>().is_ok_and(|f| !f.is_finite())
}

/// The refusal of a value that is, or names, a number that is not finite.
fn not_finite(reading: &Reading<'_>, v: &Value, set: &Accepted<'_>, example: impl std::fmt::Display) -> Problem {
    reading.problem_of(
        v,
        "is not a finite number",
        set.words_under(reading.rules),
        fix_like(reading, "Send a finite JSON number", example, ""),
    )
}

/// A finite number within the value's range and step: what `read_f64` accepts at once; `None`
/// for anything `read_f64` must look at.
fn real_in_range(n: &serde_json::Number, reading: &Reading<'_>) -> Option<f64> {
    let f = n.as_f64().filter(|f| f.is_finite())?;
    let within = reading.rules.range.as_ref().is_none_or(|r| range::contains(r, f))
        && reading.rules.multiple_of.is_none_or(|m| multiple_of::real_accepts(m, f));
    within.then_some(f)
}

/// Reads a finite number within the value's `range`.
///
/// Refusals: a non-number, a numeric string in strict mode, a value outside the range (each
/// bound stated with whether it is included).
pub fn read_f64(v: &Value, reading: &Reading<'_>) -> Result<f64, Problem> {
    // The fast path: a finite JSON number within range, no words built.
    if let Value::Number(n) = v
        && let Some(f) = real_in_range(n, reading)
    {
        return Ok(f);
    }
    let set = Accepted::real(reading.rules);
    let example = || render::number(set.example_real());
    let f = match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => match s.trim().parse::<f64>() {
            Ok(f) if f.is_finite() && s.trim() == s && !reading.strict => f,
            Ok(f) if f.is_finite() && s.trim() == s => {
                // The number the string holds, when it would be accepted; else an accepted one.
                let fix = if rules::accepts(reading, Subject::Real(f)) {
                    fix_like(reading, "Send it as a JSON number", render::number(f), "")
                } else {
                    fix_like(reading, "Send a JSON number", example(), "")
                };
                return Err(reading.problem_of(v, "is a string", set.words_under(reading.rules), fix));
            }
            Ok(_) => return Err(not_finite(reading, v, &set, example())),
            _ => {
                let fix = fix_like(reading, "Send a JSON number", example(), "");
                return Err(reading.problem_of(v, "is a string", set.words_under(reading.rules), fix));
            }
        },
        _ => {
            let fix = fix_like(reading, "Send a JSON number", example(), "");
            return Err(reading.problem_of(v, render::type_issue(v), set.words_under(reading.rules), fix));
        }
    };
    if !f.is_finite() {
        return Err(not_finite(reading, v, &set, example()));
    }
    rules::check(reading, v, Subject::Real(f))?;
    Ok(f)
}

/// Reads a string that meets the value's `choices`.
///
/// Refusals: a non-string; a value not among the choices (every choice listed, the closest
/// offered — a case-only difference included).
pub fn read_str<'v>(v: &'v Value, reading: &Reading<'_>) -> Result<&'v str, Problem> {
    let choices = match reading.rules.choices {
        Some(Choices::Str(c)) => Some(c),
        _ => None,
    };
    let Value::String(s) = v else {
        let plain = reading.rules.length.is_none() && reading.rules.pattern.is_none() && reading.rules.format.is_none();
        let (set, fix) = match (choices, v) {
            (Some(c), _) => {
                let first = render::quoted_list(c.first().copied());
                let fix = fix_like(reading, "Send one of the accepted values as a JSON string", first, "");
                (Accepted::Choices(Choices::Str(c)), fix)
            }
            // The number's characters as sent (`1e2`, not serde's `100.0`).
            (None, Value::Number(n)) if plain => (Accepted::text(reading.rules), {
                let sent = render::number_as_sent(v, reading.numbers);
                match sent {
                    Some(text) => fix_like(reading, "Send it as a JSON string", format_args!("\"{text}\""), ""),
                    None => fix_like(reading, "Send it as a JSON string", format_args!("\"{n}\""), ""),
                }
            }),
            (None, _) => (Accepted::text(reading.rules), "Send a JSON string.".to_owned()),
        };
        return Err(reading.problem_of(v, render::type_issue(v), set.words_under(reading.rules), fix));
    };
    rules::check(reading, v, Subject::Text(s))?;
    // Under `ignore_case`, the canonical spelling of the choice sent.
    match choices {
        Some(c) if reading.rules.ignore_case => Ok(choices::canonical(c, s).unwrap_or(s)),
        _ => Ok(s),
    }
}

/// Reads one of `names` (a `#[derive(Choice)]` enum's variants) and gives its index. No
/// allocation: the string is compared in place.
pub fn read_choice(v: &Value, reading: &Reading<'_>, names: &'static [&'static str]) -> Result<usize, Problem> {
    if let Value::String(s) = v
        && let Some(i) = names.iter().position(|n| *n == s)
    {
        return Ok(i);
    }
    let rules = Rules { choices: Some(Choices::Str(names)), ..reading.rules.clone() };
    let with_choices = reading.with_rules(&rules);
    let s = read_str(v, &with_choices)?;
    // Only a case-only difference under `ignore_case` gets here.
    Ok(names.iter().position(|n| *n == s).unwrap_or(0))
}

/// [`read_choice`] of a scalar of the arguments' text: a string among `names` is found in place.
pub fn read_choice_sent(
    sent: &Sent<'_>,
    reading: &Reading<'_>,
    names: &'static [&'static str],
) -> Result<usize, Problem> {
    if let Some(s) = sent.as_str()
        && let Some(i) = names.iter().position(|n| *n == s)
    {
        return Ok(i);
    }
    sent_as_value(sent, reading, |v, reading| read_choice(v, reading, names))
}

/// Reads `true` or `false` (and, lax, the strings `"true"` and `"false"`).
pub fn read_bool(v: &Value, reading: &Reading<'_>) -> Result<bool, Problem> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if !reading.strict && (s == "true" || s == "false") => Ok(s == "true"),
        Value::String(s) if s == "true" || s == "false" => Err(reading.problem_of(
            v,
            "is a string",
            "true or false",
            format!("Send it as a JSON boolean, {s}, without quotes."),
        )),
        _ => Err(reading.problem_of(v, render::type_issue(v), "true or false", "Send a JSON boolean, true or false.")),
    }
}

macro_rules! int_from_arg {
    ($typed:literal: $($t:ty),*) => {$(
        impl FromArg for $t {
            fn reads_typed() -> bool {
                $typed
            }
            fn read_typed<'de, D: serde::Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
                // `read_int`'s checks on an integer within the type's bounds (serde_json reads
                // an `i128` past 64 bits its own way: left to the general reading).
                if !$typed {
                    return Ok(None);
                }
                Ok(scalars::typed_whole(de, reading, <$t>::MIN as i128, <$t>::MAX as i128)?.map(|n| n as $t))
            }
            fn read_typed_value(v: &Value, reading: &Reading<'_>) -> Option<Self> {
                if !$typed {
                    return None;
                }
                scalars::whole_value(v, reading, <$t>::MIN as i128, <$t>::MAX as i128).map(|n| n as $t)
            }
            fn ty() -> Ty {
                Ty::Integer { min: <$t>::MIN as i128, max: <$t>::MAX as i128 }
            }
            fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
                // In range of the type by construction of `read_int`'s bounds.
                read_int(v, reading, <$t>::MIN as i128, <$t>::MAX as i128).map(|n| n as $t)
            }
            fn from_sent(sent: &Sent<'_>, reading: &Reading<'_>) -> Result<Self, Problem> {
                // `read_int`'s fast path on the number in place, without a `Value`.
                if let Some(n) = int_in_range(sent, reading, <$t>::MIN as i128, <$t>::MAX as i128) {
                    return Ok(n as $t);
                }
                sent_as_value(sent, reading, Self::from_arg)
            }
        }
    )*};
}
int_from_arg!(true: i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
int_from_arg!(false: i128);

impl FromArg for u128 {
    fn ty() -> Ty {
        // Read within i128: JSON numbers past that are refused as out of range.
        Ty::Integer { min: 0, max: i128::MAX }
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        read_int(v, reading, 0, i128::MAX).map(|n| n as u128)
    }
}

impl FromArg for f64 {
    fn ty() -> Ty {
        Ty::Number
    }
    fn reads_typed() -> bool {
        true
    }
    fn read_typed<'de, D: serde::Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
        // `read_f64`'s checks on a finite number (serde_json reads no other).
        scalars::typed_real(de, reading)
    }
    fn read_typed_value(v: &Value, reading: &Reading<'_>) -> Option<Self> {
        scalars::real_value(v, reading)
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        read_f64(v, reading)
    }
    fn from_sent(sent: &Sent<'_>, reading: &Reading<'_>) -> Result<Self, Problem> {
        // `read_f64`'s fast path on the number in place, without a `Value`.
        if let crate::read::input::Scalar::Number(n) = &sent.scalar
            && let Some(f) = real_in_range(n, reading)
        {
            return Ok(f);
        }
        sent_as_value(sent, reading, Self::from_arg)
    }
}

impl FromArg for f32 {
    fn ty() -> Ty {
        Ty::Float
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        let f = read_f64(v, reading)?;
        // Rounding to f32 can overflow, or cross an exclusive bound (0.99999999 -> 1.0): check
        // the value the function would get, against the bounds as an `f32` holds them (`0.1`
        // sent for a range up to 0.1 is `0.1f32`, within it).
        let r = f as f32;
        let fits = r.is_finite() && reading.rules.range.as_ref().is_none_or(|rule| range::contains_single(rule, r));
        if fits {
            return Ok(r);
        }
        // Its range, without its step; else the largest `f32`.
        let set = match reading.rules.range {
            Some(range) => Accepted::Number { ends: Ends::Real(Some(range)), step: None },
            None => Accepted::Single,
        };
        Err(reading.problem_of(
            v,
            "is out of range once rounded to single precision",
            set.words_under(reading.rules),
            "Send a value inside the range, not at its edge.".to_owned(),
        ))
    }
}

impl FromArg for bool {
    fn ty() -> Ty {
        Ty::Boolean
    }
    fn reads_typed() -> bool {
        true
    }
    fn read_typed<'de, D: serde::Deserializer<'de>>(de: D, _reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
        scalars::typed_flag(de)
    }
    fn read_typed_value(v: &Value, _reading: &Reading<'_>) -> Option<Self> {
        v.as_bool()
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        read_bool(v, reading)
    }
    fn from_sent(sent: &Sent<'_>, reading: &Reading<'_>) -> Result<Self, Problem> {
        match sent.scalar {
            crate::read::input::Scalar::Bool(b) => Ok(b),
            _ => sent_as_value(sent, reading, Self::from_arg),
        }
    }
}

impl FromArg for String {
    fn ty() -> Ty {
        Ty::String
    }
    fn reads_typed() -> bool {
        true
    }
    fn read_typed<'de, D: serde::Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
        scalars::typed_text(de, reading)
    }
    fn read_typed_value(v: &Value, reading: &Reading<'_>) -> Option<Self> {
        scalars::text_value(v, reading)
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        read_str(v, reading).map(str::to_owned)
    }
    fn from_arg_unused(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        read_str(v, reading).map(|_| String::new())
    }
    fn from_sent_unused(sent: &Sent<'_>, reading: &Reading<'_>) -> Result<Self, Problem> {
        // Checked in place; copied (by `from_sent`) only to word its refusal.
        match sent.as_str() {
            Some(s) if rules::accepts(reading, Subject::Text(s)) => Ok(String::new()),
            _ => Self::from_sent(sent, reading),
        }
    }
    fn from_sent(sent: &Sent<'_>, reading: &Reading<'_>) -> Result<Self, Problem> {
        // The one copy the value needs, checked in place and moved out; under `ignore_case`,
        // the canonical spelling of the choice sent, as `from_arg` gives it.
        let Some(s) = sent.as_str() else { return sent_as_value(sent, reading, Self::from_arg) };
        let v = Value::String(s.to_owned());
        let read = read_str(&v, reading)?;
        if reading.rules.ignore_case && v.as_str() != Some(read) {
            return Ok(read.to_owned());
        }
        match v {
            Value::String(s) => Ok(s),
            _ => sent_as_value(sent, reading, Self::from_arg),
        }
    }
}

impl FromArg for Value {
    fn ty() -> Ty {
        Ty::Any
    }
    fn from_arg(v: &Value, _reading: &Reading<'_>) -> Result<Self, Problem> {
        Ok(v.clone())
    }
    fn from_sent(sent: &Sent<'_>, _reading: &Reading<'_>) -> Result<Self, Problem> {
        // Built once from the text, not built and then copied.
        Ok(sent.clone().into_value())
    }
}

impl<T: FromArg> FromArg for Option<T> {
    fn ty() -> Ty {
        T::ty()
    }
    fn reads_typed() -> bool {
        T::reads_typed()
    }
    fn read_typed<'de, D: serde::Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
        typed_option(de, reading)
    }
    fn read_typed_value(v: &Value, reading: &Reading<'_>) -> Option<Self> {
        if v.is_null() { Some(None) } else { T::read_typed_value(v, reading).map(Some) }
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        if v.is_null() { Ok(None) } else { T::from_arg(v, reading).map(Some) }
    }
    fn from_sent(sent: &Sent<'_>, reading: &Reading<'_>) -> Result<Self, Problem> {
        if sent.is_null() { Ok(None) } else { T::from_sent(sent, reading).map(Some) }
    }
    fn from_arg_unused(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        if v.is_null() { Ok(None) } else { T::from_arg_unused(v, reading).map(Some) }
    }
    fn from_sent_unused(sent: &Sent<'_>, reading: &Reading<'_>) -> Result<Self, Problem> {
        if sent.is_null() { Ok(None) } else { T::from_sent_unused(sent, reading).map(Some) }
    }
    fn absent() -> Option<Self> {
        Some(None)
    }
}

/// Items are read with the item rules; the first 3 refused items are described, the next ones
/// (up to 100) counted and named, and past those the items are not read: `tags: has at least 100
/// more refused items (tags[3], tags[4], …); the 9897 items from tags[103] on were not checked`.
impl<T: FromArg> FromArg for Vec<T> {
    fn ty() -> Ty {
        Ty::Array(Box::new(T::ty()))
    }
    fn reads_typed() -> bool {
        T::reads_typed()
    }
    fn read_typed<'de, D: serde::Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
        typed_items(de, reading)
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        let Value::Array(items) = v else {
            let item = T::ty();
            let words = Accepted::items(&item, reading.rules).words();
            // A JSON string holding an array: read in lax mode, refused in strict mode.
            if let Value::String(s) = v
                && let Some(decoded) = container_in_string(s)
                && decoded.value.is_array()
            {
                if !reading.strict {
                    return Self::from_arg(&decoded.value, &decoded.reading(reading));
                }
                let fix = fix_like(reading, "Send the array itself", "[...]", ", not a string holding it");
                let problem = reading.problem_of(v, "is a string holding an array", words, fix);
                return Err(hidden_if_secret(problem, reading.rules, &Self::ty()));
            }
            let fix = if reading.rules.length.is_some_and(|l| l.min > 0) {
                "Send a JSON array.".to_owned()
            } else {
                fix_like(reading, "Send a JSON array", "[]", "")
            };
            return Err(hidden_if_secret(
                reading.problem_of(v, render::type_issue(v), words, fix),
                reading.rules,
                &Self::ty(),
            ));
        };
        // A count the rule refuses is the first problem; the items are checked too, so one
        // refusal names every problem (of too many items, those that fit the rule's most: the
        // rest are to be left out, and are not read).
        let count = rules::check(reading, v, Subject::Items { n: items.len(), item: T::ty })
            .map_err(|p| hidden_if_secret(p, reading.rules, &Self::ty()));
        let checked =
            if count.is_err() { items.len().min(reading.rules.length.map_or(0, |l| l.max)) } else { items.len() };
        let mut out = Vec::with_capacity(if count.is_err() { 0 } else { items.len().min(1024) });
        let mut refused = Tally::new();
        // The index of the first item not read, once the tally is full.
        let mut unread = None;
        for (i, item) in items.iter().take(checked).enumerate() {
            if refused.is_full() {
                unread = Some(i);
                break;
            }
            let path = Path::Index(&reading.path, i);
            let item_cx = reading.item(&path);
            match T::from_arg(item, &item_cx) {
                Ok(x) if refused.is_empty() && count.is_ok() => out.push(x),
                Ok(_) => {}
                Err(p) => refused.refuse(p, || path.text()),
            }
        }
        let unread = unread.map(|first| {
            let n = items.len() - first;
            (n, format!("the {} from {}[{first}] on", crate::read::path::count(n, Unit::Items), reading.path))
        });
        refused.into_problem(reading, count, ("item", "items"), unread).map(|()| out)
    }
    fn from_sent(sent: &Sent<'_>, reading: &Reading<'_>) -> Result<Self, Problem> {
        items_from_sent(sent, reading, true)
    }
    fn from_sent_unused(sent: &Sent<'_>, reading: &Reading<'_>) -> Result<Self, Problem> {
        items_from_sent(sent, reading, false)
    }
}

/// An array of the text, read item by item into `T` with the item rules, each item from its own
/// text (only checked, by `from_sent_unused`, when the array is not `used`: then no item is
/// kept and the array answered is empty); on the first item refused, or a count the rule
/// refuses, the array is read as a `Value` by `from_arg`, whose refusal counts and describes the
/// items.
fn items_from_sent<T: FromArg>(sent: &Sent<'_>, reading: &Reading<'_>, used: bool) -> Result<Vec<T>, Problem> {
    if let Some(items) = sent.items() {
        let most = reading.rules.length.map_or(usize::MAX, |len| len.max);
        let (mut out, mut n) = (Vec::new(), 0);
        let read_all = items.enumerate().all(|(i, item)| {
            let path = Path::Index(&reading.path, i);
            let item_cx = reading.item(&path);
            n += 1;
            i < most
                && if used {
                    T::from_sent(&item, &item_cx).map(|x| out.push(x)).is_ok()
                } else {
                    T::from_sent_unused(&item, &item_cx).is_ok()
                }
        });
        if read_all && rules::length::takes_items(reading, n) {
            return Ok(out);
        }
    }
    sent_as_value(sent, reading, Vec::<T>::from_arg)
}

// ---------------------------------------------------------------------------------------------
// The typed reading of an `Option`, an array and one value (`FromArg::read_typed`, asked by
// `read::typed`); a scalar's is in `read::scalars`.

/// `null` as `None`, anything else read as `T` (an `Option` parameter or field).
pub(crate) fn typed_option<'de, T: FromArg, D: Deserializer<'de>>(
    de: D,
    reading: &Reading<'_>,
) -> Result<Option<Option<T>>, D::Error> {
    de.deserialize_option(Optional::<T>(reading, PhantomData))
}

/// The visitor of [`typed_option`].
struct Optional<'r, 'a, T>(&'r Reading<'a>, PhantomData<T>);

impl<'de, T: FromArg> Visitor<'de> for Optional<'_, '_, T> {
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
        Ok(T::read_typed(de, self.0)?.map(Some))
    }
}

/// An array read item by item into `T` with the item rules, then its count checked
/// (`Vec::from_arg`'s checks); it declines at the first item refused, or once it holds more
/// items than the `length` rule's most, so it never reads past the items the rule allows.
pub(crate) fn typed_items<'de, T: FromArg, D: Deserializer<'de>>(
    de: D,
    reading: &Reading<'_>,
) -> Result<Option<Vec<T>>, D::Error> {
    de.deserialize_seq(Items::<T>(reading, PhantomData))
}

/// The visitor of [`typed_items`].
struct Items<'r, 'a, T>(&'r Reading<'a>, PhantomData<T>);

impl<'de, T: FromArg> Visitor<'de> for Items<'_, '_, T> {
    type Value = Option<Vec<T>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let most = self.0.rules.length.map_or(usize::MAX, |len| len.max);
        // The item rules' reading; its path is never shown (the typed reading words nothing).
        let path = Path::Index(&self.0.path, 0);
        let item = self.0.item(&path);
        let mut out = Vec::new();
        while let Some(x) = seq.next_element_seed(Seed::<T>(&item, PhantomData))? {
            match x {
                Some(x) if out.len() < most => out.push(x),
                _ => return Ok(None),
            }
        }
        Ok(rules::accepts(self.0, Subject::Items { n: out.len(), item: T::ty }).then_some(out))
    }
}

/// The value of one parameter, field or item, read by [`FromArg::read_typed`] with its reading.
pub(crate) struct Seed<'r, 'a, T>(pub(crate) &'r Reading<'a>, pub(crate) PhantomData<T>);

impl<'de, T: FromArg> DeserializeSeed<'de> for Seed<'_, '_, T> {
    type Value = Option<T>;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Option<T>, D::Error> {
        T::read_typed(de, self.0)
    }
}
