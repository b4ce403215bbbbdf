//! Reading arguments: JSON in, typed values out, every failure a [`Problem`].
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

use serde_json::{Map, Value};

use crate::refusal::{Problem, Rejected};
use crate::render;
use crate::spec::{
    Anchoring, Bound, Choices, Length, Num, ObjectSpec, ParamSpec, Pattern, Range, Rules, ToolSpec, Ty, Unit,
};

/// Where a value sits in the arguments: a parameter, an item of it, a field of it.
#[derive(Clone, Copy, Debug)]
pub enum Path<'a> {
    /// A top-level parameter.
    Param(&'a str),
    /// `parent[i]`.
    Index(&'a Path<'a>, usize),
    /// `parent.field`.
    Field(&'a Path<'a>, &'a str),
}

impl Path<'_> {
    /// The top-level parameter this path is in.
    pub fn parameter(&self) -> &str {
        match self {
            Path::Param(p) => p,
            Path::Index(parent, _) | Path::Field(parent, _) => parent.parameter(),
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Param(p) => f.write_str(p),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
            Path::Field(parent, name) => write!(f, "{parent}.{name}"),
        }
    }
}

/// What reading one value needs: its rules, the policy and where it is.
#[derive(Clone, Copy, Debug)]
pub struct Cx<'a> {
    /// Rules that apply to this value.
    pub rules: &'a Rules,
    /// `#[tool(strict)]`.
    pub strict: bool,
    /// Where the value is.
    pub path: Path<'a>,
}

static SECRET: Rules = Rules { secret: true, ..Rules::NONE };
static NO_RULES: Rules = Rules::NONE;

impl<'a> Cx<'a> {
    /// The context of the `i`-th item of this (array) value: no rules of its own yet.
    pub fn item<'b>(&'b self, path: &'b Path<'b>) -> Cx<'b> {
        let rules = match &self.rules.items {
            Some(items) => items,
            None if self.rules.secret => &SECRET,
            None => &NO_RULES,
        };
        Cx { rules, strict: self.strict, path: *path }
    }

    /// A problem with the value `v`: `<path>: <v> <issue>; accepted: <accepted>. <fix>`.
    pub fn problem(&self, v: &Value, issue: impl Into<String>, accepted: String, fix: String) -> Problem {
        let rejected = if rules_hide(self.rules) { Rejected::Hidden } else { Rejected::Shown(render::shown(v)) };
        let fix = match self.rules.fix {
            Some(f) => f.to_owned(),
            None if rules_hide(self.rules) => strip_example(fix),
            None => fix,
        };
        let issue = match self.rules.reason {
            Some(r) => format!("{} ({r})", issue.into()),
            None => issue.into(),
        };
        Problem::new(self.path.parameter(), rejected, issue).accepted(accepted).fix(fix).at(self.path.to_string())
    }
}

/// Whether a value under these rules is secret, or holds secret items at any depth.
fn rules_hide(rules: &Rules) -> bool {
    rules.secret || rules.items.as_deref().is_some_and(rules_hide)
}

/// How a value is quoted: not at all when it is, or holds, a secret.
fn rejected_of(v: &Value, secret: bool) -> Rejected {
    if secret { Rejected::Hidden } else { Rejected::Shown(render::shown(v)) }
}

/// A fix for a secret value must not quote it back (`like "48"` would echo digits sent).
fn strip_example(fix: String) -> String {
    match fix.find(", like ") {
        Some(i) => format!("{}.", &fix[..i]),
        None => fix,
    }
}

