//! Check: each raw variant into a [`Variant`] expansion can trust (its code, its templates and
//! the fields they name), every mistake reported.

use super::parse::{FAULT_SYNTAX, REFUSE_SYNTAX, RawKind, RawVariant, backticked};
use crate::diag::Accumulator;
use crate::diag::Error;
use quote::format_ident;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Expr, Fields, Ident, LitStr, Type};

/// A field of a variant, and the local its value is bound to.
pub(super) struct Field {
    pub(super) member: syn::Member,
    /// The name a template uses (`r#type` is `type`).
    pub(super) name: Option<String>,
    pub(super) ty: Type,
    pub(super) binding: Ident,
}

/// A string whose `{field}`s are the variant's fields: the format string with each placeholder
/// made positional, and the fields in order.
pub(super) struct Template {
    pub(super) lit: LitStr,
    pub(super) format: String,
    pub(super) args: Vec<usize>,
}

// One per variant of a user's enum, at compile time: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub(super) enum VariantKind {
    Refuse {
        code: Expr,
        parameter: Template,
        reason: Option<Template>,
        accepted: Template,
        fix: Template,
        /// The `rejected` field; `None` for a `secret` refusal.
        rejected: Option<usize>,
        /// The `suggestion` field, if the variant has one.
        suggestion: Option<usize>,
        /// The `retry_after` field (a `Duration`: `hints.retry_after_ms`), if the variant has one.
        retry_after: Option<usize>,
    },
    Fault {
        code: Expr,
        operation: Template,
    },
}

pub(super) struct Variant {
    pub(super) ident: Ident,
    pub(super) style: Style,
    pub(super) fields: Vec<Field>,
    pub(super) kind: VariantKind,
}

#[derive(Clone, Copy)]
pub(super) enum Style {
    Named,
    Unnamed,
    Unit,
}

pub(super) fn check(raw: &RawVariant<'_>, errors: &mut Accumulator) -> Option<Variant> {
    let v = raw.variant;
    let (style, fields) = fields_of(&v.fields);
    let Some((kind, attr, args)) = &raw.attr else {
        errors.push(
            Error::custom(format!(
                "`{}` has no code: mark it `{REFUSE_SYNTAX}` when the caller must change the request, or `{FAULT_SYNTAX}` when the server failed",
                v.ident
            ))
            .with_span(&v.ident),
        );
        return None;
    };
    let name = |n: &str| fields.iter().position(|f| f.name.as_deref() == Some(n));
    let code = args.code.clone();
    if code.is_none() {
        let example = match kind {
            RawKind::Refuse => "an `invalid` code, like `codes::NOT_FOUND` or a `Code` of your own",
            RawKind::Fault => "an `error` code, like `codes::BACKEND_ERROR` or a `Code` of your own",
        };
        errors.push(Error::custom(format!("add `code = ...`: {example}")).with_span(attr.path()));
    }
    let tpl = |lit: &LitStr, key: &str, errors: &mut Accumulator| template(lit, key, &v.ident, &fields, errors);
    let kind = match kind {
        RawKind::Refuse => {
            let need = |lit: &Option<LitStr>, key: &'static str, what: &str, errors: &mut Accumulator| match lit {
                Some(l) => tpl(l, key, errors),
                None => {
                    if !args.covered.contains(&key) {
                        errors.push(Error::custom(format!("{what}: add `{key} = \"...\"`")).with_span(attr.path()));
                    }
                    None
                }
            };
            let parameter = need(
                &args.parameter,
                "parameter",
                "a refusal names the parameter to fix, as the caller spells it",
                errors,
            );
            let accepted = need(&args.accepted, "accepted", "a refusal lists the accepted set", errors);
            let fix = need(&args.fix, "fix", "a refusal names the move that fixes the call", errors);
            let reason = args.reason.as_ref().and_then(|r| tpl(r, "reason", errors));
            let rejected = name("rejected");
            match (args.secret, rejected) {
                (None, None) => errors.push(
                    Error::custom(format!(
                        "a refusal quotes the value it rejects: give `{}` a field `rejected` holding the value as sent, like `{} {{ rejected: String }}`, or mark the refusal `secret`",
                        v.ident, v.ident
                    ))
                    .with_span(&v.ident),
                ),
                (Some(_), Some(i)) => errors.push(
                    Error::custom("a `secret` refusal never shows the value: remove the `rejected` field, or drop `secret`")
                        .with_span(&fields[i].member),
                ),
                _ => {}
            }
            VariantKind::Refuse {
                code: code?,
                parameter: parameter?,
                reason,
                accepted: accepted?,
                fix: fix?,
                rejected: if args.secret.is_some() { None } else { Some(rejected?) },
                suggestion: name("suggestion"),
                retry_after: name("retry_after"),
            }
        }
        RawKind::Fault => {
            let operation = match &args.operation {
                Some(l) => tpl(l, "operation", errors),
                None if args.covered.contains(&"operation") => None,
                None => {
                    errors.push(
                        Error::custom(
                            "a fault names what failed, in the caller's terms: add `operation = \"...\"`, like `operation = \"reading the registry\"`",
                        )
                        .with_span(attr.path()),
                    );
                    None
                }
            };
            VariantKind::Fault { code: code?, operation: operation? }
        }
    };
    Some(Variant { ident: v.ident.clone(), style, fields, kind })
}

