//! The schema dialects: the tool's `inputSchema` walked beside the declaration it was generated
//! from, each keyword kept, rewritten, or dropped and stated in the description it belonged to.

use serde_json::{Map, Value, json};

use crate::call::tool::Tool;
use crate::spec::{Choices, Format, ParamSpec, Rules, Ty, Unit};

/// A provider's schema dialect (see the module documentation for what each keeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// OpenAI function calling with `strict: true` (Structured Outputs' subset).
    OpenAiStrict,
    /// OpenAI function calling with `strict: false`: JSON Schema, no top-level composition.
    OpenAi,
    /// Anthropic strict tool use (`"strict": true`): the JSON Schema subset of its structured
    /// outputs (no numeric or string length bounds, `additionalProperties: false`).
    AnthropicStrict,
    /// Anthropic tool use: JSON Schema, no top-level `allOf`/`anyOf`/`oneOf`.
    Anthropic,
    /// Gemini function declarations: the `Schema` object's fields only (OpenAPI 3.0 subset).
    Gemini,
    /// Gemini's `parametersJsonSchema`: the JSON Schema keywords of its `JSONSchema` type.
    GeminiJsonSchema,
}

/// The string formats OpenAI's strict mode takes (Structured Outputs, "Supported string
/// properties").
const OPENAI_FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// The string formats Anthropic's strict mode takes (structured outputs, "JSON Schema
/// limitations": OpenAI's nine and `uri`; the `anthropic` SDK's `SupportedStringFormats`).
const ANTHROPIC_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/// The string formats the Gemini API takes in a function declaration (`enum` aside).
const GEMINI_FORMATS: &[&str] = &["date-time"];

/// The string formats of Gemini's JSON Schema support (structured output: `date-time`, `date`,
/// `time`).
const GEMINI_JSON_FORMATS: &[&str] = &["date-time", "date", "time"];

/// A tool's schema and description in one dialect.
pub(crate) struct Converted {
    /// The schema of the arguments object; `None` for a Gemini tool without parameters.
    pub(crate) parameters: Option<Value>,
    /// The tool's description, with the sentences for what the root schema could not say.
    pub(crate) description: String,
}

/// `tool`'s schema in `dialect`.
pub(crate) fn convert(tool: &Tool, dialect: Dialect) -> Converted {
    // From the full schema and the declared description, whatever the toolbox serves over MCP:
    // each dialect decides for itself what its top level can say.
    let schema = crate::schema::input_schema(tool.spec());
    let params = &tool.spec().params;
    let mut notes = Vec::new();
    let root = object(&schema, params, dialect, true, &mut notes);
    let gemini = matches!(dialect, Dialect::Gemini | Dialect::GeminiJsonSchema);
    let parameters = (!gemini || !params.is_empty()).then_some(Value::Object(root));
    Converted { parameters, description: with_notes(tool.spec().description, &notes) }
}

/// An object of named parameters (`params`: the tool's, or a `#[derive(Object)]` type's fields):
/// its `type`, `properties`, `required`, `additionalProperties`; cross-parameter rules (`allOf`)
/// kept or stated in `notes`.
fn object(
    s: &Map<String, Value>,
    params: &[ParamSpec],
    d: Dialect,
    root: bool,
    notes: &mut Vec<String>,
) -> Map<String, Value> {
    let required: Vec<&str> = s
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut props = Map::new();
    if let Some(Value::Object(ps)) = s.get("properties") {
        for (name, p) in ps {
            let spec = params.iter().find(|x| x.name == name);
            props.insert(name.clone(), property(p, spec, !required.contains(&name.as_str()), d));
        }
    }
    let names: Vec<Value> = props.keys().map(|k| json!(k)).collect();
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(props));
    match d {
        // Strict mode: every property is sent; an optional one is sent as null.
        Dialect::OpenAiStrict => {
            out.insert("required".into(), Value::Array(names));
            out.insert("additionalProperties".into(), json!(false));
        }
        // Strict mode: optional properties may be left out; no other key may be sent.
        Dialect::AnthropicStrict => {
            if !required.is_empty() {
                out.insert("required".into(), json!(required));
            }
            out.insert("additionalProperties".into(), json!(false));
        }
        Dialect::Gemini => {
            if !required.is_empty() {
                out.insert("required".into(), json!(required));
            }
            // A tool without parameters has no `parameters` to hold a key at all.
            if s.get("additionalProperties") == Some(&Value::Bool(false)) && !(root && params.is_empty()) {
                push(
                    notes,
                    if root {
                        "Send no parameters other than those listed.".to_owned()
                    } else {
                        "No keys other than those listed.".to_owned()
                    },
                );
            }
        }
        Dialect::OpenAi | Dialect::Anthropic | Dialect::GeminiJsonSchema => {
            if !required.is_empty() {
                out.insert("required".into(), json!(required));
            }
            if let Some(ap) = s.get("additionalProperties") {
                out.insert("additionalProperties".into(), ap.clone());
            }
        }
    }
    if let Some(all_of) = s.get("allOf") {
        // Both refuse a composition keyword at the top level (OpenAI in either mode); deeper,
        // JSON Schema is theirs. Strict modes and Gemini take no `if`/`then`/`not` anywhere.
        if matches!(d, Dialect::OpenAi | Dialect::Anthropic) && !root {
            out.insert("allOf".into(), all_of.clone());
        } else {
            for n in crate::schema::rule_sentences(params) {
                push(notes, n);
            }
        }
    }
    out
}

