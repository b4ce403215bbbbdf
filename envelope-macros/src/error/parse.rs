//! Parse: `#[refuse(...)]` and `#[fault(...)]` as the user wrote them (`Raw*`, with spans).

use crate::diag::Accumulator;
use crate::diag::Error;
use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, LitStr};

/// `#[refuse(...)]` or `#[fault(...)]` as written.
#[derive(Default)]
pub(super) struct RawArgs {
    pub(super) code: Option<Expr>,
    pub(super) parameter: Option<LitStr>,
    pub(super) reason: Option<LitStr>,
    pub(super) accepted: Option<LitStr>,
    pub(super) fix: Option<LitStr>,
    pub(super) secret: Option<Span>,
    pub(super) operation: Option<LitStr>,
    /// Keys an error already told the user to write (after `message`, or a misspelt key), so
    /// they are not also reported missing.
    pub(super) covered: Vec<&'static str>,
}

pub(super) enum RawKind {
    Refuse,
    Fault,
}

pub(super) struct RawVariant<'a> {
    pub(super) variant: &'a syn::Variant,
    /// The attribute and what it says; `None` when the variant has neither.
    pub(super) attr: Option<(RawKind, &'a Attribute, RawArgs)>,
}

pub(super) const REFUSE_KEYS: &[&str] = &["code", "parameter", "reason", "accepted", "fix", "secret"];
pub(super) const FAULT_KEYS: &[&str] = &["code", "operation"];
pub(super) const REFUSE_SYNTAX: &str = "#[refuse(code = ..., parameter = \"...\", accepted = \"...\", fix = \"...\")]";
pub(super) const FAULT_SYNTAX: &str = "#[fault(code = ..., operation = \"...\")]";

pub(super) fn parse<'a>(variant: &'a syn::Variant, errors: &mut Accumulator) -> RawVariant<'a> {
    let mut attr = None;
    for a in &variant.attrs {
        let kind = if a.path().is_ident("refuse") {
            RawKind::Refuse
        } else if a.path().is_ident("fault") {
            RawKind::Fault
        } else {
            continue;
        };
        if attr.is_some() {
            errors.push(
                Error::custom("a variant is one refusal or one fault: keep one `#[refuse(...)]` or `#[fault(...)]`")
                    .with_span(a),
            );
            continue;
        }
        let args = parse_args(&kind, a, errors);
        attr = Some((kind, a, args));
    }
    RawVariant { variant, attr }
}

pub(super) fn parse_args(kind: &RawKind, attr: &Attribute, errors: &mut Accumulator) -> RawArgs {
    let (keys, syntax) = match kind {
        RawKind::Refuse => (REFUSE_KEYS, REFUSE_SYNTAX),
        RawKind::Fault => (FAULT_KEYS, FAULT_SYNTAX),
    };
    let mut args = RawArgs::default();
    if let syn::Meta::Path(p) = &attr.meta {
        errors.push(Error::custom(format!("write the parts: `{syntax}`")).with_span(p));
        return args;
    }
    let mut seen: Vec<String> = Vec::new();
    let parsed = attr.parse_nested_meta(|meta| {
        let key = meta.path.get_ident().map(|i| i.unraw().to_string()).unwrap_or_default();
        if seen.contains(&key) {
            errors.push(Error::custom(format!("`{key}` is given twice: keep one")).with_span(&meta.path));
        }
        seen.push(key.clone());
        let lit = |meta: &syn::meta::ParseNestedMeta| -> syn::Result<LitStr> { meta.value()?.parse() };
        match (kind, key.as_str()) {
            (_, "code") => args.code = Some(meta.value()?.parse()?),
            (RawKind::Refuse, "parameter") => args.parameter = Some(lit(&meta)?),
            (RawKind::Refuse, "reason") => args.reason = Some(lit(&meta)?),
            (RawKind::Refuse, "accepted") => args.accepted = Some(lit(&meta)?),
            (RawKind::Refuse, "fix") => args.fix = Some(lit(&meta)?),
            (RawKind::Refuse, "secret") => args.secret = Some(meta.path.span()),
            (RawKind::Fault, "operation") => args.operation = Some(lit(&meta)?),
            (_, other) => {
                let close = crate::suggest::closest(other, keys.iter().copied());
                let msg = match (kind, other) {
                    (RawKind::Refuse, "message") => {
                        args.covered.extend(["accepted", "fix"]);
                        "a refusal has no free-form `message`: its sentence is built from the rejected value, `reason`, `accepted` and `fix`; write those keys instead".to_owned()
                    }
                    (RawKind::Fault, "message") => {
                        args.covered.push("operation");
                        "a fault has no free-form `message`: its sentence is built from `operation` and the code's meaning and action; write `operation = \"...\"` instead".to_owned()
                    }
                    (RawKind::Fault, "parameter" | "reason" | "accepted" | "fix" | "secret") => format!(
                        "`{other}` belongs to a refusal, and a fault names only what failed: write `{FAULT_SYNTAX}`, or make the variant `{REFUSE_SYNTAX}`"
                    ),
                    (RawKind::Refuse, "operation") => format!(
                        "`operation` belongs to a fault, and a refusal names the parameter to fix: write `{REFUSE_SYNTAX}`, or make the variant `{FAULT_SYNTAX}`"
                    ),
                    _ => {
                        args.covered.extend(close);
                        let close = close.map(|k| format!("; did you mean `{k}`?")).unwrap_or_default();
                        format!("unknown key `{other}`: the keys are {}{close}", backticked(keys))
                    }
                };
                errors.push(Error::custom(msg).with_span(&meta.path));
                // Skip its value, so the keys after it are still read.
                if meta.input.peek(syn::Token![=]) {
                    let _: Expr = meta.value()?.parse()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let _: proc_macro2::Group = meta.input.parse()?;
                }
            }
        }
        Ok(())
    });
    if let Err(e) = parsed {
        errors.push(e.into());
    }
    args
}

pub(super) fn backticked(keys: &[&str]) -> String {
    let list: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    list.join(", ")
}
