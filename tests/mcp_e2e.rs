//! End to end over MCP stdio: the example server (`examples/mcp_server.rs`, the tools of
//! `EXAMPLE_TOOLS.md`) runs as a child process. The first test talks to it through rmcp's client;
//! the others write JSON-RPC lines rmcp's client cannot send (arguments nested 300 levels deep,
//! arguments that are not an object) and read the reply lines.
//!
//! Every read has a 20 s timeout, so a request the server drops fails its test instead of
//! hanging it.

#[path = "support/examples.rs"]
mod examples;

use std::{path::PathBuf, process::Stdio, sync::OnceLock, time::Duration};

use rmcp::{
    ClientHandler, RoleClient, ServiceError,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
        ElicitResult, ElicitationAction, ElicitationCapability, ErrorCode, FormElicitationCapability, Implementation,
        JsonObject, ProtocolVersion, ReadResourceRequestParams, ResultType,
    },
    service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService},
    transport::{StreamableHttpClientTransport, TokioChildProcess},
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines},
    net::TcpStream,
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
        let examples = examples::build(&["mcp_server", "http_server", "rmcp_handler", "manifest"]);
        examples.join(format!("mcp_server{}", std::env::consts::EXE_SUFFIX))
    })
}

/// The example server's manifest, as `cargo run --example manifest` prints it.
fn tools_manifest() -> Value {
    let manifest = server().with_file_name(format!("manifest{}", std::env::consts::EXE_SUFFIX));
    let out = std::process::Command::new(manifest).output().expect("running the manifest example");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("the manifest is JSON")
}

/// Checks `envelope`, the `structuredContent` of a reply of tool `name`, against the tool's
/// advertised `outputSchema` (MCP: `structuredContent` conforms to it); every reply of the
/// example tools passes through here. Tools the example server does not have are skipped.
fn assert_conforms(name: &str, envelope: &Value) {
    static VALIDATORS: OnceLock<std::collections::HashMap<String, jsonschema::Validator>> = OnceLock::new();
    let validators = VALIDATORS.get_or_init(|| {
        let manifest = tools_manifest();
        manifest["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let validator = jsonschema::draft202012::new(&t["outputSchema"]).expect("a valid outputSchema");
                (t["name"].as_str().unwrap().to_owned(), validator)
            })
            .collect()
    });
    if let Some(validator) = validators.get(name) {
        let errors: Vec<String> = validator.iter_errors(envelope).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: the reply does not conform to its outputSchema: {errors:?}: {envelope}");
    }
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

/// The protocol versions the server serves, each driven the way rmcp's client speaks it:
/// `initialize` for the 2025 versions, `server/discover` and per-request `_meta` for 2026-07-28.
const VERSIONS: [ProtocolVersion; 3] =
    [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

type Client = RunningService<RoleClient, ClientConfig>;

/// An rmcp client on `transport`, speaking `version`.
async fn connect<T, E, A>(transport: T, version: &ProtocolVersion) -> Client
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let config = ClientConfig::new(ClientCapabilities::default(), Implementation::new("mcp_e2e", "0"))
        .with_protocol_version(version.clone());
    let connecting = if version.has_initialize() {
        config.serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
    } else {
        config.serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover { preferred_versions: vec![version.clone()] },
        )
    };
    timeout(READ_TIMEOUT, connecting).await.expect("the session starts in time").expect("the session starts")
}

/// An rmcp client of a new example server over stdio, speaking `version`.
async fn stdio_client(version: &ProtocolVersion) -> Client {
    let transport = TokioChildProcess::new(Command::new(server())).expect("spawning the server");
    connect(transport, version).await
}

/// `resultType` is 2026-07-28's: `"complete"` there, absent before.
fn assert_result_type(result: &CallToolResult, version: &ProtocolVersion) {
    let expected = (!version.has_initialize()).then_some(ResultType::COMPLETE);
    assert_eq!(result.result_type, expected, "{version}: {result:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_listed_and_called_over_mcp() {
    for version in &VERSIONS {
        let client = stdio_client(version).await;
        tools_are_listed_and_called(&client, version).await;
        client.cancel().await.unwrap();
    }
}

/// The issue's smallest input: a number with a three-digit exponent went down a path that left
/// out `resultType`, and the official Python SDK (2026-07-28) refused the reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_digit_exponent_is_served_on_every_version() {
    for version in &VERSIONS {
        let client = stdio_client(version).await;
        a_three_digit_exponent_is_served(&client, version).await;
        client.cancel().await.unwrap();
    }
}

async fn a_three_digit_exponent_is_served(client: &Client, version: &ProtocolVersion) {
    let call = CallToolRequestParams::new("set_threshold")
        .with_arguments(object(json!({"ratio": 1e-100, "api_key": "sk-AAAAAAAAAAAAAAAAAAAA"})));
    let result = timeout(READ_TIMEOUT, client.call_tool(call)).await.unwrap().unwrap();
    assert_conforms("set_threshold", result.structured_content.as_ref().unwrap());
    assert_eq!(result.is_error, Some(false), "{version}: {result:?}");
    assert_eq!(result.structured_content.as_ref().unwrap()["data"]["ratio"], 1e-100, "{version}: {result:?}");
    assert_result_type(&result, version);
    assert_text_is_structured(&result);
}

async fn tools_are_listed_and_called(client: &Client, version: &ProtocolVersion) {
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
            "rebuild_index",
            "search_analytics",
            "set_threshold",
            "whoami"
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
    assert_conforms("get_top_queries", result.structured_content.as_ref().unwrap());
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let envelope = result.structured_content.as_ref().unwrap();
    assert_eq!(envelope["status"], "ok");
    assert_eq!(envelope["success"], true);
    assert_text_is_structured(&result);
    assert_result_type(&result, version);

    // The tools that read their call: the caller it sees, and a rebuild of one second.
    for (name, args) in [("whoami", json!({})), ("rebuild_index", json!({"seconds": 1}))] {
        let call = CallToolRequestParams::new(name).with_arguments(object(args));
        let result = timeout(READ_TIMEOUT, client.call_tool(call)).await.unwrap().unwrap();
        let envelope = result.structured_content.as_ref().unwrap();
        assert_eq!(envelope["status"], "ok", "{name}: {envelope}");
        assert_conforms(name, envelope);
    }

    // Bad arguments are a tool execution error (isError true), not a JSON-RPC error, and the
    // refusal names each rejected value, the accepted set and the fix.
    let bad = CallToolRequestParams::new("get_top_queries")
        .with_arguments(object(json!({"hours_back": 0, "group_by": "databse"})));
    let result = timeout(READ_TIMEOUT, client.call_tool(bad)).await.unwrap().unwrap();
    assert_conforms("get_top_queries", result.structured_content.as_ref().unwrap());
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
}

