use envelope_core::tool;

/// A name that is not a string literal.
#[tool(name = lookup_user)]
fn lookup(id: u32) -> u32 {
    id
}

fn main() {}
