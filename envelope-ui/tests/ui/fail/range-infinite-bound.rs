use envelope_core::tool;

/// A bound that overflows to infinity.
#[tool]
fn ratio(#[validate(range = 0.0..=1e999)] r: f64) -> f64 {
    r
}

fn main() {}
