use envelope_core::tool;

/// A length range that ends before 0.
#[tool]
fn search(#[validate(length = ..0)] query: String) -> String {
    query
}

fn main() {}
