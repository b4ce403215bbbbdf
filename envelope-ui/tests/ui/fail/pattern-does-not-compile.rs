use envelope_core::tool;

/// A regex that does not compile.
#[tool]
fn sku(#[validate(pattern = "^[A-Z]{3-[0-9]+$")] sku: String) -> String {
    sku
}

fn main() {}
