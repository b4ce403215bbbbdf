//! Procedural macros of envelope. An implementation detail: depend on `envelope-core`, which
//! re-exports [`tool`] and documents it.

mod attr;
mod check;
mod expand;

use proc_macro::TokenStream;

/// Declares a tool. Documented on `envelope_core::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}
