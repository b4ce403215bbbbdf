//! The integer a JSON number literal names, read exactly from its characters: `1e2` is 100,
//! `36893488147419103233` is itself (a `Value` holds it as the nearest double,
//! 36893488147419103232), `254.99999999999999999` is not whole (a double rounds it to 255).
//! JSON Schema's `integer` is a number with a zero fractional part (2020-12 Core §4.2.2), of the
//! number as written.

/// What a number literal is, as an integer.
#[derive(Debug, PartialEq)]
pub(crate) enum Exact {
    /// A whole number that fits `i128`.
    Whole(i128),
    /// A number with a fractional part other than zero.
    Fraction,
    /// A whole number past `i128` (more than 39 digits, or past its bounds).
    Beyond,
}

/// `text` read as JSON's number grammar (RFC 8259 §6: `-`, digits, `.` digits, `e` sign digits),
/// exactly; `None` for text that is not a JSON number. Time linear in `text`'s length whatever
/// its exponent (`1e999999999999` is `Beyond` at once).
pub(crate) fn exact(text: &str) -> Option<Exact> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], Some(&rest[at + 1..])),
        None => (rest, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if mantissa.contains('.') && frac.is_empty() {
        return None;
    }
    // The exponent, saturated: past ±10^18 a nonzero mantissa is beyond or a fraction anyway.
    let exponent: i64 = match exponent {
        None => 0,
        Some(e) => {
            let (sign, digits) = match e.as_bytes().first() {
                Some(b'-') => (-1, &e[1..]),
                Some(b'+') => (1, &e[1..]),
                _ => (1, e),
            };
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let digits = digits.trim_start_matches('0');
            let magnitude = if digits.len() > 18 { 1_000_000_000_000_000_000 } else { digits.parse().unwrap_or(0) };
            sign * magnitude
        }
    };
    // The significant digits, and the power of ten they are scaled by.
    let all = || int.bytes().chain(frac.bytes());
    let leading = all().take_while(|&b| b == b'0').count();
    let total = int.len() + frac.len();
    if leading == total {
        return Some(Exact::Whole(0));
    }
    let trailing = all().rev().take_while(|&b| b == b'0').count();
    let significant = total - leading - trailing;
    let scale = exponent - frac.len() as i64 + trailing as i64;
    if scale < 0 {
        return Some(Exact::Fraction);
    }
    // i128 holds every number of up to 38 digits, and some of 39.
    if significant as i64 + scale > 39 {
        return Some(Exact::Beyond);
    }
    // Built as a negative number: i128::MIN's magnitude is one past i128::MAX.
    let mut n: i128 = 0;
    for digit in all().skip(leading).take(significant).map(|b| i128::from(b - b'0')).chain((0..scale).map(|_| 0)) {
        n = match n.checked_mul(10).and_then(|n| n.checked_sub(digit)) {
            Some(n) => n,
            None => return Some(Exact::Beyond),
        };
    }
    Some(if negative { Exact::Whole(n) } else { n.checked_neg().map_or(Exact::Beyond, Exact::Whole) })
}

#[cfg(test)]
mod tests {
    use super::{Exact, exact};

    #[test]
    fn literals_read_exactly() {
        for (text, expected) in [
            ("0", Exact::Whole(0)),
            ("-0", Exact::Whole(0)),
            ("-0.0e5", Exact::Whole(0)),
            ("5", Exact::Whole(5)),
            ("5.0", Exact::Whole(5)),
            ("1e2", Exact::Whole(100)),
            ("2.55E+2", Exact::Whole(255)),
            ("1500e-1", Exact::Whole(150)),
            ("36893488147419103233", Exact::Whole(36_893_488_147_419_103_233)),
            ("1.8446744073709550e19", Exact::Whole(18_446_744_073_709_550_000)),
            ("-9223372036854775809", Exact::Whole(-9_223_372_036_854_775_809)),
            ("170141183460469231731687303715884105727", Exact::Whole(i128::MAX)),
            ("-170141183460469231731687303715884105727", Exact::Whole(-i128::MAX)),
            ("-170141183460469231731687303715884105728", Exact::Whole(i128::MIN)),
            ("-170141183460469231731687303715884105729", Exact::Beyond),
            ("170141183460469231731687303715884105728", Exact::Beyond),
            ("1.5e38", Exact::Whole(150_000_000_000_000_000_000_000_000_000_000_000_000)),
            ("1e39", Exact::Beyond),
            ("1e999999999999999999999", Exact::Beyond),
            ("1e-999999999999999999999", Exact::Fraction),
            ("0e999999999999999999999", Exact::Whole(0)),
            ("254.99999999999999999", Exact::Fraction),
            ("1.0000000000000000001", Exact::Fraction),
            ("48.5", Exact::Fraction),
        ] {
            assert_eq!(exact(text), Some(expected), "{text}");
        }
        for text in ["", "-", "1.", ".5", "1e", "1e+", "x", "1.2.3", "0x10"] {
            assert_eq!(exact(text), None, "{text}");
        }
    }
}
