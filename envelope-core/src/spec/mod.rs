//! What a tool declares: its parameters, their JSON types and their rules. The `#[tool]` macro
//! builds these; the argument reader, the schema and the manifest all read the same values, so
//! they cannot disagree.
//!
//! Read a declaration through [`Tool::spec`](crate::Tool::spec) ([`ToolSpec`]: `name`,
//! `params`, `annotations`, `error_codes`, ...). A type of your own that implements
//! [`FromArg`](crate::FromArg) names its JSON shape with [`Ty`]. Every struct and enum here but [`Bound`]
//! is `#[non_exhaustive]`, so a new rule, field or form is not a breaking change; build a struct
//! with its `new` and `with_*` constructors.

// Rate limits: how many calls one caller may make in a period.
pub mod rate;
// A rule's refusal words, kept once written.
pub(crate) mod kept;
// A `pattern` as JSON Schema (ECMA-262) reads it, for the `regex` crate.
pub(crate) mod ecma;

/// The JSON shape a parameter takes, as JSON Schema's `type` names it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Ty {
    /// `integer`, within the Rust type's own bounds.
    Integer {
        /// Smallest value the type holds.
        min: i128,
        /// Largest value the type holds.
        max: i128,
    },
    /// `number` (finite).
    Number,
    /// `number` an `f32` holds (OpenAPI's `float`): finite, within ±3.4028235e38, and within
    /// its rules once rounded to single precision (`0.99999999` is `1.0`).
    Float,
    /// `string`.
    String,
    /// `boolean`.
    Boolean,
    /// `string` with an `enum`: a `#[derive(Choice)]` enum's wire names.
    Enum(&'static [&'static str]),
    /// `array` of items of one shape.
    Array(Box<Ty>),
    /// `object` with named fields: a `#[derive(Object)]` struct.
    Object(&'static ObjectSpec),
    /// `object` of any keys, each value of one shape (`additionalProperties`): a
    /// `BTreeMap<String, T>` or `HashMap<String, T>`.
    Map(Box<Ty>),
    /// Any JSON value (a `serde_json::Value` parameter).
    Any,
}

impl Ty {
    /// The JSON Schema `type` keyword's value, if one applies.
    pub fn schema_type(&self) -> Option<&'static str> {
        Some(match self {
            Ty::Integer { .. } => "integer",
            Ty::Number | Ty::Float => "number",
            Ty::String => "string",
            Ty::Boolean => "boolean",
            Ty::Enum(_) => "string",
            Ty::Array(_) => "array",
            Ty::Object(_) | Ty::Map(_) => "object",
            Ty::Any => return None,
        })
    }

    /// The shape in words, with its article: `a whole number`, `an array of strings`.
    pub fn words(&self) -> String {
        match self {
            Ty::Integer { .. } => "a whole number".into(),
            Ty::Number | Ty::Float => "a number".into(),
            Ty::String => "a string".into(),
            Ty::Boolean => "true or false".into(),
            Ty::Enum(names) => format!("one of {}", crate::words::render::quoted_list(names.iter().copied())),
            Ty::Array(item) => format!("an array of {}", item.plural()),
            Ty::Object(o) => format!("an object with the keys {}", o.keys()),
            Ty::Map(value) => format!("an object whose values are {}", value.plural()),
            Ty::Any => "any JSON value".into(),
        }
    }

    /// The shape in words, plural: `whole numbers`, `strings`.
    pub fn plural(&self) -> String {
        match self {
            Ty::Integer { .. } => "whole numbers".into(),
            Ty::Number | Ty::Float => "numbers".into(),
            Ty::String => "strings".into(),
            Ty::Boolean => "booleans".into(),
            Ty::Enum(names) => {
                format!("strings, each one of {}", crate::words::render::quoted_list(names.iter().copied()))
            }
            Ty::Array(item) => format!("arrays of {}", item.plural()),
            Ty::Object(o) => format!("objects with the keys {}", o.keys()),
            Ty::Map(value) => format!("objects whose values are {}", value.plural()),
            Ty::Any => "JSON values".into(),
        }
    }
}

