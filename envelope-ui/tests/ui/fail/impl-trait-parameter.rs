use envelope_core::tool;

/// A parameter of an `impl Trait` type: generic in disguise.
#[tool]
fn echo(value: impl serde::Serialize) -> u32 {
    let _ = value;
    0
}

fn main() {}
