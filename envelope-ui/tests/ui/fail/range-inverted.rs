use envelope_core::tool;

/// Inverted range.
#[tool]
fn hours(#[validate(range = 720..=1)] hours_back: u32) -> u32 {
    hours_back
}

fn main() {}
