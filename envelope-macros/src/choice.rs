//! `#[derive(Choice)]`: a unit-variant enum read from one of its variant names.

use darling::util::SpannedValue;
use darling::{FromDeriveInput, FromVariant};
use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::check::rename_rule;

#[derive(FromDeriveInput)]
#[darling(attributes(choice), supports(enum_unit))]
struct ChoiceEnum {
    ident: syn::Ident,
    generics: syn::Generics,
    data: darling::ast::Data<ChoiceVariant, ()>,
    rename_all: Option<SpannedValue<String>>,
}

#[derive(FromVariant)]
#[darling(attributes(choice))]
struct ChoiceVariant {
    ident: syn::Ident,
    rename: Option<String>,
}

pub fn derive(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let parsed = match ChoiceEnum::from_derive_input(&input) {
        Ok(p) => p,
        Err(e) => {
            let mut errors = darling::Error::accumulator();
            errors.push(e);
            return crate::object::with_fallback(errors, &input.ident, !input.generics.params.is_empty());
        }
    };
    let mut errors = darling::Error::accumulator();
    if !parsed.generics.params.is_empty() {
        errors.push(darling::Error::custom("a `Choice` enum cannot be generic").with_span(&parsed.generics));
    }
    let rule = parsed.rename_all.as_ref().and_then(|r| match rename_rule(r) {
        Ok(rule) => Some(rule),
        Err(msg) => {
            errors.push(darling::Error::custom(msg).with_span(&r.span()));
            None
        }
    });
    let variants = parsed.data.take_enum().unwrap_or_default();
    if variants.is_empty() {
        errors.push(
            darling::Error::custom("a `Choice` enum needs at least one variant: each is an accepted value")
                .with_span(&parsed.ident),
        );
    }
    let names: Vec<String> = variants
        .iter()
        .map(|v| match (&v.rename, rule) {
            (Some(r), _) => r.clone(),
            (None, Some(rule)) => rule.apply_to_variant(v.ident.to_string()),
            (None, None) => v.ident.to_string(),
        })
        .collect();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            errors.push(
                darling::Error::custom(format!("two variants are spelled \"{n}\" on the wire: rename one"))
                    .with_span(&variants[i].ident),
            );
        }
    }
    if let Err(e) = errors.finish() {
        let mut out = e.write_errors();
        out.extend(crate::object::fallback(&parsed.ident, !parsed.generics.params.is_empty()));
        return out;
    }
    let ident = &parsed.ident;
    let idents: Vec<&syn::Ident> = variants.iter().map(|v| &v.ident).collect();
    let index = 0..idents.len();
    let first = idents[0];
    quote! {
        #[automatically_derived]
        impl ::envelope_core::FromArg for #ident {
            fn ty() -> ::envelope_core::__private010::Ty {
                ::envelope_core::__private010::Ty::Enum(&[#(#names),*])
            }
            fn from_arg(
                __envelope_v: &::envelope_core::__private010::Value,
                __envelope_cx: &::envelope_core::Cx<'_>,
            ) -> ::core::result::Result<Self, ::envelope_core::Problem> {
                ::envelope_core::__private010::read_choice(__envelope_v, __envelope_cx, &[#(#names),*])
                    .map(|__envelope_i| match __envelope_i {
                        #(#index => #ident::#idents,)*
                        _ => #ident::#first,
                    })
            }
        }

        #[automatically_derived]
        impl #ident {
            /// The name callers use for this value.
            #[must_use]
            pub const fn as_str(&self) -> &'static str {
                match self {
                    #(#ident::#idents => #names,)*
                }
            }
        }
    }
}
