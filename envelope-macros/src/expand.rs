//! Expand: generate the tool declaration from a checked model.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;

use crate::attr;
use crate::check::{self, BoundV, ChoicesV, NumV, Param, Ret, RulesV};
use crate::ty::Kind;

pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(e) => {
            let err = syn::Error::new(e.span(), "`#[tool]` goes on a function");
            let mut out = err.to_compile_error();
            out.extend(input);
            return out;
        }
    };
    let mut errors = crate::diag::Error::accumulator();
    let raw = attr::parse(args, item, false, &mut errors);
    let checked = check::check(&raw, &mut errors);
    match errors.finish() {
        Ok(()) => emit(&raw.item, &checked),
        Err(e) => {
            // Still emit the function (without our attributes) and the `tool()` it would have,
            // so the user sees these errors and not a cascade of "cannot find".
            let item = &raw.item;
            let ident = &item.sig.ident;
            let vis = &item.vis;
            let mut out = e.write_errors();
            if item.sig.receiver().is_some() {
                // A method: no stub type can stand beside it inside its impl block.
                out.extend(quote!(#item));
                return out;
            }
            out.extend(quote! {
                #item
                #[allow(non_camel_case_types)]
                #vis struct #ident {}
                impl #ident {
                    #[allow(dead_code)]
                    #vis fn tool() -> ::envelope_core::Tool {
                        ::core::unimplemented!()
                    }
                }
            });
            out
        }
    }
}

