//! What a call sends its client besides its answer: the log levels, a checked progress report,
//! the rate bound's memory and the sizes messages are cut to.

use std::time::{Duration, Instant};

/// The severity of a log message: the eight levels of syslog (RFC 5424 §6.2.1), as MCP names
/// them (`"debug"` to `"emergency"`, MCP 2025-11-25 "Utilities / Logging"), least severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum LogLevel {
    /// `debug`
    Debug,
    /// `info`
    Info,
    /// `notice`
    Notice,
    /// `warning`
    Warning,
    /// `error`
    Error,
    /// `critical`
    Critical,
    /// `alert`
    Alert,
    /// `emergency`
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The MCP word: `"debug"`, `"info"`, ..., `"emergency"`.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level an MCP word names.
    pub fn from_word(word: &str) -> Option<Self> {
        LogLevel::ALL.into_iter().find(|l| l.as_str() == word)
    }
}

/// A progress report that passed the checks, as a transport sends it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Progress {
    pub(crate) done: f64,
    pub(crate) total: Option<f64>,
    pub(crate) message: Option<String>,
}

/// The least time between two progress notifications of one call.
pub(crate) const PROGRESS_INTERVAL: Duration = Duration::from_millis(50);

/// The most bytes of a log message sent.
pub(crate) const MAX_LOG_BYTES: usize = 4096;

/// The most characters of a progress message sent.
pub(super) const MAX_PROGRESS_CHARS: usize = 512;

/// What the rate bound of progress remembers.
#[derive(Default)]
pub(super) struct Rate {
    pub(super) last: Option<f64>,
    pub(super) sent_at: Option<Instant>,
    pub(super) held: Option<Progress>,
}
