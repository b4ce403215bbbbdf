use envelope_core::tool;

/// `pattern` on an integer.
#[tool]
fn zip(#[validate(pattern = "^[0-9]{5}$")] code: u32) -> u32 {
    code
}

fn main() {}
