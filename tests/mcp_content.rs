//! Tool answers beyond one JSON block, and tools that ask their client, over MCP stdio
//! (`envelope_core::mcp::serve_io`): an image answer's blocks follow the envelope's text block
//! while `structuredContent` stays the envelope; a tool that samples gets the client's answer
//! when the client declared `sampling`, and a client that did not is answered -32021 at once.

use std::time::Duration;

use envelope_core::{
    ClientError, Context, Fault, Toolbox,
    mcp::{McpServer, content::Contents, serve_io},
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

fn server() -> McpServer {
    McpServer::new(Toolbox::new().with(picture::tool()).with(ask_model::tool())).with_client_requests()
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
async fn an_image_answer_is_its_blocks_after_the_envelope_text() {
    let mut session = Session::start(json!({})).await;
    session.send(&call(1, "picture", json!({}))).await;
    let reply = session.read().await;
    let result = &reply["result"];
    assert_eq!(result["isError"], false);
    let content = result["content"].as_array().unwrap();
    assert_eq!(content.len(), 3, "{result}");
    // The first block is the envelope's exact text; the consumer reads the outcome there or in
    // structuredContent, never in the tool's blocks.
    let envelope: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(envelope, result["structuredContent"]);
    assert_eq!(envelope["status"], "ok");
    assert_eq!(content[1], json!({"type": "text", "text": "a red pixel"}));
    assert_eq!(content[2], json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"}));
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

#[tokio::test]
async fn a_call_outside_an_mcp_session_cannot_ask_its_client() {
    let cx = Context::anonymous();
    assert_eq!(cx.sample("hi", 5).await, Err(ClientError::Unavailable));
    let arguments = json!({"prompt": "hi"});
    let envelope = Toolbox::new().with(ask_model::tool()).call("ask_model", Some(&arguments)).await.unwrap();
    assert_eq!(envelope.to_value()["status"], "error", "{}", envelope.to_value());
}