/// A property of an object: its value's schema, and in strict mode nullable when the caller may
/// leave it out (`null` reads as absent).
fn property(s: &Value, spec: Option<&ParamSpec>, optional: bool, d: Dialect) -> Value {
    let Value::Object(s) = s else { return s.clone() };
    let mut out = node(s, spec.map(|p| &p.ty), spec.map(|p| &p.rules), d);
    if d == Dialect::OpenAiStrict && optional {
        out = nullable(out);
    }
    Value::Object(out)
}

/// `"type": ["integer", "null"]` (with `null` among an `enum`'s values), or for an object, an
/// array or a value of any type `anyOf` with `{"type": "null"}`.
fn nullable(mut s: Map<String, Value>) -> Map<String, Value> {
    if let Some(Value::Array(any_of)) = s.get_mut("anyOf") {
        any_of.push(json!({"type": "null"}));
        return s;
    }
    match s.get("type").and_then(Value::as_str) {
        Some("object" | "array") => {
            let mut out = Map::new();
            if let Some(d) = s.remove("description") {
                out.insert("description".into(), d);
            }
            out.insert("anyOf".into(), json!([Value::Object(s), {"type": "null"}]));
            out
        }
        Some(t) => {
            let t = t.to_owned();
            s.insert("type".into(), json!([t, "null"]));
            if let Some(Value::Array(values)) = s.get_mut("enum")
                && !values.contains(&Value::Null)
            {
                values.push(Value::Null);
            }
            s
        }
        None => s,
    }
}

/// What a keyword becomes in a dialect.
enum Fate {
    Keep,
    /// Left out without a word: an annotation, not a rule (`writeOnly`).
    Drop,
    /// Left out and stated in the description.
    State(String),
}