/// A write that waits for approval, over MCP: `needs_confirmation` is not an error (`isError`
/// false), nothing happens until `confirm_action` approves, and an approval runs once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_waits_for_approval_over_mcp() {
    for version in &VERSIONS {
        a_delete_waits_for_approval(version).await;
    }
}

async fn a_delete_waits_for_approval(version: &ProtocolVersion) {
    let client = stdio_client(version).await;
    let call = |name: &'static str, args: Value| {
        let client = &client;
        async move {
            let params = CallToolRequestParams::new(name).with_arguments(object(args));
            let result = timeout(READ_TIMEOUT, client.call_tool(params)).await.unwrap().unwrap();
            assert_text_is_structured(&result);
            assert_conforms(name, result.structured_content.as_ref().unwrap());
            (result.is_error, result.structured_content.clone().unwrap())
        }
    };
    let key = json!({"title": "to delete", "idempotency_key": "e2e-note-0001"});
    let (_, created) = call("create_note", key.clone()).await;
    assert_eq!(created["data"]["title"], "to delete");
    // Replayed key: the first envelope again, no second note, and the warning that it is one.
    let mut replayed = call("create_note", key).await.1;
    let warning = replayed.as_object_mut().unwrap().remove("warning").unwrap();
    assert!(warning.as_str().unwrap().starts_with("Answered from the call at "), "{warning}");
    assert_eq!(replayed, created);
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
    version: ProtocolVersion,
    /// The client's capabilities (JSON): at `initialize`, or in each request's `_meta`.
    capabilities: String,
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl RawSession {
    /// Starts the server; for a 2025 version, completes the `initialize` handshake. On
    /// 2026-07-28 there is no handshake: each request carries the version and the client's
    /// capabilities in its `_meta` (added by [`Self::send_line`]).
    async fn start(version: &ProtocolVersion) -> Self {
        Self::start_with(version, &json!({})).await
    }

    /// [`Self::start`] for a client that declares `capabilities`.
    async fn start_with(version: &ProtocolVersion, capabilities: &Value) -> Self {
        let mut child = Command::new(server())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawning the server");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let capabilities = capabilities.to_string();
        let mut session = RawSession { version: version.clone(), capabilities, child, stdin, stdout };
        if version.has_initialize() {
            session
                .send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": version.as_str(),
                    "capabilities": serde_json::from_str::<Value>(&session.capabilities).unwrap(),
                    "clientInfo": {"name": "mcp_e2e", "version": "0"},
                }}))
                .await;
            let reply = session.reply(0).await;
            assert_eq!(reply["result"]["protocolVersion"], version.as_str(), "{reply}");
            session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        }
        session
    }

    /// The `CallToolResult` of a reply, checked for the envelope-in-two-places shape and for
    /// the session's `resultType`.
    fn result(&self, reply: &Value) -> CallToolResult {
        let result = call_result(reply);
        assert_result_type(&result, &self.version);
        result
    }

    async fn send(&mut self, message: Value) {
        self.send_line(&message.to_string()).await;
    }

    /// Writes `line`; on 2026-07-28, a request's `params` first gain the per-request `_meta`.
    async fn send_line(&mut self, line: &str) {
        let line = if self.version.has_initialize() {
            line.to_owned()
        } else {
            let meta = format!(
                r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
                self.capabilities
            );
            if line.contains(r#""params":{}"#) {
                line.replacen(r#""params":{}"#, &format!(r#""params":{{{meta}}}"#), 1)
            } else {
                line.replacen(r#""params":{"#, &format!(r#""params":{{{meta},"#), 1)
            }
        };
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
        let reply = self.reply(id).await;
        if let Some(envelope) = reply["result"].get("structuredContent") {
            assert_conforms(name, envelope);
        }
        reply
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
    for version in &VERSIONS {
        arguments_nested_300_deep_are_refused_not_dropped_on(version).await;
    }
}

async fn arguments_nested_300_deep_are_refused_not_dropped_on(version: &ProtocolVersion) {
    let mut session = RawSession::start(version).await;

    // rmcp's stdio transport would drop this line unanswered: serde_json stops at 128 levels.
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"create_note","arguments":{{"title":"t","tags":{}}}}}}}"#,
        nested_arrays(300)
    );
    session.send_line(&line).await;
    let reply = session.reply(2).await;
    let result = session.result(&reply);
    assert_eq!(result.is_error, Some(true), "{reply}");
    let envelope = result.structured_content.unwrap();
    assert_eq!(envelope["status"], "invalid", "{envelope}");
    assert_eq!(envelope["hints"]["parameter"], "tags", "{envelope}");

    // Any other request that deep is refused as an invalid request, with its id.
    let line =
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{"x":{{"y":{}}}}}}}"#, nested_arrays(300));
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
    assert_eq!(session.result(&reply).is_error, Some(false), "{reply}");
    session.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_that_are_not_an_object() {
    for version in &VERSIONS {
        arguments_that_are_not_an_object_on(version).await;
    }
}

async fn arguments_that_are_not_an_object_on(version: &ProtocolVersion) {
    let mut session = RawSession::start(version).await;

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
    let result = session.result(&reply);
    assert_eq!(result.is_error, Some(false), "{reply}");
    assert_eq!(result.structured_content.unwrap()["status"], "ok", "{reply}");

    // Decoded, it is an ordinary call: a bad value in it is a refusal with isError, not -32602.
    let encoded = json!({"hours_back": 0, "group_by": "database"}).to_string();
    let reply = session.call(5, "get_top_queries", Value::String(encoded)).await;
    let result = session.result(&reply);
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
    for version in &VERSIONS {
        numbers_too_large_are_refused_with_the_digits_sent_on(version).await;
    }
}

