//! End to end over MCP stdio: the example server (`examples/mcp_server.rs`, the tools of
//! `EXAMPLE_TOOLS.md`) runs as a child process. The first test talks to it through rmcp's client;
//! the others write JSON-RPC lines rmcp's client cannot send (arguments nested 300 levels deep,
//! arguments that are not an object) and read the reply lines.
//!
//! Every read has a 20 s timeout, so a request the server drops fails its test instead of
//! hanging it.

use std::{path::PathBuf, process::Stdio, sync::OnceLock, time::Duration};

use rmcp::{
    ServiceError, ServiceExt,
    model::{CallToolRequestParams, CallToolResult, ErrorCode, JsonObject},
    transport::TokioChildProcess,
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines},
    process::{Child, ChildStdin, ChildStdout, Command},
    time::timeout,
};

const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// `target/<profile>/examples/mcp_server`, next to this test's `target/<profile>/deps/`.
///
/// `cargo test --test mcp_e2e` builds only this test, not the examples, so the server is built
/// here (once per test binary): a stale server would test old code. Cargo holds no lock on the
/// target directory while tests run.
fn server() -> &'static PathBuf {
    static SERVER: OnceLock<PathBuf> = OnceLock::new();
    SERVER.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps");
        let target_dir = profile_dir.parent().expect("target/");
        let mut build = std::process::Command::new(env!("CARGO"));
        build
            .args(["build", "-j2", "--quiet", "--example", "mcp_server", "--example", "manifest", "--manifest-path"])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
            .arg("--target-dir")
            .arg(target_dir);
        if profile_dir.ends_with("release") {
            build.arg("--release");
        }
        let status = build.status().expect("running cargo build --example mcp_server");
        assert!(status.success(), "cargo build --example mcp_server failed");
        profile_dir.join("examples").join(format!("mcp_server{}", std::env::consts::EXE_SUFFIX))
    })
}

