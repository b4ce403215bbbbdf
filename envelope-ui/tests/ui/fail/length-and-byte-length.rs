use envelope_core::tool;

/// Both length rules.
#[tool]
fn search(#[validate(length = 1..=120, byte_length = 1..=480)] query: String) -> String {
    query
}

fn main() {}
