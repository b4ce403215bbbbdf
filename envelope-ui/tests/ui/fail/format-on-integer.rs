use envelope_core::tool;

/// `format` on an integer.
#[tool]
fn day(#[validate(format = "date")] day: u32) -> u32 {
    day
}

fn main() {}