/// The example server's manifest, as `cargo run --example manifest` prints it.
fn tools_manifest() -> Value {
    let manifest = server().with_file_name(format!("manifest{}", std::env::consts::EXE_SUFFIX));
    let out = std::process::Command::new(manifest).output().expect("running the manifest example");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("the manifest is JSON")
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

/// The one text block of a `tools/call` result must be the exact serialization of
/// `structuredContent`: the same JSON, `status` first.
fn assert_text_is_structured(result: &CallToolResult) {
    assert_eq!(result.content.len(), 1, "one content block: {result:?}");
    let text = &result.content[0].as_text().expect("a text block").text;
    let structured = result.structured_content.as_ref().expect("structuredContent");
    assert_eq!(&serde_json::from_str::<Value>(text).unwrap(), structured);
    assert!(text.starts_with(r#"{"status":"#), "status is the first key: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_listed_and_called_over_mcp() {
    let transport = TokioChildProcess::new(Command::new(server())).expect("spawning the server");
    let client = timeout(READ_TIMEOUT, ().serve(transport)).await.expect("initialize answered").unwrap();

    // tools/list: the example tools and confirm_action, each with its inputSchema.
    let tools = timeout(READ_TIMEOUT, client.list_all_tools()).await.unwrap().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "confirm_action",
            "create_note",
            "delete_note",
            "get_top_queries",
            "list_notes",
            "search_analytics",
            "set_threshold"
        ]
    );
    for tool in &tools {
        assert!(tool.description.as_deref().is_some_and(|d| !d.is_empty()), "{} has a description", tool.name);
        assert_eq!(tool.input_schema.get("type"), Some(&json!("object")), "{}", tool.name);
    }
    let top = tools.iter().find(|t| t.name == "get_top_queries").unwrap();
    let schema = Value::Object(top.input_schema.as_ref().clone());
    assert_eq!(schema["properties"]["hours_back"]["minimum"], 1);
    assert_eq!(schema["properties"]["hours_back"]["maximum"], 720);
    assert_eq!(schema["properties"]["group_by"]["enum"], json!(["query_hash", "database", "application"]));
    assert_eq!(schema["properties"]["top"]["default"], 10);
    let mut required: Vec<&str> = schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    required.sort_unstable();
    assert_eq!(required, ["group_by", "hours_back"]);
    assert_eq!(schema["additionalProperties"], false);

    // tools/list carries the same schemas and annotations as the manifest.
    let manifest = tools_manifest();
    for tool in &tools {
        let entry = manifest["tools"].as_array().unwrap().iter().find(|t| t["name"] == tool.name.as_ref()).unwrap();
        assert_eq!(Value::Object(tool.input_schema.as_ref().clone()), entry["inputSchema"], "{}", tool.name);
        let output = tool.output_schema.as_ref().map(|o| Value::Object(o.as_ref().clone()));
        assert_eq!(output.as_ref(), Some(&entry["outputSchema"]), "{}", tool.name);
        let annotations = serde_json::to_value(&tool.annotations).unwrap();
        let expected = if entry["annotations"] == json!({}) { Value::Null } else { entry["annotations"].clone() };
        assert_eq!(annotations, expected, "{}", tool.name);
    }
    assert_eq!(serde_json::to_value(&top.annotations).unwrap(), json!({"readOnlyHint": true, "idempotentHint": true}));

    // A good call is served: isError false, the envelope's status ok.
    let good = CallToolRequestParams::new("get_top_queries")
        .with_arguments(object(json!({"hours_back": 24, "group_by": "database"})));
    let result = timeout(READ_TIMEOUT, client.call_tool(good)).await.unwrap().unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let envelope = result.structured_content.as_ref().unwrap();
    assert_eq!(envelope["status"], "ok");
    assert_eq!(envelope["success"], true);
    assert_text_is_structured(&result);

    // Bad arguments are a tool execution error (isError true), not a JSON-RPC error, and the
    // refusal names each rejected value, the accepted set and the fix.
    let bad = CallToolRequestParams::new("get_top_queries")
        .with_arguments(object(json!({"hours_back": 0, "group_by": "databse"})));
    let result = timeout(READ_TIMEOUT, client.call_tool(bad)).await.unwrap().unwrap();
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let envelope = result.structured_content.as_ref().unwrap();
    assert_eq!(envelope["status"], "invalid");
    assert_eq!(envelope["success"], false);
    assert_eq!(envelope["error_code"], "VALIDATION_ERROR");
    assert!(envelope.get("data").is_none(), "a refusal carries no data: {envelope}");
    let message = envelope["message"].as_str().unwrap();
    for part in ["hours_back: 0 ", "1", "720", r#""databse""#, r#""query_hash""#, r#""database""#, r#""application""#] {
        assert!(message.contains(part), "{part} missing from: {message}");
    }
    assert!(message.contains(r#"Did you mean "database"?"#), "no suggestion in: {message}");
    assert_text_is_structured(&result);

    // An unknown tool is a protocol error, -32602, naming the tools and the closest one.
    let unknown = CallToolRequestParams::new("get_top_query").with_arguments(object(json!({})));
    let error = timeout(READ_TIMEOUT, client.call_tool(unknown)).await.unwrap().unwrap_err();
    let ServiceError::McpError(error) = error else { panic!("not a JSON-RPC error: {error:?}") };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    for name in ["get_top_queries", "search_analytics", "create_note", "set_threshold"] {
        assert!(error.message.contains(name), "{name} missing from: {}", error.message);
    }
    assert!(error.message.contains(r#"Did you mean "get_top_queries"?"#), "{}", error.message);

    client.cancel().await.unwrap();
}

/// A write that waits for approval, over MCP: `needs_confirmation` is not an error (`isError`
/// false), nothing happens until `confirm_action` approves, and an approval runs once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_waits_for_approval_over_mcp() {
    let transport = TokioChildProcess::new(Command::new(server())).expect("spawning the server");
    let client = timeout(READ_TIMEOUT, ().serve(transport)).await.expect("initialize answered").unwrap();
    let call = |name: &'static str, args: Value| {
        let client = &client;
        async move {
            let params = CallToolRequestParams::new(name).with_arguments(object(args));
            let result = timeout(READ_TIMEOUT, client.call_tool(params)).await.unwrap().unwrap();
            assert_text_is_structured(&result);
            (result.is_error, result.structured_content.clone().unwrap())
        }
    };
    let key = json!({"title": "to delete", "idempotency_key": "e2e-note-0001"});
    let (_, created) = call("create_note", key.clone()).await;
    assert_eq!(created["data"]["title"], "to delete");
    // Replayed key: the first envelope again, no second note.
    assert_eq!(call("create_note", key).await.1, created);
    let id = created["data"]["id"].clone();

    let (is_error, queued) = call("delete_note", json!({ "note_id": id })).await;
    assert_eq!(is_error, Some(false), "{queued}");
    assert_eq!(queued["status"], "needs_confirmation");
    assert_eq!(queued["preview"], json!({"delete": {"id": id, "title": "to delete"}}));
    let pending = queued["pending_action_id"].as_str().unwrap().to_owned();
    assert_eq!(call("list_notes", json!({})).await.1["data"].as_array().unwrap().len(), 1);

    let (is_error, done) = call("confirm_action", json!({"pending_action_id": pending, "approved": true})).await;
    assert_eq!(is_error, Some(false), "{done}");
    assert_eq!(done["data"], json!({"deleted": {"id": id, "title": "to delete"}}));
    assert_eq!(call("list_notes", json!({})).await.1["data"], json!([]));
    let (is_error, again) = call("confirm_action", json!({"pending_action_id": pending, "approved": true})).await;
    assert_eq!(is_error, Some(true));
    assert_eq!(again["error_code"], "CONFLICT");
    client.cancel().await.unwrap();
}

/// A stdio session driven line by line, for requests rmcp's client will not send.
struct RawSession {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl RawSession {
    /// Starts the server and completes the `initialize` handshake (protocol 2025-11-25).
    async fn start() -> Self {
        let mut child = Command::new(server())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawning the server");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut session = RawSession { child, stdin, stdout };
        session
            .send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "mcp_e2e", "version": "0"},
            }}))
            .await;
        let reply = session.reply(0).await;
        assert_eq!(reply["result"]["protocolVersion"], "2025-11-25", "{reply}");
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        session
    }

    async fn send(&mut self, message: Value) {
        self.send_line(&message.to_string()).await;
    }

    async fn send_line(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The reply to request `id`; fails if none arrives within the timeout.
    async fn reply(&mut self, id: i64) -> Value {
        loop {
            let line = timeout(READ_TIMEOUT, self.stdout.next_line())
                .await
                .unwrap_or_else(|_| panic!("no reply to request {id} within {READ_TIMEOUT:?}"))
                .unwrap()
                .unwrap_or_else(|| panic!("the server closed stdout before answering request {id}"));
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if message["id"] == id {
                return message;
            }
        }
    }

    /// The next line the server writes, as JSON.
    async fn next_line(&mut self) -> Value {
        let line = timeout(READ_TIMEOUT, self.stdout.next_line())
            .await
            .unwrap_or_else(|_| panic!("no line within {READ_TIMEOUT:?}"))
            .unwrap()
            .unwrap_or_else(|| panic!("the server closed stdout"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// Sends `tools/call` with `arguments` exactly as given and returns the reply.
    async fn call(&mut self, id: i64, name: &str, arguments: Value) -> Value {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}});
        self.send(request).await;
        self.reply(id).await
    }

    /// Closes stdin; the server must then exit by itself, successfully.
    async fn finish(mut self) {
        drop(self.stdin);
        let status = timeout(READ_TIMEOUT, self.child.wait()).await.expect("server exits at EOF").unwrap();
        assert!(status.success(), "server exit status: {status}");
    }
}

