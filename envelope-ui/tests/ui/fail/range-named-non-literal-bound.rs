use envelope_core::tool;

const MAX: u32 = 720;

/// A bound that names a constant.
#[tool]
fn pick(#[validate(range(max = MAX))] n: u32) -> u32 {
    n
}

fn main() {}
