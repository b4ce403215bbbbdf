use envelope_core::tool;

/// Two lower bounds.
#[tool]
fn pick(#[validate(range(min = 0, exclusive_min = 0, max = 10))] n: u32) -> u32 {
    n
}

fn main() {}
