//! A `pattern` is JSON Schema's, an ECMA-262 regular expression (2020-12 Validation §6.3.3),
//! compiled by validators and model providers with the `u` flag. The reader compiles it with
//! the `regex` crate, reading the five constructs the two dialects share but read differently
//! as ECMA-262 does (`envelope_core`'s `spec::ecma`). A construct only one of the two reads
//! would make the schema and the reader disagree, or the schema refused by a validator: each is
//! a compile error naming the construct and how ECMA-262 spells it.

use regex_syntax::ast::{
    self, AssertionKind, Ast, ClassSet, ClassSetItem, ClassUnicodeKind, GroupKind, HexLiteralKind, LiteralKind,
    SpecialLiteralKind, Visitor,
};

/// Why `source` (a regex `regex-syntax` parses) is not read alike by ECMA-262 with the `u` flag
/// and the `regex` crate, or `None`.
pub(crate) fn not_ecma(source: &str) -> Option<String> {
    let parsed = ast::parse::Parser::new().parse(source).ok()?;
    ast::visit(&parsed, Check { source, in_brackets: 0 }).err()
}

/// For a regex that does not parse here but is ECMA-262 (JSON Schema's dialect), how to write it
/// so both read it, or why the reader cannot: `None` when no such construct is seen.
pub(crate) fn unparsed_hint(source: &str) -> Option<&'static str> {
    let has = |s: &str| source.contains(s);
    if has("(?=") || has("(?!") || has("(?<=") || has("(?<!") {
        Some(
            "look-around (`(?=`, `(?!`, `(?<=`, `(?<!`) is ECMA-262's, and the reader's engine has none: match the text itself",
        )
    } else if (1..=9).any(|d| has(&format!("\\{d}"))) || has("\\k<") {
        Some("a backreference is ECMA-262's, and the reader's engine has none")
    } else if has("[\\b]") {
        Some("ECMA-262's `[\\b]` (a backspace) is written `\\x08`, which both read")
    } else if has("\\0") {
        Some("ECMA-262's `\\0` (a NUL) is written `\\x00`, which both read")
    } else if has("\\c") {
        Some("ECMA-262's `\\cA` (a control character) is written `\\x01`, which both read")
    } else if (0xD8..=0xDB).any(|high: u8| has(&format!("\\u{high:X}")) || has(&format!("\\u{high:x}"))) {
        Some("a surrogate pair (`\\uD83D\\uDE00`) is written as its code point, `\\u{1F600}`, which both read")
    } else if has("[]") || has("[^]") {
        Some(
            "ECMA-262's empty class `[]` (nothing) and `[^]` (any character) are written `[^\\s\\S]` and `[\\s\\S]`, which both read",
        )
    } else {
        None
    }
}

struct Check<'s> {
    source: &'s str,
    /// How many bracketed classes the visit is inside.
    in_brackets: usize,
}