/// The `CallToolResult` of a reply, checked for the envelope-in-two-places shape.
fn call_result(reply: &Value) -> CallToolResult {
    let result: CallToolResult = serde_json::from_value(reply["result"].clone())
        .unwrap_or_else(|e| panic!("{e}: not a tools/call result: {reply}"));
    assert_text_is_structured(&result);
    result
}

fn nested_arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_nested_300_deep_are_refused_not_dropped() {
    let mut session = RawSession::start().await;

    // rmcp's stdio transport would drop this line unanswered: serde_json stops at 128 levels.
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"create_note","arguments":{{"title":"t","tags":{}}}}}}}"#,
        nested_arrays(300)
    );
    session.send_line(&line).await;
    let reply = session.reply(2).await;
    let result = call_result(&reply);
    assert_eq!(result.is_error, Some(true), "{reply}");
    let envelope = result.structured_content.unwrap();
    assert_eq!(envelope["status"], "invalid", "{envelope}");
    assert_eq!(envelope["hints"]["parameter"], "tags", "{envelope}");

    // Any other request that deep is refused as an invalid request, with its id.
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{"_meta":{{"x":{}}}}}}}"#,
        nested_arrays(300)
    );
    session.send_line(&line).await;
    let reply = session.reply(3).await;
    assert_eq!(reply["error"]["code"], -32600, "{reply}");

    // An unknown tool that deep is still the unknown-tool error.
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"create_notes","arguments":{{"tags":{}}}}}}}"#,
        nested_arrays(300)
    );
    session.send_line(&line).await;
    let reply = session.reply(4).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains(r#""create_note""#), "{reply}");

    // The session goes on: the next ordinary call is served by rmcp.
    let reply = session.call(5, "create_note", json!({"title": "after"})).await;
    assert_eq!(call_result(&reply).is_error, Some(false), "{reply}");
    session.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_that_are_not_an_object() {
    let mut session = RawSession::start().await;

    // An array is a malformed tools/call: -32602 whose message is the refusal sentence and whose
    // data is the refusal envelope.
    let reply = session.call(2, "get_top_queries", json!([24, "database"])).await;
    let error = &reply["error"];
    assert_eq!(error["code"], -32602, "{reply}");
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{reply}");
    assert_eq!(error["data"]["status"], "invalid", "{reply}");
    assert_eq!(error["data"]["message"], error["message"], "{reply}");

    // So is a number.
    let reply = session.call(3, "get_top_queries", json!(24)).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["error"]["data"]["status"], "invalid", "{reply}");

    // An object double-encoded as a JSON string is decoded and served.
    let encoded = json!({"hours_back": 24, "group_by": "database"}).to_string();
    let reply = session.call(4, "get_top_queries", Value::String(encoded)).await;
    let result = call_result(&reply);
    assert_eq!(result.is_error, Some(false), "{reply}");
    assert_eq!(result.structured_content.unwrap()["status"], "ok", "{reply}");

    // Decoded, it is an ordinary call: a bad value in it is a refusal with isError, not -32602.
    let encoded = json!({"hours_back": 0, "group_by": "database"}).to_string();
    let reply = session.call(5, "get_top_queries", Value::String(encoded)).await;
    let result = call_result(&reply);
    assert_eq!(result.is_error, Some(true), "{reply}");
    assert_eq!(result.structured_content.unwrap()["status"], "invalid", "{reply}");

    // A string that does not hold an object is refused like the array.
    let reply = session.call(6, "get_top_queries", json!("hours_back=24")).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["error"]["data"]["status"], "invalid", "{reply}");

    // An unknown tool stays the unknown-tool error on this path too.
    let reply = session.call(7, "get_top_querie", json!([1])).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains(r#"Did you mean "get_top_queries"?"#), "{reply}");
    assert!(reply["error"].get("data").is_none(), "{reply}");

    session.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_too_large_are_refused_with_the_digits_sent() {
    let mut session = RawSession::start().await;

    // Past 64 bits: quoted with the digits sent, not the float rmcp's parse would make of them.
    session
        .send_line(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_top_queries","arguments":{"hours_back":18446744073709551617,"group_by":"database"}}}"#)
        .await;
    let reply = session.reply(2).await;
    let envelope = call_result(&reply).structured_content.unwrap();
    assert_eq!(
        envelope["message"],
        "hours_back: 18446744073709551617 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720.",
        "{reply}"
    );

    // Past a double: rmcp's parse fails and it would drop the line; it is answered instead.
    session
        .send_line(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"set_threshold","arguments":{"ratio":1e400,"api_key":"sk-abcdefghijklmnop1234"}}}"#)
        .await;
    let reply = session.reply(3).await;
    let result = call_result(&reply);
    assert_eq!(result.is_error, Some(true), "{reply}");
    let envelope = result.structured_content.unwrap();
    assert_eq!(envelope["hints"]["parameter"], "ratio", "{envelope}");
    assert_eq!(envelope["hints"]["rejected"], "1e400", "{envelope}");

    session.finish().await;
}

/// What only the argument text shows reaches the tool over MCP: a key sent twice, and a number's
/// characters as sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_argument_text_is_read_as_sent() {
    let mut session = RawSession::start().await;

    session
        .send_line(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_top_queries","arguments":{"hours_back":-1,"group_by":"database","hours_back":5}}}"#)
        .await;
    let reply = session.reply(2).await;
    let result = call_result(&reply);
    assert_eq!(result.is_error, Some(true), "{reply}");
    let envelope = result.structured_content.unwrap();
    assert_eq!(
        envelope["message"],
        "hours_back: \"hours_back\": -1, \"hours_back\": 5 sends the same key twice; accepted: \"hours_back\" once, with one value: a whole number from 1 to 720. Send \"hours_back\" once, with the one value you mean.",
        "{reply}"
    );

    session
        .send_line(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_top_queries","arguments":{"hours_back":1e3,"group_by":"database"}}}"#)
        .await;
    let reply = session.reply(3).await;
    let envelope = call_result(&reply).structured_content.unwrap();
    assert_eq!(
        envelope["message"],
        "hours_back: 1e3 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720.",
        "{reply}"
    );

    // The same arguments as a JSON string (lax): decoded, and still read as sent.
    session
        .send_line(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_top_queries","arguments":"{\"hours_back\":1e3,\"group_by\":\"database\",\"group_by\":\"x\"}"}}"#)
        .await;
    let reply = session.reply(4).await;
    let envelope = call_result(&reply).structured_content.unwrap();
    assert_eq!(envelope["hints"]["parameter"], "group_by", "{reply}");
    assert_eq!(envelope["hints"]["rejected"], "\"group_by\": \"database\", \"group_by\": \"x\"", "{reply}");

    session.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_unreadable_line_is_answered() {
    let mut session = RawSession::start().await;

    // An invalid escape (a lone surrogate) in one argument: refused by name.
    session
        .send_line(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_note","arguments":{"title":"a\ud800b"}}}"#)
        .await;
    let reply = session.reply(2).await;
    let envelope = call_result(&reply).structured_content.unwrap();
    assert_eq!(envelope["hints"]["parameter"], "title", "{reply}");

    // Not JSON at all, or NaN: JSON-RPC's parse error, with `id: null`.
    for line in [
        "{garbage",
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"set_threshold","arguments":{"ratio":NaN}}}"#,
    ] {
        session.send_line(line).await;
        let reply = session.next_line().await;
        assert_eq!(reply["error"]["code"], -32700, "{line}: {reply}");
        assert_eq!(reply["id"], Value::Null, "{reply}");
    }

    // The session still serves.
    let reply = session.call(4, "get_top_queries", json!({"hours_back": 1, "group_by": "database"})).await;
    assert_eq!(call_result(&reply).structured_content.unwrap()["status"], "ok");
    session.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_of_the_wrong_shape_is_answered_with_its_id() {
    let mut session = RawSession::start().await;
    for (line, id) in [
        (r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":["get_top_queries",{}]}"#, json!(7)),
        (r#"{"jsonrpc":"1.0","id":"eight","method":"tools/list"}"#, json!("eight")),
        (r#"{"jsonrpc":"2.0","id":9,"method":5}"#, json!(9)),
        (r#"[{"jsonrpc":"2.0","id":10,"method":"tools/list"}]"#, Value::Null),
    ] {
        session.send_line(line).await;
        let reply = session.next_line().await;
        assert_eq!(reply["error"]["code"], -32600, "{line}: {reply}");
        assert_eq!(reply["id"], id, "{line}: {reply}");
        assert!(
            reply["error"]["message"].as_str().unwrap().contains("a request looks like") || id.is_null(),
            "{reply}"
        );
    }
    session.finish().await;
}
