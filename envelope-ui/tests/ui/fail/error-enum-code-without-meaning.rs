use envelope_core::{Code, Status, ToolError};

const ORDER_GONE: Code = Code::new("ORDER_GONE", Status::Invalid).with_http_status(410);

#[derive(ToolError)]
enum LookupError {
    #[refuse(code = ORDER_GONE, parameter = "id", accepted = "the id of an open order", fix = "List the open orders.")]
    Gone { rejected: u64 },
}

fn main() {}
