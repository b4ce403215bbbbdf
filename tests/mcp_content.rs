//! Tool answers beyond one JSON block, and tools that ask their client, over MCP stdio
//! (`envelope_core::mcp::serve_io`): an image answer's blocks come first and the envelope's
//! text block last, while `structuredContent` stays the envelope; a tool that samples gets the client's answer
//! when the client declared `sampling`, and a client that did not is answered -32021 at once.

use std::time::Duration;

#[path = "support/http_client.rs"]
mod http_client;

use envelope_core::{
    ClientAsk, ClientError, Context, Fault, Toolbox,
    mcp::{McpServer, content::Contents, serve_io, streamable::McpHttp},
    tool,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// Answers a tiny PNG.
#[tool(read_only)]
fn picture() -> Contents {
    Contents::new().text("a red pixel").image([0x89, b'P', b'N', b'G'], "image/png")
}

/// Asks the client's model.
#[tool(read_only)]
async fn ask_model(#[validate(length = 1..=64)] prompt: String, cx: Context) -> Result<String, Fault> {
    cx.sample(prompt, 50).await.map_err(|e: ClientError| Fault::backend(e.to_string()))
}

/// Asks the user's name under the key `name`, then greets.
#[tool(read_only)]
async fn greet(cx: Context) -> Result<String, Fault> {
    let form = json!({"message": "Your name?", "requestedSchema": {
        "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}});
    let answer = cx.ask("name", ClientAsk::Elicitation, form).await.map_err(|e| Fault::backend(e.to_string()))?;
    Ok(format!("Hello, {}!", answer["content"]["name"].as_str().unwrap_or("?")))
}

/// What the form asks for: its JSON Schema is the `requestedSchema`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Contact {
    /// The person's name.
    name: String,
    /// Their age in years.
    age: u8,
}

/// Asks the user for a `Contact`.
#[tool(read_only)]
async fn contact(cx: Context) -> Result<String, Fault> {
    match cx.elicit_as::<Contact>("Who should we call?").await {
        Ok(Some(c)) => Ok(format!("{} ({})", c.name, c.age)),
        Ok(None) => Ok("declined".to_owned()),
        Err(e) => Err(Fault::backend(e.to_string())),
    }
}

/// Sends the user to a sign-in page (URL-mode elicitation) and says what the user chose.
#[tool(read_only)]
async fn sign_in(cx: Context) -> Result<String, Fault> {
    let chose = cx.elicit_url("Sign in to the calendar", "https://auth.example.com/start?s=abc", "el-42").await;
    chose.map(|action| format!("{action:?}")).map_err(|e| Fault::backend(e.to_string()))
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(picture::tool())
        .with(ask_model::tool())
        .with(greet::tool())
        .with(contact::tool())
        .with(sign_in::tool())
}

fn server() -> McpServer {
    McpServer::new(toolbox()).with_client_requests()
}

struct Session {
    input: WriteHalf<DuplexStream>,
    output: Lines<BufReader<ReadHalf<DuplexStream>>>,
}

impl Session {
    async fn start(capabilities: Value) -> Self {
        let (client, server_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(serve_io(server(), server_read, server_write));
        let (read, input) = tokio::io::split(client);
        let mut session = Session { input, output: BufReader::new(read).lines() };
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "0"}}});
        session.send(&initialize).await;
        let reply = session.read().await;
        assert_eq!(reply["result"]["protocolVersion"], "2025-11-25", "{reply}");
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        session
    }

    async fn send(&mut self, message: &Value) {
        self.input.write_all(message.to_string().as_bytes()).await.unwrap();
        self.input.write_all(b"\n").await.unwrap();
        self.input.flush().await.unwrap();
    }

    /// Calls `tool` with `arguments`, answers the request it makes of the client with `result`,
    /// and returns the request and the call's envelope.
    async fn answered(&mut self, id: u64, tool: &str, arguments: Value, result: &Value) -> (Value, Value) {
        self.send(&call(id, tool, arguments)).await;
        let request = self.read().await;
        self.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": result})).await;
        let reply = self.read().await;
        (request, reply["result"]["structuredContent"].clone())
    }

    /// As [`Self::answered`], the answer's `result` sent as the text `result` (a key twice).
    async fn answered_as(&mut self, id: u64, tool: &str, arguments: Value, result: &str) -> (Value, Value) {
        self.send(&call(id, tool, arguments)).await;
        let request = self.read().await;
        let answer = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#, request["id"]);
        self.input.write_all(answer.as_bytes()).await.unwrap();
        self.input.write_all(b"\n").await.unwrap();
        self.input.flush().await.unwrap();
        let reply = self.read().await;
        (request, reply["result"]["structuredContent"].clone())
    }

    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(READ_TIMEOUT, self.output.next_line())
            .await
            .expect("no line from the server in time")
            .unwrap()
            .expect("the server closed its output");
        serde_json::from_str(&line).unwrap()
    }
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[tokio::test]
async fn an_image_answer_is_its_blocks_then_the_envelope_text() {
    let mut session = Session::start(json!({})).await;
    session.send(&call(1, "picture", json!({}))).await;
    let reply = session.read().await;
    let result = &reply["result"];
    assert_eq!(result["isError"], false);
    let content = result["content"].as_array().unwrap();
    assert_eq!(content.len(), 3, "{result}");
    // The tool's own blocks first, in its order: a client shows them as the answer.
    assert_eq!(content[0], json!({"type": "text", "text": "a red pixel"}));
    assert_eq!(content[1], json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"}));
    // The last block is the envelope's exact text; the consumer reads the outcome there or in
    // structuredContent, never in the tool's blocks.
    let envelope: Value = serde_json::from_str(content[2]["text"].as_str().unwrap()).unwrap();
    assert_eq!(envelope, result["structuredContent"]);
    assert_eq!(envelope["status"], "ok");
    assert_eq!(result["structuredContent"]["data"]["content"][1]["type"], "image");
}

#[tokio::test]
async fn a_client_without_sampling_is_answered_the_missing_capability_error() {
    let mut session = Session::start(json!({})).await;
    session.send(&call(2, "ask_model", json!({"prompt": "hi"}))).await;
    let reply = session.read().await;
    assert_eq!(reply["id"], 2, "{reply}");
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(reply["error"]["data"], json!({"requiredCapabilities": {"sampling": {}}}));
}

#[tokio::test]
async fn a_tool_samples_through_a_client_that_declared_sampling() {
    let mut session = Session::start(json!({"sampling": {}})).await;
    session.send(&call(3, "ask_model", json!({"prompt": "What is 2+2?"}))).await;
    let request = session.read().await;
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    assert_eq!(request["params"]["maxTokens"], 50);
    assert_eq!(request["params"]["messages"][0]["content"]["text"], "What is 2+2?");
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "role": "assistant", "content": {"type": "text", "text": "4"}, "model": "m", "stopReason": "endTurn"}});
    session.send(&answer).await;
    let reply = session.read().await;
    assert_eq!(reply["id"], 3, "{reply}");
    assert_eq!(reply["result"]["structuredContent"]["data"], "4", "{reply}");
}

