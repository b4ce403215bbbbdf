use envelope_core::tool;

/// `multiple_of` on a string.
#[tool]
fn code(#[validate(multiple_of = 5)] code: String) -> String {
    code
}

fn main() {}
