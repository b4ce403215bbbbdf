//! Model providers called directly (issue "Every model API, from one declaration").
//!
//! - Checkers of each provider's documented rules, written here from the providers' documents
//!   (not from the exporter), walk every exported definition of the example tools and of
//!   generated tools that use every rule, and list the violations: there must be none. Each
//!   checker is shown to catch the failures the public reports describe.
//! - Differential, per dialect: argument objects generated from the exported schema, kept when
//!   the schema (as JSON Schema, formats asserted) accepts them, are sent through the provider's
//!   tool-call path; each is served, or refused only for a parameter whose exported description
//!   (or the tool's) states a rule the dialect dropped.
//! - Tool calls of each provider answered with its tool-result message; malformed calls answered
//!   with refusals; `null` for optional parameters read as absent; the example agent loops.

use std::collections::BTreeSet;

use envelope_core::providers::{self, Export, Provider};
use envelope_core::{Tool, Toolbox, outcome::WireFormat};
use proptest::prelude::*;
use proptest::strategy::{Union, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value, json};

use crate::{block_on, tools};

#[path = "../../examples/openai_loop.rs"]
#[allow(dead_code, clippy::duplicate_mod)] // the example's own copy of the example tools
mod openai_loop;

#[path = "../../examples/anthropic_loop.rs"]
#[allow(dead_code, clippy::duplicate_mod)] // the example's own copy of the example tools
mod anthropic_loop;

#[path = "../../examples/gemini_loop.rs"]
#[allow(dead_code, clippy::duplicate_mod)] // the example's own copy of the example tools
mod gemini_loop;

/// Tools that use every rule: ranges (inclusive, exclusive, float, beyond 64-bit signed),
/// integer and string choices (`ignore_case` too), lengths in characters and bytes, patterns,
/// every format, `multiple_of`, `each`, nested objects (optional, in arrays, with their own
/// cross rule), `Option`, defaults, `secret`, a `serde_json::Value`, cross-parameter rules, and
/// no parameters at all.
#[allow(clippy::too_many_arguments)] // a parameter per rule
mod generated {
    use envelope_core::{Choice, Object, Toolbox, tool};
    use serde_json::{Value, json};

    #[derive(Choice, Clone, Copy, Debug, PartialEq)]
    #[choice(rename_all = "snake_case")]
    pub enum Order {
        Asc,
        Desc,
    }

    /// A window of days.
    #[derive(Object)]
    pub struct Window {
        /// First day, inclusive.
        #[validate(format = "date", requires = "until")]
        since: Option<String>,
        /// Last day, inclusive.
        #[validate(format = "date")]
        until: Option<String>,
        /// Rows per page.
        #[validate(range = 1..=50, multiple_of = 5, default = 10)]
        limit: u32,
    }

    /// Numbers of every kind.
    #[tool]
    pub fn numbers(
        /// A small count.
        #[validate(range = 1..=200)]
        small: u8,
        #[validate(range = -5..5)] signed: i8,
        /// A share.
        #[validate(range = 0.0..1.0)]
        ratio: f64,
        /// A step.
        #[validate(range = 0..=100, multiple_of = 5)]
        step: u32,
        #[validate(range = 0.0..=1.0, multiple_of = 0.25)] quarter: Option<f64>,
        #[validate(range = 1..)] big: Option<u64>,
        /// Days back.
        #[validate(choices = [1, 7, 30])]
        days: Option<u32>,
        #[validate(range = 1..=9, default = 3)] level: u32,
    ) -> Value {
        json!([small, signed, ratio, step, quarter, big, days, level])
    }

    /// Strings of every kind.
    #[tool]
    pub fn strings(
        /// A short code.
        #[validate(length = 2..=5)]
        code: String,
        #[validate(byte_length = ..=8)] short: Option<String>,
        #[validate(pattern = "^[A-Z]{3}$", example = "EUR")] currency: Option<String>,
        #[validate(format = "date")] day: Option<String>,
        #[validate(format = "date-time")] at: Option<String>,
        #[validate(format = "uuid")] id: Option<String>,
        #[validate(format = "email")] to: Option<String>,
        /// Where to send it.
        #[validate(format = "uri")]
        url: Option<String>,
        #[validate(secret, pattern = "^sk-[a-z]{4}$")] api_key: Option<String>,
        #[validate(choices = ["ALL", "HOURLY_ALL"], ignore_case, default = "ALL")] state: String,
        order: Option<Order>,
        flag: Option<bool>,
    ) -> Value {
        let _ = api_key;
        json!([code, short, currency, day, at, id, to, url, state, order.map(|o| o.as_str()), flag])
    }

    /// Lists and objects.
    #[tool(strict)]
    pub fn lists(
        /// Counts.
        #[validate(length = 1..=3, each(range = 1..=10))]
        xs: Vec<u32>,
        #[validate(length = ..=4, each(pattern = "^[a-z]+$", example = "tag"))] tags: Option<Vec<String>>,
        #[validate(each(choices = ["asc", "desc"]))] orders: Option<Vec<String>>,
        /// One window.
        window: Option<Window>,
        #[validate(length = ..=2)] windows: Option<Vec<Window>>,
        extra: Option<Value>,
    ) -> Value {
        let n = |w: &Window| json!([w.since, w.until, w.limit]);
        json!([xs, tags, orders, window.as_ref().map(n), windows.map(|ws| ws.iter().map(n).collect::<Vec<_>>()), extra])
    }

    /// Rules between parameters.
    #[tool]
    pub fn cross(
        #[validate(choices = ["query", "hour"], requires(data_state = "HOURLY_ALL", when = "hour"))] dimension: String,
        #[validate(choices = ["ALL", "HOURLY_ALL"], default = "ALL")] data_state: String,
        #[validate(requires = "until")] since: Option<u32>,
        until: Option<u32>,
        #[validate(excludes = "name")] id: Option<u32>,
        name: Option<String>,
    ) -> Value {
        json!([dimension, data_state, since, until, id, name])
    }

    /// Takes nothing.
    #[tool(read_only)]
    pub fn nothing() -> bool {
        true
    }

    pub fn toolbox() -> Toolbox {
        Toolbox::new()
            .with(numbers::tool())
            .with(strings::tool())
            .with(lists::tool())
            .with(cross::tool())
            .with(nothing::tool())
    }
}

/// Each export under test: the six dialects (OpenAI's strict dialect through both of its APIs):
/// OpenAI strict and non-strict, Anthropic strict and non-strict, Gemini `parameters` and
/// `parametersJsonSchema`.
const EXPORTS: [Export; 7] = [
    Export::new(Provider::OpenAiChat),
    Export::new(Provider::OpenAiResponses),
    Export::new(Provider::OpenAiChat).non_strict(),
    Export::new(Provider::Anthropic),
    Export::new(Provider::Anthropic).non_strict(),
    Export::new(Provider::Gemini),
    Export::new(Provider::Gemini).json_schema(),
];

fn export(provider: Provider, strict: bool) -> Export {
    let e = Export::new(provider);
    if strict { e } else { e.non_strict() }
}

/// Gemini's `parametersJsonSchema` form.
fn gemini_json() -> Export {
    Export::new(Provider::Gemini).json_schema()
}

// ---------------------------------------------------------------------------------------------
// The providers' documented rules.

/// `^[a-zA-Z0-9_-]{1,64}$`: OpenAI's function names ("a-z, A-Z, 0-9, or contain underscores and
/// dashes, with a maximum length of 64") and Anthropic's tool names.
fn plain_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Gemini's function names: "must start with a letter or an underscore. Must be a-z, A-Z, 0-9,
/// or contain underscores, dots, colons and dashes, with a maximum length of 128".
fn gemini_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c))
}

fn keys_outside<'a>(m: &'a Map<String, Value>, allowed: &[&str]) -> Vec<&'a str> {
    m.keys().map(String::as_str).filter(|k| !allowed.contains(k)).collect()
}

/// The keywords of OpenAI's strict mode (Structured Outputs, "Supported schemas": the supported
/// types, the string, number and array properties, `anyOf`, definitions and `$ref`, plus the
/// annotations `description` and `title`).
const OPENAI_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];
const OPENAI_FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
const JSON_TYPES: &[&str] = &["string", "number", "integer", "boolean", "object", "array", "null"];

/// What a strict schema adds up to, against OpenAI's limits.
#[derive(Default)]
struct StrictTotals {
    properties: usize,
    enum_values: usize,
    /// Characters of property names, enum values and const values.
    chars: usize,
}

fn json_type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn strict_node(s: &Value, at: &str, depth: usize, t: &mut StrictTotals, out: &mut Vec<String>) {
    let Value::Object(m) = s else {
        out.push(format!("{at}: a schema must be an object"));
        return;
    };
    for k in keys_outside(m, OPENAI_STRICT_KEYWORDS) {
        out.push(format!("{at}: \"{k}\" is not supported in strict mode"));
    }
    if !["type", "anyOf", "enum", "const", "$ref"].iter().any(|k| m.contains_key(*k)) {
        out.push(format!("{at}: no type"));
    }
    let types: Vec<&str> = match m.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        Some(other) => {
            out.push(format!("{at}: type {other} is not a type name"));
            vec![]
        }
        None => vec![],
    };
    for ty in &types {
        if !JSON_TYPES.contains(ty) {
            out.push(format!("{at}: unknown type {ty:?}"));
        }
    }
    if let Some(e) = m.get("enum") {
        let Some(values) = e.as_array() else {
            out.push(format!("{at}: enum is not an array"));
            return;
        };
        t.enum_values += values.len();
        let mut string_chars = 0;
        for v in values {
            let vt = json_type_of(v);
            let allowed = types.is_empty() || types.contains(&vt) || (vt == "integer" && types.contains(&"number"));
            if !allowed {
                out.push(format!("{at}: enum value {v} is not of type {types:?}"));
            }
            if let Value::String(s) = v {
                string_chars += s.chars().count();
            }
        }
        t.chars += string_chars;
        if values.len() > 250 && string_chars > 15_000 {
            out.push(format!("{at}: over 250 enum values of more than 15,000 characters"));
        }
    }
    if let Some(c) = m.get("const") {
        t.chars += c.as_str().map_or(0, |s| s.chars().count());
    }
    if let Some(f) = m.get("format").and_then(Value::as_str)
        && !OPENAI_FORMATS.contains(&f)
    {
        out.push(format!("{at}: format {f:?} is not supported"));
    }
    for k in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] {
        if let Some(v) = m.get(k) {
            if !v.is_number() {
                out.push(format!("{at}: {k} is not a number"));
            } else if v.is_u64() && v.as_i64().is_none() {
                out.push(format!("{at}: {k} {v} is beyond a 64-bit signed integer"));
            }
        }
    }
    if types.contains(&"object") {
        if depth > 10 {
            out.push(format!("{at}: nested more than 10 levels"));
        }
        let props = m.get("properties").and_then(Value::as_object);
        let names: BTreeSet<&str> = props.map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
        let required: BTreeSet<&str> = m
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if names != required {
            out.push(format!("{at}: required {required:?} is not every property {names:?}"));
        }
        if m.get("additionalProperties") != Some(&Value::Bool(false)) {
            out.push(format!("{at}: additionalProperties is not false"));
        }
        for (name, p) in props.into_iter().flatten() {
            t.properties += 1;
            t.chars += name.chars().count();
            strict_node(p, &format!("{at}.{name}"), depth + 1, t, out);
        }
    }
    if types.contains(&"array") {
        match m.get("items") {
            Some(items) => strict_node(items, &format!("{at}[]"), depth, t, out),
            None => out.push(format!("{at}: an array without items")),
        }
    }
    if let Some(any_of) = m.get("anyOf") {
        for (i, b) in any_of.as_array().into_iter().flatten().enumerate() {
            strict_node(b, &format!("{at}|{i}"), depth, t, out);
        }
    }
}

