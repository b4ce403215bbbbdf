//! The rule language beyond the example tools: enums, nested objects, state, renames, formats,
//! presence rules — each through the toolbox, asserting what a caller sees.

use envelope_core::{Choice, Object, Toolbox, tool, tools};
use serde_json::{Value, json};

use crate::block_on;

fn run(toolbox: &Toolbox, tool: &str, args: Value) -> Value {
    block_on(toolbox.call(tool, Some(&args))).unwrap().to_value()
}

#[derive(Choice, Clone, Copy, Debug, PartialEq)]
#[choice(rename_all = "snake_case")]
enum GroupBy {
    QueryHash,
    Database,
    #[choice(rename = "app")]
    Application,
}

/// Groups by an enum.
#[tool]
fn grouped(group_by: GroupBy, also: Option<Vec<GroupBy>>) -> String {
    let also: Vec<&str> = also.unwrap_or_default().iter().map(GroupBy::as_str).collect();
    format!("{}+{}", group_by.as_str(), also.join(","))
}

#[test]
fn choice_enum_reads_its_wire_names_and_advertises_them() {
    let tb = Toolbox::new().with(grouped::tool());
    assert_eq!(run(&tb, "grouped", json!({"group_by": "app", "also": ["query_hash"]}))["data"], "app+query_hash");
    assert_eq!(
        run(&tb, "grouped", json!({"group_by": "Database"}))["message"],
        "group_by: \"Database\" is not an accepted value; accepted: one of \"query_hash\", \"database\", \"app\". Did you mean \"database\"? Send \"database\"."
    );
    assert_eq!(
        run(&tb, "grouped", json!({"group_by": "app", "also": ["app", "x"]}))["message"],
        "also[1]: \"x\" is not an accepted value; accepted: one of \"query_hash\", \"database\", \"app\". Send one of the accepted values, spelled exactly as listed."
    );
    let schema = Value::Object(tb.get("grouped").unwrap().input_schema());
    assert_eq!(schema["properties"]["group_by"], json!({"type": "string", "enum": ["query_hash", "database", "app"]}));
    assert_eq!(
        schema["properties"]["also"]["items"],
        json!({"type": "string", "enum": ["query_hash", "database", "app"]})
    );
}

#[derive(Object, Debug)]
#[object(rename_all = "camelCase")]
struct Filter {
    /// First day, inclusive.
    #[validate(format = "date")]
    since_day: String,
    #[validate(range = 1..=50, default = 10)]
    limit: u32,
}

/// Searches with a nested filter.
#[tool]
fn search(filter: Filter, #[validate(length = 1..=3)] terms: Vec<String>) -> String {
    format!("{} {} {}", filter.since_day, filter.limit, terms.join(" "))
}

#[test]
fn nested_object_fields_are_refused_by_path() {
    let tb = Toolbox::new().with(search::tool());
    assert_eq!(
        run(&tb, "search", json!({"filter": {"sinceDay": "2026-11-30"}, "terms": ["a"]}))["data"],
        "2026-11-30 10 a"
    );
    let env = run(&tb, "search", json!({"filter": {"sinceDay": "2026-13-01", "limit": 0, "lmit": 3}, "terms": []}));
    assert_eq!(
        env["message"],
        "filter.sinceDay: \"2026-13-01\" is not a valid date; accepted: a date as YYYY-MM-DD. Send a date like \"2026-11-30\".\n\
         filter.limit: 0 is out of range; accepted: a whole number from 1 to 50. Send a value from 1 to 50.\n\
         filter.lmit: \"lmit\" is not a field of filter; accepted: sinceDay, limit. Remove it.\n\
         terms: [] has 0 items; accepted: an array of 1 to 3 items, each a string. Send at least 1 item."
    );
    assert_eq!(env["hints"]["parameter"], "filter");
    assert_eq!(env["hints"]["path"], "filter.sinceDay");
    assert_eq!(
        run(&tb, "search", json!({"filter": "2026-11-30", "terms": ["a"]}))["message"],
        "filter: \"2026-11-30\" is a string; accepted: an object with the keys \"sinceDay\", \"limit\". Send a JSON object, like {\"sinceDay\": \"…\"}."
    );
    let schema = Value::Object(tb.get("search").unwrap().input_schema());
    assert_eq!(
        schema["properties"]["filter"],
        json!({
            "type": "object",
            "properties": {
                "sinceDay": {"type": "string", "description": "First day, inclusive.", "format": "date"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}
            },
            "required": ["sinceDay"],
            "additionalProperties": false
        })
    );
}

