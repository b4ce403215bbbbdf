//! Check: rules that look at the parameter's type or across attributes. Turns what the user
//! wrote into a model that expansion can trust.

use crate::diag::Error;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, GenericArgument, Lit, LitStr, PathArguments, RangeLimits, ReturnType, Type, UnOp};

use crate::attr::{RangeArg, RangeKeys, RawParam, RawTool, ValidateArgs, join_docs};
use crate::rules::applies;
use crate::ty::{Kind, kind_of, option_inner, vec_item};

#[derive(Clone, Copy, Debug)]
pub enum NumV {
    Int(i128),
    Float(f64),
}

impl NumV {
    fn f(self) -> f64 {
        match self {
            NumV::Int(i) => i as f64,
            NumV::Float(f) => f,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub enum BoundV {
    Unbounded,
    Incl(NumV),
    Excl(NumV),
}

pub enum ChoicesV {
    Str(Vec<String>),
    Int(Vec<i64>),
}

/// A default value, checked against the parameter's type and rules.
pub struct DefaultV {
    pub expr: Expr,
    pub span: Span,
}

/// A checked `requires`.
pub struct RequiresV {
    pub when: Option<Expr>,
    pub then: Vec<(String, Option<Expr>)>,
}

/// The checked rules of one value.
pub struct RulesV {
    pub ignore_case: bool,
    pub format: Option<&'static str>,
    pub fix: Option<String>,
    pub reason: Option<String>,
    pub range: Option<(BoundV, BoundV)>,
    /// `multiple_of`: above 0; whole for an integer parameter, a float for a float one.
    pub multiple_of: Option<NumV>,
    pub choices: Option<ChoicesV>,
    pub secret: bool,
    /// (min, max (None: unbounded), unit: "Characters" | "Bytes" | "Items").
    pub length: Option<(usize, Option<usize>, &'static str)>,
    pub pattern: Option<(String, Option<String>)>,
    pub items: Option<Box<RulesV>>,
    /// For a type the macro cannot name: (rule, the rule's span, the type, the `__private010`
    /// function whose trait bound decides whether the rule applies).
    pub by_trait: Vec<(&'static str, Span, Type, &'static str)>,
}

pub struct Param {
    pub name: String,
    pub requires: Vec<RequiresV>,
    pub excludes: Vec<String>,
    pub ty: Type,
    pub kind: Kind,
    pub description: String,
    pub rules: RulesV,
    pub default: Option<DefaultV>,
    pub optional: bool,
}

pub enum Ret {
    /// `T: Serialize`.
    Plain,
    /// `Result<T, E>` with `E` a tool error type.
    Result,
}

pub struct Tool {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub strict: bool,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub params: Vec<Param>,
    pub ret: Ret,
    pub ret_span: Span,
    /// `E` of a `Result<T, E>` return.
    pub error_type: Option<Type>,
    /// `timeout_ms`, with its literal's span.
    pub timeout_ms: Option<(u64, Span)>,
    /// `output_schema = path`.
    pub output_schema: Option<syn::Path>,
    /// `confirm = preview_fn`.
    pub confirm: Option<syn::Path>,
    /// `idempotency_key`.
    pub idempotency_key: bool,
    /// `rate_limit = "N/unit"`: the count and the period in milliseconds.
    pub rate_limit: Option<(u32, u64)>,
    /// `scopes = [...]`: each a checked OAuth scope token, in declared order.
    pub scopes: Vec<String>,
    /// `tier = N`, 1 to 4, when declared.
    pub tier: Option<u8>,
    /// The context parameter: its place among the parameters, and whether it is `&Context`.
    pub context: Option<(usize, bool)>,
    /// The type of the answer's `data` (`T` of `-> T` or `-> Result<T, E>`), when it can be
    /// named (not `impl Trait`, not `()` left implicit).
    pub data_type: Option<Type>,
}

pub fn check(raw: &RawTool, errors: &mut crate::diag::Accumulator) -> Tool {
    let sig = &raw.item.sig;
    if !sig.generics.params.is_empty() {
        errors.push(
            Error::custom(
                "a `#[tool]` function cannot be generic: its parameters are read from JSON by their concrete types",
            )
            .with_span(&sig.generics),
        );
    }
    if sig.variadic.is_some() || sig.abi.is_some() {
        errors.push(Error::custom("a `#[tool]` function is a plain Rust function").with_span(&sig.ident));
    }
    let rename_all = raw.args.rename_all.as_ref().and_then(|r| match rename_rule(r) {
        Ok(rule) => Some(rule),
        Err(msg) => {
            errors.push(Error::custom(msg).with_span(&r.span()));
            None
        }
    });
    let params: Vec<Param> = raw.params.iter().map(|p| check_param(p, rename_all, errors)).collect();
    check_cross(&params, &raw.params, errors);
    let (ret, ret_span) = check_return(&sig.output, errors);
    let timeout_ms = raw.args.timeout_ms.as_ref().and_then(|lit| match lit.base10_parse::<u64>() {
        Ok(0) | Err(_) => {
            errors.push(
                Error::custom("`timeout_ms` is a whole number of milliseconds above 0, like `timeout_ms = 5000`")
                    .with_span(lit),
            );
            None
        }
        Ok(ms) => Some((ms, lit.span())),
    });
    let idempotency_key = raw.args.idempotency_key.is_present();
    if idempotency_key {
        let span = raw.args.idempotency_key.span();
        if raw.args.confirm.is_some() {
            errors.push(Error::custom("a `confirm` tool runs once per approval already: drop `idempotency_key`, or drop `confirm` for a write that needs no approval").with_span(&span));
        }
        if let Some(p) = params.iter().find(|p| p.name == "idempotency_key") {
            let at = raw.params.iter().find(|r| r.ident == p.name).map_or(span, |r| r.ident.span());
            errors.push(Error::custom("`#[tool(idempotency_key)]` adds the `idempotency_key` parameter itself: remove this parameter, or rename it").with_span(&at));
        }
    }
    let rate_limit = raw.args.rate_limit.as_ref().and_then(|lit| match rate_limit(&lit.value()) {
        Ok(limit) => Some(limit),
        Err(msg) => {
            errors.push(Error::custom(msg).with_span(lit));
            None
        }
    });
    let scopes = raw.args.scopes.as_ref().map_or_else(Vec::new, |list| check_scopes(list, errors));
    let tier = raw.args.tier.as_ref().and_then(|lit| match lit.base10_parse::<u8>() {
        Ok(n @ 1..=4) => Some(n),
        _ => {
            errors.push(
                Error::custom("`tier` is a whole number from 1 (read) to 4 (destructive), like `tier = 3`")
                    .with_span(lit),
            );
            None
        }
    });
    let data_type = data_type(&ret, &sig.output);
    let error_type = match (&ret, &sig.output) {
        (Ret::Result, ReturnType::Type(_, ty)) => result_error(ty).cloned(),
        _ => None,
    };
    Tool {
        name: raw.args.name.as_ref().map_or_else(|| sig.ident.to_string(), syn::LitStr::value),
        title: raw.args.title.as_ref().map(syn::LitStr::value),
        description: join_docs(&raw.docs),
        strict: raw.args.strict.is_present(),
        read_only: raw.args.read_only,
        destructive: raw.args.destructive,
        idempotent: raw.args.idempotent,
        open_world: raw.args.open_world,
        params,
        ret,
        ret_span,
        error_type,
        timeout_ms,
        output_schema: raw.args.output_schema.clone(),
        confirm: raw.args.confirm.clone(),
        idempotency_key,
        rate_limit,
        scopes,
        tier,
        context: raw.context.as_ref().map(|c| (c.position, c.by_ref)),
        data_type,
    }
}

/// `"30/min"` as (30, 60 000 ms): `N/s`, `N/min` or `N/h`, N from 1 (envelope-core's
/// `RateLimit::from_str` reads the same forms at run time).
pub fn rate_limit(text: &str) -> Result<(u32, u64), String> {
    let form = "a rate limit is `\"N/s\"`, `\"N/min\"` or `\"N/h\"`, like `rate_limit = \"30/min\"`";
    let Some((n, unit)) = text.split_once('/') else {
        return Err(format!("`rate_limit` has no `/`: {form}"));
    };
    let ms = match unit.trim() {
        "s" | "sec" | "second" => 1_000,
        "m" | "min" | "minute" => 60_000,
        "h" | "hour" => 3_600_000,
        other => return Err(format!("`{other}` is not a period of `rate_limit`: {form}")),
    };
    match n.trim().parse::<u32>() {
        Ok(0) => Err(format!(
            "`rate_limit` of 0 calls would refuse every call: {form}; to turn a tool off, leave it out of the toolbox"
        )),
        Ok(count) => Ok((count, ms)),
        Err(_) => Err(format!("`{}` is not a whole number of calls from 1 to 4294967295: {form}", n.trim())),
    }
}

/// `scopes = [...]`: at least one, each a string literal holding one OAuth scope token
/// (RFC 6749 §3.3: `%x21 / %x23-5B / %x5D-7E`, so no space, `"` or `\\`), each once.
fn check_scopes(list: &syn::ExprArray, errors: &mut crate::diag::Accumulator) -> Vec<String> {
    if list.elems.is_empty() {
        errors.push(
            Error::custom("`scopes` names at least one scope, like `scopes = [\"notes:write\"]`; drop `scopes` for a tool any caller may call")
                .with_span(list),
        );
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for elem in &list.elems {
        let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = elem else {
            errors.push(Error::custom("a scope is a string, like `\"notes:write\"`").with_span(elem));
            continue;
        };
        let scope = s.value();
        let token = !scope.is_empty()
            && scope.bytes().all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b));
        if !scope.is_empty() && scope.contains(' ') && !scope.contains(['"', '\\']) {
            let split: Vec<String> = scope.split_whitespace().map(|s| format!("\"{s}\"")).collect();
            errors.push(
                Error::custom(format!(
                    "a scope is one OAuth scope token, without spaces: list each scope as its own string, like `scopes = [{}]`",
                    split.join(", ")
                ))
                .with_span(s),
            );
        } else if !token {
            errors.push(
                Error::custom("a scope is one OAuth scope token (RFC 6749 §3.3): visible ASCII characters, no space, `\"` or `\\`, like `\"notes:write\"`")
                    .with_span(s),
            );
        } else if out.contains(&scope) {
            errors
                .push(Error::custom(format!("the scope `{scope}` is listed twice: list each scope once")).with_span(s));
        } else {
            out.push(scope);
        }
    }
    out
}

const RENAME_RULES: &[(&str, ident_case::RenameRule)] = &[
    ("lowercase", ident_case::RenameRule::LowerCase),
    ("PascalCase", ident_case::RenameRule::PascalCase),
    ("camelCase", ident_case::RenameRule::CamelCase),
    ("snake_case", ident_case::RenameRule::SnakeCase),
    ("SCREAMING_SNAKE_CASE", ident_case::RenameRule::ScreamingSnakeCase),
    ("kebab-case", ident_case::RenameRule::KebabCase),
];

/// serde's `rename_all` words.
pub fn rename_rule(value: &str) -> Result<ident_case::RenameRule, String> {
    RENAME_RULES.iter().find(|(name, _)| *name == value).map(|(_, r)| *r).ok_or_else(|| {
        let names: Vec<&str> = RENAME_RULES.iter().map(|(n, _)| *n).collect();
        let close = crate::rules::closest(value, names.iter().copied());
        let hint = close.map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
        format!(
            "`rename_all` takes one of {}{hint}",
            names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
        )
    })
}

/// The wire name of a parameter, with `rename` or the tool's `rename_all`.
fn wire_name(ident: &syn::Ident, rename: Option<&LitStr>, rule: Option<ident_case::RenameRule>) -> String {
    if let Some(r) = rename {
        return r.value();
    }
    let name = ident.to_string();
    let name = name.strip_prefix("r#").map(str::to_owned).unwrap_or(name);
    match rule {
        Some(rule) => rule.apply_to_field(&name),
        None => name,
    }
}

/// The literal's JSON kind matches the parameter's.
fn literal_fits(e: &Expr, kind: Kind) -> bool {
    match (kind, e) {
        (Kind::Int { .. }, e) => matches!(number(e), Some(NumV::Int(_))),
        (Kind::Float, e) => number(e).is_some(),
        (Kind::Str, Expr::Lit(ExprLit { lit: Lit::Str(_), .. })) => true,
        (Kind::Bool, Expr::Lit(ExprLit { lit: Lit::Bool(_), .. })) => true,
        _ => false,
    }
}

pub fn check_cross(params: &[Param], raws: &[RawParam], errors: &mut crate::diag::Accumulator) {
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    for (i, (n, rp)) in names.iter().zip(raws).enumerate() {
        if names[..i].contains(n) {
            errors.push(
                Error::custom(format!("two parameters are named \"{n}\" on the wire: rename one")).with_span(&rp.ident),
            );
        }
    }
    let unknown = |lit: &LitStr, this: &str, errors: &mut crate::diag::Accumulator| -> Option<usize> {
        let v = lit.value();
        if v == this {
            errors.push(
                Error::custom("a parameter cannot require or exclude itself: name another parameter").with_span(lit),
            );
            return None;
        }
        match names.iter().position(|n| *n == v) {
            Some(i) => Some(i),
            None => {
                let close = crate::rules::closest(&v, names.iter().copied());
                let hint = close.map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
                errors.push(
                    Error::custom(format!(
                        "`{v}` is not a parameter of this tool (parameters: {}){hint}",
                        names.join(", ")
                    ))
                    .with_span(lit),
                );
                None
            }
        }
    };
    for (p, rp) in params.iter().zip(raws) {
        for req in &rp.validate.requires {
            if let (true, Some(w)) = (p.rules.secret, &req.when) {
                errors.push(Error::custom("`when` on a `secret` parameter would put the secret's value in the schema and in refusals: use `requires = \"other\"` (whenever it is sent), or drop `secret`").with_span(w));
            }
            if let Some(w) = &req.when
                && !literal_fits(w, p.kind)
            {
                errors.push(
                    Error::custom(format!("`when` is a value of `{}`, which is {}", p.name, p.kind.words()))
                        .with_span(w),
                );
            }
            for (lit, value) in &req.then {
                let target = unknown(lit, &p.name, errors);
                if let (Some(i), Some(v)) = (target, value)
                    && params[i].rules.secret
                {
                    errors.push(Error::custom(format!("`{0}` is `secret`: requiring a value of it would put that value in the schema and in refusals; write `requires = \"{0}\"` (it must be sent)", params[i].name)).with_span(v));
                }
                if let (Some(i), Some(v)) = (target, value)
                    && !literal_fits(v, params[i].kind)
                {
                    errors.push(
                        Error::custom(format!(
                            "`{}` is {}: the required value is a literal of that type",
                            params[i].name,
                            params[i].kind.words()
                        ))
                        .with_span(v),
                    );
                }
            }
        }
        for lit in &rp.validate.excludes {
            unknown(lit, &p.name, errors);
        }
    }
}

pub fn check_param(
    raw: &RawParam,
    rename_all: Option<ident_case::RenameRule>,
    errors: &mut crate::diag::Accumulator,
) -> Param {
    let (optional, inner) = match option_inner(&raw.ty) {
        Some(t) => (true, t),
        None => (false, &raw.ty),
    };
    if let Type::Reference(r) = inner {
        errors.push(
            Error::custom(
                "a tool parameter owns its value: write `String` instead of `&str`, `Vec<T>` instead of `&[T]`",
            )
            .with_span(r),
        );
    }
    let kind = kind_of(inner);
    let v = &raw.validate;
    let rules = check_rules(v, inner, errors);
    let mut description = join_docs(&raw.docs);
    if let Some(d) = &v.desc {
        if !description.is_empty() {
            errors.push(
                Error::custom(
                    "this parameter has a doc comment already; keep one description: the doc comment or `desc`",
                )
                .with_span(d),
            );
        }
        description = d.value();
    }
    let default = v.default.as_ref().and_then(|d| {
        let span = d.span();
        if optional {
            errors.push(
                Error::custom(format!(
                    "a default makes `{}` optional already: declare it as `{}` without `Option`",
                    raw.ident,
                    quote::ToTokens::to_token_stream(inner)
                ))
                .with_span(&span),
            );
            return None;
        }
        check_default(&d.0, kind, rules.range, rules.choices.as_ref(), errors);
        if let (Some(step), Some(n)) = (rules.multiple_of, number(&d.0)) {
            let whole = (n.f() / step.f()).round() * step.f();
            if (whole - n.f()).abs() > 1e-9 * (n.f() / step.f()).abs().max(1.0) * step.f() {
                errors.push(Error::custom(format!("the default {} is not a multiple of {}: a caller who leaves it out would get a value the tool refuses", show(n), show(step))).with_span(&d.0));
            }
        }
        if let (Some((min, max, unit)), Expr::Lit(ExprLit { lit: Lit::Str(s), .. })) = (rules.length, &d.0) {
            let n = if unit == "Bytes" { s.value().len() } else { s.value().chars().count() };
            if n < min || max.is_some_and(|m| n > m) {
                let what = if unit == "Bytes" { "bytes" } else { "characters" };
                errors.push(Error::custom(format!("the default is {n} {what} long, outside this parameter's `length`: a caller who leaves it out would get a value the tool refuses")).with_span(&d.0));
            }
        }
        Some(DefaultV { expr: d.0.clone(), span })
    });
    let name = wire_name(&raw.ident, v.rename.as_ref(), rename_all);
    let requires = v
        .requires
        .iter()
        .map(|r| RequiresV { when: r.when.clone(), then: r.then.iter().map(|(n, e)| (n.value(), e.clone())).collect() })
        .collect();
    let excludes = v.excludes.iter().map(LitStr::value).collect();
    Param { name, requires, excludes, ty: raw.ty.clone(), kind, description, rules, default, optional }
}

/// A secret's items are secret too, at every depth: no part of it is ever echoed.
fn mark_secret(rules: &mut RulesV) {
    rules.secret = true;
    if let Some(items) = &mut rules.items {
        mark_secret(items);
    }
}

/// The rules of one value of type `ty` (a parameter without its `Option`, or an item).
fn check_rules(v: &ValidateArgs, ty: &Type, errors: &mut crate::diag::Accumulator) -> RulesV {
    let kind = kind_of(ty);
    let range = v.range.as_ref().and_then(|r| check_range(r, kind, errors));
    let choices = v.choices.as_ref().and_then(|c| check_choices(c, kind, errors));
    let multiple_of = v.multiple_of.as_ref().and_then(|m| check_multiple_of(&m.0, m.span(), kind, errors));
    let mut by_trait = Vec::new();
    if kind == Kind::Other {
        let spans = [
            (
                "range",
                range.and(v.range.as_ref()).map(|r| match r {
                    RangeArg::Rust(r) => r.span(),
                    RangeArg::Keys(k) => k.span,
                }),
            ),
            ("multiple_of", multiple_of.and(v.multiple_of.as_ref()).map(|m| m.span())),
        ];
        for (name, span) in spans {
            if let (Some(span), Some(f)) = (span, crate::rules::rule(name).and_then(|r| r.by_trait)) {
                by_trait.push((name, span, ty.clone(), f));
            }
        }
    }
    let secret = v.secret.is_present();
    if secret && choices.is_some() {
        errors.push(Error::custom("`secret` with `choices` would list the secret's possible values in the schema and in every refusal: drop one of them").with_span(&v.secret.span()));
    }
    let length = match (&v.length, &v.byte_length) {
        (Some(_), Some(b)) => {
            errors.push(Error::custom("give one of `length` (characters) and `byte_length` (bytes)").with_span(b));
            None
        }
        (Some(l), None) if applies("length", kind, l.span(), errors) => {
            check_length(l, if kind == Kind::Array { "Items" } else { "Characters" }, errors)
        }
        (None, Some(b)) if applies("byte_length", kind, b.span(), errors) => check_length(b, "Bytes", errors),
        (Some(_), None) | (None, Some(_)) => None,
        (None, None) => None,
    };
    let pattern = v.pattern.as_ref().and_then(|p| {
        if !applies("pattern", kind, p.span(), errors) {
            return None;
        }
        if let Err(e) = regex_syntax::Parser::new().parse(&p.value()) {
            let detail = e.to_string();
            let last = detail.lines().last().unwrap_or("").trim().trim_start_matches("error: ");
            errors.push(Error::custom(format!("this regex does not compile: {last}")).with_span(p));
            return None;
        }
        Some((p.value(), v.example.as_ref().map(LitStr::value)))
    });
    if let (Some(e), None) = (&v.example, &v.pattern) {
        errors.push(
            Error::custom("`example` shows the form a `pattern` wants: add `pattern = \"...\"` or remove `example`")
                .with_span(e),
        );
    }
    let items = v.each.as_ref().and_then(|each| {
        if !applies("each", kind, each.span(), errors) {
            return None;
        }
        let item = vec_item(ty)?;
        if let Some(d) = &each.default {
            errors
                .push(Error::custom("an item has no default: put `default` outside `each(...)`").with_span(&d.span()));
        }
        if let Some(d) = &each.desc {
            errors.push(Error::custom("describe the parameter outside `each(...)`").with_span(d));
        }
        let mut items = check_rules(each, item, errors);
        if v.secret.is_present() {
            mark_secret(&mut items);
        }
        Some(Box::new(items))
    });
    if v.ignore_case.is_present() && !matches!(choices, Some(ChoicesV::Str(_))) {
        errors.push(
            Error::custom("`ignore_case` goes with string `choices`: add `choices = [\"...\"]` or remove it")
                .with_span(&v.ignore_case.span()),
        );
    }
    let format = v.format.as_ref().and_then(|f| {
        const FORMATS: &[&str] = &["date", "date-time", "uuid", "email", "uri"];
        let value = f.value();
        if !applies("format", kind, f.span(), errors) {
            return None;
        }
        match FORMATS.iter().find(|x| **x == value) {
            Some(x) => Some(*x),
            None => {
                let close = crate::rules::closest(&value, FORMATS.iter().copied());
                let hint = close.map(|x| format!("; did you mean \"{x}\"?")).unwrap_or_default();
                errors.push(
                    Error::custom(format!(
                        "`format` takes one of \"date\", \"date-time\", \"uuid\", \"email\", \"uri\"{hint}"
                    ))
                    .with_span(f),
                );
                None
            }
        }
    });
    for bad in [&v.message, &v.error].into_iter().flatten() {
        errors.push(Error::custom("a refusal's message is generated so it always quotes the rejected value, lists the accepted set and names the fix: write `fix = \"...\"` for the move that fixes the call, or `reason = \"...\"` for a short reason").with_span(&bad.span()));
    }
    RulesV {
        by_trait,
        range,
        multiple_of,
        choices,
        secret,
        length,
        pattern,
        items,
        ignore_case: v.ignore_case.is_present(),
        format,
        fix: v.fix.as_ref().map(LitStr::value),
        reason: v.reason.as_ref().map(LitStr::value),
    }
}

/// `multiple_of = 5`: on a number, a finite literal above 0, whole for an integer parameter.
fn check_multiple_of(e: &Expr, span: Span, kind: Kind, errors: &mut crate::diag::Accumulator) -> Option<NumV> {
    if !applies("multiple_of", kind, span, errors) {
        return None;
    }
    let Some(n) = number(e) else {
        let words = crate::rules::form_words("multiple_of").unwrap_or_default();
        errors.push(Error::custom(words).with_span(e));
        return None;
    };
    if !(n.f() > 0.0 && n.f().is_finite()) {
        errors.push(
            Error::custom(format!(
                "`multiple_of = {}` gives no step to count by: write a number above 0, like `multiple_of = 5`",
                show(n)
            ))
            .with_span(e),
        );
        return None;
    }
    match (kind, n) {
        (Kind::Int { .. }, NumV::Float(f)) => {
            errors.push(
                Error::custom(format!(
                    "{f} is not a whole number, and this parameter is an integer: use a whole step, or make the parameter `f64`"
                ))
                .with_span(e),
            );
            None
        }
        (Kind::Float, NumV::Int(i)) => Some(NumV::Float(i as f64)),
        _ => Some(n),
    }
}

fn check_length(
    r: &syn::ExprRange,
    unit: &'static str,
    errors: &mut crate::diag::Accumulator,
) -> Option<(usize, Option<usize>, &'static str)> {
    let bound = |e: &Expr, errors: &mut crate::diag::Accumulator| match number(e) {
        Some(NumV::Int(i)) if i >= 0 && usize::try_from(i).is_ok() => Some(i as usize),
        _ => {
            errors.push(Error::custom("a length bound is a whole number of 0 or more").with_span(e));
            None
        }
    };
    let min = match &r.start {
        Some(e) => bound(e, errors)?,
        None => 0,
    };
    let max = match (&r.end, &r.limits) {
        (Some(e), RangeLimits::Closed(_)) => Some(bound(e, errors)?),
        (Some(e), RangeLimits::HalfOpen(_)) => match bound(e, errors)? {
            0 => {
                errors.push(
                    Error::custom(
                        "`..0` holds no length: write `..=0` for an empty value, or a larger end like `..=120`",
                    )
                    .with_node(r),
                );
                return None;
            }
            b => Some(b - 1),
        },
        (None, _) => None,
    };
    if r.start.is_none() && r.end.is_none() {
        errors.push(
            Error::custom("`length = ..` has no bound: write `length = 1..=120`, `1..`, or `..=120`").with_node(r),
        );
        return None;
    }
    if let Some(b) = max
        && min > b
    {
        errors.push(
            Error::custom(format!("this length range holds no value: write the lower bound first, like `{b}..={min}`"))
                .with_node(r),
        );
        return None;
    }
    Some((min, max, unit))
}

/// A numeric literal, possibly negated.
fn number(e: &Expr) -> Option<NumV> {
    match e {
        Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) => i.base10_parse::<i128>().ok().map(NumV::Int),
        Expr::Lit(ExprLit { lit: Lit::Float(f), .. }) => f.base10_parse::<f64>().ok().map(NumV::Float),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match number(&u.expr)? {
            NumV::Int(i) => Some(NumV::Int(-i)),
            NumV::Float(f) => Some(NumV::Float(-f)),
        },
        Expr::Group(g) => number(&g.expr),
        Expr::Paren(p) => number(&p.expr),
        _ => None,
    }
}

fn check_bound(e: &Expr, kind: Kind, errors: &mut crate::diag::Accumulator) -> Option<NumV> {
    let Some(n) = number(e) else {
        errors.push(Error::custom("a range bound is a number literal, like `1` or `0.5`").with_span(e));
        return None;
    };
    match (kind, n) {
        (Kind::Int { min, max, name }, NumV::Int(i)) => {
            if i < min || i > max {
                errors.push(Error::custom(format!("{i} is not a `{name}`: a `{name}` holds {min} to {max}; use a bound in that span or a wider type")).with_span(e));
                return None;
            }
            Some(n)
        }
        (Kind::Int { .. }, NumV::Float(f)) => {
            errors.push(Error::custom(format!("{f} is not a whole number, and this parameter is an integer: use a whole bound, or make the parameter `f64`")).with_span(e));
            None
        }
        (Kind::Float, NumV::Float(f)) if !f.is_finite() => {
            errors.push(Error::custom("a range bound is finite").with_span(e));
            None
        }
        (Kind::Float, NumV::Int(i)) => Some(NumV::Float(i as f64)),
        _ => Some(n),
    }
}

fn check_range(r: &RangeArg, kind: Kind, errors: &mut crate::diag::Accumulator) -> Option<(BoundV, BoundV)> {
    let span = match r {
        RangeArg::Rust(r) => r.span(),
        RangeArg::Keys(k) => k.span,
    };
    if !applies("range", kind, span, errors) {
        return None;
    }
    match r {
        RangeArg::Rust(r) => check_rust_range(r, kind, errors),
        RangeArg::Keys(k) => check_range_keys(k, kind, errors),
    }
}

/// `range(min = .., max = .., exclusive_min = .., exclusive_max = ..)`: at most one bound per
/// side, at least one in all, each a literal the type holds, and some value between them.
fn check_range_keys(k: &RangeKeys, kind: Kind, errors: &mut crate::diag::Accumulator) -> Option<(BoundV, BoundV)> {
    let mut side = |incl: &Option<Expr>, excl: &Option<Expr>, which: &str| -> Option<BoundV> {
        match (incl, excl) {
            (Some(_), Some(e)) => {
                let (a, b) = if which == "lower" { ("min", "exclusive_min") } else { ("max", "exclusive_max") };
                errors.push(
                    Error::custom(format!(
                        "give one {which} bound: `{a}` (the value may equal it) or `{b}` (it may not), not both"
                    ))
                    .with_span(e),
                );
                None
            }
            (Some(e), None) => Some(BoundV::Incl(check_bound(e, kind, errors)?)),
            (None, Some(e)) => Some(BoundV::Excl(check_bound(e, kind, errors)?)),
            (None, None) => Some(BoundV::Unbounded),
        }
    };
    let lo = side(&k.min, &k.exclusive_min, "lower");
    let hi = side(&k.max, &k.exclusive_max, "upper");
    let (lo, hi) = (lo?, hi?);
    if matches!((lo, hi), (BoundV::Unbounded, BoundV::Unbounded)) {
        errors.push(Error::custom("`range(...)` has no bound: write `range(min = 1, max = 720)`, `range(exclusive_min = 0)`, or `range(max = 720)`").with_span(&k.span));
        return None;
    }
    if holds_no_value(lo, hi, kind) {
        let written = |b: BoundV, incl: &str, excl: &str| match b {
            BoundV::Incl(n) => format!("{incl} = {}", show(n)),
            BoundV::Excl(n) => format!("{excl} = {}", show(n)),
            BoundV::Unbounded => String::new(),
        };
        let (l, h) = (written(lo, "min", "exclusive_min"), written(hi, "max", "exclusive_max"));
        let what = if matches!(kind, Kind::Int { .. }) { "no whole number" } else { "no number" };
        let msg = match (lo, hi) {
            (BoundV::Unbounded, _) | (_, BoundV::Unbounded) => {
                let name = match kind {
                    Kind::Int { name, .. } => name,
                    _ => "f64",
                };
                format!("`{l}{h}` leaves no value a `{name}` holds: use a bound inside the type's span")
            }
            _ if lo.f() > hi.f() => {
                format!("`{l}, {h}` holds no value: the lower bound is above the upper one; swap them")
            }
            _ => format!(
                "`{l}, {h}` holds {what}: an exclusive bound leaves out its own value; widen the range, or write `min`/`max` to take a bound in"
            ),
        };
        errors.push(Error::custom(msg).with_span(&k.span));
        return None;
    }
    Some((lo, hi))
}

/// Whether no value of `kind` lies within `lo` and `hi` (exclusive bounds leave out their own
/// value; between two integers `4` and `5` exclusive, no whole number lies).
fn holds_no_value(lo: BoundV, hi: BoundV, kind: Kind) -> bool {
    if let Kind::Int { min, max, .. } = kind {
        let low = match lo {
            BoundV::Unbounded => min,
            BoundV::Incl(n) => int_of(n),
            BoundV::Excl(n) => int_of(n).saturating_add(1),
        };
        let high = match hi {
            BoundV::Unbounded => max,
            BoundV::Incl(n) => int_of(n),
            BoundV::Excl(n) => int_of(n).saturating_sub(1),
        };
        return low > high || low > max || high < min;
    }
    match (lo, hi) {
        (BoundV::Unbounded, _) | (_, BoundV::Unbounded) => false,
        (BoundV::Incl(a), BoundV::Incl(b)) => a.f() > b.f(),
        (a, b) => a.f() >= b.f(),
    }
}

fn int_of(n: NumV) -> i128 {
    match n {
        NumV::Int(i) => i,
        NumV::Float(f) => f as i128,
    }
}

impl BoundV {
    fn f(self) -> f64 {
        match self {
            BoundV::Unbounded => f64::NAN,
            BoundV::Incl(n) | BoundV::Excl(n) => n.f(),
        }
    }
}

fn check_rust_range(r: &syn::ExprRange, kind: Kind, errors: &mut crate::diag::Accumulator) -> Option<(BoundV, BoundV)> {
    let lo = match &r.start {
        Some(e) => BoundV::Incl(check_bound(e, kind, errors)?),
        None => BoundV::Unbounded,
    };
    let hi = match (&r.end, &r.limits) {
        (Some(e), RangeLimits::Closed(_)) => BoundV::Incl(check_bound(e, kind, errors)?),
        (Some(e), RangeLimits::HalfOpen(_)) => BoundV::Excl(check_bound(e, kind, errors)?),
        (None, _) => BoundV::Unbounded,
    };
    let empty = match (lo, hi) {
        (BoundV::Unbounded, BoundV::Unbounded) => {
            errors.push(
                Error::custom("`range = ..` has no bound: write `range = 1..=720`, `1..`, or `..=720`").with_node(r),
            );
            return None;
        }
        (BoundV::Incl(a), BoundV::Incl(b)) => a.f() > b.f(),
        (BoundV::Incl(a), BoundV::Excl(b)) => a.f() >= b.f(),
        _ => false,
    };
    if empty {
        let msg = match (lo, hi) {
            (BoundV::Incl(a), BoundV::Incl(b)) => {
                format!("this range holds no value: write the lower bound first, like `{}..={}`", show(b), show(a))
            }
            (BoundV::Incl(a), BoundV::Excl(b)) if a.f() == b.f() => format!(
                "`{a}..{a}` holds no value: a half-open range excludes its end; write `{a}..={a}` for exactly {a}",
                a = show(a)
            ),
            (BoundV::Incl(a), BoundV::Excl(b)) => {
                format!("this range holds no value: write the lower bound first, like `{}..{}`", show(b), show(a))
            }
            _ => "this range holds no value".to_owned(),
        };
        errors.push(Error::custom(msg).with_node(r));
        return None;
    }
    Some((lo, hi))
}

fn show(n: NumV) -> String {
    match n {
        NumV::Int(i) => i.to_string(),
        NumV::Float(f) => format!("{f:?}"),
    }
}

fn check_choices(c: &syn::ExprArray, kind: Kind, errors: &mut crate::diag::Accumulator) -> Option<ChoicesV> {
    if c.elems.is_empty() {
        errors.push(
            Error::custom("`choices` is empty: list the accepted values, like `choices = [\"a\", \"b\"]`").with_span(c),
        );
        return None;
    }
    match kind {
        Kind::Str => {
            let mut out: Vec<String> = Vec::new();
            for e in &c.elems {
                match e {
                    Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => {
                        if out.contains(&s.value()) {
                            errors.push(
                                Error::custom(format!("{:?} is listed twice in `choices`", s.value())).with_span(e),
                            );
                        }
                        out.push(s.value());
                    }
                    _ => errors.push(
                        Error::custom("this parameter is a string: each choice is a string literal, like \"database\"")
                            .with_span(e),
                    ),
                }
            }
            Some(ChoicesV::Str(out))
        }
        Kind::Int { min, max, name } => {
            let mut out: Vec<i64> = Vec::new();
            for e in &c.elems {
                match number(e) {
                    Some(NumV::Int(i)) if i >= min && i <= max && i64::try_from(i).is_ok() => {
                        let i = i as i64;
                        if out.contains(&i) {
                            errors.push(Error::custom(format!("{i} is listed twice in `choices`")).with_span(e));
                        }
                        out.push(i);
                    }
                    Some(NumV::Int(i)) => errors.push(Error::custom(format!("{i} is not a `{name}`")).with_span(e)),
                    _ => errors.push(
                        Error::custom("this parameter is an integer: each choice is an integer literal").with_span(e),
                    ),
                }
            }
            Some(ChoicesV::Int(out))
        }
        _ => {
            applies("choices", kind, c.span(), errors);
            None
        }
    }
}

fn check_default(
    d: &Expr,
    kind: Kind,
    range: Option<(BoundV, BoundV)>,
    choices: Option<&ChoicesV>,
    errors: &mut crate::diag::Accumulator,
) {
    let lit_ok = match (kind, d) {
        (Kind::Int { .. } | Kind::Float, e) => number(e).is_some(),
        (Kind::Str, Expr::Lit(ExprLit { lit: Lit::Str(_), .. })) => true,
        (Kind::Bool, Expr::Lit(ExprLit { lit: Lit::Bool(_), .. })) => true,
        (Kind::Other | Kind::Array, _) => {
            errors.push(Error::custom("`default` applies to integer, float, bool and string parameters").with_span(d));
            return;
        }
        _ => false,
    };
    if !lit_ok {
        errors.push(
            Error::custom(format!("this parameter is {}: the default is a literal of that type", kind.words()))
                .with_span(d),
        );
        return;
    }
    if let (Some(n), Some((lo, hi))) = (number(d), range) {
        if let (Kind::Int { .. }, NumV::Float(_)) = (kind, n) {
            errors.push(
                Error::custom("the default is not a whole number, and this parameter is an integer").with_span(d),
            );
            return;
        }
        let x = n.f();
        let ok_lo = match lo {
            BoundV::Unbounded => true,
            BoundV::Incl(a) => x >= a.f(),
            BoundV::Excl(a) => x > a.f(),
        };
        let ok_hi = match hi {
            BoundV::Unbounded => true,
            BoundV::Incl(b) => x <= b.f(),
            BoundV::Excl(b) => x < b.f(),
        };
        if !(ok_lo && ok_hi) {
            errors.push(Error::custom(format!("the default {} is outside this parameter's `range`: a caller who leaves it out would get a value the tool refuses", show(n))).with_span(d));
        }
    }
    match (choices, d) {
        (Some(ChoicesV::Str(c)), Expr::Lit(ExprLit { lit: Lit::Str(s), .. })) if !c.contains(&s.value()) => {
            errors.push(Error::custom(format!("the default {:?} is not one of the `choices`", s.value())).with_span(d));
        }
        (Some(ChoicesV::Int(c)), e) => {
            if let Some(NumV::Int(i)) = number(e)
                && !c.iter().any(|&x| i128::from(x) == i)
            {
                errors.push(Error::custom(format!("the default {i} is not one of the `choices`")).with_span(d));
            }
        }
        _ => {}
    }
}

fn check_return(output: &ReturnType, errors: &mut crate::diag::Accumulator) -> (Ret, Span) {
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
fn data_type(ret: &Ret, output: &ReturnType) -> Option<Type> {
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

/// `E` of `Result<T, E>`.
fn result_error(ty: &Type) -> Option<&Type> {
    let Type::Path(tp) = ty else { return None };
    let seg = tp.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &seg.arguments else { return None };
    args.args
        .iter()
        .filter_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .nth(1)
}

fn is_named(ty: &Type, name: &str) -> bool {
    matches!(ty, Type::Path(tp) if tp.path.segments.last().is_some_and(|s| s.ident == name))
}

fn is_boxed_dyn(ty: &Type) -> bool {
    let Type::Path(tp) = ty else { return false };
    let Some(seg) = tp.path.segments.last() else { return false };
    if seg.ident != "Box" {
        return false;
    }
    matches!(&seg.arguments, PathArguments::AngleBracketed(a) if a.args.iter().any(|g| matches!(g, GenericArgument::Type(Type::TraitObject(_)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `check_range` on what `#[validate(...)]` parses to, for a parameter of type `ty`: the
    /// bounds, or every error message.
    fn range_of(attr: syn::Attribute, ty: Type) -> Result<String, Vec<String>> {
        let mut errors = crate::diag::Error::accumulator();
        let mut attrs = vec![attr];
        let (v, _) = crate::attr::take_validate(&mut attrs, &mut errors);
        let bounds = v.range.as_ref().and_then(|r| check_range(r, kind_of(&ty), &mut errors));
        match errors.finish() {
            Ok(()) => Ok(format!("{:?}", bounds.expect("bounds when there is no error"))),
            Err(e) => Err(e.into_iter().map(|e| e.to_string()).collect()),
        }
    }

    /// Parse and check of `#[tool(args)]` on `item`, in process: every error message.
    fn tool_errors(args: proc_macro2::TokenStream, item: syn::ItemFn) -> Vec<String> {
        let mut errors = crate::diag::Error::accumulator();
        let raw = crate::attr::parse(args, item, false, &mut errors);
        check(&raw, &mut errors);
        errors.finish().err().map(|e| e.into_iter().map(|e| e.to_string()).collect()).unwrap_or_default()
    }

    #[test]
    fn three_mistakes_in_one_tool_are_three_errors_in_order() {
        let errors = tool_errors(
            quote::quote!(),
            syn::parse_quote! {
                fn report(
                    #[validate(rnage = 1..=720)] hours_back: u32,
                    #[validate(range = 1..=120)] query: String,
                    #[validate(range = 1..=100, default = 500)] top: u32,
                ) -> u32 { 0 }
            },
        );
        assert_eq!(
            errors,
            [
                "unknown rule `rnage`; did you mean `range`?",
                "`range` applies to integer and float parameters, and this one is a string; for a length write `length = 1..=120`",
                "the default 500 is outside this parameter's `range`: a caller who leaves it out would get a value the tool refuses",
            ]
        );
    }

    #[test]
    fn rules_across_parameters_are_checked_against_the_tool() {
        let errors = tool_errors(
            quote::quote!(rename_all = "camelcase"),
            syn::parse_quote! {
                fn page(
                    #[validate(requires = "page_sise", excludes = "cursor")] cursor: Option<String>,
                    page_size: Option<u32>,
                ) -> bool { true }
            },
        );
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].ends_with("did you mean `camelCase`?"), "{errors:?}");
        assert_eq!(
            errors[1],
            "`page_sise` is not a parameter of this tool (parameters: cursor, page_size); did you mean `page_size`?"
        );
        assert_eq!(errors[2], "a parameter cannot require or exclude itself: name another parameter");
        let fine = tool_errors(
            quote::quote!(read_only),
            syn::parse_quote! {
                fn page(#[validate(requires = "page_size")] cursor: Option<String>, page_size: Option<u32>) -> bool { true }
            },
        );
        assert!(fine.is_empty(), "{fine:?}");
    }

    #[test]
    fn named_bounds_become_the_same_model_as_a_rust_range() {
        let named = range_of(syn::parse_quote!(#[validate(range(min = 1, max = 720))]), syn::parse_quote!(u32));
        let rust = range_of(syn::parse_quote!(#[validate(range = 1..=720)]), syn::parse_quote!(u32));
        assert_eq!(named, rust);
        assert_eq!(named, Ok("(Incl(Int(1)), Incl(Int(720)))".to_owned()));
        assert_eq!(
            range_of(syn::parse_quote!(#[validate(range(exclusive_min = 0.0, max = 1))]), syn::parse_quote!(f64)),
            Ok("(Excl(Float(0.0)), Incl(Float(1.0)))".to_owned())
        );
        assert_eq!(
            range_of(syn::parse_quote!(#[validate(range(exclusive_max = 10))]), syn::parse_quote!(i64)),
            Ok("(Unbounded, Excl(Int(10)))".to_owned())
        );
    }

    #[test]
    fn every_mistake_in_one_range_is_reported() {
        let errors = range_of(
            syn::parse_quote!(#[validate(range(min = 0, exclusive_min = 1, max = 5, exclusive_max = 6))]),
            syn::parse_quote!(u32),
        )
        .unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].starts_with("give one lower bound"), "{errors:?}");
        assert!(errors[1].starts_with("give one upper bound"), "{errors:?}");
        let errors = range_of(
            syn::parse_quote!(#[validate(range(maximum = 1, exclusiveMinimum = 0, max = 2, max = 3))]),
            syn::parse_quote!(u32),
        )
        .unwrap_err();
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].contains("unknown `range` key `maximum`; did you mean `max`?"), "{errors:?}");
        assert!(
            errors[1].contains("unknown `range` key `exclusiveMinimum`; did you mean `exclusive_min`?"),
            "{errors:?}"
        );
        assert!(errors[2].contains("`max` is given twice"), "{errors:?}");
    }

    /// `check_rules` on `#[validate(...)]` for a value of type `ty`: the checked `multiple_of`
    /// and the types left to a trait bound, or every error message.
    fn multiple_of(attr: syn::Attribute, ty: Type) -> Result<(Option<String>, Vec<&'static str>), Vec<String>> {
        let mut errors = crate::diag::Error::accumulator();
        let mut attrs = vec![attr];
        let (v, _) = crate::attr::take_validate(&mut attrs, &mut errors);
        let rules = check_rules(&v, &ty, &mut errors);
        match errors.finish() {
            Ok(()) => Ok((
                rules.multiple_of.map(|m| format!("{m:?}")),
                rules.by_trait.iter().map(|(rule, _, _, f)| if *f == "numeric" { *rule } else { "?" }).collect(),
            )),
            Err(e) => Err(e.into_iter().map(|e| e.to_string()).collect()),
        }
    }

    #[test]
    fn multiple_of_is_a_step_above_zero_of_the_type() {
        assert_eq!(
            multiple_of(syn::parse_quote!(#[validate(multiple_of = 5)]), syn::parse_quote!(u32)),
            Ok((Some("Int(5)".to_owned()), vec![]))
        );
        assert_eq!(
            multiple_of(syn::parse_quote!(#[validate(multiple_of = 2)]), syn::parse_quote!(f64)),
            Ok((Some("Float(2.0)".to_owned()), vec![]))
        );
        let zero = multiple_of(syn::parse_quote!(#[validate(multiple_of = 0)]), syn::parse_quote!(u8)).unwrap_err();
        assert_eq!(
            zero,
            ["`multiple_of = 0` gives no step to count by: write a number above 0, like `multiple_of = 5`"]
        );
        let fraction =
            multiple_of(syn::parse_quote!(#[validate(multiple_of = 0.5)]), syn::parse_quote!(i64)).unwrap_err();
        assert!(fraction[0].starts_with("0.5 is not a whole number"), "{fraction:?}");
        let text = multiple_of(syn::parse_quote!(#[validate(multiple_of = "5")]), syn::parse_quote!(u8)).unwrap_err();
        assert_eq!(text, ["`multiple_of` is a number above 0, like `multiple_of = 5`"]);
        let string =
            multiple_of(syn::parse_quote!(#[validate(multiple_of = 5)]), syn::parse_quote!(String)).unwrap_err();
        assert!(string[0].starts_with("`multiple_of` applies to integer and float parameters"), "{string:?}");
    }

    #[test]
    fn a_type_the_macro_cannot_name_is_left_to_a_trait_bound_at_the_rule() {
        assert_eq!(
            multiple_of(syn::parse_quote!(#[validate(range = 1..=720, multiple_of = 5)]), syn::parse_quote!(Hours)),
            Ok((Some("Int(5)".to_owned()), vec!["range", "multiple_of"]))
        );
        // A rule with no trait to decide it is still refused by the macro.
        let length = multiple_of(syn::parse_quote!(#[validate(length = 1..=5)]), syn::parse_quote!(Hours)).unwrap_err();
        assert_eq!(length, ["`length` applies to string and Vec parameters, and this one is this type"]);
    }

    #[test]
    fn a_range_that_holds_nothing_of_the_type_is_refused() {
        let holds_nothing = |attr: syn::Attribute, ty: Type| range_of(attr, ty).unwrap_err().join("\n");
        assert!(
            holds_nothing(syn::parse_quote!(#[validate(range(exclusive_min = 9, max = 9))]), syn::parse_quote!(u8))
                .contains("holds no whole number")
        );
        assert!(
            holds_nothing(syn::parse_quote!(#[validate(range(exclusive_max = 0))]), syn::parse_quote!(u8))
                .contains("leaves no value a `u8` holds")
        );
        assert!(
            holds_nothing(
                syn::parse_quote!(#[validate(range(min = 2.5, exclusive_max = 2.5))]),
                syn::parse_quote!(f32)
            )
            .contains("holds no number")
        );
        // Floats lie between any two different bounds, however close.
        assert!(
            range_of(
                syn::parse_quote!(#[validate(range(exclusive_min = 1.0, exclusive_max = 1.0000001))]),
                syn::parse_quote!(f64)
            )
            .is_ok()
        );
    }
}
