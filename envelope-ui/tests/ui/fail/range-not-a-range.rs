use envelope_core::tool;

/// A single number where a range goes.
#[tool]
fn pick(#[validate(range = 5)] n: u32) -> u32 {
    n
}

fn main() {}
