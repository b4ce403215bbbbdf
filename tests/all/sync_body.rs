//! Over MCP, a sync tool's arguments are read on the runtime's thread and only a body that will
//! run goes to tokio's blocking threads: the answer is the one `Toolbox::call_json` gives, a
//! panic in the body is a `BACKEND_ERROR` fault, and the body does not run on the thread that
//! serves the session.

use std::sync::Mutex;
use std::thread::ThreadId;

use envelope_core::Toolbox;
use envelope_core::mcp::{McpServer, serve_io};
use envelope_core::tool;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::block_on;

static RAN_ON: Mutex<Vec<ThreadId>> = Mutex::new(Vec::new());

/// Gives back a small number; 7 makes it panic.
#[tool]
fn small(#[validate(range = 0..=10)] n: u32) -> u32 {
    RAN_ON.lock().unwrap().push(std::thread::current().id());
    assert!(n != 7, "seven");
    n
}

#[test]
fn a_sync_body_runs_off_the_session_thread_and_answers_as_call_json_does() {
    let toolbox = Toolbox::new().with(small::tool());
    let direct: Vec<String> = [r#"{"n": 3}"#, r#"{"n": 11}"#]
        .iter()
        .map(|args| block_on(toolbox.call_json("small", args)).unwrap().to_json())
        .collect();
    RAN_ON.lock().unwrap().clear();
    let session_thread = std::thread::current().id();
    let replies = block_on(async {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_in, server_out) = tokio::io::split(server);
        let served = tokio::spawn(serve_io(McpServer::new(toolbox), server_in, server_out));
        let (output, mut input) = tokio::io::split(client);
        let mut output = BufReader::new(output);
        let mut lines = vec![
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
                "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ];
        for (id, n) in [(2, 3), (3, 11), (4, 7)] {
            lines.push(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "small", "arguments": {"n": n}}}));
        }
        for line in lines {
            input.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        }
        let mut replies = std::collections::BTreeMap::new();
        while replies.len() < 4 {
            let mut line = String::new();
            output.read_line(&mut line).await.unwrap();
            let reply: Value = serde_json::from_str(&line).unwrap();
            replies.insert(reply["id"].as_i64().unwrap(), reply);
        }
        input.shutdown().await.unwrap();
        drop(input);
        served.await.unwrap().unwrap();
        replies
    });
    // The valid call and the refusal answer as `call_json` does.
    for (id, expected) in [(2, &direct[0]), (3, &direct[1])] {
        let text = replies[&id]["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(text, expected.as_str(), "reply {id}");
    }
    assert_eq!(replies[&3]["result"]["isError"], true);
    let fault = &replies[&4]["result"]["structuredContent"];
    assert_eq!(fault["error_code"], "BACKEND_ERROR", "{fault}");
    assert_eq!(fault["retryable"], false, "{fault}");
    // Two bodies ran (3 and the panicking 7; 11 was refused before), neither on the session's thread.
    let ran = RAN_ON.lock().unwrap().clone();
    assert_eq!(ran.len(), 2, "{ran:?}");
    assert!(ran.iter().all(|t| *t != session_thread), "{ran:?}");
}
