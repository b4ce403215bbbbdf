use envelope_core::tool;

/// `length` on an integer.
#[tool]
fn top(#[validate(length = 1..=3)] n: u32) -> u32 {
    n
}

fn main() {}