/// The fields of a `#[derive(Object)]` struct, built once per type.
#[derive(Debug, PartialEq)]
#[non_exhaustive]
pub struct ObjectSpec {
    /// The Rust type's name (for messages about the object as a whole).
    pub name: &'static str,
    /// Fields in declared order, with their rules (as a tool's parameters).
    pub params: Vec<ParamSpec>,
}

impl ObjectSpec {
    /// The fields of a `#[derive(Object)]` struct named `name`.
    pub fn new(name: &'static str, params: Vec<ParamSpec>) -> Self {
        ObjectSpec { name, params }
    }

    /// `"since", "limit"`.
    pub fn keys(&self) -> String {
        crate::words::render::quoted_list(self.params.iter().map(|p| p.name))
    }
}

/// A bound of a `range` rule: complete as it is (as `std::ops::Bound`), so not
/// `#[non_exhaustive]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// No bound on this side (the type's own bound still holds).
    Unbounded,
    /// `A..` / `..=B`: the value may equal it.
    Inclusive(Num),
    /// `..B`: the value must stay below it.
    Exclusive(Num),
}

/// A number in a rule: integers exactly, floats as written.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Num {
    /// A whole number (any integer type's value fits).
    Int(i128),
    /// A float.
    Float(f64),
}

impl Num {
    /// As a float (for comparing with a float parameter).
    pub fn as_f64(self) -> f64 {
        match self {
            // Through `i64` where it fits: the same double, without the 128-bit conversion.
            Num::Int(i) => i64::try_from(i).map_or(i as f64, |i| i as f64),
            Num::Float(f) => f,
        }
    }
}

/// `range = A..=B` and its forms: JSON Schema `minimum`/`maximum`/`exclusiveMinimum`/
/// `exclusiveMaximum`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Range {
    /// Lower bound.
    pub min: Bound,
    /// Upper bound.
    pub max: Bound,
}

impl Range {
    /// The range from `min` to `max`.
    pub const fn new(min: Bound, max: Bound) -> Self {
        Range { min, max }
    }
}

/// `choices = [...]`: JSON Schema `enum`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Choices {
    /// Accepted strings, in declared order.
    Str(&'static [&'static str]),
    /// Accepted integers, in declared order.
    Int(&'static [i64]),
}

/// What a `length` rule counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unit {
    /// Unicode scalar values (Rust `char`s; what JSON Schema `maxLength` counts).
    Characters,
    /// UTF-8 bytes (`byte_length`).
    Bytes,
    /// Array items.
    Items,
    /// An object's entries (its keys; JSON Schema's `minProperties`/`maxProperties`): a map's.
    Entries,
}

impl Unit {
    /// The unit's word, plural.
    pub fn word(self) -> &'static str {
        match self {
            Unit::Characters => "characters",
            Unit::Bytes => "bytes",
            Unit::Items => "items",
            Unit::Entries => "entries",
        }
    }

    /// The unit's word, singular: `character`, `entry`.
    pub fn singular(self) -> &'static str {
        match self {
            Unit::Characters => "character",
            Unit::Bytes => "byte",
            Unit::Items => "item",
            Unit::Entries => "entry",
        }
    }
}

/// `length = A..=B` (characters or items) or `byte_length = A..=B`, as an inclusive span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Length {
    /// Least length.
    pub min: usize,
    /// Greatest length (`usize::MAX`: no upper bound).
    pub max: usize,
    /// What is counted.
    pub unit: Unit,
}

impl Length {
    /// From `min` to `max` (`usize::MAX`: no upper bound) of `unit`.
    pub const fn new(min: usize, max: usize, unit: Unit) -> Self {
        Length { min, max, unit }
    }
}

