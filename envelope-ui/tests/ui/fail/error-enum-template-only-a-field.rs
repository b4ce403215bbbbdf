use envelope_core::{ToolError, codes};

#[derive(ToolError)]
enum LookupError {
    #[refuse(code = codes::NOT_FOUND, parameter = "id", accepted = "an order id", fix = "{fix}")]
    NoSuchOrder { rejected: u64, fix: String },
    #[fault(code = codes::BACKEND_ERROR, operation = "{detail}")]
    Database { detail: String },
}

fn main() {}
