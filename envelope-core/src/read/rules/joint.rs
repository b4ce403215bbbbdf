//! The fix of a string that more than one of its rules refuses: the first rule that refuses it
//! (its `length`, its `format`) words the refusal, and its fix is made to meet the rules after it
//! too, so one corrected call is enough (`Send at least 3 characters, matching
//! ^[a-z][a-z0-9-]*$ in full.`, `Send an email address of at most 10 characters.`). Above
//! `length`, `format` and `pattern`, which know nothing of each other.

use crate::outcome::refusal::Problem;
use crate::spec::{Anchoring, Format, Rules};
use crate::words::render;
use crate::words::texts::Text;

use super::length;

/// `problem`, a refusal of the string `s` by its `length`, with a fix that meets its `format`
/// and `pattern` too.
pub(crate) fn after_length(rules: &Rules, s: &str, mut problem: Problem) -> Problem {
    let fix = match rules.format.filter(|form| !form.accepts(s)) {
        Some(form) => Some(within(rules, form, s)),
        None => joint_fix(rules, s, None, problem.0.fix.as_mut_string()),
    };
    if let Some(fix) = fix {
        problem.0.fix = Text::Owned(fix);
    }
    problem
}

/// `problem`, a refusal of the string `s` by its `format`, with a fix that meets its `length`
/// and `pattern` too (when the form's example does not).
pub(crate) fn after_format(rules: &Rules, s: &str, mut problem: Problem) -> Problem {
    if let Some(form) = rules.format {
        let fix = within(rules, form, s);
        if fix != form.fix() {
            problem.0.fix = Text::Owned(fix);
        }
    }
    problem
}

/// The fix of a string not of the form `form`, meeting the string's other rules: the form's
/// example when its `length` takes it, else the form within the length (`Send an email address
/// of at most 10 characters.`); with the pattern's clause when the pattern refuses the string
/// or the example offered.
fn within(rules: &Rules, form: Format, s: &str) -> String {
    let (fix, offered) = match rules.length {
        Some(len) if !length::takes_text(rules, form.example()) => {
            (format!("Send {} of {}.", form.words(), length::span(len)), None)
        }
        _ => (form.fix().to_owned(), Some(form.example())),
    };
    joint_fix(rules, s, offered, &fix).unwrap_or(fix)
}

/// The fix of a string that a rule checked before the pattern refused (its `length`, its
/// `format`), when the pattern refuses it too, or refuses the value `fix` offers (`offered`, a
/// format's example): the pattern's `example` (which meets every rule: a declaration whose
/// example does not panics), else `fix` with the pattern's clause (`Send at least 3
/// characters, matching ^[a-z][a-z0-9-]*$ in full.`). `None` when the pattern takes both, or
/// there is none.
pub(crate) fn joint_fix(rules: &Rules, s: &str, offered: Option<&str>, fix: &str) -> Option<String> {
    let p = rules.pattern.as_ref().filter(|p| !p.regex.is_match(s) || offered.is_some_and(|o| !p.regex.is_match(o)))?;
    if let Some(e) = p.example {
        return Some(format!("Send a value of the same form as {}.", render::quoted_list([e])));
    }
    let src = p.source;
    let clause = match p.anchoring() {
        Anchoring::Full => format!("matching {src} in full"),
        Anchoring::Start => format!("starting with a match for {src}"),
        Anchoring::End => format!("ending with a match for {src}"),
        Anchoring::Search => format!("containing a match for {src}"),
    };
    Some(format!("{}, {clause}.", fix.strip_suffix('.').unwrap_or(fix)))
}
