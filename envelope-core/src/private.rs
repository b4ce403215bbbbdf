//! What the code `#[tool]` generates calls. Not a public API: names and shapes may change in
//! any release.

pub use serde_json::{Map, Value};

pub use crate::args::{Args, FromArg};
pub use crate::spec::{Annotations, Bound, Choices, Length, Num, ParamSpec, Pattern, Range, Rules, ToolSpec, Ty, Unit};
pub use crate::toolbox::{Outcome, Tool};

use crate::envelope::Envelope;
use crate::fault::Fault;
use crate::refusal::Refusal;

/// The envelope of a tool's plain return value: `ok` with its JSON, or a fault if it does not
/// serialize (a map with non-string keys).
pub fn ok<T: serde::Serialize>(value: T) -> Envelope {
    match serde_json::to_value(value) {
        Ok(v) => Envelope::ok(v),
        Err(_) => Fault::backend("encoding the answer as JSON").into(),
    }
}

/// The envelope of a tool's `Result`.
pub fn result<T: serde::Serialize, E: ToolError>(r: Result<T, E>) -> Envelope {
    match r {
        Ok(v) => ok(v),
        Err(e) => e.into_envelope(),
    }
}

/// An error type a tool may return: its failures are refusals or faults built from parts, never
/// a free-form sentence.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool error type",
    label = "a tool returns `Result<T, Refusal>`, `Result<T, Fault>` or `Result<T, ToolFailure>`",
    note = "a free-form error string would reach the model without the rejected value, the accepted set and the fix"
)]
pub trait ToolError {
    /// The envelope for this failure.
    fn into_envelope(self) -> Envelope;
}

impl ToolError for Refusal {
    fn into_envelope(self) -> Envelope {
        self.into()
    }
}

impl ToolError for Fault {
    fn into_envelope(self) -> Envelope {
        self.into()
    }
}

impl ToolError for crate::ToolFailure {
    fn into_envelope(self) -> Envelope {
        match self {
            crate::ToolFailure::Refused(r) => r.into(),
            crate::ToolFailure::Failed(f) => f.into(),
        }
    }
}

/// Boxes an async tool's future.
pub fn pending<'a>(f: impl core::future::Future<Output = Envelope> + Send + 'a) -> Outcome<'a> {
    Outcome::Pending(Box::pin(f))
}

/// A default value as JSON, for the schema.
pub fn json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
