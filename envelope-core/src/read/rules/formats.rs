//! The `format` checks, each by the RFC JSON Schema 2020-12 (Validation §7.3) names for it, so a
//! value the runtime takes is one a schema validator with format assertion takes too. The JSON
//! Schema Test Suite's format cases are tests of both (`tests/all/formats.rs`).

/// `date`: RFC 3339 §5.6 `full-date`, `YYYY-MM-DD` with ASCII digits, a day the month has (the
/// proleptic Gregorian calendar, by chrono).
pub(crate) fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| {
        b[r].iter().try_fold(0u32, |n, &c| c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0')))
    };
    match (digits(0..4), digits(5..7), digits(8..10)) {
        (Some(y), Some(m), Some(d)) => chrono::NaiveDate::from_ymd_opt(y as i32, m, d).is_some(),
        _ => false,
    }
}

/// `date-time`: RFC 3339 §5.6 `date-time`. The date and time are separated by `T` (or `t`),
/// never a space (the §5.6 NOTE allows a space only by mutual agreement, which a schema
/// validator does not assume); the offset is `Z` or `±HH:MM`; a leap second (`:60`) only at
/// 23:59 UTC, the last minute of a day (§5.7), whatever the offset it is written in.
pub(crate) fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20 || !matches!(b[10], b'T' | b't') || !is_date(&s[..10]) || !s.is_ascii() {
        return false;
    }
    // chrono reads the rest, leap seconds included (anywhere); the rules above are RFC 3339's.
    let Ok(parsed) = chrono::DateTime::parse_from_rfc3339(s) else { return false };
    let utc = parsed.naive_utc().time();
    let leap = chrono::Timelike::nanosecond(&utc) >= 1_000_000_000;
    !leap || (chrono::Timelike::hour(&utc) == 23 && chrono::Timelike::minute(&utc) == 59)
}

/// `email`: RFC 5321 §4.1.2 `Mailbox` (the form an address takes on the wire, as JSON Schema
/// names it): a local part as `email_address` reads it (a dot-string or a quoted string, ASCII),
/// then a domain that is a host name (RFC 1123 labels: letters, digits, hyphens) or an address
/// literal (`[127.0.0.1]`, `[IPv6:::1]`).
pub(crate) fn is_email(s: &str) -> bool {
    let Ok(parsed) = email_address::EmailAddress::parse_with_options(s, email_address::Options::default()) else {
        return false;
    };
    parsed.local_part().is_ascii() && is_mail_domain(parsed.domain())
}

fn is_mail_domain(domain: &str) -> bool {
    match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => literal[5..].parse::<std::net::Ipv6Addr>().is_ok(),
            _ => literal.parse::<std::net::Ipv4Addr>().is_ok(),
        },
        None => is_host_name(domain),
    }
}

/// RFC 1123 §2.1 host name: dot-separated labels of 1 to 63 letters, digits and hyphens, neither
/// starting nor ending with a hyphen; at most 253 characters.
fn is_host_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-')
        })
}

/// `uri`: RFC 3986 §3 `URI`, absolute with a scheme, read by `fluent-uri` (made for RFC 3986; the
/// WHATWG URL standard that the `url` crate follows takes spaces, `\`, `{}` and bad `%` escapes,
/// which RFC 3986 refuses).
pub(crate) fn is_uri(s: &str) -> bool {
    fluent_uri::Uri::parse(s).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_time_neighbours() {
        assert!(is_date_time("2026-07-29T14:30:00Z"));
        assert!(is_date_time("2026-07-29t14:30:00z"));
        assert!(!is_date_time("2026-07-29 14:30:00Z"));
        assert!(!is_date_time("2026-07-29_14:30:00Z"));
        assert!(is_date_time("1998-12-31T23:59:60Z"));
        assert!(is_date_time("1999-01-01T00:59:60+01:00"));
        assert!(!is_date_time("1998-12-31T23:58:60Z"));
        assert!(!is_date_time("1998-12-31T23:59:60+01:00"));
        assert!(!is_date_time("2026-07-29T14:30:00"));
    }

    #[test]
    fn email_domains() {
        assert!(is_email("ada@example.com"));
        assert!(!is_email("ada@exa_mple.com"));
        assert!(!is_email("ada@-example.com"));
        assert!(!is_email("ada@example..com"));
        assert!(is_email("ada@[IPv6:2001:db8::1]"));
        assert!(!is_email("ada@[IPv6:2001:db8::g]"));
    }

    #[test]
    fn uri_neighbours() {
        assert!(is_uri("https://example.com/a%20b"));
        assert!(!is_uri("https://example.com/a b"));
        assert!(!is_uri("https://example.com/a%2"));
        assert!(!is_uri("https://example.com/a%zz"));
        assert!(!is_uri("https://example.com/{id}"));
        assert!(!is_uri("https://example.com/a\\b"));
        assert!(!is_uri("https://example.com/<b>"));
        assert!(!is_uri("example.com/path"));
    }
}
