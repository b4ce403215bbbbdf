//! The one path by which generated code reaches envelope-core: `::envelope_core::__private010`,
//! spelled here and nowhere else (as thiserror computes its private path once). Every item the
//! expansion names — the traits a derive implements included — is re-exported there, so
//! envelope-core's public root can change without touching this crate. The module's name
//! carries the release (a mismatched pair of crates does not build); envelope-core's
//! `private.rs` checks the name against its version.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote_spanned;

/// envelope-core's module for generated code.
const MODULE: &str = "__private010";

/// `::envelope_core::__private010`, at the macro's call site.
pub fn path() -> TokenStream {
    path_at(Span::call_site())
}

/// `::envelope_core::__private010` with every token at `span`, for code spanned at what the
/// user wrote (a diagnostic there points at it).
pub fn path_at(span: Span) -> TokenStream {
    let module = Ident::new(MODULE, span);
    quote_spanned!(span=> ::envelope_core::#module)
}
