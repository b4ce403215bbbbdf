use envelope_core::{Choice, tool};

/// Two variants spelled alike: one error, not a second at the tool that takes the enum.
#[derive(Choice)]
#[choice(rename_all = "lowercase")]
enum Order {
    Asc,
    ASC,
}

/// Sorts in an order.
#[tool]
fn sort(order: Order) -> bool {
    matches!(order, Order::Asc)
}

fn main() {}
