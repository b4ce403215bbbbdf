use envelope_core::tool;

/// A borrowed string parameter.
#[tool]
fn search(query: &str) -> usize {
    query.len()
}

fn main() {}
