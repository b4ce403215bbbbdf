use envelope_core::tool;

/// Returns a borrowed error string.
#[tool]
fn lookup(id: u32) -> Result<u32, &'static str> {
    Ok(id)
}

fn main() {}
