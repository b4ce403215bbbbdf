//! `#[derive(Choice)]`: a unit-variant enum read from one of its variant names.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Expr, ExprLit, Lit, Meta};

use crate::attr::{key_of, metas, unknown_key};
use crate::check::rename_rule;
use crate::diag::{Accumulator, Error, Sp};

/// One variant as written.
struct ChoiceVariant {
    ident: syn::Ident,
    rename: Option<String>,
}

/// The `key = "..."` items of `#[choice(...)]` attributes, each key once and among `known`.
fn choice_strings(attrs: &[syn::Attribute], known: &[&str], errors: &mut Accumulator) -> Vec<(String, Sp<String>)> {
    let mut out: Vec<(String, Sp<String>)> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("choice")) {
        let Meta::List(list) = &attr.meta else {
            errors.push(Error::custom(format!("write `#[choice({} = \"...\")]`", known[0])).with_span(attr));
            continue;
        };
        let Some(items) = errors.handle(metas(list.tokens.clone())) else { continue };
        for meta in &items {
            let key = key_of(meta);
            if !known.contains(&key.as_str()) {
                errors.push(unknown_key(meta, "`#[choice]` option", known));
                continue;
            }
            let value = match meta {
                Meta::NameValue(nv) => match &nv.value {
                    Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(Sp::new(s.value(), s.span())),
                    other => {
                        errors.push(
                            Error::custom(format!("`{key}` is a string: write `{key} = \"...\"`")).with_span(other),
                        );
                        None
                    }
                },
                other => {
                    errors
                        .push(Error::custom(format!("`{key}` is a string: write `{key} = \"...\"`")).with_span(other));
                    None
                }
            };
            if out.iter().any(|(k, _)| *k == key) {
                errors.push(Error::custom(format!("`{key}` is given twice: keep one")).with_span(meta.path()));
            } else if let Some(v) = value {
                out.push((key, v));
            }
        }
    }
    out
}

