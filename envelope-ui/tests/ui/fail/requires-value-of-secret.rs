use envelope_core::tool;

/// Requires a given value of a secret, which would print it.
#[tool]
fn login(
    #[validate(requires(pin = "0000", when = "reset"))] mode: Option<String>,
    #[validate(secret)] pin: Option<String>,
) -> bool {
    let _ = (mode, pin);
    true
}

fn main() {}