/// OpenAI's rules for a function tool: its shape in Chat Completions (`{"type": "function",
/// "function": {...}}`) or Responses (flat); the parameters a JSON Schema of type object without
/// `oneOf`/`anyOf`/`allOf`/`enum`/`const`/`not` at the top; in strict mode, the Structured
/// Outputs subset and its limits (5,000 properties, 10 levels, 1,000 enum values, 120,000
/// characters of names and values).
fn openai_violations(def: &Value, api: Provider, strict: bool) -> Vec<String> {
    let mut out = Vec::new();
    let Value::Object(outer) = def else { return vec!["the tool is not an object".into()] };
    if outer.get("type") != Some(&json!("function")) {
        out.push("type is not \"function\"".into());
    }
    let f = match api {
        Provider::OpenAiChat => {
            out.extend(keys_outside(outer, &["type", "function"]).iter().map(|k| format!("unknown key {k}")));
            match outer.get("function") {
                Some(Value::Object(f)) => {
                    out.extend(
                        keys_outside(f, &["name", "description", "parameters", "strict"])
                            .iter()
                            .map(|k| format!("unknown key {k}")),
                    );
                    f
                }
                _ => return vec!["no function object".into()],
            }
        }
        _ => {
            out.extend(
                keys_outside(outer, &["type", "name", "description", "parameters", "strict"])
                    .iter()
                    .map(|k| format!("unknown key {k}")),
            );
            outer
        }
    };
    match f.get("name").and_then(Value::as_str) {
        Some(n) if plain_name(n) => {}
        other => out.push(format!("name {other:?} is not a-z, A-Z, 0-9, _ or -, at most 64")),
    }
    if f.get("description").is_some_and(|d| !d.is_string()) {
        out.push("description is not a string".into());
    }
    if f.get("strict") != Some(&json!(strict)) {
        out.push(format!("strict is not {strict}"));
    }
    let Some(Value::Object(p)) = f.get("parameters") else {
        out.push("no parameters object".into());
        return out;
    };
    if p.get("type") != Some(&json!("object")) {
        out.push("parameters is not of type \"object\"".into());
    }
    for k in ["oneOf", "anyOf", "allOf", "enum", "const", "not"] {
        if p.contains_key(k) {
            out.push(format!("\"{k}\" at the top level"));
        }
    }
    if strict {
        let mut totals = StrictTotals::default();
        strict_node(&Value::Object(p.clone()), "parameters", 1, &mut totals, &mut out);
        if totals.properties > 5000 {
            out.push(format!("{} properties, over 5,000", totals.properties));
        }
        if totals.enum_values > 1000 {
            out.push(format!("{} enum values, over 1,000", totals.enum_values));
        }
        if totals.chars > 120_000 {
            out.push(format!("{} characters of names and values, over 120,000", totals.chars));
        }
    } else if let Err(e) = jsonschema::draft202012::meta::validate(&Value::Object(p.clone())) {
        out.push(format!("parameters is not valid JSON Schema: {e}"));
    }
    out
}

/// The keywords of Anthropic's strict mode (structured outputs, "JSON Schema limitations", as
/// the `anthropic` SDK's `transform_schema` keeps them: everything else it moves into the
/// description).
const ANTHROPIC_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "format",
    "$ref",
    "$defs",
];
const ANTHROPIC_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/// A schema of Anthropic's strict mode: its keywords only, a type (or a combinator, an `enum`,
/// a `const`) on every node, `additionalProperties: false` on every object, scalar `enum`
/// values, `minItems` 0 or 1, a supported `format`.
fn anthropic_strict_node(s: &Value, at: &str, out: &mut Vec<String>) {
    let Value::Object(m) = s else {
        out.push(format!("{at}: a schema must be an object"));
        return;
    };
    for k in keys_outside(m, ANTHROPIC_STRICT_KEYWORDS) {
        out.push(format!("{at}: \"{k}\" is not supported in strict mode"));
    }
    if !["type", "anyOf", "allOf", "enum", "const", "$ref"].iter().any(|k| m.contains_key(*k)) {
        out.push(format!("{at}: no type"));
    }
    if let Some(e) = m.get("enum")
        && !e.as_array().is_some_and(|a| a.iter().all(|v| !v.is_object() && !v.is_array()))
    {
        out.push(format!("{at}: enum {e} holds a complex value"));
    }
    if let Some(n) = m.get("minItems")
        && !matches!(n.as_u64(), Some(0 | 1))
    {
        out.push(format!("{at}: minItems {n} is not 0 or 1"));
    }
    if let Some(f) = m.get("format").and_then(Value::as_str)
        && !ANTHROPIC_FORMATS.contains(&f)
    {
        out.push(format!("{at}: format {f:?} is not supported"));
    }
    if m.get("type") == Some(&json!("object")) {
        if m.get("additionalProperties") != Some(&Value::Bool(false)) {
            out.push(format!("{at}: additionalProperties is not false"));
        }
        for (name, p) in m.get("properties").and_then(Value::as_object).into_iter().flatten() {
            anthropic_strict_node(p, &format!("{at}.{name}"), out);
        }
    }
    if let Some(items) = m.get("items") {
        anthropic_strict_node(items, &format!("{at}[]"), out);
    }
    for k in ["anyOf", "allOf"] {
        for (i, b) in m.get(k).and_then(Value::as_array).into_iter().flatten().enumerate() {
            anthropic_strict_node(b, &format!("{at}|{i}"), out);
        }
    }
}

/// Anthropic's rules for a tool: `name` (`^[a-zA-Z0-9_-]{1,64}$`), `description`,
/// `input_schema` a JSON Schema of type object with no `oneOf`, `allOf` or `anyOf` at the top
/// level (the API's `input_schema does not support oneOf, allOf, or anyOf at the top level`);
/// strict (`"strict": true`), the subset of its structured outputs.
fn anthropic_violations(def: &Value, strict: bool) -> Vec<String> {
    let mut out = Vec::new();
    let Value::Object(m) = def else { return vec!["the tool is not an object".into()] };
    out.extend(
        keys_outside(m, &["name", "description", "input_schema", "cache_control", "type", "strict"])
            .iter()
            .map(|k| format!("unknown key {k}")),
    );
    if strict != (m.get("strict") == Some(&json!(true))) {
        out.push(format!("strict is not {strict}"));
    }
    match m.get("name").and_then(Value::as_str) {
        Some(n) if plain_name(n) => {}
        other => out.push(format!("name {other:?} does not match ^[a-zA-Z0-9_-]{{1,64}}$")),
    }
    let Some(Value::Object(s)) = m.get("input_schema") else {
        out.push("no input_schema object".into());
        return out;
    };
    if s.get("type") != Some(&json!("object")) {
        out.push("input_schema is not of type \"object\"".into());
    }
    for k in ["oneOf", "allOf", "anyOf"] {
        if s.contains_key(k) {
            out.push(format!("input_schema has \"{k}\" at the top level"));
        }
    }
    if let Err(e) = jsonschema::draft202012::meta::validate(&Value::Object(s.clone())) {
        out.push(format!("input_schema is not valid JSON Schema: {e}"));
    }
    if strict {
        anthropic_strict_node(&Value::Object(s.clone()), "input_schema", &mut out);
    }
    out
}

/// The fields of Gemini's `Schema` object (Gemini API reference): its JSON parser refuses any
/// other (`Invalid JSON payload received. Unknown name "additionalProperties"`).
const GEMINI_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

fn gemini_node(s: &Value, at: &str, out: &mut Vec<String>) {
    let Value::Object(m) = s else {
        out.push(format!("{at}: a Schema must be an object"));
        return;
    };
    for k in keys_outside(m, GEMINI_FIELDS) {
        out.push(format!("{at}: unknown field \"{k}\""));
    }
    let ty = match m.get("type") {
        // A list is refused: "Proto field is not repeating, cannot start list".
        Some(Value::String(t)) => Some(t.to_ascii_lowercase()),
        Some(other) => {
            out.push(format!("{at}: type {other} is not one type name"));
            None
        }
        None => None,
    };
    match &ty {
        Some(t) if !JSON_TYPES.contains(&t.as_str()) => out.push(format!("{at}: unknown type {t:?}")),
        None if !m.contains_key("anyOf") => out.push(format!("{at}: no type")),
        _ => {}
    }
    if let Some(e) = m.get("enum")
        && !e.as_array().is_some_and(|a| a.iter().all(Value::is_string))
    {
        out.push(format!("{at}: enum {e} is not a list of strings"));
    }
    // The Gemini Developer API takes "enum" and "date-time" only (Firebase AI Logic reference).
    if let Some(f) = m.get("format")
        && !matches!(f.as_str(), Some("enum" | "date-time"))
    {
        out.push(format!("{at}: format {f} is not \"enum\" or \"date-time\""));
    }
    if m.get("nullable").is_some_and(|n| !n.is_boolean()) {
        out.push(format!("{at}: nullable is not a boolean"));
    }
    for k in ["minimum", "maximum"] {
        if m.get(k).is_some_and(|v| !v.is_number()) {
            out.push(format!("{at}: {k} is not a number"));
        }
    }
    for k in ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"] {
        if m.get(k).is_some_and(|v| !v.is_u64()) {
            out.push(format!("{at}: {k} is not a count"));
        }
    }
    if ty.as_deref() == Some("object") {
        match m.get("properties").and_then(Value::as_object) {
            Some(p) if !p.is_empty() => {
                for (name, s) in p {
                    gemini_node(s, &format!("{at}.{name}"), out);
                }
                for r in m.get("required").and_then(Value::as_array).into_iter().flatten() {
                    if !r.as_str().is_some_and(|r| p.contains_key(r)) {
                        out.push(format!("{at}: required {r} is not a property"));
                    }
                }
            }
            // "properties: should be non-empty for OBJECT type".
            _ => out.push(format!("{at}: an OBJECT without properties")),
        }
    }
    if ty.as_deref() == Some("array") {
        match m.get("items") {
            Some(items) => gemini_node(items, &format!("{at}[]"), out),
            None => out.push(format!("{at}: an ARRAY without items")),
        }
    }
    for (i, b) in m.get("anyOf").and_then(Value::as_array).into_iter().flatten().enumerate() {
        gemini_node(b, &format!("{at}|{i}"), out);
    }
}

