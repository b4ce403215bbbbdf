//! Where JSON text stops being JSON, in JSON's words rather than the parser's: the one wording of
//! MCP's parse error (`mcp::frame`: a message that does not parse) and of the refusal of a tool's
//! arguments text that does not parse (`args::not_json`: plain HTTP's body, a provider's
//! `arguments` string). Nothing here quotes a string's text: it may be a secret.

/// The text ends inside a value (RFC 8259 §2: an object, array or string left open).
pub(crate) const ENDS_EARLY: &str = "it ends before its object does (a missing `}`, `]` or `\"`)";

/// Where `text` stops being JSON, by `e`, the error of parsing it (not an end-of-input one).
pub(crate) struct Break<'t> {
    /// The text from the break on.
    pub(crate) rest: &'t str,
    /// The break's character, counted from 1.
    pub(crate) character: usize,
    /// The character of the `"` opening the string the break is inside, if it is in one.
    pub(crate) in_string: Option<usize>,
    /// The byte offset of the break (read by MCP's parse error, feature `rmcp`).
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
    pub(crate) at: usize,
}

impl<'t> Break<'t> {
    /// The break of `text` that `e` reports (serde_json counts lines from 1, and columns in
    /// bytes from 1 on the error's line).
    pub(crate) fn of(text: &'t str, e: &serde_json::Error) -> Self {
        let line_start: usize = text.split_inclusive('\n').take(e.line().saturating_sub(1)).map(str::len).sum();
        let at = (line_start + e.column().saturating_sub(1)).min(text.len());
        let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let in_string = string_around(text, at).map(|opened| text[..opened].chars().count() + 1);
        Break { rest: &text[at..], character: text[..at].chars().count() + 1, in_string, at }
    }

    /// At most 12 characters from the break, and never a string's text: `"` alone when a string
    /// starts there, else up to the next `"`.
    pub(crate) fn shown(&self) -> String {
        if self.rest.starts_with('"') {
            "\"".to_owned()
        } else {
            self.rest.chars().take(12).take_while(|&c| c != '"').collect()
        }
    }

    /// The words of a break inside a string, if it is in one (its text not quoted).
    pub(crate) fn string_words(&self) -> Option<String> {
        self.in_string.map(|opened| {
            format!(
                "the string opened at character {opened} holds, near character {}, what a JSON string cannot (a raw control character, or an escape other than \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                self.character
            )
        })
    }

    /// What kind of token starts the rest, in words, without quoting it.
    pub(crate) fn token_kind(&self) -> String {
        match self.rest.chars().next() {
            None => "the end of the text".to_owned(),
            Some(c @ ('{' | '}' | '[' | ']' | ':' | ',')) => format!("a `{c}` out of place"),
            Some(c) if c.is_alphabetic() || c == '_' => {
                "a word without quotes: a string is written in double quotes; true, false and null in lower case"
                    .to_owned()
            }
            Some(c) if c.is_ascii_digit() || matches!(c, '-' | '+' | '.') => {
                "a number JSON does not allow (like 01, +1, .5 or 1.)".to_owned()
            }
            Some(_) => "a character JSON does not allow there".to_owned(),
        }
    }
}

/// The byte offset of the `"` that opens the string `at` is inside of, if it is inside one.
fn string_around(text: &str, at: usize) -> Option<usize> {
    let (mut opened, mut escaped) = (None, false);
    for (i, &byte) in text.as_bytes()[..at].iter().enumerate() {
        match (opened, byte) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), b'\\') => escaped = true,
            (Some(_), b'"') => opened = None,
            (None, b'"') => opened = Some(i),
            _ => {}
        }
    }
    opened
}

/// Why a tool's arguments text (an object, by its first character) is not JSON, after `is not
/// JSON`: `: it ends before its object does (...)`, `: the string opened at character 14
/// holds, ...`, or ` from character 15 ("x}")` (` from character 15 (a word without quotes:
/// ...)` for a tool with a secret parameter: nothing of the text quoted). Empty for text that
/// does not start as an object or array does (`hours_back=24`: the quoted text says it all) or
/// that parses.
pub(crate) fn arguments_words(text: &str, secret: bool) -> String {
    if !text.starts_with(['{', '[']) {
        return String::new();
    }
    let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) else { return String::new() };
    if e.is_eof() {
        return format!(": {ENDS_EARLY}");
    }
    let at = Break::of(text, &e);
    match at.string_words() {
        Some(words) => format!(": {words}"),
        None if secret => format!(" from character {} ({})", at.character, at.token_kind()),
        None => format!(" from character {} ({:?})", at.character, at.shown()),
    }
}
