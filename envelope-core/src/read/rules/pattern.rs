//! `pattern` (with `example`): a regex the string must contain a match for, as JSON Schema's
//! `pattern` searches (2020-12 Validation §6.3.3). Its check, its words by where the regex is
//! anchored, and its keyword.

use std::fmt::{self, Formatter};

use serde_json::{Map, Value, json};

use crate::outcome::refusal::Problem;
use crate::read::path::Reading;
use crate::read::rules::{Accepted, Subject};
use crate::spec::{Anchoring, Pattern, Rules, Ty};
use crate::words::render;

/// Refuses a string holding no match; the accepted set is the string's, every rule on it
/// stated.
#[inline]
pub(crate) fn check(reading: &Reading<'_>, v: &Value, x: Subject<'_>) -> Result<(), Problem> {
    let (Some(p), Subject::Text(s)) = (&reading.rules.pattern, x) else { return Ok(()) };
    if p.regex.is_match(s) {
        return Ok(());
    }
    let fix = match p.example {
        Some(e) => format!("Send a value of the same form as {}.", render::quoted_list([e])),
        None => fix(p),
    };
    let issue = match p.anchoring() {
        Anchoring::Search => "does not contain a match for the pattern",
        _ => "does not match the pattern",
    };
    Err(reading.problem_of(v, issue, Accepted::text(reading.rules).words(), fix))
}

/// How a string relates to its pattern, after the rest of its accepted set, by where the
/// pattern is anchored: ` matching the pattern ^[a-z]+$` only when `^` and `$` tie it to both
/// ends; else a search (JSON Schema `pattern`).
pub(crate) fn accepted(f: &mut Formatter<'_>, p: &Pattern) -> fmt::Result {
    let relation = match p.anchoring() {
        Anchoring::Full => " matching the pattern ",
        Anchoring::Start => " starting with a match for the pattern ",
        Anchoring::End => " ending with a match for the pattern ",
        Anchoring::Search => " containing a match for the pattern ",
    };
    f.write_str(relation)?;
    f.write_str(p.source)
}

/// The move that fixes a string its pattern refused, when no `example` is declared: "in full"
/// only for a pattern anchored at both ends.
fn fix(p: &Pattern) -> String {
    let src = p.source;
    match p.anchoring() {
        Anchoring::Full => format!("Send a string that matches {src} in full."),
        Anchoring::Start => format!("Send a string that starts with a match for {src}."),
        Anchoring::End => format!("Send a string that ends with a match for {src}."),
        Anchoring::Search => format!("Send a string that contains a match for {src} somewhere."),
    }
}

/// The JSON Schema keyword.
pub(crate) fn schema(m: &mut Map<String, Value>, _ty: &Ty, rules: &Rules) {
    if let Some(p) = &rules.pattern {
        m.insert("pattern".into(), json!(p.source));
    }
}
