use envelope_core::tool;

/// One string where a list of choices goes.
#[tool]
fn group(#[validate(choices = "database")] group_by: String) -> String {
    group_by
}

fn main() {}
