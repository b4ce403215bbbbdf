use envelope_core::tool;

/// A bound a u8 cannot hold.
#[tool]
fn pick(#[validate(range(min = 0, max = 300))] n: u8) -> u8 {
    n
}

fn main() {}
