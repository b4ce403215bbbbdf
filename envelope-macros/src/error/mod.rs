//! `#[derive(ToolError)]`: an error enum whose every variant is a refusal or a fault, built from
//! parts, never from a free-form sentence. Three stages, as for `#[tool]`, one module each.

/// Expand: the `ToolError` impl, or the fallback beside the errors.
mod emit;
/// Parse: `Raw*`, what the user wrote, with spans.
mod parse;
/// Check: `Variant`, a model expansion can trust.
mod variant;

use crate::diag::Error;
use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput};

pub fn derive(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Error::accumulator();
    let raw: Vec<parse::RawVariant<'_>> = match &input.data {
        Data::Enum(e) => e.variants.iter().map(|v| parse::parse(v, &mut errors)).collect(),
        Data::Struct(s) => {
            errors.push(not_an_enum(s.struct_token.span()));
            Vec::new()
        }
        Data::Union(u) => {
            errors.push(not_an_enum(u.union_token.span()));
            Vec::new()
        }
    };
    let variants: Vec<variant::Variant> = raw.iter().filter_map(|v| variant::check(v, &mut errors)).collect();
    match errors.finish() {
        Ok(()) => emit::expand(&input, &variants),
        Err(e) => {
            // Still implement the trait, so the user sees these errors and not a second one at
            // every tool that returns this type.
            let codes = raw.iter().filter_map(|v| v.attr.as_ref().and_then(|(_, _, a)| a.code.as_ref()));
            let mut out = e.write_errors();
            out.extend(emit::fallback(&input, codes));
            out
        }
    }
}

fn not_an_enum(span: Span) -> Error {
    Error::custom(
        "`#[derive(ToolError)]` goes on an enum whose variants are each a refusal (`#[refuse(...)]`) or a fault (`#[fault(...)]`)",
    )
    .with_span(&span)
}
