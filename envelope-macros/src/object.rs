//! `#[derive(Object)]`: a struct read from a JSON object, its fields with the same rules as a
//! tool's parameters.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

use crate::attr::{RawParam, key_of, metas, take_validate, unknown_key};
use crate::check::{check_cross, check_param, rename_rule};
use crate::diag::{Accumulator, Error, Sp};
use crate::expand::{Reader, reader, typed_reader};

/// `#[object(...)]` on the struct.
#[derive(Default)]
struct ObjectArgs {
    rename_all: Option<Sp<String>>,
}

/// Reads `#[object(rename_all = "...")]`, every mistake reported.
fn object_args(attr: &syn::Attribute, args: &mut ObjectArgs, errors: &mut Accumulator) {
    let syn::Meta::List(list) = &attr.meta else {
        errors.push(Error::custom("write `#[object(rename_all = \"camelCase\")]`").with_span(attr));
        return;
    };
    let Some(items) = errors.handle(metas(list.tokens.clone())) else { return };
    for meta in &items {
        match (key_of(meta).as_str(), meta) {
            ("rename_all", syn::Meta::NameValue(nv)) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) if args.rename_all.is_none() => {
                    args.rename_all = Some(Sp::new(s.value(), s.span()));
                }
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(_), .. }) => {
                    errors.push(Error::custom("`rename_all` is given twice: keep one").with_span(&nv.path));
                }
                other => errors
                    .push(Error::custom("`rename_all` is a string: write `rename_all = \"...\"`").with_span(other)),
            },
            ("rename_all", _) => {
                errors.push(Error::custom("`rename_all` is a string: write `rename_all = \"...\"`").with_span(meta));
            }
            _ => errors.push(unknown_key(meta, "`#[object]` option", &["rename_all"])),
        }
    }
}

/// The errors, and an implementation of `FromArg` that stands in for the one the derive would
/// have given (for a type that is not generic), so the user sees these errors and not a second
/// one at every tool that takes the type.
pub fn with_fallback(errors: Accumulator, ident: &syn::Ident, generic: bool) -> TokenStream {
    let mut out = errors.finish().err().map(|e| e.write_errors()).unwrap_or_default();
    out.extend(fallback(ident, generic));
    out
}

/// The stand-in `FromArg` of [`with_fallback`].
pub fn fallback(ident: &syn::Ident, generic: bool) -> TokenStream {
    let mut out = TokenStream::new();
    if generic {
        return out;
    }
    let p = crate::private::path();
    out.extend(quote! {
        impl #p::FromArg for #ident {
            fn ty() -> #p::Ty {
                ::core::unimplemented!()
            }
            fn from_arg(
                _: &#p::Value,
                _: &#p::Reading<'_>,
            ) -> ::core::result::Result<Self, #p::Problem> {
                ::core::unimplemented!()
            }
        }
    });
    out
}

