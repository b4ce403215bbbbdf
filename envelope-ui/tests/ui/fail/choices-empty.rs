use envelope_core::tool;

/// No choice at all.
#[tool]
fn group(#[validate(choices = [])] group_by: String) -> String {
    group_by
}

fn main() {}
