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
    /// MCP annotations: `read_only` (or `read_only = false`), likewise the others. An absent
    /// flag is an absent hint.
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    /// A function giving the JSON Schema of the tool's `data` (for `outputSchema`).
    pub output_schema: Option<syn::Path>,
    /// For an async tool: past this many milliseconds the call answers a `TIMEOUT` fault.
    pub timeout_ms: Option<syn::LitInt>,
    /// Spell every parameter this way on the wire (`camelCase`, `snake_case`, ... as serde).
    pub rename_all: Option<SpannedValue<String>>,
    /// `confirm = preview_fn`: a valid call runs only the preview and waits for approval.
    pub confirm: Option<syn::Path>,
    /// Adds the optional `idempotency_key` parameter: a write that happens once per key.
    pub idempotency_key: Flag,
}

/// `#[validate(...)]` on a parameter.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct ValidateArgs {
    pub range: Option<RangeArg>,
    /// `multiple_of = 5`: JSON Schema `multipleOf`.
    pub multiple_of: Option<SpannedValue<Verbatim>>,
    pub choices: Option<ExprArray>,
    pub default: Option<SpannedValue<Verbatim>>,
    pub desc: Option<LitStr>,
    pub secret: Flag,
    pub length: Option<ExprRange>,
    pub byte_length: Option<ExprRange>,
    pub pattern: Option<LitStr>,
    pub example: Option<LitStr>,
    pub each: Option<SpannedValue<Box<ValidateArgs>>>,
    /// The name callers use, when not the Rust name.
    pub rename: Option<LitStr>,
    /// `choices` accept a case-only difference and pass the canonical spelling.
    pub ignore_case: Flag,
    /// `format = "date" | "date-time" | "uuid" | "email" | "uri"`.
    pub format: Option<LitStr>,
    /// `requires = "other"` or `requires(other = VALUE, when = VALUE)`.
    #[darling(multiple)]
    pub requires: Vec<SpannedValue<Requires>>,
    /// `excludes = "other"`.
    #[darling(multiple)]
    pub excludes: Vec<LitStr>,
    /// The move that fixes the call, replacing the generated one (`fix = "Ask the user for
    /// their region."`).
    pub fix: Option<LitStr>,
    /// A short reason, added where it changes the move (`reason = "older data is archived"`).
    pub reason: Option<LitStr>,
    /// Not allowed: the message is generated. Kept to say so at the token.
    pub message: Option<SpannedValue<Verbatim>>,
    /// Not allowed either, for the same reason.
    pub error: Option<SpannedValue<Verbatim>>,
}

/// `requires = "other"` / `requires(other, other2 = VALUE, when = VALUE)`.
#[derive(Debug, Default)]
pub struct Requires {
    /// The value of this parameter that triggers the rule; `None`: whenever it is sent.
    pub when: Option<Expr>,
    /// Other parameters (as the caller spells them), each with the value it must then have
    /// (`None`: it must be sent).
    pub then: Vec<(LitStr, Option<Expr>)>,
}

impl FromMeta for Requires {
    fn from_string(value: &str) -> darling::Result<Self> {
        let lit = LitStr::new(value, proc_macro2::Span::call_site());
        Ok(Requires { when: None, then: vec![(lit, None)] })
    }

    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => {
                Ok(Requires { when: None, then: vec![(s.clone(), None)] })
            }
            _ => Err(darling::Error::custom("write `requires = \"other\"` or `requires(other = VALUE, when = VALUE)`")
                .with_span(expr)),
        }
    }

    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        let mut out = Requires::default();
        let mut errors = darling::Error::accumulator();
        for item in items {
            match item {
                NestedMeta::Meta(syn::Meta::Path(p)) => match p.get_ident() {
                    Some(id) => out.then.push((LitStr::new(&id.to_string(), id.span()), None)),
                    None => errors.push(darling::Error::custom("name a parameter of this tool").with_span(p)),
                },
                NestedMeta::Meta(syn::Meta::NameValue(nv)) => match nv.path.get_ident() {
                    Some(id) if id == "when" => out.when = Some(nv.value.clone()),
                    Some(id) => out.then.push((LitStr::new(&id.to_string(), id.span()), Some(nv.value.clone()))),
                    None => errors.push(darling::Error::custom("name a parameter of this tool").with_span(&nv.path)),
                },
                other => errors.push(
                    darling::Error::custom("write `requires(other = VALUE, when = VALUE)`: a parameter name, its required value, and optionally `when` with this parameter's value").with_span(other),
                ),
            }
        }
        if out.then.is_empty() {
            errors.push(darling::Error::custom("`requires(...)` names at least one other parameter"));
        }
        errors.finish_with(out)
    }
}

