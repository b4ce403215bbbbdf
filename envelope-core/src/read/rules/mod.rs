//! The rules of `#[validate(...)]`, one module each: its check, its wording (the accepted set,
//! the issue, the fix) and its JSON Schema keyword. They stand on the reading context
//! ([`crate::cx`]) alone; the value readers ([`crate::readers`]) call them, and the schema and
//! the refusals of a whole parameter read their words here.

pub(crate) mod choices;
pub(crate) mod format;
pub(crate) mod length;
pub(crate) mod multiple_of;
pub(crate) mod pattern;
pub(crate) mod range;

use serde_json::{Map, Value};

use crate::render;
use crate::spec::{Rules, Ty};

/// The accepted set of a value of shape `ty` under `rules`, every rule stated: `an array of at
/// most 10 items, each a string matching the pattern ^[a-z]+$`.
pub(crate) fn value_words(ty: &Ty, rules: &Rules) -> String {
    match (&rules.choices, ty) {
        (Some(c), _) => choices::words(c),
        (None, Ty::Integer { min, max }) => int_words(rules, *min, *max),
        (None, Ty::Number) => float_words(rules),
        (None, Ty::Enum(names)) => choices::str_words(names),
        (None, Ty::String) => str_words(rules),
        (None, Ty::Array(item)) => array_words(item, rules.items.as_deref(), rules.length.as_ref()),
        (None, ty) => ty.words(),
    }
}

/// An integer's accepted set under `range` and `multiple_of`, within the type's `[lo, hi]`.
pub(crate) fn int_words(rules: &Rules, lo: i128, hi: i128) -> String {
    let (min, max, words) = range::int_accepted(rules.range.as_ref(), lo, hi);
    match rules.multiple_of {
        Some(m) => multiple_of::int_words(m, min, max),
        None => words,
    }
}

/// A float's accepted set under `range` and `multiple_of`, with an example within it.
pub(crate) fn float_accepted(rules: &Rules) -> (String, String) {
    let (words, example) = range::float_accepted(rules.range.as_ref());
    match rules.multiple_of {
        Some(m) => {
            let example = match rules.range {
                Some(r) => {
                    let s = m.as_f64();
                    let f: f64 = example.parse().unwrap_or(0.0);
                    [(f / s).ceil() * s, (f / s).floor() * s]
                        .into_iter()
                        .find(|x| range::in_float_range(*x, &r))
                        .map_or(example, crate::render::number)
                }
                None => crate::render::number(m.as_f64()),
            };
            (multiple_of::float_words(m, &words), example)
        }
        None => (words, example),
    }
}

fn float_words(rules: &Rules) -> String {
    float_accepted(rules).0
}

/// An integer example under `range` and `multiple_of`.
pub(crate) fn int_example(rules: &Rules, lo: i128, hi: i128) -> i128 {
    let (a, b, _) = range::int_accepted(rules.range.as_ref(), lo, hi);
    let e = range::example_int(a, b);
    rules.multiple_of.and_then(|m| multiple_of::int_example(m, e, a, b)).unwrap_or(e)
}

/// A string's accepted set in words, with every rule on it: `a string of 8 to 16 characters
/// matching the pattern ^[a-z]+$`.
pub(crate) fn str_words(rules: &Rules) -> String {
    let mut words = match &rules.length {
        Some(l) => length::words("a string", l),
        None => "a string".to_owned(),
    };
    if let Some(f) = rules.format {
        words = f.words().to_owned();
    }
    if let Some(p) = &rules.pattern {
        words.push_str(pattern::words(p));
        words.push_str(p.source);
    }
    words
}

/// `an array of 1 to 3 items, each a whole number`.
pub(crate) fn array_words(item: &Ty, item_rules: Option<&Rules>, len: Option<&crate::spec::Length>) -> String {
    let each = match item_rules {
        Some(rules) => value_words(item, rules),
        None => item.words(),
    };
    match (len, item_rules) {
        (Some(l), _) => format!("{}, each {each}", length::words("an array", l)),
        (None, Some(_)) => format!("an array, each item {each}"),
        (None, None) => format!("an array of {}", item.plural()),
    }
}

/// An accepted value of shape `ty` under `rules`, as JSON text (`10`, `"query_hash"`), or a
/// placeholder with `…` where none is simple to give.
pub(crate) fn example_json(ty: &Ty, rules: &Rules) -> String {
    match (&rules.choices, ty) {
        (Some(c), _) => choices::example(c),
        (None, Ty::Integer { min, max }) => int_example(rules, *min, *max).to_string(),
        (None, Ty::Number) => float_accepted(rules).1,
        (None, Ty::String) => "\"…\"".into(),
        (None, Ty::Boolean) => "true".into(),
        (None, Ty::Enum(names)) => render::quoted_list(names.first().copied()),
        (None, Ty::Array(_)) => "[…]".into(),
        (None, Ty::Object(_)) => "{…}".into(),
        (None, Ty::Any) => "…".into(),
    }
}

/// Every rule's JSON Schema keywords on a value of shape `ty`, in a fixed order.
pub(crate) fn schema(m: &mut Map<String, Value>, ty: &Ty, rules: &Rules) {
    if let Some(r) = &rules.range {
        range::schema(m, r, ty);
    }
    if let Some(step) = rules.multiple_of {
        multiple_of::schema(m, step);
    }
    if let Some(c) = &rules.choices {
        choices::schema(m, c, rules.ignore_case);
    }
    if let Some(l) = &rules.length {
        length::schema(m, l, ty);
    }
    if let Some(f) = rules.format {
        format::schema(m, f);
    }
    if let Some(p) = &rules.pattern {
        pattern::schema(m, p);
    }
}
