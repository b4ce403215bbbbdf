use envelope_core::tool;

/// A required value of the wrong type.
#[tool]
fn page(#[validate(requires(page_size = "ten"))] cursor: Option<String>, page_size: Option<u32>) -> bool {
    cursor.is_some() && page_size.is_some()
}

fn main() {}
