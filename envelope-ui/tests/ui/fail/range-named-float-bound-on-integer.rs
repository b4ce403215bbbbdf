use envelope_core::tool;

/// A fraction on an integer.
#[tool]
fn pick(#[validate(range(exclusive_min = 0.5))] n: u32) -> u32 {
    n
}

fn main() {}
