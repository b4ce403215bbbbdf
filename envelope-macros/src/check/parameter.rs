//! A parameter (or an `Object`'s field): its wire name, description, rules and default, and the
//! rules across parameters (`requires`, `excludes`, two parameters named alike on the wire).

use syn::{Expr, ExprLit, Lit, LitStr, Type};

use super::range::{contains, number, range_words};
use super::value_rules::check_rules;
use crate::attr::{RawParam, join_docs};
use crate::diag::{Accumulator, Error};
use crate::model::{ChoicesV, DefaultV, LengthUnit, LengthV, NumV, Param, RangeV, RequiresV, RulesV};
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

/// The rule of a value's declaration that a literal breaks: no value read without a problem
/// could equal it.
enum Misfit<'a> {
    Range(RangeV),
    Choices(&'a ChoicesV),
    MultipleOf(NumV),
    /// The literal is `n` characters (or bytes) long.
    Length(usize, LengthV),
    /// A whole number the integer type does not hold (no `range` or `choices` said more).
    Type {
        name: &'static str,
        min: i128,
        max: i128,
    },
}

impl Misfit<'_> {
    /// What the value accepts, and the rule that says so: `1..=100 (its `range`)`.
    fn accepts(&self) -> String {
        match self {
            Misfit::Range(r) => format!("{} (its `range`)", range_words(*r)),
            Misfit::Choices(ChoicesV::Str(c)) => {
                let c: Vec<String> = c.iter().map(|s| format!("{s:?}")).collect();
                format!("{} (its `choices`)", c.join(", "))
            }
            Misfit::Choices(ChoicesV::Int(c)) => {
                let c: Vec<String> = c.iter().map(i64::to_string).collect();
                format!("{} (its `choices`)", c.join(", "))
            }
            Misfit::MultipleOf(step) => format!("multiples of {} (its `multiple_of`)", step.show()),
            Misfit::Length(_, LengthV { min, max, unit }) => {
                let (what, rule) =
                    if *unit == LengthUnit::Bytes { ("bytes", "byte_length") } else { ("characters", "length") };
                let span = match (min, max) {
                    (min, Some(max)) if min == max => format!("exactly {min}"),
                    (0, Some(max)) => format!("at most {max}"),
                    (min, Some(max)) => format!("{min} to {max}"),
                    (min, None) => format!("at least {min}"),
                };
                format!("{span} {what} (its `{rule}`)")
            }
            Misfit::Type { name, min, max } => format!("{min} to {max} (it is a `{name}`)"),
        }
    }

    /// The value to write instead: `a value in that range`.
    fn instead(&self) -> String {
        match self {
            Misfit::Range(_) | Misfit::Type { .. } => "a value in that range".to_owned(),
            Misfit::Choices(_) => "one of them".to_owned(),
            Misfit::MultipleOf(step) => format!("a multiple of {}", step.show()),
            Misfit::Length(..) => "a value of that length".to_owned(),
        }
    }

    /// The literal as the user wrote it, with its length when that is what is wrong:
    /// `"ABCDE" (5 characters)`.
    fn shown(&self, e: &Expr) -> String {
        match self {
            Misfit::Length(n, LengthV { unit: LengthUnit::Bytes, .. }) => format!("{} ({n} bytes)", shown(e)),
            Misfit::Length(n, _) => format!("{} ({n} characters)", shown(e)),
            _ => shown(e),
        }
    }
}

/// A literal as the user would write it: `500`, `-0.5`, `"HOURLY"`, `true`.
fn shown(e: &Expr) -> String {
    match (number(e), e) {
        (Some(n), _) => n.show(),
        (None, Expr::Lit(ExprLit { lit: Lit::Str(s), .. })) => format!("{:?}", s.value()),
        (None, Expr::Lit(ExprLit { lit: Lit::Bool(b), .. })) => b.value.to_string(),
        (None, e) => quote::ToTokens::to_token_stream(e).to_string(),
    }
}

