//! `format`: a string of a standard form (JSON Schema 2020-12 Validation §7.3), each checked by
//! its RFC (see [`Format`]). Its check, its words (the form, stated instead of a length) and its
//! keyword.

use std::fmt::{self, Formatter};

use serde_json::{Map, Value, json};

use crate::outcome::refusal::Problem;
use crate::read::path::Reading;
use crate::read::rules::{Accepted, Subject};
use crate::spec::{Format, Rules, Ty};

/// A format's prose (the accepted set, the fix) and its check by its RFC (`formats.rs`).
impl Format {
    /// The form in words (the accepted set).
    pub fn words(self) -> &'static str {
        match self {
            Format::Date => "a date as YYYY-MM-DD",
            Format::DateTime => "an RFC 3339 date-time with offset",
            Format::Uuid => "a hyphenated UUID",
            Format::Email => "an email address",
            Format::Uri => "an absolute URI with a scheme",
        }
    }

    /// The length of every string of the form, in characters, for a form of one length
    /// (`date`: 10, `uuid`: 36): a `length` that takes it adds nothing to the form's words.
    pub(crate) fn one_length(self) -> Option<usize> {
        match self {
            Format::Date => Some(10),
            Format::Uuid => Some(36),
            Format::DateTime | Format::Email | Format::Uri => None,
        }
    }

    /// A string of the form, the one [`fix`](Self::fix) offers: `2026-11-30`.
    pub fn example(self) -> &'static str {
        match self {
            Format::Date => "2026-11-30",
            Format::DateTime => "2026-11-30T14:05:00Z",
            Format::Uuid => "67e55044-10b1-426f-9247-bb680e5fe0c8",
            Format::Email => "ada@example.com",
            Format::Uri => "https://example.com/path",
        }
    }

    /// The move that fixes the call, with an example of the form ([`example`](Self::example)).
    pub fn fix(self) -> &'static str {
        match self {
            Format::Date => "Send a date like \"2026-11-30\".",
            Format::DateTime => "Send a date-time like \"2026-11-30T14:05:00Z\".",
            Format::Uuid => "Send a UUID like \"67e55044-10b1-426f-9247-bb680e5fe0c8\".",
            Format::Email => "Send an address like \"ada@example.com\".",
            Format::Uri => "Send a URI like \"https://example.com/path\".",
        }
    }

    /// Whether `s` is of this form (see each variant for its RFC).
    pub fn accepts(self, s: &str) -> bool {
        match self {
            Format::Date => super::formats::is_date(s),
            Format::DateTime => super::formats::is_date_time(s),
            Format::Uuid => s.len() == 36 && uuid::Uuid::try_parse(s).is_ok(),
            Format::Email => super::formats::is_email(s),
            Format::Uri => super::formats::is_uri(s),
        }
    }
}

/// Refuses a string not of the form.
#[inline]
pub(crate) fn check(reading: &Reading<'_>, v: &Value, x: Subject<'_>) -> Result<(), Problem> {
    let (Some(form), Subject::Text(s)) = (reading.rules.format, x) else { return Ok(()) };
    if form.accepts(s) {
        return Ok(());
    }
    let accepted = Accepted::text(reading.rules).words();
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
