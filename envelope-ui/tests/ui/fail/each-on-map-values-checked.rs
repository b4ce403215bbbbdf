use std::collections::{BTreeMap, HashMap};

use envelope_core::tool;

/// The rules of `each(...)` on a map are checked against its value type, as on a `Vec`'s items.
#[tool]
fn weigh(
    #[validate(each(range = 1.5..=1.7))] halves: BTreeMap<String, u32>,
    #[validate(each(range = 0..=300))] bytes: HashMap<String, u8>,
    #[validate(each(pattern = "^a$"))] counts: BTreeMap<String, u32>,
) -> usize {
    halves.len() + bytes.len() + counts.len()
}

fn main() {}
