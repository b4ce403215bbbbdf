//! One turn of an agent loop against the Gemini API, without the network: the function
//! declarations it would send, the model's reply (recorded below: one valid and one invalid
//! `functionCall`), and the content of `functionResponse` parts it would append before asking
//! the model again. The invalid call names a tool that does not exist; its response names the
//! closest one.
//!
//! The declarations carry `parameters` (Gemini's OpenAPI `Schema`), or with `--json-schema`
//! `parametersJsonSchema` (JSON Schema), with the function-calling mode `VALIDATED`, which holds
//! the model's calls to the declarations.
//!
//! `cargo run --example gemini_loop [-- --json-schema]`.

use envelope_core::Toolbox;
use envelope_core::providers::{self, Export, Provider};
use serde_json::{Value, json};

#[allow(dead_code)] // each example uses some of the tools module
mod tools;

/// A `generateContent` response with two `functionCall` parts; the second misspells the tool.
pub const REPLY: &str = r#"{
  "candidates": [{
    "content": {
      "role": "model",
      "parts": [
        {"functionCall": {"id": "fc-7a1e", "name": "search_analytics",
                          "args": {"dimension": "hour", "data_state": "HOURLY_ALL"}}},
        {"functionCall": {"id": "fc-7a1f", "name": "get_top_query",
                          "args": {"hours_back": 48, "group_by": "application"}}}
      ]
    },
    "finishReason": "STOP"
  }],
  "modelVersion": "gemini-2.5-flash"
}"#;

/// One turn: what is sent, what came back, what is appended.
pub struct Turn {
    /// The `tools` of the request: `[{"functionDeclarations": [...]}]`.
    pub tools: Vec<Value>,
    /// The `toolConfig` of the request (`parametersJsonSchema` only):
    /// `{"functionCallingConfig": {"mode": "VALIDATED"}}`.
    pub tool_config: Option<Value>,
    /// The model's reply.
    pub reply: Value,
    /// The content to append after the reply's: `{"role": "user", "parts": [functionResponse, ...]}`.
    pub results: Vec<Value>,
}

/// Runs one turn against the recorded reply; `json_schema`: the declarations with
/// `parametersJsonSchema`.
pub async fn turn(toolbox: &Toolbox, json_schema: bool) -> Turn {
    let export = if json_schema { Export::new(Provider::Gemini).json_schema() } else { Export::new(Provider::Gemini) };
    let declarations = export.tools(toolbox).expect("the example tools are within Gemini's limits");
    let tool_config = json_schema.then(|| json!({"functionCallingConfig": {"mode": "VALIDATED"}}));
    let reply: Value = serde_json::from_str(REPLY).expect("the recorded reply is JSON");
    let results = providers::answer_reply(toolbox, Provider::Gemini, &reply).await;
    Turn { tools: vec![json!({"functionDeclarations": declarations})], tool_config, reply, results }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let json_schema = std::env::args().any(|a| a == "--json-schema");
    let turn = turn(&tools::toolbox(), json_schema).await;
    let pretty = |v: &Value| serde_json::to_string_pretty(v).expect("plain JSON");
    let mut request = json!({"tools": turn.tools});
    if let Some(config) = turn.tool_config {
        request["toolConfig"] = config;
    }
    println!("# request: the tools (with the contents)\n{}", pretty(&request));
    println!("# the model's reply (recorded)\n{}", pretty(&turn.reply));
    println!("# appended to the contents, then the model is asked again\n{}", pretty(&Value::Array(turn.results)));
}
