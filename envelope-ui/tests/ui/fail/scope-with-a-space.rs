use envelope_core::tool;

/// Writes a note; two scopes written as one.
#[tool(scopes = ["notes:read notes:write"])]
fn write_note(title: String) -> String {
    title
}

fn main() {}
