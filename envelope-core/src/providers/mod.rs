//! Model APIs called directly: each provider's tool definitions, from the same declaration, and
//! each provider's tool-result message for a tool call, carrying the envelope.
//!
//! ## Tool definitions
//! [`Export`] (or [`tools`]) turns a toolbox's tools into the objects a provider's API takes in
//! its `tools` list, each `parameters` / `input_schema` in the schema dialect that provider
//! accepts:
//!
//! | provider | one tool | schema dialect |
//! |---|---|---|
//! | [`Provider::OpenAiChat`] | `{"type": "function", "function": {"name", "description", "parameters", "strict": true}}` | OpenAI strict mode (Structured Outputs): every property in `required`, the optional ones nullable (`"type": ["integer", "null"]`), `additionalProperties: false` on every object, only the keywords strict mode takes |
//! | [`Provider::OpenAiResponses`] | `{"type": "function", "name", "description", "parameters", "strict": true}` | the same |
//! | [`Provider::Anthropic`] | `{"name", "description", "input_schema"}` | JSON Schema 2020-12 without `allOf`/`anyOf`/`oneOf` at the top level |
//! | [`Provider::Gemini`] | `{"name", "description", "parameters"}` (the items of `tools[].functionDeclarations`) | Gemini's `Schema`, a subset of OpenAPI 3.0: only its fields, string `enum`s, no `additionalProperties`, `const`, `$ref`, `$schema` |
//!
//! [`Export::non_strict`] gives OpenAI tools with `"strict": false` and the JSON Schema as the
//! MCP `inputSchema` has it (top-level `allOf` removed, which OpenAI refuses in either mode).
//!
//! What a dialect cannot express (a cross-parameter rule, a keyword it does not take) is left out
//! of that schema and stated in one short sentence in the description of the property it
//! belonged to (`Must be a multiple of 5.`), or of the tool for a rule between parameters
//! (`When dimension is "hour", data_state must be "HOURLY_ALL".`). The tool still enforces it:
//! arguments that break it are refused with the usual refusal, which names the fix. What each
//! dialect keeps and drops:
//!
//! - OpenAI strict (the "Supported schemas" list of OpenAI's Structured Outputs guide): keeps
//!   `type`, `description`, `properties`, `required`, `additionalProperties`, `items`, `enum`,
//!   `const`, `anyOf`, `pattern`, `format` (`date-time`, `time`, `date`, `duration`, `email`,
//!   `hostname`, `ipv4`, `ipv6`, `uuid`), `minimum`, `maximum`, `exclusiveMinimum`,
//!   `exclusiveMaximum`, `multipleOf` (bounds within 64-bit integers), `minItems`, `maxItems`.
//!   Drops and states `minLength`/`maxLength`, `default` (`Send null for the default, 10.`),
//!   `format: "uri"`, `examples`, `allOf` (cross-parameter rules); drops `writeOnly` (a
//!   `secret` marker, not a rule). A `serde_json::Value` parameter is offered as a string,
//!   number or boolean (`anyOf`), since strict mode has no "any value".
//! - Anthropic and OpenAI non-strict: the `inputSchema` itself, its top-level `allOf` stated in
//!   the tool's description.
//! - Gemini (the `Schema` object of the Gemini API reference): keeps `type`, `description`,
//!   `properties`, `required`, `items`, string `enum`s, `format: "date-time"`, `pattern`,
//!   `minimum`, `maximum`, `minLength`, `maxLength`, `minItems`, `maxItems`, `default`, `anyOf`.
//!   Drops and states `exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`, integer `enum`s
//!   (`Must be one of 1, 7, 30.`, the type stays `integer`), other `format`s, `examples`,
//!   `const`, `allOf`, and `additionalProperties: false` (`Send no parameters other than those
//!   listed.`); drops `writeOnly`. A tool without parameters has no `parameters` key.
//!
//! `null` for an optional parameter (what OpenAI's strict mode makes a model send for each one
//! it leaves out) reads as absent, as it always does: the default applies, an `Option` is
//! `None`.
//!
//! ```
//! use envelope_core::providers::{Export, Provider};
//! use envelope_core::{tool, Toolbox};
//!
//! /// Lists the queries that spent the most time.
//! #[tool]
//! fn get_top_queries(
//!     /// How far back to look, in hours.
//!     #[validate(range = 1..=720, multiple_of = 24)]
//!     hours_back: u32,
//!     /// How many rows to return.
//!     #[validate(range = 1..=100, default = 10)]
//!     top: u32,
//! ) -> Vec<String> {
//!     vec![]
//! }
//!
//! let toolbox = Toolbox::new().with(get_top_queries::tool());
//! let openai = Export::new(Provider::OpenAiChat).tools(&toolbox);
//! assert_eq!(openai[0]["function"]["strict"], true);
//! let top = &openai[0]["function"]["parameters"]["properties"]["top"];
//! assert_eq!(top["type"], serde_json::json!(["integer", "null"]));
//! assert_eq!(top["description"], "How many rows to return. Send null for the default, 10.");
//!
//! let gemini = Export::new(Provider::Gemini).tools(&toolbox);
//! let hours = &gemini[0]["parameters"]["properties"]["hours_back"];
//! assert_eq!(hours["description"], "How far back to look, in hours. Must be a multiple of 24.");
//! assert!(hours.get("multipleOf").is_none());
//! ```
//!
//! ## Tool calls
//! [`answer`] takes one tool call as the model sent it and gives the provider's tool-result
//! message, its content the envelope in the toolbox's wire format (with its code prefix), as
//! the MCP and HTTP surfaces send it:
//!
//! | provider | tool call | tool result |
//! |---|---|---|
//! | OpenAI Chat Completions | `message.tool_calls[i]`: `{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}` | `{"role": "tool", "tool_call_id", "content": "<envelope JSON>"}` |
//! | OpenAI Responses | an `output` item `{"type": "function_call", "call_id", "name", "arguments": "<JSON text>"}` | `{"type": "function_call_output", "call_id", "output": "<envelope JSON>"}` |
//! | Anthropic | a `content` block `{"type": "tool_use", "id", "name", "input": {...}}` | `{"type": "tool_result", "tool_use_id", "content": "<envelope JSON>", "is_error": true}` (`is_error` true for `invalid` and `error`) |
//! | Gemini | a part `{"functionCall": {"name", "args": {...}, "id"}}` (or the `functionCall` object itself) | `{"functionResponse": {"id", "name", "response": <envelope object>}}` (`id` when the call had one) |
//!
//! A malformed call is answered, never an `Err` or a panic: arguments that are not JSON, an
//! unknown tool (`NOT_FOUND`, naming the closest tool), a missing name or arguments of the
//! wrong type each get a refusal envelope the model can act on. [`answer_reply`] answers every
//! tool call of a whole model reply, as the messages to append to the conversation.
//!
//! Sources: OpenAI's function calling and Structured Outputs guides ("Supported schemas",
//! October 2025: the string, number and array keywords, the `allOf`/`not`/`if`/`then`/`else`
//! exclusion, `additionalProperties: false`, every field required); the Anthropic tool use
//! guide and its API error `input_schema does not support oneOf, allOf, or anyOf at the top
//! level`; the Gemini API reference, `FunctionDeclaration` and `Schema` (an OpenAPI 3.0
//! subset), whose JSON parser refuses any other field (`Unknown name "additionalProperties"`).

// A provider's tool calls answered with its tool-result messages.
mod calls;
// The schema dialects: the `inputSchema` rewritten for each provider.
mod dialect;

pub use calls::{ToolResult, answer, answer_in, answer_reply, answer_reply_in, tool_calls};

use serde_json::{Value, json};

use crate::toolbox::{Tool, Toolbox};

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
