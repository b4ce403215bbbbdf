use envelope_core::tool;

/// A negative bound on an unsigned parameter.
#[tool]
fn pick(#[validate(range = -1..=5)] n: u32) -> u32 {
    n
}

fn main() {}
