//! What the example app's replies say of what a client sent, over loopback HTTP: a JSON-RPC
//! `id` no `i64` holds, a number or a name longer than a reply quotes, a tool name not UTF-8, a
//! coded body, a message that is not JSON. Each reply names what was sent, marked where cut,
//! and says what the server reads instead.

use serde_json::{Value, json};

use super::http::{app, bind, exchange, request, spawn};
use envelope_core::http::serve;

/// The JSON-RPC headers of a Streamable HTTP POST.
const MCP: &str = "content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
                   mcp-protocol-version: 2025-06-18\r\n";

const EXAMPLE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"...","arguments":{}}}"#;

#[tokio::test]
async fn an_id_past_i64_is_named_out_of_range() {
    let (listener, addr) = bind().await;
    spawn(serve(listener, app()));
    let range = "is out of the range this server reads: a whole number from -2^63 to 2^63-1 \
                 (-9223372036854775808 to 9223372036854775807), or a string; send a smaller number, or the id as a string";
    for (id, words) in [
        ("100000000000000000000000000000", format!("`id` 100000000000000000000000000000 {range}")),
        ("18446744073709551615", format!("`id` 18446744073709551615 {range}")),
        ("9223372036854775808", format!("`id` 9223372036854775808 {range}")),
        (
            "1e3",
            "`id` 1e3 is not written as a whole number; send it without a fraction or exponent, or as a string".into(),
        ),
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
        let reply = exchange(addr, &request(addr, "POST", "/mcp", MCP, &body)).await;
        assert_eq!(reply.status, 400, "{id}");
        assert_eq!(
            reply.json(),
            json!({"jsonrpc": "2.0", "id": Value::Null,
                   "error": {"code": -32600, "message": format!("{words}; a request looks like {EXAMPLE}")}}),
            "{id}"
        );
    }
    // 2^63-1 is read, and answered under itself.
    let body = r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"tools/list"}"#;
    let reply = exchange(addr, &request(addr, "POST", "/mcp", MCP, body)).await;
    assert_eq!((reply.status, &reply.json()["id"]), (200, &json!(i64::MAX)), "{}", reply.body);
}

#[tokio::test]
async fn a_long_number_and_a_long_name_are_cut_with_a_mark() {
    let (listener, addr) = bind().await;
    spawn(serve(listener, app()));
    let key = "k".repeat(20_000);
    let body = format!(r#"{{"hours_back": {}, "{key}": 1}}"#, "9".repeat(5000));
    let extra = "content-type: application/json\r\n";
    let reply = exchange(addr, &request(addr, "POST", "/tools/get_top_queries", extra, &body)).await;
    assert_eq!(reply.status, 400, "{}", reply.body);
    let env = reply.json();
    let number = format!("{}… (5000 characters)", "9".repeat(32));
    let name = format!("{}…", "k".repeat(40));
    let quoted = format!("\"{}…\" (20000 characters)", "k".repeat(32));
    assert_eq!(
        env["message"],
        format!(
            "hours_back: {number} is too large to read as a number; accepted: a whole number from 1 to 720. \
             Send hours_back within the accepted range.\n{name}: {quoted} is not a parameter of get_top_queries; \
             accepted: hours_back, group_by, top. Remove it."
        )
    );
    assert_eq!(env["hints"]["rejected"], number);
    assert_eq!(env["hints"]["others"][0]["parameter"], name);
    assert_eq!(env["hints"]["others"][0]["rejected"], quoted);
}

#[tokio::test]
async fn a_tool_name_not_utf8_is_named_as_sent() {
    let (listener, addr) = bind().await;
    spawn(serve(listener, app()));
    let extra = "content-type: application/json\r\n";
    for sent in ["%FF%FE", "get_top_queries%FF"] {
        let reply = exchange(addr, &request(addr, "POST", &format!("/tools/{sent}"), extra, "{}")).await;
        assert_eq!(reply.status, 404, "{}", reply.body);
        let env = reply.json();
        assert_eq!(env["error_code"], "NOT_FOUND");
        assert_eq!(env["hints"]["rejected"], format!("\"{sent}\""));
        let message = env["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("name: \"{sent}\" is not a tool of this server; accepted: ")),
            "{message}"
        );
    }
}

