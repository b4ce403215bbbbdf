use envelope_core::tool;

/// A string choice on an integer parameter.
#[tool]
fn page_size(#[validate(choices = [10, "20"])] size: u32) -> u32 {
    size
}

fn main() {}
