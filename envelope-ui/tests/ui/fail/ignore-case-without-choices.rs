use envelope_core::tool;

/// `ignore_case` with no choices.
#[tool]
fn search(#[validate(ignore_case)] query: String) -> String {
    query
}

fn main() {}
