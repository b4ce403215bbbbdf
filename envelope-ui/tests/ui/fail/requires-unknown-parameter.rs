use envelope_core::tool;

/// `requires` names a misspelt parameter.
#[tool]
fn page(#[validate(requires = "page_sise")] cursor: Option<String>, page_size: Option<u32>) -> bool {
    cursor.is_some() && page_size.is_some()
}

fn main() {}
