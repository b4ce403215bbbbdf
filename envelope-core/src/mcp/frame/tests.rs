//! Reading one message: depths, notifications, parse-error words, members sent twice, ids.

use super::*;

fn tools_call_nested(depth: usize) -> String {
    // The message object, `params` and `arguments` are three levels; the rest is `tags`.
    let tags = format!("{}{}", "[".repeat(depth - 3), "]".repeat(depth - 3));
    format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"t","arguments":{{"tags":{tags}}}}}}}"#)
}

/// Pins [`RMCP_UNREADABLE_DEPTH`] to what rmcp's own parse of a client message does.
#[test]
fn the_depth_limit_is_the_one_rmcp_drops_at() {
    for depth in [RMCP_UNREADABLE_DEPTH - 1, RMCP_UNREADABLE_DEPTH] {
        let line = tools_call_nested(depth);
        let rmcp_reads = serde_json::from_str::<rmcp::model::ClientJsonRpcMessage>(&line).is_ok();
        assert_eq!(rmcp_reads, depth < RMCP_UNREADABLE_DEPTH, "depth {depth}");
        assert_eq!(nests_at_least(line.as_bytes(), RMCP_UNREADABLE_DEPTH), !rmcp_reads, "depth {depth}");
    }
}

#[test]
fn brackets_inside_strings_do_not_count() {
    let line = format!(r#"{{"a":"{}\"{}"}}"#, "[".repeat(300), "{".repeat(300));
    assert!(!nests_at_least(line.as_bytes(), 3));
    assert!(nests_at_least(br#"{"a":[{"b":"]]]"}]}"#, 3));
}

fn answer(line: &str) -> Value {
    match read_message(line.as_bytes(), Framing::Line) {
        Incoming::Answered(Some(reply)) => serde_json::to_value(reply).unwrap(),
        other => panic!("not answered: {line}: {other:?}"),
    }
}

fn silent(line: &str) {
    assert!(matches!(read_message(line.as_bytes(), Framing::Line), Incoming::Answered(None)), "answered: {line}");
}

#[test]
fn a_duplicate_id_is_answered_under_the_last_id_sent() {
    let reply = answer(r#"{"jsonrpc":"2.0","id":6,"id":7,"method":"ping"}"#);
    assert_eq!(reply["id"], 7, "{reply}");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().starts_with("`id` is sent 2 times (6, 7)"), "{reply}");
}

#[test]
fn notifications_are_never_answered() {
    silent(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{},"params":{}}"#);
    silent(r#"{"jsonrpc":"1.0","method":"notifications/progress"}"#);
    silent(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":NaN}}"#);
    silent(r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"a":1e400}}"#);
    // A readable notification goes to rmcp, which never answers one either.
    let line = r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t","arguments":{}}}"#;
    assert!(
        matches!(read_message(line.as_bytes(), Framing::Line), Incoming::Message(m) if matches!(*m, JsonRpcMessage::Notification(_)))
    );
    silent("   ");
    // Responses, whatever their id, are never answered either.
    for line in [
        r#"{"jsonrpc":"2.0","id":[1],"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"result":0.5}"#,
        r#"{"jsonrpc":"[2.0","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"result":{},"result":{}}"#,
    ] {
        let read = read_message(line.as_bytes(), Framing::Line);
        assert!(
            matches!(&read, Incoming::Answered(None))
                || matches!(&read, Incoming::Message(m) if !matches!(**m, JsonRpcMessage::Request(_))),
            "{line}: {read:?}"
        );
    }
}

#[test]
fn a_parse_error_is_worded_in_json_terms() {
    let reply = answer("this is not json");
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert!(reply.get("id").is_none(), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("the message is not valid JSON: a JSON-RPC message is a JSON object, starting with `{`; this one starts with \"this is not \""), "{message}");
    assert!(!message.contains("expected"), "{message}");

    let reply = answer(r#"{"jsonrpc":"2.0","id":12,"method":"ping",oops}"#);
    assert_eq!(reply["id"], 12, "the id is read from malformed text: {reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains(r#"the text from character 42 ("oops}") is not JSON"#), "{message}");
    // Each transport's own way to send a message: a line on stdio, the body over HTTP.
    assert!(message.contains("; send one JSON-RPC message object per line, like {"), "{message}");
    let Incoming::Answered(Some(reply)) = read_message(b"{\"id\":1,", Framing::Body) else { panic!("not answered") };
    let message = serde_json::to_value(reply).unwrap()["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.ends_with("; send one JSON-RPC message object as the request body"), "{message}");
}

#[test]
fn a_parse_error_never_quotes_the_text_of_a_string() {
    let secret = "sk-Zq9XsEcReT0123456789";
    // A raw tab inside a string, an unknown escape, a missing `:` before a string.
    for line in [
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"arguments\":{\"api_key\":\"sk-Zq9\tXsEcReT0123456789\"}}}"
            .to_owned(),
        format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"arguments":{{"api_key":"{secret}\q"}}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"arguments":{{"api_key" "{secret}"}}}}}}"#
        ),
    ] {
        let reply = answer(&line);
        assert_eq!(reply["id"], 4, "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(!message.contains("sk-") && !message.contains("XsE") && !message.contains("0123"), "{message}");
    }
    let reply = answer("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"a\":\"x\ty\"}}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("the string opened at character 55 holds, near character 56, what a JSON string cannot"),
        "{message}"
    );
    let reply = answer(r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a" "x"}}"#);
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains(r#"the text from character 55 ("\"") is not JSON"#), "{message}");
}

/// The issue's input: a secret sent without its quotes. The parse error once quoted
/// `"sk-ABCDEFGHI"`; nothing inside `params.arguments` is quoted now, whichever tool is named
/// and wherever `name` is.
#[test]
fn a_parse_error_inside_the_arguments_quotes_nothing_from_them() {
    let secret = "sk-ABCDEFGHIJKLMNOP";
    for params in [
        format!(r#"{{"name":"set_threshold","arguments":{{"ratio":0.5,"api_key":{secret}}}}}"#),
        format!(r#"{{"arguments":{{"ratio":0.5,"api_key":{secret}}},"name":"set_threshold"}}"#),
        format!(r#"{{"name":"set_threshold","arguments":{secret}}}"#),
        format!(r#"{{"name":"t","arguments":{{"deep":[{{"x":[1,{secret}]}}]}}}}"#),
        format!(r#"{{"name":"t","arguments":{{"api_key" : {secret}}}}}"#),
        format!(r#"{{"name":"t","argu\u006dents":{{"api_key":{secret}}}}}"#),
    ] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{params}}}"#);
        let reply = answer(&line);
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (serde_json::json!(3), serde_json::json!(-32700)),
            "{reply}"
        );
        let message = reply["error"]["message"].as_str().unwrap();
        for window in secret.as_bytes().windows(4) {
            let window = std::str::from_utf8(window).unwrap();
            assert!(!message.contains(window), "{window} of the secret in: {message}");
        }
        assert!(message.contains("inside params.arguments, is not JSON (a word without quotes"), "{message}");
    }
    let reply =
        answer(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"top":1,}}}"#);
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("the text from character 89, inside params.arguments, is not JSON (a `}` out of place;"),
        "{message}"
    );
    // Outside the arguments, the text is quoted as before.
    let reply = answer(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{},oops}}"#);
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains(r#"the text from character 83 ("oops}}") is not JSON"#), "{message}");
    let reply = answer(r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"arguments":{"a":1},"b":tru}}"#);
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains(r#"the text from character 78 ("}}") is not JSON"#), "{message}");
}

#[test]
fn where_the_arguments_are() {
    let text = r#"{"params":{"name":"t","arguments":{"a":[1,{"b":2}],"c":"}"},"x":1},"y":2}"#;
    let inside: Vec<usize> = (0..text.len()).filter(|&at| inside_arguments(text, at)).collect();
    let from = text.find(r#"{"a""#).unwrap();
    let to = text.find(r#","x""#).unwrap();
    // From the arguments' `{` to their `}`, but never inside one of their strings.
    let after = text.find(":1}").unwrap() + 1;
    assert!(inside.contains(&from) && inside.contains(&(to - 1)) && !inside.contains(&after), "{inside:?}");
    assert!(!inside.contains(&(text.find(r#""}""#).unwrap() + 1)));
    assert!(!inside_arguments(r#"{"arguments":{"a":1"#, 18));
    assert!(!inside_arguments(r#"{"params":{"x":{"arguments":{"a":1"#, 33));
}

#[test]
fn a_message_not_utf8_names_the_offset() {
    let mut line = br#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"a":""#.to_vec();
    line.extend_from_slice(&[0xc3, 0xa9, 0xff]);
    line.extend_from_slice(br#""}}"#);
    let Incoming::Answered(Some(reply)) = read_message(&line, Framing::Line) else { panic!("not answered") };
    let reply = serde_json::to_value(reply).unwrap();
    assert_eq!(reply["id"], 9, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("the message is not UTF-8 text: the byte at offset 57 (counted from 0)"), "{message}");
}

#[test]
fn members_sent_twice_are_named_and_never_quoted_whole() {
    let params = format!(r#"{{"name":"set_threshold","arguments":{{"api_key":"sk-Zq9XsEcReT{}"}}}}"#, "x".repeat(5000));
    let reply =
        answer(&format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{params},"params":{params}}}"#));
    assert_eq!(reply["id"], 5, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("`params` is sent 2 times; send each member once; a request looks like"), "{message}");
    let long = "m".repeat(5000);
    let reply = answer(&format!(
        r#"{{"jsonrpc":"2.0","id":6,"method":"{long}","method":"{long}","method":"x","method":"y","method":"z"}}"#
    ));
    let message = reply["error"]["message"].as_str().unwrap();
    let cut = format!("\"{}…", "m".repeat(39));
    assert!(
        message
            .starts_with(&format!("`method` is sent 5 times ({cut}, {cut}, \"x\", \"y\", …); send each member once")),
        "{message}"
    );
    let args = format!(r#"{{"api_key":"sk-Zq9XsEcReT{}"}}"#, "x".repeat(50));
    let reply = answer(&format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"t","arguments":{args},"arguments":{args}}}}}"#
    ));
    assert_eq!(reply["error"]["message"], "tools/call: params.arguments is sent 2 times; send it once, one object");
    let reply =
        answer(r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"a","name":"b","arguments":{}}}"#);
    assert_eq!(reply["error"]["message"], r#"tools/call: params.name is sent 2 times; send it once (sent: "a", "b")"#);
    let reply =
        answer(&format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"t","{long}":1e400}}}}"#));
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("tools/call: params.{}… nests deeper than 127 levels", "m".repeat(40))),
        "{message}"
    );
    let reply = answer(&format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{long}","params":{{"x":1e400}}}}"#));
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("{}…: params do not have the shape MCP defines for it", "m".repeat(40))),
        "{message}"
    );
}

#[test]
fn the_id_of_a_long_line_is_read_as_it_streams() {
    let mut scan = TopLevel::default();
    scan.feed(br#"{"jsonrpc":"2.0","params":{"id":1,"x":""#);
    for _ in 0..1000 {
        scan.feed(&[b'a'; 1000]);
    }
    scan.feed(br#""},"id":"call-9","method":"tools/call"}"#);
    scan.finish();
    assert_eq!(scan.id(), Some(RequestId::String("call-9".into())));
    assert!(!scan.is_notification());

    let scan = TopLevel::scan(br#"{"method":"notifications/x","params":{"id":3}}"#);
    assert!(scan.is_notification());
    assert_eq!(TopLevel::scan(br#"{"id": -42 ,"#).id(), Some(RequestId::Number(-42)));
}

#[test]
fn tools_call_arguments_travel_as_the_text_sent() {
    let line =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1e400,"b":[[[]]]}}}"#;
    let Incoming::Message(message) = read_message(line.as_bytes(), Framing::Line) else { panic!("not for rmcp") };
    let JsonRpcMessage::Request(request) = *message else { panic!("not a request") };
    let raw = request.request.extensions().get::<RawArguments>().cloned().unwrap();
    assert_eq!(raw.0.as_deref(), Some(r#"{"a":1e400,"b":[[[]]]}"#));
}

#[test]
fn an_id_that_cannot_be_answered_says_why() {
    let range = "is out of the range this server reads: a whole number from -2^63 to 2^63-1 \
                 (-9223372036854775808 to 9223372036854775807), or a string; send a smaller number, or the id as a string";
    for (id, words) in [
        ("9223372036854775808", format!("`id` 9223372036854775808 {range}")),
        ("18446744073709551615", format!("`id` 18446744073709551615 {range}")),
        ("-9223372036854775809", format!("`id` -9223372036854775809 {range}")),
        ("100000000000000000000000000000", format!("`id` 100000000000000000000000000000 {range}")),
        (&"9".repeat(200), format!("`id` {}… {range}", "9".repeat(40))),
        (
            &"9".repeat(5000),
            "`id` is 5000 bytes long; this server answers under an id of at most 256 bytes as sent: send a shorter one"
                .to_owned(),
        ),
        (
            &format!("\"{}\"", "x".repeat(4 << 20)),
            "`id` is 4194306 bytes long; this server answers under an id of at most 256 bytes as sent: send a shorter one"
                .to_owned(),
        ),
        (
            "1e3",
            "`id` 1e3 is not written as a whole number; send it without a fraction or exponent, or as a string"
                .to_owned(),
        ),
        (
            "7.5",
            "`id` 7.5 is not written as a whole number; send it without a fraction or exponent, or as a string"
                .to_owned(),
        ),
        ("true", "`id` must be a string or a whole number".to_owned()),
        (
            r#""\ud800""#,
            "`id` is a string with an escape of no character (a surrogate `\\uD800` to `\\uDFFF` alone); send it without that escape"
                .to_owned(),
        ),
        ("{}", "`id` must be a string or a whole number".to_owned()),
    ] {
        for method in ["tools/list", "tools/call"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"name":"t"}}}}"#);
            let reply = answer(&line);
            assert_eq!(reply["id"], Value::Null, "{id}");
            assert_eq!(reply["error"]["code"], -32600, "{id}");
            assert_eq!(reply["error"]["message"], format!("{words}; a request looks like {EXAMPLE}"), "{id}");
        }
    }
    // The ends of the range are answered under the id sent.
    for id in [i64::MAX, i64::MIN] {
        let Incoming::Message(message) =
            read_message(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).as_bytes(), Framing::Line)
        else {
            panic!("{id} not read")
        };
        assert_eq!(serde_json::to_value(&message).unwrap()["id"], id);
    }
}

/// An id is echoed in its reply, a progress token in every notification of its call: both are
/// read up to 256 bytes as sent, so what a reader that does not read holds stays small.
#[test]
fn ids_and_progress_tokens_are_read_up_to_256_bytes() {
    let longest = format!("\"{}\"", "i".repeat(254));
    let line = format!(r#"{{"jsonrpc":"2.0","id":{longest},"method":"ping"}}"#);
    let Incoming::Message(message) = read_message(line.as_bytes(), Framing::Body) else { panic!("not read") };
    assert_eq!(serde_json::to_value(&message).unwrap()["id"], "i".repeat(254));
    for (token, refused) in [(format!("\"{}\"", "t".repeat(254)), false), (format!("\"{}\"", "t".repeat(255)), true)] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"t","_meta":{{"progressToken":{token}}}}}}}"#
        );
        match read_message(line.as_bytes(), Framing::Line) {
            Incoming::Answered(Some(reply)) => {
                assert!(refused, "{token}");
                let reply = serde_json::to_value(reply).unwrap();
                assert_eq!(reply["id"], 3);
                assert_eq!(reply["error"]["code"], -32602);
                assert_eq!(
                    reply["error"]["message"],
                    "`params._meta.progressToken` is 257 bytes long; this server sends progress under a token of at most 256 bytes: send a shorter one"
                );
            }
            Incoming::Message(_) => assert!(!refused, "{token}"),
            other => panic!("{other:?}"),
        }
    }
    // The token rmcp reads is the one measured: a key written with an escape, a token sent
    // twice (the last counts), `_meta` sent twice.
    let long = "t".repeat(300);
    for params in [
        format!(r#"{{"name":"t","_meta":{{"progress\u0054oken":"{long}"}}}}"#),
        format!(r#"{{"name":"t","_meta":{{"progressToken":"s","progressToken":"{long}"}}}}"#),
        format!(r#"{{"name":"t","_meta":{{}},"_meta":{{"progressToken":"{long}"}}}}"#),
    ] {
        for method in ["tools/call", "tools/list"] {
            let reply = answer(&format!(r#"{{"jsonrpc":"2.0","id":4,"method":"{method}","params":{params}}}"#));
            assert_eq!(
                (reply["id"].clone(), reply["error"]["code"].clone()),
                (serde_json::json!(4), serde_json::json!(-32602)),
                "{params}: {reply}"
            );
        }
    }
}

/// A message that does not start with `{` is quoted as a JSON string whose every character shows.
#[test]
fn the_start_of_a_message_not_an_object_is_quoted_in_json_terms() {
    let reply = answer("\u{200b}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains(r#"this one starts with "\u200b{\"jsonrpc\":""#), "{message}");
    assert_eq!(visible_start("a\tb\"c\\\u{7}"), r#""a\tb\"c\\\u0007""#);
}

/// A `tools/call` whose `requestState`, `inputResponses` or `_meta` is of another type than MCP's
/// is refused by name: rmcp could not read it as a `tools/call`, and its catch-all would have
/// run the tool without the `arguments` taken out of it.
#[test]
fn a_misshapen_member_beside_the_arguments_is_refused_by_name() {
    let call = |member: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"list_notes","arguments":{{"bogus":1}},{member}}}}}"#
        )
    };
    for (member, said) in [
        (
            r#""requestState":12"#,
            "tools/call: params.requestState is 12, a number; MCP defines it as a string: the requestState of an \
             input_required result, sent back exactly as received (or left out)",
        ),
        (
            r#""inputResponses":"x""#,
            "tools/call: params.inputResponses is a string; MCP defines it as an object: the answers to an \
             input_required result's inputRequests, under their keys (or left out)",
        ),
        (
            r#""inputResponses":[]"#,
            "tools/call: params.inputResponses is an array; MCP defines it as an object: the answers to an input_required result's inputRequests, under their keys (or left out)",
        ),
        (r#""_meta":true"#, "tools/call: params._meta is a boolean; MCP defines it as an object (or left out)"),
    ] {
        let reply = answer(&call(member));
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (serde_json::json!(3), serde_json::json!(-32602)),
            "{reply}"
        );
        assert_eq!(reply["error"]["message"], said, "{member}");
    }
    // A progress token that progress cannot be sent under (rmcp ignores it).
    for token in [r#"{"a":1}"#, "[1]", "true", "1.5", "18446744073709551615"] {
        let reply = answer(&call(&format!(r#""_meta":{{"progressToken":{token}}}"#)));
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        let said = reply["error"]["message"].as_str().unwrap();
        assert!(said.starts_with("tools/call: params._meta.progressToken is "), "{said}");
        assert!(said.contains("MCP defines it as a string or an integer"), "{said}");
    }
    // A key of the answers sent twice: refused, never read as its last value.
    let reply = answer(&call(
        r#""requestState":"s","inputResponses":{"approval":{"action":"accept","content":{"approved":false,"approved":true}}}"#,
    ));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(
        reply["error"]["message"],
        "tools/call: params.inputResponses.approval.content.approved is sent twice; send each key once, with the \
         one value meant"
    );
    // Of the right types, or `null`, the request goes on to rmcp with its arguments beside it.
    for member in [
        r#""requestState":"s""#,
        r#""inputResponses":{}"#,
        r#""requestState":null"#,
        r#""_meta":{"progressToken":"t"}"#,
        r#""_meta":{"progressToken":-7}"#,
        r#""_meta":{"progressToken":5.0}"#,
    ] {
        let line = call(member);
        match read_message(line.as_bytes(), Framing::Line) {
            Incoming::Message(m) => match *m {
                JsonRpcMessage::Request(r) => {
                    assert!(matches!(r.request, ClientRequest::CallToolRequest(_)), "{member}");
                    assert!(r.request.extensions().get::<RawArguments>().is_some_and(|a| a.0.is_some()));
                }
                other => panic!("{member}: {other:?}"),
            },
            Incoming::Answered(reply) => panic!("{member}: answered {reply:?}"),
        }
    }
}

/// A key sent twice anywhere in the params is refused by name, never read as its last value: a
/// prompt's argument, a resource's `uri`, a member of a `tools/call`'s params beside `name` and
/// `arguments` (the arguments' own keys are the reader's to refuse, with their values quoted).
#[test]
fn a_key_sent_twice_in_the_params_is_refused_by_name() {
    for (line, said) in [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"topic":"a","topic":"b"}}}"#,
            "prompts/get: params.arguments.topic is sent twice; send each key once, with the one value meant",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"a://1","uri":"a://2","uri":"a://3"}}"#,
            "resources/read: params.uri is sent 3 times; send each key once, with the one value meant",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","requestState":"a","requestState":"b"}}"#,
            "tools/call: params.requestState is sent twice; send it once",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":1,"progressToken":2}}}"#,
            "tools/call: params._meta.progressToken is sent twice; send each key once, with the one value meant",
        ),
    ] {
        let reply = answer(line);
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone(), reply["error"]["message"].clone()),
            (serde_json::json!(1), serde_json::json!(-32602), serde_json::json!(said)),
            "{line}"
        );
    }
    // Past 4,096 keys the keys of an object are not compared: it is refused whole, so padding
    // cannot hide a key sent twice (an approval `false` then `true`).
    let padding: String = (0..4100).map(|k| format!(r#","p{k}":0"#)).collect();
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","requestState":"s","inputResponses":{{"approval":{{"action":"accept","content":{{"approved":false,"approved":true{padding}}}}}}}}}}}"#
    );
    let reply = answer(&line);
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(
        reply["error"]["message"],
        "tools/call: params.inputResponses.approval.content is an object of 4102 keys; this server reads objects of \
         at most 4096 keys: send fewer"
    );
    let line =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"cursor":"a","cursor":"b"{padding}}}}}"#);
    assert_eq!(answer(&line)["error"]["code"], -32602);
    // A notification is never answered, a key twice or not: it goes on to rmcp.
    let line =
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"progress":2}}"#;
    assert!(matches!(read_message(line.as_bytes(), Framing::Line), Incoming::Message(_)));
}