/// The schema of one value (`ty`, `rules`: what it was generated from, when known).
fn node(s: &Map<String, Value>, ty: Option<&Ty>, rules: Option<&Rules>, d: Dialect) -> Map<String, Value> {
    let mut notes = Vec::new();
    let is_object = s.contains_key("properties");
    let mut body = if is_object {
        let params: &[ParamSpec] = match ty {
            Some(Ty::Object(o)) => &o.params,
            _ => &[],
        };
        object(s, params, d, false, &mut notes)
    } else {
        Map::new()
    };
    let mut bounds = Bounds::default();
    let (mut min_len, mut max_len) = (None, None);
    let (mut min_items, mut max_items) = (None, None);
    let (mut min_entries, mut max_entries) = (None, None);
    for (k, v) in s {
        let fate = match k.as_str() {
            "properties" | "required" | "additionalProperties" | "allOf" if is_object => continue,
            "description" => continue,
            // A map (an object of any keys): its values' schema converted as an array's items
            // are. Strict modes and Gemini's `Schema` have no form for it: `Export::tool`
            // refuses the tool before it gets here.
            "additionalProperties" => {
                let value_ty = match ty {
                    Some(Ty::Map(value)) => Some(&**value),
                    _ => None,
                };
                let value_rules = rules.and_then(|r| r.items.as_deref());
                let values = match v {
                    Value::Object(m) => Value::Object(node(m, value_ty, value_rules, d)),
                    other => other.clone(),
                };
                body.insert(k.clone(), values);
                continue;
            }
            "minProperties" | "maxProperties" if d == Dialect::GeminiJsonSchema => {
                if k == "minProperties" {
                    min_entries = v.as_u64();
                } else {
                    max_entries = v.as_u64();
                }
                continue;
            }
            "items" => {
                let item_ty = match ty {
                    Some(Ty::Array(item)) => Some(&**item),
                    _ => None,
                };
                let item_rules = rules.and_then(|r| r.items.as_deref());
                let items = match v {
                    Value::Object(m) => Value::Object(node(m, item_ty, item_rules, d)),
                    other => other.clone(),
                };
                body.insert("items".into(), items);
                continue;
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                let kept = match d {
                    // Strict mode takes integers within 64 bits; u64's upper bound is not one.
                    Dialect::OpenAiStrict => !(v.is_u64() && v.as_i64().is_none()),
                    Dialect::Gemini | Dialect::GeminiJsonSchema => matches!(k.as_str(), "minimum" | "maximum"),
                    // "Numerical constraints (minimum, maximum, multipleOf, etc.)": not supported.
                    Dialect::AnthropicStrict => false,
                    Dialect::OpenAi | Dialect::Anthropic => true,
                };
                if kept {
                    Fate::Keep
                } else {
                    bounds.add(k, v);
                    continue;
                }
            }
            "minLength" | "maxLength" if matches!(d, Dialect::OpenAiStrict | Dialect::AnthropicStrict) => {
                // A byte length says so in the description already; its character bounds are
                // what follows from it.
                if !rules.and_then(|r| r.length).is_some_and(|l| l.unit == Unit::Bytes) {
                    if k == "minLength" {
                        min_len = v.as_u64();
                    } else {
                        max_len = v.as_u64();
                    }
                }
                continue;
            }
            // The anthropic SDK's strict transform moves `pattern` into the description: so does
            // this dialect (a case-blind pattern of choices is said by its examples already).
            "pattern" if d == Dialect::AnthropicStrict => {
                if rules.is_some_and(|r| r.ignore_case && matches!(r.choices, Some(Choices::Str(_)))) {
                    Fate::Drop
                } else {
                    Fate::State(format!("Must match the regular expression {v}."))
                }
            }
            // "Array minItems (only values 0 and 1 supported)".
            "minItems" | "maxItems" if d == Dialect::AnthropicStrict => {
                if k == "minItems" && matches!(v.as_u64(), Some(0 | 1)) {
                    body.insert(k.clone(), v.clone());
                } else if k == "minItems" {
                    min_items = v.as_u64();
                } else {
                    max_items = v.as_u64();
                }
                continue;
            }
            "type" | "minItems" | "maxItems" | "pattern" | "minLength" | "maxLength" | "minProperties"
            | "maxProperties" => Fate::Keep,
            "enum" => match d {
                Dialect::Gemini if !v.as_array().is_some_and(|a| a.iter().all(Value::is_string)) => {
                    Fate::State(format!("Must be one of {}.", listed(v)))
                }
                _ => Fate::Keep,
            },
            "const" if matches!(d, Dialect::Gemini | Dialect::GeminiJsonSchema) => Fate::State(format!("Must be {v}.")),
            "multipleOf" if matches!(d, Dialect::Gemini | Dialect::GeminiJsonSchema | Dialect::AnthropicStrict) => {
                Fate::State(format!("Must be a multiple of {v}."))
            }
            "format" => {
                let f = v.as_str().unwrap_or("");
                let taken = match d {
                    Dialect::OpenAiStrict => OPENAI_FORMATS.contains(&f),
                    Dialect::AnthropicStrict => ANTHROPIC_FORMATS.contains(&f),
                    Dialect::Gemini => GEMINI_FORMATS.contains(&f),
                    Dialect::GeminiJsonSchema => GEMINI_JSON_FORMATS.contains(&f),
                    Dialect::OpenAi | Dialect::Anthropic => true,
                };
                if taken { Fate::Keep } else { Fate::State(format_words(f)) }
            }
            "default" if d == Dialect::OpenAiStrict => Fate::State(format!("Send null for the default, {v}.")),
            "default" if d == Dialect::AnthropicStrict => Fate::State(format!("Left out, it is {v}.")),
            "writeOnly" if d != Dialect::OpenAi && d != Dialect::Anthropic => Fate::Drop,
            "examples" if d != Dialect::OpenAi && d != Dialect::Anthropic => Fate::State(examples(v, rules)),
            "const" | "multipleOf" | "default" | "writeOnly" | "examples" => Fate::Keep,
            _ => match d {
                Dialect::OpenAiStrict | Dialect::AnthropicStrict | Dialect::Gemini | Dialect::GeminiJsonSchema => {
                    Fate::State(format!("Must meet the JSON Schema rule \"{k}\": {v}."))
                }
                Dialect::OpenAi | Dialect::Anthropic => Fate::Keep,
            },
        };
        match fate {
            Fate::Keep => {
                body.insert(k.clone(), v.clone());
            }
            Fate::Drop => {}
            Fate::State(sentence) => push(&mut notes, sentence),
        }
    }
    if let Some(sentence) = bounds.sentence() {
        push(&mut notes, sentence);
    }
    if let Some(sentence) = length_words(min_len, max_len) {
        push(&mut notes, sentence);
    }
    if let Some(sentence) = count_words(min_items, max_items, Unit::Items) {
        push(&mut notes, sentence);
    }
    if let Some(sentence) = count_words(min_entries, max_entries, Unit::Entries) {
        push(&mut notes, sentence);
    }
    // A value of any JSON type: strict mode and Gemini need a type, and neither can say "any"
    // (an object must list its keys), so the scalars are offered: all of them read as sent.
    let any = !is_object
        && !s.contains_key("type")
        && matches!(d, Dialect::OpenAiStrict | Dialect::AnthropicStrict | Dialect::Gemini);
    if any {
        body.insert("anyOf".into(), json!([{"type": "string"}, {"type": "number"}, {"type": "boolean"}]));
    }
    // `type` first, then `description`, then the rest: the order a reader scans.
    let mut out = Map::new();
    if let Some(t) = body.remove("type") {
        out.insert("type".into(), t);
    }
    let description = with_notes(s.get("description").and_then(Value::as_str).unwrap_or(""), &notes);
    if !description.is_empty() {
        out.insert("description".into(), json!(description));
    }
    out.extend(body);
    out
}

