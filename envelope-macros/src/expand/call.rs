//! The body of the generated call function: read the arguments, refuse or guard, call the
//! function, make its return value an envelope (with a timeout when declared).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::reader::{Reader, reader, typed_reader};
use crate::model::{Ret, Tool};

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
pub(super) fn call_body(
    t: &Tool,
    asyncness: bool,
    callee: TokenStream,
    prelude: TokenStream,
    state: Option<&syn::Type>,
) -> (Vec<TokenStream>, TokenStream, Option<TokenStream>, Option<TypedBody>) {
    let p = &crate::private::path();
    let refuse = quote!(return __envelope_args.refuse());
    let Reader { mut specs, mut takes, locals, refuse_with } = reader(&t.params, refuse.clone());
    let mut bound = locals.clone();
    if t.idempotency_key {
        let i = t.params.len();
        specs.push(quote!(#p::idempotency_key_param()));
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
        Some((_, true)) => quote!(&__envelope_reading),
        _ => quote!(__envelope_reading),
    };
    let args = with_cx(locals.iter().map(|l| quote!(#l)).collect(), cx_arg);
    let call = quote!(#callee(#(#args),*));
    let at_ret = crate::private::path_at(t.ret_span);
    let finish = match (&t.ret, &t.error_type) {
        // Naming the error type keeps a "not a tool error" diagnostic to one, at the type.
        (Ret::Result, Some(e)) => quote_spanned!(t.ret_span=> <#e as #at_ret::ToolError>::result_envelope),
        (Ret::Result, None) => quote_spanned!(t.ret_span=> #at_ret::result),
        (Ret::Plain, _) => quote_spanned!(t.ret_span=> #at_ret::ok),
    };
    let name = &t.name;
    let guarded = t.confirm.is_some() || t.idempotency_key;
    // A guarded call's run is a closure that owns the state: clone it before, not inside.
    let (prelude_outer, prelude_inner) = if guarded { (prelude, quote!()) } else { (quote!(), prelude) };
    let run = if let (true, Some((ms, span))) = (asyncness, t.timeout_ms) {
        let at = crate::private::path_at(span);
        let timed = quote_spanned!(span=> #at::with_timeout(::core::clone::Clone::clone(&__envelope_reading), #ms, #name, async move { #finish(#call.await) }));
        quote!(#prelude_inner #p::pending(#timed))
    } else if asyncness {
        quote!(#prelude_inner #p::pending(async move { #finish(#call.await) }))
    } else if guarded {
        quote!(#p::Outcome::Ready(#finish(#call)))
    } else if let Some((ms, span)) = t.timeout_ms {
        let at = crate::private::path_at(span);
        let timed = quote_spanned!(span=> #at::sync_body_timed(__envelope_obj, ::core::clone::Clone::clone(&__envelope_reading), #ms, #name, move || #finish(#call)));
        quote!({ #prelude_inner #timed })
    } else {
        // The body may be left for the caller to run on a blocking thread: it owns what it uses.
        let body = quote!(#p::sync_body(__envelope_obj, move || #finish(#call)));
        if prelude_inner.is_empty() { body } else { quote!({ #prelude_inner #body }) }
    };
    let receiver = state.map(|_| quote!(__envelope_this));
    let mut preview_codes = None;
    let run = if guarded {
        let preview = match &t.confirm {
            Some(path) => {
                let refs = with_cx(locals.iter().map(|l| quote!(&#l)).collect(), quote!(&__envelope_reading));
                let called = preview_call(path, receiver.clone(), &refs);
                let span = syn::spanned::Spanned::span(path);
                let at = crate::private::path_at(span);
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
                let fields = with_cx(fields, quote!(&#p::Context::anonymous()));
                let probe = preview_call(path, recv, &fields);
                preview_codes = Some(quote_spanned! {span=>
                    #at::preview_codes(|__envelope_p: &#tuple| #at::preview_error(&#probe))
                });
                quote_spanned!(span=> #at::Outcome::Ready(#at::result(#called)))
            }
            None => quote!(#p::no_preview()),
        };
        let key = if t.idempotency_key { quote!(__envelope_key) } else { quote!(::core::option::Option::None) };
        quote! {
            #prelude_outer
            #p::guarded(#key, move |__envelope_step| match __envelope_step {
                #p::Step::Preview => #preview,
                #p::Step::Run => { #run }
            })
        }
    } else {
        run
    };
    let cx = if t.context.is_some() || t.timeout_ms.is_some() {
        quote!(let __envelope_reading = #p::context(&__envelope_obj);)
    } else {
        quote!()
    };
    let typed = (!guarded).then(|| typed_body(t, &locals, &cx, &run)).flatten();
    let body = quote! {
        #cx
        let mut __envelope_args = #p::Args::new(__envelope_spec, __envelope_obj);
        #takes
        #refuse_with
        if let ::core::option::Option::Some(__envelope_refusal) = __envelope_args.unknown() {
            return __envelope_refusal;
        }
        #run
    };
    (specs, body, preview_codes, typed)
}

/// A tool's typed reading: whether its parameter types have it (a `bool` expression), and the
/// body of its `TypedFn`.
pub(super) struct TypedBody {
    pub reads: TokenStream,
    pub body: TokenStream,
}

/// The typed reading of a tool (see [`typed_reader`]): whether its types have it, and the body
/// of a `TypedFn` that reads the arguments into the parameters' types with `read_typed`
/// (declining with `None` wherever the general reading must read them) and runs `run` as the
/// call function does. `None` for a tool that cannot have it.
fn typed_body(t: &Tool, locals: &[proc_macro2::Ident], cx: &TokenStream, run: &TokenStream) -> Option<TypedBody> {
    let typed = typed_reader(&t.params, locals, None)?;
    let (reads, read) = (typed.reads(), typed.read_args());
    let binds = &typed.binds;
    let body = quote! {
        let __envelope_read = #read?;
        #(#binds)*
        #cx
        ::core::option::Option::Some({ #run })
    };
    Some(TypedBody { reads, body })
}