#[test]
fn stateful_tool_keeps_its_state_between_calls() {
    let tb = crate::tools::toolbox();
    let first = run(&tb, "create_note", json!({"title": "one"}));
    let second = run(&tb, "create_note", json!({"title": "two", "tags": ["a"], "pinned": true}));
    assert_eq!(first["data"], json!({"id": 1, "title": "one", "tags": [], "pinned": false}));
    assert_eq!(second["data"], json!({"id": 2, "title": "two", "tags": ["a"], "pinned": true}));
}

struct Clock(u64);

#[tools]
impl Clock {
    /// Adds seconds to the clock (async).
    #[tool(read_only)]
    async fn later(&self, #[validate(range = 1..=60)] seconds: u64) -> u64 {
        self.0 + seconds
    }
}

#[test]
fn async_method_tools_borrow_their_state() {
    let tb = Toolbox::new().with_state(std::sync::Arc::new(Clock(100)));
    assert_eq!(run(&tb, "later", json!({"seconds": 5}))["data"], 105);
    assert_eq!(run(&tb, "later", json!({"seconds": 61}))["hints"]["accepted"], "a whole number from 1 to 60");
}

/// Renames and case-insensitive choices.
#[tool(rename_all = "camelCase")]
fn renamed(
    row_limit: u32,
    #[validate(rename = "kind", choices = ["Alpha", "Beta"], ignore_case)] the_kind: String,
) -> String {
    format!("{row_limit} {the_kind}")
}

#[test]
fn renames_are_used_everywhere_and_ignore_case_passes_the_canonical_spelling() {
    let tb = Toolbox::new().with(renamed::tool());
    assert_eq!(run(&tb, "renamed", json!({"rowLimit": 3, "kind": "BETA"}))["data"], "3 Beta");
    let env = run(&tb, "renamed", json!({"row_limit": 3, "kind": "Gamma"}));
    assert_eq!(
        env["message"],
        "kind: \"Gamma\" is not an accepted value; accepted: one of \"Alpha\", \"Beta\". Send one of the accepted values, spelled exactly as listed.\n\
         row_limit: \"row_limit\" is not a parameter of renamed; accepted: rowLimit, kind. Did you mean \"rowLimit\"? Rename \"row_limit\" to \"rowLimit\"."
    );
    let schema = Value::Object(tb.get("renamed").unwrap().input_schema());
    assert_eq!(schema["required"], json!(["rowLimit", "kind"]));
}

/// Case-insensitive choices beyond ASCII, and with characters a regex gives meaning to.
#[tool]
fn cased(#[validate(choices = ["ok", "ΟΔΟΣ", "straße", "a_b.c-d"], ignore_case)] word: String) -> String {
    word
}

/// The reader and the schema's case-blind `pattern` accept the same spellings, character by
/// character; the pattern escapes only what ECMA-262 lets it escape under the `u` flag.
#[test]
fn ignore_case_accepts_what_its_schema_pattern_accepts() {
    let tb = Toolbox::new().with(cased::tool());
    let schema = Value::Object(tb.get("cased").unwrap().input_schema());
    assert_eq!(
        schema["properties"]["word"]["pattern"],
        "^(?:[oO][kK]|[Οο][Δδ][Οο][Σσ]|[sS][tT][rR][aA]ß[eE]|[aA]_[bB]\\.[cC]-[dD])$"
    );
    let validator = jsonschema::draft202012::new(&schema).expect("a valid inputSchema");
    for (sent, read) in [
        ("OK", Some("ok")),
        ("oK", Some("ok")),
        ("οδοσ", Some("ΟΔΟΣ")),
        ("StRaßE", Some("straße")),
        ("A_B.C-D", Some("a_b.c-d")),
        ("o\u{212a}", None), // a Kelvin sign: its lower case is "k", but it is not "k" or "K"
        ("οδος", None),      // a final sigma
        ("STRAẞE", None),    // a capital sharp s
        ("STRASSE", None),
        ("a_bxc-d", None), // "." is a dot, not any character
    ] {
        let args = json!({ "word": sent });
        let env = run(&tb, "cased", args.clone());
        assert_eq!(env["data"].as_str(), read, "{sent}: {env}");
        assert_eq!(validator.is_valid(&args), read.is_some(), "the schema on {sent}");
    }
}

