//! Maps as parameter types (`BTreeMap<String, T>`, `HashMap<String, T>`): the schema they
//! advertise, the values they read, each refusal a caller sees (a value named by its key), and
//! the typed reading answering every input as the general one does, from text and from a
//! parsed `Value`.

use std::collections::{BTreeMap, HashMap};

use envelope_core::{Object, Toolbox, tool};
use serde_json::{Value, json};

use crate::block_on;

/// A limit of one resource.
#[derive(Object, Debug)]
pub struct Quota {
    /// Most units.
    #[validate(range = 1..=64)]
    pub max: u32,
    /// Weights, by host.
    #[validate(each(range = 1..=9))]
    pub weights: Option<BTreeMap<String, u8>>,
}

/// Labels a deployment.
#[tool]
fn label(
    /// Labels, by name.
    #[validate(length = 1..=3, each(length = 1..=8))]
    labels: BTreeMap<String, String>,
    /// Limits, by resource.
    limits: Option<HashMap<String, u32>>,
    /// Quotas, by team.
    quotas: Option<BTreeMap<String, Quota>>,
) -> Value {
    let limits: Option<BTreeMap<String, u32>> = limits.map(|l| l.into_iter().collect());
    let quotas: Option<BTreeMap<String, Value>> =
        quotas.map(|q| q.into_iter().map(|(k, v)| (k, json!([v.max, v.weights]))).collect());
    json!({"labels": labels, "limits": limits, "quotas": quotas})
}

/// Labels a deployment, refusing a string that holds the object.
#[tool(strict)]
fn label_strict(
    /// Labels, by name.
    labels: HashMap<String, String>,
    /// Tokens, by service: never shown back.
    #[validate(secret, each(length = 8..=8))]
    tokens: Option<HashMap<String, String>>,
) -> usize {
    labels.len() + tokens.map_or(0, |t| t.len())
}

fn toolbox() -> Toolbox {
    Toolbox::new().with(label::tool()).with(label_strict::tool())
}

fn call(args: &str) -> Value {
    block_on(toolbox().call_json("label", args)).expect("a known tool").to_value()
}

