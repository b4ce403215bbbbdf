use envelope_core::tool;

/// `range` on a bool.
#[tool]
fn toggle(#[validate(range = 0..=1)] on: bool) -> bool {
    on
}

fn main() {}