/// `pattern = "regex"`: the value must contain a match, as JSON Schema's `pattern` searches;
/// `^` and `$` in the regex tie the match to the value's ends (see [`Pattern::anchoring`]).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Pattern {
    /// The regex as written (also the schema's `pattern`).
    pub source: &'static str,
    /// An example of a matching value, shown in the refusal instead of the regex.
    pub example: Option<&'static str>,
    /// Compiled once, when the tool is declared.
    pub regex: regex::Regex,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source && self.example == other.example
    }
}

/// Where a `pattern` must match, read from the regex itself: JSON Schema's `pattern` (and the
/// `regex` crate) searches the string, so only `^` and `$` tie a match to its ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Anchoring {
    /// `^...$`: the whole string must match.
    Full,
    /// `^...`: the string must start with a match.
    Start,
    /// `...$`: the string must end with a match.
    End,
    /// Neither: the string must contain a match somewhere.
    Search,
}

impl Pattern {
    /// Where this pattern must match: every match starts at the string's start (`^`, `\A`) and
    /// ends at its end (`$`, `\z`), per regex-syntax's analysis, so `^a|^b$` is `Start` only.
    pub fn anchoring(&self) -> Anchoring {
        use regex_syntax::hir::Look;
        let Ok(hir) = regex_syntax::parse(self.source) else { return Anchoring::Search };
        let props = hir.properties();
        match (props.look_set_prefix().contains(Look::Start), props.look_set_suffix().contains(Look::End)) {
            (true, true) => Anchoring::Full,
            (true, false) => Anchoring::Start,
            (false, true) => Anchoring::End,
            (false, false) => Anchoring::Search,
        }
    }

    /// Compiles `source`, an ECMA-262 regex as JSON Schema's `pattern` is (2020-12 Validation
    /// §6.3.3), read as ECMA-262 reads it with the `u` flag where the `regex` crate would read
    /// it otherwise: `\d` is `[0-9]`, `\w` is `[0-9A-Za-z_]` (and `\b` a boundary of those),
    /// `\s` is ECMA-262's white space and line terminators (`U+FEFF` in, `U+0085` out), `.`
    /// matches neither `\r`, `\n`, `U+2028` nor `U+2029`.
    ///
    /// # Panics
    ///
    /// When `source` does not compile. The macro checks a declared tool's regex at compile
    /// time, so there only a regex past the `regex` crate's size limit (`^\p{L}{1,500}$`: 500
    /// copies of every letter) panics, when the tool is declared, naming the pattern, rather
    /// than refusing every value sent.
    pub fn new(source: &'static str, example: Option<&'static str>) -> Self {
        let read = ecma::as_ecma_reads(source).unwrap_or_else(|| source.to_owned());
        let regex = regex::Regex::new(&read).unwrap_or_else(|error| {
            panic!(
                "the pattern {source:?} does not compile: {error}; write it smaller (a repetition of a large class, like \\p{{L}}{{1,500}}, is past the regex size limit)"
            )
        });
        Pattern { source, example, regex }
    }
}

/// `format = "..."`: a string of a standard form (JSON Schema 2020-12 Validation §7.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// `date`: an RFC 3339 §5.6 full-date, `2026-11-30` (the day checked with chrono).
    Date,
    /// `date-time`: an RFC 3339 §5.6 date-time with offset, `2026-11-30T14:05:00Z`: `T` (or `t`)
    /// between date and time, never a space; a leap second only at 23:59:60 UTC.
    DateTime,
    /// `uuid`: RFC 9562 hyphenated, `67e55044-10b1-426f-9247-bb680e5fe0c8` (uuid).
    Uuid,
    /// `email`: an RFC 5321 mailbox, `ada@example.com`: its domain a host name or an address
    /// literal (`[127.0.0.1]`).
    Email,
    /// `uri`: an RFC 3986 URI with a scheme, `https://example.com/path` (fluent-uri): no
    /// spaces, `<>`, `{}`, `\\`, and every `%` followed by two hex digits.
    Uri,
}

