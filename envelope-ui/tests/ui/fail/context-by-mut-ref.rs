use envelope_core::{Context, tool};

/// Takes the call's context mutably.
#[tool]
fn report(#[validate(range = 1..=10)] n: u32, cx: &mut Context) -> u32 {
    let _ = cx;
    n
}

fn main() {}
