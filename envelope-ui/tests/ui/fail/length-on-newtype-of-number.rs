use envelope_core::{Reading, FromArg, Problem, read::Numeric, spec::Ty, tool};
use serde_json::Value;

/// A newtype of a number: neither a string nor an array, so `length` does not apply to it.
struct Count(u32);

impl FromArg for Count {
    fn ty() -> Ty {
        u32::ty()
    }
    fn from_arg(v: &Value, cx: &Reading<'_>) -> Result<Self, Problem> {
        u32::from_arg(v, cx).map(Count)
    }
}

impl Numeric for Count {}

/// Repeats a number of times.
#[tool]
fn repeat(#[validate(length = 1..=3)] times: Count) -> u32 {
    times.0
}

fn main() {}
