use envelope_core::tool;

/// A negative length.
#[tool]
fn search(#[validate(length = -1..=120)] query: String) -> String {
    query
}

fn main() {}
