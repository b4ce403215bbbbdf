//! `choices` (with `ignore_case`): the accepted values, listed. Its checks for integers and
//! strings, its words (every choice listed, the closest offered) and its JSON Schema keyword
//! (`enum`; a case-blind `pattern` with `examples` under `ignore_case`).

use serde_json::{Map, Value, json};

use crate::cx::Cx;
use crate::refusal::Problem;
use crate::render;
use crate::spec::Choices;

/// `one of 10, 25, 50`.
pub(crate) fn int_words(c: &[i64]) -> String {
    let list: Vec<String> = c.iter().map(i64::to_string).collect();
    format!("one of {}", list.join(", "))
}

/// `one of "asc", "desc"`.
pub(crate) fn str_words(c: &[&str]) -> String {
    format!("one of {}", render::quoted_list(c.iter().copied()))
}

/// The accepted set of any choices.
pub(crate) fn words(c: &Choices) -> String {
    match c {
        Choices::Str(c) => str_words(c),
        Choices::Int(c) => int_words(c),
    }
}

/// The first choice as JSON text (the example of a missing parameter's fix).
pub(crate) fn example(c: &Choices) -> String {
    match c {
        Choices::Str(c) => render::quoted_list(c.first().copied()),
        Choices::Int(c) => c.first().map_or_else(String::new, i64::to_string),
    }
}

/// Refuses an integer `n` not among `c`, offering the closest choice.
pub(crate) fn check_int(cx: &Cx<'_>, v: &Value, n: i128, c: &[i64], accepted: String) -> Result<(), Problem> {
    if c.iter().any(|&x| i128::from(x) == n) {
        return Ok(());
    }
    let closest = c.iter().min_by_key(|&&x| (i128::from(x) - n).unsigned_abs()).copied().unwrap_or_default();
    let fix = format!("Send {closest}, the closest accepted value, or another one listed.");
    Err(cx.problem(v, "is not an accepted value", accepted, fix))
}

/// The choice `s` is (its canonical spelling, a case-only difference taken under
/// `ignore_case`), or the refusal of a string not among `c`, with the closest choice offered.
pub(crate) fn check_str<'s>(
    cx: &Cx<'_>,
    v: &Value,
    s: &'s str,
    c: &'static [&'static str],
) -> Result<&'s str, Problem> {
    if cx.rules.ignore_case
        && let Some(canonical) = c.iter().find(|x| x.eq_ignore_ascii_case(s) || x.to_lowercase() == s.to_lowercase())
    {
        return Ok(canonical);
    }
    if !c.contains(&s) {
        let sugg = render::closest(s, c.iter().copied());
        let fix = match sugg {
            Some(x) => format!("Send {}.", render::quoted_list([x])),
            None => "Send one of the accepted values, spelled exactly as listed.".to_owned(),
        };
        return Err(cx.problem(v, "is not an accepted value", str_words(c), fix).with_suggestion(sugg));
    }
    Ok(s)
}

/// The JSON Schema keyword of the choices.
pub(crate) fn schema(m: &mut Map<String, Value>, c: &Choices, ignore_case: bool) {
    match (c, ignore_case) {
        // `ignore_case` accepts any case: an `enum` would refuse what the tool serves, so the
        // choices become a case-blind `pattern`, with the canonical spellings as `examples`.
        (Choices::Str(c), true) => {
            m.insert("pattern".into(), json!(case_blind_pattern(c)));
            m.insert("examples".into(), json!(c));
        }
        (Choices::Str(c), false) => {
            m.insert("enum".into(), json!(c));
        }
        (Choices::Int(c), _) => {
            m.insert("enum".into(), json!(c));
        }
    }
}

/// `^(?:[Aa][Ll][Ll]|...)$`: matches each choice in any letter case, in the regex syntax that
/// JSON Schema (ECMA-262) and the `regex` crate share.
fn case_blind_pattern(choices: &[&str]) -> String {
    let alternatives: Vec<String> = choices
        .iter()
        .map(|c| {
            c.chars()
                .map(|ch| {
                    let (lo, up): (String, String) = (ch.to_lowercase().collect(), ch.to_uppercase().collect());
                    if lo != up && lo.chars().count() == 1 && up.chars().count() == 1 {
                        format!("[{lo}{up}]")
                    } else if ch.is_ascii_alphanumeric() || !ch.is_ascii() {
                        ch.to_string()
                    } else {
                        format!("\\{ch}")
                    }
                })
                .collect()
        })
        .collect();
    format!("^(?:{})$", alternatives.join("|"))
}