/// A sampling reply without text, or an elicitation answer of another shape than MCP's, is an
/// error the tool sees, never an empty answer read as the user's or the model's.
#[tokio::test]
async fn an_answer_that_does_not_read_is_an_error_not_an_empty_answer() {
    let mut session = Session::start(json!({"sampling": {}, "elicitation": {}})).await;
    let sampled = [
        (json!({}), "its content is missing"),
        (json!(null), "its content is missing"),
        (json!({"role": "assistant", "content": "4"}), "its content is a string"),
        (
            json!({"role": "assistant", "content": {"type": "image", "data": "AA==", "mimeType": "image/png"}}),
            "its content is a block of type \"image\"",
        ),
        (json!({"role": "assistant", "content": []}), "its content is an empty list"),
    ];
    for (id, (result, why)) in (10..).zip(sampled) {
        let (_, envelope) = session.answered(id, "ask_model", json!({"prompt": "2+2?"}), &result).await;
        assert_eq!(envelope["status"], "error", "{result}: {envelope}");
        let message = envelope["message"].as_str().unwrap();
        assert!(
            message.contains(&format!(
                "the client's answer to sampling/createMessage cannot be read: {why}, where a text block is read"
            )),
            "{result}: {message}"
        );
    }
    // A list of blocks: the first text block's text; an empty text is an answer.
    for (id, (content, said)) in (20..).zip([
        (json!([{"type": "image", "data": "AA==", "mimeType": "image/png"}, {"type": "text", "text": "4"}]), "4"),
        (json!({"type": "text", "text": ""}), ""),
    ]) {
        let result = json!({"role": "assistant", "content": content, "model": "m"});
        let (_, envelope) = session.answered(id, "ask_model", json!({"prompt": "2+2?"}), &result).await;
        assert_eq!(envelope["data"], said, "{envelope}");
    }
    let elicited = [
        (
            json!({"action": "bogus"}),
            "its action is \"bogus\"; MCP's actions are \"accept\", \"decline\" and \"cancel\"",
        ),
        (json!({}), "it has no action; MCP's actions"),
        (
            json!({"action": "accept", "content": "x"}),
            "its content is a string; MCP defines it as an object of the values entered",
        ),
        (json!({"action": "accept", "content": {"name": "Ada", "age": "old"}}), "its content does not read as"),
    ];
    for (id, (result, why)) in (30..).zip(elicited) {
        let (request, envelope) = session.answered(id, "contact", json!({}), &result).await;
        assert_eq!(request["method"], "elicitation/create", "{request}");
        assert_eq!(envelope["status"], "error", "{result}: {envelope}");
        let message = envelope["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("the client's answer to elicitation/create cannot be read: {why}")),
            "{result}: {message}"
        );
        // A read-only tool's fault keeps BACKEND_ERROR's own retry class.
        assert_eq!(envelope["retry"], "with_backoff", "{envelope}");
    }
    // A key sent twice in the answer is never read as its last value: the body is told.
    for (id, result, said) in [
        (
            40,
            r#"{"action":"decline","action":"accept","content":{"name":"Ada","age":3}}"#,
            "result.action is sent twice",
        ),
        (
            41,
            r#"{"action":"accept","content":{"name":"Ada","name":"Bob","age":3}}"#,
            "result.content.name is sent twice",
        ),
    ] {
        let (_, envelope) = session.answered_as(id, "contact", json!({}), result).await;
        assert_eq!(envelope["status"], "error", "{result}: {envelope}");
        let message = envelope["message"].as_str().unwrap();
        assert!(message.contains(&format!("the client's answer: {said}")), "{result}: {message}");
    }
}

