//! `#[derive(ToolError)]`: an error enum whose every variant is a refusal or a fault, built from
//! parts, never from a free-form sentence. Three stages, as for `#[tool]`: parse (`Raw*`, what
//! the user wrote, with spans) → check (`Variant`, a model expansion can trust) → expand.

use crate::diag::Accumulator;
use crate::diag::Error;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Expr, Fields, Ident, LitStr, Type};

pub fn derive(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Error::accumulator();
    let raw: Vec<RawVariant<'_>> = match &input.data {
        Data::Enum(e) => e.variants.iter().map(|v| parse(v, &mut errors)).collect(),
        Data::Struct(s) => {
            errors.push(not_an_enum(s.struct_token.span()));
            Vec::new()
        }
        Data::Union(u) => {
            errors.push(not_an_enum(u.union_token.span()));
            Vec::new()
        }
    };
    let variants: Vec<Variant> = raw.iter().filter_map(|v| check(v, &mut errors)).collect();
    match errors.finish() {
        Ok(()) => expand(&input, &variants),
        Err(e) => {
            // Still implement the trait, so the user sees these errors and not a second one at
            // every tool that returns this type.
            let codes = raw.iter().filter_map(|v| v.attr.as_ref().and_then(|(_, _, a)| a.code.as_ref()));
            let mut out = e.write_errors();
            out.extend(fallback(&input, codes));
            out
        }
    }
}

fn not_an_enum(span: Span) -> Error {
    Error::custom(
        "`#[derive(ToolError)]` goes on an enum whose variants are each a refusal (`#[refuse(...)]`) or a fault (`#[fault(...)]`)",
    )
    .with_span(&span)
}

// ---------------------------------------------------------------------------------------------
// Parse

/// `#[refuse(...)]` or `#[fault(...)]` as written.
#[derive(Default)]
struct RawArgs {
    code: Option<Expr>,
    parameter: Option<LitStr>,
    reason: Option<LitStr>,
    accepted: Option<LitStr>,
    fix: Option<LitStr>,
    secret: Option<Span>,
    operation: Option<LitStr>,
    /// Keys an error already told the user to write (after `message`, or a misspelt key), so
    /// they are not also reported missing.
    covered: Vec<&'static str>,
}

enum RawKind {
    Refuse,
    Fault,
}

struct RawVariant<'a> {
    variant: &'a syn::Variant,
    /// The attribute and what it says; `None` when the variant has neither.
    attr: Option<(RawKind, &'a Attribute, RawArgs)>,
}

const REFUSE_KEYS: &[&str] = &["code", "parameter", "reason", "accepted", "fix", "secret"];
const FAULT_KEYS: &[&str] = &["code", "operation"];
const REFUSE_SYNTAX: &str = "#[refuse(code = ..., parameter = \"...\", accepted = \"...\", fix = \"...\")]";
const FAULT_SYNTAX: &str = "#[fault(code = ..., operation = \"...\")]";

fn parse<'a>(variant: &'a syn::Variant, errors: &mut Accumulator) -> RawVariant<'a> {
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

fn parse_args(kind: &RawKind, attr: &Attribute, errors: &mut Accumulator) -> RawArgs {
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

fn backticked(keys: &[&str]) -> String {
    let list: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    list.join(", ")
}

// ---------------------------------------------------------------------------------------------
// Check

/// A field of a variant, and the local its value is bound to.
struct Field {
    member: syn::Member,
    /// The name a template uses (`r#type` is `type`).
    name: Option<String>,
    ty: Type,
    binding: Ident,
}

/// A string whose `{field}`s are the variant's fields: the format string with each placeholder
/// made positional, and the fields in order.
struct Template {
    lit: LitStr,
    format: String,
    args: Vec<usize>,
}

// One per variant of a user's enum, at compile time: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Kind {
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

struct Variant {
    ident: Ident,
    style: Style,
    fields: Vec<Field>,
    kind: Kind,
}

#[derive(Clone, Copy)]
enum Style {
    Named,
    Unnamed,
    Unit,
}

fn check(raw: &RawVariant<'_>, errors: &mut Accumulator) -> Option<Variant> {
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
            Kind::Refuse {
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
            Kind::Fault { code: code?, operation: operation? }
        }
    };
    Some(Variant { ident: v.ident.clone(), style, fields, kind })
}

