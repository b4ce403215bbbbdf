use envelope_core::tool;

/// A choice listed twice.
#[tool]
fn group(#[validate(choices = ["database", "query_hash", "database"])] group_by: String) -> String {
    group_by
}

fn main() {}