impl Format {
    /// The JSON Schema `format` keyword's value.
    pub fn keyword(self) -> &'static str {
        match self {
            Format::Date => "date",
            Format::DateTime => "date-time",
            Format::Uuid => "uuid",
            Format::Email => "email",
            Format::Uri => "uri",
        }
    }
}

/// A cross-field rule: when this parameter has a value (or any value), other parameters must
/// have given values (or be sent). JSON Schema: `dependentRequired` / `if`-`then`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Requires {
    /// The value of this parameter that triggers the rule; `None`: whenever it is sent.
    pub when: Option<serde_json::Value>,
    /// Other parameters (as the caller spells them), each with the value it must then have
    /// (`None`: it must be sent).
    pub then: Vec<(&'static str, Option<serde_json::Value>)>,
}

impl Requires {
    /// When this parameter is `when` (`None`: whenever it is sent), the parameters of `then`
    /// must have their values (`None`: be sent).
    pub fn new(when: Option<serde_json::Value>, then: Vec<(&'static str, Option<serde_json::Value>)>) -> Self {
        Requires { when, then }
    }
}

/// Which refusal words a rule's kept text is (`kept`): everything they depend on, so a slot
/// shared by rules that differ (a clone given other rules, a field changed after a refusal)
/// never serves another rule's words. Compared by value (a `NaN` bound never matches: its words are written each time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum KeptKey {
    /// Whole numbers from the first to the second (the type's bounds narrowed by the rule), with
    /// this step.
    Whole(i128, i128, Option<Num>),
    /// Numbers within this range, with this step.
    Real(Option<Range>, Option<Num>),
    /// The choices (strings or whole numbers) at this address, of this many: a rule's, or an
    /// enum's names.
    Choices(bool, usize, usize),
}

impl KeptKey {
    /// The key of the words of choices `c` (they depend on the list only).
    pub(crate) fn choices(c: Choices) -> KeptKey {
        match c {
            Choices::Str(c) => KeptKey::Choices(true, c.as_ptr() as usize, c.len()),
            Choices::Int(c) => KeptKey::Choices(false, c.as_ptr() as usize, c.len()),
        }
    }
}

/// The rules on one value (a parameter, or each item of an array parameter).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Rules {
    /// `range`.
    pub range: Option<Range>,
    /// `multiple_of`: the value must be a whole multiple of this step (above 0).
    pub multiple_of: Option<Num>,
    /// `choices`.
    pub choices: Option<Choices>,
    /// `secret`: the value is never echoed (in the envelope or a log line).
    pub secret: bool,
    /// `length` / `byte_length`.
    pub length: Option<Length>,
    /// `pattern`.
    pub pattern: Option<Pattern>,
    /// `each(...)`: the rules on every item of an array.
    pub items: Option<Box<Rules>>,
    /// `ignore_case` (with string `choices`): a case-only difference is accepted and the
    /// canonical spelling is passed on.
    pub ignore_case: bool,
    /// `format`.
    pub format: Option<Format>,
    /// `fix = "..."`: the move that fixes the call, replacing the generated one.
    pub fix: Option<&'static str>,
    /// `reason = "..."`: a short reason, shown after what is wrong.
    pub reason: Option<&'static str>,
    /// Where the words of this rule's refusals are kept once written (not part of its value).
    pub(crate) kept: kept::KeptSlot<KeptKey>,
}

impl Rules {
    /// No rules.
    pub const NONE: Rules = Rules {
        range: None,
        multiple_of: None,
        choices: None,
        secret: false,
        length: None,
        pattern: None,
        items: None,
        ignore_case: false,
        format: None,
        fix: None,
        reason: None,
        kept: kept::KeptSlot::NONE,
    };

    /// With `range`.
    #[must_use]
    pub fn with_range(self, range: Range) -> Self {
        Rules { range: Some(range), ..self }
    }

    /// With `multiple_of` (a step above 0).
    #[must_use]
    pub fn with_multiple_of(self, step: Num) -> Self {
        Rules { multiple_of: Some(step), ..self }
    }

