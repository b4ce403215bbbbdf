//! A refusal's `accepted` and `fix` texts: written for that refusal, or kept from an earlier one
//! with their JSON escape (a rule's words, kept with the rule: `spec::kept`), so a value refused
//! again under the same rule costs no words written, no escape and no copy.

use std::ops::Deref;
use std::sync::Arc;

use crate::words::escape;

/// A text of a refusal: owned by it, or shared with the rule that words it.
#[derive(Clone)]
pub(crate) enum Text {
    /// Written for this refusal.
    Owned(String),
    /// The crate's own words (`Send one of the accepted values, spelled exactly as listed.`).
    Static(&'static str),
    /// Kept with its rule, escaped for JSON once.
    Kept(Arc<Kept>),
}

/// A text kept with its rule: the text, its contents as a JSON string (RFC 8259 §7, as
/// serde_json escapes them, quotes not included), and whether it holds a control character.
pub(crate) struct Kept {
    text: Box<str>,
    json: Box<str>,
    controls: bool,
}

impl Kept {
    /// `text`, escaped once.
    pub(crate) fn new(text: String) -> Arc<Kept> {
        let mut json = Vec::with_capacity(text.len() + 8);
        escape::push_contents(&mut json, &text);
        let json = String::from_utf8(json).unwrap_or_default().into_boxed_str();
        let controls = escape::has_control(text.as_bytes());
        Arc::new(Kept { text: text.into_boxed_str(), json, controls })
    }
}

impl Text {
    /// Appends the text as a JSON string's contents (no quotes): a kept text's escape copied.
    pub(crate) fn push_json_contents(&self, out: &mut Vec<u8>) {
        match self {
            Text::Owned(s) => escape::push_contents(out, s),
            Text::Static(s) => escape::push_contents(out, s),
            Text::Kept(k) => out.extend_from_slice(k.json.as_bytes()),
        }
    }

    /// Whether the text holds a control character (below 0x20).
    pub(crate) fn has_control(&self) -> bool {
        match self {
            Text::Owned(s) => escape::has_control(s.as_bytes()),
            Text::Static(s) => escape::has_control(s.as_bytes()),
            Text::Kept(k) => k.controls,
        }
    }

    /// The text as a `String` of its own (a kept one copied), to be cut or changed.
    pub(crate) fn as_mut_string(&mut self) -> &mut String {
        match self {
            Text::Kept(k) => *self = Text::Owned(k.text.to_string()),
            Text::Static(s) => *self = Text::Owned((*s).to_owned()),
            Text::Owned(_) => {}
        }
        match self {
            Text::Owned(s) => s,
            Text::Kept(_) | Text::Static(_) => unreachable!("made owned above"),
        }
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Text::Owned(s) => s,
            Text::Static(s) => s,
            Text::Kept(k) => &k.text,
        }
    }
}

impl Default for Text {
    fn default() -> Self {
        Text::Owned(String::new())
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text::Owned(s)
    }
}

impl From<&'static str> for Text {
    fn from(s: &'static str) -> Self {
        Text::Static(s)
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept text reads, writes and measures as the owned one.
    #[test]
    fn a_kept_text_is_the_owned_text() {
        for s in ["a whole number from 1 to 720", r#"one of "a \"b\"", "tab	here""#, "line\nbreak\u{1}", "é✓", ""] {
            let (owned, kept) = (Text::from(s.to_owned()), Text::Kept(Kept::new(s.to_owned())));
            assert_eq!(Text::from(s), owned, "a static text");
            assert_eq!(&*kept, s);
            assert_eq!(owned, kept);
            assert_eq!(kept.has_control(), owned.has_control(), "{s:?}");
            let (mut a, mut b) = (Vec::new(), Vec::new());
            owned.push_json_contents(&mut a);
            kept.push_json_contents(&mut b);
            assert_eq!(a, b, "{s:?}");
            assert_eq!(format!("\"{}\"", String::from_utf8(b).unwrap()), serde_json::to_string(s).unwrap());
            let mut changed = kept.clone();
            changed.as_mut_string().push('!');
            assert_eq!(&*changed, format!("{s}!"));
            assert_eq!(&*kept, s, "the kept text itself is unchanged");
        }
    }
}
