use envelope_core::tool;

/// `multiple_of` of zero, and of a negative step: no step to count by.
#[tool]
fn page(#[validate(multiple_of = 0)] offset: u32, #[validate(multiple_of = -0.5)] ratio: f64) -> u32 {
    offset + ratio as u32
}

fn main() {}
