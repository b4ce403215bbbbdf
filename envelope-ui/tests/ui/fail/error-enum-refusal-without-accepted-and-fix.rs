use envelope_core::{ToolError, codes};

#[derive(ToolError)]
enum LookupError {
    #[refuse(code = codes::NOT_FOUND, parameter = "id", reason = "names no order")]
    NoSuchOrder { rejected: u64 },
    #[fault(code = codes::BACKEND_ERROR)]
    Database,
}

fn main() {}