async fn numbers_too_large_are_refused_with_the_digits_sent_on(version: &ProtocolVersion) {
    let mut session = RawSession::start(version).await;

    // Past 64 bits: quoted with the digits sent, not the float rmcp's parse would make of them.
    session
        .send_line(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_top_queries","arguments":{"hours_back":18446744073709551617,"group_by":"database"}}}"#)
        .await;
    let reply = session.reply(2).await;
    let envelope = session.result(&reply).structured_content.unwrap();
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
    let result = session.result(&reply);
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
    for version in &VERSIONS {
        the_argument_text_is_read_as_sent_on(version).await;
    }
}

async fn the_argument_text_is_read_as_sent_on(version: &ProtocolVersion) {
    let mut session = RawSession::start(version).await;

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
    for version in &VERSIONS {
        every_unreadable_line_is_answered_on(version).await;
    }
}

async fn every_unreadable_line_is_answered_on(version: &ProtocolVersion) {
    let mut session = RawSession::start(version).await;

    // An invalid escape (a lone surrogate) in one argument: refused by name.
    session
        .send_line(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_note","arguments":{"title":"a\ud800b"}}}"#)
        .await;
    let reply = session.reply(2).await;
    let envelope = session.result(&reply).structured_content.unwrap();
    assert_eq!(envelope["hints"]["parameter"], "title", "{reply}");

    // Not JSON at all, or NaN: JSON-RPC's parse error, under the id when one can be read.
    for (line, id) in [
        ("{garbage", Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"set_threshold","arguments":{"ratio":NaN}}}"#,
            json!(3),
        ),
    ] {
        session.send_line(line).await;
        let reply = session.next_line().await;
        assert_eq!(reply["error"]["code"], -32700, "{line}: {reply}");
        // JSON-RPC 2.0 §5: present, `null` when the id could not be read.
        assert_eq!(reply.get("id"), Some(&id), "{reply}");
    }

    // The session still serves.
    let reply = session.call(4, "get_top_queries", json!({"hours_back": 1, "group_by": "database"})).await;
    assert_eq!(session.result(&reply).structured_content.unwrap()["status"], "ok");
    session.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_of_the_wrong_shape_is_answered_with_its_id() {
    for version in &VERSIONS {
        a_request_of_the_wrong_shape_is_answered_with_its_id_on(version).await;
    }
}

async fn a_request_of_the_wrong_shape_is_answered_with_its_id_on(version: &ProtocolVersion) {
    let mut session = RawSession::start(version).await;
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

/// The JSON-RPC fixes found by fuzzing the example server, each as sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_rpc_on_the_wire() {
    for version in &VERSIONS {
        json_rpc_on_the_wire_on(version).await;
    }
}

async fn json_rpc_on_the_wire_on(version: &ProtocolVersion) {
    let mut session = RawSession::start(version).await;

    // An id sent twice: answered under the last one, naming both.
    session.send_line(r#"{"jsonrpc":"2.0","id":6,"id":7,"method":"ping"}"#).await;
    let reply = session.next_line().await;
    assert_eq!(reply["id"], 7, "{reply}");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().starts_with("`id` is sent 2 times (6, 7)"), "{reply}");

    // A notification is never answered, malformed or not: the next line is the ping's reply.
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{},"params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":NaN}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/nothing_known"}"#,
    ] {
        session.send_line(line).await;
    }
    session.send_line(r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#).await;
    let reply = session.next_line().await;
    assert_eq!(reply["id"], 8, "a notification was answered: {reply}");
    assert!(reply.get("result").is_some(), "{reply}");

    // A parse error in JSON's words, not the parser's.
    session.send_line("this is not json").await;
    let reply = session.next_line().await;
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert_eq!(
        reply["error"]["message"].as_str().unwrap().split("; send").next().unwrap(),
        r#"the message is not valid JSON: a JSON-RPC message is a JSON object, starting with `{`; this one starts with "this is not ""#,
        "{reply}"
    );

    // A line past 16 MiB is not held, but its id is read as it streams past.
    let filler = "a".repeat(17 << 20);
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"create_note","arguments":{{"title":"{filler}"}}}}}}"#
    );
    session.send_line(&line).await;
    let reply = session.next_line().await;
    assert_eq!(reply["id"], 9, "{reply}");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("longer than 16 MiB"), "{reply}");

    // A call still running when stdin closes is answered before the server exits, with code 0.
    session
        .send(json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
            "params": {"name": "get_top_queries", "arguments": {"hours_back": 1, "group_by": "database"}}}))
        .await;
    let RawSession { mut child, stdin, mut stdout, .. } = session;
    drop(stdin);
    let line = timeout(READ_TIMEOUT, stdout.next_line()).await.unwrap().unwrap().expect("the reply to id 10");
    let reply: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(reply["id"], 10, "{reply}");
    let status = timeout(READ_TIMEOUT, child.wait()).await.expect("server exits at EOF").unwrap();
    assert!(status.success(), "server exit status: {status}");
    let mut stderr = String::new();
    let mut err = child.stderr.take().expect("stderr is piped");
    tokio::io::AsyncReadExt::read_to_string(&mut err, &mut stderr).await.unwrap();
    assert!(stderr.lines().all(|l| l.starts_with("envelope example MCP server")), "{stderr}");
}

/// stdin closed before any message: a normal end, exit code 0, nothing on stderr.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdin_closing_is_a_normal_end() {
    let out = Command::new(server()).stdin(Stdio::null()).output().await.unwrap();
    assert!(out.status.success(), "{}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.lines().all(|l| l.starts_with("envelope example MCP server")), "{stderr}");
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
}

/// The example server over Streamable HTTP (`examples/http_server.rs`) on a free loopback port:
/// the child (killed when dropped) and its `/mcp` URL, as it prints it.
async fn http_server() -> (Child, String) {
    let exe = server().with_file_name(format!("http_server{}", std::env::consts::EXE_SUFFIX));
    let mut child = Command::new(exe)
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawning the HTTP server");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = timeout(READ_TIMEOUT, lines.next_line()).await.unwrap().unwrap().expect("the server prints its URL");
    let url = line.rsplit(' ').next().unwrap().to_owned();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{line}");
    (child, url)
}

/// An audit path the server cannot write (`/proc/version`) stops it at start: exit code 2 and
/// one line on stderr naming the setting, before it listens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unwritable_audit_file_stops_the_http_server_at_start() {
    let exe = server().with_file_name(format!("http_server{}", std::env::consts::EXE_SUFFIX));
    let run = Command::new(exe).args(["--port", "0"]).env("ENVELOPE_AUDIT_FILE", "/proc/version").output();
    let out = timeout(READ_TIMEOUT, run).await.expect("the server stops").unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("ENVELOPE_AUDIT_FILE /proc/version: "), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_listed_and_called_over_streamable_http() {
    let (_server, url) = http_server().await;
    for version in &VERSIONS {
        let client = connect(StreamableHttpClientTransport::from_uri(url.as_str()), version).await;
        tools_are_listed_and_called(&client, version).await;
        a_three_digit_exponent_is_served(&client, version).await;
        client.cancel().await.unwrap();
    }
}

