use envelope_core::tool;

/// A hand-written refusal message under `error`.
#[tool]
fn top(#[validate(range = 1..=100, error = "top must be 1-100")] top: u32) -> u32 {
    top
}

fn main() {}
