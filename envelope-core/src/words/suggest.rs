//! Did you mean: the closest of a set of names to a name sent (strsim), within a bounded cost.

/// How many characters longer than the longest candidate a name may be and still be compared
/// with the candidates: past that it is close to none, and no edit distance is computed.
pub(crate) const CLOSEST_MARGIN: usize = 16;

/// The closest of `candidates` to `given`, if close enough to be worth offering: a case-only
/// difference always is; otherwise one edit away by optimal string alignment (a letter added,
/// dropped, changed, or two neighbours swapped: `tpo` for `top`), or a Jaro-Winkler similarity
/// of at least 0.8 (both from strsim). Fewer edits win, then the higher similarity.
///
/// `given` is the caller's text, of any length; the measures cost time in the product of the
/// two lengths. A `given` longer than the longest candidate by more than [`CLOSEST_MARGIN`]
/// characters is offered nothing, after a look at its length only: the cost is then bounded by
/// the candidates, whatever was sent.
pub(crate) fn closest<'c>(given: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let candidates: Vec<&'c str> = candidates.into_iter().collect();
    let longest = candidates.iter().map(|c| c.chars().count()).max()?;
    // A character is at most 4 bytes: past this many bytes, `given` is past the bound in
    // characters too, and is not even counted.
    let bound = longest + CLOSEST_MARGIN;
    if given.len() > 4 * bound || given.chars().count() > bound {
        return None;
    }
    let lower = lowercase(given);
    let given_chars = lower.chars().count();
    let mut best: Option<(&str, usize, f64)> = None;
    for c in candidates {
        let c_lower = lowercase(c);
        if c_lower == lower {
            return Some(c);
        }
        let score = if lower.is_ascii() && c_lower.is_ascii() {
            // The same measure over bytes, which are the characters here: no decoding.
            strsim::generic_jaro_winkler(&Ascii(&lower), &Ascii(&c_lower))
        } else {
            strsim::jaro_winkler(&lower, &c_lower)
        };
        // Two names whose lengths differ by two or more are two or more edits apart: with a
        // low similarity too, the name is not offered, and the edits need no counting.
        if score < 0.8 && given_chars.abs_diff(c_lower.chars().count()) > 1 {
            continue;
        }
        let edits = strsim::osa_distance(&lower, &c_lower);
        if !(one_edit_apart(&lower, &c_lower, edits) || score >= 0.8) {
            continue;
        }
        if best.is_none_or(|(_, e, s)| edits < e || (edits == e && score > s)) {
            best = Some((c, edits, score));
        }
    }
    best.map(|(c, _, _)| c)
}

/// An ASCII text as its bytes, for strsim's generic measures.
struct Ascii<'a>(&'a str);

impl<'s> IntoIterator for &Ascii<'s> {
    type Item = u8;
    type IntoIter = std::str::Bytes<'s>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.bytes()
    }
}

/// `s` in lower case, borrowed when it has no upper-case letter.
fn lowercase(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(char::is_uppercase) {
        std::borrow::Cow::Owned(s.to_lowercase())
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// One edit between names of three or more characters: below that, one edit is most of the name
/// (`x` is one edit from every other one-letter name).
fn one_edit_apart(a: &str, b: &str, edits: usize) -> bool {
    edits == 1 && a.chars().count() >= 3 && b.chars().count() >= 3
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::render::shown_str;

    #[test]
    fn suggestions() {
        assert_eq!(closest("databse", ["query_hash", "database", "application"]), Some("database"));
        // Over the bytes of ASCII names, the measure is the one over their characters.
        for (a, b) in [("databse", "database"), ("databse", "query_hash"), ("tpo", "top"), ("hoursback", "hours_back")]
        {
            assert_eq!(strsim::generic_jaro_winkler(&Ascii(a), &Ascii(b)), strsim::jaro_winkler(a, b), "{a} {b}");
        }
        assert_eq!(closest("Country", ["query", "country"]), Some("country"));
        assert_eq!(closest("topN", ["hours_back", "group_by", "top"]), Some("top"));
        assert_eq!(closest("zzz", ["hours_back", "group_by", "top"]), None);
        // A swapped pair of letters is one edit (optimal string alignment).
        assert_eq!(closest("tpo", ["hours_back", "group_by", "top"]), Some("top"));
        assert_eq!(closest("gorup_by", ["hours_back", "group_by", "top"]), Some("group_by"));
        assert_eq!(closest("hours_bakc", ["hours_back", "group_by", "top"]), Some("hours_back"));
        assert_eq!(closest("topp", ["hours_back", "group_by", "top"]), Some("top"));
        assert_eq!(closest("hoursback", ["hours_back", "group_by", "top"]), Some("hours_back"));
        assert_eq!(closest("dtaabase", ["query_hash", "database", "application"]), Some("database"));
        // Two swaps are two edits: too far for a three-letter name.
        assert_eq!(closest("opt", ["hours_back", "group_by", "top"]), None);
        // One-letter names are not offered for one edit.
        assert_eq!(closest("x", ["y", "zeta"]), None);
        // A name that starts with a candidate is offered it, up to the margin past the longest.
        assert_eq!(closest("hours_back_in_hours", ["hours_back", "top"]), Some("hours_back"));
        let long = format!("hours_back{}", "x".repeat(CLOSEST_MARGIN));
        assert_eq!(closest(&long, ["hours_back", "top"]), Some("hours_back"));
        assert_eq!(closest(&format!("{long}x"), ["hours_back", "top"]), None);
        assert_eq!(closest("anything", std::iter::empty()), None);
    }

    /// The unknown tool name of the issue: 4 MB. The edit distance once took 0.76 s (release)
    /// for it; now its length alone is looked at.
    #[test]
    fn a_huge_name_is_close_to_nothing_and_cheap() {
        let names = ["get_top_queries", "search_analytics", "create_note"];
        for given in ["g".repeat(4_000_000), format!("get_top_queries{}", "s".repeat(4_000_000)), "é".repeat(1_000_000)]
        {
            let started = std::time::Instant::now();
            assert_eq!(closest(&given, names), None);
            let shown = shown_str(&given);
            assert!(
                shown.len() < 100 && shown.ends_with(&format!(" ({} characters)", given.chars().count())),
                "{shown}"
            );
            // Generous for a debug build on a loaded machine.
            assert!(started.elapsed() < std::time::Duration::from_millis(500), "{:?}", started.elapsed());
        }
        assert_eq!(shown_str("databse"), r#""databse""#);
        assert_eq!(shown_str(&"ü".repeat(40)), format!("\"{}\"", "ü".repeat(40)));
    }
}
