//! Did you mean: the closest of a set of names to a name sent (the measures of strsim), within a
//! bounded cost and, for ASCII names of up to [`STACK_BYTES`] bytes, without allocating.

use std::borrow::Cow;

/// How many characters longer than the longest candidate a name may be and still be compared
/// with the candidates: past that it is close to none, and no edit distance is computed.
pub(crate) const CLOSEST_MARGIN: usize = 16;

/// The longest ASCII name, in bytes, that is lowered and measured in buffers on the stack; a
/// longer or non-ASCII name is measured by strsim itself (which allocates), with the same result.
const STACK_BYTES: usize = 64;

/// The closest of `candidates` to `given`, if close enough to be worth offering: a case-only
/// difference always is; otherwise one edit away by optimal string alignment (a letter added,
/// dropped, changed, or two neighbours swapped: `tpo` for `top`), or a Jaro-Winkler similarity
/// of at least 0.8 (strsim's measures). Fewer edits win, then the higher similarity.
///
/// `given` is the caller's text, of any length; the measures cost time in the product of the
/// two lengths. A `given` longer than the longest candidate by more than [`CLOSEST_MARGIN`]
/// characters is offered nothing, after a look at its length only: the cost is then bounded by
/// the candidates, whatever was sent. `candidates` are walked twice (their longest, then the
/// measures), so their iterator is cloned rather than collected.
pub(crate) fn closest<'c, I>(given: &str, candidates: I) -> Option<&'c str>
where
    I: IntoIterator<Item = &'c str>,
    I::IntoIter: Clone,
{
    let candidates = candidates.into_iter();
    let longest = candidates.clone().map(chars).max()?;
    // A character is at most 4 bytes: past this many bytes, `given` is past the bound in
    // characters too, and is not even counted.
    let bound = longest + CLOSEST_MARGIN;
    if given.len() > 4 * bound || (given.len() > bound && chars(given) > bound) {
        return None;
    }
    let mut given_buf = [0u8; STACK_BYTES];
    let (lower, given_ascii) = lowercase(given, &mut given_buf);
    let lower: &str = &lower;
    let given_chars = if given_ascii { lower.len() } else { lower.chars().count() };
    let mut best: Option<(&str, usize, f64)> = None;
    let mut c_buf = [0u8; STACK_BYTES];
    // Where each byte of the candidate measured over bytes occurs: filled and cleared per
    // candidate, for both measures.
    let mut c_at = Positions([0; 128]);
    for c in candidates {
        let (c_lower, c_ascii) = lowercase(c, &mut c_buf);
        let c_lower: &str = &c_lower;
        if c_lower == lower {
            return Some(c);
        }
        let bytes = lower.len() <= STACK_BYTES && c_lower.len() <= STACK_BYTES && given_ascii && c_ascii;
        if bytes {
            c_at.fill(c_lower.as_bytes());
            // Far by the letters alone (no similarity of 0.8 possible, two or more edits):
            // neither measure is taken, as below once they are.
            if c_lower.len().abs_diff(given_chars) > 1 && below_offer(lower.as_bytes(), c_lower.as_bytes(), &c_at) {
                c_at.clear(c_lower.as_bytes());
                continue;
            }
        }
        let score = if bytes {
            // The same measure over bytes, which are the characters here: no decoding, no heap.
            jaro_winkler_in(lower.as_bytes(), c_lower.as_bytes(), &c_at)
        } else {
            strsim::jaro_winkler(lower, c_lower)
        };
        let c_chars = if bytes { c_lower.len() } else { c_lower.chars().count() };
        // Two names whose lengths differ by two or more are two or more edits apart: with a
        // low similarity too, the name is not offered, and the edits need no counting.
        let far = score < 0.8 && given_chars.abs_diff(c_chars) > 1;
        let edits = match (far, bytes) {
            (true, _) => None,
            (false, true) => Some(osa_distance_in(lower.as_bytes(), c_lower.as_bytes(), &c_at)),
            (false, false) => Some(strsim::osa_distance(lower, c_lower)),
        };
        if bytes {
            c_at.clear(c_lower.as_bytes());
        }
        let Some(edits) = edits else { continue };
        let one_edit = edits == 1 && given_chars >= 3 && c_chars >= 3;
        if !(one_edit || score >= 0.8) {
            continue;
        }
        if best.is_none_or(|(_, e, s)| edits < e || (edits == e && score > s)) {
            best = Some((c, edits, score));
        }
    }
    best.map(|(c, _, _)| c)
}