/// Gemini's rules for a function declaration: its fields, its name, and `parameters` a
/// `Schema` of type object (absent for a function without parameters).
fn gemini_violations(def: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Value::Object(m) = def else { return vec!["the declaration is not an object".into()] };
    out.extend(
        keys_outside(m, &["name", "description", "parameters", "parametersJsonSchema", "response", "behavior"])
            .iter()
            .map(|k| format!("unknown key {k}")),
    );
    match m.get("name").and_then(Value::as_str) {
        Some(n) if gemini_name(n) => {}
        other => out.push(format!("name {other:?} is not a Gemini function name")),
    }
    if let Some(p) = m.get("parameters") {
        if p.get("type").and_then(Value::as_str).map(str::to_ascii_lowercase).as_deref() != Some("object") {
            out.push("parameters is not of type object".into());
        }
        gemini_node(p, "parameters", &mut out);
    }
    out
}

/// The fields of the `google-genai` SDK's `JSONSchema` type (what `parametersJsonSchema` holds;
/// its models forbid any other field).
const GEMINI_JSON_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "default",
    "items",
    "minItems",
    "maxItems",
    "enum",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "additionalProperties",
    "anyOf",
    "uniqueItems",
    "$ref",
    "$defs",
    "oneOf",
];

fn gemini_json_node(s: &Value, at: &str, out: &mut Vec<String>) {
    let Value::Object(m) = s else {
        out.push(format!("{at}: a schema must be an object"));
        return;
    };
    for k in keys_outside(m, GEMINI_JSON_FIELDS) {
        out.push(format!("{at}: unknown field \"{k}\""));
    }
    for (name, p) in m.get("properties").and_then(Value::as_object).into_iter().flatten() {
        gemini_json_node(p, &format!("{at}.{name}"), out);
    }
    if let Some(items) = m.get("items") {
        gemini_json_node(items, &format!("{at}[]"), out);
    }
    for k in ["anyOf", "oneOf"] {
        for (i, b) in m.get(k).and_then(Value::as_array).into_iter().flatten().enumerate() {
            gemini_json_node(b, &format!("{at}|{i}"), out);
        }
    }
}

/// Gemini's rules for a declaration with `parametersJsonSchema`: its fields (never `parameters`
/// beside it: the two are mutually exclusive), its name, the schema an object of the
/// `JSONSchema` type's fields, valid JSON Schema.
fn gemini_json_violations(def: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Value::Object(m) = def else { return vec!["the declaration is not an object".into()] };
    out.extend(
        keys_outside(m, &["name", "description", "parametersJsonSchema", "response", "behavior"])
            .iter()
            .map(|k| format!("unknown key {k}")),
    );
    match m.get("name").and_then(Value::as_str) {
        Some(n) if gemini_name(n) => {}
        other => out.push(format!("name {other:?} is not a Gemini function name")),
    }
    if let Some(p) = m.get("parametersJsonSchema") {
        if p.get("type") != Some(&json!("object")) {
            out.push("parametersJsonSchema is not of type object".into());
        }
        gemini_json_node(p, "parametersJsonSchema", &mut out);
        if let Err(e) = jsonschema::draft202012::meta::validate(p) {
            out.push(format!("parametersJsonSchema is not valid JSON Schema: {e}"));
        }
    }
    out
}

fn violations(def: &Value, e: Export) -> Vec<String> {
    match e.provider() {
        Provider::Anthropic => anthropic_violations(def, e.is_strict()),
        Provider::Gemini if e.is_json_schema() => gemini_json_violations(def),
        Provider::Gemini => gemini_violations(def),
        api => openai_violations(def, api, e.is_strict()),
    }
}

fn assert_no_violations(toolbox: &Toolbox, what: &str) {
    for e in EXPORTS {
        let defs = e.tools(toolbox).expect("within the limits");
        assert_eq!(defs.len(), toolbox.tools().len());
        for (def, tool) in defs.iter().zip(toolbox.tools()) {
            let v = violations(def, e);
            assert!(v.is_empty(), "{what}: {} for {e:?}: {v:#?}\n{def:#}", tool.name());
        }
    }
}

#[test]
fn every_example_tool_meets_each_providers_rules() {
    let toolbox = tools::toolbox();
    assert_eq!(toolbox.tools().len(), 7, "the example tools changed");
    assert_no_violations(&toolbox, "example");
}

#[test]
fn generated_tools_with_every_rule_meet_each_providers_rules() {
    assert_no_violations(&generated::toolbox(), "generated");
}

/// The checkers catch what the public reports describe (so their silence above means something).
#[test]
fn checkers_catch_the_reported_failures() {
    // OpenAI strict: an optional property left out of `required` (400), `default` ("'default'
    // is not permitted"), no `additionalProperties: false`, `minLength`, a format it lacks.
    let bad = json!({"type": "function", "function": {"name": "f", "strict": true, "parameters": {
        "type": "object",
        "properties": {"a": {"type": "integer", "default": 1}, "b": {"type": "string", "minLength": 1, "format": "uri"}},
        "required": ["b"]
    }}});
    let v = openai_violations(&bad, Provider::OpenAiChat, true);
    for needle in ["required", "\"default\"", "additionalProperties", "\"minLength\"", "format \"uri\""] {
        assert!(v.iter().any(|x| x.contains(needle)), "{needle} not caught: {v:#?}");
    }
    // A nullable enum whose values leave null out cannot take the null strict mode sends.
    let bad = json!({"type": "function", "name": "f", "strict": true, "parameters": {"type": "object",
        "properties": {"u": {"type": ["string", "null"], "enum": ["C", 5]}}, "required": ["u"], "additionalProperties": false}});
    assert!(openai_violations(&bad, Provider::OpenAiResponses, true).iter().any(|x| x.contains("enum value 5")));
    // OpenAI in either mode, Anthropic: a cross-parameter rule as a top-level allOf.
    let all_of = json!({"type": "object", "properties": {"a": {"type": "string"}}, "allOf": [{"required": ["a"]}]});
    let openai = json!({"type": "function", "function": {"name": "f", "parameters": all_of, "strict": false}});
    assert!(openai_violations(&openai, Provider::OpenAiChat, false).iter().any(|x| x.contains("\"allOf\" at the top")));
    let anthropic = json!({"name": "f", "input_schema": all_of});
    assert!(anthropic_violations(&anthropic, false).iter().any(|x| x.contains("\"allOf\" at the top")));
    assert!(
        anthropic_violations(&json!({"name": "get weather", "input_schema": {"type": "object"}}), false)[0]
            .contains("name")
    );
    // Anthropic strict: numeric and length bounds, a missing additionalProperties, a pattern,
    // minItems past 1, a value with no type (the SDK's transform raises on it), no strict key.
    let bad = json!({"name": "f", "strict": true, "input_schema": {"type": "object",
        "properties": {"a": {"type": "integer", "minimum": 1}, "b": {"type": "string", "maxLength": 3, "pattern": "^x$"},
                       "c": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                       "d": {"description": "any"},
                       "e": {"type": "object", "properties": {"x": {"type": "string"}}}},
        "additionalProperties": false}});
    let v = anthropic_violations(&bad, true);
    for needle in [
        "\"minimum\"",
        "\"maxLength\"",
        "\"pattern\"",
        "minItems 2",
        "input_schema.d: no type",
        "input_schema.e: additionalProperties",
    ] {
        assert!(v.iter().any(|x| x.contains(needle)), "{needle} not caught: {v:#?}");
    }
    let unmarked = json!({"name": "f", "input_schema": {"type": "object", "additionalProperties": false}});
    assert!(anthropic_violations(&unmarked, true).iter().any(|x| x.contains("strict is not true")));
    // Gemini parametersJsonSchema: a field its JSONSchema type lacks, `parameters` beside it.
    let bad = json!({"name": "f", "parameters": {"type": "object"}, "parametersJsonSchema": {"type": "object",
        "properties": {"a": {"type": "integer", "exclusiveMinimum": 0}, "b": {"const": "x"}},
        "allOf": [{"if": {"required": ["a"]}, "then": {"required": ["b"]}}]}});
    let v = gemini_json_violations(&bad);
    for needle in ["unknown key parameters", "\"exclusiveMinimum\"", "\"const\"", "\"allOf\""] {
        assert!(v.iter().any(|x| x.contains(needle)), "{needle} not caught: {v:#?}");
    }
    // Gemini: additionalProperties, $schema, $ref, const, a type list, an integer enum.
    let bad = json!({"name": "f", "parameters": {"$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "additionalProperties": false,
        "properties": {"a": {"type": ["integer", "null"], "enum": [1, 2]}, "b": {"$ref": "#/$defs/b"},
                       "c": {"type": "string", "const": "x"}}}});
    let v = gemini_violations(&bad);
    for needle in [
        "\"$schema\"",
        "\"additionalProperties\"",
        "\"$ref\"",
        "\"const\"",
        "not one type name",
        "not a list of strings",
    ] {
        assert!(v.iter().any(|x| x.contains(needle)), "{needle} not caught: {v:#?}");
    }
}

// ---------------------------------------------------------------------------------------------
// What each dialect drops, and how it says so.

fn parameters(def: &Value, provider: Provider) -> &Value {
    match provider {
        Provider::OpenAiChat => &def["function"]["parameters"],
        Provider::Gemini if def.get("parametersJsonSchema").is_some() => &def["parametersJsonSchema"],
        Provider::OpenAiResponses | Provider::Gemini => &def["parameters"],
        _ => &def["input_schema"],
    }
}

fn description(def: &Value, provider: Provider) -> &str {
    let d = if provider == Provider::OpenAiChat { &def["function"]["description"] } else { &def["description"] };
    d.as_str().unwrap_or("")
}

fn definition(toolbox: &Toolbox, provider: Provider, strict: bool, name: &str) -> Value {
    export(provider, strict).tool(toolbox.get(name).expect("a tool of the toolbox")).expect("within the limits")
}

