use envelope_core::tool;

/// A default inside `each(...)`.
#[tool]
fn tags(#[validate(each(default = "x"))] tags: Vec<String>) -> Vec<String> {
    tags
}

fn main() {}