/// `range = 1..=720` (a Rust range) or `range(min = 0, exclusive_max = 1)` (the keys validator
/// users know, named after JSON Schema's `minimum`, `maximum`, `exclusiveMinimum`,
/// `exclusiveMaximum`).
#[derive(Debug)]
pub enum RangeArg {
    /// `range = A..=B` and its forms.
    Rust(ExprRange),
    /// `range(min = .., max = .., exclusive_min = .., exclusive_max = ..)`.
    Keys(Box<RangeKeys>),
}

/// The bounds of `range(...)` as written, each with its key's span.
#[derive(Debug)]
pub struct RangeKeys {
    pub min: Option<Expr>,
    pub max: Option<Expr>,
    pub exclusive_min: Option<Expr>,
    pub exclusive_max: Option<Expr>,
    /// The whole `range(...)`, for what concerns all its bounds (none given, no value between).
    pub span: proc_macro2::Span,
}

/// The keys of `range(...)`.
pub const RANGE_KEYS: &[&str] = &["min", "max", "exclusive_min", "exclusive_max"];

/// The key of `range(...)` a misspelt or JSON Schema-spelt key stands for.
fn range_key_for(written: &str) -> Option<&'static str> {
    let lower = written.to_lowercase().replace('_', "");
    let by_schema = match lower.as_str() {
        "minimum" | "gte" | "ge" => Some("min"),
        "maximum" | "lte" | "le" => Some("max"),
        "exclusiveminimum" | "exclusivemin" | "gt" => Some("exclusive_min"),
        "exclusivemaximum" | "exclusivemax" | "lt" => Some("exclusive_max"),
        _ => None,
    };
    by_schema.or_else(|| crate::rules::closest(written, RANGE_KEYS.iter().copied()))
}

impl FromMeta for RangeArg {
    fn from_meta(item: &syn::Meta) -> darling::Result<Self> {
        match item {
            syn::Meta::NameValue(nv) => Self::from_expr(&nv.value),
            syn::Meta::List(list) => {
                let items = NestedMeta::parse_meta_list(list.tokens.clone())?;
                let mut keys = range_keys(&items)?;
                keys.span = syn::spanned::Spanned::span(list);
                Ok(RangeArg::Keys(Box::new(keys)))
            }
            syn::Meta::Path(p) => Err(darling::Error::custom(RANGE_FORMS).with_span(p)),
        }
    }

    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Range(r) => Ok(RangeArg::Rust(r.clone())),
            Expr::Group(g) => Self::from_expr(&g.expr),
            _ => Err(darling::Error::custom(
                "`range` takes a range, like `range = 1..=120`; for exactly 5 write `5..=5`",
            )
            .with_span(expr)),
        }
    }
}

const RANGE_FORMS: &str =
    "`range` takes a range, like `range = 1..=720`, or bounds by name, like `range(exclusive_min = 0, max = 1)`";

