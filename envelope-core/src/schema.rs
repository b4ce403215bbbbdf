//! The `inputSchema` of a tool, generated from the same [`ToolSpec`] the reader checks against,
//! and its `outputSchema` in every wire format.

use serde_json::{Map, Value, json};

use crate::outcome::code::Status;
use crate::outcome::wire::WireFormat;
use crate::spec::{ParamSpec, Rules, ToolSpec, Ty};

/// JSON Schema 2020-12 for a tool's arguments object, in full: its cross-parameter rules
/// (`requires`, `excludes`) as a top-level `allOf` of `if`/`then` and `not` (the form
/// `Toolbox::with_full_input_schema` serves).
pub(crate) fn input_schema(spec: &ToolSpec) -> Map<String, Value> {
    object_schema(&spec.params)
}

/// The portable `inputSchema` of a tool whose full one is `full`: the same without its top-level
/// `allOf`, so that an MCP client may forward it to any model API as it is (Anthropic's refuses
/// `allOf`, `anyOf` and `oneOf` at the top level, OpenAI's all three and `enum`, `const`, `not`).
/// A nested object keeps its own `allOf`: below the top, JSON Schema is every provider's. The
/// rules it held are stated in the tool's description ([`described`]) and enforced at run time
/// all the same.
pub(crate) fn portable(full: &Map<String, Value>) -> Map<String, Value> {
    let mut m = full.clone();
    m.remove("allOf");
    m
}

/// The description of a tool with a cross-parameter rule: its own, then one sentence per rule
/// (`When dimension is "hour", data_state must be "HOURLY_ALL".`); `None` for a tool without
/// one (its description is its own).
pub(crate) fn described(spec: &ToolSpec) -> Option<String> {
    let rules = rule_sentences(&spec.params);
    (!rules.is_empty()).then(|| with_sentences(spec.description, &rules))
}

/// `requires` and `excludes` of `params`, one sentence each: `When dimension is "hour",
/// data_state must be "HOURLY_ALL".`, `When since is sent, until must be sent too.`, `id and
/// name cannot both be sent.`
pub(crate) fn rule_sentences(params: &[ParamSpec]) -> Vec<String> {
    let mut out = Vec::new();
    for p in params {
        for r in &p.requires {
            let when = match &r.when {
                Some(w) => format!("When {} is {w}", p.name),
                None => format!("When {} is sent", p.name),
            };
            let then: Vec<String> = r
                .then
                .iter()
                .map(|(name, want)| match want {
                    Some(v) => format!("{name} must be {v}"),
                    None => format!("{name} must be sent too"),
                })
                .collect();
            out.push(format!("{when}, {}.", then.join(" and ")));
        }
        for other in &p.excludes {
            out.push(format!("{} and {other} cannot both be sent.", p.name));
        }
    }
    out
}

/// `description` followed by `sentences`, each after a full stop.
pub(crate) fn with_sentences(description: &str, sentences: &[String]) -> String {
    let mut s = description.trim_end().to_owned();
    for n in sentences {
        if !s.is_empty() {
            if !s.ends_with(['.', '!', '?']) {
                s.push('.');
            }
            s.push(' ');
        }
        s.push_str(n);
    }
    s
}

/// An object of named parameters (a tool's arguments, or a `#[derive(Object)]` value).
fn object_schema(params: &[ParamSpec]) -> Map<String, Value> {
    let mut props = Map::new();
    let mut required = Vec::new();
    for p in params {
        // A parameter that is not required keeps its plain `type` and is left out of
        // `required`; `null` for it reads as absent at run time all the same. A `type` array
        // with "null" is what the MCP Inspector, SDK form builders and the model providers'
        // function-calling schema subsets fill in poorly (the Inspector sends a string for an
        // optional array), so the schema names the type a caller should send.
        props.insert(p.name.to_owned(), Value::Object(property(p)));
        if p.required {
            required.push(Value::String(p.name.to_owned()));
        }
    }
    let mut s = Map::new();
    s.insert("type".into(), json!("object"));
    s.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        s.insert("required".into(), Value::Array(required));
    }
    s.insert("additionalProperties".into(), json!(false));
    let all_of = cross_rule_schemas(params);
    if !all_of.is_empty() {
        s.insert("allOf".into(), Value::Array(all_of));
    }
    s
}

