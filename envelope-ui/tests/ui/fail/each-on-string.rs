use envelope_core::tool;

/// `each(...)` on a string.
#[tool]
fn search(#[validate(each(length = 1..=3))] query: String) -> String {
    query
}

fn main() {}
