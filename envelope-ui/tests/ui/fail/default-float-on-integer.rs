use envelope_core::tool;

/// A fractional default on an integer, with no range.
#[tool]
fn top(#[validate(default = 2.5)] top: u32) -> u32 {
    top
}

fn main() {}
