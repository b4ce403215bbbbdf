//! An alias and a newtype of `String` and of `Vec<String>` take the string and array rules: the
//! aliases as the types they name, the newtypes by `Textual` and `Sequence`.

use envelope_core::spec::Ty;
use envelope_core::read::{Sequence, Textual};
use envelope_core::{Reading, FromArg, Problem, Toolbox, tool};
use serde_json::Value;

type Email = String;
type Tags = Vec<String>;

struct Handle(String);

impl FromArg for Handle {
    fn ty() -> Ty {
        String::ty()
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        String::from_arg(v, reading).map(Handle)
    }
}

impl Textual for Handle {}

struct Labels(Vec<String>);

impl FromArg for Labels {
    fn ty() -> Ty {
        Vec::<String>::ty()
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        Vec::<String>::from_arg(v, reading).map(Labels)
    }
}

impl Sequence for Labels {
    type Item = String;
}

/// Sends a note.
#[tool]
fn send(
    #[validate(format = "email", length = ..=254)] to: Email,
    #[validate(pattern = "^@[a-z]+$", byte_length = 2..=16)] from: Handle,
    #[validate(choices = ["low", "high"], ignore_case)] priority: Option<Handle>,
    #[validate(length = 1..=3, each(length = 1..=10, pattern = "^[a-z]+$"))] tags: Tags,
    #[validate(length = ..=5, each(format = "date"))] days: Option<Labels>,
) -> usize {
    to.len() + from.0.len() + priority.map_or(0, |p| p.0.len()) + tags.len() + days.map_or(0, |d| d.0.len())
}

fn main() {
    let _ = Toolbox::new().with(send::tool());
}
