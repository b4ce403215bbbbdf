//! The model APIs this module speaks, by name.

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
