use envelope_core::tool;

/// range on a string.
#[tool]
fn pick(#[validate(range(min = 1))] n: String) -> String {
    n
}

fn main() {}
