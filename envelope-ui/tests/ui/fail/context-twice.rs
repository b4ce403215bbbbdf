use envelope_core::{Context, tool};

/// Takes the call's context twice.
#[tool]
fn report(cx: &Context, #[validate(range = 1..=10)] n: u32, again: Context) -> u32 {
    let _ = (cx, again);
    n
}

fn main() {}
