use envelope_core::{ToolError, codes};

#[derive(ToolError)]
enum LookupError {
    #[refuse(code = codes::NOT_FOUND, parameter = "id", accepted = "an order id", fix = "Send an id like {sugestion}.")]
    NoSuchOrder { rejected: u64, suggestion: u64 },
    #[fault(code = codes::BACKEND_ERROR, operation = "reading shard {shard}")]
    Shard,
}

fn main() {}