impl Check<'_> {
    fn text(&self, span: &ast::Span) -> &str {
        self.source.get(span.start.offset..span.end.offset).unwrap_or("")
    }

    fn literal(&self, literal: &ast::Literal) -> Result<(), String> {
        let written = self.text(&literal.span);
        let c = literal.c;
        match &literal.kind {
            // A lone `{`, `}` or `]` is a literal to this crate and a syntax error to ECMA-262's
            // `u` mode (`a{,3}`, `a{x}`).
            LiteralKind::Verbatim if self.in_brackets == 0 && "{}]".contains(c) => Err(format!(
                "`{c}` alone is a syntax error in JSON Schema's `pattern` (ECMA-262, `u` flag): write `\\{c}` for the character{}",
                if c == '{' { ", or a repetition as `{n}`, `{n,}` or `{n,m}`" } else { "" }
            )),
            LiteralKind::Verbatim => Ok(()),
            // ECMA-262 escapes only its syntax characters and `/` (and `-` in a class).
            LiteralKind::Meta | LiteralKind::Superfluous
                if "^$\\.*+?()[]{}|/".contains(c) || (c == '-' && self.in_brackets > 0) =>
            {
                Ok(())
            }
            LiteralKind::Meta | LiteralKind::Superfluous => Err(format!(
                "`{written}` is not an escape in JSON Schema's `pattern` (ECMA-262 escapes only `^$\\.*+?()[]{{}}|/`): write `{c}` without the backslash"
            )),
            LiteralKind::HexFixed(HexLiteralKind::X | HexLiteralKind::UnicodeShort) => Ok(()),
            LiteralKind::HexBrace(HexLiteralKind::UnicodeShort) => Ok(()),
            LiteralKind::HexFixed(_) | LiteralKind::HexBrace(_) => Err(format!(
                "`{written}` is not how JSON Schema's `pattern` (ECMA-262) writes a code point: write `\\u{{{:X}}}`",
                u32::from(c)
            )),
            LiteralKind::Octal => {
                Err(format!("`{written}` is not an escape in ECMA-262's `u` mode: write `\\u{{{:X}}}`", u32::from(c)))
            }
            LiteralKind::Special(SpecialLiteralKind::Bell) => {
                Err("`\\a` is not an escape in JSON Schema's `pattern` (ECMA-262): write `\\x07`".to_owned())
            }
            LiteralKind::Special(SpecialLiteralKind::Space) => Err(format!(
                "`{written}` is not an escape in JSON Schema's `pattern` (ECMA-262): write the space without the backslash"
            )),
            LiteralKind::Special(_) => Ok(()),
        }
    }

    fn unicode(&self, class: &ast::ClassUnicode) -> Result<(), String> {
        let written = self.text(&class.span);
        let named = |name: &str| GENERAL_CATEGORIES.contains(&name) || BINARY_PROPERTIES.contains(&name);
        match &class.kind {
            ClassUnicodeKind::OneLetter(c) => Err(format!(
                "`{written}` is not how JSON Schema's `pattern` (ECMA-262) writes a Unicode class: write `\\{}{{{c}}}`",
                if class.negated { 'P' } else { 'p' }
            )),
            ClassUnicodeKind::Named(name) if named(name) => Ok(()),
            ClassUnicodeKind::Named(name) => Err(format!(
                "`{written}`: JSON Schema's `pattern` (ECMA-262) reads `\\p{{...}}` with a general category (`\\p{{L}}`, `\\p{{Lu}}`, `\\p{{Letter}}`), a binary property (`\\p{{Alphabetic}}`) or a script (`\\p{{Script={name}}}`), spelled exactly"
            )),
            ClassUnicodeKind::NamedValue { op, name, value } => {
                // Spelled exactly (ECMA-262 matches names and values as written; this crate
                // loosely): a general category from the list, a script in its title case
                // (`Greek`, `Old_Italic`, `Grek`).
                let exact = match name.as_str() {
                    "General_Category" | "gc" => GENERAL_CATEGORIES.contains(&value.as_str()),
                    // A long name as Unicode spells it, or a four-letter ISO 15924 code in title
                    // case (`Grek`; whether it names a script, regex-syntax has checked).
                    "Script" | "sc" | "Script_Extensions" | "scx" => {
                        SCRIPTS.contains(&value.as_str())
                            || (value.len() == 4
                                && value.starts_with(|c: char| c.is_ascii_uppercase())
                                && value[1..].bytes().all(|b| b.is_ascii_lowercase()))
                    }
                    _ => false,
                };
                if exact && matches!(op, ast::ClassUnicodeOpKind::Equal) {
                    Ok(())
                } else {
                    Err(format!(
                        "`{written}`: JSON Schema's `pattern` (ECMA-262) reads `\\p{{name=value}}` with `=`, a name of `General_Category`, `gc`, `Script`, `sc`, `Script_Extensions` or `scx`, and the value spelled exactly (`\\p{{Script=Greek}}`, `\\p{{gc=Lu}}`)"
                    ))
                }
            }
        }
    }
}

