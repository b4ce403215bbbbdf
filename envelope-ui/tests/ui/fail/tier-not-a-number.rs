use envelope_core::tool;

/// Deletes everything, with the tier spelled as a word.
#[tool(tier = "T4")]
fn purge() -> bool {
    true
}

fn main() {}
