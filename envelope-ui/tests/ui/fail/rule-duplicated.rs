use envelope_core::tool;

/// Gives `range` twice in one attribute.
#[tool]
fn hours(#[validate(range = 1..=720, range = 1..=24)] hours_back: u32) -> u32 {
    hours_back
}

fn main() {}
