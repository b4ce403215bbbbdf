//! The limits a provider documents for a tool definition, checked when its export is built: a
//! tool past one is an [`ExportError`] naming the tool, the limit and the figure, never a
//! definition cut to fit or one the provider's API refuses later.

use std::fmt;

use serde_json::Value;

use super::Provider;
use crate::spec::{ParamSpec, Ty};

/// One documented limit of a provider's tool definitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// A function name of 1 to 64 characters (OpenAI, Anthropic), 1 to 128 (Gemini).
    NameLength,
    /// A function name of `A-Z`, `a-z`, `0-9`, `_`, `-` (OpenAI, Anthropic); for Gemini also
    /// `.` and `:`, and a letter or `_` first.
    NameCharacters,
    /// OpenAI strict mode: at most 5,000 object properties in all.
    Properties,
    /// OpenAI strict mode: objects nested at most 10 levels deep (the parameters object is the
    /// first).
    Nesting,
    /// OpenAI strict mode: at most 1,000 `enum` values in all.
    EnumValues,
    /// OpenAI strict mode: at most 120,000 characters of property names, string `enum` values
    /// and string `const` values in all.
    Characters,
    /// OpenAI's and Anthropic's strict modes and Gemini's `parameters` (its OpenAPI `Schema`):
    /// no object of any keys (a map parameter or field: `additionalProperties` with a schema),
    /// which they cannot state. [`Export::non_strict`](super::Export::non_strict) (OpenAI,
    /// Anthropic) or [`Export::json_schema`](super::Export::json_schema) (Gemini) exports it.
    Maps,
}

impl Limit {
    /// The most `provider` allows: a count of characters, properties, levels or values (for
    /// [`NameCharacters`](Self::NameCharacters), 0: no character outside the set).
    pub const fn max(self, provider: Provider) -> usize {
        match self {
            Limit::NameLength if matches!(provider, Provider::Gemini) => 128,
            Limit::NameLength => 64,
            Limit::NameCharacters => 0,
            Limit::Properties => 5_000,
            Limit::Nesting => 10,
            Limit::EnumValues => 1_000,
            Limit::Characters => 120_000,
            Limit::Maps => 0,
        }
    }
}

/// A tool past one of a provider's documented limits: its export is not built.
///
/// Its `Display`: `get_top_queries: OpenAI allows at most 1000 enum values in a strict schema;
/// this one has 1204.`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportError {
    tool: String,
    provider: Provider,
    limit: Limit,
    figure: usize,
    /// For [`Limit::NameCharacters`], the first character outside the set.
    character: Option<char>,
}

impl ExportError {
    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The provider whose limit it is.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The limit.
    pub fn limit(&self) -> Limit {
        self.limit
    }

    /// The most the limit allows ([`Limit::max`] for the provider).
    pub fn max(&self) -> usize {
        self.limit.max(self.provider)
    }

    /// The tool's figure against [`max`](Self::max): characters of the name, properties, levels,
    /// enum values, characters of names and values; for [`Limit::NameCharacters`], the
    /// position (in characters, from 0) of the first character outside the set.
    pub fn figure(&self) -> usize {
        self.figure
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let who = match self.provider {
            Provider::OpenAiChat | Provider::OpenAiResponses => "OpenAI",
            Provider::Anthropic => "Anthropic",
            Provider::Gemini => "Gemini",
        };
        let (tool, n, max) = (&self.tool, self.figure, self.max());
        match self.limit {
            Limit::NameLength => {
                write!(f, "{tool}: {who} allows a tool name of 1 to {max} characters; this one has {n}.")
            }
            Limit::NameCharacters => {
                let allowed = if self.provider == Provider::Gemini {
                    "A-Z, a-z, 0-9, _, -, . and :, starting with a letter or _"
                } else {
                    "A-Z, a-z, 0-9, _ and -"
                };
                let c = self.character.map_or_else(String::new, |c| format!(" {c:?}"));
                write!(f, "{tool}: {who} allows a tool name of {allowed} only; this one has{c} at character {n}.")
            }
            Limit::Properties => {
                write!(f, "{tool}: {who} allows at most {max} properties in a strict schema; this one has {n}.")
            }
            Limit::Nesting => write!(
                f,
                "{tool}: {who} allows objects nested at most {max} levels deep in a strict schema; this one nests {n}."
            ),
            Limit::EnumValues => {
                write!(f, "{tool}: {who} allows at most {max} enum values in a strict schema; this one has {n}.")
            }
            Limit::Characters => write!(
                f,
                "{tool}: {who} allows at most {max} characters of property names and enum values in a strict \
                 schema; this one has {n}."
            ),
            Limit::Maps if self.provider == Provider::Gemini => write!(
                f,
                "{tool}: Gemini's `parameters` cannot state an object of any keys (a map); this one has {n}, counting those nested in other values. \
                 Export it with `json_schema()`."
            ),
            Limit::Maps => write!(
                f,
                "{tool}: {who}'s strict mode cannot state an object of any keys (a map); this one has {n}, counting those nested in other values. \
                 Export it with `non_strict()`."
            ),
        }
    }
}

