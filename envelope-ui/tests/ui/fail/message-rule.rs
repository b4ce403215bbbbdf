use envelope_core::tool;

/// A hand-written refusal message.
#[tool]
fn top(#[validate(range = 1..=100, message = "top must be 1-100")] top: u32) -> u32 {
    top
}

fn main() {}
