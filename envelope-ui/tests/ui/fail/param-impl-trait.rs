use envelope_core::tool;

/// An `impl Trait` parameter: the type to read is not named.
#[tool]
fn hours(h: impl Into<u32>) -> u32 {
    h.into()
}

fn main() {}
