//! `call_json` reads the usual arguments (an object of scalars) in one pass over the text, and
//! everything else through a parsed `serde_json::Value` and a scan of the text. The two paths
//! answer alike: a property test sends random argument texts to every example tool twice, once
//! as generated and once with the first key written with a `\u` escape (the same key to JSON;
//! the one-pass reader leaves it to the general path), and compares the envelopes byte for
//! byte. Values cover every scalar form a model sends: integers at and past 64 bits, `-0`,
//! exponents, fractions with trailing zeros, numeric strings, escapes, `null`, booleans, long
//! strings, unknown names and keys sent twice.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use crate::{block_on, tools};

pub(crate) const VALUES: &[&str] = &[
    "0",
    "1",
    "5",
    "10",
    "48",
    "100",
    "101",
    "720",
    "721",
    "-1",
    "-3",
    "-0",
    "1e3",
    "1E2",
    "48.0",
    "1.50",
    "0.5",
    "0.25",
    "2.5e-1",
    "1e400",
    "-1e-400",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "\"48\"",
    "\"0.5\"",
    "\"true\"",
    "\"database\"",
    "\"databse\"",
    "\"query_hash\"",
    "\"Database\"",
    "\"hour\"",
    "\"day\"",
    "\"a\\u0062c\"",
    "\"tab\\there\"",
    "\"\"",
    "\"x\"",
    "\"note-123\"",
    "\"\\ud83d\\ude00\"",
    "\"é\"",
    "true",
    "false",
    "null",
];

pub(crate) fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => proptest::sample::select(VALUES).prop_map(str::to_owned),
        1 => "[a-z _.@-]{0,60}".prop_map(|s| format!("\"{s}\"")),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{f:e}")),
    ]
}

pub(crate) fn ws() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(&["", " ", "\n  ", "\t"][..])
}

#[test]
fn one_pass_and_general_path_answer_alike() {
    // Two toolboxes, each sent the same calls in the same order: their state stays alike.
    let (toolbox, twin) = (tools::toolbox(), tools::toolbox());
    let tools: Vec<(String, Vec<&'static str>)> = toolbox
        .tools()
        .iter()
        // A confirmation's id and a key's record are new on every call: nothing to compare.
        .filter(|t| !t.spec().needs_confirmation && !t.spec().idempotency_key)
        .map(|t| (t.name().to_owned(), t.spec().params.iter().map(|p| p.name).collect::<Vec<_>>()))
        .filter(|(_, names)| !names.is_empty())
        .collect();
    let mut runner = TestRunner::new(Config { cases: 3000, ..Config::default() });
    let members = proptest::collection::vec((0..8usize, value(), ws(), ws()), 1..6);
    let tool = 0..tools.len();
    runner
        .run(&(tool, members), |(t, members)| {
            let (name, params) = &tools[t];
            // Indices past the parameters name a near miss, an unknown name; repeats are keys sent twice.
            let key = |i: usize| match params.get(i) {
                Some(p) => (*p).to_owned(),
                None if i.is_multiple_of(2) => format!("{}s", params[0]),
                None => "extra".to_owned(),
            };
            let body: Vec<String> =
                members.iter().map(|(i, v, a, b)| format!("{a}\"{}\"{b}:{a}{v}{b}", key(*i))).collect();
            let text = format!("{{{}}}", body.join(","));
            // The same text with the first key's first letter escaped.
            let first = key(members[0].0);
            let c = first.chars().next().unwrap();
            let escaped = text.replacen(&format!("\"{first}\""), &format!("\"\\u{:04x}{}\"", c as u32, &first[1..]), 1);
            prop_assert_ne!(&text, &escaped);
            let one_pass = block_on(toolbox.call_json(name, &text)).expect("a known tool").to_json();
            let general = block_on(twin.call_json(name, &escaped)).expect("a known tool").to_json();
            prop_assert_eq!(one_pass, general, "{} {}", name, text);
            Ok(())
        })
        .unwrap();
}
