//! Procedural macros of envelope. An implementation detail: depend on `envelope-core`, which
//! re-exports [`tool`] and documents it.

mod attr;
mod check;
mod choice;
mod error;
mod expand;

use proc_macro::TokenStream;

/// Declares a tool. Documented on `envelope_core::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
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
