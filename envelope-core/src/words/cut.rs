//! The one cut of a text to a number of characters, and the three ways a reply shows a cut
//! text: with `…` ([`cut`]), with `…` and its length ([`cut_counted`]), as a JSON string with
//! `…` and its length ([`quoted_cut`]). Every cut in the crate is one of these, or
//! [`head`] with words of its own around it; a request header's value is quoted by
//! `header_value`, at most 200 characters. Counts are in characters (Unicode scalar values).

/// The first `n` characters of `text` (all of it when it has no more), borrowed.
pub(crate) fn head(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// `text` when it has at most `n` characters, else its first `n` and `…`.
pub(crate) fn cut(text: &str, n: usize) -> String {
    let kept = head(text, n);
    if kept.len() < text.len() { format!("{kept}…") } else { text.to_owned() }
}

/// A name the caller chose, as one line of a message: its first `n` characters (then `…`), each
/// control character written as its JSON escape (`\u000a`).
pub(crate) fn one_line(text: &str, n: usize) -> String {
    cut(text, n)
        .chars()
        .map(|c| if c.is_control() { format!("\\u{:04x}", u32::from(c)) } else { c.to_string() })
        .collect()
}

/// `text` when it has at most `max` characters, else its first `max - 8`, `…` and its length:
/// `1234567… (301 characters)`.
pub(crate) fn cut_counted(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    format!("{}… ({count} characters)", head(text, max.saturating_sub(8)))
}

/// The most characters of a request header's value a reply or a log line quotes: 200. A
/// longer value (a 60 KiB `MCP-Protocol-Version`) is shown by [`header_value`].
#[cfg(all(feature = "http", feature = "rmcp"))]
pub(crate) const HEADER_CHARS: usize = 200;

/// A request header's value as a reply quotes it: whole when it has at most [`HEADER_CHARS`]
/// characters, else [`cut_counted`] to them: its first 192, `…` and its length
/// (`QQ…Q… (16384 characters)` for 16,384 `Q`s).
#[cfg(all(feature = "http", feature = "rmcp"))]
pub(crate) fn header_value(text: &str) -> String {
    cut_counted(text, HEADER_CHARS)
}

/// `text` as a JSON string when it has at most `max` characters, else its first `keep` as a
/// JSON string with `…` before the closing quote, and its length: `"abc…" (301 characters)`.
pub(crate) fn quoted_cut(text: &str, max: usize, keep: usize) -> String {
    let quote = |t: &str| {
        let mut quoted = String::with_capacity(t.len() + 8);
        super::escape::push_str_to(&mut quoted, t);
        quoted
    };
    if text.len() <= max {
        return quote(text);
    }
    let count = text.chars().count();
    if count <= max {
        return quote(text);
    }
    let quoted = quote(head(text, keep));
    format!("{}…\" ({count} characters)", &quoted[..quoted.len() - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_count_characters_not_bytes() {
        assert_eq!(head("héllo", 2), "hé");
        assert_eq!(head("hé", 5), "hé");
        assert_eq!(cut("héllo", 2), "hé…");
        assert_eq!(cut("hé", 2), "hé");
        assert_eq!(cut_counted("ééééééééééé", 10), "éé… (11 characters)");
        assert_eq!(cut_counted("éééééééééé", 10), "éééééééééé");
        assert_eq!(quoted_cut("a\"bcdefghijk", 10, 2), "\"a\\\"…\" (12 characters)");
        assert_eq!(quoted_cut("a\"b", 10, 2), "\"a\\\"b\"");
    }

    #[test]
    #[cfg(all(feature = "http", feature = "rmcp"))]
    fn header_values_are_cut_to_200_characters() {
        let long = "é".repeat(16_384);
        assert_eq!(header_value(&long), format!("{}… (16384 characters)", "é".repeat(192)));
        assert_eq!(header_value(&long[..400]), long[..400]);
    }
}
