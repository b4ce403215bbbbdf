//! Argument reading through the toolbox: each kind of problem, with the message a user sees.

use serde_json::json;

use crate::call;

fn message(tool: &str, args: serde_json::Value) -> String {
    let env = call(tool, args);
    assert_eq!(env["status"], "invalid", "{env:#}");
    env["message"].as_str().unwrap().to_owned()
}

#[test]
fn wrong_type_says_send_a_json_number() {
    assert_eq!(
        message("get_top_queries", json!({"hours_back": 24, "group_by": "database", "top": "ten"})),
        "top: \"ten\" is a string; accepted: a whole number from 1 to 100. Send it as a JSON number, like 10."
    );
}

#[test]
fn missing_parameters_are_all_named() {
    assert_eq!(
        message("get_top_queries", json!({})),
        "hours_back: required, but not sent; accepted: a whole number from 1 to 720. Add \"hours_back\" to the arguments, like \"hours_back\": 10.\n\
         group_by: required, but not sent; accepted: one of \"query_hash\", \"database\", \"application\". Add \"group_by\" to the arguments, like \"group_by\": \"query_hash\"."
    );
}

#[test]
fn unknown_parameter_is_refused_with_the_closest_name() {
    assert_eq!(
        message("get_top_queries", json!({"hours": 48, "group_by": "database"})),
        "hours: \"hours\" is not a parameter of get_top_queries; accepted: hours_back, group_by, top. Did you mean \"hours_back\"? Rename \"hours\" to \"hours_back\"."
    );
}

#[test]
fn float_range_states_the_excluded_bound() {
    assert_eq!(
        message("set_threshold", json!({"ratio": 1.0, "api_key": "sk-abcdefghijklmnop1234"})),
        "ratio: 1.0 is out of range; accepted: a number from 0 up to but not including 1. Send a value from 0 up to but not including 1."
    );
}

#[test]
fn secret_is_never_echoed() {
    let env = call("set_threshold", json!({"ratio": 0.5, "api_key": 123456789}));
    let text = env.to_string();
    assert!(!text.contains("123456789"), "{text}");
    assert_eq!(
        env["message"],
        "api_key: the value sent (secret, not shown) is a number; accepted: a string matching the pattern ^sk-[A-Za-z0-9]{16,64}$. Send a JSON string."
    );
    let env = call("set_threshold", json!({"ratio": 0.5, "api_key": "sk-short"}));
    assert!(!env.to_string().contains("sk-short"));
    assert!(env["hints"].get("rejected").is_none());
}

#[test]
fn non_object_arguments_are_refused() {
    assert_eq!(
        message("get_top_queries", json!([1, 2])),
        "arguments: [1,2] is an array, not an object; accepted: an object with the keys \"hours_back\", \"group_by\", \"top\". Send the arguments as a JSON object, like {\"hours_back\": 10, \"group_by\": \"query_hash\"}."
    );
}

#[test]
fn double_encoded_object_is_decoded_when_lax() {
    let env = call("get_top_queries", json!("{\"hours_back\": 24, \"group_by\": \"database\", \"top\": 1}"));
    assert_eq!(env["status"], "ok", "{env:#}");
}

#[test]
fn cross_field_combination_is_refused() {
    assert_eq!(
        message("search_analytics", json!({"dimension": "query", "data_state": "HOURLY_ALL"})),
        "dimension: \"query\" does not go with data_state \"HOURLY_ALL\"; accepted: \"hour\" when data_state is \"HOURLY_ALL\". Send dimension \"hour\", or change data_state."
    );
    // Absent, the default "ALL" applies: the same rule holds.
    assert_eq!(
        message("search_analytics", json!({"dimension": "hour"})),
        "data_state: was not sent, and its default \"ALL\" does not go with dimension \"hour\"; accepted: \"HOURLY_ALL\" when dimension is \"hour\". Send data_state \"HOURLY_ALL\", or change dimension."
    );
    assert_eq!(
        crate::call("search_analytics", json!({"dimension": "hour", "data_state": "HOURLY_ALL"}))["status"],
        "ok"
    );
}

#[test]
fn null_for_a_required_parameter_is_named() {
    assert_eq!(
        message("get_top_queries", json!({"hours_back": null, "group_by": "database"})),
        "hours_back: null is not accepted: this parameter is required; accepted: a whole number from 1 to 720. Send a value for \"hours_back\" instead of null, like \"hours_back\": 10."
    );
}

