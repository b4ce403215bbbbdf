use envelope_core::tool;

/// Two `#[validate]` on one parameter.
#[tool]
fn hours(#[validate(range = 1..=720)] #[validate(default = 24)] hours_back: u32) -> u32 {
    hours_back
}

fn main() {}
