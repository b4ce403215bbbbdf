use envelope_core::tool;

// No doc comment and no `description`: the model would read `"description": ""`.
#[tool]
fn weather(city: String) -> String {
    city
}

#[tool(description = "  ")]
fn forecast(city: String) -> String {
    city
}

/// Reads the weather of a city.
#[tool(description = "Reads the weather.")]
fn both(city: String) -> String {
    city
}

fn main() {}