/// A Rust type a tool parameter can have: how it is read from JSON and which JSON shape it
/// advertises. Implemented for the integer types, `f32`, `f64`, `bool`, `String`, `Option<T>`,
/// `Vec<T>` and `serde_json::Value`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "use an integer, f64, bool, String, Vec<T>, Option<T>, serde_json::Value, or a type with `#[derive(Object)]` or `#[derive(Choice)]`",
    note = "a parameter's type decides the JSON it accepts and the schema it advertises"
)]
pub trait FromArg: Sized {
    /// The JSON shape.
    fn ty() -> Ty;
    /// Reads `v` (never JSON `null` for a top-level parameter: that means absent).
    fn from_arg(v: &Value, cx: &Cx<'_>) -> Result<Self, Problem>;
    /// The value when the parameter is absent or `null`: `Some(None)` for `Option`, else `None`
    /// (the parameter is required).
    fn absent() -> Option<Self> {
        None
    }
}

fn int_accepted(cx: &Cx<'_>, lo: i128, hi: i128) -> (i128, i128, String) {
    let (min, max) = int_bounds(cx, lo, hi);
    (min, max, format!("a whole number from {min} to {max}"))
}

/// The inclusive bounds an integer must meet: the type's, narrowed by the rule. No allocation:
/// this runs on every successful read.
fn int_bounds(cx: &Cx<'_>, lo: i128, hi: i128) -> (i128, i128) {
    let (mut min, mut max) = (lo, hi);
    if let Some(r) = &cx.rules.range {
        match r.min {
            Bound::Inclusive(Num::Int(a)) => min = min.max(a),
            Bound::Exclusive(Num::Int(a)) => min = min.max(a.saturating_add(1)),
            _ => {}
        }
        match r.max {
            Bound::Inclusive(Num::Int(b)) => max = max.min(b),
            Bound::Exclusive(Num::Int(b)) => max = max.min(b.saturating_sub(1)),
            _ => {}
        }
    }
    (min, max)
}

fn example_int(min: i128, max: i128) -> i128 {
    if (min..=max).contains(&10) {
        10
    } else if min > 10 {
        min
    } else {
        max
    }
}

/// Reads an integer within `[lo, hi]` (the Rust type's bounds) and the value's rules.
///
/// Refusals: a fraction (`48.5 is not a whole number`), a non-number (`"ten" is a string`), a
/// numeric string or whole float in strict mode, a value outside the range (both bounds
/// stated), a value not among the integer choices (every choice listed).
pub fn read_int(v: &Value, cx: &Cx<'_>, lo: i128, hi: i128) -> Result<i128, Problem> {
    let choices = match cx.rules.choices {
        Some(Choices::Int(c)) => Some(c),
        _ => None,
    };
    let accepted = || match choices {
        Some(c) => {
            let list: Vec<String> = c.iter().map(i64::to_string).collect();
            format!("one of {}", list.join(", "))
        }
        None => int_accepted(cx, lo, hi).2,
    };
    let example = || match choices {
        Some(c) => c.first().map_or(0, |&x| i128::from(x)),
        None => {
            let (min, max, _) = int_accepted(cx, lo, hi);
            example_int(min, max)
        }
    };
    let n: i128 = match v {
        Value::Number(num) => {
            if let Some(i) = num.as_i64() {
                i128::from(i)
            } else if let Some(u) = num.as_u64() {
                i128::from(u)
            } else {
                let f = num.as_f64().unwrap_or(f64::NAN);
                if f.fract() != 0.0 || !f.is_finite() {
                    return Err(cx.problem(
                        v,
                        "is not a whole number",
                        accepted(),
                        format!("Send a whole number, like {}.", example()),
                    ));
                }
                // A whole float is an integer in JSON's data model (JSON Schema 2020-12 Core
                // §4.2.2), so strict mode takes it too. serde_json reads every integer literal
                // that fits 64 bits as an integer: a float at or past 2^63 came from a literal
                // too large for the 64-bit types, and has lost digits; it is out of their range.
                let beyond_64_bits = f.abs() >= 9.223_372_036_854_776e18;
                if f.abs() >= 1e38 || (beyond_64_bits && lo >= i128::from(i64::MIN) && hi <= i128::from(u64::MAX)) {
                    return Err(out_of_range(cx, v, accepted(), choices));
                }
                f as i128
            }
        }
        Value::String(s) => match parse_decimal_int(s) {
            Some(n) if !cx.strict => n,
            Some(n) => {
                return Err(cx.problem(v, "is a string", accepted(), format!("Send it as a JSON number, like {n}.")));
            }
            None if names_non_finite(s) => {
                return Err(not_finite(cx, v, accepted(), &example().to_string()));
            }
            None => {
                return Err(cx.problem(
                    v,
                    "is a string",
                    accepted(),
                    format!("Send it as a JSON number, like {}.", example()),
                ));
            }
        },
        _ => {
            return Err(cx.problem(
                v,
                render::type_issue(v),
                accepted(),
                format!("Send a JSON number, like {}.", example()),
            ));
        }
    };
    if let Some(c) = choices {
        if !c.iter().any(|&x| i128::from(x) == n) {
            let closest = c.iter().min_by_key(|&&x| (i128::from(x) - n).unsigned_abs()).copied().unwrap_or_default();
            let fix = format!("Send {closest}, the closest accepted value, or another one listed.");
            return Err(cx.problem(v, "is not an accepted value", accepted(), fix));
        }
        return Ok(n);
    }
    let (min, max) = int_bounds(cx, lo, hi);
    if n < min || n > max {
        return Err(out_of_range(cx, v, accepted(), choices));
    }
    Ok(n)
}

fn out_of_range(cx: &Cx<'_>, v: &Value, accepted: String, _choices: Option<&[i64]>) -> Problem {
    let fix = accepted
        .strip_prefix("a whole number ")
        .map_or_else(|| "Send a value in range.".to_owned(), |r| format!("Send a value {r}."));
    cx.problem(v, "is out of range", accepted, fix)
}

/// `"48"`, `"-3"`: optional minus, then ASCII digits only (no spaces, signs, exponents).
fn parse_decimal_int(s: &str) -> Option<i128> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || digits.len() > 38 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn float_accepted(r: Option<&Range>) -> (String, String) {
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

fn in_float_range(f: f64, r: &Range) -> bool {
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

/// `"NaN"`, `"inf"`, `"Infinity"` (any case, any sign) sent for a number: a string that names a
/// number JSON cannot carry. Its issue is that, not that it is a string (lax mode reads `"0.5"`).
fn names_non_finite(s: &str) -> bool {
    s.trim().parse::<f64>().is_ok_and(|f| !f.is_finite())
}

/// The refusal of a value that is, or names, a number that is not finite.
fn not_finite(cx: &Cx<'_>, v: &Value, accepted: String, example: &str) -> Problem {
    cx.problem(v, "is not a finite number", accepted, format!("Send a finite JSON number, like {example}."))
}

/// Reads a finite number within the value's `range`.
///
/// Refusals: a non-number, a numeric string in strict mode, a value outside the range (each
/// bound stated with whether it is included).
pub fn read_f64(v: &Value, cx: &Cx<'_>) -> Result<f64, Problem> {
    // The fast path: a finite JSON number within range, no words built.
    if let Value::Number(n) = v
        && let Some(f) = n.as_f64().filter(|f| f.is_finite())
        && cx.rules.range.as_ref().is_none_or(|r| in_float_range(f, r))
    {
        return Ok(f);
    }
    let (accepted, example) = float_accepted(cx.rules.range.as_ref());
    let f = match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => match s.trim().parse::<f64>() {
            Ok(f) if f.is_finite() && s.trim() == s && !cx.strict => f,
            Ok(f) if f.is_finite() && s.trim() == s => {
                return Err(cx.problem(
                    v,
                    "is a string",
                    accepted,
                    format!("Send it as a JSON number, like {}.", render::number(f)),
                ));
            }
            Ok(_) => return Err(not_finite(cx, v, accepted, &example)),
            _ => {
                return Err(cx.problem(v, "is a string", accepted, format!("Send a JSON number, like {example}.")));
            }
        },
        _ => {
            return Err(cx.problem(v, render::type_issue(v), accepted, format!("Send a JSON number, like {example}.")));
        }
    };
    if !f.is_finite() {
        return Err(not_finite(cx, v, accepted, &example));
    }
    if let Some(r) = &cx.rules.range
        && !in_float_range(f, r)
    {
        let fix = format!("Send {}.", accepted.replacen("a number", "a value", 1));
        return Err(cx.problem(v, "is out of range", accepted, fix));
    }
    Ok(f)
}

/// Reads a string that meets the value's `choices`.
///
/// Refusals: a non-string; a value not among the choices (every choice listed, the closest
/// offered — a case-only difference included).
pub fn read_str<'v>(v: &'v Value, cx: &Cx<'_>) -> Result<&'v str, Problem> {
    let choices = match cx.rules.choices {
        Some(Choices::Str(c)) => Some(c),
        _ => None,
    };
    let accepted = || match choices {
        Some(c) => format!("one of {}", render::quoted_list(c.iter().copied())),
        None => str_words(cx.rules),
    };
    let Value::String(s) = v else {
        let plain = cx.rules.length.is_none() && cx.rules.pattern.is_none() && cx.rules.format.is_none();
        let fix = match (choices, v) {
            (Some(c), _) => format!(
                "Send one of the accepted values as a JSON string, like {}.",
                render::quoted_list(c.first().copied())
            ),
            (None, Value::Number(n)) if plain => format!("Send it as a JSON string, like \"{n}\"."),
            (None, _) => "Send a JSON string.".to_owned(),
        };
        return Err(cx.problem(v, render::type_issue(v), accepted(), fix));
    };
    if let Some(len) = &cx.rules.length {
        let n = if len.unit == Unit::Bytes { s.len() } else { s.chars().count() };
        if n < len.min || n > len.max {
            let fix = if len.min == len.max {
                format!("Send exactly {}.", count(len.max, len.unit))
            } else if n > len.max {
                format!("Shorten it to at most {}.", count(len.max, len.unit))
            } else {
                format!("Send at least {}.", count(len.min, len.unit))
            };
            return Err(cx.problem(v, format!("is {} long", count(n, len.unit)), length_words("a string", len), fix));
        }
    }
    if let Some(f) = cx.rules.format
        && !f.accepts(s)
    {
        return Err(cx.problem(
            v,
            format!("is not {}", article(f.keyword())),
            f.words().to_owned(),
            f.fix().to_owned(),
        ));
    }
    if let Some(p) = &cx.rules.pattern
        && !p.regex.is_match(s)
    {
        let accepted = str_words(cx.rules);
        let fix = match p.example {
            Some(e) => format!("Send a value of the same form as {}.", render::quoted_list([e])),
            None => pattern_fix(p),
        };
        let issue = match p.anchoring() {
            Anchoring::Search => "does not contain a match for the pattern",
            _ => "does not match the pattern",
        };
        return Err(cx.problem(v, issue, accepted, fix));
    }
    if let Some(c) = choices {
        if cx.rules.ignore_case
            && let Some(canonical) =
                c.iter().find(|x| x.eq_ignore_ascii_case(s) || x.to_lowercase() == s.to_lowercase())
        {
            return Ok(canonical);
        }
        if !c.contains(&s.as_str()) {
            let sugg = render::closest(s, c.iter().copied());
            let fix = match sugg {
                Some(x) => format!("Send {}.", render::quoted_list([x])),
                None => "Send one of the accepted values, spelled exactly as listed.".to_owned(),
            };
            return Err(cx.problem(v, "is not an accepted value", accepted(), fix).suggestion(sugg));
        }
    }
    Ok(s)
}

fn article(keyword: &str) -> String {
    match keyword {
        "email" => "a valid email address".to_owned(),
        "uri" => "a valid absolute URI".to_owned(),
        "uuid" => "a valid UUID".to_owned(),
        other => format!("a valid {other}"),
    }
}

/// A string's accepted set in words, with every rule on it: `a string of 8 to 16 characters
/// matching the pattern ^[a-z]+$`.
fn str_words(rules: &Rules) -> String {
    let mut words = match &rules.length {
        Some(l) => length_words("a string", l),
        None => "a string".to_owned(),
    };
    if let Some(f) = rules.format {
        words = f.words().to_owned();
    }
    if let Some(p) = &rules.pattern {
        words.push_str(pattern_words(p));
        words.push_str(p.source);
    }
    words
}

/// How a string relates to its pattern, by where the pattern is anchored: ` matching the
/// pattern ` only when `^` and `$` tie it to both ends; else a search (JSON Schema `pattern`).
fn pattern_words(p: &Pattern) -> &'static str {
    match p.anchoring() {
        Anchoring::Full => " matching the pattern ",
        Anchoring::Start => " starting with a match for the pattern ",
        Anchoring::End => " ending with a match for the pattern ",
        Anchoring::Search => " containing a match for the pattern ",
    }
}

/// The move that fixes a string its pattern refused, when no `example` is declared: "in full"
/// only for a pattern anchored at both ends.
fn pattern_fix(p: &Pattern) -> String {
    let src = p.source;
    match p.anchoring() {
        Anchoring::Full => format!("Send a string that matches {src} in full."),
        Anchoring::Start => format!("Send a string that starts with a match for {src}."),
        Anchoring::End => format!("Send a string that ends with a match for {src}."),
        Anchoring::Search => format!("Send a string that contains a match for {src} somewhere."),
    }
}

/// `1 character`, `3 items`.
fn count(n: usize, unit: Unit) -> String {
    let word = unit.word();
    if n == 1 { format!("1 {}", &word[..word.len() - 1]) } else { format!("{n} {word}") }
}

/// `a string of 1 to 120 characters`, `an array of at most 10 items`.
pub(crate) fn length_words(what: &str, len: &Length) -> String {
    let unit = len.unit.word();
    match (len.min, len.max) {
        (0, usize::MAX) => what.to_owned(),
        (0, b) => format!("{what} of at most {}", count(b, len.unit)),
        (a, usize::MAX) => format!("{what} of at least {}", count(a, len.unit)),
        (a, b) if a == b => format!("{what} of exactly {}", count(a, len.unit)),
        (a, b) => format!("{what} of {a} to {b} {unit}"),
    }
}

/// `an array of 1 to 3 items, each a whole number`.
fn array_words(item: &Ty, item_rules: Option<&Rules>, len: Option<&Length>) -> String {
    let each = match item_rules {
        Some(rules) => value_words(item, rules),
        None => item.words(),
    };
    match (len, item_rules) {
        (Some(l), _) => format!("{}, each {each}", length_words("an array", l)),
        (None, Some(_)) => format!("an array, each item {each}"),
        (None, None) => format!("an array of {}", item.plural()),
    }
}

/// Reads one of `names` (a `#[derive(Choice)]` enum's variants) and gives its index. No
/// allocation: the string is compared in place.
pub fn read_choice(v: &Value, cx: &Cx<'_>, names: &'static [&'static str]) -> Result<usize, Problem> {
    if let Value::String(s) = v
        && let Some(i) = names.iter().position(|n| *n == s)
    {
        return Ok(i);
    }
    let rules = Rules { choices: Some(Choices::Str(names)), ..cx.rules.clone() };
    let with_choices = Cx { rules: &rules, strict: cx.strict, path: cx.path };
    let s = read_str(v, &with_choices)?;
    // Only a case-only difference under `ignore_case` gets here.
    Ok(names.iter().position(|n| *n == s).unwrap_or(0))
}

/// Reads `true` or `false` (and, lax, the strings `"true"` and `"false"`).
pub fn read_bool(v: &Value, cx: &Cx<'_>) -> Result<bool, Problem> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if !cx.strict && (s == "true" || s == "false") => Ok(s == "true"),
        Value::String(s) if s == "true" || s == "false" => Err(cx.problem(
            v,
            "is a string",
            "true or false".into(),
            format!("Send it as a JSON boolean, {s}, without quotes."),
        )),
        _ => Err(cx.problem(
            v,
            render::type_issue(v),
            "true or false".into(),
            "Send a JSON boolean, true or false.".into(),
        )),
    }
}

macro_rules! int_from_arg {
    ($($t:ty),*) => {$(
        impl FromArg for $t {
            fn ty() -> Ty {
                Ty::Integer { min: <$t>::MIN as i128, max: <$t>::MAX as i128 }
            }
            fn from_arg(v: &Value, cx: &Cx<'_>) -> Result<Self, Problem> {
                // In range of the type by construction of `read_int`'s bounds.
                read_int(v, cx, <$t>::MIN as i128, <$t>::MAX as i128).map(|n| n as $t)
            }
        }
    )*};
}
int_from_arg!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, usize);