#[test]
fn a_panic_is_a_fault_without_internals() {
    use envelope_core::{Toolbox, tool};
    /// Always panics.
    #[tool]
    fn boom() -> u32 {
        panic!("secret internal detail: SELECT * FROM users")
    }
    let env = crate::block_on(Toolbox::new().with(boom::tool()).call("boom", None)).unwrap();
    assert_eq!(
        env.to_json(),
        r#"{"status":"error","success":false,"error_code":"BACKEND_ERROR","message":"boom failed: the server failed while serving a valid request. It may have taken effect: read the current state before calling again.","hints":{"operation":"boom"},"retryable":false,"retry":"after_reread"}"#
    );
}

#[test]
fn schema_carries_the_rules() {
    let toolbox = crate::tools::toolbox();
    let schema = serde_json::Value::Object(toolbox.get("get_top_queries").unwrap().input_schema());
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "hours_back": {"type": "integer", "description": "How far back to look, in hours.", "minimum": 1, "maximum": 720},
                "group_by": {"type": "string", "description": "What to group the statistics by.", "enum": ["query_hash", "database", "application"]},
                "top": {"type": "integer", "description": "How many rows to return.", "minimum": 1, "maximum": 100, "default": 10}
            },
            "required": ["hours_back", "group_by"],
            "additionalProperties": false
        })
    );
    let schema = serde_json::Value::Object(toolbox.get("set_threshold").unwrap().input_schema());
    assert_eq!(
        schema["properties"]["ratio"],
        json!({"type": "number", "description": "The share of failed calls that raises an alert.", "minimum": 0.0, "exclusiveMaximum": 1.0})
    );
    assert_eq!(schema["properties"]["api_key"]["writeOnly"], true);
}

#[test]
fn length_is_counted_in_characters_and_names_the_unit() {
    let title = "ü".repeat(121);
    assert_eq!(
        message("create_note", json!({ "title": title })),
        format!(
            "title: \"{}…\" (121 characters) is 121 characters long; accepted: a string of 1 to 120 characters. Shorten it to at most 120 characters.",
            "ü".repeat(32)
        )
    );
    assert_eq!(call("create_note", json!({ "title": "ü".repeat(120) }))["status"], "ok");
    assert_eq!(
        message("create_note", json!({ "title": "" })),
        "title: \"\" is 0 characters long; accepted: a string of 1 to 120 characters. Send at least 1 character."
    );
}

#[test]
fn every_failing_item_is_named_by_path_capped() {
    let tags = json!(["ok", "Bad Tag", "fine", "UPPER", "x y", "a_b", "c!d", "also-ok"]);
    assert_eq!(
        message("create_note", json!({ "title": "t", "tags": tags })),
        "tags[1]: \"Bad Tag\" does not match the pattern; accepted: a string matching the pattern ^[a-z0-9-]{1,32}$. Send a value of the same form as \"release-notes\".\n\
         tags[3]: \"UPPER\" does not match the pattern; accepted: a string matching the pattern ^[a-z0-9-]{1,32}$. Send a value of the same form as \"release-notes\".\n\
         tags[4]: \"x y\" does not match the pattern; accepted: a string matching the pattern ^[a-z0-9-]{1,32}$. Send a value of the same form as \"release-notes\".\n\
         tags: has 2 more refused items (tags[5], tags[6]); accepted: a string matching the pattern ^[a-z0-9-]{1,32}$. Fix those items the same way."
    );
    let env = call("create_note", json!({ "title": "t", "tags": tags }));
    assert_eq!(env["hints"]["parameter"], "tags");
    assert_eq!(env["hints"]["path"], "tags[1]");
}

#[test]
fn array_length_is_counted_in_items() {
    let tags: Vec<String> = (0..11).map(|i| format!("t{i}")).collect();
    assert_eq!(
        message("create_note", json!({ "title": "t", "tags": tags })),
        "tags: [\"t0\",\"t1\",\"t2\",\"t3\",\"t4\",\"t5\",\"… (cut; 11 items) has 11 items; accepted: an array of at most 10 items, each a string matching the pattern ^[a-z0-9-]{1,32}$. Send at most 10 items."
    );
}

#[test]
fn secret_pattern_refusal_does_not_echo() {
    let env = call("set_threshold", json!({"ratio": 0.5, "api_key": "sk-short"}));
    assert_eq!(
        env["message"],
        "api_key: the value sent (secret, not shown) does not match the pattern; accepted: a string matching the pattern ^sk-[A-Za-z0-9]{16,64}$. Send a string that matches ^sk-[A-Za-z0-9]{16,64}$ in full."
    );
}

