//! Number literals, `range` in its two forms (`1..=720`, `range(min = .., exclusive_max = ..)`),
//! and whether a range holds any value of the parameter's type.

use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, RangeLimits, UnOp};

use crate::attr::{RangeArg, RangeKeys};
use crate::diag::{Accumulator, Error};
use crate::model::{BoundV, NumV, RangeV};
use crate::rules::applies;
use crate::ty::Kind;

/// A numeric literal, possibly negated.
pub(crate) fn number(e: &Expr) -> Option<NumV> {
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

fn check_bound(e: &Expr, kind: Kind, errors: &mut Accumulator) -> Option<NumV> {
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

pub(super) fn check_range(r: &RangeArg, kind: Kind, errors: &mut Accumulator) -> Option<RangeV> {
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
fn check_range_keys(k: &RangeKeys, kind: Kind, errors: &mut Accumulator) -> Option<RangeV> {
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
            BoundV::Incl(n) => format!("{incl} = {}", n.show()),
            BoundV::Excl(n) => format!("{excl} = {}", n.show()),
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

/// Whether `n` lies within `r` (an exclusive bound leaves out its own value); whole numbers
/// compared exactly, any other pair as floats.
pub(super) fn contains(r: RangeV, n: NumV) -> bool {
    let above = |b: BoundV, strict: bool| match (b, n) {
        (BoundV::Unbounded, _) => true,
        (BoundV::Incl(NumV::Int(a)) | BoundV::Excl(NumV::Int(a)), NumV::Int(x)) => x > a || (!strict && x == a),
        (BoundV::Incl(a) | BoundV::Excl(a), x) => x.f() > a.f() || (!strict && x.f() == a.f()),
    };
    let below = |b: BoundV, strict: bool| match (b, n) {
        (BoundV::Unbounded, _) => true,
        (BoundV::Incl(NumV::Int(a)) | BoundV::Excl(NumV::Int(a)), NumV::Int(x)) => x < a || (!strict && x == a),
        (BoundV::Incl(a) | BoundV::Excl(a), x) => x.f() < a.f() || (!strict && x.f() == a.f()),
    };
    let (lo, hi) = r;
    above(lo, matches!(lo, BoundV::Excl(_))) && below(hi, matches!(hi, BoundV::Excl(_)))
}

/// A checked range as the user would read it: `1..=720`, `0..10`, `1..`, `..=720`; a lower
/// bound that leaves out its own value (`exclusive_min`), which Rust's ranges cannot write, in
/// words: `above 0 and up to 1`.
pub(super) fn range_words(r: RangeV) -> String {
    let end = |b: BoundV| match b {
        BoundV::Incl(n) => format!("..={}", n.show()),
        BoundV::Excl(n) => format!("..{}", n.show()),
        BoundV::Unbounded => "..".to_owned(),
    };
    match r {
        (BoundV::Excl(a), BoundV::Incl(b)) => format!("above {} and up to {}", a.show(), b.show()),
        (BoundV::Excl(a), BoundV::Excl(b)) => format!("above {} and below {}", a.show(), b.show()),
        (BoundV::Excl(a), BoundV::Unbounded) => format!("above {}", a.show()),
        (BoundV::Incl(a), hi) => format!("{}{}", a.show(), end(hi)),
        (BoundV::Unbounded, hi) => end(hi),
    }
}

fn int_of(n: NumV) -> i128 {
    match n {
        NumV::Int(i) => i,
        NumV::Float(f) => f as i128,
    }
}

fn check_rust_range(r: &syn::ExprRange, kind: Kind, errors: &mut Accumulator) -> Option<RangeV> {
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
                format!("this range holds no value: write the lower bound first, like `{}..={}`", b.show(), a.show())
            }
            (BoundV::Incl(a), BoundV::Excl(b)) if a.f() == b.f() => format!(
                "`{a}..{a}` holds no value: a half-open range excludes its end; write `{a}..={a}` for exactly {a}",
                a = a.show()
            ),
            (BoundV::Incl(a), BoundV::Excl(b)) => {
                format!("this range holds no value: write the lower bound first, like `{}..{}`", b.show(), a.show())
            }
            _ => "this range holds no value".to_owned(),
        };
        errors.push(Error::custom(msg).with_node(r));
        return None;
    }
    Some((lo, hi))
}
