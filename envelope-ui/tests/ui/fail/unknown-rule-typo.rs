use envelope_core::tool;

/// A misspelt rule.
#[tool]
fn hours(#[validate(rnage = 1..=720)] hours_back: u32) -> u32 {
    hours_back
}

fn main() {}
