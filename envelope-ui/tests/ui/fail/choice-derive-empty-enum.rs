use envelope_core::Choice;

/// No variant: nothing to accept.
#[derive(Choice)]
enum Group {}

fn main() {}