/// Every format.
#[tool]
fn formats(
    #[validate(format = "date")] date: Option<String>,
    #[validate(format = "date-time")] date_time: Option<String>,
    #[validate(format = "uuid")] uuid: Option<String>,
    #[validate(format = "email")] email: Option<String>,
    #[validate(format = "uri")] uri: Option<String>,
) -> bool {
    let _ = (date, date_time, uuid, email, uri);
    true
}

#[test]
fn formats_accept_their_form_and_refuse_with_an_example() {
    let tb = Toolbox::new().with(formats::tool());
    let good = json!({
        "date": "2026-02-28", "date_time": "2026-11-30T14:05:00+01:00",
        "uuid": "67e55044-10b1-426f-9247-bb680e5fe0c8", "email": "ada@example.com", "uri": "https://example.com/a?b=c"
    });
    assert_eq!(run(&tb, "formats", good)["status"], "ok");
    let bad = json!({"date": "2026-02-30", "date_time": "2026-11-30 14:05", "uuid": "67e55044", "email": "ada.example.com", "uri": "example.com"});
    assert_eq!(
        run(&tb, "formats", bad)["message"],
        "date: \"2026-02-30\" is not a valid date; accepted: a date as YYYY-MM-DD. Send a date like \"2026-11-30\".\n\
         date_time: \"2026-11-30 14:05\" is not a valid date-time; accepted: an RFC 3339 date-time with offset. Send a date-time like \"2026-11-30T14:05:00Z\".\n\
         uuid: \"67e55044\" is not a valid UUID; accepted: a hyphenated UUID. Send a UUID like \"67e55044-10b1-426f-9247-bb680e5fe0c8\".\n\
         email: \"ada.example.com\" is not a valid email address; accepted: an email address. Send an address like \"ada@example.com\".\n\
         uri: \"example.com\" is not a valid absolute URI; accepted: an absolute URI with a scheme. Send a URI like \"https://example.com/path\"."
    );
}

/// Presence rules.
#[tool]
fn window(
    #[validate(requires = "until", excludes = "last_hours")] since: Option<String>,
    until: Option<String>,
    last_hours: Option<u32>,
) -> bool {
    let _ = (since, until, last_hours);
    true
}

#[test]
fn requires_and_excludes_name_the_parameter_to_change() {
    let tb = Toolbox::new().with(window::tool());
    assert_eq!(run(&tb, "window", json!({"since": "a", "until": "b"}))["status"], "ok");
    assert_eq!(
        run(&tb, "window", json!({"since": "a"}))["message"],
        "until: is required when since is sent; accepted: a string. Add \"until\" to the arguments, or remove since."
    );
    assert_eq!(
        run(&tb, "window", json!({"since": "a", "until": "b", "last_hours": 3}))["message"],
        "since: \"a\" cannot be sent together with last_hours; accepted: since or last_hours, not both. Remove since or last_hours."
    );
    // The portable inputSchema (the default): the rules in the description, none at the top.
    let tool = tb.get("window").unwrap();
    assert!(tool.input_schema().get("allOf").is_none());
    assert!(
        tool.description()
            .ends_with(". When since is sent, until must be sent too. since and last_hours cannot both be sent."),
        "{}",
        tool.description()
    );
    // The full form keeps them in the schema, and the description as declared.
    let full = tb.with_full_input_schema();
    let tool = full.get("window").unwrap();
    assert_eq!(
        Value::Object(tool.input_schema())["allOf"],
        json!([{"if": {"required": ["since"]}, "then": {"required": ["until"]}}, {"not": {"required": ["since", "last_hours"]}}])
    );
    assert!(!tool.description().contains("When since"), "{}", tool.description());
    assert_eq!(run(&full, "window", json!({"since": "a"}))["status"], "invalid");
}

/// Wide integers.
#[tool]
fn wide(#[validate(range = 1..)] n: u64, small: Option<u8>, big: Option<i128>) -> String {
    format!("{n} {small:?} {big:?}")
}