/// `requires` and `excludes` as JSON Schema: each an `if`/`then` (or a `not`) in `allOf`.
/// A parameter whose default meets the condition needs no `required`: the reader uses the
/// default when it is absent, and the schema must accept the same.
fn cross_rule_schemas(params: &[ParamSpec]) -> Vec<Value> {
    let mut out = Vec::new();
    for p in params {
        for r in &p.requires {
            let mut cond = Map::new();
            match &r.when {
                Some(w) => {
                    cond.insert("properties".into(), json!({ p.name: { "const": w } }));
                    if p.default.as_ref() != Some(w) {
                        cond.insert("required".into(), json!([p.name]));
                    }
                }
                None => {
                    cond.insert("required".into(), json!([p.name]));
                }
            }
            let mut then = Map::new();
            let mut props = Map::new();
            let mut required = Vec::new();
            for (name, want) in &r.then {
                let default = params.iter().find(|o| o.name == *name).and_then(|o| o.default.as_ref());
                match want {
                    Some(w) => {
                        props.insert((*name).to_owned(), json!({ "const": w }));
                        if default != Some(w) {
                            required.push(json!(name));
                        }
                    }
                    None if default.is_none() => required.push(json!(name)),
                    None => {}
                }
            }
            if !props.is_empty() {
                then.insert("properties".into(), Value::Object(props));
            }
            if !required.is_empty() {
                then.insert("required".into(), Value::Array(required));
            }
            out.push(json!({ "if": cond, "then": then }));
        }
        for other in &p.excludes {
            out.push(json!({ "not": { "required": [p.name, other] } }));
        }
    }
    out
}

fn property(p: &ParamSpec) -> Map<String, Value> {
    let shape = value_schema(&p.ty, Some(&p.rules));
    // `type` first, then `description`, then the rule keywords: the order a reader scans.
    let mut m = Map::new();
    if let Some(t) = shape.get("type") {
        m.insert("type".into(), t.clone());
    }
    let note = shape.get("description").and_then(Value::as_str);
    let description = match (p.description.is_empty(), note) {
        (false, Some(note)) => Some(format!("{} ({note})", p.description)),
        (false, None) => Some(p.description.to_owned()),
        (true, Some(note)) => Some(note.to_owned()),
        (true, None) => None,
    };
    if let Some(d) = description {
        m.insert("description".into(), json!(d));
    }
    for (k, v) in shape {
        if k != "type" && k != "description" {
            m.insert(k, v);
        }
    }
    if let Some(d) = &p.default {
        m.insert("default".into(), d.clone());
    }
    m
}

