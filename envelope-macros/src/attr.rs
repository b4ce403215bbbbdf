//! Parse: what the user wrote, with spans, before any check. The attribute arguments are read
//! here, by this crate, so every message about a key or a value's form is worded once, in this
//! crate's voice: the unknown key with the closest one, the key given twice, the form to write.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprArray, ExprRange, FnArg, Ident, ItemFn, Lit, LitStr, Meta, Pat, Token, Type};

use crate::diag::{Accumulator, Error, Sp};

/// A flag written alone (`strict`), with the span of its word when present.
#[derive(Default, Clone, Copy)]
pub struct Flag(Option<Span>);

impl Flag {
    pub fn is_present(&self) -> bool {
        self.0.is_some()
    }

    /// The word's span (the call site when absent).
    pub fn span(&self) -> Span {
        self.0.unwrap_or_else(Span::call_site)
    }
}

/// `#[tool(...)]`.
#[derive(Default)]
pub struct ToolArgs {
    /// Refuse lax coercions.
    pub strict: Flag,
    /// The tool's name, when not the function's.
    pub name: Option<LitStr>,
    /// A human title.
    pub title: Option<LitStr>,
    /// The description the model reads, when not written as the function's doc comment.
    pub description: Option<LitStr>,
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
    pub rename_all: Option<Sp<String>>,
    /// `confirm = preview_fn`: a valid call runs only the preview and waits for approval.
    pub confirm: Option<syn::Path>,
    /// Adds the optional `idempotency_key` parameter: a write that happens once per key.
    pub idempotency_key: Flag,
    /// `rate_limit = "30/min"`: calls per caller and tenant (`N/s`, `N/min`, `N/h`).
    pub rate_limit: Option<LitStr>,
    /// `scopes = ["notes:write", ...]`: the OAuth scopes a caller needs (checked in `check.rs`).
    pub scopes: Option<ExprArray>,
    /// `tier = 1..=4`: T1 read to T4 destructive (checked in `check.rs`).
    pub tier: Option<syn::LitInt>,
}

/// `#[validate(...)]` on a parameter.
#[derive(Default)]
pub struct ValidateArgs {
    pub range: Option<RangeArg>,
    /// `multiple_of = 5`: JSON Schema `multipleOf`.
    pub multiple_of: Option<Sp<Verbatim>>,
    pub choices: Option<ExprArray>,
    pub default: Option<Sp<Verbatim>>,
    pub desc: Option<LitStr>,
    pub secret: Flag,
    pub length: Option<ExprRange>,
    pub byte_length: Option<ExprRange>,
    pub pattern: Option<LitStr>,
    pub example: Option<LitStr>,
    pub each: Option<Sp<Box<ValidateArgs>>>,
    /// The name callers use, when not the Rust name.
    pub rename: Option<LitStr>,
    /// `choices` accept a case-only difference and pass the canonical spelling.
    pub ignore_case: Flag,
    /// `format = "date" | "date-time" | "uuid" | "email" | "uri"`.
    pub format: Option<LitStr>,
    /// `requires = "other"` or `requires(other = VALUE, when = VALUE)`, as often as needed.
    pub requires: Vec<Sp<Requires>>,
    /// `excludes = "other"`, as often as needed.
    pub excludes: Vec<LitStr>,
    /// The move that fixes the call, replacing the generated one (`fix = "Ask the user for
    /// their region."`).
    pub fix: Option<LitStr>,
    /// A short reason, added where it changes the move (`reason = "older data is archived"`).
    pub reason: Option<LitStr>,
    /// Not allowed: the message is generated. Kept to say so at the token.
    pub message: Option<Sp<Verbatim>>,
    /// Not allowed either, for the same reason.
    pub error: Option<Sp<Verbatim>>,
}

/// `requires = "other"` / `requires(other, other2 = VALUE, when = VALUE)`.
#[derive(Default)]
pub struct Requires {
    /// The value of this parameter that triggers the rule; `None`: whenever it is sent.
    pub when: Option<Expr>,
    /// Other parameters (as the caller spells them), each with the value it must then have
    /// (`None`: it must be sent).
    pub then: Vec<(LitStr, Option<Expr>)>,
}

