use envelope_core::tool;

/// A default past `u8::MAX`, with no range.
#[tool]
fn level(#[validate(default = 300)] n: u8) -> u8 {
    n
}

fn main() {}
