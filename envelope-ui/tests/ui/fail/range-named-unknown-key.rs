use envelope_core::tool;

/// JSON Schema's name instead of the rule's.
#[tool]
fn pick(#[validate(range(minimum = 1))] n: u32) -> u32 {
    n
}

fn main() {}
