//! The builder of a [`Refusal`] for a custom check: `build` exists only once the rejected
//! value, the accepted set and the fix are given (typestate).

use std::borrow::Cow;
use std::marker::PhantomData;

use serde::Serialize;
use serde_json::Value;

use super::{Problem, Refusal, Rejected};
use crate::outcome::code::Code;
use crate::words::render;

/// Typestate marker: a part the builder has been given.
#[derive(Debug)]
pub struct Yes;
/// Typestate marker: a part the builder still needs.
#[derive(Debug)]
pub struct No;

/// Builds a [`Refusal`] for a custom check. `build` exists only once `rejected` (or
/// `rejected_secret`), `accepted` and `fix` have been called.
#[derive(Debug)]
#[must_use = "call .build() to get the Refusal"]
pub struct RefusalBuilder<R, A, F> {
    pub(super) problem: Problem,
    pub(super) code: Code,
    pub(super) _state: PhantomData<(R, A, F)>,
}

impl<R, A, F> RefusalBuilder<R, A, F> {
    fn to<R2, A2, F2>(self) -> RefusalBuilder<R2, A2, F2> {
        RefusalBuilder { problem: self.problem, code: self.code, _state: PhantomData }
    }

    /// The value as sent; shown as JSON, cut when long.
    pub fn rejected<T: Serialize + ?Sized>(mut self, value: &T) -> RefusalBuilder<Yes, A, F> {
        let v = serde_json::to_value(value).unwrap_or(Value::Null);
        self.problem.0.rejected = Rejected::Shown(render::shown(&v));
        self.to()
    }

    /// The value was secret: the refusal says what was wrong without showing it.
    pub fn rejected_secret(mut self) -> RefusalBuilder<Yes, A, F> {
        self.problem.0.rejected = Rejected::Hidden;
        self.to()
    }

    /// The parameter was not sent, and had to be.
    pub fn missing(mut self) -> RefusalBuilder<Yes, A, F> {
        self.problem.0.rejected = Rejected::Missing;
        self.problem.0.issue = "is missing".into();
        self.to()
    }

    /// The accepted set in words: every choice, both bounds, the unit.
    pub fn accepted(mut self, accepted: impl Into<String>) -> RefusalBuilder<R, Yes, F> {
        self.problem.0.accepted = accepted.into();
        self.to()
    }

    /// The move that fixes the call, as a sentence (`Send data_state "HOURLY_ALL".`).
    pub fn fix(mut self, fix: impl Into<String>) -> RefusalBuilder<R, A, Yes> {
        self.problem.0.fix = fix.into();
        self.to()
    }

    /// What is wrong with the value, as a clause after it (`is 130 characters long`); default
    /// `is not accepted`.
    pub fn reason(mut self, reason: impl Into<String>) -> Self {
        self.problem.0.issue = Cow::Owned(reason.into());
        self
    }

    /// The closest accepted value, offered as `Did you mean "…"?`.
    pub fn suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.problem.0.suggestion = Some(suggestion.into());
        self
    }
}

/// Implemented only when the rejected value, the accepted set and the fix are given.
#[diagnostic::on_unimplemented(
    message = "this refusal is missing a part: call `.rejected(..)` (or `.rejected_secret()`), `.accepted(..)` and `.fix(..)` before `.build()`",
    label = "`Yes` marks a part given, `No` a part still missing, in the order rejected, accepted, fix"
)]
pub trait Complete {}

impl Complete for RefusalBuilder<Yes, Yes, Yes> {}

impl<R, A, F> RefusalBuilder<R, A, F> {
    /// The refusal. Exists once the rejected value, the accepted set and the fix are given.
    pub fn build(self) -> Refusal
    where
        Self: Complete,
    {
        Refusal { code: self.code, problems: vec![self.problem], retry_after: None }
    }
}
