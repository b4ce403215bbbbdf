use envelope_core::tool;

/// Deletes everything, at a tier that does not exist.
#[tool(destructive, tier = 5)]
fn purge() -> bool {
    true
}

fn main() {}
