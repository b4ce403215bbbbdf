use envelope_core::{Context, tool};

/// Puts a rule on the call's context.
#[tool]
fn report(#[validate(range = 1..=10)] n: u32, #[validate(secret)] cx: Context) -> u32 {
    let _ = cx;
    n
}

fn main() {}
