use envelope_core::{ToolError, codes};

#[derive(ToolError)]
enum LookupError {
    #[refuse(code = codes::BACKEND_ERROR, parameter = "id", accepted = "an order id", fix = "Send an order id.")]
    NoSuchOrder { rejected: u64 },
    #[fault(code = codes::NOT_FOUND, operation = "reading the index")]
    Index,
}

fn main() {}
