use envelope_core::tool;

/// A default on a list.
#[tool]
fn tags(#[validate(default = "a")] tags: Vec<String>) -> Vec<String> {
    tags
}

fn main() {}