/// `range = 1..=720` (a Rust range) or `range(min = 0, exclusive_max = 1)` (the keys validator
/// users know, named after JSON Schema's `minimum`, `maximum`, `exclusiveMinimum`,
/// `exclusiveMaximum`).
pub enum RangeArg {
    /// `range = A..=B` and its forms.
    Rust(ExprRange),
    /// `range(min = .., max = .., exclusive_min = .., exclusive_max = ..)`.
    Keys(Box<RangeKeys>),
}

/// The bounds of `range(...)` as written, each with its key's span.
pub struct RangeKeys {
    pub min: Option<Expr>,
    pub max: Option<Expr>,
    pub exclusive_min: Option<Expr>,
    pub exclusive_max: Option<Expr>,
    /// The whole `range(...)`, for what concerns all its bounds (none given, no value between).
    pub span: Span,
}

/// The keys of `range(...)`.
pub const RANGE_KEYS: &[&str] = &["min", "max", "exclusive_min", "exclusive_max"];

/// An expression kept as written.
pub struct Verbatim(pub Expr);

// ---------------------------------------------------------------------------------------------
// Reading `key`, `key = value` and `key(...)` lists

/// The comma-separated items of an attribute's arguments.
pub fn metas(tokens: TokenStream) -> Result<Punctuated<Meta, Token![,]>, Error> {
    Ok(Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens)?)
}

/// The key of an item, as written (`a::b` for a path).
pub fn key_of(meta: &Meta) -> String {
    let path = meta.path();
    path.get_ident().map_or_else(|| path.to_token_stream().to_string().replace(' ', ""), ToString::to_string)
}

/// The error for a key none of `known` is: the closest one, or the whole list.
pub fn unknown_key(meta: &Meta, what: &str, known: &[&str]) -> Error {
    let key = key_of(meta);
    let msg = match crate::suggest::closest(&key, known.iter().copied()) {
        Some(sugg) => format!("unknown {what} `{key}`; did you mean `{sugg}`?"),
        None => {
            let list = known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
            format!("unknown {what} `{key}`; the {what}s are {list}")
        }
    };
    Error::custom(msg).with_span(meta.path())
}

/// Sets `slot` once; a second value is an error at its key.
fn once<T>(slot: &mut Option<T>, meta: &Meta, value: Option<T>, errors: &mut Accumulator) {
    if slot.is_some() {
        errors.push(Error::custom(format!("`{}` is given twice: keep one", key_of(meta))).with_span(meta.path()));
    } else if value.is_some() {
        *slot = value;
    }
}

/// The value of `key = value`, looking through the invisible groups of a macro's tokens.
fn value_of(meta: &Meta) -> Option<&Expr> {
    let Meta::NameValue(nv) = meta else { return None };
    let mut e = &nv.value;
    while let Expr::Group(g) = e {
        e = &g.expr;
    }
    Some(e)
}

/// Where an error about the form of `meta`'s value goes: the value, else the key.
fn value_span(meta: &Meta) -> Span {
    match meta {
        Meta::NameValue(nv) => nv.value.span(),
        Meta::List(list) => list.tokens.span(),
        Meta::Path(p) => p.span(),
    }
}

fn form_error(meta: &Meta, words: String) -> Error {
    Error::custom(words).at(value_span(meta))
}

/// `key = "..."`; otherwise an error saying so.
fn lit_str(meta: &Meta, errors: &mut Accumulator) -> Option<LitStr> {
    if let Some(Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })) = value_of(meta) {
        return Some(s.clone());
    }
    let key = key_of(meta);
    let words =
        crate::rules::form_words(&key).unwrap_or_else(|| format!("`{key}` is a string: write `{key} = \"...\"`"));
    errors.push(form_error(meta, words));
    None
}

/// `key` alone.
fn flag(meta: &Meta, errors: &mut Accumulator) -> Option<Span> {
    if let Meta::Path(p) = meta {
        return Some(p.span());
    }
    let key = key_of(meta);
    errors.push(form_error(meta, format!("`{key}` is a flag: write `{key}` alone")));
    None
}

/// `key` (true) or `key = true` / `key = false`.
fn hint(meta: &Meta, errors: &mut Accumulator) -> Option<bool> {
    match (meta, value_of(meta)) {
        (Meta::Path(_), _) => Some(true),
        (_, Some(Expr::Lit(syn::ExprLit { lit: Lit::Bool(b), .. }))) => Some(b.value),
        _ => {
            let key = key_of(meta);
            errors.push(form_error(meta, format!("`{key}` is a hint: write `{key}`, or `{key} = false`")));
            None
        }
    }
}

