use envelope_core::tool;

/// `range` on a string.
#[tool]
fn search(#[validate(range = 1..=120)] query: String) -> String {
    query
}

fn main() {}
