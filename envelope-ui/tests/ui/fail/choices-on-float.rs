use envelope_core::tool;

/// `choices` on a float.
#[tool]
fn ratio(#[validate(choices = [0.5, 1.0])] r: f64) -> f64 {
    r
}

fn main() {}
