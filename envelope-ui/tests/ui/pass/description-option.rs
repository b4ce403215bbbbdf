use envelope_core::tool;

// The description given as an option, for a tool whose doc comment is for Rust readers only.
#[tool(description = "Reads the weather of a city.")]
fn weather(city: String) -> String {
    city
}

fn main() {
    assert_eq!(weather::tool().description(), "Reads the weather of a city.");
}