/// How many characters `s` has: its length when it is ASCII (most names), without counting.
fn chars(s: &str) -> usize {
    if s.is_ascii() { s.len() } else { s.chars().count() }
}

/// Whether `s` is ASCII and, if so, whether it holds an upper-case letter: `None` for text that
/// is not ASCII. Eight bytes at a time: for a byte below 0x80, adding 0x3f sets its high bit
/// from `A` (0x41) up, adding 0x25 from past `Z` (0x5a) up, and neither carries out of the byte.
fn ascii_upper(s: &[u8]) -> Option<bool> {
    use crate::words::escape::{HIGH, ONES};
    let upper = |w: u64| w.wrapping_add(ONES * 0x3f) & !w.wrapping_add(ONES * 0x25);
    let (mut high, mut found) = (0, 0);
    let mut words = s.chunks_exact(8);
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        high |= w;
        found |= upper(w);
    }
    // The rest, zero-padded: a zero byte is neither high nor a letter.
    let mut rest = [0u8; 8];
    rest[..words.remainder().len()].copy_from_slice(words.remainder());
    let w = u64::from_le_bytes(rest);
    high |= w;
    found |= upper(w);
    (high & HIGH == 0).then_some(found & HIGH != 0)
}

/// `s` in lower case, and whether it is ASCII: borrowed when it has no upper-case letter, in
/// `buf` when it is ASCII and fits, else a lowered copy.
fn lowercase<'s>(s: &'s str, buf: &'s mut [u8; STACK_BYTES]) -> (Cow<'s, str>, bool) {
    match ascii_upper(s.as_bytes()) {
        Some(false) => (Cow::Borrowed(s), true),
        Some(true) => match buf.get_mut(..s.len()) {
            Some(out) => {
                out.copy_from_slice(s.as_bytes());
                out.make_ascii_lowercase();
                // ASCII, so UTF-8.
                (Cow::Borrowed(std::str::from_utf8(out).unwrap_or(s)), true)
            }
            None => (Cow::Owned(s.to_ascii_lowercase()), true),
        },
        None if s.chars().any(char::is_uppercase) => (Cow::Owned(s.to_lowercase()), false),
        None => (Cow::Borrowed(s), false),
    }
}

/// strsim's `jaro_winkler` over the bytes of two texts of at most [`STACK_BYTES`] bytes (their
/// characters, for ASCII), step for step, so the same `f64`: the Jaro similarity (matches within
/// half the longer length, half the transpositions), raised by a tenth of the distance to 1 per
/// letter of a common prefix of up to four when above 0.7.
#[cfg(test)]
fn jaro_winkler(a: &[u8], b: &[u8]) -> f64 {
    jaro_winkler_in(a, b, &Positions::of(b))
}

/// [`jaro_winkler`] with `b`'s positions already at hand.
fn jaro_winkler_in(a: &[u8], b: &[u8], b_at: &Positions) -> f64 {
    let sim = jaro(a, b, b_at);
    if sim > 0.7 {
        let prefix_length = a.iter().take(4).zip(b).take_while(|(x, y)| x == y).count();
        sim + 0.1 * prefix_length as f64 * (1.0 - sim)
    } else {
        sim
    }
}

/// Whether [`jaro_winkler_in`] of `a` and `b` is surely below 0.8, the similarity a name is
/// offered at, from the letters they share: each match pairs a byte of `a` with an equal byte
/// of `b`, so there are at most as many as the bytes of `a` found in `b` (and of `b`'s length),
/// and the Jaro similarity is at most its value with that many matches and no transposition,
/// raised by their common prefix. A few instructions a byte where the measure costs tens.
fn below_offer(a: &[u8], b: &[u8], b_at: &Positions) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let most = a.iter().filter(|&&x| b_at.of_byte(x) != 0).count().min(b.len()) as f64;
    let jaro = (most / a.len() as f64 + most / b.len() as f64 + 1.0) / 3.0;
    let prefix = a.iter().take(4).zip(b).take_while(|(x, y)| x == y).count();
    let bound = if jaro > 0.7 { jaro + 0.1 * prefix as f64 * (1.0 - jaro) } else { jaro };
    // A margin for the rounding of the two computations.
    bound < 0.8 - 1e-9
}