    /// With `choices`.
    #[must_use]
    pub fn with_choices(self, choices: Choices) -> Self {
        Rules { choices: Some(choices), ..self }
    }

    /// `secret`.
    #[must_use]
    pub fn with_secret(self) -> Self {
        Rules { secret: true, ..self }
    }

    /// With `length` or `byte_length`.
    #[must_use]
    pub fn with_length(self, length: Length) -> Self {
        Rules { length: Some(length), ..self }
    }

    /// With `pattern`.
    #[must_use]
    pub fn with_pattern(self, pattern: Pattern) -> Self {
        Rules { pattern: Some(pattern), ..self }
    }

    /// With `each(...)`: the rules on every item.
    #[must_use]
    pub fn with_items(self, items: Rules) -> Self {
        Rules { items: Some(Box::new(Rules { kept: items.kept.clone().or_new(), ..items })), ..self }
    }

    /// `ignore_case`.
    #[must_use]
    pub fn with_ignore_case(self) -> Self {
        Rules { ignore_case: true, ..self }
    }

    /// With `format`.
    #[must_use]
    pub fn with_format(self, format: Format) -> Self {
        Rules { format: Some(format), ..self }
    }

    /// With `fix = "..."`.
    #[must_use]
    pub fn with_fix(self, fix: &'static str) -> Self {
        Rules { fix: Some(fix), ..self }
    }

    /// With `reason = "..."`.
    #[must_use]
    pub fn with_reason(self, reason: &'static str) -> Self {
        Rules { reason: Some(reason), ..self }
    }
}

/// One parameter of a tool.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ParamSpec {
    /// The name as the caller spells it.
    pub name: &'static str,
    /// From the parameter's doc comment or `desc = "..."`; may be empty.
    pub description: &'static str,
    /// The JSON shape (from the Rust type).
    pub ty: Ty,
    /// Whether the caller must send it (not `Option`, no `default`).
    pub required: bool,
    /// The default as JSON (`10`, `"ALL"`), for the schema's `default`.
    pub default: Option<serde_json::Value>,
    /// The rules on the value.
    pub rules: Rules,
    /// `requires`: cross-field rules triggered by this parameter.
    pub requires: Vec<Requires>,
    /// `excludes`: parameters that cannot be sent together with this one.
    pub excludes: Vec<&'static str>,
}

impl ParamSpec {
    /// A parameter without rules, default, `requires` or `excludes`.
    pub fn new(name: &'static str, description: &'static str, ty: Ty, required: bool) -> Self {
        ParamSpec {
            name,
            description,
            ty,
            required,
            default: None,
            // A place for its refusals' words (see `Rules`' `kept`).
            rules: Rules { kept: kept::KeptSlot::NONE.or_new(), ..Rules::NONE },
            requires: Vec::new(),
            excludes: Vec::new(),
        }
    }

    /// With a default (as JSON, for the schema's `default`).
    #[must_use]
    pub fn with_default(self, default: serde_json::Value) -> Self {
        ParamSpec { default: Some(default), ..self }
    }

    /// With rules on the value.
    #[must_use]
    pub fn with_rules(self, rules: Rules) -> Self {
        // The parameter's place for its refusals' words, unless the rules bring their own.
        let kept = if rules.kept.is_some() { rules.kept.clone() } else { self.rules.kept };
        ParamSpec { rules: Rules { kept, ..rules }, ..self }
    }

    /// With cross-field rules triggered by this parameter.
    #[must_use]
    pub fn with_requires(self, requires: Vec<Requires>) -> Self {
        ParamSpec { requires, ..self }
    }

    /// With parameters that cannot be sent together with this one.
    #[must_use]
    pub fn with_excludes(self, excludes: Vec<&'static str>) -> Self {
        ParamSpec { excludes, ..self }
    }
}

