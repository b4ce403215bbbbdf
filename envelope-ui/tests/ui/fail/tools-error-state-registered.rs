use std::sync::Arc;

use envelope_core::{Toolbox, tools};

struct Notes;

/// A mistake in a `#[tools]` block: one error, not a second where the state is registered.
#[tools]
impl Notes {
    /// Counts notes.
    #[tool]
    fn count(&self, #[validate(length = 1..=5)] n: u32) -> u32 {
        n
    }
}

fn main() {
    let _ = Toolbox::new().with_state(Arc::new(Notes));
}