#[tokio::test]
async fn a_call_outside_an_mcp_session_cannot_ask_its_client() {
    let cx = Context::anonymous();
    assert_eq!(cx.sample("hi", 5).await, Err(ClientError::Unavailable));
    let arguments = json!({"prompt": "hi"});
    let envelope = Toolbox::new().with(ask_model::tool()).call("ask_model", Some(&arguments)).await.unwrap();
    assert_eq!(envelope.to_value()["status"], "error", "{}", envelope.to_value());
}

/// One stateless 2026-07-28 `tools/call` of `name` over Streamable HTTP, the client declaring
/// `capabilities`, with `extra` params (`inputResponses`, `requestState`).
async fn call_2026(addr: std::net::SocketAddr, name: &str, capabilities: Value, extra: Value) -> (u16, Value) {
    let mut params = json!({"name": name, "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities}});
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string();
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", name),
    ];
    let reply = http_client::send(addr, "POST", "/mcp", &headers, &body).await;
    (reply.status, reply.json_rpc())
}

#[tokio::test]
async fn an_image_answer_over_streamable_http_carries_its_blocks() {
    let addr = http_client::serve(McpHttp::new(toolbox()).router()).await;
    let (status, reply) = call_2026(addr, "picture", json!({}), json!({})).await;
    assert_eq!(status, 200, "{reply}");
    let result = &reply["result"];
    assert_eq!(result["resultType"], "complete", "{reply}");
    assert_eq!(result["content"][0], json!({"type": "text", "text": "a red pixel"}));
    assert_eq!(result["content"][1], json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"}));
    let envelope: Value = serde_json::from_str(result["content"][2]["text"].as_str().unwrap()).unwrap();
    assert_eq!(envelope, result["structuredContent"]);
    assert_eq!(result["structuredContent"]["status"], "ok");
}

#[tokio::test]
async fn a_stateless_call_asks_through_an_input_required_result_and_refuses_a_tampered_state() {
    let addr = http_client::serve(McpHttp::with_handler(server()).router()).await;
    let elicits = json!({"elicitation": {}});
    let (_, first) = call_2026(addr, "greet", elicits.clone(), json!({})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert_eq!(result["inputRequests"]["name"]["method"], "elicitation/create");
    assert_eq!(result["inputRequests"]["name"]["params"]["message"], "Your name?");
    let state = result["requestState"].as_str().unwrap().to_owned();

    let answer = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
    let retry = json!({"inputResponses": answer, "requestState": state});
    let (_, done) = call_2026(addr, "greet", elicits.clone(), retry).await;
    assert_eq!(done["result"]["structuredContent"]["data"], "Hello, Ada!", "{done}");

    let tampered = json!({"inputResponses": answer, "requestState": format!("{state}-TAMPERED")});
    let (_, refused) = call_2026(addr, "greet", elicits.clone(), tampered).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("integrity"), "{refused}");

    // A client without the capability is answered -32021 (HTTP 400), never left waiting.
    let (status, missing) = call_2026(addr, "greet", json!({}), json!({})).await;
    assert_eq!(status, 400, "{missing}");
    assert_eq!(missing["error"]["code"], -32021, "{missing}");
    assert_eq!(missing["error"]["data"]["requiredCapabilities"], json!({"elicitation": {}}));
}

/// Reads server-sent events from `body` until one whose JSON satisfies `wanted`.
async fn next_event(body: &mut hyper::body::Incoming, buffer: &mut String, wanted: impl Fn(&Value) -> bool) -> Value {
    use http_body_util::BodyExt as _;
    loop {
        while let Some(end) = buffer.find('\n') {
            let line: String = buffer.drain(..=end).collect();
            if let Some(data) = line.trim_end().strip_prefix("data:")
                && let Ok(value) = serde_json::from_str::<Value>(data.trim())
                && wanted(&value)
            {
                return value;
            }
        }
        let frame = tokio::time::timeout(READ_TIMEOUT, body.frame())
            .await
            .expect("no event in time")
            .expect("the stream ended")
            .unwrap();
        if let Ok(data) = frame.into_data() {
            buffer.push_str(std::str::from_utf8(&data).unwrap());
        }
    }
}

#[tokio::test]
async fn a_2025_session_over_streamable_http_samples_on_the_calls_own_stream() {
    use hyper_util::rt::TokioIo;
    let addr = http_client::serve(McpHttp::with_handler(server()).with_sessions().router()).await;
    let json = [("content-type", "application/json"), ("accept", "application/json, text/event-stream")];
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"sampling": {}}, "clientInfo": {"name": "t", "version": "0"}}});
    let reply = http_client::send(addr, "POST", "/mcp", &json, &initialize.to_string()).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let session = reply.header("mcp-session-id").expect("a session id").to_owned();
    let in_session = [json[0], json[1], ("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    assert_eq!(http_client::send(addr, "POST", "/mcp", &in_session, &initialized).await.status, 202);

    // The call's response stream carries the server's request, then the reply.
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(conn);
    let mut request = hyper::Request::builder().method("POST").uri("/mcp").header("host", addr.to_string());
    for (k, v) in in_session {
        request = request.header(k, v);
    }
    let body = call(7, "ask_model", json!({"prompt": "What is 2+2?"})).to_string();
    let request = request.body(http_body_util::Full::new(hyper::body::Bytes::from(body))).unwrap();
    let response = sender.send_request(request).await.unwrap();
    assert_eq!(response.status(), 200);
    let mut events = response.into_body();
    let mut buffer = String::new();
    let asked = next_event(&mut events, &mut buffer, |v| v.get("method").is_some()).await;
    assert_eq!(asked["method"], "sampling/createMessage", "{asked}");
    assert_eq!(asked["params"]["messages"][0]["content"]["text"], "What is 2+2?");
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"], "result": {
        "role": "assistant", "content": {"type": "text", "text": "4"}, "model": "m", "stopReason": "endTurn"}});
    let posted = http_client::send(addr, "POST", "/mcp", &in_session, &answer.to_string()).await;
    assert_eq!(posted.status, 202, "{}", posted.text);
    let reply = next_event(&mut events, &mut buffer, |v| v.get("id") == Some(&json!(7))).await;
    assert_eq!(reply["result"]["structuredContent"]["data"], "4", "{reply}");

    // DELETE ends the session; its id is then unknown (404).
    let ended = http_client::send(addr, "DELETE", "/mcp", &in_session, "").await;
    assert!(ended.status == 200 || ended.status == 202 || ended.status == 204, "{} {}", ended.status, ended.text);
    let ping = json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}).to_string();
    assert_eq!(http_client::send(addr, "POST", "/mcp", &in_session, &ping).await.status, 404);
}