/// One HTTP/1.1 exchange on a new connection: the status and the body as JSON (`Null` when
/// empty). Written by hand, so the request is exactly as given.
async fn post(url: &str, headers: &[(&str, &str)], body: &str) -> (u16, Value, String) {
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let mut stream = TcpStream::connect(address).await.unwrap();
    let mut request = format!("POST /mcp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    timeout(READ_TIMEOUT, stream.read_to_string(&mut response)).await.unwrap().unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {response}"))
    };
    (status, body, head.to_owned())
}

/// The headers of a JSON-RPC POST on `version` (2026-07-28 also names the method and tool).
fn mcp_headers(version: &ProtocolVersion, method: &'static str, name: &'static str) -> Vec<(&'static str, String)> {
    let mut headers =
        vec![("Content-Type", "application/json".to_owned()), ("MCP-Protocol-Version", version.to_string())];
    if !version.has_initialize() {
        headers.push(("Mcp-Method", method.to_owned()));
        if !name.is_empty() {
            headers.push(("Mcp-Name", name.to_owned()));
        }
    }
    headers
}

/// `params` of a request on `version`: on 2026-07-28 with the per-request `_meta`.
fn params_on(version: &ProtocolVersion, params: &str) -> String {
    if version.has_initialize() {
        return params.to_owned();
    }
    let meta = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"#;
    params.replacen('{', meta, 1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_reads_the_body_before_rmcp() {
    let (_server, url) = http_server().await;
    for version in &VERSIONS {
        let headers = mcp_headers(version, "tools/call", "create_note");
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();

        // Nested 300 deep: rmcp's service would answer a plain-text 415; the toolbox refuses it.
        let params = params_on(
            version,
            &format!(r#"{{"name":"create_note","arguments":{{"title":"t","tags":{}}}}}"#, nested_arrays(300)),
        );
        let body = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{params}}}"#);
        let (status, reply, head) = post(&url, &headers, &body).await;
        assert_eq!(status, 200, "{version}: {head}: {reply}");
        let result = call_result(&reply);
        assert_result_type(&result, version);
        assert_eq!(result.is_error, Some(true), "{reply}");
        assert_conforms("create_note", result.structured_content.as_ref().unwrap());
        assert_eq!(result.structured_content.unwrap()["hints"]["parameter"], "tags", "{reply}");

        // Past a double: refused by name with the text sent.
        let headers = mcp_headers(version, "tools/call", "set_threshold");
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let params = params_on(
            version,
            r#"{"name":"set_threshold","arguments":{"ratio":1e400,"api_key":"sk-abcdefghijklmnop1234"}}"#,
        );
        let body = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{params}}}"#);
        let (status, reply, _) = post(&url, &headers, &body).await;
        assert_eq!(status, 200, "{reply}");
        let envelope = call_result(&reply).structured_content.unwrap();
        assert_conforms("set_threshold", &envelope);
        assert_eq!(envelope["hints"]["rejected"], "1e400", "{envelope}");
    }

    let json = [("Content-Type", "application/json")];
    // Not JSON: -32700 in JSON's words, 400, under the id when readable.
    let (status, reply, _) = post(&url, &json, r#"{"jsonrpc":"2.0","id":4,"method":"ping",oops}"#).await;
    assert_eq!(
        (status, reply["id"].clone(), reply["error"]["code"].clone()),
        (200, json!(4), json!(-32700)),
        "{reply}"
    );
    let (status, reply, _) = post(&url, &json, "this is not json").await;
    assert_eq!((status, reply["error"]["code"].clone()), (400, json!(-32700)), "{reply}");
    // A notification, malformed or not: 202 and no body.
    let (status, reply, _) =
        post(&url, &json, r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{},"params":{}}"#).await;
    assert_eq!((status, reply), (202, Value::Null));
    // Duplicate ids: the last one.
    let (status, reply, _) = post(&url, &json, r#"{"jsonrpc":"2.0","id":6,"id":7,"method":"ping"}"#).await;
    assert_eq!(
        (status, reply["id"].clone(), reply["error"]["code"].clone()),
        (200, json!(7), json!(-32600)),
        "{reply}"
    );
    // Another media type: 415 with a JSON-RPC body, not rmcp's plain text, under the request's
    // id, with the word of the code table.
    let (status, reply, _) =
        post(&url, &[("Content-Type", "text/plain")], r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#).await;
    assert_eq!(
        (status, reply["id"].clone(), reply["error"]["code"].clone(), reply["error"]["data"]["error"].clone()),
        (415, json!(8), json!(-32000), json!("unsupported_media_type")),
        "{reply}"
    );
    assert_eq!(
        reply["error"]["message"],
        "The body is sent with `Content-Type: text/plain`, and this endpoint reads one JSON-RPC message sent as \
         JSON. Send it with `Content-Type: application/json`.",
    );
    // JSON in another charset would be read as UTF-8 and misread (RFC 8259 §8.1): refused the
    // same way; `charset=utf-8`, quoted or not, any case, is read.
    for (content_type, status) in [
        ("application/json; charset=utf-16", 415),
        ("application/json;charset=\"ISO-8859-1\"", 415),
        ("application/json; charset=\"UTF-8\"", 200),
        ("Application/JSON;charset=utf8", 200),
    ] {
        let (got, reply, _) =
            post(&url, &[("Content-Type", content_type)], r#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#).await;
        assert_eq!(got, status, "{content_type}: {reply}");
        if status == 415 {
            assert_eq!(reply["error"]["data"]["error"], "unsupported_media_type", "{reply}");
            assert!(reply["error"]["message"].as_str().unwrap().contains(content_type), "{reply}");
        }
    }
    // Two Content-Type headers: which one the body is in is not known (RFC 9110 §5.3).
    let (status, reply, _) = post(
        &url,
        &[("Content-Type", "application/json"), ("Content-Type", "text/plain")],
        r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#,
    )
    .await;
    assert_eq!((status, reply["error"]["data"]["error"].clone()), (400, json!("malformed_request")), "{reply}");
    // An empty body: a parse error under `null`, 400 (no request to answer).
    let (status, reply, _) = post(&url, &json, "  ").await;
    assert_eq!(
        (status, reply["id"].clone(), reply["error"]["code"].clone()),
        (400, Value::Null, json!(-32700)),
        "{reply}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_origin_is_refused_and_runs_nothing() {
    let (_server, url) = http_server().await;
    let headers = [("Content-Type", "application/json"), ("Origin", "https://evil.example")];
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note","arguments":{"title":"from evil"}}}"#;
    let (status, reply, _) = post(&url, &headers, body).await;
    assert_eq!(status, 403, "{reply}");
    assert_eq!(reply["error"]["data"]["error"], "forbidden_origin", "{reply}");
    assert!(reply.get("result").is_none(), "{reply}");

    // A loopback origin is served.
    let headers = [("Content-Type", "application/json"), ("Origin", "http://localhost:6274")];
    let (status, reply, _) = post(&url, &headers, body).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["structuredContent"]["status"], "ok", "{reply}");
    assert_eq!(reply["result"]["structuredContent"]["data"]["id"], 1, "the refused call wrote a note: {reply}");
}

/// Blocks its thread for `ms` milliseconds, as a synchronous tool doing slow I/O would.
#[envelope_core::tool]
fn slow(#[validate(range = 1..=5000)] ms: u64) -> u64 {
    std::thread::sleep(Duration::from_millis(ms));
    ms
}

/// Answers `n` at once.
#[envelope_core::tool]
fn fast(#[validate(range = 0..=1000)] n: u32) -> u32 {
    n
}

/// An rmcp client of an in-process server (`slow` and `fast`) on the current runtime, over an
/// in-memory pipe.
async fn in_process(version: &ProtocolVersion) -> (Client, tokio::task::JoinHandle<std::io::Result<()>>) {
    let toolbox = envelope_core::Toolbox::new().with(slow::tool()).with(fast::tool());
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_io);
    let server = tokio::spawn(envelope_core::mcp::serve_io(
        envelope_core::mcp::McpServer::new(toolbox),
        server_read,
        server_write,
    ));
    (connect(tokio::io::split(client_io), version).await, server)
}

/// Three sync tools blocking 1.5 s do not hold up twenty fast calls, on a current-thread
/// runtime (the examples' flavor), and every call is answered under its own id.
#[tokio::test(flavor = "current_thread")]
async fn a_slow_sync_tool_stalls_no_other_call() {
    for version in &VERSIONS {
        let (client, server) = in_process(version).await;
        let started = std::time::Instant::now();
        let mut slow_calls = tokio::task::JoinSet::new();
        for _ in 0..3 {
            let peer = client.peer().clone();
            let call = CallToolRequestParams::new("slow").with_arguments(object(json!({"ms": 1500})));
            slow_calls.spawn(async move { peer.call_tool(call).await });
        }
        tokio::task::yield_now().await;
        let mut fast_calls = tokio::task::JoinSet::new();
        for n in 0..20_u32 {
            let peer = client.peer().clone();
            let call = CallToolRequestParams::new("fast").with_arguments(object(json!({"n": n})));
            fast_calls.spawn(async move { (n, peer.call_tool(call).await) });
        }
        while let Some(answered) = fast_calls.join_next().await {
            let (n, result) = answered.unwrap();
            let result = result.unwrap();
            assert_eq!(result.structured_content.unwrap()["data"], n, "{version}: answered under another id");
        }
        let fast_done = started.elapsed();
        assert!(fast_done < Duration::from_millis(700), "{version}: twenty fast calls took {fast_done:?}");
        while let Some(answered) = slow_calls.join_next().await {
            assert_eq!(answered.unwrap().unwrap().structured_content.unwrap()["data"], 1500);
        }
        assert!(started.elapsed() >= Duration::from_millis(1500));
        client.cancel().await.unwrap();
        server.abort();
    }
}

/// `notifications/cancelled` stops the wait: the call's reply is never sent, the session goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_gets_no_reply() {
    let mut session = RawSession::start(&ProtocolVersion::V_2025_11_25).await;
    session
        .send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "create_note", "arguments": {"title": "t"}}}))
        .await;
    // Cancelled at once: its reply, if already made, is dropped; the tool is not waited for.
    session.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    session.send(json!({"jsonrpc": "2.0", "id": 6, "method": "ping"})).await;
    // Either id 5 was answered before the cancellation arrived, or never.
    let mut reply = session.next_line().await;
    if reply["id"] == 5 {
        reply = session.next_line().await;
    }
    assert_eq!(reply["id"], 6, "{reply}");
    session.finish().await;
}

