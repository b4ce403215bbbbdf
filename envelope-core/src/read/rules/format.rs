//! `format`: a string of a standard form (JSON Schema 2020-12 Validation §7.3), each checked by
//! its RFC (see [`Format`]). Its check, its words and its keyword.

use serde_json::{Map, Value, json};

use crate::cx::Cx;
use crate::refusal::Problem;
use crate::spec::Format;

/// `a valid email address`, `a valid date-time`.
fn article(keyword: &str) -> String {
    match keyword {
        "email" => "a valid email address".to_owned(),
        "uri" => "a valid absolute URI".to_owned(),
        "uuid" => "a valid UUID".to_owned(),
        other => format!("a valid {other}"),
    }
}

/// Refuses a string not of the form.
pub(crate) fn check(cx: &Cx<'_>, v: &Value, s: &str, f: Format) -> Result<(), Problem> {
    if f.accepts(s) {
        return Ok(());
    }
    Err(cx.problem(v, format!("is not {}", article(f.keyword())), f.words().to_owned(), f.fix().to_owned()))
}

/// The JSON Schema keyword.
pub(crate) fn schema(m: &mut Map<String, Value>, f: Format) {
    m.insert("format".into(), json!(f.keyword()));
}
