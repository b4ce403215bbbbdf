use envelope_core::tool;

/// An MCP tool name has at most 128 characters: this function's name has 129.
#[tool]
fn report_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx(n: u32) -> u32 {
    n
}

fn main() {}
