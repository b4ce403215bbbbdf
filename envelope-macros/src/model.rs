//! The checked model: what `check` makes of what the user wrote, typed, every rule with the span
//! of what the user wrote for it; what `expand` generates code from. Nothing here is a string
//! that a later stage parses again: a format is a [`Format`], a length's unit a [`LengthUnit`].

use proc_macro2::Span;
use syn::{Expr, Type};

use crate::diag::Sp;
use crate::rules::ByTrait;
use crate::ty::Kind;

/// A number as written: whole, or not.
#[derive(Clone, Copy, Debug)]
pub enum NumV {
    Int(i128),
    Float(f64),
}

impl NumV {
    /// As a float, for comparisons.
    pub fn f(self) -> f64 {
        match self {
            NumV::Int(i) => i as f64,
            NumV::Float(f) => f,
        }
    }

    /// As the user would write it: `5`, `0.5`.
    pub fn show(self) -> String {
        match self {
            NumV::Int(i) => i.to_string(),
            NumV::Float(f) => format!("{f:?}"),
        }
    }
}

/// One side of a `range`.
#[derive(Clone, Copy, Debug)]
pub enum BoundV {
    Unbounded,
    Incl(NumV),
    Excl(NumV),
}

impl BoundV {
    /// The bound's number as a float (NaN when unbounded).
    pub fn f(self) -> f64 {
        match self {
            BoundV::Unbounded => f64::NAN,
            BoundV::Incl(n) | BoundV::Excl(n) => n.f(),
        }
    }
}

/// A checked `range`: a lower and an upper bound, some value between them.
pub type RangeV = (BoundV, BoundV);

/// Checked `choices`, of the parameter's kind.
#[derive(Debug)]
pub enum ChoicesV {
    Str(Vec<String>),
    Int(Vec<i64>),
}

/// A `format = "..."`: one of the formats envelope-core checks (its `spec::Format`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Format {
    Date,
    DateTime,
    Uuid,
    Email,
    Uri,
}

impl Format {
    /// Every format, in the order the error about an unknown one lists them.
    pub const ALL: [Format; 5] = [Format::Date, Format::DateTime, Format::Uuid, Format::Email, Format::Uri];

    /// As written in `format = "..."` (JSON Schema's name).
    pub fn name(self) -> &'static str {
        match self {
            Format::Date => "date",
            Format::DateTime => "date-time",
            Format::Uuid => "uuid",
            Format::Email => "email",
            Format::Uri => "uri",
        }
    }

    /// The variant of envelope-core's `spec::Format`.
    pub fn variant(self) -> &'static str {
        match self {
            Format::Date => "Date",
            Format::DateTime => "DateTime",
            Format::Uuid => "Uuid",
            Format::Email => "Email",
            Format::Uri => "Uri",
        }
    }

    /// The format named `name`, exactly.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// What a `length` counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LengthUnit {
    /// Characters of a string (`length` on `String`).
    Characters,
    /// UTF-8 bytes of a string (`byte_length`).
    Bytes,
    /// Items of a `Vec` (`length` on `Vec<T>`).
    Items,
    /// Characters or items, as a type the macro cannot name reads (its `Textual` or `Sequence`
    /// impl decides, in the expansion).
    AsTheTypeReads,
}

impl LengthUnit {
    /// The variant of envelope-core's `spec::Unit`; `AsTheTypeReads` starts as characters and
    /// the trait bound sets it.
    pub fn variant(self) -> &'static str {
        match self {
            LengthUnit::Characters | LengthUnit::AsTheTypeReads => "Characters",
            LengthUnit::Bytes => "Bytes",
            LengthUnit::Items => "Items",
        }
    }
}

/// A checked `length` or `byte_length`: `min` to `max` (`None`: no upper bound) of `unit`.
#[derive(Clone, Copy, Debug)]
pub struct LengthV {
    pub min: usize,
    pub max: Option<usize>,
    pub unit: LengthUnit,
}

/// A checked `pattern` (it compiles), with its `example`.
#[derive(Debug)]
pub struct PatternV {
    pub source: String,
    pub example: Option<String>,
}

/// A rule on a type the macro cannot name, left to a trait bound at the rule.
pub struct ByTraitV {
    /// The rule's name, as in the rule table.
    pub rule: &'static str,
    /// Where the rule is written: the unmet bound is reported there.
    pub span: Span,
    /// The value's type (without `Option`).
    pub ty: Type,
    /// The trait that decides.
    pub bound: ByTrait,
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

/// The checked rules of one value (a parameter without its `Option`, or an item), each with
/// its span.
#[derive(Default)]
pub struct RulesV {
    /// `ignore_case` (with string `choices`).
    pub ignore_case: Option<Span>,
    pub format: Option<Sp<Format>>,
    pub fix: Option<Sp<String>>,
    pub reason: Option<Sp<String>>,
    pub range: Option<Sp<RangeV>>,
    /// `multiple_of`: above 0; whole for an integer parameter, a float for a float one.
    pub multiple_of: Option<Sp<NumV>>,
    pub choices: Option<Sp<ChoicesV>>,
    /// `secret` (an item of a secret is secret too, with the parameter's span).
    pub secret: Option<Span>,
    pub length: Option<Sp<LengthV>>,
    pub pattern: Option<Sp<PatternV>>,
    pub items: Option<Sp<Box<RulesV>>>,
    /// The rules of a type the macro cannot name, each left to a trait bound.
    pub by_trait: Vec<ByTraitV>,
}

impl RulesV {
    /// The trait bound rule `rule` is left to, if any.
    pub fn by_trait(&self, rule: &str) -> Option<&ByTraitV> {
        self.by_trait.iter().find(|b| b.rule == rule)
    }
}

/// A checked parameter (or field of an `Object`).
pub struct Param {
    /// The name callers use.
    pub name: String,
    /// The parameter's name as written in the function.
    pub span: Span,
    pub requires: Vec<RequiresV>,
    pub excludes: Vec<String>,
    /// As written, `Option` included.
    pub ty: Type,
    /// What the type (without `Option`) reads as.
    pub kind: Kind,
    pub description: String,
    pub rules: RulesV,
    pub default: Option<DefaultV>,
    pub optional: bool,
}

/// How a tool's return value becomes an envelope.
pub enum Ret {
    /// `T: Serialize`.
    Plain,
    /// `Result<T, E>` with `E` a tool error type.
    Result,
}

/// A checked `#[tool]`.
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