#[test]
fn no_reply_exceeds_2_kb_however_large_the_input() {
    let huge = "x".repeat(100_000);
    let mut args = serde_json::Map::new();
    for i in 0..200 {
        args.insert(format!("{huge}{i}"), json!(huge));
    }
    let mut deep = json!([huge]);
    for _ in 0..100 {
        deep = json!([deep, huge]);
    }
    for (tool, extra) in [
        ("get_top_queries", json!({"hours_back": huge, "group_by": huge, "top": [huge]})),
        ("search_analytics", json!({"dimension": huge, "data_state": {"k": huge}, "row_limit": huge})),
        ("create_note", json!({"title": huge, "tags": vec![huge.clone(); 20], "pinned": huge})),
        ("create_note", json!({"title": "t", "tags": (0..10).map(|i| format!("{huge}{i}")).collect::<Vec<_>>()})),
        ("create_note", json!({"title": "t", "tags": deep})),
        ("set_threshold", json!({"ratio": huge, "api_key": huge})),
    ] {
        let mut all = args.clone();
        all.extend(extra.as_object().unwrap().clone());
        let env = call(tool, serde_json::Value::Object(all));
        let text = env.to_string();
        assert_eq!(env["status"], "invalid");
        assert!(text.len() <= 2048, "{tool}: {} bytes: {text}", text.len());
    }
}

#[test]
fn many_unknown_names_are_counted_not_listed() {
    let msg = message(
        "get_top_queries",
        json!({"hours_back": 1, "group_by": "database", "a": 1, "b": 2, "c": 3, "d": 4, "e": 5}),
    );
    assert_eq!(
        msg.lines().last().unwrap(),
        "arguments: 2 more names are not parameters of get_top_queries (\"d\", \"e\"); accepted: hours_back, group_by, top. Remove every name that is not listed as accepted."
    );
}

/// A trip: two required names a model misspells.
#[envelope_core::tool]
fn trip(from: String, to: String) -> String {
    format!("{from}-{to}")
}

fn trip_message(args: serde_json::Value) -> String {
    let toolbox = envelope_core::Toolbox::new().with(trip::tool());
    let env = crate::block_on(toolbox.call("trip", Some(&args))).unwrap().to_value();
    assert_eq!(env["status"], "invalid", "{env:#}");
    env["message"].as_str().unwrap().to_owned()
}

#[test]
fn a_misspelt_required_name_is_one_problem() {
    // `form` for `from`: the unknown name, with the rename; no second sentence for `from`.
    assert_eq!(
        trip_message(json!({"form": "AMS", "to": "LIS"})),
        "form: \"form\" is not a parameter of trip; accepted: from, to. Did you mean \"from\"? Rename \"form\" to \"from\"."
    );
    // A name close to none: the missing parameter is its own problem, as before.
    assert_eq!(
        trip_message(json!({"origin": "AMS", "to": "LIS"})),
        "from: required, but not sent; accepted: a string. Add \"from\" to the arguments.\n\
         origin: \"origin\" is not a parameter of trip; accepted: from, to. Remove it."
    );
}

/// Who wrote a note, and its rank among theirs.
#[derive(envelope_core::Object)]
struct NoteMeta {
    #[validate(length = 1..=5)]
    author: String,
    #[validate(range = 1..=9)]
    rank: u32,
}

/// Tags of a note: each of 1 to 5 characters.
#[envelope_core::tool]
fn label_note(
    #[validate(range = 1..=10)] priority: u32,
    #[validate(length = 1..=5)] title: String,
    #[validate(each(length = 1..=5))] tags: Vec<String>,
    #[validate(pattern = "^[a-z]+$")] owner: Option<String>,
    meta: Option<NoteMeta>,
) -> u32 {
    let meta = meta.map_or(0, |m| m.author.len() + m.rank as usize);
    priority + u32::try_from(title.len() + tags.len() + owner.map_or(0, |o| o.len()) + meta).unwrap_or(0)
}