/// The example server's `rebuild_index` (60 s of 100 ms ticks here) as an MCP task, on every
/// version: listed with `taskSupport: optional`; from a client that declared the tasks extension,
/// the create-task result at once, `working` while it runs, `cancelled` after `tasks/cancel`
/// (with no result), and the session serves on; a client without the extension gets the direct
/// answer. That the body stops is read from the audit trail in process (`tests/mcp_tasks.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rebuild_index_is_a_task_polled_and_cancelled() {
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    for version in &VERSIONS {
        let mut session = RawSession::start_with(version, &tasks).await;
        session.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})).await;
        let listed = session.reply(1).await;
        let tools = listed["result"]["tools"].as_array().unwrap_or_else(|| panic!("{version}: {listed}"));
        let rebuild = tools.iter().find(|t| t["name"] == "rebuild_index").expect("rebuild_index is listed");
        assert_eq!(rebuild["_meta"], json!({"io.modelcontextprotocol/tasks": {"taskSupport": "optional"}}));
        // The one task tool.
        assert_eq!(tools.iter().filter(|t| t.get("_meta").is_some()).count(), 1, "{version}: {listed}");

        let started = std::time::Instant::now();
        let created = session.call(2, "rebuild_index", json!({"seconds": 60})).await;
        assert!(started.elapsed() < Duration::from_secs(5), "{version}: the task is created at once");
        assert_eq!(created["result"]["resultType"], "task", "{version}: {created}");
        assert_eq!(created["result"]["status"], "working", "{version}: {created}");
        assert_eq!(created["result"]["ttlMs"], 3_600_000, "{version}: {created}");
        assert_eq!(created["result"]["pollIntervalMs"], 500, "{version}: {created}");
        let id = created["result"]["taskId"].as_str().expect("a taskId").to_owned();

        tokio::time::sleep(Duration::from_millis(300)).await;
        session.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": id}})).await;
        let polled = session.reply(3).await;
        assert_eq!(polled["result"]["taskId"], id.as_str(), "{version}: {polled}");
        assert_eq!(polled["result"]["status"], "working", "{version}: {polled}");
        assert!(polled["result"].get("result").is_none(), "{version}: {polled}");

        session.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/cancel", "params": {"taskId": id}})).await;
        let ack = session.reply(4).await;
        assert_eq!(ack["result"], json!({"resultType": "complete"}), "{version}: {ack}");
        session.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/get", "params": {"taskId": id}})).await;
        let cancelled = session.reply(5).await;
        assert_eq!(cancelled["result"]["status"], "cancelled", "{version}: {cancelled}");
        assert!(cancelled["result"].get("result").is_none(), "{version}: {cancelled}");

        let whoami = session.call(6, "whoami", json!({})).await;
        assert_eq!(whoami["result"]["structuredContent"]["status"], "ok", "{version}: {whoami}");
        session.finish().await;

        // Without the extension: the direct answer, after the whole second.
        let mut plain = RawSession::start(version).await;
        let direct = plain.call(1, "rebuild_index", json!({"seconds": 1})).await;
        let result = plain.result(&direct);
        let data = &result.structured_content.as_ref().expect("structuredContent")["data"];
        assert_eq!(*data, json!({"rebuilt": true, "ticks": 10, "of": 10}), "{version}: {direct}");
        plain.finish().await;
    }
}

