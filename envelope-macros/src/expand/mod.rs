//! Expand: generate the tool declaration from a checked model. One module per part of the
//! generated code:
//!
//! - `rule_specs`: the `Rules` of one value (a builder call per rule set; a trait bound at the rule
//!   for a type the macro cannot name);
//! - `reader`: each parameter's `ParamSpec`, and the code that reads the arguments;
//! - `spec`: the tool's `ToolSpec` (annotations, error codes, output schema, guards);
//! - `call`: the call function's body (read, guard, run, answer).
//!
//! Generated code reaches envelope-core only through `crate::private::path()`.

mod call;
mod reader;
mod rule_specs;
mod spec;

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use crate::attr;
use crate::check;
use crate::model::Tool;
use call::call_body;
pub use reader::{Reader, reader, typed_reader};
use spec::spec_expr;

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
            let p = crate::private::path();
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
                    #vis fn tool() -> #p::Tool {
                        ::core::unimplemented!()
                    }
                }
            });
            out
        }
    }
}

/// The function, and beside it a unit struct of its name whose `tool()` gives its declaration.
fn emit(item: &ItemFn, t: &Tool) -> TokenStream {
    let p = crate::private::path();
    // The function takes owned values by design (they are read from JSON for it).
    let mut item = item.clone();
    item.attrs.push(syn::parse_quote!(#[allow(clippy::needless_pass_by_value)]));
    let item = &item;
    let fn_ident = &item.sig.ident;
    let vis = &item.vis;
    let name = &t.name;
    let (specs, body, preview_codes, typed) =
        call_body(t, item.sig.asyncness.is_some(), quote!(#fn_ident), quote!(), None);
    // A function whose parameter types all have the typed reading also reads them that way, first.
    let typed = typed.map(|call::TypedBody { reads, body: typed }| {
        quote! {
            .__typed(#reads, |__envelope_spec, __envelope_raw, __envelope_obj| { #typed })
        }
    });
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
            #vis fn tool() -> #p::Tool {
                let __envelope_call: #p::CallFn = |__envelope_spec, __envelope_obj| {
                    #body
                };
                #p::Tool::__new(#spec, __envelope_call)#sync_body #typed
            }
        }
    }
}

/// `#[tools]` on an impl block: each `#[tool]` method with `&self` becomes a tool of a shared
/// state, registered with `Toolbox::with_state(Arc::new(state))`.
/// A `confirm` preview is called with a reference to each of the tool's parameters (and to
/// the `Context`, if it takes one): a parameter it takes by value is named here, at its type,
/// rather than left to a type mismatch at `#[tools]`.
fn preview_takes_references(sig: &syn::Signature, errors: &mut crate::diag::Accumulator) {
    for input in &sig.inputs {
        let syn::FnArg::Typed(arg) = input else { continue };
        if matches!(*arg.ty, syn::Type::Reference(_)) {
            continue;
        }
        let ty = quote::ToTokens::to_token_stream(&arg.ty).to_string().replace(' ', "");
        let name = quote::ToTokens::to_token_stream(&arg.pat).to_string();
        errors.push(
            crate::diag::Error::custom(format!(
                "a `confirm` preview takes each parameter by reference, as the tool passes it: write `{name}: &{ty}`"
            ))
            .with_span(&arg.ty),
        );
    }
}

pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    let p = crate::private::path();
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
    // The methods a `confirm = ...` can name, for the shape of their parameters.
    let methods: Vec<syn::Signature> = item
        .items
        .iter()
        .filter_map(|i| match i {
            syn::ImplItem::Fn(f) => Some(f.sig.clone()),
            _ => None,
        })
        .collect();
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
        if let Some(preview) = checked.confirm.as_ref().and_then(|path| path.get_ident())
            && let Some(sig) = methods.iter().find(|m| m.ident == *preview)
        {
            preview_takes_references(sig, &mut errors);
        }
        f.sig = raw.item.sig.clone();
        f.attrs.push(syn::parse_quote!(#[allow(clippy::needless_pass_by_value)]));
        let method = &f.sig.ident;
        let (specs, body, preview_codes, typed) = call_body(
            &checked,
            f.sig.asyncness.is_some(),
            quote!(__envelope_this.#method),
            quote!(let __envelope_this = ::std::sync::Arc::clone(__envelope_this);),
            Some(&self_ty),
        );
        let spec = spec_expr(&checked, &specs, preview_codes);
        let sync_body = if f.sig.asyncness.is_some() { quote!() } else { quote!(.__sync_body()) };
        // A method whose parameter types all have the typed reading also reads them that way, first.
        let typed = typed.map(|call::TypedBody { reads, body: typed }| {
            quote! {
                .__method_typed(#reads, ::std::sync::Arc::clone(&__envelope_state), {
                    fn __envelope_typed<'a>(
                        __envelope_this: &::std::sync::Arc<#self_ty>,
                        __envelope_spec: &'a #p::ToolSpec,
                        __envelope_raw: #p::Raw<'_>,
                        __envelope_obj: #p::Input<'_>,
                    ) -> ::core::option::Option<#p::Outcome<'a>> {
                        #typed
                    }
                    __envelope_typed
                })
            }
        });
        tools.push(quote! {
            {
                fn __envelope_call<'a>(
                    __envelope_this: &::std::sync::Arc<#self_ty>,
                    __envelope_spec: &'a #p::ToolSpec,
                    __envelope_obj: #p::Input<'_>,
                ) -> #p::Outcome<'a> {
                    #body
                }
                #p::method_tool(#spec, ::std::sync::Arc::clone(&__envelope_state), __envelope_call)#sync_body #typed
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
                impl #p::ToolSet for #self_ty {
                    fn tools(_: ::std::sync::Arc<Self>) -> ::std::vec::Vec<#p::Tool> {
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
        impl #p::ToolSet for #self_ty {
            fn tools(__envelope_state: ::std::sync::Arc<Self>) -> ::std::vec::Vec<#p::Tool> {
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
                /// A tool.
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
                /// A tool.
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
                /// A tool.
                fn wipe(id: u32) -> u32 {
                    id
                }
            ),
        )
        .to_string();
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains(&format!("{} :: guarded", crate::private::path())), "{out}");
        assert!(out.contains("preview (& __envelope_0)"), "{out}");
        assert!(out.contains(". with_confirmation ()"), "{out}");
    }
}
