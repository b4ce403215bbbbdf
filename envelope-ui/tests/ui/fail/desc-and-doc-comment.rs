use envelope_core::tool;

/// Two descriptions of one parameter.
#[tool]
fn hours(
    /// How far back to look, in hours.
    #[validate(desc = "Hours to look back.")]
    hours_back: u32,
) -> u32 {
    hours_back
}

fn main() {}