impl std::error::Error for ExportError {}

/// `name` against `provider`'s rule for a tool name (OpenAI: "a-z, A-Z, 0-9, or contain
/// underscores and dashes, with a maximum length of 64"; Anthropic the same; Gemini: "must start
/// with a letter or an underscore ... a-z, A-Z, 0-9, or contain underscores, dots, colons and
/// dashes, with a maximum length of 128").
pub(crate) fn name(provider: Provider, name: &str) -> Result<(), ExportError> {
    let error = |limit, figure, character| ExportError { tool: name.to_owned(), provider, limit, figure, character };
    let gemini = provider == Provider::Gemini;
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-' || (gemini && (c == '.' || c == ':'));
    let chars = name.chars().count();
    if chars == 0 || chars > Limit::NameLength.max(provider) {
        return Err(error(Limit::NameLength, chars, None));
    }
    if let Some((at, c)) = name.chars().enumerate().find(|(_, c)| !allowed(*c)) {
        return Err(error(Limit::NameCharacters, at, Some(c)));
    }
    if gemini && let Some(c) = name.chars().next().filter(|c| !(c.is_ascii_alphabetic() || *c == '_')) {
        return Err(error(Limit::NameCharacters, 0, Some(c)));
    }
    Ok(())
}

/// The maps among `params` (at any depth: a map's values, an array's items, an object's
/// fields) against a dialect that cannot state one ([`Limit::Maps`]).
pub(crate) fn maps(provider: Provider, tool: &str, params: &[ParamSpec]) -> Result<(), ExportError> {
    fn count(ty: &Ty) -> usize {
        match ty {
            Ty::Map(value) => 1 + count(value),
            Ty::Array(item) => count(item),
            Ty::Object(o) => o.params.iter().map(|p| count(&p.ty)).sum(),
            _ => 0,
        }
    }
    let n: usize = params.iter().map(|p| count(&p.ty)).sum();
    if n == 0 {
        return Ok(());
    }
    Err(ExportError { tool: tool.to_owned(), provider, limit: Limit::Maps, figure: n, character: None })
}

/// What a strict schema adds up to.
#[derive(Default)]
struct Totals {
    properties: usize,
    depth: usize,
    enum_values: usize,
    chars: usize,
}

fn walk(s: &Value, depth: usize, t: &mut Totals) {
    let Value::Object(m) = s else { return };
    let mut depth = depth;
    if let Some(Value::Object(props)) = m.get("properties") {
        depth += 1;
        t.depth = t.depth.max(depth);
        for (name, p) in props {
            t.properties += 1;
            t.chars += name.chars().count();
            walk(p, depth, t);
        }
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        t.enum_values += values.len();
        t.chars += values.iter().filter_map(Value::as_str).map(|s| s.chars().count()).sum::<usize>();
    }
    if let Some(Value::String(c)) = m.get("const") {
        t.chars += c.chars().count();
    }
    if let Some(items) = m.get("items") {
        walk(items, depth, t);
    }
    for k in ["anyOf", "allOf", "oneOf"] {
        for b in m.get(k).and_then(Value::as_array).into_iter().flatten() {
            walk(b, depth, t);
        }
    }
    for k in ["$defs", "definitions"] {
        for d in m.get(k).and_then(Value::as_object).into_iter().flat_map(|d| d.values()) {
            walk(d, 0, t);
        }
    }
}

/// `parameters`, a strict schema of `tool`, against OpenAI's Structured Outputs limits ("Objects
/// have limitations on nesting depth and size"): 5,000 properties, 10 levels, 1,000 enum values,
/// 120,000 characters.
pub(crate) fn openai_strict(provider: Provider, tool: &str, parameters: &Value) -> Result<(), ExportError> {
    let mut t = Totals::default();
    walk(parameters, 0, &mut t);
    let error = |limit, figure| ExportError { tool: tool.to_owned(), provider, limit, figure, character: None };
    for (limit, figure) in [
        (Limit::Properties, t.properties),
        (Limit::Nesting, t.depth),
        (Limit::EnumValues, t.enum_values),
        (Limit::Characters, t.chars),
    ] {
        if figure > limit.max(provider) {
            return Err(error(limit, figure));
        }
    }
    Ok(())
}
