use envelope_core::tool;

/// Answers a sentence.
#[tool]
fn greet(name: String) -> &'static str {
    let _ = name;
    "hello"
}

fn main() {}
