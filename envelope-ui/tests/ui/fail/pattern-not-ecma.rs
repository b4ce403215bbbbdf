use envelope_core::tool;

/// Inline flags: the `regex` crate reads them, JSON Schema's `pattern` (ECMA-262) does not.
#[tool]
fn sku(#[validate(pattern = "(?i)^[a-z]{3}-[0-9]+$")] sku: String) -> String {
    sku
}

/// A named group in the `regex` crate's old spelling.
#[tool]
fn code(#[validate(pattern = r"^(?P<area>\d{3})$")] code: String) -> String {
    code
}

fn main() {}
