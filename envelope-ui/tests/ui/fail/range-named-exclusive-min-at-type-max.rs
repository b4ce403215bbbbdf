use envelope_core::tool;

/// Nothing a u8 holds is above 255.
#[tool]
fn pick(#[validate(range(exclusive_min = 255))] n: u8) -> u8 {
    n
}

fn main() {}
