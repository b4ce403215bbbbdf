use std::collections::HashMap;

use envelope_core::tool;

/// A map's keys are JSON object keys: strings.
#[tool]
fn weigh(by_id: HashMap<u32, f64>) -> usize {
    by_id.len()
}

fn main() {}
