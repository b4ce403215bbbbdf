use envelope_core::tool;

/// A default equal to an exclusive bound.
#[tool]
fn pick(#[validate(range(exclusive_min = 0.0, max = 1.0), default = 0.0)] ratio: f64) -> f64 {
    ratio
}

fn main() {}
