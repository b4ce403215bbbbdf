//! Each parameter's `ParamSpec`, and the code that reads a parameter list into locals.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::rule_specs::{opt, rules};
use crate::model::Param;
use crate::ty::Kind;

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
        calls.push(quote_spanned!(d.span=> with_default(#at::json(#e))));
    }
    if let Some(rules) = rules(&param.rules) {
        calls.push(quote!(with_rules(#rules)));
    }
    if !param.requires.is_empty() {
        let requires = param.requires.iter().map(|r| {
            let when = opt(r.when.as_ref().map(|w| quote!(#p::json(#w))));
            let then = r.then.iter().map(|(n, v)| {
                let v = opt(v.as_ref().map(|v| quote!(#p::json(#v))));
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
    quote! {
        #p::ParamSpec::new(
            #name, #desc, <#ty as #p::FromArg>::ty(), #required
        ) #(.#calls)*
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
