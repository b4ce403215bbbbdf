//! Parse: what the user wrote, with spans, before any check.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::{Flag, SpannedValue};
use proc_macro2::TokenStream;
use syn::{Attribute, Expr, ExprArray, ExprRange, FnArg, Ident, ItemFn, LitStr, Pat, Type};

/// `#[tool(...)]`.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct ToolArgs {
    /// Refuse lax coercions.
    pub strict: Flag,
    /// The tool's name, when not the function's.
    pub name: Option<LitStr>,
    /// A human title.
    pub title: Option<LitStr>,
    pub read_only: Flag,
    pub destructive: Flag,
    pub idempotent: Flag,
    pub open_world: Flag,
}

/// `#[validate(...)]` on a parameter.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct ValidateArgs {
    pub range: Option<ExprRange>,
    pub choices: Option<ExprArray>,
    pub default: Option<SpannedValue<Verbatim>>,
    pub desc: Option<LitStr>,
    pub secret: Flag,
    pub length: Option<ExprRange>,
    pub byte_length: Option<ExprRange>,
    pub pattern: Option<LitStr>,
    pub example: Option<LitStr>,
    pub each: Option<SpannedValue<Box<ValidateArgs>>>,
}

/// An expression kept as written (darling would read a string literal as code).
#[derive(Debug)]
pub struct Verbatim(pub Expr);

impl FromMeta for Verbatim {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(Verbatim(expr.clone()))
    }
}

/// One parameter as written.
pub struct RawParam {
    pub ident: Ident,
    pub ty: Type,
    pub docs: Vec<String>,
    pub validate: ValidateArgs,
}

/// The function and everything written on it.
pub struct RawTool {
    pub args: ToolArgs,
    pub docs: Vec<String>,
    pub params: Vec<RawParam>,
    /// The function with `#[validate]` and doc attributes removed from its parameters.
    pub item: ItemFn,
}

pub fn parse(args: TokenStream, mut item: ItemFn, errors: &mut darling::error::Accumulator) -> RawTool {
    let tool_args = match NestedMeta::parse_meta_list(args) {
        Ok(list) => errors.handle(ToolArgs::from_list(&list)).unwrap_or_default(),
        Err(e) => {
            errors.push(e.into());
            ToolArgs::default()
        }
    };
    let docs = doc_lines(&item.attrs);
    let mut params = Vec::new();
    for input in &mut item.sig.inputs {
        let FnArg::Typed(pt) = input else {
            errors.push(
                darling::Error::custom("a `#[tool]` function takes no `self`; write a free function").with_span(input),
            );
            continue;
        };
        let mut validate = ValidateArgs::default();
        let mut seen_validate = false;
        for attr in &pt.attrs {
            if attr.path().is_ident("validate") {
                if seen_validate {
                    errors.push(
                        darling::Error::custom("put all rules in one `#[validate(...)]`, separated by commas")
                            .with_span(attr),
                    );
                    continue;
                }
                seen_validate = true;
                if let Some(v) = errors.handle(ValidateArgs::from_meta(&attr.meta)) {
                    validate = v;
                }
            }
        }
        let docs = doc_lines(&pt.attrs);
        pt.attrs.retain(|a| !a.path().is_ident("validate") && !a.path().is_ident("doc"));
        let ident = match &*pt.pat {
            Pat::Ident(pi) if pi.subpat.is_none() => pi.ident.clone(),
            other => {
                errors.push(
                    darling::Error::custom(
                        "a tool parameter is a plain name, like `hours_back: u32`; its name is the argument's name",
                    )
                    .with_span(other),
                );
                continue;
            }
        };
        params.push(RawParam { ident, ty: (*pt.ty).clone(), docs, validate });
    }
    RawTool { args: tool_args, docs, params, item }
}

/// The text of `///` comments (`#[doc = "..."]`), one entry per line.
fn doc_lines(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Joins doc lines into a description: one leading space per line removed, outer blank lines
/// trimmed.
pub fn join_docs(lines: &[String]) -> String {
    let joined: Vec<&str> = lines.iter().map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end()).collect();
    joined.join("\n").trim().to_owned()
}
