use envelope_core::tool;

/// `choices` on a bool.
#[tool]
fn toggle(#[validate(choices = [true])] on: bool) -> bool {
    on
}

fn main() {}
