//! A tool's failure: the [`ToolError`] trait every error type a tool returns implements, and
//! [`ToolFailure`], a refusal or a fault.

use crate::outcome::code::{Code, codes};
use crate::outcome::envelope::Envelope;
use crate::outcome::fault::Fault;
use crate::outcome::refusal::Refusal;

/// A tool's failure that is either a refusal (`invalid`) or a fault (`error`). Return
/// `Result<T, ToolFailure>` when a tool can do both; `?` converts either into it.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolFailure {
    /// The request as given cannot be served.
    Refused(Refusal),
    /// The request was valid and the server failed.
    Failed(Fault),
}

impl From<Refusal> for ToolFailure {
    fn from(r: Refusal) -> Self {
        ToolFailure::Refused(r)
    }
}

impl From<Fault> for ToolFailure {
    fn from(f: Fault) -> Self {
        ToolFailure::Failed(f)
    }
}

/// An error type a tool may return: each failure is a refusal or a fault built from parts, never
/// a free-form sentence, and the type declares every code it can produce (they go into the
/// tool's `error_codes`). Implemented by [`Refusal`] (`VALIDATION_ERROR`), [`Fault`]
/// (`BACKEND_ERROR`, `TIMEOUT`, `NOT_IMPLEMENTED`) and [`ToolFailure`] (both).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool error type",
    label = "a tool returns `Result<T, Refusal>`, `Result<T, Fault>`, `Result<T, ToolFailure>`, or `Result<T, E>` with `#[derive(ToolError)] enum E`",
    note = "a free-form error string would reach the model without the rejected value, the accepted set and the fix"
)]
pub trait ToolError {
    /// Every code `into_envelope` can produce.
    const CODES: &'static [Code];
    /// The envelope for this failure.
    fn into_envelope(self) -> Envelope;

    /// The envelope of a tool's `Result` with this error type: `ok` with the value's JSON (a
    /// fault if it does not serialize), or [`into_envelope`](Self::into_envelope). What
    /// `#[tool]` generates calls, as this trait's own item, so that an error type that is not a
    /// tool error is reported against this trait alone.
    #[doc(hidden)]
    fn result_envelope<T: serde::Serialize>(r: Result<T, Self>) -> Envelope
    where
        Self: Sized,
    {
        match r {
            Ok(v) => ok_envelope(v),
            Err(e) => e.into_envelope(),
        }
    }
}

/// The envelope of a tool's plain return value: `ok` with its JSON, or a fault if it does not
/// serialize (a map with non-string keys). The JSON is written as serde_json writes the value
/// (`serde_json::to_string`): a hand-written `Serialize` (or overlapping `#[serde(flatten)]`
/// fields) that writes one key twice is answered with the key twice, as serde_json would write it.
pub(crate) fn ok_envelope<T: serde::Serialize>(value: T) -> Envelope {
    Envelope::ok_serialized(&value).unwrap_or_else(|_| Fault::backend("encoding the answer as JSON").into())
}

impl ToolError for Refusal {
    const CODES: &'static [Code] = &[codes::VALIDATION_ERROR];
    fn into_envelope(self) -> Envelope {
        self.into()
    }
}

impl ToolError for Fault {
    const CODES: &'static [Code] = &[codes::BACKEND_ERROR, codes::TIMEOUT, codes::NOT_IMPLEMENTED];
    fn into_envelope(self) -> Envelope {
        self.into()
    }
}

impl ToolError for ToolFailure {
    const CODES: &'static [Code] =
        &[codes::VALIDATION_ERROR, codes::BACKEND_ERROR, codes::TIMEOUT, codes::NOT_IMPLEMENTED];
    fn into_envelope(self) -> Envelope {
        match self {
            ToolFailure::Refused(r) => r.into(),
            ToolFailure::Failed(f) => f.into(),
        }
    }
}
