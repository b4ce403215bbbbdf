use envelope_core::tool;

/// Two parameters that callers would spell the same.
#[tool]
fn sized(size: u32, #[validate(rename = "size")] other_size: u32) -> u32 {
    size + other_size
}

fn main() {}
