use envelope_core::{Reading, FromArg, Problem, read::Numeric, spec::Ty, tool};
use serde_json::Value;

/// A newtype of a number: it reads a number, so `pattern` does not apply to it.
struct Port(u16);

impl FromArg for Port {
    fn ty() -> Ty {
        u16::ty()
    }
    fn from_arg(v: &Value, cx: &Reading<'_>) -> Result<Self, Problem> {
        u16::from_arg(v, cx).map(Port)
    }
}

impl Numeric for Port {}

/// Connects to a port.
#[tool]
fn connect(#[validate(pattern = "^[0-9]+$")] port: Port) -> u16 {
    port.0
}

fn main() {}
