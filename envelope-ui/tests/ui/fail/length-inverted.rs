use envelope_core::tool;

/// An inverted length range.
#[tool]
fn search(#[validate(length = 120..=1)] query: String) -> String {
    query
}

fn main() {}
