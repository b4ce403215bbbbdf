//! Rate limits: how many calls one caller may make in a period, `#[tool(rate_limit = "30/min")]`
//! and [`Toolbox::with_rate_limit`](crate::Toolbox::with_rate_limit).
//!
#![doc = include_str!("../../docs/rate.md")]

use std::fmt;
use std::time::Duration;

/// A rate limit: at most `count` calls per `period`, per caller and tenant (see the module
/// docs for the algorithm). Written `"30/min"` in `#[tool(rate_limit = "30/min")]`.
///
/// ```
/// use std::time::Duration;
/// use envelope_core::spec::rate::RateLimit;
///
/// let limit: RateLimit = "30/min".parse().unwrap();
/// assert_eq!(limit, RateLimit::per_minute(30));
/// assert_eq!(limit.count(), 30);
/// assert_eq!(limit.period(), Duration::from_secs(60));
/// assert_eq!(limit.to_string(), "30/min");
/// assert_eq!("5/s".parse::<RateLimit>().unwrap().emission_interval(), Duration::from_millis(200));
/// assert!("0/min".parse::<RateLimit>().is_err());
/// assert!("30/day".parse::<RateLimit>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RateLimit {
    count: u32,
    period_ms: u64,
}

impl RateLimit {
    /// `count` calls (at least 1) per `period` (at least 1 millisecond).
    pub const fn new(count: u32, period: Duration) -> Self {
        let ms = period.as_millis();
        let period_ms = if ms == 0 {
            1
        } else if ms > u64::MAX as u128 {
            u64::MAX
        } else {
            ms as u64
        };
        RateLimit { count: if count == 0 { 1 } else { count }, period_ms }
    }

    /// `count` calls a second (`"N/s"`).
    pub const fn per_second(count: u32) -> Self {
        RateLimit::new(count, Duration::from_secs(1))
    }

    /// `count` calls a minute (`"N/min"`).
    pub const fn per_minute(count: u32) -> Self {
        RateLimit::new(count, Duration::from_secs(60))
    }

    /// `count` calls an hour (`"N/h"`).
    pub const fn per_hour(count: u32) -> Self {
        RateLimit::new(count, Duration::from_secs(3600))
    }

    /// The calls allowed per period (also the burst an idle caller may spend at once).
    pub const fn count(&self) -> u32 {
        self.count
    }

    /// The period.
    pub const fn period(&self) -> Duration {
        Duration::from_millis(self.period_ms)
    }

    /// The period divided by the count: the steady spacing of admitted calls.
    pub fn emission_interval(&self) -> Duration {
        Duration::from_micros(self.period_ms.saturating_mul(1000) / u64::from(self.count))
    }

    /// The limit in words: `30 calls a minute`, `1 call a second`, `5 calls every 10 seconds`.
    pub fn words(&self) -> String {
        let calls = if self.count == 1 { "1 call".to_owned() } else { format!("{} calls", self.count) };
        match self.period_ms {
            1000 => format!("{calls} a second"),
            60_000 => format!("{calls} a minute"),
            3_600_000 => format!("{calls} an hour"),
            ms => format!("{calls} every {}", crate::words::render::in_words(Duration::from_millis(ms))),
        }
    }
}

impl fmt::Display for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.period_ms {
            1000 => write!(f, "{}/s", self.count),
            60_000 => write!(f, "{}/min", self.count),
            3_600_000 => write!(f, "{}/h", self.count),
            ms => write!(f, "{}/{ms}ms", self.count),
        }
    }
}

/// A rate limit that does not read: not `N/s`, `N/min` or `N/h` with `N` a whole number from 1
/// to 4 294 967 295. Its Display says what was wrong and what to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRateLimit(String);

impl fmt::Display for BadRateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadRateLimit {}

impl std::str::FromStr for RateLimit {
    type Err = BadRateLimit;

    /// `N/s`, `N/min` or `N/h` (spaces around the parts allowed), `N` from 1.
    fn from_str(s: &str) -> Result<Self, BadRateLimit> {
        let form = "a rate limit is `N/s`, `N/min` or `N/h` with N a whole number above 0, like \"30/min\"";
        let Some((n, unit)) = s.split_once('/') else {
            return Err(BadRateLimit(format!("\"{s}\" has no `/`: {form}")));
        };
        let period = match unit.trim() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "m" | "min" | "minute" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            other => return Err(BadRateLimit(format!("\"{other}\" is not a period: {form}"))),
        };
        match n.trim().parse::<u32>() {
            Ok(0) => Err(BadRateLimit(format!("0 calls would refuse every call: {form}"))),
            Ok(count) => Ok(RateLimit::new(count, period)),
            Err(_) => Err(BadRateLimit(format!("\"{}\" is not a count of calls: {form}", n.trim()))),
        }
    }
}

/// What a count of one call came to ([`Store::rate`](crate::call::guard::store::Store::rate)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateCheck {
    /// Admitted, and counted.
    Allowed,
    /// Refused, not counted: the same call is admitted after `retry_after`.
    Limited {
        /// How long to wait (at least 1 millisecond).
        retry_after: Duration,
    },
}

/// One GCRA step on times in microseconds: the new TAT when admitted, else the wait.
pub(crate) fn gcra(tat_us: u64, now_us: u64, limit: RateLimit) -> Result<u64, u64> {
    let emission = u64::try_from(limit.emission_interval().as_micros()).unwrap_or(u64::MAX).max(1);
    let period = limit.period_ms.saturating_mul(1000);
    let new_tat = tat_us.max(now_us).saturating_add(emission);
    let allow_at = new_tat.saturating_sub(period);
    if now_us < allow_at { Err(allow_at - now_us) } else { Ok(new_tat) }
}

/// The store key of a caller's count for `tool` (`*`: the toolbox's own limit).
pub(crate) fn rate_key(tool: &str, caller: &str) -> String {
    format!("envelope:rate:{tool}:{}", &crate::outcome::digest::sha256_hex(caller)[..32])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_the_count_then_one_per_interval() {
        let limit = RateLimit::per_second(2); // one every 500 ms, two at once
        let mut tat = 0;
        let t0 = 10_000_000;
        for _ in 0..2 {
            tat = gcra(tat, t0, limit).unwrap();
        }
        assert_eq!(gcra(tat, t0, limit), Err(500_000));
        assert_eq!(gcra(tat, t0 + 499_999, limit), Err(1));
        tat = gcra(tat, t0 + 500_000, limit).unwrap();
        assert_eq!(gcra(tat, t0 + 500_000, limit), Err(500_000));
        // Idle for a while, the burst is back, and no more.
        let later = t0 + 60_000_000;
        tat = gcra(tat, later, limit).unwrap();
        tat = gcra(tat, later, limit).unwrap();
        assert!(gcra(tat, later, limit).is_err());
    }

    #[test]
    fn forms_and_mistakes() {
        assert_eq!("1/h".parse::<RateLimit>().unwrap(), RateLimit::per_hour(1));
        assert_eq!(" 5 / s ".parse::<RateLimit>().unwrap(), RateLimit::per_second(5));
        let e = "x/min".parse::<RateLimit>().unwrap_err().to_string();
        assert!(e.starts_with("\"x\" is not a count of calls"), "{e}");
        assert_eq!(RateLimit::per_minute(30).words(), "30 calls a minute");
        assert_eq!(RateLimit::new(5, Duration::from_secs(10)).words(), "5 calls every 10 seconds");
    }
}
