use envelope_core::tool;

/// Returns an anyhow error.
#[tool]
fn lookup(id: u32) -> Result<u32, anyhow::Error> {
    Ok(id)
}

fn main() {}
