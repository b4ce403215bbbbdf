//! The `inputSchema` of a tool, generated from the same [`ToolSpec`] the reader checks against.

use serde_json::{Map, Value, json};

use crate::spec::{Bound, Choices, Num, ParamSpec, Range, ToolSpec, Ty};

/// JSON Schema 2020-12 for a tool's arguments object.
pub(crate) fn input_schema(spec: &ToolSpec) -> Map<String, Value> {
    let mut props = Map::new();
    let mut required = Vec::new();
    for p in &spec.params {
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
    s
}

fn property(p: &ParamSpec) -> Map<String, Value> {
    let mut m = shape(&p.ty);
    if !p.description.is_empty() {
        m.insert("description".into(), json!(p.description));
    }
    if let Some(r) = &p.rules.range {
        range(&mut m, r, &p.ty);
    }
    if let Some(c) = &p.rules.choices {
        m.insert(
            "enum".into(),
            match c {
                Choices::Str(c) => json!(c),
                Choices::Int(c) => json!(c),
            },
        );
    }
    if p.rules.secret {
        // JSON Schema 2020-12 (Validation §9.4): sent by the caller, never returned.
        m.insert("writeOnly".into(), json!(true));
    }
    if let Some(d) = &p.default {
        m.insert("default".into(), d.clone());
    }
    m
}

fn shape(ty: &Ty) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(t) = ty.schema_type() {
        m.insert("type".into(), json!(t));
    }
    match ty {
        Ty::Integer { min, max } => {
            // The type's own bounds are part of what the reader accepts; a rule narrows them.
            if let (Ok(min), Ok(max)) = (i64::try_from(*min), i64::try_from(*max)) {
                m.insert("minimum".into(), json!(min));
                m.insert("maximum".into(), json!(max));
            } else if let (Ok(min), Ok(max)) = (u64::try_from(*min), u64::try_from(*max)) {
                m.insert("minimum".into(), json!(min));
                m.insert("maximum".into(), json!(max));
            }
        }
        Ty::Array(item) => {
            m.insert("items".into(), Value::Object(shape(item)));
        }
        _ => {}
    }
    m
}

fn num(n: Num) -> Value {
    match n {
        Num::Int(i) => i64::try_from(i).map_or_else(|_| json!(i as f64), |i| json!(i)),
        Num::Float(f) => json!(f),
    }
}

fn range(m: &mut Map<String, Value>, r: &Range, ty: &Ty) {
    let int = matches!(ty, Ty::Integer { .. });
    match r.min {
        Bound::Unbounded => {}
        // For integers an exclusive bound is the next whole number, inclusive.
        Bound::Exclusive(Num::Int(a)) if int => {
            m.insert("minimum".into(), num(Num::Int(a + 1)));
        }
        Bound::Inclusive(a) => {
            m.insert("minimum".into(), num(a));
        }
        Bound::Exclusive(a) => {
            m.remove("minimum");
            m.insert("exclusiveMinimum".into(), num(a));
        }
    }
    match r.max {
        Bound::Unbounded => {}
        Bound::Exclusive(Num::Int(b)) if int => {
            m.insert("maximum".into(), num(Num::Int(b - 1)));
        }
        Bound::Inclusive(b) => {
            m.insert("maximum".into(), num(b));
        }
        Bound::Exclusive(b) => {
            m.remove("maximum");
            m.insert("exclusiveMaximum".into(), num(b));
        }
    }
}
