use envelope_core::{ToolError, codes};

#[derive(ToolError)]
enum LookupError {
    #[refuse(code = codes::NOT_FOUND, parameter = "id", reason = "names no order", accepted = "the id of an order", fix = "List the orders with list_orders.")]
    NoSuchOrder { id: u64 },
}

fn main() {}
