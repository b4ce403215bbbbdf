use envelope_core::tool;

/// A string default on an integer.
#[tool]
fn top(#[validate(default = "ten")] top: u32) -> u32 {
    top
}

fn main() {}