impl Visitor for Check<'_> {
    type Output = ();
    type Err = String;

    fn finish(self) -> Result<(), String> {
        Ok(())
    }

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), String> {
        match ast {
            Ast::Flags(flags) => Err(format!(
                "`{}`: JSON Schema's `pattern` (ECMA-262) has no inline flags; spell each case out (`[aA]`), or for a fixed set of words use `choices = [...]` with `ignore_case`",
                self.text(&flags.span)
            )),
            Ast::Group(group) => match &group.kind {
                GroupKind::NonCapturing(flags) if !flags.items.is_empty() => Err(format!(
                    "`{}`: JSON Schema's `pattern` (ECMA-262) has no inline flags; spell each case out (`[aA]`), or for a fixed set of words use `choices = [...]` with `ignore_case`",
                    self.text(&flags.span)
                )),
                GroupKind::CaptureName { starts_with_p: true, name } => Err(format!(
                    "`(?P<{0}>`: JSON Schema's `pattern` (ECMA-262) names a group `(?<{0}>...)`",
                    name.name
                )),
                GroupKind::CaptureName { name, .. }
                    if !name.name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
                        || !name.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') =>
                {
                    Err(format!(
                        "`(?<{}>`: a group name of JSON Schema's `pattern` (ECMA-262) is an identifier: letters, digits, `_` and `$`",
                        name.name
                    ))
                }
                _ => Ok(()),
            },
            Ast::Assertion(a) => match a.kind {
                AssertionKind::StartLine | AssertionKind::EndLine => Ok(()),
                AssertionKind::WordBoundary | AssertionKind::NotWordBoundary => Ok(()),
                AssertionKind::StartText => {
                    Err("`\\A` is not in JSON Schema's `pattern` (ECMA-262): write `^`".to_owned())
                }
                AssertionKind::EndText => {
                    Err("`\\z` is not in JSON Schema's `pattern` (ECMA-262): write `$`".to_owned())
                }
                _ => Err(format!(
                    "`{}` is not in JSON Schema's `pattern` (ECMA-262), which has the word boundaries `\\b` and `\\B` only",
                    self.text(&a.span)
                )),
            },
            Ast::Literal(literal) => self.literal(literal),
            Ast::ClassUnicode(class) => self.unicode(class),
            Ast::Repetition(rep) if matches!(*rep.ast, Ast::Repetition(_) | Ast::Assertion(_) | Ast::Empty(_)) => {
                Err(format!(
                    "`{}`: JSON Schema's `pattern` (ECMA-262, `u` flag) repeats a character, a class or a group, not a repetition or an anchor: group it, `(?:...)`, or drop the extra quantifier",
                    self.text(&rep.span)
                ))
            }
            Ast::Repetition(rep) => {
                let op = self.text(&rep.op.span);
                if op.contains(char::is_whitespace) {
                    let fixed = op.replace(char::is_whitespace, "");
                    Err(format!("`{op}` is not a repetition in JSON Schema's `pattern` (ECMA-262): write `{fixed}`"))
                } else {
                    Ok(())
                }
            }
            Ast::ClassBracketed(class) => {
                if let ClassSet::BinaryOp(op) = &class.kind {
                    return Err(format!(
                        "`{}`: JSON Schema's `pattern` (ECMA-262, `u` flag) has no class operations (`&&`, `--`, `~~`): write the class out",
                        self.text(&op.span)
                    ));
                }
                // `[]a]`, `[^]a]`: a `]` first is a member to this crate, and ends an empty class
                // (leaving a lone `]`) to ECMA-262.
                let inside = self.text(&class.span).strip_prefix('[').unwrap_or("");
                if inside.strip_prefix('^').unwrap_or(inside).starts_with(']') {
                    return Err(format!(
                        "`{}`: a `]` first in a class ends the class in JSON Schema's `pattern` (ECMA-262): write it `\\]`",
                        self.text(&class.span)
                    ));
                }
                self.in_brackets += 1;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn visit_post(&mut self, ast: &Ast) -> Result<(), String> {
        if let Ast::ClassBracketed(_) = ast {
            self.in_brackets -= 1;
        }
        Ok(())
    }

    fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Result<(), String> {
        match item {
            ClassSetItem::Literal(literal) => self.literal(literal),
            ClassSetItem::Range(range) => {
                self.literal(&range.start)?;
                self.literal(&range.end)
            }
            ClassSetItem::Ascii(class) => Err(format!(
                "`{}` is not in JSON Schema's `pattern` (ECMA-262): write the class out, like `[A-Za-z]` for `[[:alpha:]]`",
                self.text(&class.span)
            )),
            ClassSetItem::Unicode(class) => self.unicode(class),
            ClassSetItem::Bracketed(class) => Err(format!(
                "`{}`: JSON Schema's `pattern` (ECMA-262, `u` flag) has no class inside a class: write the members out",
                self.text(&class.span)
            )),
            _ => Ok(()),
        }
    }

    fn visit_class_set_binary_op_pre(&mut self, op: &ast::ClassSetBinaryOp) -> Result<(), String> {
        Err(format!(
            "`{}`: JSON Schema's `pattern` (ECMA-262, `u` flag) has no class operations (`&&`, `--`, `~~`): write the class out",
            self.text(&op.span)
        ))
    }
}

/// ECMA-262's General_Category values, as `\p{...}` takes them alone (ECMA-262 Table 68).
const GENERAL_CATEGORIES: &[&str] = &[
    "C",
    "Other",
    "Cc",
    "Control",
    "cntrl",
    "Cf",
    "Format",
    "Cn",
    "Unassigned",
    "Co",
    "Private_Use",
    "Cs",
    "Surrogate",
    "L",
    "Letter",
    "LC",
    "Cased_Letter",
    "Ll",
    "Lowercase_Letter",
    "Lm",
    "Modifier_Letter",
    "Lo",
    "Other_Letter",
    "Lt",
    "Titlecase_Letter",
    "Lu",
    "Uppercase_Letter",
    "M",
    "Mark",
    "Combining_Mark",
    "Mc",
    "Spacing_Mark",
    "Me",
    "Enclosing_Mark",
    "Mn",
    "Nonspacing_Mark",
    "N",
    "Number",
    "Nd",
    "Decimal_Number",
    "digit",
    "Nl",
    "Letter_Number",
    "No",
    "Other_Number",
    "P",
    "Punctuation",
    "punct",
    "Pc",
    "Connector_Punctuation",
    "Pd",
    "Dash_Punctuation",
    "Pe",
    "Close_Punctuation",
    "Pf",
    "Final_Punctuation",
    "Pi",
    "Initial_Punctuation",
    "Po",
    "Other_Punctuation",
    "Ps",
    "Open_Punctuation",
    "S",
    "Symbol",
    "Sc",
    "Currency_Symbol",
    "Sk",
    "Modifier_Symbol",
    "Sm",
    "Math_Symbol",
    "So",
    "Other_Symbol",
    "Z",
    "Separator",
    "Zl",
    "Line_Separator",
    "Zp",
    "Paragraph_Separator",
    "Zs",
    "Space_Separator",
];

/// The Script values' long names, as Unicode's PropertyValueAliases spells them and ECMA-262
/// matches them (exactly), for the Unicode version regex-syntax reads.
const SCRIPTS: &[&str] = &[
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Garay",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Gurung_Khema",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Kirat_Rai",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Ol_Onal",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Sunuwar",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Todhri",
    "Toto",
    "Tulu_Tigalari",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// ECMA-262's binary Unicode properties (ECMA-262 Table 67).
const BINARY_PROPERTIES: &[&str] = &[
    "ASCII",
    "ASCII_Hex_Digit",
    "AHex",
    "Alphabetic",
    "Alpha",
    "Any",
    "Assigned",
    "Bidi_Control",
    "Bidi_C",
    "Bidi_Mirrored",
    "Bidi_M",
    "Case_Ignorable",
    "CI",
    "Cased",
    "Changes_When_Casefolded",
    "CWCF",
    "Changes_When_Casemapped",
    "CWCM",
    "Changes_When_Lowercased",
    "CWL",
    "Changes_When_NFKC_Casefolded",
    "CWKCF",
    "Changes_When_Titlecased",
    "CWT",
    "Changes_When_Uppercased",
    "CWU",
    "Dash",
    "Default_Ignorable_Code_Point",
    "DI",
    "Deprecated",
    "Dep",
    "Diacritic",
    "Dia",
    "Emoji",
    "Emoji_Component",
    "EComp",
    "Emoji_Modifier",
    "EMod",
    "Emoji_Modifier_Base",
    "EBase",
    "Emoji_Presentation",
    "EPres",
    "Extended_Pictographic",
    "ExtPict",
    "Extender",
    "Ext",
    "Grapheme_Base",
    "Gr_Base",
    "Grapheme_Extend",
    "Gr_Ext",
    "Hex_Digit",
    "Hex",
    "IDS_Binary_Operator",
    "IDSB",
    "IDS_Trinary_Operator",
    "IDST",
    "ID_Continue",
    "IDC",
    "ID_Start",
    "IDS",
    "Ideographic",
    "Ideo",
    "Join_Control",
    "Join_C",
    "Logical_Order_Exception",
    "LOE",
    "Lowercase",
    "Lower",
    "Math",
    "Noncharacter_Code_Point",
    "NChar",
    "Pattern_Syntax",
    "Pat_Syn",
    "Pattern_White_Space",
    "Pat_WS",
    "Quotation_Mark",
    "QMark",
    "Radical",
    "Regional_Indicator",
    "RI",
    "Sentence_Terminal",
    "STerm",
    "Soft_Dotted",
    "SD",
    "Terminal_Punctuation",
    "Term",
    "Unified_Ideograph",
    "UIdeo",
    "Uppercase",
    "Upper",
    "Variation_Selector",
    "VS",
    "White_Space",
    "space",
    "XID_Continue",
    "XIDC",
    "XID_Start",
    "XIDS",
];

#[cfg(test)]
mod tests {
    use super::not_ecma;

    #[test]
    fn constructs_only_one_dialect_reads_are_named() {
        for ok in [
            r"^[A-Z]{3}-\d+$",
            r"^\w+\s\S*\b.$",
            r"^[\w\-.]+@\p{L}+\p{Script=Greek}\p{scx=Old_Italic}\p{sc=Grek}\p{gc=Lu}\P{Lu}$",
            r"^(?:a*)*[a\]]$",
            r"^(?<year>\d{4})(?:-\d{2})?$",
            r"\x41\u0041\u{41}\/\.\t\n",
            r"^a{2,}b{0,3}?$",
        ] {
            assert_eq!(not_ecma(ok), None, "{ok}");
        }
        for (bad, says) in [
            ("(?i)^abc$", "`(?i)`: JSON Schema's `pattern` (ECMA-262) has no inline flags"),
            ("^(?i:abc)$", "`i`: JSON Schema's `pattern` (ECMA-262) has no inline flags"),
            (r"\Aabc\z", r"`\A` is not in JSON Schema's `pattern` (ECMA-262): write `^`"),
            ("^[[:alpha:]]+$", "`[:alpha:]` is not in JSON Schema's `pattern` (ECMA-262)"),
            (r"^\pL+$", r"`\pL` is not how JSON Schema's `pattern` (ECMA-262) writes a Unicode class: write `\p{L}`"),
            (r"^\p{Greek}+$", r"`\p{Greek}`: JSON Schema's `pattern` (ECMA-262) reads"),
            (
                r"^\x{41}$",
                r"`\x{41}` is not how JSON Schema's `pattern` (ECMA-262) writes a code point: write `\u{41}`",
            ),
            (r"^a\-b$", r"`\-` is not an escape in JSON Schema's `pattern`"),
            (r"^a\#b$", r"`\#` is not an escape"),
            ("^(?P<n>a)$", "`(?P<n>`: JSON Schema's `pattern` (ECMA-262) names a group `(?<n>...)`"),
            ("^a}$", "`}` alone is a syntax error in JSON Schema's `pattern` (ECMA-262, `u` flag): write `\\}`"),
            ("^[a-z&&[^aeiou]]$", "has no class operations"),
            ("^[a[bc]]$", "has no class inside a class"),
            ("^[]a]$", r"a `]` first in a class ends the class"),
            ("^[^]a]$", r"a `]` first in a class ends the class"),
            ("^a**$", "not a repetition or an anchor"),
            ("^a{2}{3}$", "not a repetition or an anchor"),
            ("^*a", "not a repetition or an anchor"),
            (r"\b+a", "not a repetition or an anchor"),
            (r"^\p{Script=greek}$", "the value spelled exactly"),
            (r"^\p{gc=letter}$", "the value spelled exactly"),
            (r"^\p{Script=GREEK}$", "the value spelled exactly"),
            (r"^\p{sc=OldItalic}$", "the value spelled exactly"),
            (r"^\p{Script=Sign_Writing}$", "the value spelled exactly"),
            (r"\b{start}a", r"`\b{start}` is not in JSON Schema's `pattern`"),
        ] {
            let got = not_ecma(bad).unwrap_or_else(|| panic!("{bad} passed"));
            assert!(got.contains(says), "{bad}: {got}");
        }
        for (unparsed, hint) in [
            ("^a(?=b)", "look-around"),
            (r"^(a)\1$", "a backreference"),
            (r"^[\b]$", r"written `\x08`"),
            (r"^\cA$", r"written `\x01`"),
            (r"^\uD83D\uDE00$", r"`\u{1F600}`"),
            ("^[]$", "`[^\\s\\S]`"),
        ] {
            assert!(regex_syntax::Parser::new().parse(unparsed).is_err(), "{unparsed}");
            let said = super::unparsed_hint(unparsed).unwrap_or_else(|| panic!("{unparsed}: no hint"));
            assert!(said.contains(hint), "{unparsed}: {said}");
        }
        // `{,n}` does not parse here: the macro says the regex does not compile.
        assert!(regex_syntax::Parser::new().parse("^a{,3}$").is_err());
    }
}
