use envelope_core::tool;

/// `excludes` names a parameter that does not exist.
#[tool]
fn page(#[validate(excludes = "offset")] cursor: Option<String>, page_size: Option<u32>) -> bool {
    cursor.is_some() && page_size.is_some()
}

fn main() {}
