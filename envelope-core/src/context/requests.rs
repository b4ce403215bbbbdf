//! What a tool asks its client for, and how an ask ends: the kinds of ask, why one got no
//! answer, the user's answer to an elicitation.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};

/// What a tool asks its client for ([`Context::create_message`](super::Context::create_message), [`Context::elicit`](super::Context::elicit)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientAsk {
    /// `sampling/createMessage` (capability `sampling`).
    Sampling,
    /// `elicitation/create` in form mode (capability `elicitation`).
    Elicitation,
    /// `elicitation/create` in URL mode (capability `elicitation.url`, MCP 2025-11-25,
    /// SEP-1036): the user is sent to a URL, outside the client.
    UrlElicitation,
    /// `roots/list` (capability `roots`).
    Roots,
}

impl ClientAsk {
    /// The client capability it needs, as a path: `"sampling"`, `"elicitation"`,
    /// `"elicitation.url"` (`{"elicitation": {"url": {}}}` in the client's capabilities).
    pub fn capability(self) -> &'static str {
        match self {
            ClientAsk::Sampling => "sampling",
            ClientAsk::Elicitation => "elicitation",
            ClientAsk::UrlElicitation => "elicitation.url",
            ClientAsk::Roots => "roots",
        }
    }

    /// The JSON-RPC method: `"sampling/createMessage"`, `"elicitation/create"`.
    pub fn method(self) -> &'static str {
        match self {
            ClientAsk::Sampling => "sampling/createMessage",
            ClientAsk::Elicitation | ClientAsk::UrlElicitation => "elicitation/create",
            ClientAsk::Roots => "roots/list",
        }
    }
}

/// Why a request to the client got no answer ([`Context::create_message`](super::Context::create_message), [`Context::elicit`](super::Context::elicit)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientError {
    /// The client did not declare this capability (`"sampling"`, `"elicitation"`); MCP answers
    /// `-32021` (SEP-2575, MissingRequiredClientCapabilityError) with
    /// `data.requiredCapabilities` `{"<capability>": {}}`.
    MissingCapability(&'static str),
    /// The call was not made over an MCP session that can send a request to its client.
    Unavailable,
    /// The client answered a JSON-RPC error, or the request could not be sent.
    Failed {
        /// The JSON-RPC error code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// The client answered a result this call cannot read as the answer it asked for: not of
    /// the shape MCP defines (an elicitation without an `action`, its `content` not an object),
    /// or not what the asking method reads (`sample`'s reply without text content, `elicit_as`'s
    /// content that does not read as the type). Never read as an empty answer.
    Unreadable {
        /// The request asked: `"sampling/createMessage"`, `"elicitation/create"`.
        method: &'static str,
        /// What is wrong with the answer, the client's values quoted cut: `its action is
        /// "bogus"; MCP's actions are accept, decline and cancel`.
        why: String,
    },
    /// The call was cancelled while waiting.
    Cancelled,
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::MissingCapability(c) => write!(f, "the client did not declare the `{c}` capability"),
            ClientError::Unavailable => f.write_str("this call cannot send a request to its client"),
            ClientError::Failed { code, message } => write!(f, "the client answered error {code}: {message}"),
            ClientError::Unreadable { method, why } => {
                write!(f, "the client's answer to {method} cannot be read: {why}")
            }
            ClientError::Cancelled => f.write_str("the call was cancelled"),
        }
    }
}

impl std::error::Error for ClientError {}

/// The user's answer to [`Context::elicit`](super::Context::elicit).
#[derive(Clone, Debug, PartialEq)]
pub struct Elicitation {
    /// What the user did.
    pub action: ElicitAction,
    /// The values entered (on `accept`), by property name.
    pub content: Option<Map<String, Value>>,
}

/// What the user did with an elicitation (`"accept"`, `"decline"`, `"cancel"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElicitAction {
    /// Submitted the form.
    Accept,
    /// Refused explicitly.
    Decline,
    /// Dismissed it.
    Cancel,
}

impl ElicitAction {
    /// The wire word.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitAction::Accept => "accept",
            ElicitAction::Decline => "decline",
            ElicitAction::Cancel => "cancel",
        }
    }
}

/// A request to the client, answered later.
pub(crate) type Asked = Pin<Box<dyn Future<Output = Result<Value, ClientError>> + Send>>;
