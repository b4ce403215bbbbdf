use envelope_core::tool;

/// No whole number lies strictly between 4 and 5.
#[tool]
fn pick(#[validate(range(exclusive_min = 4, exclusive_max = 5))] n: u32) -> u32 {
    n
}

fn main() {}
