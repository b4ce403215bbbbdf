use envelope_core::tool;

struct Service;

impl Service {
    /// A method.
    #[tool]
    fn lookup(&self, id: u32) -> u32 {
        id
    }
}

fn main() {}
