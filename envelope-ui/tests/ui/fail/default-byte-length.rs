use envelope_core::tool;

/// A default past its `byte_length`: the error names that rule.
#[tool]
fn short(
    /// Two bytes at most.
    #[validate(byte_length = ..=2, default = "üü")]
    code: String,
) -> String {
    code
}

fn main() {}