fn message(args: &str) -> String {
    call(args)["message"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn a_map_advertises_an_object_of_any_keys() {
    let schema = toolbox().get("label").unwrap().input_schema();
    assert_eq!(
        schema["properties"]["labels"],
        json!({
            "type": "object",
            "description": "Labels, by name.",
            "minProperties": 1,
            "maxProperties": 3,
            "additionalProperties": {"type": "string", "minLength": 1, "maxLength": 8}
        })
    );
    assert_eq!(
        schema["properties"]["limits"],
        json!({
            "type": "object",
            "description": "Limits, by resource.",
            "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u32}
        })
    );
    assert_eq!(schema["properties"]["quotas"]["additionalProperties"]["properties"]["max"]["maximum"], 64);
    assert_eq!(schema["required"], json!(["labels"]));
}

#[test]
fn a_map_reads_every_entry() {
    let ok = call(r#"{"labels":{"env":"prod","team":"core"},"limits":{"cpu":4},"quotas":{"web":{"max":8}}}"#);
    assert_eq!(ok["status"], "ok");
    assert_eq!(
        ok["data"],
        json!({"labels": {"env": "prod", "team": "core"}, "limits": {"cpu": 4}, "quotas": {"web": [8, null]}})
    );
}

#[test]
fn a_refused_value_is_named_by_its_key() {
    let refused = call(r#"{"labels":{"env":"production"}}"#);
    assert_eq!(
        refused["message"],
        "labels[\"env\"]: \"production\" is 10 characters long; accepted: a string of 1 to 8 characters. \
         Shorten it to at most 8 characters."
    );
    assert_eq!(refused["hints"]["parameter"], "labels");
    assert_eq!(refused["hints"]["path"], "labels[\"env\"]");
    assert_eq!(refused["hints"]["rejected"], "\"production\"");
    assert_eq!(
        message(r#"{"labels":{"a":"b"},"limits":{"cpu":-1}}"#),
        "limits[\"cpu\"]: -1 is out of range; accepted: a whole number from 0 to 4294967295. \
         Send a value from 0 to 4294967295."
    );
    assert_eq!(
        message(r#"{"labels":{"a":"b"},"quotas":{"web":{"max":0}}}"#),
        "quotas[\"web\"].max: 0 is out of range; accepted: a whole number from 1 to 64. Send a value from 1 to 64."
    );
}

#[test]
fn a_map_in_an_object_in_a_map_is_named_by_every_step() {
    assert_eq!(
        message(r#"{"labels":{"a":"b"},"quotas":{"web":{"max":8,"weights":{"h1":3,"h2":10}}}}"#),
        "quotas[\"web\"].weights[\"h2\"]: 10 is out of range; accepted: a whole number from 1 to 9. \
         Send a value from 1 to 9."
    );
}

/// A key sent twice is named the way a refused value there is: a map's key in brackets, a
/// field after a dot, whatever the depth.
#[test]
fn a_key_sent_twice_is_named_by_the_declared_steps() {
    let path = |args: &str| call(args)["hints"]["path"].clone();
    assert_eq!(path(r#"{"labels":{"env":"a","env":"b"}}"#), "labels[\"env\"]");
    assert_eq!(path(r#"{"labels":{"a":"b"},"quotas":{"web":{"max":8,"max":9}}}"#), "quotas[\"web\"].max");
    assert_eq!(
        path(r#"{"labels":{"a":"b"},"quotas":{"web":{"max":8,"weights":{"h1":3,"h1":4}}}}"#),
        "quotas[\"web\"].weights[\"h1\"]"
    );
    assert_eq!(
        message(r#"{"labels":{"env":"a","env":"b"}}"#),
        "labels[\"env\"]: \"env\": \"a\", \"env\": \"b\" sends the same key twice; accepted: each key once, \"env\" \
         with one value. Send \"env\" once, with the one value you mean."
    );
}

#[test]
fn a_secret_map_shows_none_of_its_values() {
    let refused =
        block_on(toolbox().call_json("label_strict", r#"{"labels":{},"tokens":{"ci":"hunter2-hunter2"}}"#)).unwrap();
    let text = refused.to_json();
    assert!(!text.contains("hunter2"), "{text}");
    assert_eq!(
        refused.message().unwrap(),
        "tokens[…]: the value sent (secret, not shown) is 15 characters long; accepted: a string of exactly 8 \
         characters. Send exactly 8 characters."
    );
}

#[test]
fn a_map_s_count_and_shape_are_refused_with_the_accepted_set() {
    assert_eq!(
        message(r#"{"labels":{}}"#),
        "labels: {} has 0 entries; accepted: an object of 1 to 3 entries, each value a string of 1 to 8 \
         characters. Send at least 1 entry."
    );
    assert_eq!(
        message(r#"{"labels":{"a":"1","b":"2","c":"3","d":"4"}}"#),
        "labels: {\"a\":\"1\",\"b\":\"2\",\"c\":\"3\",\"d\":\"4\"} has 4 entries; accepted: an object of 1 to 3 \
         entries, each value a string of 1 to 8 characters. Send at most 3 entries."
    );
    assert_eq!(
        message(r#"{"labels":["env"]}"#),
        "labels: [\"env\"] is an array; accepted: an object of 1 to 3 entries, each value a string of 1 to 8 \
         characters. Send a JSON object."
    );
    assert_eq!(
        message(r#"{"labels":{"a":"b"},"limits":7}"#),
        "limits: 7 is a number; accepted: an object whose values are whole numbers. Send a JSON object, like {}."
    );
}

#[test]
fn refused_values_past_three_are_counted_by_key() {
    let refused = call(r#"{"labels":{"a":"b"},"limits":{"a":-1,"b":-2,"c":-3,"d":-4,"e":-5}}"#);
    // A problem of the map as a whole has no path of its own: its parameter is its place.
    let others: Vec<&str> = refused["hints"]["others"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["path"].as_str().or(o["parameter"].as_str()).unwrap_or_default())
        .collect();
    assert_eq!(refused["hints"]["path"], "limits[\"a\"]");
    assert_eq!(others, ["limits[\"b\"]", "limits[\"c\"]", "limits"]);
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .ends_with("limits: has 2 more refused values (limits[\"d\"], limits[\"e\"]); accepted: a whole number from 0 to 4294967295. Fix those values the same way."),
        "{}",
        refused["message"]
    );
}

#[test]
fn a_key_in_a_path_is_a_json_string_cut_to_64_characters() {
    let quoted = call(r#"{"labels":{"say \"hi\"\n":"far too long"}}"#);
    assert_eq!(quoted["hints"]["path"], "labels[\"say \\\"hi\\\"\\n\"]");
    let long = "k".repeat(100);
    let cut = call(&format!(r#"{{"labels":{{"{long}":"far too long"}}}}"#));
    assert_eq!(cut["hints"]["path"], format!("labels[\"{}…\"]", "k".repeat(64)));
}

#[test]
fn a_string_holding_the_object_is_read_in_lax_mode_and_refused_in_strict_mode() {
    let lax = call(r#"{"labels":"{\"env\":\"prod\"}"}"#);
    assert_eq!(lax["data"]["labels"], json!({"env": "prod"}));
    let strict =
        block_on(toolbox().call_json("label_strict", r#"{"labels":"{\"env\":\"prod\"}"}"#)).unwrap().to_value();
    assert_eq!(
        strict["message"],
        "labels: \"{\\\"env\\\":\\\"prod\\\"}\" is a string holding an object; accepted: an object whose values are \
         strings. Send the object itself, like {…}, not a string holding it."
    ); // A key sent twice in the string is never read as its last value: the string is refused as
    // a string, and the object sent in its place has its key refused by name.
    let twice = call(r#"{"labels":"{\"env\":\"prod\",\"env\":\"dev\"}"}"#);
    assert_eq!(twice["status"], "invalid", "{twice}");
    assert_eq!(
        twice["message"],
        "labels: \"{\\\"env\\\":\\\"prod\\\",\\\"env\\\":\\\"dev\\\"}\" is a string; accepted: an object of 1 to 3 entries, each value a string of 1 to 8 characters. Send a JSON object."
    );
}

/// The typed reading (from text and from a `Value`) and the general one answer every input alike,
/// byte for byte.
#[test]
fn the_typed_reading_of_a_map_answers_as_the_general_one() {
    let typed = toolbox();
    let general = Toolbox::new().with(label::tool().__untyped()).with(label_strict::tool().__untyped());
    let inputs = [
        r#"{"labels":{"env":"prod"}}"#,
        r#"{"labels":{"env":"prod","team":"core","x":"y"},"limits":{"cpu":4,"mem":64}}"#,
        r#"{"labels":{"env":"prod","env":"dev"}}"#,
        r#"{"labels":{"env":"production"}}"#,
        r#"{"labels":{"a":"1","b":"2","c":"3","d":"4"}}"#,
        r#"{"labels":{}}"#,
        r#"{"labels":{"a":""}}"#,
        r#"{"labels":{"a":5}}"#,
        r#"{"labels":{"a":"b"},"limits":{"cpu":4.0}}"#,
        r#"{"labels":{"a":"b"},"limits":{"cpu":"4"}}"#,
        r#"{"labels":{"a":"b"},"limits":null}"#,
        r#"{"labels":{"a":"b"},"quotas":{"web":{"max":8},"db":{"max":65}}}"#,
        r#"{"labels":{"a":"b"},"quotas":{"web":{"max":8,"min":1}}}"#,
        r#"{"labels":"{\"env\":\"prod\"}"}"#,
        r#"{"labels":"{\"env\":\"prod\",\"env\":\"dev\"}"}"#,
        r#"{"labels":{"é":"ü"}}"#,
        r#"{"labels":{"a":"b"},"quotas":{"web":{"max":8,"weights":{"h1":3,"h2":10}}}}"#,
        r#"{"labels":{"a":"b"},"quotas":{"web":{"max":8,"weights":{"h1":3,"h1":4}}}}"#,
        r#"{"labels":{"a":"b"},"tokens":{"ci":"12345678"}}"#,
        r#"{"labels":{"a":"b"},"tokens":{"ci":"123"}}"#,
    ];
    for text in inputs {
        for name in ["label", "label_strict"] {
            let a = block_on(typed.call_json(name, text)).unwrap().to_json();
            let b = block_on(general.call_json(name, text)).unwrap().to_json();
            assert_eq!(a, b, "{name} {text}");
            if let Ok(v) = serde_json::from_str::<Value>(text) {
                let c = block_on(typed.call(name, Some(&v))).unwrap().to_json();
                let d = block_on(general.call(name, Some(&v))).unwrap().to_json();
                assert_eq!(c, d, "{name} {text} as a Value");
            }
        }
    }
}

/// A strict mode and Gemini's `parameters` cannot state an object of any keys: the export says
/// so and which export can; the others carry the map's schema (Gemini's JSON Schema states its
/// count of entries in words).
#[test]
fn a_map_is_exported_where_the_dialect_can_state_it() {
    use envelope_core::providers::{Export, Provider};
    let toolbox = toolbox();
    let tool = toolbox.get("label").unwrap();
    for (export, refusal) in [
        (
            Export::new(Provider::OpenAiChat),
            "label: OpenAI's strict mode cannot state an object of any keys (a map); this one has 4, counting those nested in other values. Export it with `non_strict()`.",
        ),
        (
            Export::new(Provider::Anthropic),
            "label: Anthropic's strict mode cannot state an object of any keys (a map); this one has 4, counting those nested in other values. Export it with `non_strict()`.",
        ),
        (
            Export::new(Provider::Gemini),
            "label: Gemini's `parameters` cannot state an object of any keys (a map); this one has 4, counting those nested in other values. Export it with `json_schema()`.",
        ),
    ] {
        assert_eq!(export.tool(tool).unwrap_err().to_string(), refusal);
    }
    let labels = json!({
        "type": "object",
        "description": "Labels, by name.",
        "minProperties": 1,
        "maxProperties": 3,
        "additionalProperties": {"type": "string", "minLength": 1, "maxLength": 8}
    });
    let openai = Export::new(Provider::OpenAiChat).non_strict().tool(tool).unwrap();
    assert_eq!(openai["function"]["parameters"]["properties"]["labels"], labels);
    let anthropic = Export::new(Provider::Anthropic).non_strict().tool(tool).unwrap();
    assert_eq!(anthropic["input_schema"]["properties"]["labels"], labels);
    let gemini = Export::new(Provider::Gemini).json_schema().tool(tool).unwrap();
    assert_eq!(
        gemini["parametersJsonSchema"]["properties"]["labels"],
        json!({
            "type": "object",
            "description": "Labels, by name. Must have from 1 to 3 entries.",
            "additionalProperties": {"type": "string", "minLength": 1, "maxLength": 8}
        })
    );
}

/// Past three described and a hundred counted, the values are not read: the refusal says how
/// many entries went unchecked.
#[test]
fn past_a_hundred_counted_values_the_rest_are_not_read() {
    let limits: Vec<String> = (0..105).map(|i| format!("\"k{i:03}\":-1")).collect();
    let refused = call(&format!(r#"{{"labels":{{"a":"b"}},"limits":{{{}}}}}"#, limits.join(",")));
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.ends_with(
            "limits: has at least 100 more refused values (limits[\"k003\"], limits[\"k004\"], limits[\"k005\"], \
             limits[\"k006\"], limits[\"k007\"], …); the 2 entries after them were not checked; accepted: a whole \
             number from 0 to 4294967295. Fix those values the same way, and check the rest likewise before \
             sending again."
        ),
        "{message}"
    );
}

/// Tags, at most three, each a lowercase word.
#[tool]
fn tag(
    /// Tags.
    #[validate(length = 1..=3, each(pattern = "^[a-z]+$"))]
    tags: Vec<String>,
    /// Tags, by owner.
    #[validate(length = ..=2, each(pattern = "^[a-z]+$"))]
    owners: Option<BTreeMap<String, String>>,
    /// Levels, by tag.
    #[validate(each(choices = [1, 2, 3]))]
    levels: Option<HashMap<String, u32>>,
) -> usize {
    tags.len() + owners.map_or(0, |o| o.len()) + levels.map_or(0, |l| l.len())
}

/// A count the rule refuses and items (or values) refused are named in one refusal: the count
/// first, then the refused items among those that fit the rule's most, so the next call can be
/// the last.
#[test]
fn a_count_and_its_items_are_refused_together() {
    let toolbox = Toolbox::new().with(tag::tool());
    let message =
        |args: &str| block_on(toolbox.call_json("tag", args)).unwrap().message().map(str::to_owned).unwrap_or_default();
    assert_eq!(
        message(r#"{"tags":["ok","Bad","fine","Worse","late"]}"#),
        "tags: [\"ok\",\"Bad\",\"fine\",\"Worse\",\"late\"] has 5 items; accepted: an array of 1 to 3 items, each \
         a string matching the pattern ^[a-z]+$. Send at most 3 items.\n\
         tags[1]: \"Bad\" does not match the pattern; accepted: a string matching the pattern ^[a-z]+$. Send a \
         string that matches ^[a-z]+$ in full."
    );
    assert_eq!(
        message(r#"{"tags":["a"],"owners":{"x":"A","y":"b","z":"c"}}"#),
        "owners: {\"x\":\"A\",\"y\":\"b\",\"z\":\"c\"} has 3 entries; accepted: an object of at most 2 entries, \
         each value a string matching the pattern ^[a-z]+$. Send at most 2 entries.\n\
         owners[\"x\"]: \"A\" does not match the pattern; accepted: a string matching the pattern ^[a-z]+$. Send \
         a string that matches ^[a-z]+$ in full."
    );
    // Integer choices on a map's values, checked against its value type as a `Vec`'s items are.
    assert_eq!(
        message(r#"{"tags":["a"],"levels":{"a":2,"b":4}}"#),
        "levels[\"b\"]: 4 is not an accepted value; accepted: one of 1, 2, 3. Send 3, the closest accepted value, or \
         another one listed."
    );
    // A count alone, and items alone, as before.
    assert!(message(r#"{"tags":[]}"#).starts_with("tags: [] has 0 items;"));
    assert!(message(r#"{"tags":["Bad"]}"#).starts_with("tags[0]: \"Bad\" does not match the pattern;"));
}

/// A login: its token is a secret.
#[derive(Object, Debug)]
#[allow(dead_code)] // read, never looked at: the tests look at the replies
pub struct Login {
    /// The token.
    #[validate(secret)]
    pub token: String,
    /// The user.
    pub user: String,
}

/// Stores logins, at most one.
#[tool]
fn vault(
    /// Logins, by name.
    #[validate(length = ..=1)]
    logins: Option<BTreeMap<String, Login>>,
    /// Tokens, by service.
    #[validate(each(secret))]
    tokens: Option<BTreeMap<String, String>>,
    /// Logins, listed.
    #[validate(length = ..=1)]
    listed: Option<Vec<Login>>,
) -> usize {
    logins.map_or(0, |l| l.len()) + tokens.map_or(0, |t| t.len()) + listed.map_or(0, |l| l.len())
}

/// Stores logins, strictly.
#[tool(strict)]
fn vault_strict(
    /// Logins, by name.
    logins: Option<BTreeMap<String, Login>>,
) -> usize {
    logins.map_or(0, |l| l.len())
}

/// A map (or array) of objects with a secret field, refused whole (its count, its type, a string
/// holding it), quotes nothing of what was sent.
#[test]
fn a_container_of_objects_with_a_secret_field_is_never_quoted() {
    let toolbox = Toolbox::new().with(vault::tool()).with(vault_strict::tool());
    for (name, text) in [
        ("vault", r#"{"logins":{"a":{"token":"LEAK","user":"u"},"b":{"token":"LEAK","user":"u"}}}"#),
        ("vault", r#"{"logins":["LEAK"]}"#),
        ("vault", r#"{"logins":"LEAK"}"#),
        ("vault", r#"{"listed":[{"token":"LEAK","user":"u"},{"token":"LEAK","user":"u"}]}"#),
        ("vault", r#"{"listed":"LEAK"}"#),
        ("vault_strict", r#"{"logins":"{\"a\":{\"token\":\"LEAK\",\"user\":\"u\"}}"}"#),
    ] {
        let reply = block_on(toolbox.call_json(name, text)).unwrap().to_json();
        assert!(reply.contains("\"status\":\"invalid\""), "{text}: {reply}");
        assert!(!reply.contains("LEAK"), "{text} leaked: {reply}");
    }
    let refused = block_on(
        toolbox.call_json("vault", r#"{"logins":{"a":{"token":"LEAK","user":"u"},"b":{"token":"LEAK","user":"u"}}}"#),
    )
    .unwrap();
    assert_eq!(
        refused.message().unwrap(),
        "logins: the value sent (secret, not shown) has 2 entries; accepted: an object of at most 1 entry, each value \
         an object with the keys \"token\", \"user\". Send at most 1 entry."
    );
}

/// An audit record (and a confirmation's preview) keeps no secret inside a map, an array or an
/// object: each is replaced, the rest kept.
#[test]
fn an_audit_record_keeps_no_secret_inside_an_argument() {
    use envelope_core::call::audit::{Audit, AuditFuture, AuditRecord, AuditSink};
    use std::sync::{Arc, Mutex};

    #[derive(Debug, Default)]
    struct Kept(Mutex<Vec<Value>>);
    impl AuditSink for Kept {
        fn write<'a>(&'a self, record: &'a AuditRecord) -> AuditFuture<'a> {
            Box::pin(async move {
                self.0.lock().unwrap().push(serde_json::from_str(&record.to_json()).unwrap());
                Ok(())
            })
        }
    }

    let sink = Arc::new(Kept::default());
    let toolbox = Toolbox::new().with(vault::tool()).with_audit(Audit::new(sink.clone()));
    let text = r#"{"tokens":{"ci":"LEAK-1"},"logins":{"a":{"token":"LEAK-2","user":"u"}},"listed":[{"token":"LEAK-3","user":"v"}]}"#;
    let reply = block_on(toolbox.call_json("vault", text)).unwrap().to_json();
    assert!(reply.starts_with(r#"{"status":"ok""#), "{reply}");
    let records = sink.0.lock().unwrap();
    assert!(!records.is_empty());
    for record in records.iter() {
        assert!(!record.to_string().contains("LEAK"), "{record}");
        if let Some(arguments) = record.get("arguments") {
            assert_eq!(
                arguments,
                &json!({
                    "tokens": {"ci": "(secret, not shown)"},
                    "logins": {"a": {"token": "(secret, not shown)", "user": "u"}},
                    "listed": [{"token": "(secret, not shown)", "user": "v"}]
                })
            );
        }
    }
}

/// Sums a large map.
#[tool]
fn big(
    /// Counts.
    #[validate(length = ..=200_000)]
    m: HashMap<String, u32>,
) -> usize {
    m.len()
}

/// Past 4,096 keys an object of the text is refused whole by the general reading: the typed
/// reading of a map declines there too, so every path answers alike.
#[test]
fn a_map_past_4096_entries_is_answered_alike_on_every_path() {
    let text = |n: usize| {
        let body: Vec<String> = (0..n).map(|i| format!("\"key{i}\":{}", i % 10)).collect();
        format!(r#"{{"m":{{{}}}}}"#, body.join(","))
    };
    let typed = Toolbox::new().with(big::tool());
    let general = Toolbox::new().with(big::tool().__untyped());
    for n in [4096, 4097] {
        let a = block_on(typed.call_json("big", &text(n))).unwrap().to_json();
        let b = block_on(general.call_json("big", &text(n))).unwrap().to_json();
        assert_eq!(a, b, "{n} entries");
        assert_eq!(a.starts_with(r#"{"status":"ok""#), n == 4096, "{n}: {}", &a[..200.min(a.len())]);
    }
}

/// Stores keys: a secret map.
#[tool]
fn keyring(
    /// Keys, by name: names and values both secret.
    #[validate(secret, each(range = 1..=9))]
    keys: BTreeMap<String, u8>,
) -> usize {
    keys.len()
}

/// A secret map's keys are part of its secret: a refused value is named `keys[…]`.
#[test]
fn the_keys_of_a_secret_map_are_not_shown() {
    let toolbox = Toolbox::new().with(keyring::tool());
    for text in [r#"{"keys":{"sk-LEAK":300}}"#, r#"{"keys":{"sk-LEAK1":30,"sk-LEAK2":30,"sk-LEAK3":30,"sk-LEAK4":30}}"#]
    {
        let reply = block_on(toolbox.call_json("keyring", text)).unwrap();
        let json = reply.to_json();
        assert!(!json.contains("LEAK"), "{text} leaked: {json}");
        assert!(reply.message().unwrap().starts_with("keys[…]: the value sent (secret, not shown) "), "{json}");
    }
    // A key sent twice: neither the key nor its values shown.
    let reply = block_on(toolbox.call_json("keyring", r#"{"keys":{"sk-LEAK":1,"sk-LEAK":2}}"#)).unwrap().to_value();
    assert!(!reply.to_string().contains("LEAK"), "{reply}");
    assert_eq!(reply["hints"]["path"], "keys[…]", "{reply}");
    assert_eq!(reply["hints"]["fix"], "Send each key once, with the one value you mean.");
}
