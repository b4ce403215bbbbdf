//! Faults: the `error` outcome. The request was valid and the server failed.

use crate::outcome::code::{Code, codes};

/// A failure of the server while serving a valid request (status `error`).
///
/// Its message says what failed in the caller's terms (the operation) and what to do; it never
/// carries internals (stack traces, SQL, type names) — those belong in the server's log.
///
/// ```
/// use envelope_core::{Envelope, Fault};
///
/// let env = Envelope::from(Fault::timeout("reading query statistics"));
/// assert_eq!(
///     env.to_json(),
///     r#"{"status":"error","success":false,"error_code":"TIMEOUT","message":"reading query statistics failed: the server did not finish in time. Retry later if the tool is idempotent; otherwise check whether it took effect.","hints":{"operation":"reading query statistics"},"retryable":true,"retry":"with_backoff"}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    code: Code,
    operation: Option<String>,
}

impl Fault {
    /// A fault with an `error` code while doing `operation`. Public constructors are limited to
    /// the standard fault codes so a tool's manifest can list every code it emits; a domain
    /// fault code comes from a declared error enum.
    ///
    /// An operation longer than 300 characters (or 600 bytes as JSON) is cut, with `…`: it is
    /// quoted twice (in `message` and `hints.operation`) in an envelope of at most 2 KB.
    pub(crate) fn new(code: Code, operation: impl Into<String>) -> Self {
        debug_assert_eq!(code.status(), crate::Status::Error, "a fault carries an `error` code");
        let mut operation = operation.into();
        if operation.len() > 300 || operation.contains(|c: char| c < ' ') {
            operation = crate::words::budget::cut_text(&operation, 300, 600);
        }
        Fault { code, operation: Some(operation) }
    }

    /// `BACKEND_ERROR` while doing `operation` (`"reading query statistics"`): a store, a
    /// network call or a dependency failed.
    pub fn backend(operation: impl Into<String>) -> Self {
        Fault::new(codes::BACKEND_ERROR, operation)
    }

    /// `TIMEOUT` while doing `operation`: it did not finish in time.
    pub fn timeout(operation: impl Into<String>) -> Self {
        Fault::new(codes::TIMEOUT, operation)
    }

    /// `NOT_IMPLEMENTED`: the server does not do `operation` (yet).
    pub fn not_implemented(operation: impl Into<String>) -> Self {
        Fault::new(codes::NOT_IMPLEMENTED, operation)
    }

    /// The `error_code`: `BACKEND_ERROR`, `TIMEOUT`, `NOT_IMPLEMENTED` or a declared code.
    pub fn error_code(&self) -> Code {
        self.code
    }

    /// The operation that failed, if named.
    pub fn operation(&self) -> Option<&str> {
        self.operation.as_deref()
    }

    /// `<operation> failed: <meaning>. <Action>.`
    pub fn message(&self) -> String {
        let action = self.code.action();
        let mut first = action.chars();
        let action: String = first.next().map(|c| c.to_uppercase().chain(first).collect()).unwrap_or_default();
        match &self.operation {
            Some(op) => format!("{op} failed: {}. {action}.", self.code.meaning()),
            None => format!("The call failed: {}. {action}.", self.code.meaning()),
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Fault {}
