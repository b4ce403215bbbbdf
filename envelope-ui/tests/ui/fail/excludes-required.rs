use envelope_core::tool;

/// `excludes` between two required parameters: every call sends both, so every call is refused.
#[tool]
fn both(
    /// An id.
    #[validate(excludes = "name")]
    id: u32,
    /// A name.
    name: String,
) -> bool {
    id > 0 && !name.is_empty()
}

/// `excludes` naming an optional parameter from a required one: `label` could never be sent.
#[tool]
fn one(
    /// An id.
    #[validate(excludes = "label")]
    id: u32,
    /// A label.
    label: Option<String>,
) -> bool {
    id > 0 && label.is_some()
}

/// `excludes` from a required array: an array takes no `default`, only `Option`.
#[tool]
fn tagged(
    /// Tags.
    #[validate(excludes = "label")]
    tags: Vec<String>,
    /// A label.
    label: Option<String>,
) -> bool {
    tags.is_empty() && label.is_some()
}

fn main() {}
