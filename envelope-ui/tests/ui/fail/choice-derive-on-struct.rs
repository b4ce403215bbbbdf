use envelope_core::Choice;

/// A struct is not a set of values.
#[derive(Choice)]
struct Group {
    name: String,
}

fn main() {}
