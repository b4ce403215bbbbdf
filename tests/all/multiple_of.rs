//! `multiple_of` (JSON Schema `multipleOf`), added through the per-rule structure: integers
//! exactly, floats to within one division's rounding; the refusal quotes the value, states the
//! accepted set with the step and the bounds, and offers the multiples on either side; the
//! schema carries `multipleOf` and agrees with the reader on every value tried.

use envelope_core::{Toolbox, tool};
use serde_json::{Value, json};

use crate::block_on;

/// A step of 5 within 0..=100.
#[tool]
fn m_step(#[validate(range = 0..=100, multiple_of = 5)] step: u32) -> u32 {
    step
}

/// A step of 5 on a signed integer without a range.
#[tool]
fn m_signed(#[validate(multiple_of = 5)] offset: i32) -> i32 {
    offset
}

/// A step of 0.25 within 0..=1.
#[tool]
fn m_float(#[validate(range = 0.0..=1.0, multiple_of = 0.25)] ratio: f64) -> f64 {
    ratio
}

/// A whole step on a float, and an item rule.
#[tool]
fn m_each(#[validate(each(multiple_of = 10))] xs: Vec<u16>, #[validate(multiple_of = 2)] x: f32) -> f64 {
    f64::from(x) + xs.iter().map(|&x| f64::from(x)).sum::<f64>()
}

fn toolbox() -> Toolbox {
    Toolbox::new().with(m_step::tool()).with(m_signed::tool()).with(m_float::tool()).with(m_each::tool())
}

fn call(t: &Toolbox, tool: &str, args: Value) -> Value {
    block_on(t.call(tool, Some(&args))).expect("a test tool").to_value()
}

#[test]
fn integers_are_multiples_exactly() {
    let t = toolbox();
    assert_eq!(call(&t, "m_step", json!({"step": 0}))["data"], 0);
    assert_eq!(call(&t, "m_step", json!({"step": 100}))["data"], 100);
    assert_eq!(call(&t, "m_step", json!({"step": "35"}))["data"], 35);
    let env = call(&t, "m_step", json!({"step": 7}));
    assert_eq!(env["status"], "invalid");
    assert_eq!(
        env["message"],
        "step: 7 is not a multiple of 5; accepted: a multiple of 5 from 0 to 100. Send 5 or 10."
    );
    assert_eq!(env["hints"]["parameter"], "step");
    assert_eq!(env["hints"]["rejected"], "7");
    // Only the multiples within the range are offered.
    assert_eq!(
        call(&t, "m_step", json!({"step": 99}))["message"],
        "step: 99 is not a multiple of 5; accepted: a multiple of 5 from 0 to 100. Send 95 or 100."
    );
    // Out of range is said first, with the step in the accepted set.
    assert_eq!(
        call(&t, "m_step", json!({"step": 105}))["message"],
        "step: 105 is out of range; accepted: a multiple of 5 from 0 to 100. Send a multiple of 5 from 0 to 100."
    );
    // Negative values: the multiples below and above.
    assert_eq!(
        call(&t, "m_signed", json!({"offset": -7}))["message"],
        "offset: -7 is not a multiple of 5; accepted: a multiple of 5 from -2147483648 to 2147483647. Send -10 or -5."
    );
    assert_eq!(call(&t, "m_signed", json!({"offset": -15}))["data"], -15);
    // A missing parameter's fix offers a multiple.
    assert_eq!(
        call(&t, "m_step", json!({}))["message"],
        "step: required, but not sent; accepted: a multiple of 5 from 0 to 100. Add \"step\" to the arguments, like \"step\": 10."
    );
}

#[test]
fn floats_are_multiples_to_within_rounding() {
    let t = toolbox();
    for ok in [0.0, 0.25, 0.5, 0.75, 1.0] {
        assert_eq!(call(&t, "m_float", json!({"ratio": ok}))["data"], ok, "{ok}");
    }
    assert_eq!(
        call(&t, "m_float", json!({"ratio": 0.3}))["message"],
        "ratio: 0.3 is not a multiple of 0.25; accepted: a multiple of 0.25 from 0 to 1. Send 0.25 or 0.5."
    );
    // 0.3 is a multiple of 0.1 as a person reads it, though 0.3 / 0.1 is 2.9999999999999996.
    assert!(envelope_multiple(0.3, 0.1));
    let env = call(&t, "m_each", json!({"xs": [10, 25], "x": 3}));
    assert_eq!(
        env["message"],
        "xs[1]: 25 is not a multiple of 10; accepted: a multiple of 10 from 0 to 65535. Send 20 or 30.\n\
         x: 3 is not a multiple of 2; accepted: a multiple of 2. Send 2 or 4."
    );
}

/// Whether `m_float`-like reading takes `x` under a step `m`, through a tool built here.
fn envelope_multiple(x: f64, m: f64) -> bool {
    /// Takes a multiple of 0.1.
    #[tool]
    fn tenth(#[validate(multiple_of = 0.1)] x: f64) -> f64 {
        x
    }
    assert_eq!(m, 0.1);
    let t = Toolbox::new().with(tenth::tool());
    call(&t, "tenth", json!({ "x": x }))["status"] == "ok"
}

#[test]
fn the_schema_says_multiple_of_and_agrees_with_the_reader() {
    let t = toolbox();
    let schema = |tool: &str| Value::Object(t.get(tool).expect("a test tool").input_schema());
    assert_eq!(
        schema("m_step")["properties"]["step"],
        json!({"type": "integer", "minimum": 0, "maximum": 100, "multipleOf": 5})
    );
    assert_eq!(
        schema("m_float")["properties"]["ratio"],
        json!({"type": "number", "minimum": 0.0, "maximum": 1.0, "multipleOf": 0.25})
    );
    assert_eq!(schema("m_each")["properties"]["xs"]["items"]["multipleOf"], 10);
    for tool in ["m_step", "m_signed", "m_float", "m_each"] {
        crate::differential::assert_valid_2020_12(tool, &schema(tool));
    }
    let validator = jsonschema::draft202012::new(&schema("m_step")).unwrap();
    for n in -3..=110 {
        let args = json!({ "step": n });
        let read = call(&t, "m_step", args.clone())["status"] == "ok";
        assert_eq!(read, validator.is_valid(&args), "step {n}");
    }
    let validator = jsonschema::draft202012::new(&schema("m_float")).unwrap();
    for x in [0.0, 0.1, 0.25, 0.5, 0.6, 0.75, 1.0, 1.25] {
        let args = json!({ "ratio": x });
        let read = call(&t, "m_float", args.clone())["status"] == "ok";
        assert_eq!(read, validator.is_valid(&args), "ratio {x}");
    }
}
