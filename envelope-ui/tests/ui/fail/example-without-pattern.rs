use envelope_core::tool;

/// `example` with no `pattern`.
#[tool]
fn sku(#[validate(example = "ABC-123")] sku: String) -> String {
    sku
}

fn main() {}