/// A cancelled slow call, in process where the timing is known: no reply to its id, ever.
#[tokio::test(flavor = "current_thread")]
async fn a_cancelled_slow_call_is_not_answered() {
    let toolbox = envelope_core::Toolbox::new().with(slow::tool()).with(fast::tool());
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_io);
    let server = tokio::spawn(envelope_core::mcp::serve_io(
        envelope_core::mcp::McpServer::new(toolbox),
        server_read,
        server_write,
    ));
    let (read, mut write) = tokio::io::split(client_io);
    let mut lines = BufReader::new(read).lines();
    let mut send = async |message: Value| {
        write.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    };
    send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}))
    .await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 600}}}))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "t"}}))
        .await;
    tokio::time::sleep(Duration::from_millis(900)).await;
    send(json!({"jsonrpc": "2.0", "id": 6, "method": "ping"})).await;
    let mut ids = Vec::new();
    while ids.last() != Some(&json!(6)) {
        let line = timeout(READ_TIMEOUT, lines.next_line()).await.unwrap().unwrap().unwrap();
        ids.push(serde_json::from_str::<Value>(&line).unwrap()["id"].clone());
    }
    assert_eq!(ids, [json!(0), json!(6)], "the cancelled call was answered");
    drop(write);
    server.abort();
}

/// The resident memory of process `pid`, in KiB (Linux `/proc`).
#[cfg(target_os = "linux")]
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// A client that writes 200,000 calls without reading: the server stops reading once its
/// replies cannot be written, and its memory stays small. Then the client reads: the replies
/// come, each id once. (All 200,000 take minutes in a debug build: 20,000 are read.)
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unread_flood_meets_backpressure() {
    use std::sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    };
    const CALLS: usize = 200_000;
    const READ: usize = 20_000;
    let session = RawSession::start(&ProtocolVersion::V_2025_11_25).await;
    let pid = session.child.id().unwrap();
    let before = rss_kib(pid);
    let RawSession { child, mut stdin, mut stdout, .. } = session;
    let written = Arc::new(AtomicUsize::new(0));
    let writer = {
        let written = Arc::clone(&written);
        tokio::spawn(async move {
            for id in 1..=CALLS {
                let line = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_top_queries","arguments":{{"hours_back":1,"group_by":"database"}}}}}}"#
                );
                if stdin.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                    return;
                }
                written.store(id, Ordering::Relaxed);
            }
        })
    };
    // Wait until the writes stall: the server has stopped reading.
    let mut last = 0;
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = written.load(Ordering::Relaxed);
        if now == last {
            break;
        }
        last = now;
    }
    let stalled = rss_kib(pid);
    eprintln!(
        "unread flood: {last} of {CALLS} calls written before the server stopped reading; RSS {before} KiB before, {stalled} KiB stalled"
    );
    assert!(last < CALLS, "the server read all {CALLS} calls without any reply being read");
    assert!(stalled < before + 32 * 1024, "RSS grew from {before} KiB to {stalled} KiB");

    let mut seen = std::collections::HashSet::new();
    for _ in 0..READ {
        let line = timeout(READ_TIMEOUT, stdout.next_line()).await.unwrap().unwrap().unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(reply["result"]["structuredContent"]["status"], "ok", "{reply}");
        let id = reply["id"].as_u64().unwrap();
        assert!((1..=CALLS as u64).contains(&id) && seen.insert(id), "id {id} answered twice or never sent");
    }
    let after = rss_kib(pid);
    eprintln!("unread flood: {READ} replies read, each id once; RSS {after} KiB");
    assert!(after < before + 32 * 1024, "RSS grew from {before} KiB to {after} KiB");
    writer.abort();
    drop(child);
}

/// 2,000 calls written at once, without waiting: each answered exactly once, under its id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_are_each_answered_once() {
    const CALLS: i64 = 2_000;
    let mut session = RawSession::start(&ProtocolVersion::V_2025_11_25).await;
    let mut lines = String::new();
    for id in 1..=CALLS {
        let top = id % 100 + 1;
        lines.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_top_queries","arguments":{{"hours_back":1,"group_by":"database","top":{top}}}}}}}"#
        ));
        lines.push('\n');
    }
    let writing = {
        let mut stdin = session.stdin;
        tokio::spawn(async move {
            stdin.write_all(lines.as_bytes()).await.unwrap();
            stdin
        })
    };
    let mut seen = std::collections::HashSet::new();
    for _ in 0..CALLS {
        let line = timeout(READ_TIMEOUT, session.stdout.next_line()).await.unwrap().unwrap().unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        let id = reply["id"].as_i64().unwrap();
        assert!(seen.insert(id), "id {id} answered twice");
        assert_eq!(reply["result"]["isError"], false, "{reply}");
    }
    assert_eq!(seen.len() as i64, CALLS);
    drop(writing.await.unwrap());
    let status = timeout(READ_TIMEOUT, session.child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "{status}");
}

/// An existing rmcp server (`examples/rmcp_handler.rs`: a resource, a prompt) that delegates
/// `tools/list` and `tools/call` to the envelope server: both halves answer, on every version.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rmcp_handler_serves_envelope_tools_beside_its_own() {
    let exe = server().with_file_name(format!("rmcp_handler{}", std::env::consts::EXE_SUFFIX));
    for version in &VERSIONS {
        let transport = TokioChildProcess::new(Command::new(&exe)).expect("spawning the server");
        let client = connect(transport, version).await;
        let resources = timeout(READ_TIMEOUT, client.list_all_resources()).await.unwrap().unwrap();
        assert_eq!(resources.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(), ["notes://guide"], "{version}");
        let read = timeout(READ_TIMEOUT, client.read_resource(ReadResourceRequestParams::new("notes://guide")))
            .await
            .unwrap()
            .unwrap();
        let text = serde_json::to_value(&read.contents[0]).unwrap();
        assert!(text["text"].as_str().unwrap().starts_with("Titles are 1 to 120 characters"), "{text}");
        let prompts = timeout(READ_TIMEOUT, client.list_all_prompts()).await.unwrap().unwrap();
        assert_eq!(prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["summarize_notes"], "{version}");

        tools_are_listed_and_called(&client, version).await;
        a_three_digit_exponent_is_served(&client, version).await;
        client.cancel().await.unwrap();
    }
}

