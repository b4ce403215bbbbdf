//! `format`: a string of a standard form (JSON Schema 2020-12 Validation §7.3), each checked by
//! its RFC (see [`Format`]). Its check, its words (the form, stated instead of a length) and its
//! keyword.

use std::fmt::{self, Formatter};

use serde_json::{Map, Value, json};

use crate::outcome::refusal::Problem;
use crate::read::path::Reading;
use crate::read::rules::{Accepted, Subject};
use crate::spec::{Format, Rules, Ty};

/// Refuses a string not of the form.
#[inline]
pub(crate) fn check(reading: &Reading<'_>, v: &Value, x: Subject<'_>) -> Result<(), Problem> {
    let (Some(form), Subject::Text(s)) = (reading.rules.format, x) else { return Ok(()) };
    if form.accepts(s) {
        return Ok(());
    }
    let accepted = Accepted::Text { length: None, format: Some(form), pattern: None }.words();
    Err(reading.problem_of(v, format!("is not {}", article(form.keyword())), accepted, form.fix().to_owned()))
}

/// `a valid email address`, `a valid date-time`.
fn article(keyword: &str) -> String {
    match keyword {
        "email" => "a valid email address".to_owned(),
        "uri" => "a valid absolute URI".to_owned(),
        "uuid" => "a valid UUID".to_owned(),
        other => format!("a valid {other}"),
    }
}

/// The form in words: `a date as YYYY-MM-DD`.
pub(crate) fn accepted(f: &mut Formatter<'_>, form: Format) -> fmt::Result {
    f.write_str(form.words())
}

/// The JSON Schema keyword.
pub(crate) fn schema(m: &mut Map<String, Value>, _ty: &Ty, rules: &Rules) {
    if let Some(f) = rules.format {
        m.insert("format".into(), json!(f.keyword()));
    }
}
