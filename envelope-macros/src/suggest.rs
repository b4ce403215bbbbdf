//! Did-you-mean, for every key, rule, parameter, format and option name this crate reads: the
//! same algorithm and thresholds as envelope-core's run-time suggestion (`render::closest`), so
//! a typo is offered the same word at compile time as at run time. The test below holds the two to
//! the same answers over a table of typos (envelope-core is a dev-dependency of this crate for
//! it); change both or neither.

/// How many characters longer than the longest candidate a name may be and still be compared
/// with the candidates: past that it is close to none, and no edit distance is computed.
const CLOSEST_MARGIN: usize = 16;

/// The closest of `candidates` to `given`, if close enough to be worth offering: a case-only
/// difference always is; otherwise one edit away by optimal string alignment (a letter added,
/// dropped, changed, or two neighbours swapped: `tpo` for `top`), or a Jaro-Winkler similarity
/// of at least 0.8 (both from strsim). Fewer edits win, then the higher similarity; on a tie,
/// the first candidate.
pub fn closest<'c>(given: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let candidates: Vec<&'c str> = candidates.into_iter().collect();
    let longest = candidates.iter().map(|c| c.chars().count()).max()?;
    let bound = longest + CLOSEST_MARGIN;
    if given.len() > 4 * bound || given.chars().count() > bound {
        return None;
    }
    let lower = given.to_lowercase();
    let given_chars = lower.chars().count();
    let mut best: Option<(&str, usize, f64)> = None;
    for c in candidates {
        let c_lower = c.to_lowercase();
        if c_lower == lower {
            return Some(c);
        }
        let score = strsim::jaro_winkler(&lower, &c_lower);
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

/// One edit between names of three or more characters: below that, one edit is most of the name.
fn one_edit_apart(a: &str, b: &str, edits: usize) -> bool {
    edits == 1 && a.chars().count() >= 3 && b.chars().count() >= 3
}

#[cfg(test)]
mod tests {
    use super::{CLOSEST_MARGIN, closest};

    #[test]
    fn one_did_you_mean_for_keys_and_values() {
        let rules = crate::rules::names().collect::<Vec<_>>();
        assert_eq!(closest("rnage", rules.iter().copied()), Some("range"));
        assert_eq!(closest("datetime", ["date", "date-time", "uuid"]), Some("date-time"));
        assert_eq!(closest("camelcase", ["lowercase", "camelCase"]), Some("camelCase"));
        assert_eq!(closest("multipleof", rules.iter().copied()), Some("multiple_of"));
        assert_eq!(closest("zzz", rules.iter().copied()), None);
    }

    /// The same inputs give the same answers here (at compile time) and in envelope-core (at
    /// run time): rule and key typos, values, case-only differences, swapped letters, short
    /// names, names past the length margin.
    #[test]
    fn the_same_typo_gets_the_same_suggestion_at_compile_time_and_at_run_time() {
        let rules: Vec<&str> = crate::rules::names().collect();
        let formats = ["date", "date-time", "uuid", "email", "uri"];
        let params = ["hours_back", "group_by", "top"];
        let values = ["query_hash", "database", "application"];
        let cases = ["snake_case", "camelCase", "PascalCase", "kebab-case", "lowercase", "SCREAMING_SNAKE_CASE"];
        let sets: [&[&str]; 6] = [&rules, &formats, &params, &values, &cases, &["y", "zeta"]];
        let long = format!("hours_back{}", "x".repeat(CLOSEST_MARGIN));
        let longer = format!("{long}x");
        let typos = [
            "rnage",
            "multipleof",
            "lenght",
            "byte_lenght",
            "patern",
            "choises",
            "ignorecase",
            "eachh",
            "Range",
            "datetime",
            "date_time",
            "emial",
            "url",
            "uid",
            "hoursback",
            "tpo",
            "topp",
            "opt",
            "gorup_by",
            "hours_bakc",
            "topN",
            "databse",
            "dtaabase",
            "Database",
            "camelcase",
            "snakecase",
            "kebab_case",
            "lower",
            "x",
            "zzz",
            "",
            "hours_back_in_hours",
            &long,
            &longer,
            "défaut",
            "ÉMAIL",
        ];
        let mut compared = 0;
        for set in sets {
            for typo in typos {
                let here = closest(typo, set.iter().copied());
                let there = envelope_core::__private010::closest(typo, set);
                assert_eq!(here, there, "{typo:?} among {set:?}");
                compared += usize::from(here.is_some());
            }
        }
        assert!(compared > 20, "the table offers suggestions: {compared}");
    }
}
