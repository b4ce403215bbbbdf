//! JSON strings (RFC 8259 §7) written and measured eight bytes at a time: a text is scanned a
//! word (`u64`) at a time for the bytes that need an escape (`"`, `\` and the control characters
//! below 0x20), runs without them are copied whole, and each escape is the one serde_json
//! writes (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, else `\u00XX` in lower-case hex), so the
//! text is byte for byte serde_json's.

/// `0x01` in every byte of a word.
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
/// `0x80` in every byte of a word.
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;
/// `0x7f` in every byte of a word.
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// The bytes of `w` that are zero, as `0x80` in each: exact (no carry crosses a byte, since
/// `0x7f + 0x7f` fits one).
#[inline]
fn zero_bytes(w: u64) -> u64 {
    !(((w & LOW7) + LOW7) | w) & HIGH
}

/// The bytes of `w` that are `"` or `\` (first) and those below 0x20 (second), as `0x80` in
/// each: exact. A byte below 0x20 is one whose low seven bits plus 0x60 stay below 0x80 and
/// whose high bit is clear.
#[inline]
fn specials(w: u64) -> (u64, u64) {
    let quotes = zero_bytes(w ^ (ONES * u64::from(b'"'))) | zero_bytes(w ^ (ONES * u64::from(b'\\')));
    (quotes, controls(w))
}

/// The bytes of `w` below 0x20, as `0x80` in each: exact (see [`specials`]).
#[inline]
fn controls(w: u64) -> u64 {
    !(((w & LOW7) + ONES * 0x60) | w) & HIGH
}

/// Whether `bytes` holds a control character (below 0x20), a word at a time: whether its JSON
/// string has an escape longer than two bytes.
pub(crate) fn has_control(bytes: &[u8]) -> bool {
    let mut at = 0;
    while at + 8 <= bytes.len() {
        if controls(word(bytes, at)) != 0 {
            return true;
        }
        at += 8;
    }
    bytes[at..].iter().any(|&b| b < 0x20)
}

/// Whether `bytes` (at least 8 of them) holds a byte that needs an escape, a word at a time;
/// the last word ends at the text's end (it may look at some bytes twice). Not
/// `next_special(bytes, 0).is_none()`: that one's byte-by-byte tail, or this tail put in it,
/// cost A's refusal 100 to 220 instructions (measured).
fn has_special(bytes: &[u8]) -> bool {
    let len = bytes.len();
    let mut at = 0;
    while at + 8 <= len {
        let (q, c) = specials(word(bytes, at));
        if q | c != 0 {
            return true;
        }
        at += 8;
    }
    if at == len {
        return false;
    }
    let (q, c) = specials(word(bytes, len - 8));
    q | c != 0
}

/// Whether `b` needs an escape in a JSON string.
#[inline]
fn is_special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The eight bytes at `at` as a word, the first in its lowest byte.
#[inline]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// How many bytes of `bytes` are `"` or `\\`, and how many are control characters (below
/// 0x20): what a JSON string's escapes add to its length (each of the former one byte, each of
/// the latter one or five).
pub(crate) fn quotes_and_controls(bytes: &[u8]) -> (usize, usize) {
    let (mut quotes, mut controls) = (0, 0);
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let (q, c) = specials(word(bytes, at));
        quotes += q.count_ones() as usize;
        controls += c.count_ones() as usize;
        at += 8;
    }
    for &b in &bytes[at..] {
        quotes += usize::from(b == b'"' || b == b'\\');
        controls += usize::from(b < 0x20);
    }
    (quotes, controls)
}

