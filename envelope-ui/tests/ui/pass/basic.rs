use envelope_core::{Refusal, tool};

/// Sync tool with every parameter shape.
#[tool(strict, read_only)]
fn every_shape(
    #[validate(range = 1..=720)] a: u32,
    #[validate(range = -5..5)] b: i64,
    #[validate(range = 0.0..1.0)] c: f64,
    #[validate(choices = ["x", "y"])] d: String,
    #[validate(choices = [1, 2, 3])] e: u8,
    f: Option<Vec<String>>,
    #[validate(default = true)] g: bool,
    #[validate(default = "x", choices = ["x", "y"])] h: String,
) -> Result<u32, Refusal> {
    let _ = (b, c, d, e, f, g, h);
    Ok(a)
}

/// Async tool.
#[tool]
async fn later(#[validate(range = 1..)] n: u64) -> u64 {
    n
}

fn main() {
    let _ = every_shape::tool();
    let _ = later::tool();
    let _ = every_shape(1, 0, 0.5, "x".into(), 1, None, true, "x".into());
}
