use envelope_core::tool;

/// A misspelt format.
#[tool]
fn since(#[validate(format = "datetime")] since: String) -> String {
    since
}

fn main() {}