impl FromArg for u128 {
    fn ty() -> Ty {
        // Read within i128: JSON numbers past that are refused as out of range.
        Ty::Integer { min: 0, max: i128::MAX }
    }
    fn from_arg(v: &Value, cx: &Cx<'_>) -> Result<Self, Problem> {
        read_int(v, cx, 0, i128::MAX).map(|n| n as u128)
    }
}

impl FromArg for f64 {
    fn ty() -> Ty {
        Ty::Number
    }
    fn from_arg(v: &Value, cx: &Cx<'_>) -> Result<Self, Problem> {
        read_f64(v, cx)
    }
}

impl FromArg for f32 {
    fn ty() -> Ty {
        Ty::Number
    }
    fn from_arg(v: &Value, cx: &Cx<'_>) -> Result<Self, Problem> {
        let f = read_f64(v, cx)?;
        // Rounding to f32 can overflow, or cross an exclusive bound (0.99999999 -> 1.0): check
        // the value the function would get.
        let r = f as f32;
        let fits = r.is_finite() && cx.rules.range.as_ref().is_none_or(|range| in_float_range(f64::from(r), range));
        if fits {
            return Ok(r);
        }
        let (accepted, _) = float_accepted(cx.rules.range.as_ref());
        let accepted =
            if cx.rules.range.is_some() { accepted } else { format!("{accepted} of at most {:e} in size", f32::MAX) };
        Err(cx.problem(
            v,
            "is out of range once rounded to single precision",
            accepted,
            "Send a value inside the range, not at its edge.".to_owned(),
        ))
    }
}