/// The server's one auth hook guards `/mcp`: without a token, 401 with `WWW-Authenticate:
/// Bearer` (RFC 6750) and a JSON-RPC body naming `missing_bearer_token`; a wrong token is
/// `invalid_bearer_token`; nothing runs until the token verifies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_auth_hook_guards_streamable_http() {
    use envelope_core::{http::BearerTokens, mcp::streamable::McpHttp};
    let toolbox = envelope_core::Toolbox::new().with(slow::tool()).with(fast::tool());
    let app = McpHttp::new(toolbox).with_auth(BearerTokens::new(["t0ken-for-tests"])).router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fast","arguments":{"n":7}}}"#;

    let (status, reply, head) = post(&url, &[("Content-Type", "application/json")], body).await;
    assert_eq!(status, 401, "{head}: {reply}");
    assert!(head.to_ascii_lowercase().contains("www-authenticate: bearer"), "{head}");
    assert_eq!(reply["error"]["data"]["error"], "missing_bearer_token", "{reply}");

    let wrong = [("Content-Type", "application/json"), ("Authorization", "Bearer not-the-token")];
    let (status, reply, head) = post(&url, &wrong, body).await;
    assert_eq!(status, 401, "{head}: {reply}");
    assert!(head.contains(r#"error="invalid_token""#), "{head}");
    assert_eq!(reply["error"]["data"]["error"], "invalid_bearer_token", "{reply}");
    assert!(!reply.to_string().contains("not-the-token"), "the token is echoed: {reply}");

    let good = [("Content-Type", "application/json"), ("Authorization", "Bearer t0ken-for-tests")];
    let (status, reply, _) = post(&url, &good, body).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["structuredContent"]["data"], 7, "{reply}");
    server.abort();
}

/// A client that declares form elicitation and answers every elicitation with `answer`,
/// recording each form it was shown (message, requested schema).
#[derive(Clone)]
struct Approver {
    version: ProtocolVersion,
    answer: std::sync::Arc<std::sync::Mutex<ElicitResult>>,
    asked: std::sync::Arc<std::sync::Mutex<Vec<(String, Value)>>>,
}

impl Approver {
    fn answer(&self, action: ElicitationAction, content: Option<Value>) {
        let mut answer = ElicitResult::new(action);
        answer.content = content;
        *self.answer.lock().unwrap() = answer;
    }

    fn asked(&self) -> Vec<(String, Value)> {
        self.asked.lock().unwrap().clone()
    }
}

impl ClientHandler for Approver {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } = request {
            self.asked.lock().unwrap().push((message, serde_json::to_value(requested_schema).unwrap()));
        }
        Ok(self.answer.lock().unwrap().clone())
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        ClientConfig::new(capabilities, Implementation::new("mcp_e2e", "0")).with_protocol_version(self.version.clone())
    }
}

/// An [`Approver`] client of a new example server over stdio, speaking `version`.
async fn approver_client(version: &ProtocolVersion) -> (RunningService<RoleClient, Approver>, Approver) {
    let approver = Approver {
        version: version.clone(),
        answer: std::sync::Arc::new(std::sync::Mutex::new(ElicitResult::new(ElicitationAction::Cancel))),
        asked: std::sync::Arc::default(),
    };
    let transport = TokioChildProcess::new(Command::new(server())).expect("spawning the server");
    let lifecycle = if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover { preferred_versions: vec![version.clone()] }
    };
    let connecting = approver.clone().serve_with_lifecycle(transport, lifecycle);
    let client =
        timeout(READ_TIMEOUT, connecting).await.expect("the session starts in time").expect("the session starts");
    (client, approver)
}

/// `tools/call` through rmcp's high-level helper (which drives MRTR rounds): the envelope.
async fn envelope_of(client: &RunningService<RoleClient, Approver>, name: &'static str, args: Value) -> Value {
    let params = CallToolRequestParams::new(name).with_arguments(object(args));
    let result = timeout(READ_TIMEOUT, client.call_tool(params)).await.unwrap().unwrap();
    assert_text_is_structured(&result);
    assert_conforms(name, result.structured_content.as_ref().unwrap());
    assert_result_type(&result, &client.service().version);
    result.structured_content.unwrap()
}

async fn new_note(client: &RunningService<RoleClient, Approver>, title: &str) -> Value {
    let created = envelope_of(client, "create_note", json!({ "title": title })).await;
    assert_eq!(created["status"], "ok", "{created}");
    created["data"]["id"].clone()
}

/// 2026-07-28 with elicitation: rmcp's client answers the approval form through its
/// `ClientHandler` and retries; only an accepted `approved: true` deletes, and only once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_is_approved_through_elicitation_on_2026_07_28() {
    let (client, approver) = approver_client(&ProtocolVersion::V_2026_07_28).await;
    let id = new_note(&client, "elicited").await;
    let delete = json!({ "note_id": id });

    approver.answer(ElicitationAction::Decline, None);
    let declined = envelope_of(&client, "delete_note", delete.clone()).await;
    assert_eq!(declined["status"], "ok", "{declined}");
    assert_eq!(declined["data"], json!({"done": false, "reason": "declined"}));
    approver.answer(ElicitationAction::Accept, Some(json!({"approved": false})));
    let not_approved = envelope_of(&client, "delete_note", delete.clone()).await;
    assert_eq!(not_approved["data"], json!({"done": false, "reason": "declined"}));
    approver.answer(ElicitationAction::Cancel, None);
    let cancelled = envelope_of(&client, "delete_note", delete.clone()).await;
    assert_eq!(cancelled["data"], json!({"done": false, "reason": "cancelled"}));
    assert_eq!(envelope_of(&client, "list_notes", json!({})).await["data"].as_array().unwrap().len(), 1);

    approver.answer(ElicitationAction::Accept, Some(json!({"approved": true})));
    let deleted = envelope_of(&client, "delete_note", delete.clone()).await;
    assert_eq!(deleted["status"], "ok", "{deleted}");
    assert_eq!(deleted["data"], json!({"deleted": {"id": id, "title": "elicited"}}));
    assert_eq!(envelope_of(&client, "list_notes", json!({})).await["data"], json!([]));

    // One form per call, showing the preview to the person.
    let asked = approver.asked();
    assert_eq!(asked.len(), 4, "{asked:?}");
    let (message, schema) = &asked[3];
    assert!(message.starts_with("delete_note waits for your approval. It would do: "), "{message}");
    assert!(message.contains(r#""title":"elicited""#), "{message}");
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["approved"]));
    assert_eq!(schema["properties"]["approved"]["type"], "boolean");
    client.cancel().await.unwrap();
}

