use envelope_core::tool;

/// A default that is not a multiple of the step.
#[tool]
fn step(#[validate(range = 0..=100, multiple_of = 5, default = 7)] step: u32) -> u32 {
    step
}

fn main() {}
