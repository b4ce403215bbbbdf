use envelope_core::tool;

/// An inverted half-open range.
#[tool]
fn pick(#[validate(range = 10..5)] n: u32) -> u32 {
    n
}

fn main() {}
