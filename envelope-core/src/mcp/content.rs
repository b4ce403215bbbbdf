//! A tool's answer as MCP content blocks (MCP 2025-11-25, "Server Features / Tools / Tool
//! Result": text, image, audio, resource link, embedded resource; "Annotations").
//!
//! A tool that answers [`Contents`] keeps the envelope contract: `structuredContent` is the
//! envelope, as for every tool, with the blocks as its `data`
//! (`{"content": [<block>, ...]}`), and `content` holds the tool's blocks first, in the tool's
//! order, each as the MCP block it is, then the envelope's own text block, last:
//!
//! ```json
//! {
//!   "content": [
//!     {"type": "text", "text": "Hello, Ada!"},
//!     {"type": "image", "data": "iVBORw0KGgo...", "mimeType": "image/png"},
//!     {"type": "text", "text": "{\"status\":\"ok\",\"success\":true,\"data\":{\"content\":[...]}}"}
//!   ],
//!   "structuredContent": {"status": "ok", "success": true, "data": {"content": [...]}},
//!   "isError": false
//! }
//! ```
//!
//! A consumer reads the outcome from `structuredContent` (or from the last block, its exact
//! text) and never from prose; a client that shows content shows the tool's own blocks first
//! (`content[0]` is the tool's first block, as MCP clients and the conformance suite expect).
//! A refused or failed call answers its envelope alone, one text block, as any tool does. The
//! server knows a tool answers blocks from its declared data schema (feature `schemars`: the
//! schema of [`Contents`] carries `"x-mcp-content": true`), so it needs no look at the
//! answer's text.
//! Image, audio and blob bytes are base64 (RFC 4648 §4, with padding) on the wire.

use base64::Engine as _;
use rmcp::model::{Annotations, ContentBlock, Resource, ResourceContents};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The key of the schema of [`Contents`] that marks a tool as answering MCP content blocks.
pub const CONTENT_SCHEMA_KEY: &str = "x-mcp-content";

/// A tool's answer as MCP content blocks, built in order. Serialized as
/// `{"content": [<ContentBlock>, ...]}` (the `data` of the envelope).
///
/// ```
/// use envelope_core::mcp::content::Contents;
///
/// let answer = Contents::new()
///     .text("Multiple content types test:")
///     .image(b"\x89PNG\r\n\x1a\n", "image/png")
///     .resource_text("test://data", "application/json", r#"{"a":1}"#);
/// let json = serde_json::to_value(&answer).unwrap();
/// assert_eq!(json["content"][1]["type"], "image");
/// assert_eq!(json["content"][1]["data"], "iVBORw0KGgo=");
/// assert_eq!(json["content"][2]["resource"]["uri"], "test://data");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Contents {
    /// The blocks, in the order the client shows them.
    pub content: Vec<ContentBlock>,
}

impl Contents {
    /// No block yet.
    #[must_use]
    pub fn new() -> Self {
        Contents::default()
    }

    /// Adds `block` as it is (any [`ContentBlock`] of rmcp's model).
    #[must_use]
    pub fn block(mut self, block: ContentBlock) -> Self {
        self.content.push(block);
        self
    }

    /// Adds a text block: `{"type": "text", "text": <text>}`.
    #[must_use]
    pub fn text(self, text: impl Into<String>) -> Self {
        self.block(ContentBlock::text(text))
    }

    /// Adds an image block from its bytes: `{"type": "image", "data": <base64>, "mimeType":
    /// <mime_type>}` (e.g. `"image/png"`).
    #[must_use]
    pub fn image(self, bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        self.block(ContentBlock::image(base64(bytes.as_ref()), mime_type))
    }

    /// Adds an audio block from its bytes: `{"type": "audio", "data": <base64>, "mimeType":
    /// <mime_type>}` (e.g. `"audio/wav"`).
    #[must_use]
    pub fn audio(self, bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        self.block(ContentBlock::audio(base64(bytes.as_ref()), mime_type))
    }

    /// Adds an embedded text resource: `{"type": "resource", "resource": {"uri", "mimeType",
    /// "text"}}`.
    #[must_use]
    pub fn resource_text(self, uri: impl Into<String>, mime_type: impl Into<String>, text: impl Into<String>) -> Self {
        let contents = ResourceContents::TextResourceContents {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            text: text.into(),
            meta: None,
        };
        self.block(ContentBlock::resource(contents))
    }

