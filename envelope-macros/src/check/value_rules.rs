//! The rules of one value (a parameter without its `Option`, or an item), each checked against
//! the value's type; on a type the macro cannot name, each rule that has a trait is left to its
//! bound (`model::ByTraitV`), spanned at the rule.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprArray, ExprLit, Lit, LitStr, RangeLimits, Type};

use super::range::{check_range, number};
use crate::attr::{RangeArg, ValidateArgs};
use crate::diag::{Accumulator, Error, Sp};
use crate::model::{ByTraitV, ChoicesV, Format, LengthUnit, LengthV, NumV, PatternV, RulesV};
use crate::rules::applies;
use crate::ty::{Kind, each_item, kind_of};

/// A secret's items are secret too, at every depth: no part of it is ever echoed.
fn mark_secret(rules: &mut RulesV, span: Span) {
    rules.secret = Some(span);
    if let Some(items) = &mut rules.items {
        mark_secret(&mut items.value, span);
    }
}

/// The rules of one value of type `ty` (a parameter without its `Option`, or an item).
pub(super) fn check_rules(v: &ValidateArgs, ty: &Type, errors: &mut Accumulator) -> RulesV {
    let kind = kind_of(ty);
    let range = v.range.as_ref().and_then(|r| {
        let span = match r {
            RangeArg::Rust(r) => r.span(),
            RangeArg::Keys(k) => k.span,
        };
        check_range(r, kind, errors).map(|range| Sp::new(range, span))
    });
    let choices = v.choices.as_ref().and_then(|c| check_choices(c, kind, errors)).map(|c| Sp::new(c, v_span(v)));
    let multiple_of = v
        .multiple_of
        .as_ref()
        .and_then(|m| check_multiple_of(&m.0, m.span(), kind, errors).map(|n| Sp::new(n, m.span())));
    let secret = v.secret.is_present().then(|| v.secret.span());
    if secret.is_some() && choices.is_some() {
        errors.push(Error::custom("`secret` with `choices` would list the secret's possible values in the schema and in every refusal: drop one of them").with_span(&v.secret.span()));
    }
    let length = match (&v.length, &v.byte_length) {
        (Some(_), Some(b)) => {
            errors.push(Error::custom("give one of `length` (characters) and `byte_length` (bytes)").with_span(b));
            None
        }
        (Some(l), None) if applies("length", kind, l.span(), errors) => {
            let unit = match kind {
                Kind::Array => LengthUnit::Items,
                Kind::Other => LengthUnit::AsTheTypeReads,
                _ => LengthUnit::Characters,
            };
            check_length(l, unit, errors).map(|len| Sp::new(len, l.span()))
        }
        (None, Some(b)) if applies("byte_length", kind, b.span(), errors) => {
            check_length(b, LengthUnit::Bytes, errors).map(|len| Sp::new(len, b.span()))
        }
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
            let hint = super::ecma::unparsed_hint(&p.value()).map_or_else(String::new, |h| format!("; {h}"));
            errors.push(Error::custom(format!("this regex does not compile: {last}{hint}")).with_span(p));
            return None;
        }
        if let Some(why) = super::ecma::not_ecma(&p.value()) {
            errors.push(Error::custom(why).with_span(p));
            return None;
        }
        let pattern = PatternV { source: p.value(), example: v.example.as_ref().map(LitStr::value) };
        Some(Sp::new(pattern, p.span()))
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
        // The item type of a `Vec` or a map as written; of a type the macro cannot name, its
        // `Sequence` impl's.
        let of_sequence: Type;
        let item = match each_item(ty) {
            Some(item) => item,
            None if kind == Kind::Other => {
                let private = crate::private::path();
                of_sequence = syn::parse_quote!(<#ty as #private::Sequence>::Item);
                &of_sequence
            }
            None => return None,
        };
        if let Some(d) = &each.default {
            errors
                .push(Error::custom("an item has no default: put `default` outside `each(...)`").with_span(&d.span()));
        }
        if let Some(d) = &each.desc {
            errors.push(Error::custom("describe the parameter outside `each(...)`").with_span(d));
        }
        let mut items = check_rules(each, item, errors);
        if let Some(span) = secret {
            mark_secret(&mut items, span);
        }
        Some(Sp::new(Box::new(items), each.span()))
    });
    let ignore_case = v.ignore_case.is_present().then(|| v.ignore_case.span());
    if ignore_case.is_some() && !matches!(choices.as_deref(), Some(ChoicesV::Str(_))) {
        errors.push(
            Error::custom("`ignore_case` goes with string `choices`: add `choices = [\"...\"]` or remove it")
                .with_span(&v.ignore_case.span()),
        );
    }
    let format = v.format.as_ref().and_then(|f| {
        if !applies("format", kind, f.span(), errors) {
            return None;
        }
        let value = f.value();
        match Format::from_name(&value) {
            Some(format) => Some(Sp::new(format, f.span())),
            None => {
                let close = crate::suggest::closest(&value, Format::ALL.map(Format::name));
                let hint = close.map(|x| format!("; did you mean \"{x}\"?")).unwrap_or_default();
                let names: Vec<String> = Format::ALL.iter().map(|f| format!("\"{}\"", f.name())).collect();
                errors.push(Error::custom(format!("`format` takes one of {}{hint}", names.join(", "))).with_span(f));
                None
            }
        }
    });
    for bad in [&v.message, &v.error].into_iter().flatten() {
        errors.push(Error::custom("a refusal's message is generated so it always quotes the rejected value, lists the accepted set and names the fix: write `fix = \"...\"` for the move that fixes the call, or `reason = \"...\"` for a short reason").with_span(&bad.span()));
    }
    let mut rules = RulesV {
        range,
        multiple_of,
        choices,
        secret,
        length,
        pattern,
        items,
        ignore_case,
        format,
        fix: v.fix.as_ref().map(|f| Sp::new(f.value(), f.span())),
        reason: v.reason.as_ref().map(|r| Sp::new(r.value(), r.span())),
        by_trait: Vec::new(),
    };
    if kind == Kind::Other {
        rules.by_trait = left_to_traits(&rules, ty);
    }
    rules
}

