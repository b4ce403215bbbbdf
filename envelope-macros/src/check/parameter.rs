//! A parameter (or an `Object`'s field): its wire name, description, rules and default, and the
//! rules across parameters (`requires`, `excludes`, two parameters named alike on the wire).

use syn::{Expr, ExprLit, Lit, LitStr, Type};

use super::range::number;
use super::value_rules::check_rules;
use crate::attr::{RawParam, join_docs};
use crate::diag::{Accumulator, Error};
use crate::model::{BoundV, ChoicesV, DefaultV, LengthUnit, LengthV, NumV, Param, RangeV, RequiresV};
use crate::ty::{Kind, kind_of, option_inner};

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

pub fn check_cross(params: &[Param], raws: &[RawParam], errors: &mut Accumulator) {
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    for (i, (n, rp)) in names.iter().zip(raws).enumerate() {
        if names[..i].contains(n) {
            errors.push(
                Error::custom(format!("two parameters are named \"{n}\" on the wire: rename one")).with_span(&rp.ident),
            );
        }
    }
    let unknown = |lit: &LitStr, this: &str, errors: &mut Accumulator| -> Option<usize> {
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
                let close = crate::suggest::closest(&v, names.iter().copied());
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
            if let (Some(_), Some(w)) = (p.rules.secret, &req.when) {
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
                    && params[i].rules.secret.is_some()
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

pub fn check_param(raw: &RawParam, rename_all: Option<ident_case::RenameRule>, errors: &mut Accumulator) -> Param {
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
        check_default(&d.0, kind, rules.range.as_deref().copied(), rules.choices.as_deref(), errors);
        if let (Some(step), Some(n)) = (rules.multiple_of.as_deref().copied(), number(&d.0)) {
            let whole = (n.f() / step.f()).round() * step.f();
            if (whole - n.f()).abs() > 1e-9 * (n.f() / step.f()).abs().max(1.0) * step.f() {
                errors.push(Error::custom(format!("the default {} is not a multiple of {}: a caller who leaves it out would get a value the tool refuses", n.show(), step.show())).with_span(&d.0));
            }
        }
        if let (Some(LengthV { min, max, unit }), Expr::Lit(ExprLit { lit: Lit::Str(s), .. })) =
            (rules.length.as_deref().copied(), &d.0)
        {
            let n = if unit == LengthUnit::Bytes { s.value().len() } else { s.value().chars().count() };
            if n < min || max.is_some_and(|m| n > m) {
                let what = if unit == LengthUnit::Bytes { "bytes" } else { "characters" };
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
    let span = raw.ident.span();
    Param { name, span, requires, excludes, ty: raw.ty.clone(), kind, description, rules, default, optional }
}

fn check_default(d: &Expr, kind: Kind, range: Option<RangeV>, choices: Option<&ChoicesV>, errors: &mut Accumulator) {
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
            errors.push(Error::custom(format!("the default {} is outside this parameter's `range`: a caller who leaves it out would get a value the tool refuses", n.show())).with_span(d));
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
