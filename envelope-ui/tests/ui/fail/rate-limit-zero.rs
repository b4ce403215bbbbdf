use envelope_core::tool;

/// Creates a note.
#[tool(rate_limit = "0/min")]
fn create_note(title: String) -> String {
    title
}

fn main() {}
