use envelope_core::tool;

/// Names no error type.
#[tool]
fn lookup(id: u32) -> Result<u32> {
    Ok(id)
}

fn main() {}
