use envelope_core::tool;

/// A fractional bound on an integer.
#[tool]
fn pick(#[validate(range = 1..=2.5)] n: u32) -> u32 {
    n
}

fn main() {}
