use envelope_core::tool;

/// Triggers a rule on a value of a secret, which would print it.
#[tool]
fn login(
    #[validate(secret, requires(user = "admin", when = "hunter2"))] password: Option<String>,
    user: Option<String>,
) -> bool {
    let _ = (password, user);
    true
}

fn main() {}