fn num(n: NumV) -> TokenStream {
    match n {
        NumV::Int(i) => quote!(::envelope_core::__private010::Num::Int(#i)),
        NumV::Float(f) => quote!(::envelope_core::__private010::Num::Float(#f)),
    }
}

fn bound(b: BoundV) -> TokenStream {
    match b {
        BoundV::Unbounded => quote!(::envelope_core::__private010::Bound::Unbounded),
        BoundV::Incl(n) => {
            let n = num(n);
            quote!(::envelope_core::__private010::Bound::Inclusive(#n))
        }
        BoundV::Excl(n) => {
            let n = num(n);
            quote!(::envelope_core::__private010::Bound::Exclusive(#n))
        }
    }
}

fn opt(t: Option<TokenStream>) -> TokenStream {
    match t {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    }
}

/// The rules that are set, each as one builder call on `Rules::NONE` (none when none is set):
/// the expansion spells no field left `None` or `false`.
fn rules(r: &RulesV) -> Option<TokenStream> {
    let mut calls = Vec::new();
    // A rule on a type the macro cannot name: its value passes through the function whose
    // trait bound says whether the rule applies, spanned at the rule.
    let by_trait = |rule: &str, value: TokenStream| match r.by_trait.iter().find(|b| b.0 == rule) {
        Some((_, span, ty, f)) => {
            let f = format_ident!("{}", f);
            // The type's tokens take the rule's span too: the unmet bound is reported there.
            let ty = respan(quote!(#ty), *span);
            quote_spanned!(*span=> ::envelope_core::__private010::#f::<#ty, _>(#value))
        }
        None => value,
    };
    if let Some((lo, hi)) = r.range {
        let (lo, hi) = (bound(lo), bound(hi));
        let range = by_trait("range", quote!(::envelope_core::__private010::Range::new(#lo, #hi)));
        calls.push(quote!(with_range(#range)));
    }
    if let Some(step) = r.multiple_of {
        let step = by_trait("multiple_of", num(step));
        calls.push(quote!(with_multiple_of(#step)));
    }
    if let Some(c) = &r.choices {
        let c = match c {
            ChoicesV::Str(v) => quote!(::envelope_core::__private010::Choices::Str(&[#(#v),*])),
            ChoicesV::Int(v) => quote!(::envelope_core::__private010::Choices::Int(&[#(#v),*])),
        };
        calls.push(quote!(with_choices(#c)));
    }
    if r.secret {
        calls.push(quote!(with_secret()));
    }
    if let Some((min, max, unit)) = r.length {
        let max = max.map_or_else(|| quote!(::core::primitive::usize::MAX), |m| quote!(#m));
        let unit = format_ident!("{}", unit);
        calls.push(
            quote!(with_length(::envelope_core::__private010::Length::new(#min, #max, ::envelope_core::__private010::Unit::#unit))),
        );
    }
    if let Some((src, example)) = &r.pattern {
        let example = opt(example.as_ref().map(|e| quote!(#e)));
        calls.push(quote!(with_pattern(::envelope_core::__private010::Pattern::new(#src, #example))));
    }
    if let Some(items) = &r.items {
        let items = rules(items).unwrap_or_else(|| quote!(::envelope_core::__private010::Rules::NONE));
        calls.push(quote!(with_items(#items)));
    }
    if r.ignore_case {
        calls.push(quote!(with_ignore_case()));
    }
    if let Some(f) = r.format {
        let variant = format_ident!(
            "{}",
            match f {
                "date" => "Date",
                "date-time" => "DateTime",
                "uuid" => "Uuid",
                "email" => "Email",
                _ => "Uri",
            }
        );
        calls.push(quote!(with_format(::envelope_core::__private010::Format::#variant)));
    }
    if let Some(f) = &r.fix {
        calls.push(quote!(with_fix(#f)));
    }
    if let Some(reason) = &r.reason {
        calls.push(quote!(with_reason(#reason)));
    }
    if calls.is_empty() {
        return None;
    }
    Some(quote!(::envelope_core::__private010::Rules::NONE #(.#calls)*))
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
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

fn param_spec(p: &Param) -> TokenStream {
    let name = &p.name;
    let desc = &p.description;
    let ty = &p.ty;
    let required = !p.optional && p.default.is_none();
    let mut calls = Vec::new();
    if let Some(d) = &p.default {
        let e = &d.expr;
        calls.push(quote_spanned!(d.span=> with_default(::envelope_core::__private010::json(#e))));
    }
    if let Some(rules) = rules(&p.rules) {
        calls.push(quote!(with_rules(#rules)));
    }
    if !p.requires.is_empty() {
        let requires = p.requires.iter().map(|r| {
            let when = opt(r.when.as_ref().map(|w| quote!(::envelope_core::__private010::json(#w))));
            let then = r.then.iter().map(|(n, v)| {
                let v = opt(v.as_ref().map(|v| quote!(::envelope_core::__private010::json(#v))));
                quote!((#n, #v))
            });
            quote!(::envelope_core::__private010::Requires::new(#when, ::std::vec![#(#then),*]))
        });
        calls.push(quote!(with_requires(::std::vec![#(#requires),*])));
    }
    if !p.excludes.is_empty() {
        let excludes = &p.excludes;
        calls.push(quote!(with_excludes(::std::vec![#(#excludes),*])));
    }
    quote! {
        ::envelope_core::__private010::ParamSpec::new(
            #name, #desc, <#ty as ::envelope_core::__private010::FromArg>::ty(), #required
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

fn hint(on: Option<bool>) -> TokenStream {
    match on {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    }
}

/// The `ToolSpec` expression of a checked tool. `preview_codes`: the codes of a confirm tool's
/// preview function's error type.
fn spec_expr(t: &check::Tool, specs: &[TokenStream], preview_codes: Option<TokenStream>) -> TokenStream {
    let name = &t.name;
    let description = &t.description;
    let strict = t.strict;
    let (ro, de, id, ow) = (hint(t.read_only), hint(t.destructive), hint(t.idempotent), hint(t.open_world));
    let timeout = t.timeout_ms.is_some();
    let output_schema = t
        .output_schema
        .as_ref()
        .map(|p| quote_spanned!(syn::spanned::Spanned::span(p)=> #p as fn() -> ::envelope_core::__private010::Value));
    let declared = match &t.error_type {
        Some(e) => quote_spanned!(t.ret_span=> <#e as ::envelope_core::__private010::ToolError>::CODES),
        None => quote!(&[]),
    };
    let confirm = t.confirm.is_some();
    let key = t.idempotency_key;
    let error_codes = if confirm || key {
        let preview = preview_codes.unwrap_or_else(|| quote!(&[]));
        quote!(::envelope_core::__private010::guarded_codes(&[#declared, #preview], #timeout, #confirm, #key))
    } else {
        quote!(::envelope_core::__private010::error_codes(#declared, #timeout))
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
        calls.push(quote!(with_annotations(::envelope_core::__private010::Annotations::new(#ro, #de, #id, #ow))));
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
        calls.push(quote!(with_rate_limit(::envelope_core::__private010::RateLimit::new(
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
        ::envelope_core::__private010::ToolSpec::new(#name, #description, ::std::vec![#(#specs),*], #error_codes)
            #(.#calls)*
    };
    // Without a declared `output_schema`, a return type that implements `JsonSchema` (feature
    // `schemars`) gives the schema of `data`: an autoref probe picks the typed impl when the
    // bound holds, and the one that gives none otherwise.
    match (&t.output_schema, &t.data_type) {
        (None, Some(data)) => quote! {
            {
                #[allow(unused_imports)]
                use ::envelope_core::__private010::{AnyData as _, TypedData as _};
                ::envelope_core::__private010::data_schema(
                    #spec,
                    (&::envelope_core::__private010::DataSchema::<#data>::new()).data_schema(),
                )
            }
        },
        _ => spec,
    }
}

/// How the preview function of a `#[tool(confirm = f)]` is called: `f(&a, &b)` for a function,
/// `this.f(&a, &b)` for a method (`receiver`: the `Arc` of the state).
fn preview_call(path: &syn::Path, receiver: Option<TokenStream>, args: &[TokenStream]) -> TokenStream {
    let span = syn::spanned::Spanned::span(path);
    match (receiver, path.get_ident()) {
        (Some(this), Some(ident)) => quote_spanned!(span=> #this.#ident(#(#args),*)),
        (Some(this), None) => quote_spanned!(span=> #path(&#this, #(#args),*)),
        (None, _) => quote_spanned!(span=> #path(#(#args),*)),
    }
}

/// The body of the generated call function: read the arguments, call `callee(locals)`.
/// `prelude` runs before an async call is boxed (to clone the state into the future).
/// `state`: the state type of a `#[tools]` method.
fn call_body(
    t: &check::Tool,
    asyncness: bool,
    callee: TokenStream,
    prelude: TokenStream,
    state: Option<&syn::Type>,
) -> (Vec<TokenStream>, TokenStream, Option<TokenStream>) {
    let refuse = quote!(return __envelope_args.refuse());
    let Reader { mut specs, mut takes, locals, refuse_with } = reader(&t.params, refuse.clone());
    let mut bound = locals.clone();
    if t.idempotency_key {
        let i = t.params.len();
        specs.push(quote!(::envelope_core::__private010::idempotency_key_param()));
        takes.extend(
            quote!(let __envelope_key = __envelope_args.take::<::core::option::Option<::std::string::String>>(#i);),
        );
        bound.push(format_ident!("__envelope_key"));
    }
    let refuse_with = if bound.len() == locals.len() {
        refuse_with
    } else {
        quote! {
            let (#(::core::option::Option::Some(#bound),)*) = (#(#bound,)*) else {
                #refuse;
            };
        }
    };
    // The context parameter takes its place among the arguments.
    let with_cx = |mut args: Vec<TokenStream>, cx: TokenStream| {
        if let Some((position, _)) = t.context {
            args.insert(position.min(args.len()), cx);
        }
        args
    };
    let cx_arg = match t.context {
        Some((_, true)) => quote!(&__envelope_cx),
        _ => quote!(__envelope_cx),
    };
    let args = with_cx(locals.iter().map(|l| quote!(#l)).collect(), cx_arg);
    let call = quote!(#callee(#(#args),*));
    let finish = match (&t.ret, &t.error_type) {
        // Naming the error type keeps a "not a tool error" diagnostic to one, at the type.
        (Ret::Result, Some(e)) => quote_spanned!(t.ret_span=> ::envelope_core::__private010::result::<_, #e>),
        (Ret::Result, None) => quote_spanned!(t.ret_span=> ::envelope_core::__private010::result),
        (Ret::Plain, _) => quote_spanned!(t.ret_span=> ::envelope_core::__private010::ok),
    };
    let name = &t.name;
    let guarded = t.confirm.is_some() || t.idempotency_key;
    // A guarded call's run is a closure that owns the state: clone it before, not inside.
    let (prelude_outer, prelude_inner) = if guarded { (prelude, quote!()) } else { (quote!(), prelude) };
    let run = if let (true, Some((ms, span))) = (asyncness, t.timeout_ms) {
        let timed = quote_spanned!(span=> ::envelope_core::__private010::with_timeout(::core::clone::Clone::clone(&__envelope_cx), #ms, #name, async move { #finish(#call.await) }));
        quote!(#prelude_inner ::envelope_core::__private010::pending(#timed))
    } else if asyncness {
        quote!(#prelude_inner ::envelope_core::__private010::pending(async move { #finish(#call.await) }))
    } else if guarded {
        quote!(::envelope_core::__private010::Outcome::Ready(#finish(#call)))
    } else if let Some((ms, span)) = t.timeout_ms {
        let timed = quote_spanned!(span=> ::envelope_core::__private010::sync_body_timed(__envelope_obj, ::core::clone::Clone::clone(&__envelope_cx), #ms, #name, move || #finish(#call)));
        quote!({ #prelude_inner #timed })
    } else {
        // The body may be left for the caller to run on a blocking thread: it owns what it uses.
        quote!({ #prelude_inner ::envelope_core::__private010::sync_body(__envelope_obj, move || #finish(#call)) })
    };
    let receiver = state.map(|_| quote!(__envelope_this));
    let mut preview_codes = None;
    let run = if guarded {
        let preview = match &t.confirm {
            Some(path) => {
                let refs = with_cx(locals.iter().map(|l| quote!(&#l)).collect(), quote!(&__envelope_cx));
                let called = preview_call(path, receiver.clone(), &refs);
                let span = syn::spanned::Spanned::span(path);
                // The preview's error type, named by a closure the compiler checks and nobody runs.
                let tys = t.params.iter().map(|p| &p.ty);
                let fields: Vec<TokenStream> = (0..t.params.len())
                    .map(|i| {
                        let i = syn::Index::from(i + usize::from(state.is_some()));
                        quote!(&__envelope_p.#i)
                    })
                    .collect();
                let (tuple, recv) = match state {
                    Some(s) => (quote!((::std::sync::Arc<#s>, #(#tys,)*)), Some(quote!(__envelope_p.0))),
                    None => (quote!((#(#tys,)*)), None),
                };
                let fields = with_cx(fields, quote!(&::envelope_core::Context::anonymous()));
                let probe = preview_call(path, recv, &fields);
                preview_codes = Some(quote_spanned! {span=>
                    ::envelope_core::__private010::preview_codes(|__envelope_p: &#tuple| ::envelope_core::__private010::preview_error(&#probe))
                });
                quote_spanned!(span=> ::envelope_core::__private010::Outcome::Ready(::envelope_core::__private010::result(#called)))
            }
            None => quote!(::envelope_core::__private010::no_preview()),
        };
        let key = if t.idempotency_key { quote!(__envelope_key) } else { quote!(::core::option::Option::None) };
        quote! {
            #prelude_outer
            ::envelope_core::__private010::guarded(#key, move |__envelope_step| match __envelope_step {
                ::envelope_core::__private010::Step::Preview => #preview,
                ::envelope_core::__private010::Step::Run => { #run }
            })
        }
    } else {
        run
    };
    let cx = if t.context.is_some() || t.timeout_ms.is_some() {
        quote!(let __envelope_cx = ::envelope_core::__private010::context(&__envelope_obj);)
    } else {
        quote!()
    };
    let body = quote! {
        #cx
        let mut __envelope_args = ::envelope_core::__private010::Args::new(__envelope_spec, __envelope_obj);
        #takes
        #refuse_with
        if let ::core::option::Option::Some(__envelope_refusal) = __envelope_args.unknown() {
            return __envelope_refusal;
        }
        #run
    };
    (specs, body, preview_codes)
}

fn emit(item: &ItemFn, t: &check::Tool) -> TokenStream {
    // The function takes owned values by design (they are read from JSON for it).
    let mut item = item.clone();
    item.attrs.push(syn::parse_quote!(#[allow(clippy::needless_pass_by_value)]));
    let item = &item;
    let fn_ident = &item.sig.ident;
    let vis = &item.vis;
    let name = &t.name;
    let (specs, body, preview_codes) = call_body(t, item.sig.asyncness.is_some(), quote!(#fn_ident), quote!(), None);
    let sync_body = if item.sig.asyncness.is_some() { quote!() } else { quote!(.__sync_body()) };
    let spec = spec_expr(t, &specs, preview_codes);
    let doc = format!("The `{name}` tool: `{fn_ident}::tool()` gives its declaration for a `Toolbox`.");
    quote! {
        #item

        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #vis struct #fn_ident {}

        #[automatically_derived]
        impl #fn_ident {
            /// The tool's declaration: name, description, parameters and rules, and the code that
            /// reads its arguments and calls it.
            #[must_use]
            #vis fn tool() -> ::envelope_core::Tool {
                let __envelope_call: ::envelope_core::__private010::CallFn = |__envelope_spec, __envelope_obj| {
                    #body
                };
                ::envelope_core::__private010::Tool::__new(#spec, __envelope_call)#sync_body
            }
        }
    }
}

/// `#[tools]` on an impl block: each `#[tool]` method with `&self` becomes a tool of a shared
/// state, registered with `Toolbox::with_state(Arc::new(state))`.
pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: syn::ItemImpl = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(e) => {
            let mut out =
                syn::Error::new(e.span(), "`#[tools]` goes on an impl block whose `#[tool]` methods take `&self`")
                    .to_compile_error();
            out.extend(input);
            return out;
        }
    };
    let mut errors = crate::diag::Error::accumulator();
    if !args.is_empty() {
        errors.push(
            crate::diag::Error::custom("`#[tools]` takes no arguments; put flags on each `#[tool(...)]`")
                .with_span(&args),
        );
    }
    if !item.generics.params.is_empty() || item.trait_.is_some() {
        errors.push(
            crate::diag::Error::custom("`#[tools]` goes on an inherent impl block of a concrete type")
                .with_span(&item.self_ty),
        );
    }
    let self_ty = item.self_ty.clone();
    let mut tools = Vec::new();
    for impl_item in &mut item.items {
        let syn::ImplItem::Fn(f) = impl_item else { continue };
        let Some(pos) = f.attrs.iter().position(|a| a.path().is_ident("tool")) else { continue };
        let attr = f.attrs.remove(pos);
        let tool_args = match &attr.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(l) => l.tokens.clone(),
            syn::Meta::NameValue(nv) => {
                errors.push(crate::diag::Error::custom("write `#[tool]` or `#[tool(flags)]`").with_span(nv));
                continue;
            }
        };
        let as_fn = ItemFn {
            attrs: f.attrs.clone(),
            vis: f.vis.clone(),
            modifiers: f.modifiers.clone(),
            sig: f.sig.clone(),
            block: Box::new(f.block.clone()),
        };
        let raw = attr::parse(tool_args, as_fn, true, &mut errors);
        let checked = check::check(&raw, &mut errors);
        f.sig = raw.item.sig.clone();
        f.attrs.push(syn::parse_quote!(#[allow(clippy::needless_pass_by_value)]));
        let method = &f.sig.ident;
        let (specs, body, preview_codes) = call_body(
            &checked,
            f.sig.asyncness.is_some(),
            quote!(__envelope_this.#method),
            quote!(let __envelope_this = ::std::sync::Arc::clone(__envelope_this);),
            Some(&self_ty),
        );
        let spec = spec_expr(&checked, &specs, preview_codes);
        let sync_body = if f.sig.asyncness.is_some() { quote!() } else { quote!(.__sync_body()) };
        tools.push(quote! {
            {
                fn __envelope_call<'a>(
                    __envelope_this: &::std::sync::Arc<#self_ty>,
                    __envelope_spec: &'a ::envelope_core::__private010::ToolSpec,
                    __envelope_obj: ::envelope_core::__private010::Input<'a>,
                ) -> ::envelope_core::__private010::Outcome<'a> {
                    #body
                }
                ::envelope_core::__private010::method_tool(#spec, ::std::sync::Arc::clone(&__envelope_state), __envelope_call)#sync_body
            }
        });
    }
    if let Err(e) = errors.finish() {
        // Still implement `ToolSet` (for a type it can be implemented for), so the user sees
        // these errors and not a second one where the state is registered.
        let mut out = e.write_errors();
        out.extend(quote!(#item));
        if item.generics.params.is_empty() && item.trait_.is_none() {
            out.extend(quote! {
                impl ::envelope_core::ToolSet for #self_ty {
                    fn tools(_: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::envelope_core::Tool> {
                        ::core::unimplemented!()
                    }
                }
            });
        }
        return out;
    }
    quote! {
        #item

        #[automatically_derived]
        impl ::envelope_core::ToolSet for #self_ty {
            fn tools(__envelope_state: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::envelope_core::Tool> {
                ::std::vec![#(#tools),*]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    /// The `compile_error!` messages of `#[tool(args)]` on `item`, in order.
    fn errors(args: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> Vec<String> {
        let out = super::tool(args, item).to_string();
        out.split("compile_error ! {").skip(1).filter_map(|e| e.split('"').nth(1).map(str::to_owned)).collect()
    }

    #[test]
    fn confirm_and_idempotency_key_together_are_refused() {
        let errs = errors(
            quote!(confirm = preview, idempotency_key),
            quote!(
                fn drop_table(name: String) -> u32 {
                    0
                }
            ),
        );
        assert_eq!(
            errs,
            [
                "a `confirm` tool runs once per approval already: drop `idempotency_key`, or drop `confirm` for a write that needs no approval"
            ]
        );
    }

    #[test]
    fn a_parameter_named_idempotency_key_is_refused_with_the_flag() {
        let errs = errors(
            quote!(idempotency_key),
            quote!(
                fn write(idempotency_key: String) -> u32 {
                    0
                }
            ),
        );
        assert_eq!(
            errs,
            [
                "`#[tool(idempotency_key)]` adds the `idempotency_key` parameter itself: remove this parameter, or rename it"
            ]
        );
    }

    #[test]
    fn a_confirm_tool_expands_to_a_guarded_call_with_its_preview() {
        let out = super::tool(
            quote!(confirm = preview),
            quote!(
                fn wipe(id: u32) -> u32 {
                    id
                }
            ),
        )
        .to_string();
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("__private010 :: guarded"), "{out}");
        assert!(out.contains("preview (& __envelope_0)"), "{out}");
        assert!(out.contains(". with_confirmation ()"), "{out}");
    }
}
