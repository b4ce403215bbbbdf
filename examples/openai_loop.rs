//! One turn of an agent loop against the OpenAI API, without the network: the tool definitions
//! it would send (strict function tools), the model's reply (recorded below: one valid and one
//! invalid tool call), and the tool-result messages it would append before asking the model
//! again. The refused call's message tells the model what to change.
//!
//! `cargo run --example openai_loop` (Chat Completions) or `cargo run --example openai_loop --
//! --responses` (the Responses API).

use envelope_core::Toolbox;
use envelope_core::providers::{self, Export, Provider};
use serde_json::{Value, json};

#[allow(dead_code)] // each example uses some of the tools module
mod tools;

/// A Chat Completions response (`POST /v1/chat/completions`) asking for two tool calls. In
/// strict mode the model sends every parameter, `null` for those it leaves to their default.
/// The second breaks a rule between parameters: hourly rows need `data_state` `HOURLY_ALL`.
pub const CHAT_REPLY: &str = r#"{
  "id": "chatcmpl-C3mPq8Zt1rYw6fVx0bN2aLk9",
  "object": "chat.completion",
  "created": 1767225600,
  "model": "gpt-4.1-2025-04-14",
  "choices": [{
    "index": 0,
    "message": {
      "role": "assistant",
      "content": null,
      "refusal": null,
      "tool_calls": [
        {"id": "call_8fJ2kQ1xLm4t", "type": "function",
         "function": {"name": "get_top_queries",
                      "arguments": "{\"hours_back\":24,\"group_by\":\"database\",\"top\":null}"}},
        {"id": "call_3Rb7pWc0Vz9e", "type": "function",
         "function": {"name": "search_analytics",
                      "arguments": "{\"dimension\":\"hour\",\"data_state\":null,\"row_limit\":null}"}}
      ]
    },
    "finish_reason": "tool_calls"
  }]
}"#;

/// A Responses API response (`POST /v1/responses`) with two `function_call` items; the second
/// sends an empty title.
pub const RESPONSES_REPLY: &str = r#"{
  "id": "resp_68a1c2d3e4f5",
  "object": "response",
  "status": "completed",
  "model": "gpt-4.1-2025-04-14",
  "output": [
    {"type": "function_call", "id": "fc_01", "call_id": "call_Hn4s0Lq2Xa7d", "name": "list_notes",
     "arguments": "{\"pinned_only\":null}", "status": "completed"},
    {"type": "function_call", "id": "fc_02", "call_id": "call_Tz5m1Kp8Wc3b", "name": "create_note",
     "arguments": "{\"title\":\"\",\"tags\":null,\"pinned\":null,\"idempotency_key\":null}", "status": "completed"}
  ]
}"#;

/// One turn: what is sent, what came back, what is appended.
pub struct Turn {
    /// The `tools` of the request.
    pub tools: Vec<Value>,
    /// The model's reply.
    pub reply: Value,
    /// The messages (Chat Completions) or input items (Responses) to append after the reply.
    pub results: Vec<Value>,
}

/// Runs one turn against the recorded reply of `provider` (`OpenAiChat` or `OpenAiResponses`).
pub async fn turn(toolbox: &Toolbox, provider: Provider) -> Turn {
    let tools = Export::new(provider).tools(toolbox).expect("the example tools are within OpenAI's limits");
    let recorded = if provider == Provider::OpenAiResponses { RESPONSES_REPLY } else { CHAT_REPLY };
    let reply: Value = serde_json::from_str(recorded).expect("the recorded reply is JSON");
    let results = providers::answer_reply(toolbox, provider, &reply).await;
    Turn { tools, reply, results }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let responses = std::env::args().any(|a| a == "--responses");
    let provider = if responses { Provider::OpenAiResponses } else { Provider::OpenAiChat };
    let turn = turn(&tools::toolbox(), provider).await;
    let pretty = |v: &Value| serde_json::to_string_pretty(v).expect("plain JSON");
    println!("# request: the tools (with the model, the conversation)\n{}", pretty(&json!({"tools": turn.tools})));
    println!("# the model's reply (recorded)\n{}", pretty(&turn.reply));
    println!("# appended to the conversation, then the model is asked again\n{}", pretty(&Value::Array(turn.results)));
}
