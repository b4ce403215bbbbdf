use envelope_core::tool;

/// A length with no bound.
#[tool]
fn search(#[validate(length = ..)] query: String) -> String {
    query
}

fn main() {}
