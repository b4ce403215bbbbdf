use envelope_core::tool;

/// Looks up the weather; a space is not a character of an MCP tool name.
#[tool(name = "get weather")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