impl FromArg for bool {
    fn ty() -> Ty {
        Ty::Boolean
    }
    fn from_arg(v: &Value, cx: &Cx<'_>) -> Result<Self, Problem> {
        read_bool(v, cx)
    }
}

impl FromArg for String {
    fn ty() -> Ty {
        Ty::String
    }
    fn from_arg(v: &Value, cx: &Cx<'_>) -> Result<Self, Problem> {
        read_str(v, cx).map(str::to_owned)
    }
}

impl FromArg for Value {
    fn ty() -> Ty {
        Ty::Any
    }
    fn from_arg(v: &Value, _cx: &Cx<'_>) -> Result<Self, Problem> {
        Ok(v.clone())
    }
}

impl<T: FromArg> FromArg for Option<T> {
    fn ty() -> Ty {
        T::ty()
    }
    fn from_arg(v: &Value, cx: &Cx<'_>) -> Result<Self, Problem> {
        if v.is_null() { Ok(None) } else { T::from_arg(v, cx).map(Some) }
    }
    fn absent() -> Option<Self> {
        Some(None)
    }
}

/// Items are read with the item rules; the first few failing items are reported with a count.
impl<T: FromArg> FromArg for Vec<T> {
    fn ty() -> Ty {
        Ty::Array(Box::new(T::ty()))
    }
    fn from_arg(v: &Value, cx: &Cx<'_>) -> Result<Self, Problem> {
        let Value::Array(items) = v else {
            let words = array_words(&T::ty(), cx.rules.items.as_deref(), cx.rules.length.as_ref());
            // A JSON string holding an array: read in lax mode, refused in strict mode.
            if let Value::String(s) = v
                && let Some(decoded @ Value::Array(_)) = container_in_string(s)
            {
                if !cx.strict {
                    return Self::from_arg(&decoded, cx);
                }
                let fix = "Send the array itself, like [...], not a string holding it.".to_owned();
                return Err(cx.problem(v, "is a string holding an array", words, fix));
            }
            let fix = if cx.rules.length.is_some_and(|l| l.min > 0) {
                "Send a JSON array."
            } else {
                "Send a JSON array, like []."
            };
            return Err(cx.problem(v, render::type_issue(v), words, fix.into()));
        };
        if let Some(len) = &cx.rules.length {
            let n = items.len();
            if n < len.min || n > len.max {
                let fix = if len.min == len.max {
                    format!("Send exactly {}.", count(len.max, Unit::Items))
                } else if n > len.max {
                    format!("Send at most {}.", count(len.max, Unit::Items))
                } else {
                    format!("Send at least {}.", count(len.min, Unit::Items))
                };
                let issue = format!("has {}", count(n, Unit::Items));
                return Err(cx.problem(v, issue, array_words(&T::ty(), cx.rules.items.as_deref(), Some(len)), fix));
            }
        }
        let mut out = Vec::with_capacity(items.len().min(1024));
        let mut refused: Vec<Problem> = Vec::new();
        let mut more: Vec<usize> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = Path::Index(&cx.path, i);
            let item_cx = cx.item(&path);
            match T::from_arg(item, &item_cx) {
                Ok(x) if refused.is_empty() => out.push(x),
                Ok(_) => {}
                Err(p) if refused.len() < SHOWN_ITEMS => refused.push(p),
                Err(_) => more.push(i),
            }
        }
        if refused.is_empty() {
            return Ok(out);
        }
        if !more.is_empty() {
            let list: Vec<String> = more.iter().take(5).map(|i| format!("{}[{i}]", cx.path)).collect();
            let etc = if more.len() > 5 { ", …" } else { "" };
            let items = if more.len() == 1 { "item" } else { "items" };
            let issue = format!("has {} more refused {items} ({}{etc})", more.len(), list.join(", "));
            let accepted = refused[0].accepted.clone();
            refused.push(
                Problem::new(cx.path.parameter(), Rejected::Missing, issue)
                    .accepted(accepted)
                    .fix("Fix those items the same way.")
                    .at(cx.path.to_string()),
            );
        }
        let mut first = refused.remove(0);
        first.also = refused;
        Err(first)
    }
}