/// MCP tool annotations (MCP 2025-11-25 `ToolAnnotations`), from `#[tool(...)]` flags. Absent
/// flags are absent hints (`None`), not `false`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Annotations {
    /// `readOnlyHint` (`#[tool(read_only)]`): the tool does not modify its environment.
    pub read_only_hint: Option<bool>,
    /// `destructiveHint` (`#[tool(destructive)]`): the tool may perform destructive updates.
    pub destructive_hint: Option<bool>,
    /// `idempotentHint` (`#[tool(idempotent)]`): calling it again with the same arguments has
    /// no further effect.
    pub idempotent_hint: Option<bool>,
    /// `openWorldHint` (`#[tool(open_world)]`): the tool reaches outside entities (the web,
    /// other systems).
    pub open_world_hint: Option<bool>,
}

impl Annotations {
    /// Whether calling the tool again with the same arguments has no further effect: declared
    /// `idempotent`, or `read_only` (MCP 2025-11-25 `ToolAnnotations`: `idempotentHint` is
    /// "meaningful only when `readOnlyHint == false`"; a tool that modifies nothing is repeated
    /// safely) unless it also declares `destructive` (which wins over `read_only`, as for the
    /// tier) or `idempotent = false`. A fault of such a tool keeps its code's retry class
    /// (`with_backoff` for `BACKEND_ERROR`); any other tool's becomes `after_reread` (check
    /// whether it acted).
    ///
    /// ```
    /// use envelope_core::spec::Annotations;
    ///
    /// let hints = |read_only, destructive, idempotent| {
    ///     let mut a = Annotations::default();
    ///     (a.read_only_hint, a.destructive_hint, a.idempotent_hint) = (read_only, destructive, idempotent);
    ///     a.repeats_safely()
    /// };
    /// assert!(hints(None, None, Some(true)));
    /// assert!(hints(Some(true), None, None));
    /// assert!(!hints(Some(true), Some(true), None)); // destructive wins
    /// assert!(!hints(Some(true), None, Some(false))); // said not idempotent
    /// assert!(!hints(None, None, None));
    /// ```
    pub fn repeats_safely(&self) -> bool {
        self.idempotent_hint == Some(true)
            || (self.read_only_hint == Some(true)
                && self.destructive_hint != Some(true)
                && self.idempotent_hint != Some(false))
    }
}

/// What `#[tool]` declares about a tool.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ToolSpec {
    /// The tool's name (the function's name unless `#[tool(name = "...")]`).
    pub name: &'static str,
    /// `#[tool(title = "...")]`.
    pub title: Option<&'static str>,
    /// From the function's doc comment.
    pub description: &'static str,
    /// Parameters in declared order.
    pub params: Vec<ParamSpec>,
    /// `#[tool(strict)]`: no lax coercions.
    pub strict: bool,
    /// MCP annotations.
    pub annotations: Annotations,
    /// Every `error_code` the tool can emit (computed by `#[tool]`, in a fixed order).
    pub error_codes: Vec<crate::Code>,
    /// `#[tool(output_schema = path)]`: a function giving the JSON Schema of `data`.
    pub output_schema: Option<fn() -> serde_json::Value>,
    /// `#[tool(confirm = preview_fn)]`: a valid call runs only the preview and waits for
    /// approval (`needs_confirmation`).
    pub needs_confirmation: bool,
    /// `#[tool(idempotency_key)]`: the last parameter is the optional `idempotency_key`.
    pub idempotency_key: bool,
    /// `#[tool(rate_limit = "30/min")]`: calls of one caller (and tenant) past this are
    /// refused with `RATE_LIMITED` (see [`crate::spec::rate`]).
    pub rate_limit: Option<crate::spec::rate::RateLimit>,
    /// `#[tool(scopes = ["notes:write"])]`: the OAuth scopes (RFC 6749 §3.3) a caller must have
    /// been granted, every one of them; empty: any caller.
    pub scopes: &'static [&'static str],
    /// `#[tool(tier = N)]`, when declared; [`ToolSpec::tier`] gives the effective tier.
    pub declared_tier: Option<Tier>,
}

