//! Errors of the macros, collected so that every mistake is reported in one build, each at the
//! token that is wrong.

use std::fmt;
use std::ops::Deref;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;

/// One or more compile errors, each with its span.
#[derive(Debug)]
pub struct Error(syn::Error);

impl Error {
    /// An error at the macro's call site, until given a place.
    pub fn custom(msg: impl fmt::Display) -> Self {
        Error(syn::Error::new(Span::call_site(), msg))
    }

    /// An empty collection of errors.
    pub fn accumulator() -> Accumulator {
        Accumulator::default()
    }

    /// At `node`'s first token: a key, a literal, a word.
    pub fn with_span<T: Spanned + ?Sized>(self, node: &T) -> Self {
        self.at(node.span())
    }

    /// At `span`.
    pub fn at(self, span: Span) -> Self {
        Error(syn::Error::new(span, self.0))
    }

    /// Across the whole of `node`, from its first token to its last, so a range like `720..=1`
    /// is underlined whole and not at `720` (serde's `new_spanned`).
    pub fn with_node<T: ToTokens>(self, node: T) -> Self {
        Error(syn::Error::new_spanned(node, self.0))
    }

    /// Every error, as `compile_error!` invocations.
    pub fn write_errors(self) -> TokenStream {
        self.0.to_compile_error()
    }
}

impl From<syn::Error> for Error {
    fn from(e: syn::Error) -> Self {
        Error(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl IntoIterator for Error {
    type Item = syn::Error;
    type IntoIter = <syn::Error as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// The errors found so far, in the order found.
#[derive(Debug, Default)]
pub struct Accumulator(Vec<Error>);

impl Accumulator {
    /// Adds an error.
    pub fn push(&mut self, e: Error) {
        self.0.push(e);
    }

    /// The value, or `None` with its error kept.
    pub fn handle<T>(&mut self, r: Result<T, Error>) -> Option<T> {
        r.map_err(|e| self.push(e)).ok()
    }

    /// `Ok` when no error was found, else every error as one.
    pub fn finish(self) -> Result<(), Error> {
        self.finish_with(())
    }

    /// `value` when no error was found, else every error as one.
    pub fn finish_with<T>(self, value: T) -> Result<T, Error> {
        let mut all = self.0.into_iter();
        match all.next() {
            None => Ok(value),
            Some(Error(mut first)) => {
                for Error(e) in all {
                    first.combine(e);
                }
                Err(Error(first))
            }
        }
    }
}

/// A value with the span of what the user wrote for it: every checked item keeps one, so a
/// later stage (a trait bound in the expansion, an error across rules) points at the rule.
#[derive(Clone, Debug)]
pub struct Sp<T> {
    pub value: T,
    span: Span,
}

impl<T> Sp<T> {
    pub fn new(value: T, span: Span) -> Self {
        Sp { value, span }
    }

    pub fn span(&self) -> Span {
        self.span
    }
}

impl<T> Deref for Sp<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}