#[test]
fn openai_strict_states_what_it_drops() {
    let toolbox = generated::toolbox();
    let strings = definition(&toolbox, Provider::OpenAiChat, true, "strings");
    let p = &strings["function"]["parameters"]["properties"];
    assert_eq!(
        p["code"],
        json!({"type": "string", "description": "A short code. Must be from 2 to 5 characters long."})
    );
    assert_eq!(
        p["url"],
        json!({"type": ["string", "null"], "description": "Where to send it. Must be an absolute URI with a scheme."})
    );
    assert_eq!(p["day"], json!({"type": ["string", "null"], "format": "date"}));
    assert_eq!(
        p["state"],
        json!({"type": ["string", "null"], "description": "Must be one of \"ALL\", \"HOURLY_ALL\", in any letter case. Send null for the default, \"ALL\".",
               "pattern": "^(?:[Aa][Ll][Ll]|[Hh][Oo][Uu][Rr][Ll][Yy]_[Aa][Ll][Ll])$"})
    );
    // The secret marker is no rule: dropped without a word. The byte length was stated already.
    assert_eq!(p["api_key"], json!({"type": ["string", "null"], "pattern": "^sk-[a-z]{4}$"}));
    assert_eq!(p["short"]["description"], "UTF-8 length: at most 8 bytes");
    assert_eq!(p["order"], json!({"type": ["string", "null"], "enum": ["asc", "desc", null]}));
    let numbers = definition(&toolbox, Provider::OpenAiChat, true, "numbers");
    let p = &numbers["function"]["parameters"]["properties"];
    assert_eq!(p["level"]["description"], "Send null for the default, 3.");
    assert_eq!(
        p["big"],
        json!({"type": ["integer", "null"], "description": "Must be at most 18446744073709551615.", "minimum": 1})
    );
    assert_eq!(p["quarter"]["multipleOf"], 0.25);
    let lists = definition(&toolbox, Provider::OpenAiChat, true, "lists");
    let window = &lists["function"]["parameters"]["properties"]["window"];
    // The nested object's cross rule in its own description, outside the anyOf with null.
    assert_eq!(window["description"], "One window. When since is sent, until must be sent too.");
    let inner = &window["anyOf"][0];
    assert_eq!(inner["required"], json!(["since", "until", "limit"]));
    assert!(inner.get("description").is_none());
    assert_eq!(window["anyOf"][1], json!({"type": "null"}));
    assert_eq!(
        lists["function"]["parameters"]["properties"]["extra"]["anyOf"],
        json!([{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}])
    );
    let cross = definition(&toolbox, Provider::OpenAiResponses, true, "cross");
    assert_eq!(
        cross["description"],
        "Rules between parameters. When dimension is \"hour\", data_state must be \"HOURLY_ALL\". When since is sent, until \
         must be sent too. id and name cannot both be sent."
    );
    assert!(cross["parameters"].get("allOf").is_none());
}

#[test]
fn gemini_states_what_it_drops() {
    let toolbox = generated::toolbox();
    let numbers = definition(&toolbox, Provider::Gemini, true, "numbers");
    let p = &numbers["parameters"]["properties"];
    assert_eq!(
        p["days"],
        json!({"type": "integer", "description": "Days back. Must be one of 1, 7, 30.", "minimum": 0, "maximum": 4294967295u32})
    );
    assert_eq!(p["step"]["description"], "A step. Must be a multiple of 5.");
    assert!(p["step"].get("multipleOf").is_none());
    assert_eq!(p["ratio"], json!({"type": "number", "description": "A share. Must be less than 1.0.", "minimum": 0.0}));
    assert_eq!(p["level"]["default"], 3, "Gemini's Schema has default");
    assert_eq!(numbers["description"], "Numbers of every kind. Send no parameters other than those listed.");
    let strings = definition(&toolbox, Provider::Gemini, true, "strings");
    let p = &strings["parameters"]["properties"];
    assert_eq!(p["day"], json!({"type": "string", "description": "Must be a date as YYYY-MM-DD."}));
    assert_eq!(p["at"], json!({"type": "string", "format": "date-time"}));
    assert_eq!(p["id"]["description"], "Must be a hyphenated UUID.");
    assert!(p["api_key"].get("writeOnly").is_none());
    let lists = definition(&toolbox, Provider::Gemini, true, "lists");
    let window = &lists["parameters"]["properties"]["window"];
    assert_eq!(
        window["description"],
        "One window. No keys other than those listed. When since is sent, until must be sent too."
    );
    assert_eq!(window["properties"]["limit"]["description"], "Rows per page. Must be a multiple of 5.");
    assert_eq!(lists["parameters"]["required"], json!(["xs"]));
    let nothing = definition(&toolbox, Provider::Gemini, true, "nothing");
    assert_eq!(nothing, json!({"name": "nothing", "description": "Takes nothing."}));
}

/// Anthropic and OpenAI without strict mode take JSON Schema but a top-level combinator: their
/// definition is the portable MCP form itself, schema and description, whichever form the
/// toolbox serves over MCP.
#[test]
fn anthropic_and_openai_non_strict_are_the_portable_input_schema() {
    for toolbox in [tools::toolbox(), generated::toolbox()] {
        let full = toolbox.clone().with_full_input_schema();
        for tool in toolbox.tools() {
            let base = Value::Object(tool.input_schema());
            for provider in [Provider::Anthropic, Provider::OpenAiChat] {
                let def = export(provider, false).tool(tool).expect("within the limits");
                assert_eq!(parameters(&def, provider), &base, "{}", tool.name());
                assert_eq!(description(&def, provider), tool.description(), "{}", tool.name());
                let from_full = export(provider, false).tool(full.get(tool.name()).unwrap()).unwrap();
                assert_eq!(from_full, def, "{}", tool.name());
            }
        }
    }
    let search = definition(&tools::toolbox(), Provider::Anthropic, false, "search_analytics");
    assert!(search.get("strict").is_none(), "{search:#}");
    assert_eq!(
        search["description"],
        "Reports search clicks by one dimension. Hour rows exist only with data_state HOURLY_ALL. When dimension is \
         \"hour\", data_state must be \"HOURLY_ALL\". When data_state is \"HOURLY_ALL\", dimension must be \"hour\"."
    );
    // Below the top, JSON Schema is theirs: a nested object keeps its cross rule.
    let lists = definition(&generated::toolbox(), Provider::Anthropic, false, "lists");
    assert!(lists["input_schema"]["properties"]["window"]["allOf"].is_array());
    let openai = definition(&tools::toolbox(), Provider::OpenAiResponses, false, "get_top_queries");
    assert_eq!(openai["strict"], false);
    assert_eq!(openai["parameters"]["required"], json!(["hours_back", "group_by"]));
}

/// Anthropic strict: the bounds, lengths, patterns, defaults and item counts strict mode refuses
/// move into the description, one sentence each; `additionalProperties: false` on every object;
/// optional parameters stay out of `required`.
#[test]
fn anthropic_strict_states_what_it_drops() {
    let toolbox = generated::toolbox();
    let numbers = definition(&toolbox, Provider::Anthropic, true, "numbers");
    assert_eq!(numbers["strict"], true);
    let s = &numbers["input_schema"];
    assert_eq!(s["additionalProperties"], false);
    assert_eq!(s["required"], json!(["small", "signed", "ratio", "step"]));
    let p = &s["properties"];
    assert_eq!(p["small"], json!({"type": "integer", "description": "A small count. Must be from 1 to 200."}));
    assert_eq!(p["signed"], json!({"type": "integer", "description": "Must be from -5 to 4."}));
    assert_eq!(
        p["ratio"],
        json!({"type": "number", "description": "A share. Must be at least 0.0 and less than 1.0."})
    );
    assert_eq!(
        p["step"],
        json!({"type": "integer", "description": "A step. Must be a multiple of 5. Must be from 0 to 100."})
    );
    assert_eq!(p["level"], json!({"type": "integer", "description": "Left out, it is 3. Must be from 1 to 9."}));
    assert_eq!(p["days"]["enum"], json!([1, 7, 30]));
    let strings = definition(&toolbox, Provider::Anthropic, true, "strings");
    let p = &strings["input_schema"]["properties"];
    assert_eq!(
        p["code"],
        json!({"type": "string", "description": "A short code. Must be from 2 to 5 characters long."})
    );
    assert_eq!(
        p["currency"],
        json!({"type": "string", "description": "Must match the regular expression \"^[A-Z]{3}$\"."})
    );
    assert_eq!(p["url"], json!({"type": "string", "description": "Where to send it.", "format": "uri"}));
    assert_eq!(
        p["state"],
        json!({"type": "string", "description": "Must be one of \"ALL\", \"HOURLY_ALL\", in any letter case. Left out, it is \"ALL\"."})
    );
    assert_eq!(
        p["api_key"],
        json!({"type": "string", "description": "Must match the regular expression \"^sk-[a-z]{4}$\"."})
    );
    let lists = definition(&toolbox, Provider::Anthropic, true, "lists");
    let p = &lists["input_schema"]["properties"];
    assert_eq!(
        p["xs"],
        json!({"type": "array", "description": "Counts. Must have at most 3 items.", "minItems": 1,
               "items": {"type": "integer", "description": "Must be from 1 to 10."}})
    );
    assert_eq!(p["extra"], json!({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}));
    // The nested object's cross rule in its own description; its keys closed.
    let window = &p["window"];
    assert_eq!(window["description"], "One window. When since is sent, until must be sent too.");
    assert_eq!(window["additionalProperties"], false);
    assert!(window.get("allOf").is_none());
    let cross = definition(&toolbox, Provider::Anthropic, true, "cross");
    assert_eq!(
        cross["description"],
        "Rules between parameters. When dimension is \"hour\", data_state must be \"HOURLY_ALL\". When since is sent, until \
         must be sent too. id and name cannot both be sent."
    );
    // What the description states is still refused at run time.
    block_on(async {
        for (name, args, parameter) in [
            ("numbers", json!({"small": 0, "signed": 0, "ratio": 0.5, "step": 5}), "small"),
            ("strings", json!({"code": "x"}), "code"),
            ("strings", json!({"code": "abc", "currency": "eur"}), "currency"),
            ("lists", json!({"xs": [1, 2, 3, 4]}), "xs"),
            ("cross", json!({"dimension": "hour"}), "data_state"),
        ] {
            let call = tool_call(Provider::Anthropic, name, &args);
            let env = providers::answer(&toolbox, Provider::Anthropic, &call).await.envelope().to_value();
            assert_eq!(env["hints"]["parameter"], parameter, "{name} {args}: {env}");
        }
    });
}

/// Gemini's `parametersJsonSchema`: JSON Schema as its `JSONSchema` type has it, beside (never
/// with) `parameters`: `additionalProperties`, integer `enum`s and bounds kept; exclusive
/// bounds, `multipleOf`, other formats and cross rules stated.
#[test]
fn gemini_json_schema_states_what_it_drops() {
    let toolbox = generated::toolbox();
    let get = |name: &str| gemini_json().tool(toolbox.get(name).unwrap()).expect("within the limits");
    let numbers = get("numbers");
    assert!(numbers.get("parameters").is_none());
    let s = &numbers["parametersJsonSchema"];
    assert_eq!(s["additionalProperties"], false);
    assert_eq!(numbers["description"], "Numbers of every kind.");
    let p = &s["properties"];
    assert_eq!(
        p["days"],
        json!({"type": "integer", "description": "Days back.", "enum": [1, 7, 30], "minimum": 0, "maximum": 4294967295u32})
    );
    assert_eq!(p["ratio"], json!({"type": "number", "description": "A share. Must be less than 1.0.", "minimum": 0.0}));
    assert_eq!(p["step"]["description"], "A step. Must be a multiple of 5.");
    let strings = get("strings");
    let p = &strings["parametersJsonSchema"]["properties"];
    assert_eq!(p["day"], json!({"type": "string", "format": "date"}));
    assert_eq!(p["url"]["description"], "Where to send it. Must be an absolute URI with a scheme.");
    assert_eq!(p["code"], json!({"type": "string", "description": "A short code.", "minLength": 2, "maxLength": 5}));
    let cross = get("cross");
    assert!(cross["parametersJsonSchema"].get("allOf").is_none());
    assert!(cross["description"].as_str().unwrap().ends_with("id and name cannot both be sent."));
    let lists = get("lists");
    let window = &lists["parametersJsonSchema"]["properties"]["window"];
    assert_eq!(window["description"], "One window. When since is sent, until must be sent too.");
    assert_eq!(window["additionalProperties"], false);
    assert_eq!(get("nothing"), json!({"name": "nothing", "description": "Takes nothing."}));
}

