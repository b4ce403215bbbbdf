//! `choices` (with `ignore_case`): the accepted values, listed. Its check for whole numbers and
//! strings (the closest choice offered), its words (every choice listed) and its JSON Schema
//! keyword (`enum`; a case-blind `pattern` with `examples` under `ignore_case`).

use std::fmt::{self, Formatter};

use serde_json::{Map, Value, json};

use crate::outcome::refusal::Problem;
use crate::read::path::Reading;
use crate::read::rules::{Accepted, Subject};
use crate::spec::KeptKey;
use crate::spec::{Choices, Rules, Ty};
use crate::words::render;
use crate::words::texts::Text;

/// Refuses a whole number not among integer choices, or a string not among string choices
/// (a case-only difference taken under `ignore_case`), offering the closest choice.
#[inline]
pub(crate) fn check(reading: &Reading<'_>, v: &Value, x: Subject<'_>) -> Result<(), Problem> {
    match (x, reading.rules.choices) {
        (Subject::Whole { n, .. }, Some(Choices::Int(c))) => {
            if c.iter().any(|&x| i128::from(x) == n) {
                return Ok(());
            }
            let at = (0..c.len()).min_by_key(|&i| (i128::from(c[i]) - n).unsigned_abs());
            let fix = reading.rules.kept.choice_fix(KeptKey::choices(Choices::Int(c)), at, c.len(), || {
                let closest = at.map_or(0, |i| c[i]);
                format!("Send {closest}, the closest accepted value, or another one listed.")
            });
            Err(reading.problem_of(
                v,
                "is not an accepted value",
                Accepted::Choices(Choices::Int(c)).words_under(reading.rules),
                fix,
            ))
        }
        (Subject::Text(s), Some(Choices::Str(c))) => {
            if c.contains(&s) || (reading.rules.ignore_case && canonical(c, s).is_some()) {
                return Ok(());
            }
            let sugg = render::closest(s, c.iter().copied());
            let fix = match sugg {
                // The choice offered is one of `c` (the same `&str`): its fix kept by its place.
                Some(x) => {
                    let at = c.iter().position(|y| std::ptr::eq(*y, x));
                    reading.rules.kept.choice_fix(KeptKey::choices(Choices::Str(c)), at, c.len(), || {
                        let mut fix = String::with_capacity(x.len() + 12);
                        fix.push_str("Send ");
                        render::push_quoted(&mut fix, x);
                        fix.push('.');
                        fix
                    })
                }
                None => Text::Static("Send one of the accepted values, spelled exactly as listed."),
            };
            let accepted = Accepted::Choices(Choices::Str(c)).words_under(reading.rules);
            Err(reading.problem_of(v, "is not an accepted value", accepted, fix).with_suggestion(sugg))
        }
        _ => Ok(()),
    }
}

/// The choice `s` is under `ignore_case`: the first of `c` that `s` spells character by
/// character in [`case_forms`] (the forms the schema's case-blind `pattern` accepts, so the
/// reader and the schema agree: `"oK"` with a Kelvin sign, or `"STRAẞE"` for `"straße"`, is
/// neither).
pub(crate) fn canonical(c: &'static [&'static str], s: &str) -> Option<&'static str> {
    c.iter()
        .find(|x| {
            x.eq_ignore_ascii_case(s) || {
                let mut sent = s.chars();
                x.chars().all(|ch| sent.next().is_some_and(|got| case_forms(ch).contains(&Some(got))))
                    && sent.next().is_none()
            }
        })
        .copied()
}

/// The spellings of `ch` under `ignore_case`: itself, and its lower and upper case where each is
/// one character (`ß` has no upper case of one character: only itself).
fn case_forms(ch: char) -> [Option<char>; 3] {
    let lower = other_form(ch, ch.to_lowercase());
    let upper = other_form(ch, ch.to_uppercase()).filter(|&u| Some(u) != lower);
    [Some(ch), lower, upper]
}

/// A case form of `ch` when it is one character other than `ch`.
fn other_form(ch: char, mut form: impl Iterator<Item = char>) -> Option<char> {
    let c = form.next()?;
    (form.next().is_none() && c != ch).then_some(c)
}

/// `one of 10, 25, 50`, `one of "asc", "desc"`.
pub(crate) fn accepted(f: &mut Formatter<'_>, c: &Choices) -> fmt::Result {
    f.write_str("one of ")?;
    match c {
        Choices::Str(c) => render::write_quoted_list(f, c.iter().copied()),
        Choices::Int(c) => {
            for (i, x) in c.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{x}")?;
            }
            Ok(())
        }
    }
}

/// The first choice as JSON text (the example of a missing parameter's fix).
pub(crate) fn example(c: &Choices) -> String {
    match c {
        Choices::Str(c) => render::quoted_list(c.first().copied()),
        Choices::Int(c) => c.first().map_or_else(String::new, i64::to_string),
    }
}

/// The JSON Schema keyword of the choices.
pub(crate) fn schema(m: &mut Map<String, Value>, _ty: &Ty, rules: &Rules) {
    match (&rules.choices, rules.ignore_case) {
        (None, _) => {}
        // `ignore_case` accepts any case: an `enum` would refuse what the tool serves, so the
        // choices become a case-blind `pattern`, with the canonical spellings as `examples`.
        (Some(Choices::Str(c)), true) => {
            m.insert("pattern".into(), json!(case_blind_pattern(c)));
            m.insert("examples".into(), json!(c));
        }
        (Some(Choices::Str(c)), false) => {
            m.insert("enum".into(), json!(c));
        }
        (Some(Choices::Int(c)), _) => {
            m.insert("enum".into(), json!(c));
        }
    }
}

/// `^(?:[aA][lL][lL]|...)$`: matches each choice in the spellings [`canonical`] accepts, in the
/// regex syntax that JSON Schema (ECMA-262, with the `u` flag validators compile it with) and the
/// `regex` crate share: only ECMA's syntax characters are escaped (`\_` is an error there).
fn case_blind_pattern(choices: &[&str]) -> String {
    let alternatives: Vec<String> = choices
        .iter()
        .map(|c| {
            c.chars()
                .map(|ch| match case_forms(ch) {
                    [_, None, None] if "^$\\.*+?()[]{}|/".contains(ch) => format!("\\{ch}"),
                    [_, None, None] => ch.to_string(),
                    forms => {
                        let mut class = String::from("[");
                        class.extend(forms.into_iter().flatten());
                        class.push(']');
                        class
                    }
                })
                .collect()
        })
        .collect();
    format!("^(?:{})$", alternatives.join("|"))
}