/// How much a call can change: T1 reads, T2 writes, T3 destructive writes, T4 destructive
/// actions a public surface never offers (DESIGN "Identity, tenants, tiers, surfaces").
///
/// Declared with `#[tool(tier = 1..=4)]`. Undeclared, it is derived from the MCP annotations:
/// `read_only` → T1, `destructive` → T3, anything else → T2 (`destructive` wins over
/// `read_only`). T4 is never derived: only a tool that declares `tier = 4` is T4. Complete as it
/// is (as `Bound`), so not `#[non_exhaustive]`.
///
/// ```
/// use envelope_core::spec::Tier;
///
/// assert_eq!(Tier::from_number(4), Some(Tier::T4));
/// assert_eq!(Tier::T3.number(), 3);
/// assert_eq!(Tier::T1.as_str(), "T1");
/// assert_eq!(Tier::from_number(5), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// T1: reads; changes nothing.
    T1,
    /// T2: writes that can be undone (the default of a tool that is not `read_only`).
    T2,
    /// T3: destructive writes (the default of a `destructive` tool).
    T3,
    /// T4: destructive actions of wide reach; never visible on a public surface.
    T4,
}

impl Tier {
    /// The tier numbered `n` (1 to 4).
    pub const fn from_number(n: u8) -> Option<Tier> {
        match n {
            1 => Some(Tier::T1),
            2 => Some(Tier::T2),
            3 => Some(Tier::T3),
            4 => Some(Tier::T4),
            _ => None,
        }
    }

    /// 1 to 4: the manifest's `tier`.
    pub const fn number(self) -> u8 {
        match self {
            Tier::T1 => 1,
            Tier::T2 => 2,
            Tier::T3 => 3,
            Tier::T4 => 4,
        }
    }

    /// `"T1"` to `"T4"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Tier::T1 => "T1",
            Tier::T2 => "T2",
            Tier::T3 => "T3",
            Tier::T4 => "T4",
        }
    }
}

impl std::fmt::Display for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Annotations {
    /// These hints (`None`: an absent hint).
    pub const fn new(
        read_only: Option<bool>,
        destructive: Option<bool>,
        idempotent: Option<bool>,
        open_world: Option<bool>,
    ) -> Self {
        Annotations {
            read_only_hint: read_only,
            destructive_hint: destructive,
            idempotent_hint: idempotent,
            open_world_hint: open_world,
        }
    }
}

impl ToolSpec {
    /// A tool without title, flags, annotations or output schema.
    pub fn new(
        name: &'static str,
        description: &'static str,
        params: Vec<ParamSpec>,
        error_codes: Vec<crate::Code>,
    ) -> Self {
        ToolSpec {
            name,
            title: None,
            description,
            params,
            strict: false,
            annotations: Annotations::default(),
            error_codes,
            output_schema: None,
            needs_confirmation: false,
            idempotency_key: false,
            rate_limit: None,
            scopes: &[],
            declared_tier: None,
        }
    }

    /// With `#[tool(title = "...")]`.
    #[must_use]
    pub fn with_title(self, title: &'static str) -> Self {
        ToolSpec { title: Some(title), ..self }
    }

    /// `#[tool(strict)]`.
    #[must_use]
    pub fn with_strict(self) -> Self {
        ToolSpec { strict: true, ..self }
    }

    /// With MCP annotations.
    #[must_use]
    pub fn with_annotations(self, annotations: Annotations) -> Self {
        ToolSpec { annotations, ..self }
    }

    /// With `#[tool(output_schema = path)]`.
    #[must_use]
    pub fn with_output_schema(self, output_schema: fn() -> serde_json::Value) -> Self {
        ToolSpec { output_schema: Some(output_schema), ..self }
    }

    /// `#[tool(confirm = preview_fn)]`.
    #[must_use]
    pub fn with_confirmation(self) -> Self {
        ToolSpec { needs_confirmation: true, ..self }
    }

