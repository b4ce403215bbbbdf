//! The return type: plain data or a `Result` whose error type is a tool error (a free-form error
//! is refused), and the type of the answer's `data`.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, ReturnType, Type};

use crate::diag::{Accumulator, Error};
use crate::model::Ret;
use crate::ty::{is_boxed_dyn, is_named};

pub(super) fn check_return(output: &ReturnType, errors: &mut Accumulator) -> (Ret, Span) {
    let ReturnType::Type(_, ty) = output else { return (Ret::Plain, Span::call_site()) };
    let span = ty.span();
    const INSTEAD: &str = "return `Result<T, Refusal>` (a refusal names the parameter, the rejected value, the accepted set and the fix), `Result<T, Fault>`, or `Result<T, ToolFailure>`";
    if let Type::Reference(r) = &**ty {
        if is_named(&r.elem, "str") {
            errors.push(Error::custom(format!("a tool answers JSON data, and a bare `&str` reads as prose: return a type that implements `Serialize` for the answer, and for a failure {INSTEAD}")).with_span(ty));
        }
        return (Ret::Plain, span);
    }
    let Type::Path(tp) = &**ty else { return (Ret::Plain, span) };
    let Some(seg) = tp.path.segments.last() else { return (Ret::Plain, span) };
    let anyhow = tp.path.segments.iter().any(|s| s.ident == "anyhow" || s.ident == "eyre");
    if anyhow {
        errors.push(
            Error::custom(format!("an `anyhow` error is a free-form string to the model: {INSTEAD}")).with_span(ty),
        );
        return (Ret::Plain, span);
    }
    if seg.ident != "Result" {
        return (Ret::Plain, span);
    }
    let PathArguments::AngleBracketed(args) = &seg.arguments else { return (Ret::Plain, span) };
    let types: Vec<&Type> = args
        .args
        .iter()
        .filter_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    match types.as_slice() {
        [_, err] => {
            let anyhow_err = matches!(err, Type::Path(p) if p.path.segments.iter().any(|s| s.ident == "anyhow" || s.ident == "eyre"));
            let free_form = anyhow_err
                || is_named(err, "String")
                || matches!(err, Type::Reference(r) if is_named(&r.elem, "str"))
                || is_boxed_dyn(err);
            if free_form {
                errors.push(
                    Error::custom(format!("a free-form error reaches the model as a bare sentence: {INSTEAD}"))
                        .with_span(err),
                );
            }
            (Ret::Result, err.span())
        }
        _ => {
            errors.push(Error::custom(format!("name the error type of the `Result`: {INSTEAD}")).with_span(ty));
            (Ret::Plain, span)
        }
    }
}

/// The type of `data`: `T` of `-> T`, or of `-> Result<T, E>`; `None` for `impl Trait` (which
/// the expansion cannot name) or no return type.
pub(super) fn data_type(ret: &Ret, output: &ReturnType) -> Option<Type> {
    let ReturnType::Type(_, ty) = output else { return None };
    let data = match ret {
        Ret::Plain => &**ty,
        Ret::Result => {
            let Type::Path(tp) = &**ty else { return None };
            let PathArguments::AngleBracketed(args) = &tp.path.segments.last()?.arguments else { return None };
            args.args.iter().find_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })?
        }
    };
    let nameable = !matches!(data, Type::ImplTrait(_) | Type::Infer(_) | Type::Never(_));
    nameable.then(|| data.clone())
}
