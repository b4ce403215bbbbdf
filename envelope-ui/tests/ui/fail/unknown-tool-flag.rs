use envelope_core::tool;

/// A misspelt flag.
#[tool(readonly)]
fn lookup(id: u32) -> u32 {
    id
}

fn main() {}
