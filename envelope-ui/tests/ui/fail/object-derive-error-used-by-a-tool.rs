use envelope_core::{Object, tool};

/// A field with a rule that does not apply: one error, not a second at the tool that takes it.
#[derive(Object)]
struct Filter {
    #[validate(range = 1..=10)]
    since: String,
}

/// Searches with a filter.
#[tool]
fn search(filter: Filter) -> String {
    filter.since
}

fn main() {}
