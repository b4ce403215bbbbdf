use envelope_core::tool;

/// An exclusive bound equal to the other bound.
#[tool]
fn pick(#[validate(range(exclusive_min = 1.0, max = 1.0))] n: f64) -> f64 {
    n
}

fn main() {}
