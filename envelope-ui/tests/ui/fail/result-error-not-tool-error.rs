use envelope_core::tool;

#[derive(Debug)]
struct LookupError;

/// Returns an error type of its own.
#[tool]
fn lookup(id: u32) -> Result<u32, LookupError> {
    Ok(id)
}

fn main() {}
