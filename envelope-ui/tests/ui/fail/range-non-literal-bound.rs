use envelope_core::tool;

const MAX_HOURS: u32 = 720;

/// A bound that names a constant.
#[tool]
fn hours(#[validate(range = 1..=MAX_HOURS)] hours_back: u32) -> u32 {
    hours_back
}

fn main() {}
