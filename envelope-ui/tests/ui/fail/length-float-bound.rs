use envelope_core::tool;

/// A fractional length.
#[tool]
fn search(#[validate(length = 1..=12.5)] query: String) -> String {
    query
}

fn main() {}
