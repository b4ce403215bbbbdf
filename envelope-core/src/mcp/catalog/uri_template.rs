//! Which declared resource template a URI is read through: RFC 6570 URI templates of level 1
//! (`{id}`) and the reserved expansion of level 2 (`{+path}`), matched against a URI.

use std::collections::BTreeMap;

/// A URI a resource template matched, as its read function gets it: the URI as the client sent
/// it and each variable's value (percent-decoded).
///
/// For the template `notes://{owner}/{id}` and the URI `notes://ada/7`: `uri` is
/// `"notes://ada/7"`, `variables` `{"id": "7", "owner": "ada"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UriMatch {
    /// The URI of the `resources/read` request, as sent.
    pub uri: String,
    /// Each variable of the template and the text it matched, percent-decoded: never empty,
    /// never with a control character (`%00`, `%0A`); for a `{name}` variable one path
    /// segment, as sent and decoded: without `/` or `\`, and neither `.` nor `..` (`..%2F..%2Fetc`
    /// and `%2E%2E` do not match); with `/` and dot-segments allowed for `{+name}` (RFC 6570
    /// §3.2.3: its read function decides what a path may reach).
    pub variables: BTreeMap<String, String>,
}

impl UriMatch {
    /// The value of variable `name`, if the template has one.
    pub fn variable(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str)
    }
}

/// One piece of a template: text matched as written, or a variable.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable { name: String, reserved: bool },
}

/// A parsed template: its pieces, no two variables side by side (the split between them would
/// be a guess).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UriTemplate {
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses `template`; `Err` with a sentence when it uses what this matcher does not read:
    /// an operator other than `+` (`{?q}`, `{#f}`, `{/p}`, `{.x}`, `{;x}`), a modifier (`{x*}`,
    /// `{x:3}`), a list (`{x,y}`), two variables side by side, or an unclosed brace.
    pub(crate) fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let Some(close) = rest[open..].find('}') else {
                return Err(format!("the URI template {template:?} has a '{{' without its '}}'"));
            };
            let expression = &rest[open + 1..open + close];
            let (reserved, name) = match expression.strip_prefix('+') {
                Some(name) => (true, name),
                None => (false, expression),
            };
            let plain = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !plain {
                return Err(format!(
                    "the URI template {template:?} has the expression {{{expression}}}; resource templates here \
                     read {{name}} and {{+name}} (RFC 6570 levels 1 and 2)"
                ));
            }
            if matches!(parts.last(), Some(Part::Variable { .. })) {
                return Err(format!("the URI template {template:?} has two variables side by side"));
            }
            parts.push(Part::Variable { name: name.to_owned(), reserved });
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate { parts })
    }

    /// The variables' values when `uri` is an expansion of this template: each variable takes
    /// the shortest non-empty text before the literal that follows it (all the rest at the
    /// end), so a match costs one pass over `uri`.
    pub(crate) fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut variables = BTreeMap::new();
        let mut rest = uri;
        let mut parts = self.parts.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(text) => rest = rest.strip_prefix(text.as_str())?,
                Part::Variable { name, reserved } => {
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) => {
                            let first = rest.chars().next()?.len_utf8();
                            rest[first..].find(next.as_str())? + first
                        }
                        _ => rest.len(),
                    };
                    let value = &rest[..end];
                    if value.is_empty() || (!reserved && value.contains('/')) {
                        return None;
                    }
                    // Checked once decoded too: `..%2F..%2Fetc` is `../../etc`, and `%00` a NUL.
                    let decoded = percent_decoded(value);
                    // A `{name}` is one segment: neither `/` nor `\\` in it, and not a dot-segment
                    // (`.`, `..`, RFC 3986 §3.3), which a path joined with it would climb by.
                    let segment = !decoded.contains(['/', '\\']) && decoded != "." && decoded != "..";
                    if decoded.chars().any(char::is_control) || (!reserved && !segment) {
                        return None;
                    }
                    variables.insert(name.clone(), decoded);
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(variables)
    }
}

/// `text` with each `%XX` decoded (RFC 3986 §2.1), when the result is UTF-8; else as it is.
fn percent_decoded(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match hex.filter(|_| bytes[i] == b'%').and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matched(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template).unwrap().matches(uri).map(|v| v.into_iter().collect())
    }

    #[test]
    fn a_variable_takes_one_segment_and_a_reserved_one_the_rest() {
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(matched("test://template/{id}/data", "test://template/42/data"), Some(vec![pair("id", "42")]));
        assert_eq!(matched("test://template/{id}/data", "test://template/4/2/data"), None);
        assert_eq!(matched("test://template/{id}/data", "test://template//data"), None);
        assert_eq!(matched("test://template/{id}/data", "test://template/42/data/x"), None);
        assert_eq!(matched("file:///{+path}", "file:///a/b%20c.txt"), Some(vec![pair("path", "a/b c.txt")]));
        assert_eq!(matched("notes://{owner}/{id}", "notes://ada/7"), Some(vec![pair("id", "7"), pair("owner", "ada")]));
    }

    /// A `{name}` is one segment once decoded too, and no variable carries a control character.
    #[test]
    fn a_decoded_slash_or_control_character_does_not_match() {
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(matched("test://template/{id}/data", "test://template/..%2F..%2Fetc%2Fpasswd/data"), None);
        assert_eq!(matched("test://template/{id}/data", "test://template/..%5Cwin/data"), None);
        assert_eq!(matched("test://template/{id}/data", "test://template/a%00%0Ab/data"), None);
        assert_eq!(matched("file:///{+path}", "file:///a%00.txt"), None);
        assert_eq!(matched("test://template/{id}/data", "test://template/../data"), None);
        assert_eq!(matched("test://template/{id}/data", "test://template/%2E%2E/data"), None);
        assert_eq!(matched("test://template/{id}/data", "test://template/./data"), None);
        assert_eq!(matched("test://template/{id}/data", "test://template/.../data"), Some(vec![pair("id", "...")]));
        assert_eq!(matched("test://template/{id}/data", "test://template/a%20b/data"), Some(vec![pair("id", "a b")]));
        assert_eq!(matched("file:///{+path}", "file:///a%2Fb"), Some(vec![pair("path", "a/b")]));
    }

    #[test]
    fn what_the_matcher_does_not_read_is_refused_when_declared() {
        for template in ["q://{?x}", "q://{x*}", "q://{x,y}", "q://{x}{y}", "q://{x", "q://{}"] {
            assert!(UriTemplate::parse(template).is_err(), "{template}");
        }
    }
}
