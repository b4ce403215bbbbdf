use envelope_core::{ToolError, codes};

#[derive(ToolError)]
enum LookupError {
    #[refuse(code = codes::NOT_FOUND, parameter = "id", message = "order not found")]
    NoSuchOrder { rejected: u64 },
    #[fault(code = codes::BACKEND_ERROR, message = "database error")]
    Database,
}

fn main() {}
