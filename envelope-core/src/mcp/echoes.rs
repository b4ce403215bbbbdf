//! What rmcp's own refusals over Streamable HTTP quote of a request, bounded: an
//! `MCP-Protocol-Version` it does not serve (`Bad Request: Unsupported MCP-Protocol-Version: <v>`),
//! an `Mcp-Method`, `Mcp-Name` or `Mcp-Param-*` value that contradicts the body (SEP-2243,
//! `` Mcp-Method header `<v>` does not match body method `<m>` ``). Each request header value
//! longer than 200 characters is shown by its cut (`crate::words::cut::header_value`: its first
//! 192 characters, `…` and its length), as sent and as decoded from SEP-2243's Base64 form
//! `=?base64?<text>?=`; the message as a whole keeps at most [`MESSAGE_CHARS`] characters. An
//! `MCP-Protocol-Version` longer than any version never reaches rmcp ([`overlong_version`]). So
//! a 60 KiB header never comes back whole, nor is it logged whole.

use std::borrow::Cow;

use axum::http::{HeaderMap, header};
use base64::Engine as _;

use crate::http::{TransportError, TransportErrorKind};
use crate::words::cut::{HEADER_CHARS, cut_counted, header_value, quoted_cut};

/// The most characters of an rmcp refusal's message passed on: its own words and two values
/// cut to 200 characters fit; a longer message (a long value from the body) is cut there, `…`
/// and its length.
pub(super) const MESSAGE_CHARS: usize = 1_000;

/// The values of a request's header fields longer than 200 characters (none for almost every
/// request), as a refusal may quote them: as sent (bytes that are not UTF-8 replaced by U+FFFD,
/// as `String::from_utf8_lossy` shows them) and, in SEP-2243's Base64 form, decoded.
/// `Authorization` and `Cookie` are left out: no refusal quotes them.
#[derive(Debug, Default)]
pub(super) struct LongValues(Vec<String>);

impl LongValues {
    /// The long values of `headers`, longest first (so that a value holding another is cut
    /// whole).
    pub(super) fn of(headers: &HeaderMap) -> Self {
        let mut long = Vec::new();
        for (name, value) in headers {
            if value.len() <= HEADER_CHARS || name == header::AUTHORIZATION || name == header::COOKIE {
                continue;
            }
            let sent = String::from_utf8_lossy(value.as_bytes()).into_owned();
            if let Some(decoded) = decoded(&sent).filter(|d| d.chars().count() > HEADER_CHARS) {
                long.push(decoded);
            }
            if sent.chars().count() > HEADER_CHARS {
                long.push(sent);
            }
        }
        long.sort_by_key(|v| std::cmp::Reverse(v.len()));
        LongValues(long)
    }

    /// `message` with each long value it quotes cut, and itself at most [`MESSAGE_CHARS`]
    /// characters; borrowed when nothing was cut.
    pub(super) fn bound<'a>(&self, message: &'a str) -> Cow<'a, str> {
        let mut shown = Cow::Borrowed(message);
        for value in &self.0 {
            if shown.contains(value.as_str()) {
                shown = Cow::Owned(shown.replace(value.as_str(), &header_value(value)));
            }
        }
        if shown.len() > MESSAGE_CHARS && shown.chars().count() > MESSAGE_CHARS {
            shown = Cow::Owned(cut_counted(&shown, MESSAGE_CHARS));
        }
        shown
    }
}

/// `malformed_request` (400) for an `MCP-Protocol-Version` of more than 200 bytes, which no
/// protocol version is (MCP 2025-11-25 "Transports / Streamable HTTP / Protocol Version
/// Header": a version the server does not support is answered 400 Bad Request), the value
/// quoted cut to 200 characters: answered before rmcp reads the request, so that neither its
/// reply nor its log line (`rejecting initialize: MCP-Protocol-Version header does not match
/// params.protocolVersion header="<the value>"`) holds the value whole.
pub(super) fn overlong_version(headers: &HeaderMap) -> Option<TransportError> {
    let sent = headers.get_all("mcp-protocol-version").iter().find(|v| v.len() > HEADER_CHARS)?;
    let shown = quoted_cut(&String::from_utf8_lossy(sent.as_bytes()), HEADER_CHARS, HEADER_CHARS - 8);
    Some(TransportError::new(
        TransportErrorKind::MalformedRequest,
        format!(
            "The MCP-Protocol-Version header {shown} is longer than any protocol version. Send the version the \
             client and server use, like MCP-Protocol-Version: 2025-11-25."
        ),
    ))
}

/// The text of a value in SEP-2243's Base64 form (`=?base64?<standard Base64>?=`), as rmcp
/// decodes it; `None` for another value.
fn decoded(value: &str) -> Option<String> {
    let inner = value.strip_prefix("=?base64?")?.strip_suffix("?=")?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(inner).ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &[u8])]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.append(*name, HeaderValue::from_bytes(value).unwrap());
        }
        h
    }

    #[test]
    fn long_header_values_are_cut_where_a_message_quotes_them() {
        let version = "Q".repeat(16_384);
        let name = "n".repeat(300);
        let encoded = format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(&name));
        let odd = [b'x', 0xff].repeat(500);
        let token = format!("Bearer {}", "t".repeat(500));
        let long = LongValues::of(&headers(&[
            ("mcp-protocol-version", version.as_bytes()),
            ("mcp-name", encoded.as_bytes()),
            ("mcp-method", &odd),
            ("authorization", token.as_bytes()),
            ("accept", b"application/json"),
        ]));
        let cut_version = format!("{}… (16384 characters)", "Q".repeat(192));
        assert_eq!(
            long.bound(&format!("Bad Request: Unsupported MCP-Protocol-Version: {version}")),
            format!("Bad Request: Unsupported MCP-Protocol-Version: {cut_version}")
        );
        assert_eq!(
            long.bound(&format!("Mcp-Name header `{name}` does not match body value `list_notes`")),
            format!("Mcp-Name header `{}… (300 characters)` does not match body value `list_notes`", "n".repeat(192))
        );
        let lossy = String::from_utf8_lossy(&odd).into_owned();
        let method = format!("Mcp-Method header `{lossy}` does not match body method `tools/call`");
        let shown = long.bound(&method);
        assert!(shown.contains("… (1000 characters)` does not match body method `tools/call`"), "{shown}");
        // Short values and messages that quote nothing long pass unchanged, borrowed.
        let plain = "Mcp-Method header `tools/list` does not match body method `tools/call`";
        assert!(matches!(long.bound(plain), Cow::Borrowed(p) if p == plain));
        // A long value from the body: the message is cut as a whole.
        let body_value = format!("Mcp-Name header `x` does not match body value `{}`", "b".repeat(5_000));
        let shown = long.bound(&body_value);
        let told = format!("b… ({} characters)", body_value.chars().count());
        assert!(shown.ends_with(&told), "{shown}");
        assert_eq!(shown.chars().count(), 991 + told.chars().count());
    }
}