/// Once a value is refused, the values after it are only checked (a string is not copied, an
/// array's items not kept): each of them is still refused as it would be alone, and accepted
/// ones add nothing, from the text and from a parsed `Value` alike.
#[test]
fn values_after_a_refused_one_are_still_each_checked() {
    let toolbox = envelope_core::Toolbox::new().with(label_note::tool());
    let refusal = |args: &serde_json::Value| {
        let text = crate::block_on(toolbox.call_json("label_note", &args.to_string())).unwrap();
        let held = crate::block_on(toolbox.call("label_note", Some(args))).unwrap();
        assert_eq!(text.to_json(), held.to_json(), "{args}");
        text.message().map(str::to_owned)
    };
    let priority = "priority: 0 is out of range; accepted: a whole number from 1 to 10. Send a value from 1 to 10.";
    let title = "title: \"too long\" is 8 characters long; accepted: a string of 1 to 5 characters. Shorten it to at most 5 characters.";
    let tag = "tags[1]: \"sixsix\" is 6 characters long; accepted: a string of 1 to 5 characters. Shorten it to at most 5 characters.";
    let owner = "owner: \"Ada\" does not match the pattern; accepted: a string matching the pattern ^[a-z]+$. Send a string that matches ^[a-z]+$ in full.";
    let author =
        "meta.author: \"\" is 0 characters long; accepted: a string of 1 to 5 characters. Send at least 1 character.";
    let rank = "meta.rank: 10 is out of range; accepted: a whole number from 1 to 9. Send a value from 1 to 9.";
    // Each later value refused alone, then after a refused `priority`: the same sentence, after
    // its.
    let cases = [
        (json!({"title": "too long", "tags": ["a"], "owner": "ada"}), title),
        (json!({"title": "ok", "tags": ["a", "sixsix"], "owner": "ada"}), tag),
        (json!({"title": "ok", "tags": ["a"], "owner": "Ada"}), owner),
        // An object after the refused value: its fields each checked too.
        (json!({"title": "ok", "tags": ["a"], "meta": {"author": "", "rank": 2}}), author),
        (json!({"title": "ok", "tags": ["a"], "meta": {"author": "ada", "rank": 10}}), rank),
    ];
    for (args, line) in cases {
        let mut alone = args.clone();
        alone["priority"] = json!(5);
        let alone = refusal(&alone).expect("refused");
        assert_eq!(alone, line);
        let mut after = args;
        after["priority"] = json!(0);
        assert_eq!(refusal(&after).expect("refused"), format!("{priority}\n{line}"));
    }
    // Every later value accepted: only `priority` is refused; all accepted: answered.
    let good = json!({"priority": 0, "title": "ok", "tags": ["a", "bb"], "owner": "ada", "meta": {"author": "ada", "rank": 2}});
    assert_eq!(refusal(&good).as_deref(), Some(priority));
    let answered = crate::block_on(toolbox.call_json(
        "label_note",
        &json!({"priority": 3, "title": "ok", "tags": ["a", "bb"], "owner": "ada", "meta": {"author": "ada", "rank": 2}})
            .to_string(),
    ))
    .unwrap();
    assert_eq!(answered.to_value()["data"], 3 + 2 + 2 + 3 + 3 + 2);
}

/// A refused value whose fix offers a choice that a `requires` of its own would then break: the
/// fix names what goes with it, so the call it leads to is served (`search_analytics`: "hour"
/// requires data_state "HOURLY_ALL", which requires dimension "hour").
#[test]
fn a_fix_that_offers_a_choice_names_what_the_choice_requires() {
    for (sent, fix, fixed) in [
        (
            json!({"dimension": "hours"}),
            "Send \"hour\", with data_state \"HOURLY_ALL\".",
            json!({"dimension": "hour", "data_state": "HOURLY_ALL"}),
        ),
        (
            json!({"dimension": "query", "data_state": "hourly_all"}),
            "Send \"HOURLY_ALL\", with dimension \"hour\".",
            json!({"dimension": "hour", "data_state": "HOURLY_ALL"}),
        ),
        // Nothing to add: "page" requires nothing, and "ALL" is the default.
        (json!({"dimension": "pages"}), "Send \"page\".", json!({"dimension": "page"})),
    ] {
        let refused = crate::call("search_analytics", sent.clone());
        assert_eq!(refused["hints"]["fix"], fix, "{sent}: {refused}");
        assert!(refused["message"].as_str().unwrap().ends_with(fix), "{refused}");
        assert_eq!(crate::call("search_analytics", fixed)["status"], "ok", "{sent}");
    }
}

