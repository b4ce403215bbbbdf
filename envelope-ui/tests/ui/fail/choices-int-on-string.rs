use envelope_core::tool;

/// An integer choice on a string parameter.
#[tool]
fn group(#[validate(choices = ["database", 2])] group_by: String) -> String {
    group_by
}

fn main() {}