    /// Adds an embedded binary resource from its bytes: `{"type": "resource", "resource":
    /// {"uri", "mimeType", "blob": <base64>}}`.
    #[must_use]
    pub fn resource_blob(self, uri: impl Into<String>, mime_type: impl Into<String>, bytes: impl AsRef<[u8]>) -> Self {
        let contents = ResourceContents::BlobResourceContents {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            blob: base64(bytes.as_ref()),
            meta: None,
        };
        self.block(ContentBlock::resource(contents))
    }

    /// Adds a link to a resource the client may read (`resources/read`): `{"type":
    /// "resource_link", "uri", "name", "mimeType"?}`.
    #[must_use]
    pub fn resource_link(self, uri: impl Into<String>, name: impl Into<String>, mime_type: Option<&str>) -> Self {
        let mut resource = Resource::new(uri, name);
        resource.mime_type = mime_type.map(str::to_owned);
        self.block(ContentBlock::resource_link(resource))
    }

    /// Puts `annotations` (`audience`, `priority` 0.0..=1.0, `lastModified`) on the last block
    /// added; without a block, nothing changes.
    #[must_use]
    pub fn annotated(mut self, annotations: Annotations) -> Self {
        if let Some(last) = self.content.pop() {
            self.content.push(annotate(last, annotations));
        }
        self
    }

    /// The blocks of an envelope's `data` when it is a [`Contents`]; `None` when it is not.
    pub(super) fn from_data(data: &Value) -> Option<Vec<ContentBlock>> {
        let blocks = data.as_object()?.get("content")?;
        serde_json::from_value(blocks.clone()).ok()
    }
}

fn annotate(block: ContentBlock, annotations: Annotations) -> ContentBlock {
    match block {
        ContentBlock::Text(c) => ContentBlock::Text(c.with_annotations(annotations)),
        ContentBlock::Image(c) => ContentBlock::Image(c.with_annotations(annotations)),
        ContentBlock::Audio(c) => ContentBlock::Audio(c.with_annotations(annotations)),
        ContentBlock::Resource(c) => ContentBlock::Resource(c.with_annotations(annotations)),
        ContentBlock::ResourceLink(mut c) => {
            c.annotations = Some(annotations);
            ContentBlock::ResourceLink(c)
        }
        other => other,
    }
}

/// Standard base64 with padding (RFC 4648 §4), as MCP's `data` and `blob` fields carry bytes.
#[must_use]
pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Contents {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Contents".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "MCP content blocks (text, image, audio, resource, resource_link), in order",
            "properties": {
                "content": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"type": {"enum": ["text", "image", "audio", "resource", "resource_link"]}},
                        "required": ["type"]
                    }
                }
            },
            "required": ["content"],
            CONTENT_SCHEMA_KEY: true
        })
    }
}

/// Whether a tool's `outputSchema` says it answers [`Contents`].
pub(super) fn answers_blocks(schema: &serde_json::Map<String, Value>) -> bool {
    fn walk(value: &Value) -> bool {
        match value {
            Value::Object(o) => o.get(CONTENT_SCHEMA_KEY) == Some(&Value::Bool(true)) || o.values().any(walk),
            Value::Array(a) => a.iter().any(walk),
            _ => false,
        }
    }
    schema.values().any(walk)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_the_mcp_shapes_with_base64_bytes() {
        let answer = Contents::new()
            .text("hi")
            .image([1u8, 2, 3], "image/png")
            .annotated(Annotations::default().with_priority(0.5))
            .audio(b"RIFF", "audio/wav")
            .resource_blob("test://b", "application/octet-stream", [0u8])
            .resource_link("test://static-text", "static-text", Some("text/plain"));
        let json = serde_json::to_value(&answer).unwrap();
        assert_eq!(json["content"][0], serde_json::json!({"type": "text", "text": "hi"}));
        assert_eq!(
            json["content"][1],
            serde_json::json!({"type": "image", "data": "AQID", "mimeType": "image/png", "annotations": {"priority": 0.5}})
        );
        assert_eq!(json["content"][2]["data"], "UklGRg==");
        assert_eq!(json["content"][3]["resource"]["blob"], "AA==");
        assert_eq!(json["content"][4]["type"], "resource_link");
        assert_eq!(json["content"][4]["uri"], "test://static-text");
        assert_eq!(Contents::from_data(&json).unwrap().len(), 5);
        assert_eq!(Contents::from_data(&serde_json::json!({"rows": []})), None);
    }
}
