use envelope_core::tool;

/// A fractional `multiple_of` on an integer, and a string literal for the step.
#[tool]
fn batch(#[validate(multiple_of = 2.5)] size: u32, #[validate(multiple_of = "5")] count: u32) -> u32 {
    size + count
}

fn main() {}