/// `key = path::to_fn` (or the path in a string).
fn fn_path(meta: &Meta, errors: &mut Accumulator) -> Option<syn::Path> {
    match value_of(meta) {
        Some(Expr::Path(p)) => return Some(p.path.clone()),
        Some(Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })) => {
            if let Ok(p) = s.parse::<syn::Path>() {
                return Some(p);
            }
        }
        _ => {}
    }
    let key = key_of(meta);
    errors.push(form_error(meta, format!("`{key}` names a function: write `{key} = path::to_fn`")));
    None
}

/// `key = <any expression>`, kept as written.
fn verbatim(meta: &Meta, errors: &mut Accumulator) -> Option<Sp<Verbatim>> {
    match meta {
        Meta::NameValue(nv) => Some(Sp::new(Verbatim(nv.value.clone()), nv.value.span())),
        _ => {
            let key = key_of(meta);
            let words = crate::rules::form_words(&key).unwrap_or_else(|| format!("write `{key} = VALUE`"));
            errors.push(form_error(meta, words));
            None
        }
    }
}

/// `key = A..=B` and its forms.
fn range_expr(meta: &Meta, errors: &mut Accumulator) -> Option<ExprRange> {
    if let Some(Expr::Range(r)) = value_of(meta) {
        return Some(r.clone());
    }
    let key = key_of(meta);
    let words = crate::rules::form_words(&key).unwrap_or_else(|| format!("`{key}` takes a range"));
    errors.push(form_error(meta, words));
    None
}

// ---------------------------------------------------------------------------------------------
// The attributes

const TOOL_OPTIONS: &[&str] = &[
    "strict",
    "name",
    "title",
    "description",
    "rename_all",
    "timeout_ms",
    "output_schema",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "confirm",
    "idempotency_key",
    "rate_limit",
    "scopes",
    "tier",
];

/// `#[tool(...)]`'s arguments, every mistake reported.
pub fn tool_args(tokens: TokenStream, errors: &mut Accumulator) -> ToolArgs {
    let mut out = ToolArgs::default();
    let Some(items) = errors.handle(metas(tokens)) else { return out };
    for meta in &items {
        let key = key_of(meta);
        match key.as_str() {
            "strict" => set_flag(&mut out.strict, meta, errors),
            "idempotency_key" => set_flag(&mut out.idempotency_key, meta, errors),
            "name" => once(&mut out.name, meta, lit_str(meta, errors), errors),
            "title" => once(&mut out.title, meta, lit_str(meta, errors), errors),
            "description" => once(&mut out.description, meta, lit_str(meta, errors), errors),
            "rename_all" => {
                let v = lit_str(meta, errors).map(|s| Sp::new(s.value(), s.span()));
                once(&mut out.rename_all, meta, v, errors);
            }
            "read_only" => once(&mut out.read_only, meta, hint(meta, errors), errors),
            "destructive" => once(&mut out.destructive, meta, hint(meta, errors), errors),
            "idempotent" => once(&mut out.idempotent, meta, hint(meta, errors), errors),
            "open_world" => once(&mut out.open_world, meta, hint(meta, errors), errors),
            "output_schema" => once(&mut out.output_schema, meta, fn_path(meta, errors), errors),
            "confirm" => once(&mut out.confirm, meta, fn_path(meta, errors), errors),
            "rate_limit" => once(&mut out.rate_limit, meta, lit_str(meta, errors), errors),
            "timeout_ms" => {
                let v = match value_of(meta) {
                    Some(Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. })) => Some(i.clone()),
                    _ => {
                        errors.push(form_error(
                            meta,
                            "`timeout_ms` is a whole number of milliseconds, like `timeout_ms = 5000`".to_owned(),
                        ));
                        None
                    }
                };
                once(&mut out.timeout_ms, meta, v, errors);
            }
            "scopes" => {
                let v = match value_of(meta) {
                    Some(Expr::Array(a)) => Some(a.clone()),
                    _ => {
                        errors.push(form_error(
                            meta,
                            "`scopes` is a list of OAuth scopes, like `scopes = [\"notes:write\"]`".to_owned(),
                        ));
                        None
                    }
                };
                once(&mut out.scopes, meta, v, errors);
            }
            "tier" => {
                let v = match value_of(meta) {
                    Some(Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. })) => Some(i.clone()),
                    _ => {
                        errors.push(form_error(
                            meta,
                            "`tier` is a whole number from 1 (read) to 4 (destructive), like `tier = 3`".to_owned(),
                        ));
                        None
                    }
                };
                once(&mut out.tier, meta, v, errors);
            }
            _ => errors.push(unknown_key(meta, "`#[tool]` option", TOOL_OPTIONS)),
        }
    }
    out
}

