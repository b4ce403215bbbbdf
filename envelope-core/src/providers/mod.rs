//! Model APIs called directly: each provider's tool definitions, from the same declaration, and
//! each provider's tool-result message for a tool call, carrying the envelope.
//!
#![doc = include_str!("../../docs/providers.md")]

// A provider's tool calls answered with its tool-result messages.
mod calls;
// The schema dialects: the `inputSchema` rewritten for each provider.
mod dialect;
// The providers' documented limits, checked when an export is built.
mod limits;
// The providers, by name.
mod provider;

pub use calls::{ToolResult, answer, answer_in, answer_reply, answer_reply_in, tool_calls};
pub use limits::{ExportError, Limit};
pub use provider::Provider;

use serde_json::{Value, json};

use crate::call::registry::Toolbox;
use crate::call::tool::Tool;

/// How a toolbox's tools are exported for one provider: [`Export::new`], then
/// [`tools`](Self::tools) or [`tool`](Self::tool). OpenAI and Anthropic tools are strict unless
/// [`non_strict`](Self::non_strict); Gemini declarations carry `parameters` (its OpenAPI
/// `Schema`) unless [`json_schema`](Self::json_schema) (`parametersJsonSchema`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Export {
    provider: Provider,
    strict: bool,
    json_schema: bool,
}

impl Export {
    /// The definitions of `provider`: OpenAI's and Anthropic's with `"strict": true`, Gemini's
    /// with `parameters`.
    pub const fn new(provider: Provider) -> Self {
        Export { provider, strict: true, json_schema: false }
    }

    /// OpenAI tools with `"strict": false` and the JSON Schema of the full MCP `inputSchema`
    /// but its top-level `allOf` (best-effort function calling: the model may leave optional
    /// parameters out); said explicitly, since the Responses API makes a tool without `strict`
    /// strict. Anthropic tools without `strict` and the same schema. No change for Gemini.
    #[must_use]
    pub const fn non_strict(self) -> Self {
        Export { strict: false, ..self }
    }

    /// Gemini declarations with `parametersJsonSchema` (JSON Schema: `additionalProperties`,
    /// `anyOf`, exclusive bounds stated, integer `enum`s) instead of `parameters` (the OpenAPI
    /// 3.0 `Schema` subset); the two are mutually exclusive in a `FunctionDeclaration`. No
    /// change for the other providers.
    #[must_use]
    pub const fn json_schema(self) -> Self {
        Export { json_schema: true, ..self }
    }

    /// The provider.
    pub const fn provider(&self) -> Provider {
        self.provider
    }

    /// Whether the provider's strict mode is on (OpenAI, Anthropic; always `false` for Gemini).
    pub const fn is_strict(&self) -> bool {
        self.strict && !matches!(self.provider, Provider::Gemini)
    }

    /// Whether Gemini declarations carry `parametersJsonSchema` (always `false` for the others).
    pub const fn is_json_schema(&self) -> bool {
        self.json_schema && matches!(self.provider, Provider::Gemini)
    }

    fn dialect(&self) -> dialect::Dialect {
        match self.provider {
            Provider::OpenAiChat | Provider::OpenAiResponses if self.strict => dialect::Dialect::OpenAiStrict,
            Provider::OpenAiChat | Provider::OpenAiResponses => dialect::Dialect::OpenAi,
            Provider::Anthropic if self.strict => dialect::Dialect::AnthropicStrict,
            Provider::Anthropic => dialect::Dialect::Anthropic,
            Provider::Gemini if self.json_schema => dialect::Dialect::GeminiJsonSchema,
            Provider::Gemini => dialect::Dialect::Gemini,
        }
    }

    /// One tool's definition (see the table of the [module](self)).
    ///
    /// # Errors
    /// An [`ExportError`] naming the tool, the [`Limit`] and its figure when the tool is past
    /// one of the provider's documented limits: a name of more than 64 characters (Gemini: 128), or with a
    /// character its API refuses (MCP allows `.`, which OpenAI and Anthropic do not); in OpenAI's
    /// strict mode, more than 5,000 properties, objects nested more than 10 levels, more than
    /// 1,000 enum values, or more than 120,000 characters of property names and enum values; a
    /// map (an object of any keys) in a strict mode or in Gemini's `parameters`. Nothing is cut
    /// to fit.
    pub fn tool(&self, tool: &Tool) -> Result<Value, ExportError> {
        let name = tool.name();
        limits::name(self.provider, name)?;
        if matches!(
            self.dialect(),
            dialect::Dialect::OpenAiStrict | dialect::Dialect::AnthropicStrict | dialect::Dialect::Gemini
        ) {
            limits::maps(self.provider, name, &tool.spec().params)?;
        }
        let converted = dialect::convert(tool, self.dialect());
        let description = converted.description;
        let parameters = converted.parameters;
        if self.dialect() == dialect::Dialect::OpenAiStrict
            && let Some(p) = &parameters
        {
            limits::openai_strict(self.provider, name, p)?;
        }
        let mut m = serde_json::Map::new();
        if self.provider == Provider::OpenAiResponses {
            m.insert("type".into(), json!("function"));
        }
        m.insert("name".into(), json!(name));
        if !description.is_empty() {
            m.insert("description".into(), json!(description));
        }
        Ok(match self.provider {
            Provider::OpenAiChat => {
                m.insert("parameters".into(), parameters.unwrap_or_else(empty_object));
                m.insert("strict".into(), json!(self.is_strict()));
                json!({"type": "function", "function": m})
            }
            Provider::OpenAiResponses => {
                m.insert("parameters".into(), parameters.unwrap_or_else(empty_object));
                m.insert("strict".into(), json!(self.is_strict()));
                Value::Object(m)
            }
            Provider::Anthropic => {
                m.insert("input_schema".into(), parameters.unwrap_or_else(empty_object));
                if self.is_strict() {
                    m.insert("strict".into(), json!(true));
                }
                Value::Object(m)
            }
            Provider::Gemini => {
                // Gemini refuses an OBJECT without properties: a tool without parameters has none.
                if let Some(p) = parameters {
                    let key = if self.json_schema { "parametersJsonSchema" } else { "parameters" };
                    m.insert(key.into(), p);
                }
                Value::Object(m)
            }
        })
    }

    /// Every tool of `toolbox`, in registration order (`confirm_action` last when present): the
    /// array the provider's API takes as `tools` (for Gemini, as
    /// `tools: [{"functionDeclarations": <this>}]`).
    ///
    /// # Errors
    /// The first tool's [`ExportError`], as [`tool`](Self::tool) gives it.
    pub fn tools(&self, toolbox: &Toolbox) -> Result<Vec<Value>, ExportError> {
        toolbox.tools().iter().map(|t| self.tool(t)).collect()
    }
}

/// [`Export::new(provider).tools(toolbox)`](Export::tools): the tool definitions of `provider`
/// (OpenAI's and Anthropic's strict, Gemini's with `parameters`).
///
/// # Errors
/// As [`Export::tools`].
pub fn tools(toolbox: &Toolbox, provider: Provider) -> Result<Vec<Value>, ExportError> {
    Export::new(provider).tools(toolbox)
}

fn empty_object() -> Value {
    json!({"type": "object", "properties": {}})
}
