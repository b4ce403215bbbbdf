use envelope_core::tool;

/// `requires()` naming nothing.
#[tool]
fn page(#[validate(requires())] cursor: Option<String>, page_size: Option<u32>) -> bool {
    cursor.is_some() && page_size.is_some()
}

fn main() {}