#[tokio::test]
async fn a_typed_elicitation_asks_with_the_types_schema_and_reads_the_answer_as_it() {
    let mut session = Session::start(json!({"elicitation": {}})).await;
    for (id, content, expected) in [
        (10, json!({"name": "Ada", "age": 36}), json!("Ada (36)")),
        (11, json!({"name": "Ada", "age": "old"}), Value::Null),
    ] {
        session.send(&call(id, "contact", json!({}))).await;
        let asked = session.read().await;
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        let schema = &asked["params"]["requestedSchema"];
        assert_eq!(schema["properties"]["name"]["type"], "string", "{schema}");
        assert_eq!(schema["required"], json!(["name", "age"]));
        let answer = json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": content}});
        session.send(&answer).await;
        let reply = session.read().await;
        let envelope = &reply["result"]["structuredContent"];
        if expected.is_null() {
            // An answer that does not read as the type: the call's fault names why.
            assert_eq!(envelope["status"], "error", "{reply}");
            assert_eq!(reply["result"]["isError"], true);
        } else {
            assert_eq!(envelope["data"], expected, "{reply}");
        }
    }
}

/// URL-mode elicitation (MCP 2025-11-25, SEP-1036): a client that declared
/// `{"elicitation": {"url": {}}}` gets `elicitation/create` with `mode: "url"`, the URL and the
/// elicitation id, and the tool reads the user's action; a client that declared form mode alone
/// is answered `-32021` naming `{"elicitation": {"url": {}}}`, never asked.
#[tokio::test]
async fn a_url_elicitation_sends_the_user_to_the_url_when_the_client_takes_url_mode() {
    let mut session = Session::start(json!({"elicitation": {"form": {}, "url": {}}})).await;
    session.send(&call(20, "sign_in", json!({}))).await;
    let asked = session.read().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    // rmcp adds its own `_meta` (a progress token) to every request it sends.
    let mut params = asked["params"].clone();
    params.as_object_mut().unwrap().remove("_meta");
    assert_eq!(
        params,
        json!({"mode": "url", "message": "Sign in to the calendar",
               "url": "https://auth.example.com/start?s=abc", "elicitationId": "el-42"})
    );
    session.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept"}})).await;
    let reply = session.read().await;
    assert_eq!(reply["result"]["structuredContent"]["data"], "Accept", "{reply}");

    let mut form_only = Session::start(json!({"elicitation": {}})).await;
    form_only.send(&call(21, "sign_in", json!({}))).await;
    let refused = form_only.read().await;
    assert_eq!(refused["id"], 21, "{refused}");
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(refused["error"]["data"]["requiredCapabilities"], json!({"elicitation": {"url": {}}}));
}
