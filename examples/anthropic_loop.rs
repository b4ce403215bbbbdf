//! One turn of an agent loop against the Anthropic Messages API, without the network: the tool
//! definitions it would send (strict tool use, `"strict": true`, with `tool_choice` `auto`: the
//! newest models refuse a forced tool choice with strict tools), the model's reply (recorded
//! below: one valid and one invalid `tool_use`), and the user message of `tool_result` blocks it
//! would append before asking the model again (`is_error: true` on the refused one, whose
//! content says what to change).
//!
//! `cargo run --example anthropic_loop`.

use envelope_core::Toolbox;
use envelope_core::providers::{self, Export, Provider};
use serde_json::{Value, json};

#[allow(dead_code)] // each example uses some of the tools module
mod tools;

/// A Messages API response (`POST /v1/messages`) with two `tool_use` blocks; the second tags the
/// note "Perf Review", which the tag pattern (lowercase letters, digits, dashes) refuses.
pub const REPLY: &str = r#"{
  "id": "msg_01XkV8qTz3mRb6Wn2Lc9Hd4E",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-5",
  "content": [
    {"type": "text", "text": "I'll look up the busiest databases and write that down as a note."},
    {"type": "tool_use", "id": "toolu_01Q7mZk3Vb8Tc2Xn5Rw1Lp6D", "name": "get_top_queries",
     "input": {"hours_back": 24, "group_by": "database"}},
    {"type": "tool_use", "id": "toolu_01H4sNd9Wq2Yf7Bm3Kt8Gv5J", "name": "create_note",
     "input": {"title": "Busiest databases", "tags": ["Perf Review"]}}
  ],
  "stop_reason": "tool_use"
}"#;

/// One turn: what is sent, what came back, what is appended.
pub struct Turn {
    /// The `tools` of the request (strict).
    pub tools: Vec<Value>,
    /// The `tool_choice` of the request: `{"type": "auto"}`.
    pub tool_choice: Value,
    /// The model's reply.
    pub reply: Value,
    /// The message to append after the reply: `{"role": "user", "content": [tool_result, ...]}`.
    pub results: Vec<Value>,
}

/// Runs one turn against the recorded reply.
pub async fn turn(toolbox: &Toolbox) -> Turn {
    let tools =
        Export::new(Provider::Anthropic).tools(toolbox).expect("the example tools are within Anthropic's limits");
    let reply: Value = serde_json::from_str(REPLY).expect("the recorded reply is JSON");
    let results = providers::answer_reply(toolbox, Provider::Anthropic, &reply).await;
    Turn { tools, tool_choice: json!({"type": "auto"}), reply, results }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let turn = turn(&tools::toolbox()).await;
    let pretty = |v: &Value| serde_json::to_string_pretty(v).expect("plain JSON");
    let request = json!({"tools": turn.tools, "tool_choice": turn.tool_choice});
    println!("# request: the tools and tool_choice (with the model, the messages)\n{}", pretty(&request));
    println!("# the model's reply (recorded)\n{}", pretty(&turn.reply));
    println!("# appended to the messages, then the model is asked again\n{}", pretty(&Value::Array(turn.results)));
}
