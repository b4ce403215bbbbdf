use envelope_core::tool;

/// An MCP tool name has at least one character.
#[tool(name = "")]
fn unnamed(n: u32) -> u32 {
    n
}

fn main() {}
