//! Numbers in words: a float in its shortest form that reads back the same, a delay in seconds,
//! minutes or hours.

/// Formats a float the way a person writes it, in its shortest form that reads back as the same
/// float: `0`, `0.5`, `1e300`, `5e-324` (never a long decimal expansion).
pub(crate) fn number(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        return format!("{}", f as i64);
    }
    let plain = format!("{f}");
    let exp = format!("{f:e}");
    // `{}` gives the shortest digits but never an exponent; `{:e}` always one. Take the plain
    // form unless the exponent saves a few characters (`0.0001`, but `1e-7`).
    if exp.len() + 2 < plain.len() { exp } else { plain }
}

/// A delay in words, rounded up: `42 seconds` (under 2 minutes), `15 minutes` (under 2 hours),
/// `24 hours`.
pub(crate) fn in_words(d: std::time::Duration) -> String {
    let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    let (n, unit) = match secs {
        s if s < 120 => (s.max(1), "second"),
        s if s < 2 * 3600 => (s.div_ceil(60), "minute"),
        s => (s.div_ceil(3600), "hour"),
    };
    if n == 1 { format!("1 {unit}") } else { format!("{n} {unit}s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_their_shortest_exact_form() {
        assert_eq!(number(0.0), "0");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(1e300), "1e300");
        assert_eq!(number(5e-324), "5e-324");
        assert_eq!(number(1e-7), "1e-7");
        assert_eq!(number(0.0001), "0.0001");
        assert_eq!(number(-2.5e-10), "-2.5e-10");
        assert_eq!(number(123456.789), "123456.789");
        for f in [5e-324, 1e-7, 0.1, 1.7976931348623157e308, 2.2250738585072014e-308] {
            assert_eq!(number(f).parse::<f64>().unwrap(), f, "{f} reads back");
            assert!(number(f).len() <= 24, "{} is short", number(f));
        }
    }
}
