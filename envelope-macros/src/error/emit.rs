//! Expand: the `ToolError` impl of a checked enum, and the fallback impl emitted beside errors.

use super::variant::{Field, Style, Template, Variant, VariantKind};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Expr, LitStr};

pub(super) fn expand(input: &DeriveInput, variants: &[Variant]) -> TokenStream {
    let p = crate::private::path();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let codes = variants.iter().map(|v| match &v.kind {
        VariantKind::Refuse { code, .. } | VariantKind::Fault { code, .. } => code,
    });
    let checks = variants.iter().map(check_code);
    let arms = variants.iter().map(arm);
    quote! {
        #(#checks)*

        #[automatically_derived]
        impl #impl_generics #p::ToolError for #ident #ty_generics #where_clause {
            const CODES: &'static [#p::Code] = {
                const __ENVELOPE_ALL: &[#p::Code] = &[#(#codes),*];
                const __ENVELOPE_N: ::core::primitive::usize = #p::distinct_count(__ENVELOPE_ALL);
                const __ENVELOPE_DISTINCT: [#p::Code; __ENVELOPE_N] =
                    #p::distinct(__ENVELOPE_ALL);
                &__ENVELOPE_DISTINCT
            };

            fn into_envelope(self) -> #p::Envelope {
                match self {
                    #(#arms)*
                }
            }
        }
    }
}

/// A compile-time check that the code suits the variant: `invalid` for a refusal, `error` for a
/// fault, and a meaning and an action for the manifest and the fault's sentence.
pub(super) fn check_code(v: &Variant) -> TokenStream {
    let (code, status, msg) = match &v.kind {
        VariantKind::Refuse { code, .. } => (
            code,
            quote!(Invalid),
            "`#[refuse]` takes a code whose status is `invalid` (the caller must change the request); for a failure of the server use `#[fault]`",
        ),
        VariantKind::Fault { code, .. } => (
            code,
            quote!(Error),
            "`#[fault]` takes a code whose status is `error` (the server failed); for a request the caller must change use `#[refuse]`",
        ),
    };
    // The last token names the code (`BACKEND_ERROR` of `codes::BACKEND_ERROR`).
    let span = quote::ToTokens::to_token_stream(code).into_iter().last().map_or_else(|| code.span(), |t| t.span());
    let p = crate::private::path_at(span);
    quote_spanned! {span=>
        const _: () = {
            let __envelope_code: #p::Code = #code;
            if !::core::matches!(__envelope_code.status(), #p::Status::#status) {
                ::core::panic!(#msg);
            }
            if __envelope_code.meaning().is_empty() || __envelope_code.action().is_empty() {
                ::core::panic!("this code has no meaning or no action: declare it with `.with_meaning(\"...\")` and `.with_action(\"...\")`, which the manifest lists for clients");
            }
        };
    }
}

pub(super) fn arm(v: &Variant) -> TokenStream {
    let p = crate::private::path();
    let ident = &v.ident;
    let used: Vec<usize> = match &v.kind {
        VariantKind::Refuse { parameter, reason, accepted, fix, rejected, suggestion, retry_after, .. } => {
            let mut u: Vec<usize> = [Some(parameter), reason.as_ref(), Some(accepted), Some(fix)]
                .into_iter()
                .flatten()
                .flat_map(|t| t.args.iter().copied())
                .chain(*rejected)
                .chain(*suggestion)
                .chain(*retry_after)
                .collect();
            u.sort_unstable();
            u.dedup();
            u
        }
        VariantKind::Fault { operation, .. } => {
            let mut u = operation.args.clone();
            u.sort_unstable();
            u.dedup();
            u
        }
    };
    let pattern = match v.style {
        Style::Unit => quote!(Self::#ident),
        Style::Named | Style::Unnamed => {
            let binds = used.iter().map(|&i| {
                let (m, b) = (&v.fields[i].member, &v.fields[i].binding);
                quote!(#m: #b)
            });
            quote!(Self::#ident { #(#binds,)* .. })
        }
    };
    let body = match &v.kind {
        VariantKind::Refuse { code, parameter, reason, accepted, fix, rejected, suggestion, retry_after } => {
            let text = |t: &Template| text(t, &v.fields);
            let parameter = text(parameter);
            let rejected = match rejected {
                Some(i) => {
                    let f = &v.fields[*i];
                    let b = &f.binding;
                    quote_spanned!(f.ty.span()=> .rejected(&#b))
                }
                None => quote!(.rejected_secret()),
            };
            let reason = reason.as_ref().map(|r| {
                let r = text(r);
                quote!(.reason(#r))
            });
            let (accepted, fix) = (text(accepted), text(fix));
            let suggestion = suggestion.map(|i| {
                let f = &v.fields[i];
                let b = &f.binding;
                quote_spanned!(f.ty.span()=> .suggestion(::std::string::ToString::to_string(&#b)))
            });
            let retry_after = retry_after.map(|i| {
                let f = &v.fields[i];
                let b = &f.binding;
                quote_spanned!(f.ty.span()=> .with_retry_after(::core::convert::Into::<::core::time::Duration>::into(#b)))
            });
            quote! {
                let __envelope_refusal = #p::Refusal::parameter(#parameter)
                    #rejected
                    #reason
                    .accepted(#accepted)
                    .fix(#fix)
                    #suggestion
                    .build()
                    #retry_after;
                <#p::Refusal as #p::ToolError>::into_envelope(
                    #p::refusal_with_code(__envelope_refusal, #code),
                )
            }
        }
        VariantKind::Fault { code, operation } => {
            let operation = text(operation, &v.fields);
            quote! {
                <#p::Fault as #p::ToolError>::into_envelope(
                    #p::fault_with_code(#code, &*#operation),
                )
            }
        }
    };
    quote!(#pattern => { #body })
}

/// The template as an expression: the literal itself, or `format!` over the bound fields.
pub(super) fn text(t: &Template, fields: &[Field]) -> TokenStream {
    let lit = &t.lit;
    if t.args.is_empty() && t.format == lit.value() {
        return quote!(#lit);
    }
    let format = LitStr::new(&t.format, lit.span());
    let args = t.args.iter().map(|&i| {
        let mut b = fields[i].binding.clone();
        // A field without `Display` is reported at the template that names it.
        b.set_span(lit.span());
        b
    });
    quote!(::std::format!(#format, #(#args),*))
}

/// What is emitted next to the errors: the trait, so uses of the type report nothing more, and
/// the codes that were read, so their imports are not reported unused.
pub(super) fn fallback<'a>(input: &DeriveInput, codes: impl Iterator<Item = &'a Expr>) -> TokenStream {
    let p = crate::private::path();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        const _: &[#p::Code] = &[#(#codes),*];

        #[automatically_derived]
        impl #impl_generics #p::ToolError for #ident #ty_generics #where_clause {
            const CODES: &'static [#p::Code] = &[];
            fn into_envelope(self) -> #p::Envelope {
                ::core::unreachable!()
            }
        }
    }
}
