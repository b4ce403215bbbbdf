use envelope_core::{tools, Fault};

struct Notes;

#[tools]
impl Notes {
    /// What deleting would do.
    fn preview(&self, id: u32) -> Result<u32, Fault> {
        Ok(id)
    }

    /// Deletes a note, once approved.
    #[tool(destructive, confirm = preview)]
    fn delete(&self, id: u32) -> Result<u32, Fault> {
        Ok(id)
    }
}

fn main() {}
