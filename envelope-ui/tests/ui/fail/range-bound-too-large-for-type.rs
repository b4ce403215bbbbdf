use envelope_core::tool;

/// A bound past `u8::MAX`.
#[tool]
fn pick(#[validate(range = 1..=300)] n: u8) -> u8 {
    n
}

fn main() {}
