//! Procedural macros of envelope. An implementation detail: depend on `envelope-core`, which
//! re-exports [`tool`] and documents it.

mod attr;
mod check;
mod choice;
mod diag;
mod error;
mod expand;
mod model;
mod object;
mod private;
mod rules;
mod suggest;
mod ty;

use proc_macro::TokenStream;

/// Declares a tool. Documented on `envelope_core::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

/// Registers the `#[tool]` methods (taking `&self`) of an impl block as tools of a shared
/// state. Documented on `envelope_core::tools`.
#[proc_macro_attribute]
pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tools(args.into(), input.into()).into()
}

/// Implements `ToolError` for an error enum of refusals and faults. Documented on
/// `envelope_core::ToolError`.
#[proc_macro_derive(ToolError, attributes(refuse, fault))]
pub fn derive_tool_error(input: TokenStream) -> TokenStream {
    error::derive(input.into()).into()
}

/// Reads a unit-variant enum from one of its variant names (serde-style `rename_all` /
/// `rename` under `#[choice(...)]`). Documented on `envelope_core::Choice`.
#[proc_macro_derive(Choice, attributes(choice))]
pub fn derive_choice(input: TokenStream) -> TokenStream {
    choice::derive(input.into()).into()
}

/// Reads a struct from a JSON object whose keys are its fields, each with `#[validate(...)]`
/// rules (paths like `filter.since` in refusals). Documented on `envelope_core::Object`.
#[proc_macro_derive(Object, attributes(object, validate))]
pub fn derive_object(input: TokenStream) -> TokenStream {
    object::derive(input.into()).into()
}