/// strsim's `generic_jaro` over bytes, its flags the bits of two words (a text of at most
/// [`STACK_BYTES`] bytes: 64). Each byte of `a` matches the first unmatched occurrence in `b`
/// within the search range: the lowest bit of `b`'s positions of that byte, the matched ones
/// and those outside the range masked off.
fn jaro(a: &[u8], b: &[u8], b_at: &Positions) -> f64 {
    let (a_len, b_len) = (a.len(), b.len());
    if a_len == 0 && b_len == 0 {
        return 1.0;
    } else if a_len == 0 || b_len == 0 {
        return 0.0;
    }
    let search_range = (a_len.max(b_len) / 2).saturating_sub(1);
    let (mut a_flags, mut b_flags) = (0_u64, 0_u64);
    let mut matches = 0_usize;
    for (i, &x) in a.iter().enumerate() {
        let lo = i.saturating_sub(search_range);
        let hi = b_len.min(i + search_range + 1);
        let free = b_at.of_byte(x) & !b_flags & below(hi) & !below(lo);
        if free != 0 {
            a_flags |= 1 << i;
            b_flags |= free & free.wrapping_neg();
            matches += 1;
        }
    }
    if matches == 0 {
        return 0.0;
    }
    // The matched letters of `a` and of `b`, in order, paired: each pair that differs is half
    // a transposition.
    let mut transpositions = 0_usize;
    let mut rest = b_flags;
    for (i, &x) in a.iter().enumerate() {
        if a_flags & (1 << i) != 0 {
            let j = rest.trailing_zeros() as usize;
            rest &= rest.wrapping_sub(1);
            transpositions += usize::from(b.get(j).is_some_and(|&y| y != x));
        }
    }
    transpositions /= 2;
    ((matches as f64 / a_len as f64)
        + (matches as f64 / b_len as f64)
        + ((matches - transpositions) as f64 / matches as f64))
        / 3.0
}

/// Where each byte of an ASCII text of at most [`STACK_BYTES`] bytes occurs: a bit per
/// position, one word per byte value.
struct Positions([u64; 128]);

impl Positions {
    #[cfg(test)]
    fn of(text: &[u8]) -> Self {
        let mut at = Positions([0; 128]);
        at.fill(text);
        at
    }

    fn fill(&mut self, text: &[u8]) {
        for (i, &x) in text.iter().enumerate() {
            self.0[usize::from(x & 0x7f)] |= 1 << i;
        }
    }

    /// Empty again, for the next text (only the entries `text` set are touched).
    fn clear(&mut self, text: &[u8]) {
        for &x in text {
            self.0[usize::from(x & 0x7f)] = 0;
        }
    }

    fn of_byte(&self, x: u8) -> u64 {
        self.0[usize::from(x & 0x7f)]
    }
}

/// The bits below position `n` (all 64 from 64 on).
fn below(n: usize) -> u64 {
    if n >= 64 { !0 } else { (1 << n) - 1 }
}

/// strsim's `osa_distance` (optimal string alignment: insertions, deletions, substitutions and
/// swaps of neighbours, each part edited once) over the bytes of two ASCII texts of at most
/// [`STACK_BYTES`] bytes.
#[cfg(test)]
fn osa_distance(a: &[u8], b: &[u8]) -> usize {
    osa_distance_in(a, b, &Positions::of(b))
}

