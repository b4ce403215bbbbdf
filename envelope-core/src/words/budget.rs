//! Keeping envelope's own words within their budget (2 KB an envelope, 4.5 KB an MCP line),
//! whatever the texts it is given: long names and interpolated fields are cut, long lists
//! counted.

pub(crate) use super::escape::quotes_and_controls;

/// The most names a list of tool names shows; the rest are counted.
const LISTED_NAMES: usize = 20;

/// The most bytes the names of such a list take together.
const LISTED_BYTES: usize = 800;

/// The longest name shown in such a list, in characters (MCP's longest tool name: 128).
const NAME_CHARS: usize = 128;

/// `text` cut to at most `chars` characters, the last of them `…`, and shorter still while its
/// JSON string (quotes and escapes counted) is longer than `json_bytes`. Unchanged when it fits.
pub(crate) fn cut_text(text: &str, chars: usize, json_bytes: usize) -> String {
    let fits = |t: &str, n: usize| n <= chars && json_len(t) <= json_bytes;
    let count = text.chars().count();
    if fits(text, count) {
        return text.to_owned();
    }
    let mut keep = count.min(chars).saturating_sub(1);
    loop {
        let cut = format!("{}…", super::cut::head(text, keep));
        if keep == 0 || json_len(&cut) <= json_bytes {
            return cut;
        }
        keep = keep * 3 / 4;
    }
}

/// The length of `text` as a JSON string, quotes and escapes included (RFC 8259 §7, as
/// serde_json writes them: `\"`, `\\`, `\n` and the other short escapes, `\u00XX` for the
/// other control characters), counted without writing it.
pub(crate) fn json_len(text: &str) -> usize {
    let mut count = EscapedLen(2);
    count.add(text.as_bytes());
    count.0
}

/// The length of `value`'s JSON text written in turn as a JSON string (as an MCP text content
/// carries an envelope), counted without writing either. A refusal measures its hints from
/// their texts (`Problem::hints_text_len`); this is the reference its tests hold it to.
#[cfg(test)]
pub(crate) fn text_json_len(value: &impl serde::Serialize) -> usize {
    let mut count = EscapedLen(2);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => usize::MAX / 4,
    }
}

/// Counts the bytes of what is written to it once escaped as a JSON string's contents.
struct EscapedLen(usize);

impl EscapedLen {
    fn add(&mut self, bytes: &[u8]) {
        // Most texts hold no control character: one pass that counts quotes and backslashes
        // (each takes 2) and control characters; byte by byte only when one is there.
        let (quotes, controls) = quotes_and_controls(bytes);
        if controls == 0 {
            self.0 += bytes.len() + quotes;
            return;
        }
        self.0 += bytes
            .iter()
            .map(|&b| match b {
                b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
                0..0x20 => 6,
                _ => 1,
            })
            .sum::<usize>();
    }
}

impl std::io::Write for EscapedLen {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.add(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The first names (at most 20, at most 800 bytes together, each cut to 128 characters), each
/// shown by `show`, joined by `, `; then ` and N more` for the rest: `a, b, c and 480 more`.
/// Empty for no names. Also answers how many names were left out.
pub(crate) fn name_list<'n>(
    names: impl ExactSizeIterator<Item = &'n str>,
    show: impl Fn(&str) -> String,
) -> (String, usize) {
    let total = names.len();
    let mut out = String::new();
    let mut listed = 0;
    for name in names {
        let shown = show(&cut_text(name, NAME_CHARS, usize::MAX));
        if listed == LISTED_NAMES || (listed > 0 && out.len() + 2 + shown.len() > LISTED_BYTES) {
            break;
        }
        if listed > 0 {
            out.push_str(", ");
        }
        out.push_str(&shown);
        listed += 1;
    }
    if listed < total {
        out.push_str(&format!(" and {} more", total - listed));
    }
    (out, total - listed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_cut_by_characters_and_by_its_json_length() {
        assert_eq!(cut_text("short", 10, 100), "short");
        assert_eq!(cut_text("abcdefghij", 5, 100), "abcd…");
        assert_eq!(cut_text("ééééé", 5, 100), "ééééé");
        // Control characters take six bytes each as JSON.
        let cut = cut_text(&"\u{1}".repeat(100), 100, 64);
        assert!(json_len(&cut) <= 64 && cut.ends_with('…'), "{cut:?}");
        assert_eq!(json_len("a\"b\u{1}"), 2 + 1 + 2 + 1 + 6);
        assert_eq!(json_len("a\"b\u{1}"), serde_json::to_string("a\"b\u{1}").unwrap().len());
        for s in ["", "plain", "a \"quoted\" \\ word", "line\nbreak\ttab\r\u{8}\u{c}", "\u{1}\u{1f}\u{7f}", "é ✓ 😀"]
        {
            assert_eq!(json_len(s), serde_json::to_string(s).unwrap().len(), "{s:?}");
        }
        let value =
            serde_json::json!({"parameter": "q", "rejected": "\"a\\nb\"", "others": [{"fix": "Send \"é\".\n"}]});
        assert_eq!(text_json_len(&value), serde_json::to_string(&value.to_string()).unwrap().len());
    }

    #[test]
    fn a_long_list_of_names_is_counted() {
        let names: Vec<String> = (0..500).map(|i| format!("tool_{i:03}")).collect();
        let (list, more) = name_list(names.iter().map(String::as_str), str::to_owned);
        assert!(list.starts_with("tool_000, tool_001, "), "{list}");
        assert!(list.ends_with("tool_019 and 480 more"), "{list}");
        assert_eq!(more, 480);
        assert_eq!(name_list(["a", "b"].into_iter(), |n| format!("\"{n}\"")), ("\"a\", \"b\"".to_owned(), 0));
        assert_eq!(name_list(std::iter::empty(), str::to_owned), (String::new(), 0));
        // Long names: fewer are listed, each cut to 128 characters.
        let long: Vec<String> = (0..10).map(|i| format!("{i}{}", "x".repeat(300))).collect();
        let (list, _) = name_list(long.iter().map(String::as_str), str::to_owned);
        assert!(list.len() < 900 && list.ends_with(" and 4 more"), "{} {list}", list.len());
        assert!(list.starts_with(&format!("0{}…, 1", "x".repeat(126))), "{list}");
    }
}