/// The object a `#[derive(Object)]` value is read from, or the refusal of a non-object.
///
/// A JSON string holding an object (`"{\"name\": \"Ada\"}"`, as models often send) is decoded
/// and read in lax mode; `#[tool(strict)]` refuses it, saying to send the object itself.
pub fn object_of<'v>(
    v: &'v Value,
    cx: &Cx<'_>,
    spec: &ObjectSpec,
) -> Result<std::borrow::Cow<'v, Map<String, Value>>, Problem> {
    let like = || {
        spec.params
            .iter()
            .find(|p| p.required)
            .or(spec.params.first())
            .map_or_else(|| "{}".to_owned(), |p| format!("{{\"{}\": {}}}", p.name, example_json(p, &p.ty)))
    };
    let hide = |mut problem: Problem| {
        if spec.params.iter().any(|p| holds_secret(&p.rules, &p.ty)) {
            problem.rejected = Rejected::Hidden;
        }
        problem
    };
    let accepted = || format!("an object with the keys {}", spec.keys());
    match v {
        Value::Object(o) => Ok(std::borrow::Cow::Borrowed(o)),
        Value::String(s) => match container_in_string(s) {
            Some(Value::Object(o)) if !cx.strict => Ok(std::borrow::Cow::Owned(o)),
            Some(Value::Object(_)) => Err(hide(cx.problem(
                v,
                "is a string holding an object",
                accepted(),
                format!("Send the object itself, like {}, not a string holding it.", like()),
            ))),
            _ => Err(hide(cx.problem(
                v,
                render::type_issue(v),
                accepted(),
                format!("Send a JSON object, like {}.", like()),
            ))),
        },
        _ => {
            Err(hide(cx.problem(v, render::type_issue(v), accepted(), format!("Send a JSON object, like {}.", like()))))
        }
    }
}

/// The object or array a JSON string holds (`"{\"a\": 1}"`, `"[1, 2]"`), for a parameter that
/// expects that container: models often send a container as its JSON text. `None` for any other
/// string (a number, a word, invalid JSON).
fn container_in_string(s: &str) -> Option<Value> {
    if !s.trim_start().starts_with(['{', '[']) {
        return None;
    }
    serde_json::from_str::<Value>(s).ok().filter(|v| v.is_object() || v.is_array())
}

/// The refusal of a key sent more than once in one object of the arguments (read from their
/// JSON text): names the key, quotes every value sent under it; a secret's values are not shown.
pub(crate) fn duplicate_key(spec: &ToolSpec, d: &crate::sent::Duplicate) -> Problem {
    let param = spec.params.iter().find(|p| p.name == d.parameter);
    let secret = param.is_some_and(|p| holds_secret(&p.rules, &p.ty));
    let key = render::shown(&Value::String(d.key.clone()));
    let times = if d.values.len() == 2 { "twice".to_owned() } else { format!("{} times", d.values.len()) };
    let (rejected, issue) = if secret {
        (Rejected::Missing, format!("was sent {times} under one key (secret, the values not shown)"))
    } else {
        let each: Vec<String> = d.values.iter().map(|v| format!("{key}: {}", cut_text(v))).collect();
        (Rejected::Shown(each.join(", ")), format!("sends the same key {times}"))
    };
    let accepted = match param {
        Some(p) if d.path == d.parameter => format!("{key} once, with one value: {}", accepted_words(p, &p.ty)),
        _ => format!("each key once, {key} with one value"),
    };
    // Names are the caller's text: cut like a name that is not a parameter, so the reply keeps
    // its size whatever was sent.
    let parameter: String = d.parameter.chars().take(render::SHOWN_CHARS).collect();
    let path: String = d.path.chars().take(2 * render::SHOWN_CHARS).collect();
    Problem::new(&parameter, rejected, issue)
        .accepted(accepted)
        .fix(format!("Send {key} once, with the one value you mean."))
        .at(path)
}

/// JSON text as sent, cut to [`render::SHOWN_CHARS`] characters with its length when longer.
fn cut_text(text: &str) -> String {
    let count = text.chars().count();
    if count <= render::SHOWN_CHARS {
        return text.to_owned();
    }
    let prefix: String = text.chars().take(render::SHOWN_CHARS - 8).collect();
    format!("{prefix}… ({count} characters)")
}

/// JSON equality, with numbers compared by value and strings optionally without case.
fn same(a: &Value, b: &Value, ignore_case: bool) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::String(x), Value::String(y)) if ignore_case => x.to_lowercase() == y.to_lowercase(),
        _ => a == b,
    }
}

/// What triggered a `requires`: `dimension "hour"` / `dimension is "hour"`.
struct Cause {
    noun: String,
    when: String,
}

/// A broken `requires`: `other` must be `want` (or sent) because of `cause`.
fn cross_problem(
    other: &ParamSpec,
    sent: Option<&Value>,
    value: Option<&Value>,
    want: Option<&Value>,
    by: &ParamSpec,
    cause: &Cause,
) -> Problem {
    let when = &cause.when;
    let noun = &cause.noun;
    let accepted = match want {
        Some(w) => format!("{} when {when}", render::shown(w)),
        None => accepted_words(other, &other.ty),
    };
    let change = if when.ends_with(" is sent") { "remove" } else { "change" };
    let fix = match want {
        Some(w) => format!("Send {} {}, or {change} {}.", other.name, render::shown(w), by.name),
        None => format!("Add \"{}\" to the arguments, or {change} {}.", other.name, by.name),
    };
    let (rejected, issue) = match (sent, value) {
        (Some(v), _) => (rejected_of(v, holds_secret(&other.rules, &other.ty)), format!("does not go with {noun}")),
        (None, Some(d)) => {
            (Rejected::Missing, format!("was not sent, and its default {} does not go with {noun}", render::shown(d)))
        }
        (None, None) => (Rejected::Missing, format!("is required when {when}")),
    };
    Problem::new(other.name, rejected, issue).accepted(accepted).fix(fix)
}