/// The first of `rules` (then `kind`'s span of whole numbers) that the literal `e`, of `kind`'s
/// JSON kind, breaks: the one check of a value written in the declaration (a `default`, a
/// `requires` value, a `when`) against the rules it must meet. `case_blind`: a string that
/// differs from a choice only in letter case meets `choices` (under `ignore_case`, a cross-field
/// rule compares without case; a default is given to the function as written, so not there).
fn misfit<'a>(e: &Expr, kind: Kind, rules: &'a RulesV, case_blind: bool) -> Option<Misfit<'a>> {
    if let (Some(n), Some(r)) = (number(e), rules.range.as_deref().copied())
        && !contains(r, n)
    {
        return Some(Misfit::Range(r));
    }
    match (rules.choices.as_deref(), e) {
        (Some(c @ ChoicesV::Str(list)), Expr::Lit(ExprLit { lit: Lit::Str(s), .. })) => {
            let s = s.value();
            let same = |x: &String| *x == s || (case_blind && x.to_lowercase() == s.to_lowercase());
            if !list.iter().any(same) {
                return Some(Misfit::Choices(c));
            }
        }
        (Some(c @ ChoicesV::Int(list)), e) => {
            if let Some(NumV::Int(i)) = number(e)
                && !list.iter().any(|&x| i128::from(x) == i)
            {
                return Some(Misfit::Choices(c));
            }
        }
        _ => {}
    }
    if let (Some(step), Some(n)) = (rules.multiple_of.as_deref().copied(), number(e))
        && !is_multiple(n, step)
    {
        return Some(Misfit::MultipleOf(step));
    }
    if let (Some(len), Expr::Lit(ExprLit { lit: Lit::Str(s), .. })) = (rules.length.as_deref().copied(), e) {
        let n = match len.unit {
            LengthUnit::Bytes => s.value().len(),
            _ => s.value().chars().count(),
        };
        if n < len.min || len.max.is_some_and(|m| n > m) {
            return Some(Misfit::Length(n, len));
        }
    }
    match (kind, number(e)) {
        (Kind::Int { min, max, name }, Some(NumV::Int(i))) if i < min || i > max => {
            Some(Misfit::Type { name, min, max })
        }
        _ => None,
    }
}

/// Whether `n` is a multiple of `step`, as envelope-core's `multiple_of` decides: exactly for
/// whole numbers, else to within the rounding of one division (0.3 is a multiple of 0.1).
fn is_multiple(n: NumV, step: NumV) -> bool {
    match (n, step) {
        (NumV::Int(n), NumV::Int(s)) if s > 0 => n.rem_euclid(s) == 0,
        _ => {
            let q = n.f() / step.f();
            (q - q.round()).abs() <= 1e-9 * q.abs().max(1.0)
        }
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
            } else if let Some(w) = &req.when
                && p.rules.secret.is_none()
                && let Some(m) = misfit(w, p.kind, &p.rules, p.rules.ignore_case.is_some())
            {
                errors.push(
                    Error::custom(format!(
                        "`{}` accepts {}: with `when` {} this rule would never apply; make `when` {}",
                        p.name,
                        m.accepts(),
                        m.shown(w),
                        m.instead()
                    ))
                    .with_span(w),
                );
            }
            // The calls the rule applies to, for a requirement no call can meet.
            let calls = match &req.when {
                Some(w) if p.rules.secret.is_none() => format!("where `{}` is {}", p.name, shown(w)),
                _ => format!("that sends `{}`", p.name),
            };
            for (lit, value) in &req.then {
                let target = unknown(lit, &p.name, errors);
                let Some((i, v)) = target.zip(value.as_ref()) else { continue };
                let t = &params[i];
                if t.rules.secret.is_some() {
                    errors.push(Error::custom(format!("`{0}` is `secret`: requiring a value of it would put that value in the schema and in refusals; write `requires = \"{0}\"` (it must be sent)", t.name)).with_span(v));
                } else if !literal_fits(v, t.kind) {
                    errors.push(
                        Error::custom(format!(
                            "`{}` is {}: the required value is a literal of that type",
                            t.name,
                            t.kind.words()
                        ))
                        .with_span(v),
                    );
                } else if let Some(m) = misfit(v, t.kind, &t.rules, t.rules.ignore_case.is_some()) {
                    errors.push(
                        Error::custom(format!(
                            "`{}` accepts {}: requiring {} would refuse every call {calls}; require {}",
                            t.name,
                            m.accepts(),
                            m.shown(v),
                            m.instead()
                        ))
                        .with_span(v),
                    );
                }
            }
        }
        for lit in &rp.validate.excludes {
            let Some(other) = unknown(lit, &p.name, errors).map(|i| &params[i]) else { continue };
            // A parameter neither `Option` nor with a default is in every call that is served.
            let required = |q: &Param| !q.optional && q.default.is_none();
            // A `default` applies to a scalar only; an array or an object becomes an `Option`.
            let optional = |q: &Param| match q.kind {
                Kind::Int { .. } | Kind::Float | Kind::Bool | Kind::Str => {
                    format!("make `{}` an `Option` (or give it a `default`)", q.name)
                }
                _ => format!("make `{}` an `Option`", q.name),
            };
            let message = match (required(p), required(other)) {
                (true, true) => format!(
                    "`{}` and `{}` are both required, so every call sends both and `excludes` refuses it: {}",
                    p.name,
                    other.name,
                    optional(p)
                ),
                (true, false) | (false, true) => {
                    let (r, o) = if required(p) { (p, other) } else { (other, p) };
                    format!(
                        "`{}` is required, so `{}` could never be sent beside it: {}, or drop `excludes`",
                        r.name,
                        o.name,
                        optional(r)
                    )
                }
                (false, false) => continue,
            };
            errors.push(Error::custom(message).with_span(lit));
        }
    }
}

