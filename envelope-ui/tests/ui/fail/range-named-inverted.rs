use envelope_core::tool;

/// Bounds the wrong way round.
#[tool]
fn pick(#[validate(range(min = 10, max = 1))] n: u32) -> u32 {
    n
}

fn main() {}