/// The schema of one value of shape `ty` under `rules`.
fn value_schema(ty: &Ty, rules: Option<&Rules>) -> Map<String, Value> {
    if let Ty::Object(o) = ty {
        return object_schema(&o.params);
    }
    let mut m = Map::new();
    if let Some(t) = ty.schema_type() {
        m.insert("type".into(), json!(t));
    }
    if let Ty::Integer { min, max } = ty {
        // The type's own bounds are part of what the reader accepts; a rule narrows them.
        if let (Ok(min), Ok(max)) = (i64::try_from(*min), i64::try_from(*max)) {
            m.insert("minimum".into(), json!(min));
            m.insert("maximum".into(), json!(max));
        } else if let (Ok(min), Ok(max)) = (u64::try_from(*min), u64::try_from(*max)) {
            m.insert("minimum".into(), json!(min));
            m.insert("maximum".into(), json!(max));
        } else {
            // `i128`, `u128`: bounds a JSON number of 64 bits cannot write exactly, written as the
            // nearest doubles inside them (`u128` is read up to `i128::MAX`, 2^127 - 1: its
            // `maximum` is 2^127 - 2^74), so a value the schema accepts is one the reader does.
            let min = i64::try_from(*min).map_or_else(|_| json!(double_at_least(*min)), |min| json!(min));
            m.insert("minimum".into(), min);
            m.insert("maximum".into(), json!(double_at_most(*max)));
        }
    }
    if let Ty::Enum(names) = ty {
        m.insert("enum".into(), json!(names));
    }
    if let Some(rules) = rules {
        crate::read::rules::schema(&mut m, ty, rules);
    }
    if *ty == Ty::Float {
        single_bounds(&mut m);
    }
    if rules.is_some_and(|r| r.secret) {
        // JSON Schema 2020-12 (Validation §9.4): sent by the caller, never returned.
        m.insert("writeOnly".into(), json!(true));
    }
    if let Ty::Array(item) = ty {
        let item_rules = rules.and_then(|r| r.items.as_deref());
        m.insert("items".into(), Value::Object(value_schema(item, item_rules)));
    }
    if let Ty::Map(value) = ty {
        // A map: any key, each value of one shape (2020-12 Applicator §10.3.2.3).
        let value_rules = rules.and_then(|r| r.items.as_deref());
        m.insert("additionalProperties".into(), Value::Object(value_schema(value, value_rules)));
    }
    m
}

/// An `f32`'s bounds in `m` as the reader keeps them, never wider: an exclusive bound `b` becomes
/// the inclusive `maximum` of the largest `f32` below `b` as the reader rounds it (a value that
/// rounds to `b` is refused, `0.99999999` under `exclusiveMaximum: 1`), and no bound is past
/// ±`f32::MAX` (3.4028234663852886e38; a value past it does not fit).
fn single_bounds(m: &mut Map<String, Value>) {
    let largest = f64::from(f32::MAX);
    let number = |m: &Map<String, Value>, key: &str| m.get(key).and_then(Value::as_f64);
    let low = match (number(m, "exclusiveMinimum"), number(m, "minimum")) {
        (Some(a), _) => f64::from((a as f32).next_up()),
        (None, Some(a)) => a,
        (None, None) => -largest,
    };
    let high = match (number(m, "exclusiveMaximum"), number(m, "maximum")) {
        (Some(b), _) => f64::from((b as f32).next_down()),
        (None, Some(b)) => b,
        (None, None) => largest,
    };
    m.remove("exclusiveMinimum");
    m.remove("exclusiveMaximum");
    m.insert("minimum".into(), json!(low.max(-largest)));
    m.insert("maximum".into(), json!(high.min(largest)));
}

/// The largest double at most `n`.
fn double_at_most(n: i128) -> f64 {
    let f = n as f64;
    // `as` saturates: 2^127 (past i128::MAX) casts back to i128::MAX.
    if f >= 2f64.powi(127) || (f as i128) > n { f.next_down() } else { f }
}

/// The smallest double at least `n`.
fn double_at_least(n: i128) -> f64 {
    let f = n as f64;
    if (f as i128) < n { f.next_up() } else { f }
}