fn set_flag(slot: &mut Flag, meta: &Meta, errors: &mut Accumulator) {
    let mut span = slot.0;
    once(&mut span, meta, flag(meta, errors), errors);
    slot.0 = span;
}

/// `#[validate(...)]`'s rules (also those inside `each(...)`), every mistake reported.
pub fn validate_args(items: &Punctuated<Meta, Token![,]>, errors: &mut Accumulator) -> ValidateArgs {
    let mut v = ValidateArgs::default();
    for meta in items {
        let key = key_of(meta);
        match key.as_str() {
            "range" => once(&mut v.range, meta, range_arg(meta, errors), errors),
            "multiple_of" => once(&mut v.multiple_of, meta, verbatim(meta, errors), errors),
            "choices" => {
                let c = match value_of(meta) {
                    Some(Expr::Array(a)) => Some(a.clone()),
                    _ => {
                        errors.push(form_error(meta, crate::rules::form_words("choices").unwrap_or_default()));
                        None
                    }
                };
                once(&mut v.choices, meta, c, errors);
            }
            "default" => once(&mut v.default, meta, verbatim(meta, errors), errors),
            "desc" => once(&mut v.desc, meta, lit_str(meta, errors), errors),
            "secret" => set_flag(&mut v.secret, meta, errors),
            "ignore_case" => set_flag(&mut v.ignore_case, meta, errors),
            "length" => once(&mut v.length, meta, range_expr(meta, errors), errors),
            "byte_length" => once(&mut v.byte_length, meta, range_expr(meta, errors), errors),
            "pattern" => once(&mut v.pattern, meta, lit_str(meta, errors), errors),
            "example" => once(&mut v.example, meta, lit_str(meta, errors), errors),
            "rename" => once(&mut v.rename, meta, lit_str(meta, errors), errors),
            "format" => once(&mut v.format, meta, lit_str(meta, errors), errors),
            "fix" => once(&mut v.fix, meta, lit_str(meta, errors), errors),
            "reason" => once(&mut v.reason, meta, lit_str(meta, errors), errors),
            "excludes" => v.excludes.extend(lit_str(meta, errors)),
            "requires" => v.requires.extend(requires(meta, errors)),
            "each" => {
                let each = match meta {
                    Meta::List(list) => errors
                        .handle(metas(list.tokens.clone()))
                        .map(|inner| Sp::new(Box::new(validate_args(&inner, errors)), list.tokens.span())),
                    _ => {
                        errors.push(form_error(meta, "`each` takes rules, like `each(length = 1..=40)`".to_owned()));
                        None
                    }
                };
                once(&mut v.each, meta, each, errors);
            }
            "message" | "error" => {
                let span = value_span(meta);
                let bad = Some(Sp::new(Verbatim(Expr::Verbatim(meta.to_token_stream())), span));
                let slot = if key == "message" { &mut v.message } else { &mut v.error };
                once(slot, meta, bad, errors);
            }
            _ => errors.push(unknown_key(meta, "rule", &crate::rules::names().collect::<Vec<_>>())),
        }
    }
    v
}

const RANGE_FORMS: &str =
    "`range` takes a range, like `range = 1..=720`, or bounds by name, like `range(exclusive_min = 0, max = 1)`";

fn range_arg(meta: &Meta, errors: &mut Accumulator) -> Option<RangeArg> {
    match meta {
        Meta::NameValue(_) => range_expr(meta, errors).map(RangeArg::Rust),
        Meta::List(list) => {
            let items = errors.handle(metas(list.tokens.clone()))?;
            let mut keys = range_keys(&items, errors)?;
            keys.span = list.span();
            Some(RangeArg::Keys(Box::new(keys)))
        }
        Meta::Path(p) => {
            errors.push(Error::custom(RANGE_FORMS).with_span(p));
            None
        }
    }
}

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
    by_schema.or_else(|| crate::suggest::closest(written, RANGE_KEYS.iter().copied()))
}

