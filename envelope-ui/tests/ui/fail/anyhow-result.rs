use envelope_core::tool;

/// Returns an anyhow result.
#[tool]
fn lookup(id: u32) -> anyhow::Result<u32> {
    Ok(id)
}

fn main() {}
