//! Model APIs called directly: each provider's tool definitions, from the same declaration, and
//! each provider's tool-result message for a tool call, carrying the envelope.
//!
#![doc = include_str!("../../docs/providers.md")]

// A provider's tool calls answered with its tool-result messages.
mod calls;
// The schema dialects: the `inputSchema` rewritten for each provider.
mod dialect;

pub use calls::{ToolResult, answer, answer_in, answer_reply, answer_reply_in, tool_calls};

use serde_json::{Value, json};

use crate::call::registry::Toolbox;
use crate::call::tool::Tool;

/// A model API whose tool definitions and tool calls this module speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`): `tools`, `message.tool_calls`,
    /// messages of role `tool`.
    OpenAiChat,
    /// OpenAI Responses (`POST /v1/responses`): flat function tools, `function_call` items,
    /// `function_call_output` items.
    OpenAiResponses,
    /// Anthropic Messages (`POST /v1/messages`): `tools`, `tool_use` and `tool_result` blocks.
    Anthropic,
    /// Gemini API (`generateContent`): `functionDeclarations`, `functionCall` and
    /// `functionResponse` parts.
    Gemini,
}

impl Provider {
    /// Every provider, in this order.
    pub const ALL: [Provider; 4] =
        [Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini];

    /// `openai` (Chat Completions), `openai-responses`, `anthropic`, `gemini`.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// The provider of a [`name`](Self::name) (`openai-chat` too), in any letter case.
    pub fn from_name(name: &str) -> Option<Provider> {
        match name.to_ascii_lowercase().as_str() {
            "openai" | "openai-chat" => Some(Provider::OpenAiChat),
            "openai-responses" => Some(Provider::OpenAiResponses),
            "anthropic" => Some(Provider::Anthropic),
            "gemini" => Some(Provider::Gemini),
            _ => None,
        }
    }
}

/// How a toolbox's tools are exported for one provider: [`Export::new`], then
/// [`tools`](Self::tools) or [`tool`](Self::tool). OpenAI tools are strict unless
/// [`non_strict`](Self::non_strict); the other providers have no such switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Export {
    provider: Provider,
    strict: bool,
}

impl Export {
    /// The definitions of `provider`; OpenAI's with `"strict": true`.
    pub const fn new(provider: Provider) -> Self {
        Export { provider, strict: true }
    }

    /// OpenAI tools with `"strict": false` and the JSON Schema of the MCP `inputSchema`
    /// (best-effort function calling: the model may leave optional parameters out). Said
    /// explicitly, since the Responses API makes a tool without `strict` strict.
    #[must_use]
    pub const fn non_strict(self) -> Self {
        Export { strict: false, ..self }
    }

    /// The provider.
    pub const fn provider(&self) -> Provider {
        self.provider
    }

    /// Whether OpenAI's strict mode is on (always `false` for the other providers).
    pub const fn is_strict(&self) -> bool {
        self.strict && matches!(self.provider, Provider::OpenAiChat | Provider::OpenAiResponses)
    }

    fn dialect(&self) -> dialect::Dialect {
        match self.provider {
            Provider::OpenAiChat | Provider::OpenAiResponses if self.strict => dialect::Dialect::OpenAiStrict,
            Provider::OpenAiChat | Provider::OpenAiResponses => dialect::Dialect::OpenAi,
            Provider::Anthropic => dialect::Dialect::Anthropic,
            Provider::Gemini => dialect::Dialect::Gemini,
        }
    }

    /// One tool's definition (see the table of the [module](self)).
    pub fn tool(&self, tool: &Tool) -> Value {
        let converted = dialect::convert(tool, self.dialect());
        let name = tool.name();
        let description = converted.description;
        let parameters = converted.parameters;
        match self.provider {
            Provider::OpenAiChat => {
                let mut function = serde_json::Map::new();
                function.insert("name".into(), json!(name));
                if !description.is_empty() {
                    function.insert("description".into(), json!(description));
                }
                function.insert("parameters".into(), parameters.unwrap_or_else(empty_object));
                function.insert("strict".into(), json!(self.is_strict()));
                json!({"type": "function", "function": function})
            }
            Provider::OpenAiResponses => {
                let mut m = serde_json::Map::new();
                m.insert("type".into(), json!("function"));
                m.insert("name".into(), json!(name));
                if !description.is_empty() {
                    m.insert("description".into(), json!(description));
                }
                m.insert("parameters".into(), parameters.unwrap_or_else(empty_object));
                m.insert("strict".into(), json!(self.is_strict()));
                Value::Object(m)
            }
            Provider::Anthropic => {
                let mut m = serde_json::Map::new();
                m.insert("name".into(), json!(name));
                if !description.is_empty() {
                    m.insert("description".into(), json!(description));
                }
                m.insert("input_schema".into(), parameters.unwrap_or_else(empty_object));
                Value::Object(m)
            }
            Provider::Gemini => {
                let mut m = serde_json::Map::new();
                m.insert("name".into(), json!(name));
                if !description.is_empty() {
                    m.insert("description".into(), json!(description));
                }
                // Gemini refuses an OBJECT without properties: a tool without parameters has none.
                if let Some(p) = parameters {
                    m.insert("parameters".into(), p);
                }
                Value::Object(m)
            }
        }
    }

    /// Every tool of `toolbox`, in registration order (`confirm_action` last when present): the
    /// array the provider's API takes as `tools` (for Gemini, as
    /// `tools: [{"functionDeclarations": <this>}]`).
    pub fn tools(&self, toolbox: &Toolbox) -> Vec<Value> {
        toolbox.tools().iter().map(|t| self.tool(t)).collect()
    }
}

/// [`Export::new(provider).tools(toolbox)`](Export::tools): the tool definitions of `provider`
/// (OpenAI's strict).
pub fn tools(toolbox: &Toolbox, provider: Provider) -> Vec<Value> {
    Export::new(provider).tools(toolbox)
}

fn empty_object() -> Value {
    json!({"type": "object", "properties": {}})
}