#[test]
fn provider_names_round_trip() {
    for p in Provider::ALL {
        assert_eq!(Provider::from_name(p.name()), Some(p));
    }
    assert_eq!(Provider::from_name("OpenAI-Chat"), Some(Provider::OpenAiChat));
    assert_eq!(Provider::from_name("claude"), None);
    assert!(Export::new(Provider::OpenAiChat).is_strict());
    assert!(!Export::new(Provider::Gemini).is_strict());
    assert!(!Export::new(Provider::OpenAiChat).non_strict().is_strict());
    assert!(Export::new(Provider::Anthropic).is_strict());
    assert!(!Export::new(Provider::Anthropic).non_strict().is_strict());
    assert!(gemini_json().is_json_schema() && !Export::new(Provider::Gemini).is_json_schema());
    assert!(!Export::new(Provider::OpenAiChat).json_schema().is_json_schema());
    assert_eq!(
        providers::tools(&tools::toolbox(), Provider::Gemini),
        Export::new(Provider::Gemini).tools(&tools::toolbox())
    );
}

// ---------------------------------------------------------------------------------------------
// Differential: what the exported schema accepts is served, or refused for a rule it states.

/// Values of a format, mostly valid, on which the JSON Schema validator and envelope's checks
/// agree.
fn format_samples(format: &str) -> BoxedStrategy<Value> {
    let (valid, invalid): (&[&str], &[&str]) = match format {
        "date" => (&["2026-11-30", "2024-02-29"], &["30/11/2026", "yesterday", ""]),
        "date-time" => (&["2026-11-30T14:05:00Z", "2026-11-30T14:05:00+01:00"], &["2026-11-30", "noon"]),
        "uuid" => (&["67e55044-10b1-426f-9247-bb680e5fe0c8"], &["not-a-uuid", ""]),
        "email" => (&["ada@example.com"], &["ada", "@example.com"]),
        "uri" => (&["https://example.com/path", "urn:isbn:0451450523"], &["example.com", "not a uri"]),
        _ => (&["x"], &[""]),
    };
    let pick = |s: &[&str]| proptest::sample::select(s.iter().map(|x| json!(x)).collect::<Vec<_>>());
    prop_oneof![4 => pick(valid), 1 => pick(invalid)].boxed()
}

/// Characters of 1 to 4 UTF-8 bytes, and characters JSON escapes.
const ALPHABET: &[char] = &['a', 'Z', '0', '-', ' ', 'ü', '日', '😀', '"', '\\', '\n'];

fn int_json(n: i128) -> Value {
    i64::try_from(n).map(Value::from).or_else(|_| u64::try_from(n).map(Value::from)).unwrap_or_else(|_| json!(n as f64))
}

fn bound(m: &Map<String, Value>, incl: &str, excl: &str) -> Option<(f64, bool)> {
    m.get(incl)
        .and_then(Value::as_f64)
        .map(|v| (v, true))
        .or_else(|| m.get(excl).and_then(Value::as_f64).map(|v| (v, false)))
}

fn integer(m: &Map<String, Value>) -> BoxedStrategy<Value> {
    let lo = match bound(m, "minimum", "exclusiveMinimum") {
        Some((v, true)) => v.ceil() as i128,
        Some((v, false)) => v.floor() as i128 + 1,
        None => -1000,
    };
    let hi = match bound(m, "maximum", "exclusiveMaximum") {
        Some((v, true)) => v.floor() as i128,
        Some((v, false)) => v.ceil() as i128 - 1,
        // Unbounded here: try what lies beyond 64 bits too.
        None => i128::from(u64::MAX) + 1,
    };
    let mut edges: Vec<i128> = vec![lo, lo + 1, hi - 1, hi, 0, 1, 2, 5, 7, 10, 30, 48];
    edges.retain(|n| (lo..=hi).contains(n));
    if edges.is_empty() {
        edges.push(lo);
    }
    let mut parts: Vec<BoxedStrategy<i128>> =
        vec![proptest::sample::select(edges).boxed(), (lo..=hi.min(lo + 1000)).boxed()];
    if let Some(step) = m.get("multipleOf").and_then(Value::as_f64).filter(|s| s.fract() == 0.0 && *s >= 1.0) {
        let step = step as i128;
        let first = lo.div_euclid(step) * step + if lo.rem_euclid(step) == 0 { 0 } else { step };
        parts.push((0..20i128).prop_map(move |k| first + k * step).boxed());
    }
    Union::new(parts).prop_map(int_json).boxed()
}

fn number(m: &Map<String, Value>) -> BoxedStrategy<Value> {
    let lo = bound(m, "minimum", "exclusiveMinimum").map_or(-1e6, |(v, incl)| if incl { v } else { v.next_up() });
    let hi = bound(m, "maximum", "exclusiveMaximum").map_or(1e6, |(v, incl)| if incl { v } else { v.next_down() });
    let mut edges = vec![lo, hi, lo.next_up(), hi.next_down(), 0.0, 0.25, 0.5, 1.0];
    edges.retain(|f| *f >= lo && *f <= hi);
    let mut parts: Vec<BoxedStrategy<f64>> = vec![proptest::sample::select(edges).boxed()];
    if lo < hi {
        parts.push((lo..hi).boxed());
    }
    if let Some(step) = m.get("multipleOf").and_then(Value::as_f64) {
        let first = (lo / step).ceil() * step;
        parts.push((0..8u32).prop_map(move |k| first + f64::from(k) * step).boxed());
    }
    Union::new(parts).prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)).boxed()
}

fn string(m: &Map<String, Value>) -> BoxedStrategy<Value> {
    if let Some(f) = m.get("format").and_then(Value::as_str) {
        return format_samples(f);
    }
    if let Some(p) = m.get("pattern").and_then(Value::as_str) {
        let s = p.strip_prefix('^').unwrap_or(p);
        let s = s.strip_suffix('$').unwrap_or(s);
        if let Ok(matching) = proptest::string::string_regex(s) {
            return matching.prop_map(Value::from).boxed();
        }
    }
    let min = m.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = m.get("maxLength").and_then(Value::as_u64).map_or(min + 12, |x| (x as usize).min(min + 12));
    proptest::collection::vec(proptest::sample::select(ALPHABET), min..=max.max(min))
        .prop_map(|c| Value::from(c.into_iter().collect::<String>()))
        .boxed()
}

/// Argument values drawn from a schema (JSON Schema, or Gemini's with `nullable`): mostly
/// inside what it states, at its edges, and free where it says nothing.
fn arbitrary(s: &Value) -> BoxedStrategy<Value> {
    let Value::Object(m) = s else { return Just(Value::Null).boxed() };
    if let Some(Value::Array(values)) = m.get("enum").filter(|e| e.as_array().is_some_and(|a| !a.is_empty())) {
        return proptest::sample::select(values.clone()).boxed();
    }
    if let Some(c) = m.get("const") {
        return Just(c.clone()).boxed();
    }
    if let Some(Value::Array(branches)) = m.get("anyOf") {
        return Union::new(branches.iter().map(arbitrary)).boxed();
    }
    let mut types: Vec<&str> = match m.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => vec!["string", "number", "boolean"],
    };
    if m.get("nullable") == Some(&json!(true)) {
        types.push("null");
    }
    Union::new(types.into_iter().map(|t| match t {
        "null" => Just(Value::Null).boxed(),
        "boolean" => any::<bool>().prop_map(Value::from).boxed(),
        "integer" => integer(m),
        "number" => number(m),
        "string" => string(m),
        "array" => {
            let items = m.get("items").map_or_else(|| Just(json!(1)).boxed(), arbitrary);
            let min = m.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let max = m.get("maxItems").and_then(Value::as_u64).map_or(min + 3, |x| (x as usize).min(min + 3));
            proptest::collection::vec(items, min..=max.max(min)).prop_map(Value::Array).boxed()
        }
        _ => object(m),
    }))
    .boxed()
}

fn object(m: &Map<String, Value>) -> BoxedStrategy<Value> {
    let required: Vec<&str> = m
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut parts: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    for (name, s) in m.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let is_required = required.contains(&name.as_str());
        let (name, value) = (name.clone(), arbitrary(s));
        let present = value.prop_map(move |v| Some((name.clone(), v)));
        if is_required {
            parts.push(present.boxed());
        } else {
            parts.push(prop_oneof![1 => Just(None), 2 => present].boxed());
        }
    }
    if m.get("additionalProperties") != Some(&Value::Bool(false)) {
        parts.push(prop_oneof![6 => Just(None), 1 => Just(Some(("extra_key".to_owned(), json!(1))))].boxed());
    }
    parts.prop_map(|kv| Value::Object(kv.into_iter().flatten().collect())).boxed()
}