/// The index of the first byte at or after `from` (at most `bytes.len()`) that needs an
/// escape: `"`, `\` or a control character below 0x20. Also where the arguments' walk
/// (`crate::read::input`) finds a JSON string's end.
#[inline]
pub(crate) fn next_special(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while at + 8 <= bytes.len() {
        let (q, c) = specials(word(bytes, at));
        let found = q | c;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    bytes[at..].iter().position(|&b| is_special(b)).map(|p| at + p)
}

/// Appends `text` as a JSON string, quotes included.
pub(crate) fn push_str(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    push_contents(out, text);
    out.push(b'"');
}

/// Appends `text` escaped as a JSON string's contents (no quotes).
///
/// A text of 8 bytes or more with nothing to escape is copied whole once a look at each word
/// finds nothing. Otherwise a word at a time: a word with nothing to escape is appended whole (an eight-byte store, not
/// a copy of a run's length); one with an escape is appended whole too and cut back to the
/// bytes before it, then the escape is written and the scan goes on after that byte. The last
/// few bytes are the top of the text's last word (shifted down, the bytes above them masked
/// off); a text shorter than a word is written byte by byte.
pub(crate) fn push_contents(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    let len = bytes.len();
    // Most texts (names, issues) need no escape: looked over a word at a time, copied whole.
    if len >= 8 && !has_special(bytes) {
        out.extend_from_slice(bytes);
        return;
    }
    out.reserve(len + 2);
    if len < 8 {
        for &b in bytes {
            if is_special(b) {
                push_escape(out, b);
            } else {
                out.push(b);
            }
        }
        return;
    }
    let mut at = 0;
    while at < len {
        let rest = len - at;
        let (w, n, mask) = if rest >= 8 {
            (word(bytes, at), 8, !0)
        } else {
            // The last word holds the `rest` bytes left at its top.
            (word(bytes, len - 8) >> (8 * (8 - rest)), rest, (1_u64 << (8 * rest)) - 1)
        };
        let (q, c) = specials(w);
        let found = (q | c) & mask;
        out.extend_from_slice(&w.to_le_bytes());
        if found == 0 {
            out.truncate(out.len() - (8 - n));
            at += n;
            continue;
        }
        let k = (found.trailing_zeros() / 8) as usize;
        out.truncate(out.len() - (8 - k));
        push_escape(out, bytes[at + k]);
        at += k + 1;
    }
}

/// [`push_str`] into a `String`: the runs between escapes are whole characters (a run ends only
/// at an ASCII byte).
pub(crate) fn push_str_to(out: &mut String, text: &str) {
    out.push('"');
    let bytes = text.as_bytes();
    let mut run = 0;
    while let Some(at) = next_special(bytes, run) {
        out.push_str(&text[run..at]);
        let (escape, n) = escape_of(bytes[at]);
        out.extend(escape[..n].iter().map(|&b| char::from(b)));
        run = at + 1;
    }
    out.push_str(&text[run..]);
    out.push('"');
}

/// The escape of one byte that needs one, as serde_json writes it.
#[inline]
fn push_escape(out: &mut Vec<u8>, b: u8) {
    if b == b'"' || b == b'\\' {
        out.push(b'\\');
        out.push(b);
        return;
    }
    let (escape, n) = escape_of(b);
    out.extend_from_slice(&escape[..n]);
}

/// The escape of `b` (a byte that needs one) as serde_json writes it, and its length: `\"`,
/// `\\`, `\n` and the other short escapes, else `\u00XX` in lower-case hex.
fn escape_of(b: u8) -> ([u8; 6], usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x08 => b'b',
        0x0c => b'f',
        _ => 0,
    };
    if short != 0 {
        ([b'\\', short, 0, 0, 0, 0], 2)
    } else {
        ([b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]], 6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte that can start or sit in a text, in every position of a word, and texts of
    /// every length up to a few words: written as serde_json writes them, counted as a byte
    /// by byte count does.
    #[test]
    fn strings_are_written_and_counted_as_serde_json_does() {
        let mut texts: Vec<String> =
            ["", "plain", "a \"quoted\" \\ word", "line\nbreak\ttab\r\u{8}\u{c}", "é ✓ 😀 \u{7f}"]
                .into_iter()
                .map(str::to_owned)
                .collect();
        for b in 0u8..0x80 {
            for pad in 0..17 {
                let mut t = "x".repeat(pad);
                t.push(char::from(b));
                t.push_str(&"é".repeat(pad % 5));
                texts.push(t);
            }
        }
        for t in &texts {
            let mut out = b"[".to_vec();
            push_str(&mut out, t);
            assert_eq!(String::from_utf8(out).unwrap(), format!("[{}", serde_json::to_string(t).unwrap()), "{t:?}");
            let mut text = String::from("[");
            push_str_to(&mut text, t);
            assert_eq!(text, format!("[{}", serde_json::to_string(t).unwrap()), "{t:?}");
            let naive = t
                .bytes()
                .fold((0, 0), |(q, c), b| (q + usize::from(b == b'"' || b == b'\\'), c + usize::from(b < 0x20)));
            assert_eq!(quotes_and_controls(t.as_bytes()), naive, "{t:?}");
            assert_eq!(has_control(t.as_bytes()), naive.1 > 0, "{t:?}");
            // Found from every offset, as the arguments' walk starts it inside a text.
            let b = t.as_bytes();
            for from in 0..=b.len() {
                let first = b[from..].iter().position(|&c| is_special(c)).map(|k| from + k);
                assert_eq!(next_special(b, from), first, "{t:?} from {from}");
            }
        }
    }
}