#[test]
fn integers_beyond_the_type_are_refused_with_their_digits() {
    let tb = Toolbox::new().with(wide::tool());
    assert_eq!(
        run(&tb, "wide", json!({"n": 18446744073709551615_u64, "big": i64::MIN}))["data"],
        "18446744073709551615 None Some(-9223372036854775808)"
    );
    let env = run(&tb, "wide", serde_json::from_str(r#"{"n": 18446744073709551616, "small": 256}"#).unwrap());
    assert_eq!(
        env["message"],
        "n: 18446744073709551616 is out of range; accepted: a whole number from 1 to 18446744073709551615. Send a value from 1 to 18446744073709551615.\n\
         small: 256 is out of range; accepted: a whole number from 0 to 255. Send a value from 0 to 255."
    );
}

/// Sleeps longer than its timeout.
#[tool(timeout_ms = 50, idempotent)]
async fn slow(#[validate(range = 0..=1000)] ms: u64) -> u64 {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    ms
}

#[test]
fn an_async_tool_past_its_timeout_answers_a_timeout_fault_listed_in_its_codes() {
    let tb = Toolbox::new().with(slow::tool());
    assert_eq!(run(&tb, "slow", json!({"ms": 0}))["data"], 0);
    assert_eq!(
        run(&tb, "slow", json!({"ms": 1000})),
        json!({
            "status": "error", "success": false, "error_code": "TIMEOUT",
            "message": "slow failed: the server did not finish in time. Retry later: the tool is idempotent, so calling again is safe.",
            "hints": {"operation": "slow"}, "retryable": true, "retry": "with_backoff"
        })
    );
    let codes: Vec<&str> = tb.get("slow").unwrap().spec().error_codes.iter().map(|c| c.name()).collect();
    assert_eq!(codes, ["VALIDATION_ERROR", "TIMEOUT", "BACKEND_ERROR"]);
}

#[test]
fn numbers_past_64_bits_or_a_double_are_refused_with_what_was_sent() {
    let tb = Toolbox::new().with(wide::tool());
    let env = block_on(tb.call_json("wide", r#"{"n": 18446744073709551617, "small": 1}"#)).unwrap().to_value();
    assert_eq!(
        env["message"],
        "n: 18446744073709551617 is out of range; accepted: a whole number from 1 to 18446744073709551615. Send a value from 1 to 18446744073709551615."
    );
    let env = block_on(tb.call_json("wide", r#"{"n": 1e400, "small": 300}"#)).unwrap().to_value();
    assert_eq!(
        env["message"],
        "n: 1e400 is too large to read as a number; accepted: a whole number from 1 to 18446744073709551615. Send n within the accepted range."
    );
}

/// An `i128` and a `u128`, unbounded.
#[tool]
fn widest(big: Option<i128>, huge: Option<u128>, bigs: Option<Vec<i128>>) -> String {
    match bigs {
        Some(bigs) => format!("{bigs:?}"),
        None => format!("{big:?} {huge:?}"),
    }
}

/// A number literal is read as the integer it names, not as the double a `Value` holds: past 64
/// bits no digit is lost, a whole float a 64-bit type holds is read, and a literal a double
/// rounds to a whole number is not whole.
#[test]
fn number_literals_are_read_as_the_integers_they_name() {
    let tb = Toolbox::new().with(widest::tool()).with(wide::tool());
    let call = |name: &str, args: &str| block_on(tb.call_json(name, args)).unwrap().to_value();
    for (args, read) in [
        (r#"{"big": 36893488147419103233}"#, "Some(36893488147419103233) None"),
        (r#"{"big": 170141183460469231731687303715884105727}"#, "Some(170141183460469231731687303715884105727) None"),
        (r#"{"big": -170141183460469231731687303715884105728}"#, "Some(-170141183460469231731687303715884105728) None"),
        (r#"{"huge": 1.5e38}"#, "None Some(150000000000000000000000000000000000000)"),
        (r#"{"big": 1.2345678901234567890123e22}"#, "Some(12345678901234567890123) None"),
        (r#"{"bigs": [36893488147419103233, 5]}"#, "[36893488147419103233, 5]"),
        // As a string, in lax mode: i128::MAX's 39 digits are read.
        (r#"{"big": "170141183460469231731687303715884105727"}"#, "Some(170141183460469231731687303715884105727) None"),
    ] {
        assert_eq!(call("widest", args)["data"], read, "{args}");
    }
    // A whole float within u64, and i64::MIN written as a float.
    assert_eq!(call("wide", r#"{"n": 1.8446744073709550e19}"#)["data"], "18446744073709550000 None None");
    assert_eq!(call("wide", r#"{"n": 1, "big": -9223372036854775808.0}"#)["data"], "1 None Some(-9223372036854775808)");
    // Past i128, or past u128's i128::MAX: out of range, quoted as sent.
    let env = call("widest", r#"{"big": 170141183460469231731687303715884105728}"#);
    assert_eq!(
        env["message"],
        "big: 170141183460469231731687303715884105728 is out of range; accepted: a whole number from \
         -170141183460469231731687303715884105728 to 170141183460469231731687303715884105727. Send a value from \
         -170141183460469231731687303715884105728 to 170141183460469231731687303715884105727."
    );
    // Digits past i128 in a string are out of range, as the same digits sent as a number are.
    let env = call("widest", r#"{"big": "1000000000000000000000000000000000000000"}"#);
    assert_eq!(env["hints"]["rejected"], "\"1000000000000000000000000000000000000000\"");
    assert!(env["message"].as_str().unwrap().contains("is out of range"), "{env}");
    // Not whole, though a double reads it as 255: refused as a fraction.
    let env = call("wide", r#"{"n": 1, "small": 254.99999999999999999}"#);
    assert_eq!(
        env["message"],
        "small: 254.99999999999999999 is not a whole number; accepted: a whole number from 0 to 255. Send a whole number, like 10."
    );
    // The schema's bounds for i128 and u128 are doubles inside what the reader accepts.
    let schema = tb.get("widest").unwrap().input_schema();
    assert_eq!(schema["properties"]["big"]["minimum"], json!(-1.7014118346046923e38));
    assert_eq!(schema["properties"]["big"]["maximum"], json!(1.7014118346046921e38));
    assert_eq!(schema["properties"]["huge"]["minimum"], json!(0));
    assert_eq!(schema["properties"]["huge"]["maximum"], json!(1.7014118346046921e38));
}

/// An object holding a wide integer.
#[derive(Object, Debug)]
#[allow(dead_code)] // read through Debug
struct Wide {
    big: i128,
    #[validate(range = 0..=300)]
    step: Option<u32>,
}

/// Containers of wide integers, which a lax tool also reads from a string holding them.
#[tool]
fn held(
    v: Option<Vec<i128>>,
    r: Option<Wide>,
    m: Option<std::collections::BTreeMap<String, i128>>,
    vu: Option<Vec<u64>>,
    big: Option<i128>,
) -> String {
    format!("{v:?} {r:?} {m:?} {vu:?} {big:?}")
}

/// A container sent as a string holding it is read with its numbers as sent, as the container
/// itself is: no digit lost to a double, no fraction read as whole, every refusal quoting them.
#[test]
fn a_container_held_in_a_string_keeps_its_numbers_as_sent() {
    let tb = Toolbox::new().with(held::tool());
    let call = |args: &str| block_on(tb.call_json("held", args)).unwrap().to_value();
    for (args, read) in [
        (r#"{"v": "[36893488147419103233]"}"#, "Some([36893488147419103233]) None None None None"),
        (
            r#"{"r": "{\"big\": 36893488147419103233}"}"#,
            "None Some(Wide { big: 36893488147419103233, step: None }) None None None",
        ),
        (r#"{"m": "{\"x\": 36893488147419103233}"}"#, "None None Some({\"x\": 36893488147419103233}) None None"),
        (r#"{"vu": "[1.8446744073709550e19]"}"#, "None None None Some([18446744073709550000]) None"),
        // The arguments themselves sent as a string.
        (r#""{\"big\": 36893488147419103233}""#, "None None None None Some(36893488147419103233)"),
    ] {
        assert_eq!(call(args)["data"], read, "{args}");
    }
    for (args, message) in [
        (r#"{"v": "[254.99999999999999999]"}"#, "v[0]: 254.99999999999999999 is not a whole number"),
        (
            r#"{"r": "{\"big\": 1, \"step\": 254.99999999999999999}"}"#,
            "r.step: 254.99999999999999999 is not a whole number",
        ),
    ] {
        let env = call(args);
        assert!(env["message"].as_str().unwrap().starts_with(message), "{args}: {env}");
    }
}

/// Single-precision numbers.
#[tool]
fn single(
    #[validate(range = 0.0..=0.1)] up_to: Option<f32>,
    #[validate(range = 0.0..1.0)] below: Option<f32>,
    any: Option<f32>,
) -> String {
    format!("{up_to:?} {below:?} {any:?}")
}

/// An `f32` is read within its rules as the function gets it (rounded), and its schema accepts
/// nothing the reader refuses: bounds past `f32::MAX` are stated, an exclusive bound is the
/// largest `f32` below it.
#[test]
fn an_f32_schema_accepts_only_what_its_reader_does() {
    let tb = Toolbox::new().with(single::tool());
    let schema = Value::Object(tb.get("single").unwrap().input_schema());
    let props = &schema["properties"];
    assert_eq!(
        props["any"],
        json!({"type": "number", "minimum": -f64::from(f32::MAX), "maximum": f64::from(f32::MAX)})
    );
    assert_eq!(props["below"], json!({"type": "number", "minimum": 0.0, "maximum": f64::from(1.0f32.next_down())}));
    assert_eq!(props["up_to"], json!({"type": "number", "minimum": 0.0, "maximum": 0.1}));
    let validator = jsonschema::draft202012::new(&schema).expect("a valid inputSchema");
    for (args, read) in [
        (json!({"up_to": 0.1}), Some("Some(0.1) None None")),
        (json!({"below": 0.99999994}), Some("None Some(0.99999994) None")),
        (json!({"below": 0.99999999}), None),
        (json!({"below": 1.0}), None),
        (json!({"any": 3.4e38}), Some("None None Some(3.4e38)")),
        (json!({"any": 1e39}), None),
        (json!({"any": -1e39}), None),
    ] {
        let env = run(&tb, "single", args.clone());
        assert_eq!(env["data"].as_str(), read, "{args}: {env}");
        assert_eq!(validator.is_valid(&args), read.is_some(), "the schema on {args}");
    }
}

/// Numbers under rules, strict.
#[tool(strict)]
fn counted(
    small: Option<u8>,
    #[validate(range = 0.0..1.0)] ratio: Option<f64>,
    #[validate(range = 1..=50, multiple_of = 5)] limit: Option<u32>,
    label: Option<String>,
) -> bool {
    let _ = (small, ratio, limit, label);
    true
}

/// A fix, followed as written, is accepted: a number sent as a string is offered back as a
/// number only when that number is accepted, a value out of range with a step is told the step,
/// and a number sent for a string is quoted with its characters as sent.
#[test]
fn a_fix_followed_as_written_is_accepted() {
    let tb = Toolbox::new().with(counted::tool());
    let call = |args: &str| block_on(tb.call_json("counted", args)).unwrap().to_value();
    for (args, fix, follow) in [
        (r#"{"small": "500"}"#, "Send a JSON number, like 10.", r#"{"small": 10}"#),
        (r#"{"small": "200"}"#, "Send it as a JSON number, like 200.", r#"{"small": 200}"#),
        (r#"{"ratio": "5"}"#, "Send a JSON number, like 0.", r#"{"ratio": 0}"#),
        (r#"{"ratio": "0.5"}"#, "Send it as a JSON number, like 0.5.", r#"{"ratio": 0.5}"#),
        (r#"{"limit": "7"}"#, "Send a JSON number, like 10.", r#"{"limit": 10}"#),
        (r#"{"limit": 52}"#, "Send a multiple of 5 from 1 to 50.", r#"{"limit": 50}"#),
        (r#"{"label": 1e2}"#, "Send it as a JSON string, like \"1e2\".", r#"{"label": "1e2"}"#),
        (
            r#"{"label": 100000000000000000000}"#,
            "Send it as a JSON string, like \"100000000000000000000\".",
            r#"{"label": "100000000000000000000"}"#,
        ),
    ] {
        let env = call(args);
        assert_eq!(env["hints"]["fix"], fix, "{args}: {env}");
        assert_eq!(call(follow)["status"], "ok", "{follow}");
    }
}

#[derive(Object, Debug)]
#[allow(dead_code)] // read only to be refused
struct Creds {
    #[validate(secret)]
    token: String,
    user: String,
}

/// Secrets in every place a value can be quoted from.
#[tool(strict)]
fn vault(
    #[validate(secret, excludes = "creds")] key: Option<String>,
    creds: Option<Creds>,
    #[validate(each(secret))] backups: Option<Vec<String>>,
    #[validate(requires(pin, when = "reset"))] mode: Option<String>,
    #[validate(secret, excludes = "mode")] pin: Option<String>,
) -> bool {
    let _ = (key, creds, backups, mode, pin);
    true
}

#[test]
fn a_secret_is_never_quoted_from_any_place() {
    let tb = Toolbox::new().with(vault::tool());
    let cases = [
        json!({"key": "LEAK-1", "creds": {"token": "LEAK-2", "user": "bob"}}),
        json!({"creds": "{\"token\":\"LEAK-3\",\"user\":\"bob\"}"}),
        json!({"creds": ["LEAK-4", "bob"]}),
        json!({"backups": "LEAK-5"}),
        json!({"backups": {"a": "LEAK-6"}}),
        json!({"backups": [1, "LEAK-7"]}),
        json!({"mode": "reset", "pin": "LEAK-8"}),
        json!("{\"key\": \"LEAK-9\"}"),
        json!(["LEAK-10"]),
    ];
    for args in cases {
        let env = run(&tb, "vault", args.clone());
        assert_eq!(env["status"], "invalid", "{args}: {env}");
        assert!(!env.to_string().contains("LEAK"), "{args} leaked: {env}");
    }
    let env = block_on(tb.call_json("vault", r#"{"pin": "LEAK\ud800"}"#)).unwrap().to_value();
    assert!(!env.to_string().contains("LEAK"), "{env}");
}

#[test]
fn arguments_nested_127_deep_are_read_field_by_field() {
    // The object as a whole is past JSON parsing's 128 levels; each field alone is not.
    let tb = crate::tools::toolbox();
    let deep = format!("{}{}", "[".repeat(127), "]".repeat(127));
    assert!(serde_json::from_str::<Value>(&format!(r#"{{"top": {deep}}}"#)).is_err());
    let args = format!(r#"{{"hours_back": 24, "group_by": "database", "top": {deep}}}"#);
    let env = block_on(tb.call_json("get_top_queries", &args)).unwrap().to_value();
    assert_eq!(env["hints"]["parameter"], "top", "{env}");
    assert_eq!(env["hints"]["accepted"], "a whole number from 1 to 100", "{env}");
    let args = format!(r#"{{"hours_back": 24, "group_by": "database", "x": {}{}}}"#, "[".repeat(300), "]".repeat(300));
    let env = block_on(tb.call_json("get_top_queries", &args)).unwrap().to_value();
    assert_eq!(
        env["message"],
        "x: \"x\" is not a parameter of get_top_queries; accepted: hours_back, group_by, top. Remove it."
    );
}

/// Integer literals past `i32` in a declaration: rustc typed them `i32` ("literal out of range
/// for `i32`") when they made the schema's `default` and a `requires` value.
#[tool]
fn wide_literals(
    #[validate(default = 9223372036854775807)] cap: i64,
    #[validate(requires(quota = 3000000000, when = 18446744073709551615))] plan: Option<u64>,
    quota: Option<u32>,
) -> i64 {
    let _ = (plan, quota);
    cap
}

#[test]
fn integer_literals_past_i32_are_declared_as_written() {
    let tool = wide_literals::tool();
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["cap"]["default"], json!(9223372036854775807_i64));
    let tb = Toolbox::new().with(tool);
    assert_eq!(run(&tb, "wide_literals", json!({}))["data"], json!(i64::MAX));
    let env = run(&tb, "wide_literals", json!({"plan": 18446744073709551615_u64}));
    assert_eq!(env["status"], "invalid", "{env}");
    assert!(env["message"].as_str().unwrap().contains("3000000000"), "{env}");
    assert_eq!(
        run(&tb, "wide_literals", json!({"plan": 18446744073709551615_u64, "quota": 3000000000_u32}))["status"],
        "ok"
    );
}
