use envelope_core::tool;

/// A misspelt `rename_all`.
#[tool(rename_all = "camelcase")]
fn page(page_size: u32) -> u32 {
    page_size
}

fn main() {}
