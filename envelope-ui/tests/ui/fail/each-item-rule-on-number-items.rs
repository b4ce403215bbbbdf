use envelope_core::tool;

/// An alias of a list of numbers: its items are numbers, so `each(pattern = ...)` does not apply.
type Ids = Vec<u64>;

/// Fetches records by id.
#[tool]
fn fetch(#[validate(each(pattern = "^[0-9]+$"))] ids: Ids) -> usize {
    ids.len()
}

fn main() {}