/// [`osa_distance`] with `b`'s positions at hand: the same count, by Hyyrö's bit-parallel
/// recurrence ("A bit-vector algorithm for computing Levenshtein and Damerau edit distances",
/// 2003) with `b`'s positions the bits of a word, one step per byte of `a` rather than one per
/// pair of bytes. (The count is symmetric: which text gives the bits does not matter.)
fn osa_distance_in(a: &[u8], b: &[u8], b_at: &Positions) -> usize {
    if b.is_empty() {
        return a.len();
    }
    let last = 1_u64 << (b.len() - 1);
    let (mut vp, mut vn, mut d0, mut pm_before) = (!0_u64, 0_u64, 0_u64, 0_u64);
    let mut distance = b.len();
    for &y in a {
        let pm = b_at.of_byte(y);
        // A swap: `y` matches where the byte before it did not, one position on.
        let swapped = ((!d0 & pm) << 1) & pm_before;
        d0 = ((((pm & vp).wrapping_add(vp)) ^ vp) | pm | vn) | swapped;
        let hp = vn | !(d0 | vp);
        let hn = d0 & vp;
        distance += usize::from(hp & last != 0);
        distance -= usize::from(hn & last != 0);
        let hp = (hp << 1) | 1;
        vp = (hn << 1) | !(d0 | hp);
        vn = hp & d0;
        pm_before = pm;
    }
    distance
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::render::shown_str;

    #[test]
    fn suggestions() {
        assert_eq!(closest("databse", ["query_hash", "database", "application"]), Some("database"));
        // Over the bytes of ASCII names, the measures are strsim's over their characters.
        for (a, b) in [("databse", "database"), ("databse", "query_hash"), ("tpo", "top"), ("hoursback", "hours_back")]
        {
            assert_eq!(jaro_winkler(a.as_bytes(), b.as_bytes()), strsim::jaro_winkler(a, b), "{a} {b}");
            assert_eq!(osa_distance(a.as_bytes(), b.as_bytes()), strsim::osa_distance(a, b), "{a} {b}");
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

    /// A small deterministic generator (xorshift), so the pairs below are the same every run.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn pick(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        /// A name of 0 to `max` characters over `alphabet`, or (half the time, given `near`) one
        /// to three edits of `near`.
        fn name(&mut self, alphabet: &[char], max: usize, near: Option<&str>) -> String {
            if let Some(near) = near.filter(|_| self.next().is_multiple_of(2)) {
                let mut chars: Vec<char> = near.chars().collect();
                for _ in 0..=self.pick(3) {
                    let at = self.pick(chars.len() + 1);
                    let c = alphabet[self.pick(alphabet.len())];
                    match self.pick(4) {
                        0 => chars.insert(at, c),
                        1 if at < chars.len() => {
                            chars.remove(at);
                        }
                        2 if at < chars.len() => chars[at] = c,
                        _ if at + 1 < chars.len() => chars.swap(at, at + 1),
                        _ => chars.push(c),
                    }
                }
                return chars.into_iter().collect();
            }
            let n = self.pick(max + 1);
            (0..n).map(|_| alphabet[self.pick(alphabet.len())]).collect()
        }
    }

    /// `closest` as it was before the measures moved onto the stack: strsim for both measures,
    /// every name lowered into its own string. The reference the new one is held to.
    fn closest_reference<'c>(given: &str, candidates: &[&'c str]) -> Option<&'c str> {
        let longest = candidates.iter().map(|c| c.chars().count()).max()?;
        let bound = longest + CLOSEST_MARGIN;
        if given.len() > 4 * bound || given.chars().count() > bound {
            return None;
        }
        let lower = given.to_lowercase();
        let mut best: Option<(&str, usize, f64)> = None;
        for &c in candidates {
            let c_lower = c.to_lowercase();
            if c_lower == lower {
                return Some(c);
            }
            let score = strsim::jaro_winkler(&lower, &c_lower);
            if score < 0.8 && lower.chars().count().abs_diff(c_lower.chars().count()) > 1 {
                continue;
            }
            let edits = strsim::osa_distance(&lower, &c_lower);
            let one = edits == 1 && lower.chars().count() >= 3 && c_lower.chars().count() >= 3;
            if !(one || score >= 0.8) {
                continue;
            }
            if best.is_none_or(|(_, e, s)| edits < e || (edits == e && score > s)) {
                best = Some((c, edits, score));
            }
        }
        best.map(|(c, _, _)| c)
    }

    /// The measures over bytes give strsim's figures exactly (the same `f64` bits, the same
    /// count), and `closest` the reference's answer, over many pairs: short and long (past the
    /// stack buffers), in both cases, near-misses and unrelated names, ASCII and not (`İ` and
    /// the Kelvin sign lower to other lengths, the latter to ASCII `k`).
    #[test]
    fn the_measures_on_the_stack_are_strsims() {
        let ascii: Vec<char> = "abcdeABCDE_xyz0".chars().collect();
        let wide: Vec<char> = "abcAB_éÉßİK\u{212a}".chars().collect();
        let mut g = Gen(0x9E37_79B9_7F4A_7C15);
        let (mut offered, mut skipped) = (0, 0);
        for round in 0..10_000 {
            let alphabet = if round % 5 == 4 { &wide } else { &ascii };
            let max = if round % 7 == 6 { STACK_BYTES + 24 } else { 12 };
            let a = g.name(alphabet, max, None);
            let b = g.name(alphabet, max, Some(&a));
            if a.is_ascii() && b.is_ascii() && a.len() <= STACK_BYTES && b.len() <= STACK_BYTES {
                let (x, y) = (a.as_bytes(), b.as_bytes());
                assert_eq!(jaro_winkler(x, y).to_bits(), strsim::jaro_winkler(&a, &b).to_bits(), "{a:?} {b:?}");
                assert_eq!(osa_distance(x, y), strsim::osa_distance(&a, &b), "{a:?} {b:?}");
                // The bound that skips the measures is one: never below 0.8 where it is not.
                if below_offer(x, y, &Positions::of(y)) {
                    assert!(jaro_winkler(x, y) < 0.8, "{a:?} {b:?}");
                    skipped += 1;
                }
            }
            let mut names: Vec<String> = (0..g.pick(5)).map(|_| g.name(alphabet, max, Some(&a))).collect();
            names.push(g.name(alphabet, max, None));
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let answer = closest(&a, names.iter().copied());
            assert_eq!(answer, closest_reference(&a, &names), "{a:?} {names:?}");
            offered += usize::from(answer.is_some());
        }
        // The pairs are close often enough for the comparison to mean something.
        assert!(offered > 2_500, "{offered}");
        assert!(skipped > 500, "{skipped}");
    }

    /// The bit-parallel edit count is strsim's over two- and three-letter alphabets (where
    /// swaps, repeats and ties are everywhere), every length up to the 64 bits of a word.
    #[test]
    fn the_bit_parallel_edit_count_is_strsims() {
        let mut g = Gen(0x2545_F491_4F6C_DD1D);
        for round in 0..6_000 {
            let alphabet: &[char] = if round % 2 == 0 { &['a', 'b'] } else { &['a', 'b', 'c'] };
            let max = if round % 3 == 0 { STACK_BYTES } else { 10 };
            let a = g.name(alphabet, max, None);
            let mut b = g.name(alphabet, max, Some(&a));
            b.truncate(STACK_BYTES);
            assert_eq!(osa_distance(a.as_bytes(), b.as_bytes()), strsim::osa_distance(&a, &b), "{a:?} {b:?}");
            assert_eq!(osa_distance(b.as_bytes(), a.as_bytes()), strsim::osa_distance(&b, &a), "{b:?} {a:?}");
        }
        let full = "ab".repeat(32);
        assert_eq!(osa_distance(full.as_bytes(), b""), 64);
        assert_eq!(
            osa_distance(full.as_bytes(), "ba".repeat(32).as_bytes()),
            strsim::osa_distance(&full, &"ba".repeat(32))
        );
    }

    /// The word-at-a-time test agrees with a byte-by-byte one: every byte value at every place
    /// of texts of 1 to 17 bytes (across the word and the zero-padded rest), over a background
    /// of lower-case, upper-case and boundary bytes.
    #[test]
    fn ascii_upper_is_the_bytes_test() {
        let by_bytes = |s: &[u8]| s.is_ascii().then(|| s.iter().any(u8::is_ascii_uppercase));
        for background in [b'a', b'Z', b'@', b'[', 0x7f, 0] {
            for len in 1..=17 {
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut s = vec![background; len];
                        s[at] = b;
                        assert_eq!(ascii_upper(&s), by_bytes(&s), "{s:?}");
                    }
                }
            }
        }
        assert_eq!(ascii_upper(b""), Some(false));
    }
}
