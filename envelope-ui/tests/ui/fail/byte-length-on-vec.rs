use envelope_core::tool;

/// `byte_length` on a list.
#[tool]
fn tags(#[validate(byte_length = 1..=64)] tags: Vec<String>) -> Vec<String> {
    tags
}

fn main() {}