/// A refused value whose closest choice another parameter's `requires` forbids: the fix offers
/// the value required instead, so the call it leads to is served (dimension "hour" requires
/// data_state "HOURLY_ALL"; "al" is closest to "ALL").
#[test]
fn a_fix_offers_the_choice_another_parameter_requires() {
    let refused = crate::call("search_analytics", json!({"dimension": "hour", "data_state": "al"}));
    assert_eq!(
        refused["message"],
        "data_state: \"al\" is not an accepted value; accepted: one of \"ALL\", \"HOURLY_ALL\". Did you mean \
         \"HOURLY_ALL\"? Send \"HOURLY_ALL\", which dimension \"hour\" requires, or change dimension.",
        "{refused}"
    );
    assert_eq!(refused["hints"]["suggestion"], "HOURLY_ALL");
    assert_eq!(
        crate::call("search_analytics", json!({"dimension": "hour", "data_state": "HOURLY_ALL"}))["status"],
        "ok"
    );
    // Without the requirement, the closest choice stays the offer.
    let refused = crate::call("search_analytics", json!({"dimension": "query", "data_state": "al"}));
    assert_eq!(refused["hints"]["fix"], "Send \"ALL\".", "{refused}");
    // A constraining value that was itself refused counts with the value its fix offers: the
    // two fixes agree (each names its own value), and followed together they are served.
    let refused = crate::call("search_analytics", json!({"dimension": "hourz", "data_state": "al"}));
    assert_eq!(refused["hints"]["fix"], "Send \"hour\".", "{refused}");
    assert_eq!(
        refused["hints"]["others"][0]["fix"],
        "Send \"HOURLY_ALL\", which dimension \"hour\" requires, or change dimension.",
        "{refused}"
    );
    // One refused with no value to offer constrains nothing.
    let refused = crate::call("search_analytics", json!({"dimension": 5, "data_state": "al"}));
    assert_eq!(refused["hints"]["others"][0]["fix"], "Send \"ALL\".", "{refused}");
}

/// A mode whose fast setting needs a high level, which needs the extra.
#[envelope_core::tool]
fn chained(
    /// Mode.
    #[validate(choices = ["slow", "fast"], requires(level = "high", when = "fast"))]
    mode: String,
    /// Level.
    #[validate(choices = ["low", "high"], default = "low", requires(extra = "yes", when = "high"))]
    level: String,
    /// Extra.
    #[validate(choices = ["no", "yes"], default = "no")]
    extra: String,
) -> String {
    format!("{mode} {level} {extra}")
}

