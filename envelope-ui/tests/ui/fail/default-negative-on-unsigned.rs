use envelope_core::tool;

/// A negative default on an unsigned parameter, with no range.
#[tool]
fn offset(#[validate(default = -1)] n: u32) -> u32 {
    n
}

fn main() {}