/// The exported schema as JSON Schema: Gemini's `nullable: true` as a type with `null`.
fn as_json_schema(s: &Value) -> Value {
    match s {
        Value::Object(m) => {
            let mut out: Map<String, Value> = m.iter().map(|(k, v)| (k.clone(), as_json_schema(v))).collect();
            if out.remove("nullable") == Some(Value::Bool(true))
                && let Some(Value::String(t)) = out.get("type").cloned()
            {
                out.insert("type".into(), json!([t, "null"]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(as_json_schema).collect()),
        other => other.clone(),
    }
}

/// Every description in a schema.
fn descriptions(s: &Value, out: &mut Vec<String>) {
    match s {
        Value::Object(m) => {
            for (k, v) in m {
                match (k.as_str(), v) {
                    ("description", Value::String(d)) => out.push(d.clone()),
                    _ => descriptions(v, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| descriptions(v, out)),
        _ => {}
    }
}

/// Whether the export states a rule `parameter` could be refused for: its exported description
/// (or one nested in it) says more than the `inputSchema`'s, or states a byte length (which the
/// `inputSchema` states the same way); or the tool's description names it in a sentence the
/// export added (a cross-parameter rule); or, for a name that is not a parameter, the tool's
/// description says to send no others.
fn stated(tool: &Tool, def: &Value, provider: Provider, parameter: &str) -> bool {
    let base = Value::Object(tool.input_schema());
    let exported = parameters(def, provider);
    let added = description(def, provider).strip_prefix(tool.spec().description).unwrap_or("");
    match (exported["properties"].get(parameter), base["properties"].get(parameter)) {
        (Some(e), Some(b)) => {
            let (mut ed, mut bd) = (Vec::new(), Vec::new());
            descriptions(e, &mut ed);
            descriptions(b, &mut bd);
            ed.iter().any(|d| !bd.contains(d) || d.contains("UTF-8 length")) || added.contains(parameter)
        }
        _ => added.contains("Send no parameters other than those listed."),
    }
}

/// A provider's tool call of `name` with `args`, as the model sends it.
fn tool_call(provider: Provider, name: &str, args: &Value) -> Value {
    match provider {
        Provider::OpenAiChat => {
            json!({"id": "call_1", "type": "function", "function": {"name": name, "arguments": args.to_string()}})
        }
        Provider::OpenAiResponses => {
            json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": name, "arguments": args.to_string()})
        }
        Provider::Anthropic => json!({"type": "tool_use", "id": "toolu_1", "name": name, "input": args}),
        _ => json!({"functionCall": {"name": name, "args": args}}),
    }
}

/// Cases per tool and dialect.
const CASES: usize = 300;

/// Runs the differential over every example and generated tool in one dialect; returns (served,
/// refused for a stated rule).
fn differential(exports: &[Export]) -> (usize, usize) {
    let providers: Vec<Provider> = exports.iter().map(Export::provider).collect();
    let (examples, generated) = (tools::toolbox(), generated::toolbox());
    let mut runner = TestRunner::deterministic();
    let (mut served, mut stated_refusals) = (0, 0);
    for toolbox in [&examples, &generated] {
        for tool in toolbox.tools() {
            let defs: Vec<Value> = exports.iter().map(|e| e.tool(tool).expect("within the limits")).collect();
            let schema = parameters(&defs[0], providers[0]).clone();
            // A declaration without parameters takes no arguments at all.
            let schema = if schema.is_null() {
                json!({"type": "object", "properties": {}, "additionalProperties": false})
            } else {
                as_json_schema(&schema)
            };
            let validator =
                jsonschema::options().should_validate_formats(true).build(&schema).expect("a schema that compiles");
            let strategy = arbitrary(&schema);
            let mut accepted = Vec::new();
            for _ in 0..CASES {
                let args = strategy.new_tree(&mut runner).expect("a value").current();
                if validator.is_valid(&args) {
                    accepted.push(args);
                }
            }
            assert!(
                accepted.len() >= CASES / 3,
                "{}: only {} of {CASES} generated objects fit the schema",
                tool.name(),
                accepted.len()
            );
            block_on(async {
                for (i, args) in accepted.iter().enumerate() {
                    let k = i % providers.len();
                    let (provider, def) = (providers[k], &defs[k]);
                    let result = providers::answer(toolbox, provider, &tool_call(provider, tool.name(), args)).await;
                    let env = result.envelope().to_value();
                    // The tool's own answers (a note that does not exist, a used key) are served.
                    if env["status"] != "invalid" || env["error_code"] != "VALIDATION_ERROR" {
                        served += 1;
                        continue;
                    }
                    let hints = &env["hints"];
                    let mut refused = vec![hints["parameter"].as_str().unwrap_or("")];
                    refused.extend(
                        hints["others"].as_array().into_iter().flatten().filter_map(|o| o["parameter"].as_str()),
                    );
                    // `arguments`: the summary of problems left out of a long reply, not a parameter.
                    refused.retain(|p| *p != "arguments" || tool.spec().params.iter().any(|x| x.name == "arguments"));
                    for parameter in refused {
                        assert!(
                            stated(tool, def, provider, parameter),
                            "{provider:?}: {} refused {args} for {parameter}, which its definition does not state:\n{}\n{def:#}",
                            tool.name(),
                            env["message"]
                        );
                    }
                    stated_refusals += 1;
                }
            });
        }
    }
    (served, stated_refusals)
}

#[test]
fn openai_strict_schema_accepts_only_what_is_served_or_stated() {
    let (served, stated) = differential(&[Export::new(Provider::OpenAiChat), Export::new(Provider::OpenAiResponses)]);
    assert!(served > 1000 && stated > 50, "served {served}, refused as stated {stated}");
}

#[test]
fn openai_non_strict_schema_accepts_only_what_is_served_or_stated() {
    let (served, stated) = differential(&[Export::new(Provider::OpenAiChat).non_strict()]);
    assert!(served > 1000 && stated > 10, "served {served}, refused as stated {stated}");
}

#[test]
fn anthropic_strict_schema_accepts_only_what_is_served_or_stated() {
    let (served, stated) = differential(&[Export::new(Provider::Anthropic)]);
    assert!(served > 1000 && stated > 50, "served {served}, refused as stated {stated}");
}

#[test]
fn anthropic_non_strict_schema_accepts_only_what_is_served_or_stated() {
    let (served, stated) = differential(&[Export::new(Provider::Anthropic).non_strict()]);
    assert!(served > 1000 && stated > 10, "served {served}, refused as stated {stated}");
}

#[test]
fn gemini_schema_accepts_only_what_is_served_or_stated() {
    let (served, stated) = differential(&[Export::new(Provider::Gemini)]);
    assert!(served > 1000 && stated > 50, "served {served}, refused as stated {stated}");
}

#[test]
fn gemini_json_schema_accepts_only_what_is_served_or_stated() {
    let (served, stated) = differential(&[gemini_json()]);
    assert!(served > 1000 && stated > 10, "served {served}, refused as stated {stated}");
}

// ---------------------------------------------------------------------------------------------
// Tool calls.

fn answer(toolbox: &Toolbox, provider: Provider, call: Value) -> Value {
    block_on(providers::answer(toolbox, provider, &call)).into_message()
}

/// The envelope a result message carries.
fn carried(provider: Provider, message: &Value) -> Value {
    let text = match provider {
        Provider::OpenAiChat => &message["content"],
        Provider::OpenAiResponses => &message["output"],
        Provider::Anthropic => &message["content"],
        _ => return message["functionResponse"]["response"].clone(),
    };
    serde_json::from_str(text.as_str().expect("the content is text")).expect("the content is JSON")
}

#[test]
fn each_provider_answers_its_own_tool_call() {
    let toolbox = tools::toolbox();
    let args = r#"{"hours_back": 24, "group_by": "database", "top": 1}"#;
    let ok = r#"{"status":"ok","success":true,"data":[{"key":"analytics","calls":12,"total_ms":240000}]}"#;
    let chat = json!({"id": "call_a", "type": "function", "function": {"name": "get_top_queries", "arguments": args}});
    assert_eq!(
        answer(&toolbox, Provider::OpenAiChat, chat),
        json!({"role": "tool", "tool_call_id": "call_a", "content": ok})
    );
    let item = json!({"type": "function_call", "id": "fc_a", "call_id": "call_b", "name": "get_top_queries", "arguments": args});
    assert_eq!(
        answer(&toolbox, Provider::OpenAiResponses, item),
        json!({"type": "function_call_output", "call_id": "call_b", "output": ok})
    );
    let input: Value = serde_json::from_str(args).unwrap();
    let block = json!({"type": "tool_use", "id": "toolu_c", "name": "get_top_queries", "input": input});
    assert_eq!(
        answer(&toolbox, Provider::Anthropic, block),
        json!({"type": "tool_result", "tool_use_id": "toolu_c", "content": ok, "is_error": false})
    );
    let part = json!({"functionCall": {"id": "fc-d", "name": "get_top_queries", "args": input}});
    let ok_value: Value = serde_json::from_str(ok).unwrap();
    assert_eq!(
        answer(&toolbox, Provider::Gemini, part),
        json!({"functionResponse": {"id": "fc-d", "name": "get_top_queries", "response": ok_value}})
    );
    // Without an id (older Gemini replies), none is echoed; the inner object is taken too.
    let bare = json!({"name": "get_top_queries", "args": input});
    assert_eq!(
        answer(&toolbox, Provider::Gemini, bare),
        json!({"functionResponse": {"name": "get_top_queries", "response": ok_value}})
    );
    // A refusal: Anthropic's is_error, the same envelope elsewhere.
    let bad = json!({"type": "tool_use", "id": "toolu_e", "name": "get_top_queries", "input": {"hours_back": 0, "group_by": "database"}});
    let result = answer(&toolbox, Provider::Anthropic, bad);
    assert_eq!(result["is_error"], true);
    assert_eq!(
        carried(Provider::Anthropic, &result)["message"],
        "hours_back: 0 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720."
    );
}

/// What OpenAI's strict mode makes a model send for every parameter it leaves out, `null`, reads
/// as absent: every tool answers the same as without those keys, nested objects included.
#[test]
fn nulls_for_optional_parameters_read_as_absent() {
    let cases: &[(&str, Value, Value)] = &[
        (
            "get_top_queries",
            json!({"hours_back": 5, "group_by": "database", "top": null}),
            json!({"hours_back": 5, "group_by": "database"}),
        ),
        (
            "search_analytics",
            json!({"dimension": "date", "data_state": null, "row_limit": null}),
            json!({"dimension": "date"}),
        ),
        ("list_notes", json!({"pinned_only": null}), json!({})),
        (
            "numbers",
            json!({"small": 1, "signed": 0, "ratio": 0.5, "step": 5, "quarter": null, "big": null, "days": null, "level": null}),
            json!({"small": 1, "signed": 0, "ratio": 0.5, "step": 5}),
        ),
        (
            "strings",
            json!({"code": "ab", "short": null, "currency": null, "day": null, "at": null, "id": null, "to": null, "url": null,
            "api_key": null, "state": null, "order": null, "flag": null}),
            json!({"code": "ab"}),
        ),
        (
            "lists",
            json!({"xs": [1], "tags": null, "orders": null, "window": {"since": null, "until": null, "limit": null},
            "windows": [{"since": "2026-11-01", "until": "2026-11-30", "limit": null}], "extra": null}),
            json!({"xs": [1], "window": {}, "windows": [{"since": "2026-11-01", "until": "2026-11-30"}]}),
        ),
        (
            "lists",
            json!({"xs": [1], "tags": null, "orders": null, "window": null, "windows": null, "extra": null}),
            json!({"xs": [1]}),
        ),
        (
            "cross",
            json!({"dimension": "query", "data_state": null, "since": null, "until": null, "id": 1, "name": null}),
            json!({"dimension": "query", "id": 1}),
        ),
    ];
    let (examples, generated) = (tools::toolbox(), generated::toolbox());
    for (name, with_nulls, without) in cases {
        let toolbox = if examples.get(name).is_some() { &examples } else { &generated };
        for provider in Provider::ALL {
            let a = carried(provider, &answer(toolbox, provider, tool_call(provider, name, with_nulls)));
            let b = carried(provider, &answer(toolbox, provider, tool_call(provider, name, without)));
            assert_eq!(a, b, "{provider:?} {name}: {with_nulls}");
        }
    }
    // A null read as absent that breaks a rule says it was sent as null (not "was not sent"),
    // and is otherwise refused as the call without it.
    for provider in Provider::ALL {
        let call = |args: Value| {
            carried(provider, &answer(&examples, provider, tool_call(provider, "search_analytics", &args)))
        };
        let (mut a, b) = (
            call(json!({"dimension": "hour", "data_state": null, "row_limit": null})),
            call(json!({"dimension": "hour"})),
        );
        assert_eq!(
            a["message"],
            "data_state: was sent as null, which reads as not sent, and its default \"ALL\" does not go with dimension \"hour\"; \
             accepted: \"HOURLY_ALL\" when dimension is \"hour\". Send data_state \"HOURLY_ALL\", or change dimension.",
            "{provider:?}"
        );
        assert_eq!(
            b["message"],
            "data_state: was not sent, and its default \"ALL\" does not go with dimension \"hour\"; \
             accepted: \"HOURLY_ALL\" when dimension is \"hour\". Send data_state \"HOURLY_ALL\", or change dimension.",
            "{provider:?}"
        );
        a["message"] = b["message"].clone();
        assert_eq!(a, b, "{provider:?}");
    }
    // Served, the nulls gone: a served strict-mode call of every example tool but the two below.
    let strings = carried(
        Provider::OpenAiChat,
        &answer(&generated, Provider::OpenAiChat, tool_call(Provider::OpenAiChat, "strings", &cases[4].1)),
    );
    assert_eq!(
        strings,
        json!({"status": "ok", "success": true, "data": ["ab", null, null, null, null, null, null, null, "ALL", null, null]})
    );
    let refused = carried(
        Provider::OpenAiChat,
        &answer(
            &examples,
            Provider::OpenAiChat,
            tool_call(
                Provider::OpenAiChat,
                "search_analytics",
                &json!({"dimension": "hour", "data_state": null, "row_limit": null}),
            ),
        ),
    );
    assert_eq!(refused["hints"]["parameter"], "data_state");
}

#[test]
fn malformed_calls_are_answered_with_refusals() {
    let toolbox = tools::toolbox();
    let chat = |name: Value, arguments: Value| json!({"id": "call_x", "type": "function", "function": {"name": name, "arguments": arguments}});
    let envelope = |provider, call| carried(provider, &answer(&toolbox, provider, call));

    // Arguments that are not JSON (a reply cut at its token limit).
    let e =
        envelope(Provider::OpenAiChat, chat(json!("get_top_queries"), json!("{\"hours_back\": 24, \"group_by\": ")));
    assert_eq!(
        e["message"],
        "arguments: \"{\\\"hours_back\\\": 24, \\\"group_by\\\": \" is not JSON: it ends before its object does (a missing `}`, `]` or `\"`); accepted: an object with the keys \"hours_back\", \
         \"group_by\", \"top\". Send the arguments as a JSON object, like {\"hours_back\": 10, \"group_by\": \"query_hash\"}."
    );
    // ... never echoed for a tool with a secret parameter.
    let e = envelope(
        Provider::OpenAiResponses,
        json!({"type": "function_call", "call_id": "c", "name": "set_threshold",
        "arguments": "{\"ratio\": 0.5, \"api_key\": \"sk-AAAABBBBCCCCDDDD"}),
    );
    assert_eq!(e["status"], "invalid");
    assert!(!e.to_string().contains("AAAABBBB"), "{e}");
    // An unknown tool: NOT_FOUND, the closest name.
    let e = envelope(Provider::OpenAiChat, chat(json!("get_top_query"), json!("{}")));
    assert_eq!(e["error_code"], "NOT_FOUND");
    assert_eq!(e["hints"]["suggestion"], "get_top_queries");
    assert_eq!(e["hints"]["fix"], "Call \"get_top_queries\".");
    // No name, a name that is not a string, no function object at all.
    let e = envelope(Provider::Anthropic, json!({"type": "tool_use", "id": "toolu_x", "input": {}}));
    assert_eq!(e["hints"]["parameter"], "name");
    assert!(
        e["message"].as_str().unwrap().starts_with("name: is missing; accepted: one of \"get_top_queries\", "),
        "{e}"
    );
    let e = envelope(Provider::Gemini, json!({"functionCall": {"name": 7, "args": {}}}));
    assert_eq!(e["message"].as_str().unwrap().split(';').next(), Some("name: 7 is not a tool name"));
    let e = envelope(Provider::OpenAiChat, json!({"id": "call_y", "type": "function"}));
    assert_eq!(e["hints"]["parameter"], "name");
    // No id: the result could not be matched to its call, so nothing runs.
    let e = envelope(
        Provider::OpenAiChat,
        json!({"type": "function", "function": {"name": "list_notes", "arguments": "{}"}}),
    );
    assert_eq!(e["hints"]["parameter"], "id");
    // Arguments that are JSON but not an object; input that is a string holding no object.
    let e = envelope(Provider::OpenAiChat, chat(json!("get_top_queries"), json!("[24, \"database\"]")));
    assert!(
        e["message"].as_str().unwrap().starts_with("arguments: [24,\"database\"] is an array, not an object"),
        "{e}"
    );
    let e = envelope(
        Provider::Anthropic,
        json!({"type": "tool_use", "id": "toolu_y", "name": "get_top_queries", "input": "hours_back=24"}),
    );
    assert_eq!(e["hints"]["parameter"], "arguments");
    // Not a call at all.
    for provider in Provider::ALL {
        for call in [json!(null), json!(5), json!("get_top_queries"), json!([])] {
            let result = block_on(providers::answer(&toolbox, provider, &call));
            assert_eq!(result.envelope().to_value()["status"], "invalid", "{provider:?} {call}");
        }
    }
    // Empty arguments text reads as {}: a tool without required parameters is served.
    let e = envelope(Provider::OpenAiChat, chat(json!("list_notes"), json!("")));
    assert_eq!(e, json!({"status": "ok", "success": true, "data": []}));
}

#[test]
fn results_carry_the_toolbox_wire_format_and_code_prefix() {
    let toolbox = tools::toolbox().with_code_prefix("ACME_").with_wire_format(WireFormat::SuccessFlag);
    let refused = answer(
        &toolbox,
        Provider::Anthropic,
        json!({"type": "tool_use", "id": "t", "name": "get_top_queries",
        "input": {"hours_back": 0, "group_by": "database"}}),
    );
    assert_eq!(refused["is_error"], true);
    assert_eq!(
        refused["content"],
        r#"{"success":false,"refused":true,"error":"hours_back: 0 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720."}"#
    );
    let ok = answer(
        &toolbox,
        Provider::Gemini,
        json!({"functionCall": {"name": "set_threshold",
        "args": {"ratio": 0.25, "api_key": "sk-0123456789abcdefXY"}}}),
    );
    assert_eq!(ok["functionResponse"]["response"], json!({"ratio": 0.25}));
    let toolbox = tools::toolbox().with_code_prefix("ACME_").with_wire_format(WireFormat::ErrorCodeSummary);
    let unknown = answer(
        &toolbox,
        Provider::OpenAiChat,
        json!({"id": "c", "type": "function", "function": {"name": "nope", "arguments": "{}"}}),
    );
    let e = carried(Provider::OpenAiChat, &unknown);
    assert_eq!(e["status"], "error");
    assert_eq!(e["error_code"], "ACME_NOT_FOUND");
}

#[test]
fn tool_calls_are_read_from_whole_replies() {
    let call = json!({"id": "c", "type": "function", "function": {"name": "list_notes", "arguments": "{}"}});
    let response = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]});
    assert_eq!(providers::tool_calls(Provider::OpenAiChat, &response), vec![&call]);
    assert_eq!(providers::tool_calls(Provider::OpenAiChat, &response["choices"][0]["message"]), vec![&call]);
    let text = json!({"choices": [{"message": {"role": "assistant", "content": "Hello."}}]});
    assert!(providers::tool_calls(Provider::OpenAiChat, &text).is_empty());
    assert!(block_on(providers::answer_reply(&tools::toolbox(), Provider::OpenAiChat, &text)).is_empty());
    let items = json!([{"type": "reasoning", "id": "rs"}, {"type": "function_call", "call_id": "c", "name": "list_notes", "arguments": "{}"}]);
    assert_eq!(providers::tool_calls(Provider::OpenAiResponses, &items).len(), 1);
    assert_eq!(providers::tool_calls(Provider::OpenAiResponses, &json!({"output": items})).len(), 1);
    let content = json!({"content": [{"type": "text", "text": "x"}, {"type": "tool_use", "id": "t", "name": "list_notes", "input": {}}]});
    assert_eq!(providers::tool_calls(Provider::Anthropic, &content).len(), 1);
    let gemini =
        json!({"candidates": [{"content": {"parts": [{"text": "x"}, {"functionCall": {"name": "list_notes"}}]}}]});
    assert_eq!(providers::tool_calls(Provider::Gemini, &gemini).len(), 1);
    let appended = block_on(providers::answer_reply(&tools::toolbox(), Provider::Gemini, &gemini));
    assert_eq!(
        appended,
        vec![json!({"role": "user", "parts": [{"functionResponse": {"name": "list_notes",
            "response": {"status": "ok", "success": true, "data": []}}}]})]
    );
}

// ---------------------------------------------------------------------------------------------
// The example agent loops.

#[test]
fn openai_loop_answers_its_recorded_replies() {
    let toolbox = tools::toolbox();
    let turn = block_on(openai_loop::turn(&toolbox, Provider::OpenAiChat));
    assert_eq!(turn.tools.len(), 7);
    assert!(turn.tools.iter().all(|t| t["function"]["strict"] == true));
    assert_eq!(turn.results.len(), 2);
    assert_eq!(turn.results[0]["tool_call_id"], "call_8fJ2kQ1xLm4t");
    assert_eq!(carried(Provider::OpenAiChat, &turn.results[0])["status"], "ok");
    let refused = carried(Provider::OpenAiChat, &turn.results[1]);
    assert_eq!(turn.results[1]["tool_call_id"], "call_3Rb7pWc0Vz9e");
    assert_eq!(refused["hints"]["fix"], "Send data_state \"HOURLY_ALL\", or change dimension.");

    let turn = block_on(openai_loop::turn(&toolbox, Provider::OpenAiResponses));
    assert!(turn.tools.iter().all(|t| t["strict"] == true && t["name"].is_string()));
    assert_eq!(
        turn.results[0],
        json!({"type": "function_call_output", "call_id": "call_Hn4s0Lq2Xa7d",
        "output": "{\"status\":\"ok\",\"success\":true,\"data\":[]}"})
    );
    let refused = carried(Provider::OpenAiResponses, &turn.results[1]);
    assert_eq!(refused["hints"]["accepted"], "a string of 1 to 120 characters");
}

#[test]
fn anthropic_loop_answers_its_recorded_reply() {
    let turn = block_on(anthropic_loop::turn(&tools::toolbox()));
    assert_eq!(turn.tools.len(), 7);
    // Strict tools, with the tool choice the newest models take with them.
    assert!(turn.tools.iter().all(|t| t["strict"] == true && t["input_schema"]["additionalProperties"] == false));
    assert_eq!(turn.tool_choice, json!({"type": "auto"}));
    assert_eq!(turn.results.len(), 1, "one user message");
    let blocks = turn.results[0]["content"].as_array().unwrap();
    assert_eq!(turn.results[0]["role"], "user");
    assert_eq!((blocks[0]["is_error"].clone(), blocks[1]["is_error"].clone()), (json!(false), json!(true)));
    assert_eq!(blocks[1]["tool_use_id"], "toolu_01H4sNd9Wq2Yf7Bm3Kt8Gv5J");
    assert_eq!(carried(Provider::Anthropic, &blocks[1])["hints"]["path"], "tags[0]");
}

#[test]
fn gemini_loop_answers_its_recorded_reply() {
    let json_form = block_on(gemini_loop::turn(&tools::toolbox(), true));
    let declarations = json_form.tools[0]["functionDeclarations"].as_array().unwrap();
    assert!(declarations.iter().all(|d| d.get("parameters").is_none()));
    assert!(declarations.iter().filter(|d| d.get("parametersJsonSchema").is_some()).count() >= 6);
    assert_eq!(json_form.tool_config, Some(json!({"functionCallingConfig": {"mode": "VALIDATED"}})));
    let turn = block_on(gemini_loop::turn(&tools::toolbox(), false));
    assert_eq!(turn.tool_config, None);
    assert_eq!(json_form.results, turn.results);
    let declarations = turn.tools[0]["functionDeclarations"].as_array().unwrap();
    assert_eq!(declarations.len(), 7);
    assert!(declarations.iter().all(|d| d.get("parametersJsonSchema").is_none()));
    let parts = turn.results[0]["parts"].as_array().unwrap();
    assert_eq!(parts[0]["functionResponse"]["id"], "fc-7a1e");
    assert_eq!(parts[0]["functionResponse"]["response"]["status"], "ok");
    assert_eq!(parts[1]["functionResponse"]["name"], "get_top_query");
    assert_eq!(parts[1]["functionResponse"]["response"]["error_code"], "NOT_FOUND");
    assert_eq!(parts[1]["functionResponse"]["response"]["hints"]["suggestion"], "get_top_queries");
}

/// Deletes a note; needs the scope `notes:admin`.
#[envelope_core::tool(destructive, scopes = ["notes:admin"])]
fn drop_note(#[validate(range = 1..=100)] id: u32) -> u32 {
    id
}

#[tokio::test]
async fn a_call_answered_in_a_context_is_made_by_its_caller() {
    use envelope_core::providers::{Provider, answer, answer_in};
    use envelope_core::{Caller, Context};
    let toolbox = envelope_core::Toolbox::new().with(drop_note::tool());
    let block = serde_json::json!({"type": "tool_use", "id": "toolu_1", "name": "drop_note", "input": {"id": 3}});
    let anonymous = answer(&toolbox, Provider::Anthropic, &block).await;
    assert_eq!(
        anonymous.envelope().error_code().map(|c| c.name()),
        Some("FORBIDDEN"),
        "{}",
        anonymous.envelope().to_json()
    );
    let admin = Context::new(Caller::new("ops").with_scopes(["notes:admin"]));
    let granted = answer_in(&toolbox, &admin, Provider::Anthropic, &block).await;
    assert_eq!(granted.envelope().to_value()["data"], 3, "{}", granted.envelope().to_json());
    assert_eq!(granted.message()["is_error"], false);
}

// ---------------------------------------------------------------------------------------------
// The providers' limits, checked when an export is built.

mod limits {
    use envelope_core::__private010::{Input, Outcome, Tool};
    use envelope_core::providers::{Export, ExportError, Limit, Provider};
    use envelope_core::spec::{ObjectSpec, ParamSpec, ToolSpec, Ty};
    use envelope_core::{Toolbox, tool};
    use serde_json::json;

    fn unanswered<'a>(_: &'a ToolSpec, _: Input<'_>) -> Outcome<'a> {
        envelope_core::__private010::no_preview()
    }

    fn leak(s: String) -> &'static str {
        Box::leak(s.into_boxed_str())
    }

    /// A tool of `params`, named `name`.
    fn tool_of(name: &str, params: Vec<ParamSpec>) -> Tool {
        Tool::__new(ToolSpec::new(leak(name.to_owned()), "A generated tool.", params, vec![]), unanswered)
    }

    fn string(name: String) -> ParamSpec {
        ParamSpec::new(leak(name), "", Ty::String, false)
    }

    fn err(e: Export, tool: &Tool) -> ExportError {
        e.tool(tool).expect_err("past a limit")
    }

    /// A tool with a name MCP allows (`.`) is served over MCP and exported for Gemini; OpenAI
    /// and Anthropic refuse it, naming the character.
    #[test]
    fn a_dotted_name_is_refused_by_openai_and_anthropic_only() {
        /// Queries the database.
        #[tool(name = "db.query")]
        fn db_query(#[validate(range = 1..=10)] n: u32) -> u32 {
            n
        }
        let toolbox = Toolbox::new().with(db_query::tool());
        let tool = toolbox.get("db.query").unwrap();
        let served = crate::block_on(toolbox.call("db.query", Some(&json!({"n": 2})))).unwrap().to_value();
        assert_eq!(served["status"], "ok");
        assert_eq!(Export::new(Provider::Gemini).tool(tool).unwrap()["name"], "db.query");
        for e in [Export::new(Provider::OpenAiChat), Export::new(Provider::OpenAiResponses).non_strict()] {
            let error = err(e, tool);
            assert_eq!((error.tool(), error.limit(), error.figure()), ("db.query", Limit::NameCharacters, 2));
            assert_eq!(
                error.to_string(),
                "db.query: OpenAI allows a tool name of A-Z, a-z, 0-9, _ and - only; this one has '.' at character 2."
            );
        }
        let error = err(Export::new(Provider::Anthropic), tool);
        assert_eq!(error.provider(), Provider::Anthropic);
        assert_eq!(error.limit(), Limit::NameCharacters);
        // The whole toolbox's export answers the first tool past a limit.
        assert_eq!(Export::new(Provider::Anthropic).tools(&toolbox).unwrap_err(), error);
    }

    #[test]
    fn a_name_over_64_characters_is_refused_by_openai_and_anthropic_over_128_by_gemini() {
        let name = format!("t{}", "x".repeat(64));
        let tool = tool_of(&name, vec![string("a".into())]);
        for e in [Export::new(Provider::OpenAiChat), Export::new(Provider::Anthropic).non_strict()] {
            let error = err(e, &tool);
            assert_eq!((error.limit(), error.figure(), error.max()), (Limit::NameLength, 65, 64));
        }
        assert_eq!(
            err(Export::new(Provider::Anthropic), &tool).to_string(),
            format!("{name}: Anthropic allows a tool name of 1 to 64 characters; this one has 65.")
        );
        // 64 is within; for Gemini, 128.
        assert!(Export::new(Provider::OpenAiChat).tool(&tool_of(&"x".repeat(64), vec![])).is_ok());
        assert!(Export::new(Provider::Gemini).tool(&tool).is_ok());
        let long = tool_of(&"x".repeat(129), vec![]);
        let error = err(Export::new(Provider::Gemini).json_schema(), &long);
        assert_eq!((error.limit(), error.figure(), error.max()), (Limit::NameLength, 129, 128));
        assert!(Export::new(Provider::Gemini).tool(&tool_of(&"x".repeat(128), vec![])).is_ok());
    }

    #[test]
    fn a_gemini_name_starts_with_a_letter_or_underscore() {
        let tool = tool_of("3d.render", vec![string("a".into())]);
        let error = err(Export::new(Provider::Gemini), &tool);
        assert_eq!((error.limit(), error.figure()), (Limit::NameCharacters, 0));
        assert!(error.to_string().contains("starting with a letter or _"), "{error}");
        assert!(Export::new(Provider::Gemini).tool(&tool_of("_3d.render:v2", vec![string("a".into())])).is_ok());
    }

    #[test]
    fn more_than_5000_properties_are_refused_in_openai_strict_mode() {
        let within = tool_of("wide", (0..5000).map(|i| string(format!("p{i}"))).collect());
        assert!(Export::new(Provider::OpenAiChat).tool(&within).is_ok());
        let past = tool_of("wide", (0..5001).map(|i| string(format!("p{i}"))).collect());
        let error = err(Export::new(Provider::OpenAiChat), &past);
        assert_eq!((error.tool(), error.limit(), error.figure()), ("wide", Limit::Properties, 5001));
        assert_eq!(
            error.to_string(),
            "wide: OpenAI allows at most 5000 properties in a strict schema; this one has 5001."
        );
        // Not a limit of the other forms.
        for e in [
            Export::new(Provider::OpenAiChat).non_strict(),
            Export::new(Provider::Anthropic),
            Export::new(Provider::Gemini),
        ] {
            assert!(e.tool(&past).is_ok(), "{e:?}");
        }
    }

    /// An object nested `levels` deep (the parameters object is the first level).
    fn nested(levels: usize) -> Tool {
        let mut ty = Ty::String;
        for i in (1..levels).rev() {
            let object: &'static ObjectSpec = Box::leak(Box::new(ObjectSpec::new(
                leak(format!("Level{i}")),
                vec![ParamSpec::new("inner", "", ty, true)],
            )));
            ty = Ty::Object(object);
        }
        tool_of("deep", vec![ParamSpec::new("inner", "", ty, true)])
    }

    #[test]
    fn objects_nested_more_than_10_levels_are_refused_in_openai_strict_mode() {
        assert!(Export::new(Provider::OpenAiResponses).tool(&nested(10)).is_ok());
        let error = err(Export::new(Provider::OpenAiResponses), &nested(11));
        assert_eq!((error.limit(), error.figure()), (Limit::Nesting, 11));
        assert_eq!(
            error.to_string(),
            "deep: OpenAI allows objects nested at most 10 levels deep in a strict schema; this one nests 11."
        );
    }

    /// A parameter whose values are one of `n` names.
    fn choices(name: &str, n: usize, len: usize) -> ParamSpec {
        let names: Vec<&'static str> = (0..n).map(|i| leak(format!("{i:0len$}"))).collect();
        ParamSpec::new(leak(name.to_owned()), "", Ty::Enum(Box::leak(names.into_boxed_slice())), true)
    }

    #[test]
    fn more_than_1000_enum_values_are_refused_in_openai_strict_mode() {
        let within = tool_of("picky", vec![choices("a", 600, 4), choices("b", 400, 4)]);
        assert!(Export::new(Provider::OpenAiChat).tool(&within).is_ok());
        let past = tool_of("picky", vec![choices("a", 600, 4), choices("b", 401, 4)]);
        let error = err(Export::new(Provider::OpenAiChat), &past);
        assert_eq!((error.limit(), error.figure()), (Limit::EnumValues, 1001));
        assert_eq!(
            error.to_string(),
            "picky: OpenAI allows at most 1000 enum values in a strict schema; this one has 1001."
        );
    }

    #[test]
    fn more_than_120000_characters_of_names_and_values_are_refused_in_openai_strict_mode() {
        // 4 enums of 250 values of 120 characters: 1,000 values, 120,000 characters, and the
        // 4 one-letter property names past it.
        let params: Vec<ParamSpec> = ["a", "b", "c", "d"].iter().map(|n| choices(n, 250, 120)).collect();
        let error = err(Export::new(Provider::OpenAiChat), &tool_of("verbose", params));
        assert_eq!((error.limit(), error.figure()), (Limit::Characters, 120_004));
        assert!(error.to_string().starts_with("verbose: OpenAI allows at most 120000 characters"), "{error}");
        let params: Vec<ParamSpec> = ["a", "b", "c", "d"].iter().map(|n| choices(n, 250, 119)).collect();
        assert!(Export::new(Provider::OpenAiChat).tool(&tool_of("verbose", params)).is_ok());
    }
}
