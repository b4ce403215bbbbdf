use envelope_core::{Refusal, tool};

/// Builds a refusal without naming the fix.
#[tool]
fn check(title: String) -> Result<String, Refusal> {
    if title.is_empty() {
        return Err(Refusal::parameter("title").rejected(&title).accepted("1 to 120 characters").build());
    }
    Ok(title)
}

fn main() {}
