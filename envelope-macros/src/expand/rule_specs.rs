//! The `Rules` of one value, as builder calls on `Rules::NONE`: only what is set is spelled. A
//! rule on a type the macro cannot name passes its value beside an item of the public trait
//! that decides whether it applies (`<T as Textual>::RULES_APPLY`), spanned at the rule.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::model::{BoundV, ChoicesV, LengthUnit, NumV, RulesV};

fn num(p: &TokenStream, n: NumV) -> TokenStream {
    match n {
        NumV::Int(i) => quote!(#p::Num::Int(#i)),
        NumV::Float(f) => quote!(#p::Num::Float(#f)),
    }
}

fn bound(p: &TokenStream, b: BoundV) -> TokenStream {
    match b {
        BoundV::Unbounded => quote!(#p::Bound::Unbounded),
        BoundV::Incl(n) => {
            let n = num(p, n);
            quote!(#p::Bound::Inclusive(#n))
        }
        BoundV::Excl(n) => {
            let n = num(p, n);
            quote!(#p::Bound::Exclusive(#n))
        }
    }
}

/// `Some(t)` or `None`, spelled in full.
pub(super) fn opt(t: Option<TokenStream>) -> TokenStream {
    match t {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    }
}

/// The rules that are set, each as one builder call on `Rules::NONE` (none when none is set):
/// the expansion spells no field left `None` or `false`.
pub(super) fn rules(r: &RulesV) -> Option<TokenStream> {
    let p = &crate::private::path();
    let mut calls = Vec::new();
    // A rule on a type the macro cannot name: its value passes through with an item of the
    // public trait that says whether the rule applies, spanned at the rule. The bound is on the
    // trait's own item, so the error names the trait and no function of the private module.
    let by_trait = |rule: &str, value: TokenStream| match r.by_trait(rule) {
        Some(b) => {
            let tr = format_ident!("{}", b.bound.trait_name());
            // The type's tokens take the rule's span too: the unmet bound is reported there.
            let ty = &b.ty;
            let ty = respan(quote!(#ty), b.span);
            let p = crate::private::path_at(b.span);
            match b.bound {
                crate::rules::ByTrait::Measured => {
                    quote_spanned!(b.span=> #p::counted(#value, <#ty as #p::Measured<_>>::UNIT))
                }
                crate::rules::ByTrait::Sequence => quote_spanned!(b.span=>
                    #p::applies(::core::marker::PhantomData::<<#ty as #p::Sequence>::Item>, #value)),
                crate::rules::ByTrait::Numeric | crate::rules::ByTrait::Textual => {
                    quote_spanned!(b.span=> #p::applies(<#ty as #p::#tr>::RULES_APPLY, #value))
                }
            }
        }
        None => value,
    };
    if let Some(range) = &r.range {
        let (lo, hi) = (bound(p, range.0), bound(p, range.1));
        let range = by_trait("range", quote!(#p::Range::new(#lo, #hi)));
        calls.push(quote!(with_range(#range)));
    }
    if let Some(step) = &r.multiple_of {
        let step = by_trait("multiple_of", num(p, step.value));
        calls.push(quote!(with_multiple_of(#step)));
    }
    if let Some(c) = &r.choices {
        let c = match &c.value {
            ChoicesV::Str(v) => quote!(#p::Choices::Str(&[#(#v),*])),
            ChoicesV::Int(v) => quote!(#p::Choices::Int(&[#(#v),*])),
        };
        let c = by_trait("choices", c);
        calls.push(quote!(with_choices(#c)));
    }
    if r.secret.is_some() {
        calls.push(quote!(with_secret()));
    }
    if let Some(len) = &r.length {
        let (min, unit) = (len.min, format_ident!("{}", len.unit.variant()));
        let max = len.max.map_or_else(|| quote!(::core::primitive::usize::MAX), |m| quote!(#m));
        let length = quote!(#p::Length::new(#min, #max, #p::Unit::#unit));
        let rule = if len.unit == LengthUnit::Bytes { "byte_length" } else { "length" };
        let length = by_trait(rule, length);
        calls.push(quote!(with_length(#length)));
    }
    if let Some(pattern) = &r.pattern {
        let src = &pattern.source;
        let example = opt(pattern.example.as_ref().map(|e| quote!(#e)));
        let pattern = by_trait("pattern", quote!(#p::Pattern::new(#src, #example)));
        calls.push(quote!(with_pattern(#pattern)));
    }
    if let Some(items) = &r.items {
        let items = rules(items).unwrap_or_else(|| quote!(#p::Rules::NONE));
        let items = by_trait("each", items);
        calls.push(quote!(with_items(#items)));
    }
    if r.ignore_case.is_some() {
        calls.push(quote!(with_ignore_case()));
    }
    if let Some(f) = &r.format {
        let variant = format_ident!("{}", f.variant());
        let format = by_trait("format", quote!(#p::Format::#variant));
        calls.push(quote!(with_format(#format)));
    }
    if let Some(f) = &r.fix {
        let f = &f.value;
        calls.push(quote!(with_fix(#f)));
    }
    if let Some(reason) = &r.reason {
        let reason = &reason.value;
        calls.push(quote!(with_reason(#reason)));
    }
    if calls.is_empty() {
        return None;
    }
    Some(quote!(#p::Rules::NONE #(.#calls)*))
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                return proc_macro2::TokenTree::Group(group);
            }
            tt.set_span(span);
            tt
        })
        .collect()
}
