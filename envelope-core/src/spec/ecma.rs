//! A `pattern` as JSON Schema reads it, as a regex the `regex` crate reads the same way.
//!
//! JSON Schema's `pattern` is an ECMA-262 regular expression (2020-12 Validation §6.3.3, Core
//! §6.4), which validators compile with the `u` flag; the `regex` crate reads the syntax the two
//! share differently in five places, each rewritten here for the reader (the schema keeps the
//! pattern as written):
//!
//! | written | ECMA-262 | `regex` crate | read as |
//! |---|---|---|---|
//! | `\d`, `\D` | ASCII digits | Unicode digits (`٣`) | `[0-9]`, `[^0-9]` |
//! | `\w`, `\W` | `[0-9A-Za-z_]` | Unicode word characters (`é`) | `[0-9A-Za-z_]`, `[^0-9A-Za-z_]` |
//! | `\s`, `\S` | white space and line terminators, `U+FEFF` among them | Unicode `White_Space` (`U+0085`, not `U+FEFF`) | ECMA-262's list |
//! | `.` | any character but `\n`, `\r`, `U+2028`, `U+2029` | any character but `\n` | `[^\n\r\u{2028}\u{2029}]` |
//! | `\b`, `\B` | between `\w` and not `\w` | Unicode word boundary | `(?-u:\b)`, `(?-u:\B)` |
//!
//! What only one of the two reads (inline flags, `\A`, `[[:alpha:]]`, `\pL`, nested classes,
//! look-around) a `#[tool]` declaration refuses at compile time.

use regex_syntax::ast::{self, Ast, ClassPerlKind, ClassSetItem, Span, Visitor};

/// ECMA-262's `\s` (WhiteSpace and LineTerminator, ECMA-262 §12.2, §12.3), as the members of a
/// `regex` crate class.
const SPACE: &str = r"\t\n\x0B\x0C\r\x20\xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
const DIGIT: &str = "0-9";
const WORD: &str = "0-9A-Za-z_";

/// `source` with every construct the two dialects read differently rewritten as ECMA-262 reads
/// it; `None` when `regex-syntax` cannot parse it.
pub(crate) fn as_ecma_reads(source: &str) -> Option<String> {
    let parsed = ast::parse::Parser::new().parse(source).ok()?;
    let mut edits = ast::visit(&parsed, Edits(Vec::new())).ok()?;
    edits.sort_by_key(|(span, _)| span.start.offset);
    let mut out = String::with_capacity(source.len() + 16 * edits.len());
    let mut at = 0;
    for (span, with) in edits {
        out.push_str(source.get(at..span.start.offset)?);
        out.push_str(&with);
        at = span.end.offset;
    }
    out.push_str(source.get(at..)?);
    Some(out)
}

/// The rewrites, each a span of the source and what replaces it.
struct Edits(Vec<(Span, String)>);

/// A Perl class's members: in a bracketed class (`[\d_]`) the members alone, elsewhere a class.
fn members(kind: &ClassPerlKind, negated: bool, in_brackets: bool) -> String {
    let set = match kind {
        ClassPerlKind::Digit => DIGIT,
        ClassPerlKind::Word => WORD,
        ClassPerlKind::Space => SPACE,
    };
    match (negated, in_brackets) {
        (true, _) => format!("[^{set}]"),
        (false, true) => set.to_owned(),
        (false, false) => format!("[{set}]"),
    }
}

impl Visitor for Edits {
    type Output = Vec<(Span, String)>;
    type Err = std::convert::Infallible;

    fn finish(self) -> Result<Self::Output, Self::Err> {
        Ok(self.0)
    }

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), Self::Err> {
        match ast {
            Ast::ClassPerl(class) => self.0.push((class.span, members(&class.kind, class.negated, false))),
            Ast::Dot(span) => self.0.push((**span, r"[^\n\r\x{2028}\x{2029}]".to_owned())),
            Ast::Assertion(a) if a.kind == ast::AssertionKind::WordBoundary => {
                self.0.push((a.span, r"(?-u:\b)".to_owned()));
            }
            Ast::Assertion(a) if a.kind == ast::AssertionKind::NotWordBoundary => {
                self.0.push((a.span, r"(?-u:\B)".to_owned()));
            }
            _ => {}
        }
        Ok(())
    }

    fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Result<(), Self::Err> {
        if let ClassSetItem::Perl(class) = item {
            self.0.push((class.span, members(&class.kind, class.negated, true)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::as_ecma_reads;

    /// Each row: the pattern, strings ECMA-262 (node's `new RegExp(p, "u")`) matches, strings it
    /// does not; the rewritten regex must agree on every one.
    #[test]
    fn the_reader_matches_what_ecma_262_matches() {
        let rows: &[(&str, &[&str], &[&str])] = &[
            (r"^\d+$", &["0123", "9"], &["٣٤", "１"]),
            (r"^\D$", &["a", "٣"], &["5"]),
            (r"^\w+$", &["hello_1"], &["héllo", "naïve"]),
            (r"^[\w-]+$", &["a-b_c"], &["é-b"]),
            (r"^[^\d]+$", &["abc", "٣"], &["a1"]),
            (r"^.{2}$", &["ab", "é!"], &["a\r", "a\u{2028}", "a\n"]),
            (r"^\s*$", &[" \t", "\u{feff}", "\u{a0}"], &["\u{85}", "x"]),
            (r"^\S$", &["\u{85}"], &["\u{feff}"]),
            (r"\bfoo\b", &["a foo b", "éfooé"], &["xfoo"]),
            (r"\Bfoo", &["xfoo"], &["a foo"]),
            (r"^a\.b$", &["a.b"], &["axb"]),
            (r"^[.]$", &["."], &["x"]),
        ];
        for (pattern, matches, misses) in rows {
            let rewritten = as_ecma_reads(pattern).unwrap();
            let regex = regex::Regex::new(&rewritten).unwrap();
            for s in *matches {
                assert!(regex.is_match(s), "{pattern} ({rewritten}) should match {s:?}");
            }
            for s in *misses {
                assert!(!regex.is_match(s), "{pattern} ({rewritten}) should not match {s:?}");
            }
        }
        assert_eq!(as_ecma_reads("^[a-z]{3}$").as_deref(), Some("^[a-z]{3}$"));
        assert_eq!(as_ecma_reads("(unclosed"), None);
    }

    /// A regex past the size limit is said when the tool is declared, not read as one that
    /// matches nothing (every value refused).
    #[test]
    #[should_panic(expected = "the pattern \"^\\\\p{L}{1,500}$\" does not compile")]
    fn a_pattern_past_the_size_limit_panics_naming_it() {
        let _ = crate::spec::Pattern::new(r"^\p{L}{1,500}$", None);
    }
}