pub fn check_param(raw: &RawParam, rename_all: Option<ident_case::RenameRule>, errors: &mut Accumulator) -> Param {
    let (optional, inner) = match option_inner(&raw.ty) {
        Some(t) => (true, t),
        None => (false, &raw.ty),
    };
    if let Type::ImplTrait(t) = inner {
        errors.push(
            Error::custom(
                "`impl Trait` cannot be a tool parameter: the parameter is read from one JSON shape, so name its type (an integer, f64, bool, String, Vec<T>, Option<T>, a #[derive(Object)] struct or a #[derive(Choice)] enum)",
            )
            .with_span(t),
        );
    }
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
        check_default(&d.0, kind, &rules, errors);
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

/// A `default` literal: of the parameter's type, and meeting its rules (`misfit`).
fn check_default(d: &Expr, kind: Kind, rules: &RulesV, errors: &mut Accumulator) {
    let lit_ok = match (kind, d) {
        (Kind::Int { .. } | Kind::Float, e) => number(e).is_some(),
        (Kind::Str, Expr::Lit(ExprLit { lit: Lit::Str(_), .. })) => true,
        (Kind::Bool, Expr::Lit(ExprLit { lit: Lit::Bool(_), .. })) => true,
        (Kind::Other | Kind::Array, _) => {
            errors.push(Error::custom("`default` applies to integer, float, bool and string parameters: declare this one an `Option` and give the body its value with `unwrap_or(...)` (or `unwrap_or_default()`)").with_span(d));
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
    if let (Kind::Int { .. }, Some(NumV::Float(_)), Some(_)) = (kind, number(d), &rules.range) {
        errors.push(Error::custom("the default is not a whole number, and this parameter is an integer").with_span(d));
        return;
    }
    let refused = "a caller who leaves it out would get a value the tool refuses";
    let message = match misfit(d, kind, rules, false) {
        None => return,
        Some(Misfit::Range(_)) => format!("the default {} is outside this parameter's `range`: {refused}", shown(d)),
        Some(Misfit::Choices(_)) => format!("the default {} is not one of the `choices`", shown(d)),
        Some(Misfit::MultipleOf(step)) => {
            format!("the default {} is not a multiple of {}: {refused}", shown(d), step.show())
        }
        Some(Misfit::Length(n, len)) => {
            let (what, rule) =
                if len.unit == LengthUnit::Bytes { ("bytes", "byte_length") } else { ("characters", "length") };
            format!("the default is {n} {what} long, outside this parameter's `{rule}`: {refused}")
        }
        // Outside its integer type, a default does not compile: rustc says so at the literal
        // (`overflowing_literals`, or no `-` on an unsigned type).
        Some(Misfit::Type { .. }) => return,
    };
    errors.push(Error::custom(message).with_span(d));
}
