use envelope_core::tool;

/// A default that is not a choice.
#[tool]
fn group(#[validate(choices = ["database", "query_hash"], default = "application")] group_by: String) -> String {
    group_by
}

fn main() {}
