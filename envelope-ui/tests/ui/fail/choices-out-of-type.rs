use envelope_core::tool;

/// A choice past `u8::MAX`.
#[tool]
fn level(#[validate(choices = [1, 300])] n: u8) -> u8 {
    n
}

fn main() {}