/// A body with a content coding is refused 415 for what it is (RFC 9110 §15.5.16), before it is
/// read, with `Accept-Encoding: identity`: on a tool's endpoint as JSON, on `/mcp` as JSON-RPC.
#[tokio::test]
async fn a_coded_body_is_refused_415_naming_the_coding() {
    let (listener, addr) = bind().await;
    spawn(serve(listener, app()));
    // `{"hours_back": 24}` gzipped (RFC 1952; Python's `gzip.compress(..., mtime=0)`).
    let gzip: [u8; 38] = [
        31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 171, 86, 202, 200, 47, 45, 42, 142, 79, 74, 76, 206, 86, 178, 82, 48, 50, 169,
        5, 0, 160, 234, 64, 3, 18, 0, 0, 0,
    ];
    let sentence = |coding: &str| {
        format!(
            "The body is sent with `Content-Encoding: {coding}`, and this server reads only bodies without a content \
             coding. Send the body uncoded, without `Content-Encoding` (or with `identity`)."
        )
    };
    for (path, headers) in [("/tools/get_top_queries", "content-type: application/json\r\n"), ("/mcp", MCP)] {
        for coding in ["gzip", "br", "identity, gzip"] {
            let mut raw = format!(
                "POST {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n{headers}content-encoding: {coding}\r\n\
                 content-length: {}\r\n\r\n",
                gzip.len()
            )
            .into_bytes();
            raw.extend_from_slice(&gzip);
            let reply = exchange(addr, &raw).await;
            assert_eq!((reply.status, reply.header("accept-encoding")), (415, Some("identity")), "{path} {coding}");
            let expected = if path == "/mcp" {
                json!({"jsonrpc": "2.0", "id": Value::Null, "error": {"code": -32000, "message": sentence(coding),
                       "data": {"error": "unsupported_content_encoding"}}})
            } else {
                json!({"error": "unsupported_content_encoding", "message": sentence(coding)})
            };
            assert_eq!(reply.json(), expected, "{path} {coding}");
        }
        // `identity` is no coding: the body is read.
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        let body = if path == "/mcp" { body } else { r#"{"hours_back": 24, "group_by": "database"}"# };
        let extra = format!("{headers}content-encoding: identity\r\n");
        let reply = exchange(addr, &request(addr, "POST", path, &extra, body)).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
    }
}

/// A message that does not read, over HTTP, is told to come as the request body, not "per line"
/// (stdio's words).
#[tokio::test]
async fn a_parse_error_over_http_names_the_request_body() {
    let (listener, addr) = bind().await;
    spawn(serve(listener, app()));
    let cut_short = exchange(addr, &request(addr, "POST", "/mcp", MCP, r#"{"jsonrpc":"2.0","id":1,"method":"#)).await;
    assert_eq!(
        cut_short.json(),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32700, "message": "the message is not valid JSON: it ends \
               before its object does (a missing `}`, `]` or `\"`); send one JSON-RPC message object as the request body"}})
    );
    let mut raw = format!("POST /mcp HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n{MCP}content-length: 4\r\n\r\n")
        .into_bytes();
    raw.extend_from_slice(b"{\"\xff\"");
    let not_utf8 = exchange(addr, &raw).await;
    assert_eq!(
        not_utf8.json()["error"]["message"],
        "the message is not UTF-8 text: the byte at offset 2 (counted from 0) does not begin or continue a UTF-8 \
         character; send JSON encoded as UTF-8 (a character a client cannot encode may be sent as a \\uXXXX escape), \
         one JSON-RPC message object as the request body"
    );
    let bad =
        exchange(addr, &request(addr, "POST", "/mcp", MCP, r#"{"jsonrpc":"2.0","id":1,"method":tools/list}"#)).await;
    let message = bad.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("; send one JSON-RPC message object as the request body, like {"), "{message}");
    assert!(!message.contains("per line"), "{message}");
}
