use envelope_core::tool;

/// A description inside `each(...)`.
#[tool]
fn tags(#[validate(each(desc = "A tag."))] tags: Vec<String>) -> Vec<String> {
    tags
}

fn main() {}
