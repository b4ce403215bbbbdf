use envelope_core::{ToolError, codes};

#[derive(ToolError)]
enum LookupError {
    #[fault(code = codes::BACKEND_ERROR, operation = "reading the index")]
    Index,
    /// No `#[refuse]` or `#[fault]`: what would the client read?
    Gone,
}

fn main() {}
