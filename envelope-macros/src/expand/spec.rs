//! The tool's `ToolSpec`: name, description, parameters, annotations, error codes, output
//! schema, guards, rate limit, scopes, tier.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::model::Tool;

/// A hint's letter for `hints`: `y`, `n` or `-` (absent).
fn hint(on: Option<bool>) -> char {
    match on {
        Some(true) => 'y',
        Some(false) => 'n',
        None => '-',
    }
}

/// The `ToolSpec` expression of a checked tool. `preview_codes`: the codes of a confirm tool's
/// preview function's error type.
pub(super) fn spec_expr(t: &Tool, specs: &[TokenStream], preview_codes: Option<TokenStream>) -> TokenStream {
    let p = &crate::private::path();
    let name = &t.name;
    let description = &t.description;
    let strict = t.strict;
    let hints: String = [t.read_only, t.destructive, t.idempotent, t.open_world].into_iter().map(hint).collect();
    let hints = syn::LitByteStr::new(hints.as_bytes(), proc_macro2::Span::call_site());
    let timeout = t.timeout_ms.is_some();
    let output_schema = t.output_schema.as_ref().map(|f| {
        let span = syn::spanned::Spanned::span(f);
        let at = crate::private::path_at(span);
        quote_spanned!(span=> #f as fn() -> #at::Value)
    });
    let declared = match &t.error_type {
        Some(e) => {
            let at = crate::private::path_at(t.ret_span);
            quote_spanned!(t.ret_span=> <#e as #at::ToolError>::CODES)
        }
        None => quote!(&[]),
    };
    let confirm = t.confirm.is_some();
    let key = t.idempotency_key;
    let error_codes = if confirm || key {
        let preview = preview_codes.unwrap_or_else(|| quote!(&[]));
        quote!(#p::guarded_codes(&[#declared, #preview], #timeout, #confirm, #key))
    } else {
        quote!(#p::error_codes(#declared, #timeout))
    };
    // Only what is set is spelled: each a builder call.
    let mut calls = Vec::new();
    if let Some(title) = &t.title {
        calls.push(quote!(with_title(#title)));
    }
    if strict {
        calls.push(quote!(with_strict()));
    }
    if [t.read_only, t.destructive, t.idempotent, t.open_world].iter().any(Option::is_some) {
        calls.push(quote!(with_annotations(#p::hints(#hints))));
    }
    if t.output_schema.is_some() {
        calls.push(quote!(with_output_schema(#output_schema)));
    }
    if confirm {
        calls.push(quote!(with_confirmation()));
    }
    if key {
        calls.push(quote!(with_idempotency_key()));
    }
    if let Some((count, ms)) = t.rate_limit {
        calls.push(quote!(with_rate_limit(#p::RateLimit::new(
            #count,
            ::core::time::Duration::from_millis(#ms)
        ))));
    }
    if !t.scopes.is_empty() {
        let scopes = &t.scopes;
        calls.push(quote!(with_scopes(&[#(#scopes),*])));
    }
    if let Some(tier) = t.tier {
        calls.push(quote!(with_tier(#tier)));
    }
    let spec = quote! {
        #p::ToolSpec::new(#name, #description, ::std::vec![#(#specs),*], #error_codes)
            #(.#calls)*
    };
    // Without a declared `output_schema`, a return type that implements `JsonSchema` (feature
    // `schemars`) gives the schema of `data`: a probe picks the typed impl when the
    // bound holds, and (through `Deref`) the one that gives none otherwise.
    match (&t.output_schema, &t.data_type) {
        (None, Some(data)) => quote!(#p::DataSchema::<#data>::new().with_data_schema(#spec)),
        _ => spec,
    }
}