/// How many failing items of one array are described one by one; the rest are counted.
const SHOWN_ITEMS: usize = 3;

/// Reads a tool's arguments object parameter by parameter, collecting every problem so one
/// reply names them all. Used by the code `#[tool]` generates.
pub struct Args<'a> {
    params: &'a [ParamSpec],
    strict: bool,
    /// `get_top_queries` (a tool) or the path of a nested object (`filter`).
    owner: &'a str,
    /// The object's own path, for a nested object; `None` for a tool's arguments.
    parent: Option<Path<'a>>,
    obj: Option<&'a Map<String, Value>>,
    /// The value sent for each parameter, found in one pass over the object.
    slots: Slots<'a>,
    problems: Vec<Problem>,
    /// Names that are not parameters: reported after the parameters' own problems.
    unknown: Vec<Problem>,
}

/// Per-parameter values, inline for the usual handful of parameters (no allocation).
enum Slots<'a> {
    Inline([Option<&'a Value>; 12]),
    Heap(Vec<Option<&'a Value>>),
}

impl<'a> Slots<'a> {
    fn new(n: usize) -> Self {
        if n <= 12 { Slots::Inline([None; 12]) } else { Slots::Heap(vec![None; n]) }
    }

    fn get(&self, i: usize) -> Option<&'a Value> {
        match self {
            Slots::Inline(a) => a.get(i).copied().flatten(),
            Slots::Heap(v) => v.get(i).copied().flatten(),
        }
    }

    fn set(&mut self, i: usize, value: &'a Value) {
        let slot = match self {
            Slots::Inline(a) => a.get_mut(i),
            Slots::Heap(v) => v.get_mut(i),
        };
        if let Some(slot) = slot {
            *slot = Some(value);
        }
    }
}

impl<'a> Args<'a> {
    /// Starts reading `obj` (`None`: no arguments were sent). Names that are not parameters are
    /// refused here, each with the list of parameters and the closest name.
    pub fn new(spec: &'a ToolSpec, obj: Option<&'a Map<String, Value>>) -> Self {
        Args::scoped(&spec.params, spec.strict, spec.name, None, obj)
    }

    /// Starts reading a nested object (a `#[derive(Object)]` parameter) at `cx.path`.
    pub fn nested(params: &'a [ParamSpec], cx: &Cx<'a>, obj: &'a Map<String, Value>) -> Self {
        Args::scoped(params, cx.strict, "", Some(cx.path), Some(obj))
    }

    fn scoped(
        params: &'a [ParamSpec],
        strict: bool,
        owner: &'a str,
        parent: Option<Path<'a>>,
        obj: Option<&'a Map<String, Value>>,
    ) -> Self {
        let mut args = Args {
            params,
            strict,
            owner,
            parent,
            obj,
            slots: Slots::new(params.len()),
            problems: Vec::new(),
            unknown: Vec::new(),
        };
        if let Some(obj) = obj {
            // One pass, comparing names (as serde's derive does): no hashing per parameter.
            let mut unknown = false;
            for (k, v) in obj {
                match params.iter().position(|p| p.name == k) {
                    Some(i) => args.slots.set(i, v),
                    None => unknown = true,
                }
            }
            if unknown {
                args.unknown = args.unknown_names(obj);
            }
        }
        args
    }

    /// The path of field `name` in this scope.
    fn path_of(&self, name: &str) -> String {
        match &self.parent {
            Some(parent) => Path::Field(parent, name).to_string(),
            None => name.to_owned(),
        }
    }

    /// The top-level parameter this scope is in (for a nested object) or `name` itself.
    fn parameter_of<'n>(&'n self, name: &'n str) -> &'n str {
        self.parent.as_ref().map_or(name, Path::parameter)
    }

    /// Reads parameter `i` (declared order). `None` when it was refused (the problem is kept).
    pub fn take<T: FromArg>(&mut self, i: usize) -> Option<T> {
        let p = &self.params[i];
        match self.slots.get(i) {
            None | Some(Value::Null) => {
                if let Some(v) = T::absent() {
                    return Some(v);
                }
                let sent_null = self.slots.get(i).is_some();
                let problem = self.missing(p, &T::ty(), sent_null);
                self.problems.push(problem);
                None
            }
            Some(v) => self.read(p, v),
        }
    }

    /// Reads parameter `i`, or `default()` when it is absent or `null`.
    pub fn take_or<T: FromArg>(&mut self, i: usize, default: impl FnOnce() -> T) -> Option<T> {
        let p = &self.params[i];
        match self.slots.get(i) {
            None | Some(Value::Null) => Some(default()),
            Some(v) => self.read(p, v),
        }
    }

    fn read<T: FromArg>(&mut self, p: &ParamSpec, v: &Value) -> Option<T> {
        let parent = self.parent;
        let path = match &parent {
            Some(parent) => Path::Field(parent, p.name),
            None => Path::Param(p.name),
        };
        let cx = Cx { rules: &p.rules, strict: self.strict, path };
        match T::from_arg(v, &cx) {
            Ok(x) => Some(x),
            Err(problem) => {
                self.problems.push(problem);
                None
            }
        }
    }

    fn missing(&self, p: &ParamSpec, ty: &Ty, sent_null: bool) -> Problem {
        let (rejected, issue) = if sent_null {
            (Rejected::Shown("null".into()), "is not accepted: this parameter is required")
        } else {
            (Rejected::Missing, "required, but not sent")
        };
        let into = match &self.parent {
            Some(parent) => parent.to_string(),
            None => "the arguments".to_owned(),
        };
        let example = example_json(p, ty);
        let fix = if example.contains('…') {
            format!("Add \"{}\" to {into}.", p.name)
        } else {
            format!("Add \"{}\" to {into}, like \"{}\": {example}.", p.name, p.name)
        };
        Problem::new(self.parameter_of(p.name), rejected, issue)
            .accepted(accepted_words(p, ty))
            .fix(fix)
            .at(self.path_of(p.name))
    }

    fn unknown_names(&self, obj: &Map<String, Value>) -> Vec<Problem> {
        let names: Vec<&str> = self.params.iter().map(|p| p.name).collect();
        let accepted = if names.is_empty() { "no parameters".to_owned() } else { names.join(", ") };
        let (what, of) = match &self.parent {
            Some(parent) => ("field", parent.to_string()),
            None => ("parameter", self.owner.to_owned()),
        };
        let unknown: Vec<&String> = obj.keys().filter(|k| !names.contains(&k.as_str())).collect();
        let mut out: Vec<Problem> = unknown
            .iter()
            .take(SHOWN_ITEMS)
            .map(|k| {
                let shown_name = render::shown(&Value::String((*k).clone()));
                // Offer only a name the caller did not send already.
                let sugg = render::closest(k, names.iter().copied().filter(|n| !obj.contains_key(*n)));
                let fix = match sugg {
                    Some(s) => format!("Rename {shown_name} to \"{s}\"."),
                    None => "Remove it.".to_owned(),
                };
                let name: String = k.chars().take(render::SHOWN_CHARS).collect();
                Problem::new(self.parameter_of(&name), Rejected::Shown(shown_name), format!("is not a {what} of {of}"))
                    .accepted(accepted.clone())
                    .fix(fix)
                    .suggestion(sugg)
                    .at(self.path_of(&name))
            })
            .collect();
        if unknown.len() > SHOWN_ITEMS {
            let rest = unknown.len() - SHOWN_ITEMS;
            let listed: Vec<String> =
                unknown[SHOWN_ITEMS..].iter().take(3).map(|k| render::shown(&Value::String((*k).clone()))).collect();
            let etc = if rest > 3 { ", …" } else { "" };
            let at = self.parent.map_or_else(|| "arguments".to_owned(), |p| p.to_string());
            out.push(
                Problem::new(
                    self.parameter_of("arguments"),
                    Rejected::Missing,
                    format!("{rest} more names are not {what}s of {of} ({}{etc})", listed.join(", ")),
                )
                .accepted(accepted)
                .fix("Remove every name that is not listed as accepted.")
                .at(at),
            );
        }
        out
    }

    /// The parameter's value for cross-field rules: as sent (not `null`), else its default.
    fn effective<'s>(&'s self, p: &'s ParamSpec) -> Option<&'s Value> {
        self.sent(p).or(p.default.as_ref())
    }

    fn sent(&self, p: &ParamSpec) -> Option<&'a Value> {
        self.obj.and_then(|o| o.get(p.name)).filter(|v| !v.is_null())
    }

    /// Checks the cross-field rules (`requires`, `excludes`) of parameters that were read
    /// without a problem; each broken rule is a problem of the parameter to change.
    pub fn cross(&mut self) {
        let mut found = Vec::new();
        let failed = |name: &str, problems: &[Problem]| {
            let at = self.path_of(name);
            problems.iter().any(|p| p.path.as_deref().unwrap_or(&p.parameter) == at)
        };
        for p in self.params {
            if failed(p.name, &self.problems) {
                continue;
            }
            let this = self.effective(p);
            for rule in &p.requires {
                let triggered = match (&rule.when, this) {
                    (None, _) => self.sent(p).is_some(),
                    (Some(w), Some(v)) => same(v, w, p.rules.ignore_case),
                    (Some(_), None) => false,
                };
                if !triggered {
                    continue;
                }
                let cause = match &rule.when {
                    Some(w) => Cause {
                        noun: format!("{} {}", p.name, render::shown(w)),
                        when: format!("{} is {}", p.name, render::shown(w)),
                    },
                    None => Cause { noun: p.name.to_owned(), when: format!("{} is sent", p.name) },
                };
                for (other_name, want) in &rule.then {
                    let Some(other) = self.params.iter().find(|o| o.name == *other_name) else { continue };
                    if failed(other.name, &self.problems) {
                        continue;
                    }
                    let value = self.effective(other);
                    let ok = match (want, value) {
                        (None, v) => v.is_some(),
                        (Some(w), Some(v)) => same(v, w, other.rules.ignore_case),
                        (Some(_), None) => false,
                    };
                    if !ok {
                        let problem = cross_problem(other, self.sent(other), value, want.as_ref(), p, &cause);
                        found.push(problem.at(self.path_of(other.name)).under(self.parameter_of(other.name)));
                    }
                }
            }
            for other_name in &p.excludes {
                let Some(other) = self.params.iter().find(|o| o.name == *other_name) else { continue };
                if let (Some(v), Some(_)) = (self.sent(p), self.sent(other))
                    && !failed(other.name, &self.problems)
                {
                    found.push(
                        Problem::new(
                            p.name,
                            rejected_of(v, holds_secret(&p.rules, &p.ty)),
                            format!("cannot be sent together with {}", other.name),
                        )
                        .accepted(format!("{} or {}, not both", p.name, other.name))
                        .fix(format!("Remove {} or {}.", p.name, other.name)),
                    );
                }
            }
        }
        self.problems.extend(found);
    }

    /// The refusal of every problem found (called when a parameter could not be read).
    pub fn refuse<'o>(self) -> crate::toolbox::Outcome<'o> {
        let envelope = match self.finish() {
            Err(refusal) => refusal.into(),
            Ok(()) => crate::Fault::backend("reading the arguments").into(),
        };
        crate::toolbox::Outcome::Ready(envelope)
    }

    /// The refusal of names that are not parameters, when every parameter was read.
    pub fn unknown<'o>(self) -> Option<crate::toolbox::Outcome<'o>> {
        if self.problems.is_empty() && self.unknown.is_empty() { None } else { Some(self.refuse()) }
    }

    /// For a nested object whose field could not be read: its problems as one (never empty:
    /// a field that could not be read left one).
    pub fn into_problem_or(self, cx: &Cx<'_>) -> Problem {
        let at = cx.path.to_string();
        match self.into_problem() {
            Err(p) => p,
            Ok(()) => Problem::new(cx.path.parameter(), Rejected::Missing, "could not be read")
                .accepted("an object as the schema describes")
                .fix("Send it as the schema describes.")
                .at(at),
        }
    }

    /// For a nested object: every problem found, as one problem (the first) carrying the rest.
    pub fn into_problem(self) -> Result<(), Problem> {
        let mut all = self.problems;
        all.extend(self.unknown);
        if all.is_empty() {
            return Ok(());
        }
        let mut first = all.remove(0);
        first.also.extend(all);
        Err(first)
    }

    /// Every problem found (the parameters' own, then names that are not parameters), or `Ok`
    /// when all parameters were read.
    pub fn finish(mut self) -> Result<(), crate::Refusal> {
        self.problems.append(&mut self.unknown);
        if self.problems.is_empty() { Ok(()) } else { Err(crate::Refusal::from_problems(self.problems)) }
    }
}

