use envelope_core::tool;

/// Writes a note, needing no scope after all.
#[tool(scopes = [])]
fn write_note(title: String) -> String {
    title
}

fn main() {}
