use envelope_core::tool;

/// A range with no bound.
#[tool]
fn pick(#[validate(range = ..)] n: u32) -> u32 {
    n
}

fn main() {}