/// The accepted set of a parameter in words, with its rules.
pub(crate) fn accepted_words(p: &ParamSpec, ty: &Ty) -> String {
    value_words(ty, &p.rules)
}

/// The accepted set of a value of shape `ty` under `rules`, every rule stated: `an array of at
/// most 10 items, each a string matching the pattern ^[a-z]+$`.
pub(crate) fn value_words(ty: &Ty, rules: &Rules) -> String {
    match (&rules.choices, ty) {
        (Some(Choices::Str(c)), _) => format!("one of {}", render::quoted_list(c.iter().copied())),
        (Some(Choices::Int(c)), _) => {
            let list: Vec<String> = c.iter().map(i64::to_string).collect();
            format!("one of {}", list.join(", "))
        }
        (None, Ty::Integer { min, max }) => {
            let cx = Cx { rules, strict: false, path: Path::Param("") };
            int_accepted(&cx, *min, *max).2
        }
        (None, Ty::Number) => float_accepted(rules.range.as_ref()).0,
        (None, Ty::Enum(names)) => format!("one of {}", render::quoted_list(names.iter().copied())),
        (None, Ty::String) => str_words(rules),
        (None, Ty::Array(item)) => array_words(item, rules.items.as_deref(), rules.length.as_ref()),
        (None, ty) => ty.words(),
    }
}

