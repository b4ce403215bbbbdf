use envelope_core::{ToolError, codes};

#[derive(ToolError)]
enum LookupError {
    #[refuse(code = codes::NOT_FOUND, parameter = "id", acepted = "an order id", fix = "Send an order id.")]
    NoSuchOrder { rejected: u64 },
    #[fault(code = codes::BACKEND_ERROR, operation = "reading the index", parameter = "id")]
    Index,
}

fn main() {}