/// `call_tool_once` shows the `InputRequiredResult` itself; a forged `requestState` runs
/// nothing, other arguments are asked about afresh, and a used one is a conflict.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_input_required_result_and_its_request_state() {
    let (client, approver) = approver_client(&ProtocolVersion::V_2026_07_28).await;
    let first = new_note(&client, "first").await;
    let second = new_note(&client, "second").await;
    let try_once = |args: Value, state: Option<String>, approved: Option<Value>| {
        let client = &client;
        async move {
            let mut params = CallToolRequestParams::new("delete_note").with_arguments(object(args));
            params.request_state = state;
            if let Some(approved) = approved {
                let answer = json!({"action": "accept", "content": {"approved": approved}});
                params.input_responses = Some([("approval".to_owned(), answer)].into_iter().collect());
            }
            timeout(READ_TIMEOUT, client.call_tool_once(params)).await.unwrap()
        }
    };
    let once = |args: Value, state: Option<String>, approved: Option<Value>| {
        let call = try_once(args, state, approved);
        async move { call.await.unwrap() }
    };
    let CallToolResponse::InputRequired(asked) = once(json!({ "note_id": first }), None, None).await else {
        panic!("an InputRequiredResult");
    };
    let wire = serde_json::to_value(&asked).unwrap();
    assert_eq!(wire["resultType"], "input_required", "{wire}");
    let state = wire["requestState"].as_str().expect("requestState").to_owned();
    assert!(state.len() > 20, "{state}");
    let request = &wire["inputRequests"]["approval"];
    assert_eq!(request["method"], "elicitation/create", "{wire}");
    assert_eq!(request["params"]["mode"], "form", "{wire}");
    assert!(request["params"]["message"].as_str().unwrap().contains(r#""title":"first""#), "{wire}");
    assert_eq!(request["params"]["requestedSchema"]["properties"]["approved"]["type"], "boolean", "{wire}");
    assert_eq!(wire.as_object().unwrap().len(), 3, "nothing else: {wire}");
    assert!(approver.asked().is_empty(), "call_tool_once asks no one");

    let envelope = |response: CallToolResponse| match response {
        CallToolResponse::Complete(result) => {
            assert_text_is_structured(&result);
            result.structured_content.unwrap()
        }
        other => panic!("a complete result: {other:?}"),
    };
    let mut forged = state.clone();
    forged.replace_range(..4, if state.starts_with("AAAA") { "BBBB" } else { "AAAA" });
    let refused = envelope(once(json!({ "note_id": first }), Some(forged.clone()), Some(json!(true))).await);
    assert_eq!(refused["error_code"], "NOT_FOUND", "{refused}");
    // Named as the client sent it, with a fix for this door.
    assert_eq!(refused["hints"]["parameter"], "requestState", "{refused}");
    assert_eq!(
        refused["hints"]["fix"],
        "Call the tool again without requestState: its input_required result asks the person afresh."
    );
    // The id is checked before the answer: no action waits under a forged one, whatever the
    // answer says.
    let refused = envelope(once(json!({ "note_id": first }), Some(forged), Some(json!("yes"))).await);
    assert_eq!(refused["error_code"], "NOT_FOUND", "{refused}");
    assert_eq!(envelope_of(&client, "list_notes", json!({})).await["data"].as_array().unwrap().len(), 2);

    // The state of the first note's delete, sent with the second's arguments: asked afresh.
    let CallToolResponse::InputRequired(again) =
        once(json!({ "note_id": second }), Some(state.clone()), Some(json!(true))).await
    else {
        panic!("a fresh InputRequiredResult");
    };
    // Other arguments are a new call whatever the answer says.
    let CallToolResponse::InputRequired(_) =
        once(json!({ "note_id": second }), Some(state.clone()), Some(json!("yes"))).await
    else {
        panic!("a fresh InputRequiredResult");
    };
    let again_state = again.request_state.clone().unwrap();
    assert_ne!(again_state, state);
    assert_eq!(envelope_of(&client, "list_notes", json!({})).await["data"].as_array().unwrap().len(), 2);

    // An answer that is neither true nor false is refused by name, and uses nothing up.
    for approved in [json!("yes"), json!(1), Value::Null] {
        let refused = try_once(json!({ "note_id": first }), Some(state.clone()), Some(approved.clone())).await;
        let Err(rmcp::ServiceError::McpError(error)) = refused else { panic!("{approved}: {refused:?}") };
        assert_eq!(error.code.0, -32602, "{approved}");
        assert_eq!(
            error.message,
            format!(
                "inputResponses.approval.content.approved is {approved}; accepted: true or false, the form's boolean. \
                 Send the person's answer as true or false; the action still waits for it"
            )
        );
    }
    assert_eq!(envelope_of(&client, "list_notes", json!({})).await["data"].as_array().unwrap().len(), 2);
    // Read as `confirm_action` reads `approved`: the string "true" approves.
    let deleted = envelope(once(json!({ "note_id": first }), Some(state.clone()), Some(json!("true"))).await);
    assert_eq!(deleted["data"], json!({"deleted": {"id": first, "title": "first"}}), "{deleted}");
    let used = envelope(once(json!({ "note_id": first }), Some(state), Some(json!(true))).await);
    assert_eq!(used["error_code"], "CONFLICT", "{used}");
    assert_eq!(used["hints"]["parameter"], "requestState", "{used}");
    let notes = envelope_of(&client, "list_notes", json!({})).await;
    assert_eq!(notes["data"].as_array().unwrap().len(), 1, "{notes}");
    assert_eq!(notes["data"][0]["title"], "second", "{notes}");
    client.cancel().await.unwrap();
}

/// A 2025-11-25 client that declares elicitation keeps the envelope flow: `needs_confirmation`,
/// no form shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_11_25_client_still_gets_needs_confirmation() {
    let (client, approver) = approver_client(&ProtocolVersion::V_2025_11_25).await;
    approver.answer(ElicitationAction::Accept, Some(json!({"approved": true})));
    let id = new_note(&client, "kept").await;
    let params = CallToolRequestParams::new("delete_note").with_arguments(object(json!({ "note_id": id })));
    let result = timeout(READ_TIMEOUT, client.call_tool(params)).await.unwrap().unwrap();
    let queued = result.structured_content.unwrap();
    assert_conforms("delete_note", &queued);
    assert_eq!(queued["status"], "needs_confirmation", "{queued}");
    assert!(queued["pending_action_id"].is_string(), "{queued}");
    assert!(approver.asked().is_empty());
    client.cancel().await.unwrap();
}
