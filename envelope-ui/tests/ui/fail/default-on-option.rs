use envelope_core::tool;

/// A default on an optional parameter.
#[tool]
fn top(#[validate(default = 10)] top: Option<u32>) -> u32 {
    top.unwrap_or(10)
}

fn main() {}