fn fields_of(fields: &Fields) -> (Style, Vec<Field>) {
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
fn template(lit: &LitStr, key: &str, variant: &Ident, fields: &[Field], errors: &mut Accumulator) -> Option<Template> {
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

// ---------------------------------------------------------------------------------------------
// Expand

fn expand(input: &DeriveInput, variants: &[Variant]) -> TokenStream {
    let p = crate::private::path();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let codes = variants.iter().map(|v| match &v.kind {
        Kind::Refuse { code, .. } | Kind::Fault { code, .. } => code,
    });
    let checks = variants.iter().map(check_code);
    let arms = variants.iter().map(arm);
    quote! {
        #(#checks)*

        #[automatically_derived]
        impl #impl_generics #p::ToolError for #ident #ty_generics #where_clause {
            const CODES: &'static [#p::Code] = {
                const __ENVELOPE_ALL: &[#p::Code] = &[#(#codes),*];
                const __ENVELOPE_N: ::core::primitive::usize = #p::distinct_count(__ENVELOPE_ALL);
                const __ENVELOPE_DISTINCT: [#p::Code; __ENVELOPE_N] =
                    #p::distinct(__ENVELOPE_ALL);
                &__ENVELOPE_DISTINCT
            };

            fn into_envelope(self) -> #p::Envelope {
                match self {
                    #(#arms)*
                }
            }
        }
    }
}

/// A compile-time check that the code suits the variant: `invalid` for a refusal, `error` for a
/// fault, and a meaning and an action for the manifest and the fault's sentence.
fn check_code(v: &Variant) -> TokenStream {
    let (code, status, msg) = match &v.kind {
        Kind::Refuse { code, .. } => (
            code,
            quote!(Invalid),
            "`#[refuse]` takes a code whose status is `invalid` (the caller must change the request); for a failure of the server use `#[fault]`",
        ),
        Kind::Fault { code, .. } => (
            code,
            quote!(Error),
            "`#[fault]` takes a code whose status is `error` (the server failed); for a request the caller must change use `#[refuse]`",
        ),
    };
    // The last token names the code (`BACKEND_ERROR` of `codes::BACKEND_ERROR`).
    let span = quote::ToTokens::to_token_stream(code).into_iter().last().map_or_else(|| code.span(), |t| t.span());
    let p = crate::private::path_at(span);
    quote_spanned! {span=>
        const _: () = {
            let __envelope_code: #p::Code = #code;
            if !::core::matches!(__envelope_code.status(), #p::Status::#status) {
                ::core::panic!(#msg);
            }
            if __envelope_code.meaning().is_empty() || __envelope_code.action().is_empty() {
                ::core::panic!("this code has no meaning or no action: declare it with `.with_meaning(\"...\")` and `.with_action(\"...\")`, which the manifest lists for clients");
            }
        };
    }
}

fn arm(v: &Variant) -> TokenStream {
    let p = crate::private::path();
    let ident = &v.ident;
    let used: Vec<usize> = match &v.kind {
        Kind::Refuse { parameter, reason, accepted, fix, rejected, suggestion, retry_after, .. } => {
            let mut u: Vec<usize> = [Some(parameter), reason.as_ref(), Some(accepted), Some(fix)]
                .into_iter()
                .flatten()
                .flat_map(|t| t.args.iter().copied())
                .chain(*rejected)
                .chain(*suggestion)
                .chain(*retry_after)
                .collect();
            u.sort_unstable();
            u.dedup();
            u
        }
        Kind::Fault { operation, .. } => {
            let mut u = operation.args.clone();
            u.sort_unstable();
            u.dedup();
            u
        }
    };
    let pattern = match v.style {
        Style::Unit => quote!(Self::#ident),
        Style::Named | Style::Unnamed => {
            let binds = used.iter().map(|&i| {
                let (m, b) = (&v.fields[i].member, &v.fields[i].binding);
                quote!(#m: #b)
            });
            quote!(Self::#ident { #(#binds,)* .. })
        }
    };
    let body = match &v.kind {
        Kind::Refuse { code, parameter, reason, accepted, fix, rejected, suggestion, retry_after } => {
            let text = |t: &Template| text(t, &v.fields);
            let parameter = text(parameter);
            let rejected = match rejected {
                Some(i) => {
                    let f = &v.fields[*i];
                    let b = &f.binding;
                    quote_spanned!(f.ty.span()=> .rejected(&#b))
                }
                None => quote!(.rejected_secret()),
            };
            let reason = reason.as_ref().map(|r| {
                let r = text(r);
                quote!(.reason(#r))
            });
            let (accepted, fix) = (text(accepted), text(fix));
            let suggestion = suggestion.map(|i| {
                let f = &v.fields[i];
                let b = &f.binding;
                quote_spanned!(f.ty.span()=> .suggestion(::std::string::ToString::to_string(&#b)))
            });
            let retry_after = retry_after.map(|i| {
                let f = &v.fields[i];
                let b = &f.binding;
                quote_spanned!(f.ty.span()=> .with_retry_after(::core::convert::Into::<::core::time::Duration>::into(#b)))
            });
            quote! {
                let __envelope_refusal = #p::Refusal::parameter(#parameter)
                    #rejected
                    #reason
                    .accepted(#accepted)
                    .fix(#fix)
                    #suggestion
                    .build()
                    #retry_after;
                <#p::Refusal as #p::ToolError>::into_envelope(
                    #p::refusal_with_code(__envelope_refusal, #code),
                )
            }
        }
        Kind::Fault { code, operation } => {
            let operation = text(operation, &v.fields);
            quote! {
                <#p::Fault as #p::ToolError>::into_envelope(
                    #p::fault_with_code(#code, &*#operation),
                )
            }
        }
    };
    quote!(#pattern => { #body })
}

/// The template as an expression: the literal itself, or `format!` over the bound fields.
fn text(t: &Template, fields: &[Field]) -> TokenStream {
    let lit = &t.lit;
    if t.args.is_empty() && t.format == lit.value() {
        return quote!(#lit);
    }
    let format = LitStr::new(&t.format, lit.span());
    let args = t.args.iter().map(|&i| {
        let mut b = fields[i].binding.clone();
        // A field without `Display` is reported at the template that names it.
        b.set_span(lit.span());
        b
    });
    quote!(::std::format!(#format, #(#args),*))
}

/// What is emitted next to the errors: the trait, so uses of the type report nothing more, and
/// the codes that were read, so their imports are not reported unused.
fn fallback<'a>(input: &DeriveInput, codes: impl Iterator<Item = &'a Expr>) -> TokenStream {
    let p = crate::private::path();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        const _: &[#p::Code] = &[#(#codes),*];

        #[automatically_derived]
        impl #impl_generics #p::ToolError for #ident #ty_generics #where_clause {
            const CODES: &'static [#p::Code] = &[];
            fn into_envelope(self) -> #p::Envelope {
                ::core::unreachable!()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
