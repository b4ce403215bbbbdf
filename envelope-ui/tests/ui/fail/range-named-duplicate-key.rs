use envelope_core::tool;

/// The same key twice.
#[tool]
fn pick(#[validate(range(min = 1, min = 2))] n: u32) -> u32 {
    n
}

fn main() {}
