use envelope_core::tool;

/// A secret with listed values.
#[tool]
fn login(#[validate(secret, choices = ["hunter2", "swordfish"])] password: String) -> bool {
    !password.is_empty()
}

fn main() {}