/// The bounds a dialect dropped, stated in one sentence.
#[derive(Default)]
struct Bounds {
    /// The lower bound's value as JSON, and whether it is included.
    lo: Option<(String, bool)>,
    /// The upper bound's.
    hi: Option<(String, bool)>,
}

impl Bounds {
    fn add(&mut self, keyword: &str, v: &Value) {
        let v = v.to_string();
        match keyword {
            "minimum" => self.lo = Some((v, true)),
            "exclusiveMinimum" => self.lo = Some((v, false)),
            "maximum" => self.hi = Some((v, true)),
            _ => self.hi = Some((v, false)),
        }
    }

    /// `Must be from 1 to 720.`, `Must be at least 0 and less than 1.0.`
    fn sentence(&self) -> Option<String> {
        if let (Some((a, true)), Some((b, true))) = (&self.lo, &self.hi) {
            return Some(format!("Must be from {a} to {b}."));
        }
        let mut parts = Vec::new();
        match &self.lo {
            Some((a, true)) => parts.push(format!("at least {a}")),
            Some((a, false)) => parts.push(format!("greater than {a}")),
            None => {}
        }
        match &self.hi {
            Some((b, true)) => parts.push(format!("at most {b}")),
            Some((b, false)) => parts.push(format!("less than {b}")),
            None => {}
        }
        (!parts.is_empty()).then(|| format!("Must be {}.", parts.join(" and ")))
    }
}

/// `Must be from 1 to 120 characters long.`
fn length_words(min: Option<u64>, max: Option<u64>) -> Option<String> {
    Some(match (min, max) {
        (Some(a), Some(b)) if a == b => format!("Must be exactly {a} characters long."),
        (Some(a), Some(b)) => format!("Must be from {a} to {b} characters long."),
        (Some(a), None) => format!("Must be at least {a} characters long."),
        (None, Some(b)) => format!("Must be at most {b} characters long."),
        (None, None) => return None,
    })
}

