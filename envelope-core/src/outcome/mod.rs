//! Outcomes: the envelope and what it is made of (codes, refusals, faults, its wire formats),
//! and what calling a tool gives: the envelope now, later, or after the toolbox's guard (a
//! preview waiting for approval, an idempotency key). Above `words/`, beneath `spec/`, the
//! argument reader that builds an outcome and the toolbox and the guard that settle it.

// Error codes and statuses: the machine-readable `error_code` of every envelope not `ok`.
pub(crate) mod code;
// Hashes of JSON values: RFC 8785 canonical text and SHA-256.
pub(crate) mod digest;
// The envelope: every outcome as one JSON object of one shape.
pub(crate) mod envelope;
// A tool's failure: the `ToolError` trait, `ToolFailure` (a refusal or a fault).
pub(crate) mod failure;
// Faults: the `error` outcome.
pub(crate) mod fault;
// Refusals: the `invalid` outcome, one problem per refused parameter.
pub mod refusal;
// Wire formats: the envelope contract and the shapes of surfaces clients already parse.
pub(crate) mod wire;

pub use code::Retry;
pub use envelope::{Confirmation, Warned};
pub use failure::ToolFailure;
pub use wire::WireFormat;

use std::future::Future;
use std::pin::Pin;

use crate::outcome::envelope::Envelope;

/// A boxed future of an envelope, as an async tool's call returns it.
pub type EnvelopeFuture<'a> = Pin<Box<dyn Future<Output = Envelope> + Send + 'a>>;

/// What calling a tool gives: the envelope now (a sync tool, or a refusal), or later.
pub enum Outcome<'a> {
    /// Done.
    Ready(Envelope),
    /// An async tool at work.
    Pending(EnvelopeFuture<'a>),
    /// A confirm or key tool whose arguments were read: the toolbox previews, queues, replays
    /// or runs it.
    Guarded(Guarded<'a>),
    /// `confirm_action`'s arguments, for the toolbox to act on.
    Decide(String, Decision),
    /// A sync tool's body, its arguments read, left for the caller to run where blocking is
    /// allowed (the MCP adapters run it on tokio's blocking threads): asked for by the caller,
    /// never given to `Tool::call`.
    Later(SyncBody),
}

/// A sync tool's body with its arguments, ready to run.
pub type SyncBody = Box<dyn FnOnce() -> Envelope + Send + 'static>;

/// What the call function of a confirm or key tool is asked to do once its arguments are read.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Run the preview function: `ok` with the preview, or its refusal.
    Preview,
    /// Run the tool.
    Run,
}

/// A confirm or key tool whose arguments were read: what happens next is the toolbox's call.
#[doc(hidden)]
pub struct Guarded<'a> {
    pub(crate) key: Option<String>,
    pub(crate) then: Box<dyn FnOnce(Step) -> Outcome<'a> + Send + 'a>,
}

impl<'a> Guarded<'a> {
    /// `key`: the idempotency key sent, if any; `then`: the preview or the run.
    pub fn new(key: Option<String>, then: impl FnOnce(Step) -> Outcome<'a> + Send + 'a) -> Self {
        Guarded { key, then: Box::new(then) }
    }
}

/// The person's answer to a pending action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Run it once.
    Approve,
    /// Do not run it (`confirm_action` with `approved: false`): `{"done": false, "reason": "rejected"}`.
    Reject,
    /// The person declined an elicitation: `"reason": "declined"`.
    Decline,
    /// The person dismissed an elicitation: `"reason": "cancelled"`.
    Cancel,
}

impl Decision {
    pub(crate) fn word(self) -> &'static str {
        match self {
            Decision::Approve => "approved",
            Decision::Reject => "rejected",
            Decision::Decline => "declined",
            Decision::Cancel => "cancelled",
        }
    }
}