/// Reads `min = .., max = .., exclusive_min = .., exclusive_max = ..`, every mistake reported.
fn range_keys(items: &[NestedMeta]) -> darling::Result<RangeKeys> {
    let mut keys = RangeKeys {
        min: None,
        max: None,
        exclusive_min: None,
        exclusive_max: None,
        span: proc_macro2::Span::call_site(),
    };
    let mut errors = darling::Error::accumulator();
    for item in items {
        let NestedMeta::Meta(syn::Meta::NameValue(nv)) = item else {
            errors.push(
                darling::Error::custom("write each bound as `key = number`, like `range(min = 1, max = 720)`")
                    .with_span(item),
            );
            continue;
        };
        let name = nv.path.get_ident().map(ToString::to_string).unwrap_or_default();
        let slot = match name.as_str() {
            "min" => &mut keys.min,
            "max" => &mut keys.max,
            "exclusive_min" => &mut keys.exclusive_min,
            "exclusive_max" => &mut keys.exclusive_max,
            _ => {
                let known = RANGE_KEYS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
                let msg = match range_key_for(&name) {
                    Some(k) => format!("unknown `range` key `{name}`; did you mean `{k}`?"),
                    None => format!("unknown `range` key `{name}`; the keys are {known}"),
                };
                errors.push(darling::Error::custom(msg).with_span(&nv.path));
                continue;
            }
        };
        if slot.is_some() {
            errors.push(darling::Error::custom(format!("`{name}` is given twice: keep one")).with_span(&nv.path));
            continue;
        }
        *slot = Some(nv.value.clone());
    }
    errors.finish_with(keys)
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

/// Parses `#[tool(args)]` on `item`. `method`: the function is in a `#[tools]` impl block and
/// takes `&self` first.
pub fn parse(args: TokenStream, mut item: ItemFn, method: bool, errors: &mut darling::error::Accumulator) -> RawTool {
    let tool_args = match NestedMeta::parse_meta_list(args) {
        Ok(list) => {
            ToolArgs::from_list(&list).map_err(|e| reword(e, "`#[tool]` option", TOOL_OPTIONS)).unwrap_or_else(|e| {
                errors.push(e);
                ToolArgs::default()
            })
        }
        Err(e) => {
            errors.push(e.into());
            ToolArgs::default()
        }
    };
    let docs = doc_lines(&item.attrs);
    let mut params = Vec::new();
    let mut saw_receiver = false;
    for input in &mut item.sig.inputs {
        let FnArg::Typed(pt) = input else {
            let FnArg::Receiver(r) = &*input else { continue };
            saw_receiver = true;
            if !method {
                errors.push(
                    darling::Error::custom("a `#[tool]` method needs `#[tools]` on its impl block, which registers the methods of a shared state: `toolbox.with_state(Arc::new(state))`").with_span(input),
                );
            } else if !matches!(r.kind, syn::ReceiverKind::Reference(_, _, None)) {
                errors.push(
                    darling::Error::custom("a tool method takes `&self`: the state is shared between calls; keep what changes behind a Mutex").with_span(input),
                );
            }
            continue;
        };
        let (validate, docs) = take_validate(&mut pt.attrs, errors);
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
    if method && !saw_receiver {
        errors.push(darling::Error::custom("a tool in a `#[tools]` impl block takes `&self`; move a function without state out of the impl and mark it `#[tool]`").with_span(&item.sig.ident));
    }
    RawTool { args: tool_args, docs, params, item }
}

const TOOL_OPTIONS: &[&str] = &[
    "strict",
    "name",
    "title",
    "rename_all",
    "timeout_ms",
    "output_schema",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "confirm",
    "idempotency_key",
];

/// darling's messages in this crate's voice: lowercase, naming what was wrong and what to write.
fn reword(e: darling::Error, what: &str, known: &[&str]) -> darling::Error {
    let mut out = darling::Error::accumulator();
    for single in e {
        let span = single.span();
        let text = single.to_string();
        let (head, at) = match text.split_once(" at ") {
            Some((h, a)) => (h.to_owned(), a.to_owned()),
            None => (text.clone(), String::new()),
        };
        let quoted = head.split('`').nth(1).unwrap_or("").to_owned();
        let msg = if head.starts_with("Unknown field") {
            let list = known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
            match crate::rules::closest(&quoted, known.iter().copied()) {
                Some(sugg) => format!("unknown {what} `{quoted}`; did you mean `{sugg}`?"),
                None => format!("unknown {what} `{quoted}`; the {what}s are {list}"),
            }
        } else if head.starts_with("Duplicate field") {
            format!("`{quoted}` is given twice: keep one")
        } else if head.starts_with("Unexpected type")
            || head.starts_with("Unexpected literal type")
            || head.starts_with("Unknown value")
        {
            let field = at.split('/').next().unwrap_or("");
            match (field, crate::rules::form_words(field)) {
                (_, Some(words)) => words,
                ("name" | "title" | "rename_all", None) => format!("`{field}` is a string: write `{field} = \"...\"`"),
                ("", None) => lowercase_first(&head),
                (_, None) => format!("`{field}`: {}", lowercase_first(&head)),
            }
        } else {
            lowercase_first(&head)
        };
        out.push(darling::Error::custom(msg).with_span(&span));
    }
    out.finish().err().unwrap_or_else(|| darling::Error::custom("invalid attribute"))
}

fn lowercase_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_lowercase().chain(c).collect()).unwrap_or_default()
}

/// Reads and removes `#[validate(...)]` and doc comments from a parameter's or field's
/// attributes.
pub fn take_validate(
    attrs: &mut Vec<Attribute>,
    errors: &mut darling::error::Accumulator,
) -> (ValidateArgs, Vec<String>) {
    let mut validate = ValidateArgs::default();
    let mut seen_validate = false;
    for attr in attrs.iter() {
        if attr.path().is_ident("validate") {
            if seen_validate {
                errors.push(
                    darling::Error::custom("put all rules in one `#[validate(...)]`, separated by commas")
                        .with_span(attr),
                );
                continue;
            }
            seen_validate = true;
            match ValidateArgs::from_meta(&attr.meta) {
                Ok(v) => validate = v,
                Err(e) => errors.push(reword(e, "rule", &crate::rules::names().collect::<Vec<_>>())),
            }
        }
    }
    let docs = doc_lines(attrs);
    attrs.retain(|a| !a.path().is_ident("validate") && !a.path().is_ident("doc"));
    (validate, docs)
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
