use envelope_core::{Reading, FromArg, Problem, spec::Ty, tool};
use serde_json::Value;

/// A newtype of a string: it reads a string, so `range` does not apply to it.
struct Code(String);

impl FromArg for Code {
    fn ty() -> Ty {
        String::ty()
    }
    fn from_arg(v: &Value, cx: &Reading<'_>) -> Result<Self, Problem> {
        String::from_arg(v, cx).map(Code)
    }
}

/// Looks up a code.
#[tool]
fn lookup(#[validate(range = 1..=9)] code: Code) -> String {
    code.0
}

fn main() {}