fn example_json(p: &ParamSpec, ty: &Ty) -> String {
    match (&p.rules.choices, ty) {
        (Some(Choices::Str(c)), _) => render::quoted_list(c.first().copied()),
        (Some(Choices::Int(c)), _) => c.first().map_or_else(String::new, i64::to_string),
        (None, Ty::Integer { min, max }) => {
            let cx = Cx { rules: &p.rules, strict: false, path: Path::Param(p.name) };
            let (a, b, _) = int_accepted(&cx, *min, *max);
            example_int(a, b).to_string()
        }
        (None, Ty::Number) => float_accepted(p.rules.range.as_ref()).1,
        (None, Ty::String) => "\"…\"".into(),
        (None, Ty::Boolean) => "true".into(),
        (None, Ty::Enum(names)) => render::quoted_list(names.first().copied()),
        (None, Ty::Array(_)) => "[…]".into(),
        (None, Ty::Object(_)) => "{…}".into(),
        (None, Ty::Any) => "…".into(),
    }
}

/// Refusal of arguments that are not a JSON object (an array, a string, a number).
pub(crate) fn not_an_object(spec: &ToolSpec, v: &Value) -> Problem {
    let names: Vec<String> = spec.params.iter().map(|p| format!("\"{}\"", p.name)).collect();
    let like = spec
        .params
        .iter()
        .find(|p| p.required)
        .or(spec.params.first())
        .map(|p| format!("{{\"{}\": {}}}", p.name, example_json(p, &p.ty)))
        .unwrap_or_else(|| "{}".into());
    let secret = spec.params.iter().any(|p| holds_secret(&p.rules, &p.ty));
    Problem::new("arguments", rejected_of(v, secret), format!("is {}, not an object", render::json_type(v)))
        .accepted(if names.is_empty() {
            "an empty object, {}".to_owned()
        } else {
            format!("an object with the keys {}", names.join(", "))
        })
        .fix(format!("Send the arguments as a JSON object, like {like}."))
}

/// Refusal of a parameter (or of the whole `arguments`) whose JSON text cannot be read: nested
/// past the 128 levels JSON parsing allows (`deep`), or holding a number no double holds
/// (`1e400`), or an invalid escape (a lone surrogate).
pub(crate) fn unreadable(spec: &ToolSpec, name: &str, raw: &str, deep: bool) -> Problem {
    let p = spec.params.iter().find(|p| p.name == name);
    let accepted = match p {
        Some(p) => accepted_words(p, &p.ty),
        None => "a JSON object of the parameters".to_owned(),
    };
    let secret =
        p.map_or_else(|| spec.params.iter().any(|p| holds_secret(&p.rules, &p.ty)), |p| holds_secret(&p.rules, &p.ty));
    let number = raw.trim().starts_with(|c: char| c == '-' || c.is_ascii_digit());
    let (issue, fix) = if deep {
        (
            "is nested more than 127 levels deep",
            format!("Send {name} as the schema describes, without the extra nesting."),
        )
    } else if number {
        ("is too large to read as a number", format!("Send {name} within the accepted range."))
    } else {
        ("is not valid JSON text (an invalid escape or number)", format!("Send {name} as valid JSON."))
    };
    let rejected = if secret || deep {
        Rejected::Missing
    } else {
        let shown: String = raw.trim().chars().take(render::SHOWN_CHARS).collect();
        Rejected::Shown(shown)
    };
    let issue = if matches!(rejected, Rejected::Missing) && !deep {
        format!("the value sent {issue}")
    } else if deep {
        format!("the value sent {issue} (not shown)")
    } else {
        issue.to_owned()
    };
    Problem::new(name, rejected, issue).accepted(accepted).fix(fix)
}

/// Whether a value with these rules (or any part of it) is secret: then no part of it is shown.
pub(crate) fn holds_secret(rules: &Rules, ty: &Ty) -> bool {
    rules.secret
        || rules.items.as_ref().is_some_and(|items| match ty {
            Ty::Array(item) => holds_secret(items, item),
            _ => items.secret,
        })
        || match ty {
            Ty::Object(o) => o.params.iter().any(|p| holds_secret(&p.rules, &p.ty)),
            Ty::Array(item) => holds_secret(&Rules::NONE, item),
            _ => false,
        }
}
