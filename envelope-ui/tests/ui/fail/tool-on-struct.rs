use envelope_core::tool;

/// Not a function.
#[tool]
struct Lookup {
    id: u32,
}

fn main() {}