pub fn derive(input: TokenStream) -> TokenStream {
    let mut input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Error::accumulator();
    let mut args = ObjectArgs::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("object")) {
        object_args(attr, &mut args, &mut errors);
    }
    let rename_all = args.rename_all.as_ref().and_then(|r| match rename_rule(r) {
        Ok(rule) => Some(rule),
        Err(msg) => {
            errors.push(Error::custom(msg).with_span(&r.span()));
            None
        }
    });
    let generic = !input.generics.params.is_empty();
    if generic {
        errors.push(
            Error::custom(
                "an `Object` struct cannot be generic: its fields are read from JSON by their concrete types",
            )
            .with_span(&input.generics),
        );
    }
    let ident = input.ident.clone();
    let Data::Struct(data) = &mut input.data else {
        errors.push(
            Error::custom(
                "`#[derive(Object)]` goes on a struct with named fields; for an enum of names use `#[derive(Choice)]`",
            )
            .with_span(&ident),
        );
        return with_fallback(errors, &ident, generic);
    };
    let Fields::Named(fields) = &mut data.fields else {
        errors.push(
            Error::custom("`#[derive(Object)]` needs named fields: each is a key of the JSON object").with_span(&ident),
        );
        return with_fallback(errors, &ident, generic);
    };
    let mut raws = Vec::new();
    for f in &mut fields.named {
        let (validate, docs) = take_validate(&mut f.attrs, &mut errors);
        if let Some(id) = &f.ident {
            raws.push(RawParam { ident: id.clone(), ty: f.ty.clone(), docs, validate });
        }
    }
    let params: Vec<_> = raws.iter().map(|r| check_param(r, rename_all, &mut errors)).collect();
    check_cross(&params, &raws, &mut errors);
    if let Err(e) = errors.finish() {
        let mut out = e.write_errors();
        out.extend(fallback(&ident, generic));
        return out;
    }
    let p = crate::private::path();
    let name = ident.to_string();
    let field_idents: Vec<&syn::Ident> = raws.iter().map(|r| &r.ident).collect();
    let Reader { specs, takes, locals, refuse_with } = reader(
        &params,
        quote!(return ::core::result::Result::Err(__envelope_args.into_problem_or(__envelope_reading))),
    );
    let count = raws.len();
    // The typed reading of its fields, when each field's type has it (`read::typed`).
    let typed = typed_reader(&params, &locals, Some(&quote!(::core::result::Result::Ok(::core::option::Option::None))))
        .map(|typed| {
            let reads = typed.reads();
            let read = typed.read_fields(&quote!(#ident::__envelope_object()));
            let binds = &typed.binds;
            quote! {
                fn reads_typed() -> bool {
                    #reads
                }

                fn read_typed<'de, D: #p::Deserializer<'de>>(
                    __envelope_de: D,
                    __envelope_reading: &#p::Reading<'_>,
                ) -> ::core::result::Result<::core::option::Option<Self>, D::Error> {
                    let ::core::option::Option::Some(__envelope_read) = #read? else {
                        return ::core::result::Result::Ok(::core::option::Option::None);
                    };
                    #(#binds)*
                    ::core::result::Result::Ok(::core::option::Option::Some(#ident { #(#field_idents: #locals),* }))
                }
            }
        });
    quote! {
        #[automatically_derived]
        impl #p::FromArg for #ident {
            fn ty() -> #p::Ty {
                #p::Ty::Object(#ident::__envelope_object())
            }

            fn from_arg(
                __envelope_v: &#p::Value,
                __envelope_reading: &#p::Reading<'_>,
            ) -> ::core::result::Result<Self, #p::Problem> {
                #ident::__envelope_from_value(__envelope_v, __envelope_reading, false)
            }

            fn from_arg_unused(
                __envelope_v: &#p::Value,
                __envelope_reading: &#p::Reading<'_>,
            ) -> ::core::result::Result<Self, #p::Problem> {
                #ident::__envelope_from_value(__envelope_v, __envelope_reading, true)
            }

            fn from_sent(
                __envelope_v: &#p::Sent<'_>,
                __envelope_reading: &#p::Reading<'_>,
            ) -> ::core::result::Result<Self, #p::Problem> {
                #ident::__envelope_from_sent(__envelope_v, __envelope_reading, false)
            }

            fn from_sent_unused(
                __envelope_v: &#p::Sent<'_>,
                __envelope_reading: &#p::Reading<'_>,
            ) -> ::core::result::Result<Self, #p::Problem> {
                #ident::__envelope_from_sent(__envelope_v, __envelope_reading, true)
            }

            #typed
        }

        #[automatically_derived]
        impl #ident {
            /// Reads the object from a `Value`; each field only checked when `unused` (a value
            /// before the object was refused: what it reads to is dropped).
            #[doc(hidden)]
            fn __envelope_from_value(
                __envelope_v: &#p::Value,
                __envelope_reading: &#p::Reading<'_>,
                __envelope_unused: bool,
            ) -> ::core::result::Result<Self, #p::Problem> {
                let __envelope_spec = #ident::__envelope_object();
                let __envelope_obj = #p::object_of(__envelope_v, __envelope_reading, __envelope_spec)?;
                let __envelope_reading = &__envelope_obj.reading(__envelope_reading);
                let mut __envelope_args =
                    #p::Args::nested(&__envelope_spec.params, __envelope_reading, __envelope_obj.map())
                        .unused(__envelope_unused);
                #takes
                #refuse_with
                __envelope_args.into_problem()?;
                ::core::result::Result::Ok(#ident { #(#field_idents: #locals),* })
            }

            /// Reads the object from the arguments' text, as `__envelope_from_value` does.
            #[doc(hidden)]
            fn __envelope_from_sent(
                __envelope_v: &#p::Sent<'_>,
                __envelope_reading: &#p::Reading<'_>,
                __envelope_unused: bool,
            ) -> ::core::result::Result<Self, #p::Problem> {
                let __envelope_spec = #ident::__envelope_object();
                let mut __envelope_slots: [::core::option::Option<#p::Sent<'_>>; #count] =
                    [const { ::core::option::Option::None }; #count];
                let ::core::option::Option::Some(__envelope_args) = #p::Args::nested_sent(
                    &__envelope_spec.params,
                    __envelope_reading,
                    __envelope_v,
                    &mut __envelope_slots,
                ) else {
                    return #p::sent_as_value(__envelope_v, __envelope_reading, |__envelope_v, __envelope_reading| {
                        #ident::__envelope_from_value(__envelope_v, __envelope_reading, __envelope_unused)
                    });
                };
                let mut __envelope_args = __envelope_args.unused(__envelope_unused);
                #takes
                #refuse_with
                __envelope_args.into_problem()?;
                ::core::result::Result::Ok(#ident { #(#field_idents: #locals),* })
            }

            /// The object's fields and rules, built once.
            #[doc(hidden)]
            fn __envelope_object() -> &'static #p::ObjectSpec {
                static __ENVELOPE_SPEC: ::std::sync::OnceLock<#p::ObjectSpec> =
                    ::std::sync::OnceLock::new();
                __ENVELOPE_SPEC.get_or_init(|| {
                    #p::ObjectSpec::new(#name, ::std::vec![#(#specs),*])
                })
            }
        }
    }
}
