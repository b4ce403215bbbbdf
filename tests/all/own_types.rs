//! Applicability by trait: a type alias of an integer and a newtype of one (implementing
//! `FromArg` and `Numeric`) take `range` and `multiple_of`, with the refusals and the schema of
//! the type they stand for.

use envelope_core::spec::Ty;
use envelope_core::{Cx, FromArg, Problem, Toolbox, read::Numeric, tool};
use serde_json::{Value, json};

use crate::block_on;

/// An alias: the type it names.
type Hours = u32;

/// A newtype of an integer, read as the integer.
#[derive(Debug)]
struct Rows(u16);

impl FromArg for Rows {
    fn ty() -> Ty {
        u16::ty()
    }
    fn from_arg(v: &Value, cx: &Cx<'_>) -> Result<Self, Problem> {
        u16::from_arg(v, cx).map(Rows)
    }
}

impl Numeric for Rows {}

/// A newtype of a float.
struct Ratio(f64);

impl FromArg for Ratio {
    fn ty() -> Ty {
        f64::ty()
    }
    fn from_arg(v: &Value, cx: &Cx<'_>) -> Result<Self, Problem> {
        f64::from_arg(v, cx).map(Ratio)
    }
}

impl Numeric for Ratio {}

#[tool]
fn own(
    #[validate(range = 1..=720)] hours_back: Hours,
    #[validate(range = 1..=100, multiple_of = 10)] rows: Option<Rows>,
    #[validate(range = 0.0..1.0)] ratio: Option<Ratio>,
    #[validate(each(range = 1..=24))] at: Option<Vec<Hours>>,
) -> Value {
    json!([hours_back, rows.map(|r| r.0), ratio.map(|r| r.0), at])
}

/// Float bounds and a fractional step on an integer alias: the whole numbers they admit, as the
/// schema says.
#[tool]
fn own_float_rules(#[validate(range = 0.5..=10.5, multiple_of = 2.5)] n: Hours) -> Hours {
    n
}

fn call(args: Value) -> Value {
    let t = Toolbox::new().with(own::tool());
    block_on(t.call("own", Some(&args))).expect("a test tool").to_value()
}

#[test]
fn an_alias_and_a_newtype_take_range_and_multiple_of() {
    let env = call(json!({"hours_back": 48, "rows": 30, "ratio": 0.5, "at": [1, 24]}));
    assert_eq!(env["data"], json!([48, 30, 0.5, [1, 24]]));
    let env = call(json!({"hours_back": 0, "rows": 35, "ratio": 1.0, "at": [25]}));
    assert_eq!(
        env["message"],
        "hours_back: 0 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720.\n\
         rows: 35 is not a multiple of 10; accepted: a multiple of 10 from 1 to 100. Send 30 or 40.\n\
         ratio: 1.0 is out of range; accepted: a number from 0 up to but not including 1. Send a value from 0 up to but not including 1.\n\
         at[0]: 25 is out of range; accepted: a whole number from 1 to 24. Send a value from 1 to 24."
    );
}

#[test]
fn the_schema_is_the_one_of_the_type_they_stand_for() {
    let t = Toolbox::new().with(own::tool());
    let schema = Value::Object(t.get("own").unwrap().input_schema());
    assert_eq!(schema["properties"]["hours_back"], json!({"type": "integer", "minimum": 1, "maximum": 720}));
    assert_eq!(schema["properties"]["rows"]["minimum"], 1);
    assert_eq!(schema["properties"]["rows"]["maximum"], 100);
    assert_eq!(schema["properties"]["rows"]["multipleOf"], 10);
    assert_eq!(schema["properties"]["ratio"]["exclusiveMaximum"], 1.0);
    assert_eq!(schema["properties"]["at"]["items"]["maximum"], 24);
    crate::differential::assert_valid_2020_12("own", &schema);
}

#[test]
fn float_rules_on_an_integer_alias_agree_with_the_schema() {
    let t = Toolbox::new().with(own_float_rules::tool());
    let schema = Value::Object(t.get("own_float_rules").unwrap().input_schema());
    assert_eq!(
        schema["properties"]["n"],
        json!({"type": "integer", "minimum": 0.5, "maximum": 10.5, "multipleOf": 2.5})
    );
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for n in -2..=13 {
        let args = json!({ "n": n });
        let env = block_on(t.call("own_float_rules", Some(&args))).unwrap().to_value();
        assert_eq!(env["status"] == "ok", validator.is_valid(&args), "n {n}: {env}");
    }
    let env = block_on(t.call("own_float_rules", Some(&json!({"n": 7})))).unwrap().to_value();
    assert_eq!(env["message"], "n: 7 is not a multiple of 2.5; accepted: a multiple of 2.5 from 1 to 10. Send 5.");
}
