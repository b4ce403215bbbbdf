use envelope_core::tool;

/// `requires` with a number.
#[tool]
fn page(#[validate(requires = 5)] cursor: Option<String>, page_size: Option<u32>) -> bool {
    cursor.is_some() && page_size.is_some()
}

fn main() {}
