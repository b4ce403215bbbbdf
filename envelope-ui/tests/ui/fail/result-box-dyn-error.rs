use envelope_core::tool;

/// Returns a boxed error.
#[tool]
fn lookup(id: u32) -> Result<u32, Box<dyn std::error::Error>> {
    Ok(id)
}

fn main() {}
