use envelope_core::{Reading, FromArg, Problem, read::Textual, spec::Ty, tool};
use serde_json::Value;

/// A newtype of a string: it reads a string, so `each(...)` does not apply to it.
struct Csv(String);

impl FromArg for Csv {
    fn ty() -> Ty {
        String::ty()
    }
    fn from_arg(v: &Value, cx: &Reading<'_>) -> Result<Self, Problem> {
        String::from_arg(v, cx).map(Csv)
    }
}

impl Textual for Csv {}

/// Imports rows and lines.
#[tool]
fn import(#[validate(each(length = 1..=20))] rows: Csv, #[validate(each(fix = "Send lines."))] lines: Csv) -> String {
    rows.0 + &lines.0
}

fn main() {}
