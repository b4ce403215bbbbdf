use envelope_core::tool;

/// No bound at all.
#[tool]
fn pick(#[validate(range())] n: u32) -> u32 {
    n
}

fn main() {}