/// Reads `min = .., max = .., exclusive_min = .., exclusive_max = ..`, every mistake reported;
/// `None` when there was one.
fn range_keys(items: &Punctuated<Meta, Token![,]>, errors: &mut Accumulator) -> Option<RangeKeys> {
    let mut keys =
        RangeKeys { min: None, max: None, exclusive_min: None, exclusive_max: None, span: Span::call_site() };
    let mut ok = true;
    for item in items {
        let Meta::NameValue(nv) = item else {
            errors.push(
                Error::custom("write each bound as `key = number`, like `range(min = 1, max = 720)`").with_span(item),
            );
            ok = false;
            continue;
        };
        let name = key_of(item);
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
                errors.push(Error::custom(msg).with_span(&nv.path));
                ok = false;
                continue;
            }
        };
        if slot.is_some() {
            errors.push(Error::custom(format!("`{name}` is given twice: keep one")).with_span(&nv.path));
            ok = false;
            continue;
        }
        *slot = Some(nv.value.clone());
    }
    ok.then_some(keys)
}

/// `requires = "other"` or `requires(other, other2 = VALUE, when = VALUE)`.
fn requires(meta: &Meta, errors: &mut Accumulator) -> Option<Sp<Requires>> {
    let list = match meta {
        Meta::List(list) => list,
        _ => {
            if let Some(Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })) = value_of(meta) {
                return Some(Sp::new(Requires { when: None, then: vec![(s.clone(), None)] }, s.span()));
            }
            errors.push(form_error(
                meta,
                "write `requires = \"other\"` or `requires(other = VALUE, when = VALUE)`".to_owned(),
            ));
            return None;
        }
    };
    let items = errors.handle(metas(list.tokens.clone()))?;
    let mut out = Requires::default();
    let mut ok = true;
    for item in &items {
        match item {
            Meta::Path(p) => match p.get_ident() {
                Some(id) => out.then.push((LitStr::new(&id.to_string(), id.span()), None)),
                None => {
                    errors.push(Error::custom("name a parameter of this tool").with_span(p));
                    ok = false;
                }
            },
            Meta::NameValue(nv) => match nv.path.get_ident() {
                Some(id) if id == "when" => out.when = Some(nv.value.clone()),
                Some(id) => out.then.push((LitStr::new(&id.to_string(), id.span()), Some(nv.value.clone()))),
                None => {
                    errors.push(Error::custom("name a parameter of this tool").with_span(&nv.path));
                    ok = false;
                }
            },
            Meta::List(other) => {
                errors.push(
                    Error::custom("write `requires(other = VALUE, when = VALUE)`: a parameter name, its required value, and optionally `when` with this parameter's value").with_span(other),
                );
                ok = false;
            }
        }
    }
    if out.then.is_empty() {
        errors.push(Error::custom("`requires(...)` names at least one other parameter").with_span(&list.path));
        ok = false;
    }
    ok.then(|| Sp::new(out, list.tokens.span()))
}

/// One parameter as written.
pub struct RawParam {
    pub ident: Ident,
    pub ty: Type,
    pub docs: Vec<String>,
    pub validate: ValidateArgs,
}

/// A parameter of type `Context` (or `&Context`): the call's context, not an argument.
pub struct RawContext {
    /// Its place among the function's parameters (the receiver not counted).
    pub position: usize,
    /// `&Context` rather than `Context`.
    pub by_ref: bool,
}

/// The function and everything written on it.
pub struct RawTool {
    pub args: ToolArgs,
    pub docs: Vec<String>,
    pub params: Vec<RawParam>,
    /// The context parameter, if the function takes one.
    pub context: Option<RawContext>,
    /// The function with `#[validate]` and doc attributes removed from its parameters.
    pub item: ItemFn,
}