/// `Must have from 2 to 5 items.`, `Must have at least 1 entry.`
fn count_words(min: Option<u64>, max: Option<u64>, unit: Unit) -> Option<String> {
    let items = |n: u64| if n == 1 { format!("1 {}", unit.singular()) } else { format!("{n} {}", unit.word()) };
    Some(match (min, max) {
        (Some(a), Some(b)) if a == b => format!("Must have exactly {}.", items(a)),
        (Some(a), Some(b)) => format!("Must have from {a} to {}.", items(b)),
        (Some(a), None) => format!("Must have at least {}.", items(a)),
        (None, Some(b)) => format!("Must have at most {}.", items(b)),
        (None, None) => return None,
    })
}

/// `Must be an absolute URI with a scheme.`
fn format_words(keyword: &str) -> String {
    const KNOWN: [Format; 5] = [Format::Date, Format::DateTime, Format::Uuid, Format::Email, Format::Uri];
    match KNOWN.iter().find(|f| f.keyword() == keyword) {
        Some(f) => format!("Must be {}.", f.words()),
        None => format!("Must be in the format \"{keyword}\"."),
    }
}

/// The sentence for `examples`: for `ignore_case` choices (a case-blind `pattern` with the
/// canonical spellings as examples) the choices themselves.
fn examples(v: &Value, rules: Option<&Rules>) -> String {
    match rules {
        Some(r) if r.ignore_case && matches!(r.choices, Some(Choices::Str(_))) => {
            format!("Must be one of {}, in any letter case.", listed(v))
        }
        _ => format!("Examples: {}.", listed(v)),
    }
}

/// `1, 7, 30` or `"ALL", "HOURLY_ALL"`: JSON values, comma-separated.
fn listed(v: &Value) -> String {
    match v {
        Value::Array(a) => a.iter().map(Value::to_string).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

fn push(notes: &mut Vec<String>, sentence: String) {
    if !notes.contains(&sentence) {
        notes.push(sentence);
    }
}

/// `description` followed by `notes`, each sentence after a full stop.
fn with_notes(description: &str, notes: &[String]) -> String {
    crate::schema::with_sentences(description, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_as_one_sentence() {
        let mut b = Bounds::default();
        b.add("minimum", &json!(1));
        b.add("maximum", &json!(720));
        assert_eq!(b.sentence().unwrap(), "Must be from 1 to 720.");
        let mut b = Bounds::default();
        b.add("minimum", &json!(0.0));
        b.add("exclusiveMaximum", &json!(1.0));
        assert_eq!(b.sentence().unwrap(), "Must be at least 0.0 and less than 1.0.");
        let mut b = Bounds::default();
        b.add("exclusiveMinimum", &json!(0.5));
        assert_eq!(b.sentence().unwrap(), "Must be greater than 0.5.");
        assert_eq!(Bounds::default().sentence(), None);
    }

    #[test]
    fn notes_follow_a_full_stop() {
        assert_eq!(with_notes("How many", &["Must be from 1 to 9.".into()]), "How many. Must be from 1 to 9.");
        assert_eq!(with_notes("", &["A.".into(), "B.".into()]), "A. B.");
        assert_eq!(with_notes("Done.", &[]), "Done.");
    }

    #[test]
    fn nullable_keeps_null_among_the_choices() {
        let s = nullable(json!({"type": "string", "enum": ["a", "b"]}).as_object().unwrap().clone());
        assert_eq!(Value::Object(s), json!({"type": ["string", "null"], "enum": ["a", "b", null]}));
        let s = nullable(
            json!({"type": "array", "description": "d", "items": {"type": "string"}}).as_object().unwrap().clone(),
        );
        assert_eq!(
            Value::Object(s),
            json!({"description": "d", "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]})
        );
    }

    #[test]
    fn lengths_and_formats_in_words() {
        assert_eq!(length_words(Some(4), Some(4)).unwrap(), "Must be exactly 4 characters long.");
        assert_eq!(length_words(None, Some(120)).unwrap(), "Must be at most 120 characters long.");
        assert_eq!(format_words("uri"), "Must be an absolute URI with a scheme.");
        assert_eq!(format_words("ipv4"), "Must be in the format \"ipv4\".");
    }
}
