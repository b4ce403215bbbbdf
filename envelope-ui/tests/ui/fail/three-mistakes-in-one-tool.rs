use envelope_core::tool;

/// Three mistakes in one tool: each reported, in one build, at its own token.
#[tool]
fn report(
    #[validate(rnage = 1..=720)] hours_back: u32,
    #[validate(range = 1..=120)] query: String,
    #[validate(range = 1..=100, default = 500)] top: u32,
) -> u32 {
    hours_back + top + query.len() as u32
}

fn main() {}