    /// `#[tool(idempotency_key)]`.
    #[must_use]
    pub fn with_idempotency_key(self) -> Self {
        ToolSpec { idempotency_key: true, ..self }
    }

    /// `#[tool(rate_limit = "30/min")]`: at most `limit` calls per caller and tenant; adds
    /// `RATE_LIMITED` to [`error_codes`](Self::error_codes) (after `VALIDATION_ERROR`).
    #[must_use]
    pub fn with_rate_limit(mut self, limit: crate::spec::rate::RateLimit) -> Self {
        self.rate_limit = Some(limit);
        self.declare_rate_limited();
        self
    }

    /// Adds `RATE_LIMITED` to the codes, after `VALIDATION_ERROR`, unless listed already.
    pub(crate) fn declare_rate_limited(&mut self) {
        if !self.error_codes.contains(&crate::codes::RATE_LIMITED) {
            let at = usize::from(self.error_codes.first() == Some(&crate::codes::VALIDATION_ERROR));
            self.error_codes.insert(at, crate::codes::RATE_LIMITED);
        }
    }

    /// `#[tool(scopes = [...])]`: a caller needs every one of `scopes`. Adds `FORBIDDEN` to the
    /// tool's codes (answered to a caller without them).
    #[must_use]
    pub fn with_scopes(mut self, scopes: &'static [&'static str]) -> Self {
        if !scopes.is_empty() {
            add_codes(&mut self.error_codes, &[crate::codes::FORBIDDEN]);
        }
        ToolSpec { scopes, ..self }
    }

    /// `#[tool(tier = n)]` (1 to 4; any other number leaves the tier derived).
    #[must_use]
    pub fn with_tier(self, n: u8) -> Self {
        ToolSpec { declared_tier: Tier::from_number(n), ..self }
    }

    /// The effective tier: the declared one, else derived from the annotations (`destructive`
    /// → T3, `read_only` → T1, else T2; see [`Tier`]).
    pub fn tier(&self) -> Tier {
        self.declared_tier.unwrap_or(match (self.annotations.destructive_hint, self.annotations.read_only_hint) {
            (Some(true), _) => Tier::T3,
            (_, Some(true)) => Tier::T1,
            _ => Tier::T2,
        })
    }
}

/// Adds `add` to a tool's `codes` (each once), before its trailing `TIMEOUT` and
/// `BACKEND_ERROR`, so the order stays: `VALIDATION_ERROR`, declared codes, governance codes,
/// `TIMEOUT`, `BACKEND_ERROR`.
pub(crate) fn add_codes(codes: &mut Vec<crate::Code>, add: &[crate::Code]) {
    use crate::codes::{BACKEND_ERROR, TIMEOUT};
    let tail = codes.iter().rev().take_while(|c| **c == TIMEOUT || **c == BACKEND_ERROR).count();
    let mut at = codes.len() - tail;
    for c in add {
        if !codes.contains(c) {
            codes.insert(at, *c);
            at += 1;
        }
    }
}

/// The codes a tool can emit, in a fixed order without repeats: `VALIDATION_ERROR`, its error
/// type's codes, `TIMEOUT` (with `timeout_ms`), then `BACKEND_ERROR` (a panic is always
/// possible). `VALIDATION_ERROR` even without parameters: a name the tool does not take, or
/// arguments that are not an object, are refused with it. [`ToolSpec::error_codes`] of every
/// `#[tool]` (through `__private010::error_codes`) and of `confirm_action`.
pub(crate) fn error_codes(declared: &[crate::Code], timeout: bool) -> Vec<crate::Code> {
    use crate::codes;
    let mut out = Vec::with_capacity(declared.len() + 3);
    out.push(codes::VALIDATION_ERROR);
    let timeout = if timeout { Some(&codes::TIMEOUT) } else { None };
    for c in declared.iter().chain(timeout).chain([&codes::BACKEND_ERROR]) {
        if !out.contains(c) {
            out.push(*c);
        }
    }
    out
}
