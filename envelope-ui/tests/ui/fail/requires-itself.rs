use envelope_core::tool;

/// A parameter that requires itself.
#[tool]
fn page(#[validate(requires = "cursor")] cursor: Option<String>) -> bool {
    cursor.is_some()
}

fn main() {}