pub fn derive(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Error::accumulator();
    let generic = !input.generics.params.is_empty();
    let data = match &input.data {
        Data::Enum(e) => Some(e),
        Data::Struct(syn::DataStruct { struct_token: syn::token::Struct { span }, .. })
        | Data::Union(syn::DataUnion { union_token: syn::token::Union { span }, .. }) => {
            errors.push(
                Error::custom("`#[derive(Choice)]` goes on an enum of unit variants, one per accepted value, like `enum GroupBy { QueryHash, Database }`")
                    .at(*span),
            );
            None
        }
    };
    if generic {
        errors.push(Error::custom("a `Choice` enum cannot be generic").with_span(&input.generics));
    }
    let rename_all = choice_strings(&input.attrs, &["rename_all"], &mut errors).pop().map(|(_, v)| v);
    let rule = rename_all.as_ref().and_then(|r| match rename_rule(r) {
        Ok(rule) => Some(rule),
        Err(msg) => {
            errors.push(Error::custom(msg).at(r.span()));
            None
        }
    });
    let mut variants: Vec<ChoiceVariant> = Vec::new();
    for v in data.iter().flat_map(|d| &d.variants) {
        if !matches!(v.fields, syn::Fields::Unit) {
            errors.push(
                Error::custom(format!(
                    "a `Choice` variant is an accepted value and holds nothing: write `{}` without fields, or read the data with `#[derive(Object)]`",
                    v.ident
                ))
                .with_span(&v.fields),
            );
        }
        let rename = choice_strings(&v.attrs, &["rename"], &mut errors).pop().map(|(_, r)| r.value.clone());
        variants.push(ChoiceVariant { ident: v.ident.clone(), rename });
    }
    let parsed = Parsed { ident: input.ident.clone(), generic };
    if data.is_some() && variants.is_empty() {
        errors.push(
            Error::custom("a `Choice` enum needs at least one variant: each is an accepted value")
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
                Error::custom(format!("two variants are spelled \"{n}\" on the wire: rename one"))
                    .with_span(&variants[i].ident),
            );
        }
    }
    if let Err(e) = errors.finish() {
        let mut out = e.write_errors();
        out.extend(crate::object::fallback(&parsed.ident, parsed.generic));
        return out;
    }
    let p = crate::private::path();
    let ident = &parsed.ident;
    let idents: Vec<&syn::Ident> = variants.iter().map(|v| &v.ident).collect();
    let index = 0..idents.len();
    let first = idents[0];
    quote! {
        #[automatically_derived]
        impl #p::FromArg for #ident {
            fn ty() -> #p::Ty {
                #p::Ty::Enum(&[#(#names),*])
            }
            fn from_arg(
                __envelope_v: &#p::Value,
                __envelope_reading: &#p::Reading<'_>,
            ) -> ::core::result::Result<Self, #p::Problem> {
                #p::read_choice(__envelope_v, __envelope_reading, &[#(#names),*])
                    .map(Self::__envelope_variant)
            }
            fn from_sent(
                __envelope_v: &#p::Sent<'_>,
                __envelope_reading: &#p::Reading<'_>,
            ) -> ::core::result::Result<Self, #p::Problem> {
                #p::read_choice_sent(__envelope_v, __envelope_reading, &[#(#names),*])
                    .map(Self::__envelope_variant)
            }

            fn reads_typed() -> bool {
                true
            }

            fn read_typed<'de, D: #p::Deserializer<'de>>(
                __envelope_de: D,
                _: &#p::Reading<'_>,
            ) -> ::core::result::Result<::core::option::Option<Self>, D::Error> {
                ::core::result::Result::Ok(
                    #p::typed_choice(__envelope_de, &[#(#names),*])?.map(Self::__envelope_variant),
                )
            }
        }

        #[automatically_derived]
        impl #ident {
            #[doc(hidden)]
            fn __envelope_variant(__envelope_i: usize) -> Self {
                match __envelope_i {
                    #(#index => #ident::#idents,)*
                    _ => #ident::#first,
                }
            }

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

/// What the expansion needs of the enum itself.
struct Parsed {
    ident: syn::Ident,
    generic: bool,
}

#[cfg(test)]
mod tests {
    /// The `compile_error!` messages of a derive's output.
    fn errors_of(out: &TokenStream) -> Vec<String> {
        let text = out.to_string();
        text.split("compile_error !").skip(1).filter_map(|t| t.split('"').nth(1).map(str::to_owned)).collect()
    }

    use super::*;

    #[test]
    fn a_choice_enum_reads_its_attributes_and_reports_each_mistake() {
        let ok = derive(quote! {
            #[choice(rename_all = "snake_case")]
            enum GroupBy { QueryHash, #[choice(rename = "db")] Database }
        });
        assert!(errors_of(&ok).is_empty(), "{ok}");
        assert!(ok.to_string().contains("\"query_hash\"") && ok.to_string().contains("\"db\""), "{ok}");

        let bad = derive(quote! {
            #[choice(rename_al = "snake_case")]
            enum GroupBy { QueryHash, Custom(String), #[choice(rename = 5)] Database }
        });
        let errors = errors_of(&bad);
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(
            errors[0].starts_with("unknown `#[choice]` option `rename_al`; did you mean `rename_all`?"),
            "{errors:?}"
        );
        assert!(
            errors[1].starts_with("a `Choice` variant is an accepted value and holds nothing: write `Custom`"),
            "{errors:?}"
        );
        assert!(errors[2].starts_with("`rename` is a string"), "{errors:?}");
        // The fallback still implements FromArg, so the type's users see no second error.
        assert!(bad.to_string().contains("FromArg for GroupBy"), "{bad}");

        let on_struct = derive(quote!(
            struct Group {
                by: String,
            }
        ));
        assert!(errors_of(&on_struct)[0].starts_with("`#[derive(Choice)]` goes on an enum"), "{on_struct}");
    }
}