/// The requirements a fix's choice brings are followed along their chain, each named once.
#[test]
fn a_fix_names_the_chain_of_requirements_its_choice_brings() {
    let toolbox = envelope_core::Toolbox::new().with(chained::tool());
    let call = |args: &str| crate::block_on(toolbox.call_json("chained", args)).unwrap().to_value();
    let refused = call(r#"{"mode":"fas"}"#);
    assert_eq!(refused["hints"]["fix"], "Send \"fast\", with level \"high\" and extra \"yes\".", "{refused}");
    assert_eq!(call(r#"{"mode":"fast","level":"high","extra":"yes"}"#)["status"], "ok");
    // A value sent already is not asked again: its own requirement is a problem of its own.
    let refused = call(r#"{"mode":"fas","level":"high"}"#);
    assert_eq!(refused["hints"]["fix"], "Send \"fast\".");
    assert_eq!(refused["hints"]["others"][0]["parameter"], "extra", "{refused}");
}

/// A count whose value 20 needs a small `n`.
#[envelope_core::tool]
fn paired(
    /// A count.
    #[validate(choices = [10, 20], requires(n = 2, when = 20))]
    i: u32,
    /// Its pair.
    n: Option<u32>,
) -> String {
    format!("{i} {n:?}")
}

/// In lax mode a value sent as a string holding a number reads as that number: the cross-field
/// rules see the number read, not the string sent (`"20"` triggered no `when = 20`, and `"2"`
/// did not meet `n = 2`).
#[test]
fn cross_field_rules_see_the_values_read_in_lax_mode() {
    let toolbox = envelope_core::Toolbox::new().with(paired::tool());
    let call = |args: &str| crate::block_on(toolbox.call_json("paired", args)).unwrap().to_value();
    let refused = call(r#"{"i":"20"}"#);
    assert_eq!(refused["status"], "invalid", "{refused}");
    assert_eq!(refused["hints"]["parameter"], "n", "{refused}");
    assert_eq!(call(r#"{"i":20,"n":"2"}"#)["data"], "20 Some(2)");
    assert_eq!(call(r#"{"i":"20","n":"2"}"#)["data"], "20 Some(2)");
    assert_eq!(call(r#"{"i":"10"}"#)["data"], "10 None");
}

/// A slug whose default its own pattern refuses: the macro does not run regexes.
#[envelope_core::tool]
fn slug_with_bad_default(
    /// The slug.
    #[validate(pattern = "^[a-z]+$", default = "ABC")]
    slug: String,
) -> String {
    slug
}

/// A default, example, `requires` value or `when` that a `pattern` or `format` refuses panics
/// when the tool is declared, naming it (the macro checks the other rules at compile time).
#[test]
fn a_default_its_pattern_refuses_panics_when_the_tool_is_declared() {
    let caught = std::panic::catch_unwind(slug_with_bad_default::tool).expect_err("the declaration panics");
    assert_eq!(
        caught.downcast_ref::<String>().map(String::as_str),
        Some(
            "tool \"slug_with_bad_default\", parameter \"slug\": the default \"ABC\" does not match its pattern \
             ^[a-z]+$; a caller who leaves it out would get a value the tool refuses"
        )
    );
}

/// A slug with a length and a pattern.
#[envelope_core::tool]
fn slug_rules(
    /// The slug.
    #[validate(length = 3..=20, pattern = "^[a-z][a-z0-9-]*$")]
    slug: String,
) -> String {
    slug
}

/// A string its length and its pattern both refuse: the refusal states the whole accepted set,
/// and its fix meets both, so the call it leads to is served.
#[test]
fn a_length_refusal_of_a_string_its_pattern_refuses_too_names_both() {
    let toolbox = envelope_core::Toolbox::new().with(slug_rules::tool());
    let call = |args: &str| crate::block_on(toolbox.call_json("slug_rules", args)).unwrap().to_value();
    let refused = call(r#"{"slug":"A"}"#);
    assert_eq!(
        refused["message"],
        "slug: \"A\" is 1 character long; accepted: a string of 3 to 20 characters matching the pattern \
         ^[a-z][a-z0-9-]*$. Send at least 3 characters, matching ^[a-z][a-z0-9-]*$ in full.",
        "{refused}"
    );
    assert_eq!(call(r#"{"slug":"abc"}"#)["status"], "ok");
    // Its length alone: the fix is the length's, the set still whole.
    let refused = call(r#"{"slug":"ab"}"#);
    assert_eq!(refused["hints"]["fix"], "Send at least 3 characters.", "{refused}");
    assert_eq!(refused["hints"]["accepted"], "a string of 3 to 20 characters matching the pattern ^[a-z][a-z0-9-]*$");
}

/// An address of a bounded length.
#[envelope_core::tool]
fn bounded_formats(
    /// At most 10 characters.
    #[validate(format = "email", length = ..=10)]
    short: Option<String>,
    /// At least 20 characters.
    #[validate(format = "email", length = 20..=40)]
    long: Option<String>,
    /// At the company's domain.
    #[validate(format = "email", pattern = "@acme\\.com$")]
    work: Option<String>,
) -> String {
    format!("{short:?} {long:?} {work:?}")
}

/// A string its `format` refuses, under a `length` or `pattern` the format's own example breaks:
/// the accepted set states the length, and the fix offers no value those rules refuse.
#[test]
fn a_format_fix_meets_the_length_and_pattern_beside_it() {
    let toolbox = envelope_core::Toolbox::new().with(bounded_formats::tool());
    let call =
        |args: serde_json::Value| crate::block_on(toolbox.call("bounded_formats", Some(&args))).unwrap().to_value();
    let refused = call(json!({"short": "a".repeat(20)}));
    assert_eq!(
        refused["message"],
        "short: \"aaaaaaaaaaaaaaaaaaaa\" is 20 characters long; accepted: an email address of at most 10 characters. \
         Send an email address of at most 10 characters.",
        "{refused}"
    );
    assert_eq!(call(json!({"short": "a@b.co"}))["status"], "ok");
    let refused = call(json!({"long": "x"}));
    assert_eq!(refused["hints"]["fix"], "Send an email address of 20 to 40 characters.", "{refused}");
    assert_eq!(refused["hints"]["accepted"], "an email address of 20 to 40 characters");
    let refused = call(json!({"work": "a b@acme.com"}));
    assert_eq!(
        refused["hints"]["fix"], "Send an address like \"ada@example.com\", ending with a match for @acme\\.com$.",
        "{refused}"
    );
    assert_eq!(call(json!({"work": "ada@acme.com"}))["status"], "ok");
}
