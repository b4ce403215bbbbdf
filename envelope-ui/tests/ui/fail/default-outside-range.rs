use envelope_core::tool;

/// A default the range refuses.
#[tool]
fn hours(#[validate(range = 1..=720, default = 0)] hours_back: u32) -> u32 {
    hours_back
}

fn main() {}
