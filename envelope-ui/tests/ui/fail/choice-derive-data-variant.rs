use envelope_core::Choice;

/// A variant that carries data.
#[derive(Choice)]
enum Group {
    Database,
    Custom(String),
}

fn main() {}