/// Parses `#[tool(args)]` on `item`. `method`: the function is in a `#[tools]` impl block and
/// takes `&self` first.
pub fn parse(args: TokenStream, mut item: ItemFn, method: bool, errors: &mut Accumulator) -> RawTool {
    let tool_args = tool_args(args, errors);
    let docs = doc_lines(&item.attrs);
    let mut params = Vec::new();
    let mut context: Option<RawContext> = None;
    let mut position = 0;
    let mut saw_receiver = false;
    for input in &mut item.sig.inputs {
        let FnArg::Typed(pt) = input else {
            let FnArg::Receiver(r) = &*input else { continue };
            saw_receiver = true;
            if !method {
                errors.push(
                    Error::custom("a `#[tool]` method needs `#[tools]` on its impl block, which registers the methods of a shared state: `toolbox.with_state(Arc::new(state))`").with_span(input),
                );
            } else if !matches!(r.kind, syn::ReceiverKind::Reference(_, _, None)) {
                errors.push(
                    Error::custom("a tool method takes `&self`: the state is shared between calls; keep what changes behind a Mutex").with_span(input),
                );
            }
            continue;
        };
        position += 1;
        if let Some(by_ref) = context_type(&pt.ty, errors) {
            if let Some(a) = pt.attrs.iter().find(|a| a.path().is_ident("validate")) {
                errors.push(
                    Error::custom("the `Context` parameter is the call, not an argument: it takes no `#[validate(...)]`; remove it")
                        .with_span(a),
                );
            }
            pt.attrs.retain(|a| !a.path().is_ident("validate") && !a.path().is_ident("doc"));
            if context.is_some() {
                errors.push(
                    Error::custom("a tool takes at most one `Context` parameter; remove this one").with_span(&pt.ty),
                );
            }
            context = Some(RawContext { position: position - 1, by_ref });
            continue;
        }
        let (validate, docs) = take_validate(&mut pt.attrs, errors);
        let ident = match &*pt.pat {
            Pat::Ident(pi) if pi.subpat.is_none() => pi.ident.clone(),
            other => {
                errors.push(
                    Error::custom(
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
        errors.push(Error::custom("a tool in a `#[tools]` impl block takes `&self`; move a function without state out of the impl and mark it `#[tool]`").with_span(&item.sig.ident));
    }
    RawTool { args: tool_args, docs, params, context, item }
}

/// Whether `ty` is the call's context: `Some(false)` for `Context` (any path ending in it),
/// `Some(true)` for `&Context`; `&mut Context` is refused.
fn context_type(ty: &Type, errors: &mut Accumulator) -> Option<bool> {
    let is_context = |ty: &Type| match ty {
        Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().is_some_and(|s| s.ident == "Context" && s.arguments.is_none())
        }
        _ => false,
    };
    match ty {
        Type::Reference(r) if is_context(&r.elem) => {
            if let Some(m) = &r.mutability {
                errors.push(
                    Error::custom(
                        "the `Context` parameter is shared: take `&Context` or `Context`, not `&mut Context`",
                    )
                    .with_span(m),
                );
            }
            Some(true)
        }
        _ if is_context(ty) => Some(false),
        _ => None,
    }
}

/// Reads and removes `#[validate(...)]` and doc comments from a parameter's or field's
/// attributes.
pub fn take_validate(attrs: &mut Vec<Attribute>, errors: &mut Accumulator) -> (ValidateArgs, Vec<String>) {
    let mut validate = ValidateArgs::default();
    let mut seen_validate = false;
    for attr in attrs.iter() {
        if attr.path().is_ident("validate") {
            if seen_validate {
                errors.push(
                    Error::custom("put all rules in one `#[validate(...)]`, separated by commas").with_span(attr),
                );
                continue;
            }
            seen_validate = true;
            match &attr.meta {
                Meta::List(list) => {
                    if let Some(items) = errors.handle(metas(list.tokens.clone())) {
                        validate = validate_args(&items, errors);
                    }
                }
                other => errors.push(
                    Error::custom("write the rules in parentheses, like `#[validate(range = 1..=720)]`")
                        .with_span(other),
                ),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(errors: Accumulator) -> Vec<String> {
        errors.finish().err().map(|e| e.into_iter().map(|e| e.to_string()).collect()).unwrap_or_default()
    }

    fn validate(attr: Attribute) -> (ValidateArgs, Vec<String>) {
        let mut errors = Error::accumulator();
        let (v, _) = take_validate(&mut vec![attr], &mut errors);
        (v, messages(errors))
    }

    #[test]
    fn the_tool_options_are_read_with_every_mistake_named() {
        let mut errors = Error::accumulator();
        let args = tool_args(
            quote::quote!(
                strict,
                name = "lookup",
                read_only,
                idempotent = false,
                timeout_ms = 500,
                rename_all = "camelCase",
                confirm = preview
            ),
            &mut errors,
        );
        assert!(messages(errors).is_empty());
        assert!(args.strict.is_present() && !args.idempotency_key.is_present());
        assert_eq!(args.name.map(|n| n.value()).as_deref(), Some("lookup"));
        assert_eq!((args.read_only, args.idempotent, args.destructive), (Some(true), Some(false), None));
        assert_eq!(args.timeout_ms.map(|t| t.base10_digits().to_owned()).as_deref(), Some("500"));
        assert_eq!(args.rename_all.map(|r| r.value).as_deref(), Some("camelCase"));
        assert!(args.confirm.is_some_and(|p| p.is_ident("preview")));

        let mut errors = Error::accumulator();
        tool_args(
            quote::quote!(
                readonly,
                name = lookup_user,
                title = "a",
                title = "b",
                timeout_ms = "5s",
                strict = true,
                zzz
            ),
            &mut errors,
        );
        assert_eq!(
            messages(errors),
            [
                "unknown `#[tool]` option `readonly`; did you mean `read_only`?",
                "`name` is a string: write `name = \"...\"`",
                "`title` is given twice: keep one",
                "`timeout_ms` is a whole number of milliseconds, like `timeout_ms = 5000`",
                "`strict` is a flag: write `strict` alone",
                "unknown `#[tool]` option `zzz`; the `#[tool]` options are `strict`, `name`, `title`, `description`, `rename_all`, `timeout_ms`, `output_schema`, `read_only`, `destructive`, `idempotent`, `open_world`, `confirm`, `idempotency_key`, `rate_limit`, `scopes`, `tier`",
            ]
        );
    }

    #[test]
    fn the_rules_are_read_as_written() {
        let (v, errors) = validate(syn::parse_quote!(#[validate(
            range = 1..=720, multiple_of = 5, default = 10, secret, each(length = 1..=3),
            requires = "a", requires(b = 1, when = 2), excludes = "c", excludes = "d", fix = "Send 5."
        )]));
        assert!(errors.is_empty(), "{errors:?}");
        assert!(matches!(v.range, Some(RangeArg::Rust(_))));
        assert!(v.multiple_of.is_some() && v.default.is_some() && v.secret.is_present());
        assert!(v.each.as_ref().is_some_and(|e| e.length.is_some()));
        let then: Vec<String> = v.requires.iter().flat_map(|r| r.then.iter().map(|(n, _)| n.value())).collect();
        assert_eq!(then, ["a", "b"]);
        assert!(v.requires[1].when.is_some());
        assert_eq!(v.excludes.iter().map(LitStr::value).collect::<Vec<_>>(), ["c", "d"]);
        assert_eq!(v.fix.map(|f| f.value()).as_deref(), Some("Send 5."));

        let (v, errors) = validate(syn::parse_quote!(#[validate(range(min = 0, exclusive_max = 1))]));
        assert!(errors.is_empty(), "{errors:?}");
        let Some(RangeArg::Keys(k)) = v.range else { panic!("keys") };
        assert!(k.min.is_some() && k.exclusive_max.is_some() && k.max.is_none());
    }

    #[test]
    fn every_mistake_in_one_validate_is_reported_in_this_crates_words() {
        let (_, errors) = validate(syn::parse_quote!(#[validate(
            rnage = 1..=720, range = 5, length = 1..=3, length = 2..=4, choices = "a", pattern = 5,
            requires(), requires = 5, ignore_case = true, each = 3, range(maximum = 1), xyzzy
        )]));
        assert_eq!(
            errors,
            [
                "unknown rule `rnage`; did you mean `range`?",
                "`range` takes a range, like `range = 1..=120`; for exactly 5 write `5..=5`",
                "`length` is given twice: keep one",
                "`choices` is a list, like `choices = [\"a\", \"b\"]`",
                "`pattern` is a string: write `pattern = \"...\"`",
                "`requires(...)` names at least one other parameter",
                "write `requires = \"other\"` or `requires(other = VALUE, when = VALUE)`",
                "`ignore_case` is a flag: write `ignore_case` alone",
                "`each` takes rules, like `each(length = 1..=40)`",
                "unknown `range` key `maximum`; did you mean `max`?",
                "unknown rule `xyzzy`; the rules are `range`, `multiple_of`, `choices`, `ignore_case`, `length`, `byte_length`, `pattern`, `example`, `format`, `each`, `default`, `secret`, `requires`, `excludes`, `rename`, `desc`, `fix`, `reason`",
            ]
        );
    }

    #[test]
    fn a_free_form_message_is_kept_to_be_refused_at_its_value() {
        let (v, errors) = validate(syn::parse_quote!(#[validate(message = "must be 1-100")]));
        assert!(errors.is_empty());
        assert!(v.message.is_some() && v.error.is_none());
    }
}