/// The `outputSchema` of a tool: the envelope its every call answers (MCP 2025-11-25 "Output
/// Schema": `structuredContent` conforms to it), with `data` as the tool declares it (any JSON
/// when it does not) and `error_code` one of its codes.
fn envelope_output_schema(spec: &ToolSpec, prefix: &str) -> Map<String, Value> {
    let data = data_schema(spec);
    let codes: Vec<String> = spec.error_codes.iter().map(|c| format!("{prefix}{}", c.name())).collect();
    // A tool answers `ok`, `invalid` or `error`; a confirm tool, or one whose error type has a
    // `needs_confirmation` code (a confirmation built by hand), also `needs_confirmation`.
    let confirms = spec.needs_confirmation
        || spec.error_codes.iter().any(|c| c.status() == crate::outcome::code::Status::NeedsConfirmation);
    let statuses: &[&str] =
        if confirms { &["ok", "invalid", "error", "needs_confirmation"] } else { &["ok", "invalid", "error"] };
    let mut m = json!({
        "type": "object",
        "properties": {
            "status": {"enum": statuses},
            "success": {"type": "boolean"},
            "data": data,
            "error_code": {"enum": codes},
            "message": {"type": "string"},
            "hints": {
                "type": "object",
                "properties": {
                    "parameter": {"type": "string"},
                    "path": {"type": "string"},
                    "rejected": {"type": "string"},
                    "accepted": {"type": "string"},
                    "fix": {"type": "string"},
                    "suggestion": {"type": "string"},
                    "others": {"type": "array", "items": {"type": "object"}},
                    "operation": {"type": "string"},
                    "trace_id": {"type": "string"},
                    "retry_after_ms": {"type": "integer", "minimum": 0}
                }
            },
            "retryable": {"type": "boolean"},
            "retry": {"enum": ["never", "after_reread", "with_backoff", "after_delay"]}
        },
        "required": ["status", "success"]
    });
    if let Some(Value::Object(props)) = m.get_mut("properties")
        && let Value::Object(extra) = extra_properties()
    {
        props.extend(extra);
    }
    if confirms && let Some(Value::Object(props)) = m.get_mut("properties") {
        props.insert("pending_action_id".into(), json!({"type": "string"}));
        props.insert("preview".into(), json!({}));
        props.insert("preview_hash".into(), json!({"type": "string", "pattern": "^[0-9a-f]{64}$"}));
    }
    match m {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The optional keys of every format with room for them: `warning` (one sentence) and
/// `provenance` (the call's causal metadata; see `Toolbox::with_provenance`).
pub(crate) fn extra_properties() -> Value {
    let nullable = json!({"type": ["string", "null"]});
    json!({
        "warning": {"type": "string"},
        "provenance": {
            "type": "object",
            "properties": {
                "call_id": {"type": "string"},
                "surface": {"type": "string"},
                "tool": {"type": "string"},
                "tier": {"type": "integer", "minimum": 1, "maximum": 4},
                "caller": nullable,
                "tenant": nullable,
                "approval": nullable,
                "replay": {"type": "boolean"}
            },
            "required": ["call_id", "surface", "tool", "tier", "replay"]
        }
    })
}

/// The JSON Schema (2020-12) of a tool's `data` from its type (feature `schemars`): every
/// subschema inlined, since it is placed inside `outputSchema`, where a `$ref` to the root's
/// `$defs` would point elsewhere; without `$schema`. A type that accepts any JSON gives `true`.
#[cfg(feature = "schemars")]
pub(crate) fn data_schema_of<T: ?Sized + schemars::JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
    let mut schema = generator.into_generator().into_root_schema_for::<T>().to_value();
    if let Value::Object(o) = &mut schema {
        o.remove("$schema");
        if o.is_empty() {
            return Value::Bool(true);
        }
    }
    schema
}

/// The schema of `data` in a tool's `outputSchema`: as declared (any JSON when not); for a
/// confirm tool, also the answer of an action not run, `{"done": false, "reason": R}`, which an
/// MCP approval retry answers under the tool's own name (`rejected`, `declined`, `cancelled`).
pub(crate) fn data_schema(spec: &ToolSpec) -> Value {
    let Some(mut declared) = spec.output_schema.map(|f| f()) else { return json!({}) };
    standard_formats(&mut declared);
    if !spec.needs_confirmation {
        return declared;
    }
    let not_run = json!({
        "type": "object",
        "properties": {"done": {"const": false}, "reason": {"enum": ["rejected", "declined", "cancelled"]}},
        "required": ["done", "reason"],
        "additionalProperties": false
    });
    json!({"anyOf": [declared, not_run]})
}
/// The `outputSchema` of a tool in `format` (MCP 2025-11-25 "Output Schema"): every line the
/// tool can answer in that format validates against it.
pub(crate) fn output_schema(spec: &ToolSpec, prefix: &str, format: WireFormat) -> Map<String, Value> {
    if format == WireFormat::Envelope {
        return envelope_output_schema(spec, prefix);
    }
    let data = data_schema(spec);
    let statuses_of = |s: Status| spec.error_codes.iter().any(|c| c.status() == s);
    let (refuses, faults, confirms) =
        (statuses_of(Status::Invalid), statuses_of(Status::Error), statuses_of(Status::NeedsConfirmation));
    let codes: Vec<String> = spec.error_codes.iter().map(|c| format!("{prefix}{}", c.name())).collect();
    let confirmation = json!({
        "pending_action_id": {"type": "string"},
        "preview": {},
        "preview_hash": {"type": "string"}
    });
    let mut schema = match format {
        WireFormat::StatusHints => {
            let mut statuses = vec!["ok"];
            statuses.extend(refuses.then_some("invalid"));
            statuses.extend(faults.then_some("error"));
            statuses.extend(confirms.then_some("needs_confirmation"));
            let mut props = json!({
                "status": {"enum": statuses},
                "data": data,
                "message": {"type": "string"},
                "hints": {
                    "type": "object",
                    "properties": {"parameter": {"type": "string"}, "operation": {"type": "string"}},
                    "additionalProperties": false
                }
            });
            if confirms {
                merge(&mut props, &confirmation);
            }
            merge(&mut props, &extra_properties());
            json!({"type": "object", "properties": props, "required": ["status"], "additionalProperties": false})
        }
        WireFormat::SuccessFlag => {
            let mut failure_props = json!({
                "success": {"const": false},
                "refused": {"type": "boolean"},
                "error": {"type": "string"}
            });
            if confirms {
                merge(&mut failure_props, &confirmation);
            }
            merge(&mut failure_props, &extra_properties());
            let mut wrapped_props = json!({"success": {"const": true}, "data": data});
            merge(&mut wrapped_props, &extra_properties());
            let failure = json!({
                "type": "object",
                "properties": failure_props,
                "required": ["success", "refused", "error"],
                "additionalProperties": false
            });
            // A success is the data object itself, or `{"success": true, "data": ...}` for data
            // that is not an object; it never says `success: false`.
            let wrapped = json!({
                "type": "object",
                "properties": wrapped_props,
                "required": ["success", "data"],
                "additionalProperties": false
            });
            let bare = json!({
                "allOf": [data, {"type": "object", "not": {"properties": {"success": {"const": false}}, "required": ["success"]}}]
            });
            json!({"type": "object", "anyOf": [bare, wrapped, failure]})
        }
        _ => {
            let mut statuses = vec!["ok"];
            statuses.extend((refuses || faults).then_some("error"));
            statuses.extend(confirms.then_some("needs_confirmation"));
            let mut props = json!({
                "status": {"enum": statuses},
                "data": data,
                "error_code": {"enum": codes},
                "summary": {"type": "string"}
            });
            if confirms {
                merge(&mut props, &confirmation);
            }
            merge(&mut props, &extra_properties());
            json!({"type": "object", "properties": props, "required": ["status"], "additionalProperties": false})
        }
    };
    match schema.take() {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// Rewrites, everywhere in `schema`, the `format` values that schemars writes for Rust's number
/// types and JSON Schema does not define (2020-12 §7.3 lists the formats it does: `date-time`,
/// `uuid`, `ipv4`, ...), into the bounds they mean: `"format": "uint32"` becomes `"minimum": 0,
/// "maximum": 4294967295`, `int64` the bounds of an `i64`, `float` those of an `f32`; `double`,
/// `int128`'s and `uint128`'s upper bound (beyond what a JSON number here holds) and `ip` (an
/// `IpAddr`: `ipv4` or `ipv6`) are removed. A bound already there is kept when it is tighter.
/// Clients that validate `outputSchema` with a strict validator (ajv: the MCP Inspector) warn
/// `unknown format "uint32" ignored` on every call otherwise. Other formats are left as written.
pub(crate) fn standard_formats(schema: &mut Value) {
    match schema {
        Value::Array(items) => items.iter_mut().for_each(standard_formats),
        Value::Object(o) => {
            if let Some(Value::String(format)) = o.get("format")
                && let Some((min, max)) = number_format_bounds(format)
            {
                o.remove("format");
                if let Some(min) = min {
                    tighter(o, "minimum", min, |new, old| new > old);
                }
                if let Some(max) = max {
                    tighter(o, "maximum", max, |new, old| new < old);
                }
            }
            o.values_mut().for_each(standard_formats);
        }
        _ => {}
    }
}

/// The bounds a schemars number format means (`None` for a format it does not write); each
/// bound `None` where there is none to state.
#[allow(clippy::type_complexity)]
fn number_format_bounds(format: &str) -> Option<(Option<Value>, Option<Value>)> {
    let b = |min: i64, max: u64| (Some(Value::from(min)), Some(Value::from(max)));
    Some(match format {
        "int8" => b(i8::MIN.into(), 127),
        "int16" => b(i16::MIN.into(), 32_767),
        "int32" => b(i32::MIN.into(), 2_147_483_647),
        "int64" => b(i64::MIN, 9_223_372_036_854_775_807),
        "int" => b(isize::MIN as i64, isize::MAX as u64),
        "uint8" => b(0, u8::MAX.into()),
        "uint16" => b(0, u16::MAX.into()),
        "uint32" => b(0, u32::MAX.into()),
        "uint64" => b(0, u64::MAX),
        "uint" => b(0, usize::MAX as u64),
        "uint128" => (Some(Value::from(0)), None),
        "float" => {
            let max = f64::from(f32::MAX);
            (Some(Value::from(-max)), Some(Value::from(max)))
        }
        "int128" | "double" | "ip" => (None, None),
        _ => return None,
    })
}

/// Sets `key` to `bound` unless a number already there is tighter (`better(bound, old)` false).
fn tighter(o: &mut Map<String, Value>, key: &str, bound: Value, better: impl Fn(f64, f64) -> bool) {
    let keep = match (o.get(key).and_then(Value::as_f64), bound.as_f64()) {
        (Some(old), Some(new)) => !better(new, old),
        _ => false,
    };
    if !keep {
        o.insert(key.to_owned(), bound);
    }
}

fn merge(into: &mut Value, from: &Value) {
    if let (Some(into), Some(from)) = (into.as_object_mut(), from.as_object()) {
        for (k, v) in from {
            into.insert(k.clone(), v.clone());
        }
    }
}

/// Asking a user for a typed answer: the requested schema from the Rust type (it lives here, above
/// `read/`, since it needs the schema of a type).
impl crate::context::Context {
    /// Asks the user for a `T`: [`elicit`](crate::Context::elicit) with `T`'s JSON Schema (feature
    /// `schemars`) as `requestedSchema`; an accepted answer is read as `T`, and one that does
    /// not read is [`ClientError::Unreadable`](crate::context::ClientError::Unreadable) with serde's sentence. `Ok(None)`:
    /// the user declined or cancelled.
    #[cfg(feature = "schemars")]
    pub async fn elicit_as<T: serde::de::DeserializeOwned + schemars::JsonSchema>(
        &self,
        message: impl Into<String>,
    ) -> Result<Option<T>, crate::context::ClientError> {
        let schema = data_schema_of::<T>();
        let answer = self.elicit(message, schema).await?;
        if answer.action != crate::context::ElicitAction::Accept {
            return Ok(None);
        }
        let content = serde_json::Value::Object(answer.content.unwrap_or_default());
        serde_json::from_value(content).map(Some).map_err(|e| crate::context::ClientError::Unreadable {
            method: crate::context::ClientAsk::Elicitation.method(),
            why: format!("its content does not read as {}: {e}", std::any::type_name::<T>()),
        })
    }
}
