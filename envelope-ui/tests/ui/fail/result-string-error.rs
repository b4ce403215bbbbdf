use envelope_core::tool;

/// Returns a free-form error string.
#[tool]
fn bad(#[validate(range = 1..=10)] n: u32) -> Result<u32, String> {
    Ok(n)
}

fn main() {}
