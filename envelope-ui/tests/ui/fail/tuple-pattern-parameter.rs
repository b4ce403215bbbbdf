use envelope_core::tool;

/// A destructured parameter.
#[tool]
fn span((from, to): (u32, u32)) -> u32 {
    to - from
}

fn main() {}