/// The span of `choices = [...]`'s list.
fn v_span(v: &ValidateArgs) -> Span {
    v.choices.as_ref().map_or_else(Span::call_site, Spanned::span)
}

/// On a type the macro cannot name, every rule that was checked and has a trait in the rule
/// table, with the rule's span: the expansion puts the trait's bound there.
fn left_to_traits(rules: &RulesV, ty: &Type) -> Vec<ByTraitV> {
    let length_rule = match rules.length.as_ref().map(|l| l.unit) {
        Some(LengthUnit::Bytes) => "byte_length",
        _ => "length",
    };
    let checked = [
        ("range", rules.range.as_ref().map(Sp::span)),
        ("multiple_of", rules.multiple_of.as_ref().map(Sp::span)),
        ("choices", rules.choices.as_ref().map(Sp::span)),
        (length_rule, rules.length.as_ref().map(Sp::span)),
        ("pattern", rules.pattern.as_ref().map(Sp::span)),
        ("format", rules.format.as_ref().map(Sp::span)),
        // Rules on the items name `<T as Sequence>::Item`, which holds `T: Sequence` already:
        // the bound of `each` itself would report the same error a second time.
        ("each", rules.items.as_ref().filter(|items| items.by_trait.is_empty()).map(Sp::span)),
    ];
    checked
        .into_iter()
        .filter_map(|(rule, span)| {
            let bound = crate::rules::rule(rule)?.by_trait?;
            Some(ByTraitV { rule, span: span?, ty: ty.clone(), bound })
        })
        .collect()
}

/// `multiple_of = 5`: on a number, a finite literal above 0, whole for an integer parameter.
fn check_multiple_of(e: &Expr, span: Span, kind: Kind, errors: &mut Accumulator) -> Option<NumV> {
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
                n.show()
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

/// `length = 1..=120` (or `byte_length`): whole bounds of 0 or more, some length between them.
fn check_length(r: &syn::ExprRange, unit: LengthUnit, errors: &mut Accumulator) -> Option<LengthV> {
    let bound = |e: &Expr, errors: &mut Accumulator| match number(e) {
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
    Some(LengthV { min, max, unit })
}

/// `choices = [...]`: string literals for a string (or a type the macro cannot name, left to
/// `Textual`), integer literals of the type for an integer, each once.
fn check_choices(c: &ExprArray, kind: Kind, errors: &mut Accumulator) -> Option<ChoicesV> {
    if c.elems.is_empty() {
        errors.push(
            Error::custom("`choices` is empty: list the accepted values, like `choices = [\"a\", \"b\"]`").with_span(c),
        );
        return None;
    }
    let strings = matches!(c.elems.first(), Some(Expr::Lit(ExprLit { lit: Lit::Str(_), .. })));
    match kind {
        Kind::Str => Some(ChoicesV::Str(string_choices(c, errors))),
        // A type the macro cannot name, with string choices: a string, if its `Textual` bound holds.
        Kind::Other if strings => Some(ChoicesV::Str(string_choices(c, errors))),
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
        Kind::Other => {
            // Integer choices need a type the macro can name: there is no trait to decide them.
            errors.push(
                Error::custom(format!(
                    "`choices` applies to string and integer parameters, and this one is {}",
                    kind.words()
                ))
                .with_span(&c.span()),
            );
            None
        }
        _ => {
            applies("choices", kind, c.span(), errors);
            None
        }
    }
}

/// The string literals of `choices`, each once.
fn string_choices(c: &ExprArray, errors: &mut Accumulator) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in &c.elems {
        match e {
            Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => {
                if out.contains(&s.value()) {
                    errors.push(Error::custom(format!("{:?} is listed twice in `choices`", s.value())).with_span(e));
                }
                out.push(s.value());
            }
            _ => errors.push(
                Error::custom("this parameter is a string: each choice is a string literal, like \"database\"")
                    .with_span(e),
            ),
        }
    }
    out
}
