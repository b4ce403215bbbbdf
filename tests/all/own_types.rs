//! Applicability by trait: a type alias of an integer and a newtype of one (implementing
//! `FromArg` and `Numeric`) take `range` and `multiple_of`; an alias and a newtype of `String`
//! (`Textual`) take `length`, `byte_length`, `pattern`, `format` and `choices`, of `Vec<T>`
//! (`Sequence`) `length` and `each(...)`: each with the refusals and the schema of the type it
//! stands for.

use envelope_core::read::{Numeric, Sequence, Textual};
use envelope_core::spec::Ty;
use envelope_core::{FromArg, Problem, Reading, Toolbox, tool};
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
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        u16::from_arg(v, reading).map(Rows)
    }
}

impl Numeric for Rows {}

/// A newtype of a float.
struct Ratio(f64);

impl FromArg for Ratio {
    fn ty() -> Ty {
        f64::ty()
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        f64::from_arg(v, reading).map(Ratio)
    }
}

impl Numeric for Ratio {}

/// Reads values of the crate's own types.
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

/// A newtype of your own is read the general way (`FromArg::reads_typed` is `false` unless it
/// says otherwise), so a tool that takes one has no typed reading; an alias is the type it
/// names, and has it. Both answer the same either way (`typed.rs`, `nested_pass.rs`).
#[test]
fn a_newtype_is_read_the_general_way_and_an_alias_as_what_it_names() {
    assert!(!own::tool().__reads_typed());
    assert!(own_float_rules::tool().__reads_typed());
    let typed = Toolbox::new().with(own_float_rules::tool());
    let general = Toolbox::new().with(own_float_rules::tool().__untyped());
    let answer =
        |t: &Toolbox, args: &str| block_on(t.call_json("own_float_rules", args)).expect("a test tool").to_json();
    assert_eq!(answer(&typed, r#"{"n": 5}"#), r#"{"status":"ok","success":true,"data":5}"#);
    for n in -2..=13 {
        let args = format!(r#"{{"n": {n}}}"#);
        assert_eq!(answer(&typed, &args), answer(&general, &args), "n {n}");
    }
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

// ---------------------------------------------------------------------------------------------
// Strings and arrays: an alias is the type it names; a newtype implements `FromArg` by reading
// the wrapped type, and `Textual` (a string) or `Sequence` (an array, with its item type).

/// An alias of a string.
type Email = String;

/// An alias of a list of strings.
type Tags = Vec<String>;

/// A newtype of a string.
#[derive(Debug)]
struct Handle(String);

impl FromArg for Handle {
    fn ty() -> Ty {
        String::ty()
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        String::from_arg(v, reading).map(Handle)
    }
}

impl Textual for Handle {}

/// A newtype of a list of strings.
#[derive(Debug)]
struct Labels(Vec<String>);

impl FromArg for Labels {
    fn ty() -> Ty {
        Vec::<String>::ty()
    }
    fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
        Vec::<String>::from_arg(v, reading).map(Labels)
    }
}

impl Sequence for Labels {
    type Item = String;
}

/// Every string and array rule, on aliases and newtypes.
#[tool]
fn own_text(
    #[validate(format = "email", length = ..=254)] to: Email,
    #[validate(pattern = "^@[a-z]+$", example = "@ada", byte_length = 2..=16)] handle: Handle,
    #[validate(choices = ["low", "high"], ignore_case)] level: Option<Handle>,
    #[validate(length = 1..=3, each(length = 1..=10))] tags: Option<Tags>,
    #[validate(length = ..=2, each(choices = ["a", "b"]))] labels: Option<Labels>,
    #[validate(each(format = "date", length = ..=10))] days: Option<Labels>,
) -> Value {
    json!([to, handle.0, level.map(|l| l.0), tags, labels.map(|l| l.0), days.map(|d| d.0)])
}

/// The same rules on `String` and `Vec<String>`: what the aliases and newtypes must match.
#[tool]
fn plain_text(
    #[validate(format = "email", length = ..=254)] to: String,
    #[validate(pattern = "^@[a-z]+$", example = "@ada", byte_length = 2..=16)] handle: String,
    #[validate(choices = ["low", "high"], ignore_case)] level: Option<String>,
    #[validate(length = 1..=3, each(length = 1..=10))] tags: Option<Vec<String>>,
    #[validate(length = ..=2, each(choices = ["a", "b"]))] labels: Option<Vec<String>>,
    #[validate(each(format = "date", length = ..=10))] days: Option<Vec<String>>,
) -> Value {
    json!([to, handle, level, tags, labels, days])
}

fn call_text(tool: &str, args: &Value) -> Value {
    let t = Toolbox::new().with(own_text::tool()).with(plain_text::tool());
    block_on(t.call(tool, Some(args))).expect("a test tool").to_value()
}

#[test]
fn aliases_and_newtypes_of_strings_and_arrays_take_their_rules() {
    let fine = json!({
        "to": "ada@example.com", "handle": "@ada", "level": "HIGH", "tags": ["x", "y"],
        "labels": ["a"], "days": ["2026-12-01"]
    });
    let env = call_text("own_text", &fine);
    assert_eq!(env["data"], json!(["ada@example.com", "@ada", "high", ["x", "y"], ["a"], ["2026-12-01"]]), "{env}");
    assert_eq!(env, call_text("plain_text", &fine));

    let wrong = json!({"to": "ada", "handle": "ada", "level": "medium", "tags": []});
    let env = call_text("own_text", &wrong);
    assert_eq!(env["status"], "invalid", "{env}");
    // Each rule refuses with the sentence it gives on `String` and `Vec<String>`.
    assert_eq!(env, call_text("plain_text", &wrong));
    assert_eq!(
        env["message"],
        "to: \"ada\" is not a valid email address; accepted: an email address of at most 254 characters. Send an address like \"ada@example.com\".\n\
         handle: \"ada\" does not match the pattern; accepted: a string of 2 to 16 bytes matching the pattern ^@[a-z]+$. Send a value of the same form as \"@ada\".\n\
         level: \"medium\" is not an accepted value; accepted: one of \"low\", \"high\". Send one of the accepted values, spelled exactly as listed.\n\
         tags: [] has 0 items; accepted: an array of 1 to 3 items, each a string of 1 to 10 characters. Send at least 1 item."
    );
    let wrong = json!({"to": "a@b.co", "handle": "@ada", "labels": ["a", "c", "b"], "days": ["2026-13-01", "2026-12-01T00:00"]});
    let env = call_text("own_text", &wrong);
    assert_eq!(env, call_text("plain_text", &wrong));
    assert_eq!(
        env["message"],
        "labels: [\"a\",\"c\",\"b\"] has 3 items; accepted: an array of at most 2 items, each one of \"a\", \"b\". Send at most 2 items.\n\
         labels[1]: \"c\" is not an accepted value; accepted: one of \"a\", \"b\". Send one of the accepted values, spelled exactly as listed.\n\
         days[0]: \"2026-13-01\" is not a valid date; accepted: a date as YYYY-MM-DD. Send a date like \"2026-11-30\".\n\
         days[1]: \"2026-12-01T00:00\" is 16 characters long; accepted: a date as YYYY-MM-DD. Send a date like \"2026-11-30\"."
    );

    // `byte_length` counts bytes: `@` and 8 `ä` are 17 bytes, and 9 characters.
    let long = json!({"to": "ada@example.com", "handle": "@ääääääää"});
    let env = call_text("own_text", &long);
    assert_eq!(env, call_text("plain_text", &long));
    assert_eq!(
        env["message"],
        "handle: \"@ääääääää\" is 17 bytes long; accepted: a string of 2 to 16 bytes matching the pattern ^@[a-z]+$. Send a value of the same form as \"@ada\"."
    );
}

#[test]
fn aliases_and_newtypes_of_strings_and_arrays_show_their_rules_in_the_schema() {
    let t = Toolbox::new().with(own_text::tool()).with(plain_text::tool());
    let own = Value::Object(t.get("own_text").unwrap().input_schema());
    let plain = Value::Object(t.get("plain_text").unwrap().input_schema());
    assert_eq!(own, plain);
    let p = &own["properties"];
    assert_eq!(p["to"], json!({"type": "string", "format": "email", "maxLength": 254}));
    assert_eq!(p["handle"]["pattern"], "^@[a-z]+$");
    assert_eq!(p["level"]["pattern"], "^(?:[lL][oO][wW]|[hH][iI][gG][hH])$");
    assert_eq!(p["tags"]["minItems"], 1);
    assert_eq!(p["tags"]["maxItems"], 3);
    assert_eq!(p["tags"]["items"]["maxLength"], 10);
    assert_eq!(p["labels"]["maxItems"], 2);
    assert_eq!(p["labels"]["items"]["enum"], json!(["a", "b"]));
    assert_eq!(p["days"]["items"]["format"], "date");
    assert_eq!(p["days"]["items"]["maxLength"], 10);
    crate::differential::assert_valid_2020_12("own_text", &own);
}
