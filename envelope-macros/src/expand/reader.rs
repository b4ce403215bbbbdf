//! Each parameter's `ParamSpec`, and the code that reads a parameter list into locals.

use proc_macro2::Ident;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::rule_specs::{opt, rules};
use crate::model::Param;
use crate::ty::Kind;

/// A value literal of the declaration (a `default`, a `requires` value, a `when`) as the
/// expression its JSON is made from: an integer literal suffixed `i64` (or `u64` past `i64`),
/// since alone rustc types it `i32` and refuses `9223372036854775807` ("literal out of range
/// for `i32`") on an `i64` parameter; anything else as written.
fn wide(e: &syn::Expr) -> TokenStream {
    match crate::check::number(e) {
        Some(crate::model::NumV::Int(i)) => {
            let literal = match (i64::try_from(i), u64::try_from(i)) {
                (Ok(n), _) => proc_macro2::Literal::i64_suffixed(n),
                (_, Ok(n)) => proc_macro2::Literal::u64_suffixed(n),
                _ => return quote!(#e),
            };
            let mut literal = literal;
            literal.set_span(syn::spanned::Spanned::span(e));
            quote!(#literal)
        }
        _ => quote!(#e),
    }
}

/// A parameter's `ParamSpec`: name, description, JSON type, whether required, then a builder
/// call per thing set (default, rules, `requires`, `excludes`).
fn param_spec(param: &Param) -> TokenStream {
    let p = &crate::private::path();
    let name = &param.name;
    let desc = &param.description;
    let ty = &param.ty;
    let required = !param.optional && param.default.is_none();
    let mut calls = Vec::new();
    if let Some(d) = &param.default {
        let e = &d.expr;
        let at = crate::private::path_at(d.span);
        let e = wide(e);
        calls.push(quote_spanned!(d.span=> with_default(#at::json(#e))));
    }
    if let Some(rules) = rules(&param.rules) {
        calls.push(quote!(with_rules(#rules)));
    }
    if !param.requires.is_empty() {
        let requires = param.requires.iter().map(|r| {
            let when = opt(r.when.as_ref().map(wide).map(|w| quote!(#p::json(#w))));
            let then = r.then.iter().map(|(n, v)| {
                let v = opt(v.as_ref().map(wide).map(|v| quote!(#p::json(#v))));
                quote!((#n, #v))
            });
            quote!(#p::Requires::new(#when, ::std::vec![#(#then),*]))
        });
        calls.push(quote!(with_requires(::std::vec![#(#requires),*])));
    }
    if !param.excludes.is_empty() {
        let excludes = &param.excludes;
        calls.push(quote!(with_excludes(::std::vec![#(#excludes),*])));
    }
    // A type the macro does not know by name through the probe: if it is no parameter type,
    // it is reported once, where the reading asks for it, not again here.
    let shape = if known(ty) {
        quote!(<#ty as #p::FromArg>::ty())
    } else {
        quote! {{
            #[allow(unused_imports)]
            use #p::{ProbeNoShape as _, ProbeShape as _};
            (&&#p::Probe::<#ty>::NEW).ty()
        }}
    };
    quote! {
        #p::ParamSpec::new(#name, #desc, #shape, #required) #(.#calls)*
    }
}

/// The code that reads a parameter list with `__envelope_args` into `__envelope_0..n`.
pub struct Reader {
    /// `ParamSpec` expressions, in order.
    pub specs: Vec<TokenStream>,
    /// `let __envelope_i = __envelope_args.take::<T>(i);` for each, then cross-field checks.
    pub takes: TokenStream,
    /// The locals holding the values once read.
    pub locals: Vec<proc_macro2::Ident>,
    /// Binds the locals, running `refuse` when one could not be read.
    pub refuse_with: TokenStream,
}

/// The reading code of `params`; `refuse` runs when one could not be read.
pub fn reader(params: &[Param], refuse: TokenStream) -> Reader {
    let specs = params.iter().map(param_spec).collect();
    let locals: Vec<_> = (0..params.len()).map(|i| format_ident!("__envelope_{}", i)).collect();
    let takes = params.iter().enumerate().map(|(i, p)| {
        let ty = &p.ty;
        let local = &locals[i];
        match &p.default {
            Some(d) => {
                let e = &d.expr;
                let value = if p.kind == Kind::Str {
                    quote_spanned!(d.span=> ::std::string::String::from(#e))
                } else {
                    quote_spanned!(d.span=> #e)
                };
                quote!(let #local = __envelope_args.take_or::<#ty>(#i, || #value);)
            }
            None => quote!(let #local = __envelope_args.take::<#ty>(#i);),
        }
    });
    let cross = if params.iter().any(|p| !p.requires.is_empty() || !p.excludes.is_empty()) {
        quote!(__envelope_args.cross();)
    } else {
        quote!()
    };
    let refuse_with = if locals.is_empty() {
        quote!()
    } else {
        quote! {
            let (#(::core::option::Option::Some(#locals),)*) = (#(#locals,)*) else {
                #refuse;
            };
        }
    };
    Reader { specs, takes: quote!(#(#takes)* #cross), locals, refuse_with }
}

/// Whether `ty` (as written, `Option` included) may have the typed reading
/// (`envelope_core`'s `read::typed`): any type but those known to lack it (`i128`, `u128`,
/// `f32`, `serde_json::Value`). Whether it has it is the types' `FromArg::reads_typed`, which
/// the generated code asks.
fn typed_candidate(ty: &syn::Type) -> bool {
    let inner = crate::ty::option_inner(ty).unwrap_or(ty);
    let syn::Type::Path(tp) = inner else { return false };
    if tp.qself.is_some() {
        return false;
    }
    match crate::ty::kind_of(inner) {
        Kind::Int { name, .. } => name != "i128" && name != "u128",
        Kind::Float => tp.path.segments.last().is_some_and(|s| s.ident == "f64"),
        Kind::Bool | Kind::Str | Kind::Array => true,
        Kind::Other => tp.path.segments.last().is_some_and(|s| s.ident != "Value"),
    }
}

/// Whether `ty` (as written, `Option` included) is a type the macro knows implements `FromArg`:
/// an integer, a float, `bool`, `String`, or a `Vec` of one of those.
fn known(ty: &syn::Type) -> bool {
    let inner = crate::ty::option_inner(ty).unwrap_or(ty);
    match crate::ty::kind_of(inner) {
        Kind::Int { .. } | Kind::Float | Kind::Bool | Kind::Str => true,
        Kind::Array => crate::ty::vec_item(inner).is_some_and(known),
        Kind::Other => false,
    }
}

/// The typed reading of a parameter list (`envelope_core`'s `read::typed`), asked of the tuple
/// of its types: directly when the macro knows every type ([`known`]), else through `Probe`
/// (so a type that is no parameter type is reported once, by the general reading).
pub struct TypedReader {
    /// The tuple of the parameters' types.
    tuple: TokenStream,
    /// Whether every type is [`known`].
    known: bool,
    /// Binds each local from `__envelope_read` (the tuple of `Option`s read): an `Option`
    /// parameter as read, one with a default or its default, a required one or `return
    /// missing` (`None`: `?`, in a function returning `Option`).
    pub binds: Vec<TokenStream>,
}

impl TypedReader {
    /// `call` made on the probe of the types' tuple, its two traits in scope.
    fn probe(&self, call: &TokenStream) -> TokenStream {
        let p = &crate::private::path();
        let tuple = &self.tuple;
        quote! {{
            #[allow(unused_imports)]
            use #p::{ProbeGeneral as _, ProbeTyped as _};
            (&&#p::Probe::<#tuple>::NEW).#call
        }}
    }

    /// Whether every type has the typed reading (a `bool` expression).
    pub fn reads(&self) -> TokenStream {
        let (p, tuple) = (&crate::private::path(), &self.tuple);
        if self.known { quote!(<#tuple as #p::TypedArgs>::reads_typed()) } else { self.probe(&quote!(reads())) }
    }

    /// A tool's arguments read (`Option` of the tuple of `Option`s), from `__envelope_spec` and
    /// `__envelope_raw`.
    pub fn read_args(&self) -> TokenStream {
        let (p, tuple) = (&crate::private::path(), &self.tuple);
        if self.known {
            quote!(#p::read_typed::<#tuple>(__envelope_spec, __envelope_raw))
        } else {
            self.probe(&quote!(read_args(__envelope_spec, __envelope_raw)))
        }
    }

    /// An object's fields read (`Result` of an `Option` of the tuple of `Option`s) from
    /// `__envelope_de` with `__envelope_reading`, by the `ObjectSpec` `spec`.
    pub fn read_fields(&self, spec: &TokenStream) -> TokenStream {
        let (p, tuple) = (&crate::private::path(), &self.tuple);
        if self.known {
            quote!(<#tuple as #p::TypedArgs>::read(&#spec.params, __envelope_reading.strict, __envelope_de))
        } else {
            self.probe(&quote!(read_fields(#spec, __envelope_reading, __envelope_de)))
        }
    }
}

/// The typed reading of `params` (one to twelve, each a [`typed_candidate`], with no
/// cross-field rule and no default on an `Option`) into `locals`; `None` for any other list.
pub fn typed_reader(params: &[Param], locals: &[Ident], missing: Option<&TokenStream>) -> Option<TypedReader> {
    let p = &crate::private::path();
    let eligible = (1..=12).contains(&params.len())
        && params.iter().all(|p| {
            typed_candidate(&p.ty)
                && p.requires.is_empty()
                && p.excludes.is_empty()
                && !(crate::ty::option_inner(&p.ty).is_some() && p.default.is_some())
        });
    if !eligible {
        return None;
    }
    let tys: Vec<&syn::Type> = params.iter().map(|p| &p.ty).collect();
    let binds = params
        .iter()
        .zip(locals)
        .enumerate()
        .map(|(i, (param, local))| {
            let i = syn::Index::from(i);
            match (&param.default, crate::ty::option_inner(&param.ty)) {
                (_, Some(_)) => quote!(let #local = __envelope_read.#i.flatten();),
                (Some(d), None) => {
                    let e = &d.expr;
                    let value = if param.kind == Kind::Str {
                        quote_spanned!(d.span=> ::std::string::String::from(#e))
                    } else {
                        quote_spanned!(d.span=> #e)
                    };
                    // The default in the shape the general reader gives it (`take_or`'s
                    // closure), so a default of the wrong type is one diagnostic, not two.
                    let ty = &param.ty;
                    quote!(let #local = #p::typed_or::<#ty>(__envelope_read.#i, || #value);)
                }
                (None, None) => match missing {
                    // In a function returning `Option`: `?` (as clippy would have it written).
                    None => quote!(let #local = __envelope_read.#i?;),
                    Some(missing) => quote! {
                        let ::core::option::Option::Some(#local) = __envelope_read.#i else {
                            return #missing;
                        };
                    },
                },
            }
        })
        .collect();
    let known = tys.iter().all(|ty| known(ty));
    Some(TypedReader { tuple: quote!((#(#tys,)*)), known, binds })
}
