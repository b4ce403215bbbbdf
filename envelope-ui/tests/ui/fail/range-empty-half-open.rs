use envelope_core::tool;

/// Empty half-open range.
#[tool]
fn pick(#[validate(range = 5..5)] n: u32) -> u32 {
    n
}

fn main() {}