pub(super) fn fields_of(fields: &Fields) -> (Style, Vec<Field>) {
    let style = match fields {
        Fields::Named(_) => Style::Named,
        Fields::Unnamed(_) => Style::Unnamed,
        Fields::Unit => Style::Unit,
    };
    let fields = fields
        .iter()
        .enumerate()
        .map(|(i, f)| match &f.ident {
            Some(id) => Field {
                member: syn::Member::Named(id.clone()),
                name: Some(id.unraw().to_string()),
                ty: f.ty.clone(),
                binding: format_ident!("__envelope_{}", id.unraw()),
            },
            None => Field {
                member: syn::Member::Unnamed(syn::Index {
                    index: u32::try_from(i).unwrap_or(u32::MAX),
                    span: f.ty.span(),
                }),
                name: None,
                ty: f.ty.clone(),
                binding: format_ident!("__envelope_{}", i),
            },
        })
        .collect();
    (style, fields)
}

/// Reads `{field}` placeholders; `{{` and `}}` are literal braces.
pub(super) fn template(
    lit: &LitStr,
    key: &str,
    variant: &Ident,
    fields: &[Field],
    errors: &mut Accumulator,
) -> Option<Template> {
    let text = lit.value();
    if text.trim().is_empty() {
        errors.push(Error::custom("this text is empty: write the words the caller reads").with_span(lit));
        return None;
    }
    let mut format = String::with_capacity(text.len());
    let mut args = Vec::new();
    let mut ok = true;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                format.push_str("{{");
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                format.push_str("}}");
            }
            '{' => {
                let mut name = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == '}' {
                        closed = true;
                        break;
                    }
                    name.push(c);
                }
                let is_ident = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                if !closed || !is_ident {
                    errors.push(
                        Error::custom(format!(
                            "`{{{name}` is not a placeholder: a placeholder names a field of `{variant}`, like `{{rejected}}`, with no format spec; write `{{{{` and `}}}}` for literal braces"
                        ))
                        .with_span(lit),
                    );
                    ok = false;
                    continue;
                }
                match fields.iter().position(|f| f.name.as_deref() == Some(name.as_str())) {
                    Some(i) => {
                        format.push_str("{}");
                        args.push(i);
                    }
                    None => {
                        let names: Vec<&str> = fields.iter().filter_map(|f| f.name.as_deref()).collect();
                        let close = crate::suggest::closest(&name, names.iter().copied())
                            .map(|n| format!("; did you mean `{{{n}}}`?"))
                            .unwrap_or_default();
                        let fields_words = if names.is_empty() {
                            format!(
                                "`{variant}` has no named fields: add `{name}` to it, like `{variant} {{ {name}: String }}`"
                            )
                        } else {
                            format!("its fields are {}{close}", backticked(&names))
                        };
                        errors.push(
                            Error::custom(format!(
                                "`{{{name}}}` is not a field of `{variant}`: a template interpolates the variant's fields and nothing else; {fields_words}"
                            ))
                            .with_span(lit),
                        );
                        ok = false;
                    }
                }
            }
            '}' => {
                errors.push(Error::custom("a lone `}` in a template: write `}}` for a literal brace").with_span(lit));
                ok = false;
            }
            c => format.push(c),
        }
    }
    if ok && args.len() == 1 && format == "{}" {
        let name = fields[args[0]].name.as_deref().unwrap_or_default();
        let example = match key {
            "parameter" => format!("items[{{{name}}}]"),
            "reason" => format!("is held by {{{name}}}"),
            "accepted" => format!("one of {{{name}}}"),
            "operation" => format!("reading order {{{name}}}"),
            _ => format!("Choose another domain, like {{{name}}}."),
        };
        errors.push(
            Error::custom(format!(
                "`{key} = \"{{{name}}}\"` is a field's text and nothing else, a free-form string by another name: write the words here and interpolate only values, like `{key} = \"{example}\"`"
            ))
            .with_span(lit),
        );
        ok = false;
    }
    ok.then(|| Template { lit: lit.clone(), format, args })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    fn fields(names: &[&str]) -> Vec<Field> {
        names
            .iter()
            .map(|n| Field {
                member: syn::Member::Named(format_ident!("{}", n)),
                name: Some((*n).to_owned()),
                ty: syn::parse_quote!(String),
                binding: format_ident!("__envelope_{}", n),
            })
            .collect()
    }

    fn read(text: &str, names: &[&str]) -> Result<(String, Vec<usize>), String> {
        let mut errors = Error::accumulator();
        let lit = LitStr::new(text, Span::call_site());
        let t = template(&lit, "fix", &format_ident!("Taken"), &fields(names), &mut errors);
        match errors.finish() {
            Ok(()) => Ok(t.map(|t| (t.format, t.args)).expect("a template when there is no error")),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn placeholders_become_positional_and_braces_stay_escaped() {
        assert_eq!(
            read("Send {{1..={max}}}, like {max} or {min}.", &["min", "max"]),
            Ok(("Send {{1..={}}}, like {} or {}.".to_owned(), vec![1, 1, 0]))
        );
        assert_eq!(read("Send a value.", &[]), Ok(("Send a value.".to_owned(), vec![])));
    }

    #[test]
    fn what_is_not_a_field_is_refused() {
        let e = read("Send {maxx}.", &["max"]).unwrap_err();
        assert!(e.contains("`{maxx}` is not a field of `Taken`") && e.contains("did you mean `{max}`?"), "{e}");
        assert!(read("Send {0}.", &["max"]).unwrap_err().contains("is not a placeholder"));
        assert!(read("Send {max:?}.", &["max"]).unwrap_err().contains("is not a placeholder"));
        assert!(read("Send {max.", &["max"]).unwrap_err().contains("is not a placeholder"));
        assert!(read("Send max}.", &["max"]).unwrap_err().contains("a lone `}`"));
        assert!(read("{max}", &["max"]).unwrap_err().contains("is a field's text and nothing else"));
        assert!(read("  ", &[]).unwrap_err().contains("this text is empty"));
    }
}
