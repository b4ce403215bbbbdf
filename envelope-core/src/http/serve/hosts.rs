//! The `Host` check against DNS rebinding ([`AllowedHosts`]).

use std::str::FromStr;

use axum::http::uri::Authority;
use axum::http::{HeaderMap, Uri, header};

use crate::http::gate::host_is_loopback;
use crate::http::transport::TransportError;

/// The `Host` values a server answers: the defence against DNS rebinding for the requests a
/// browser sends without `Origin` (a page on `rebind.example`, its name now resolving to
/// 127.0.0.1, sends `GET /manifest` with `Host: rebind.example:8080`). A request naming another
/// host, in `Host` or in an absolute request target (RFC 9112 §3.2.2), is answered
/// `forbidden_host` (403). A request without either (HTTP/1.0, some programs) is served.
///
/// ```
/// use envelope_core::http::AllowedHosts;
/// use axum::http::{HeaderMap, Uri};
///
/// let hosts = AllowedHosts::loopback().allow("mcp.example.com");
/// let host = |value: &str| {
///     let mut headers = HeaderMap::new();
///     headers.insert("host", value.parse().unwrap());
///     hosts.check(&headers, &Uri::from_static("/mcp")).map_err(|e| e.word())
/// };
/// assert_eq!(host("localhost:8080"), Ok(()));
/// assert_eq!(host("[::1]:8080"), Ok(()));
/// assert_eq!(host("MCP.example.com:443"), Ok(()));
/// assert_eq!(host("rebind.example:8080"), Err("forbidden_host"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct AllowedHosts {
    any: bool,
    loopback: bool,
    /// Lowercase names, each with the one port it is served on, or any port.
    names: Vec<(String, Option<u16>)>,
}

/// Whether a `Host` value is `127.0.0.1`, `localhost` or `[::1]`, with or without a port of 1
/// to 5 digits: loopback hosts [`AllowedHosts::check_one`] serves, in their usual spelling.
pub(super) fn is_plain_loopback(value: &[u8]) -> bool {
    let port = |rest: &[u8]| match rest.strip_prefix(b":") {
        None => rest.is_empty(),
        Some(digits) => {
            (1..=5).contains(&digits.len())
                && digits[0] != b'0'
                && digits.iter().all(u8::is_ascii_digit)
                && digits.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0')) <= 65_535
        }
    };
    [b"127.0.0.1".as_slice(), b"localhost", b"[::1]"].iter().any(|name| value.strip_prefix(*name).is_some_and(port))
}

impl AllowedHosts {
    /// Loopback names only, with any port: `localhost` and `*.localhost` (RFC 6761 §6.3),
    /// `127.0.0.0/8` and `[::1]`. No DNS-rebinding page can be served under them.
    pub fn loopback() -> Self {
        AllowedHosts { any: false, loopback: true, names: Vec::new() }
    }

    /// No name: only the hosts [`allow`](Self::allow) adds.
    pub fn none() -> Self {
        AllowedHosts::default()
    }

    /// Every host: no check.
    pub fn any() -> Self {
        AllowedHosts { any: true, loopback: true, names: Vec::new() }
    }

    /// Also serves `host`: a name or address with any port (`"mcp.example.com"`,
    /// `"192.168.1.20"`, `"[fd00::1]"`), or with one port (`"mcp.example.com:8443"`), compared
    /// case-insensitively.
    #[must_use]
    pub fn allow(mut self, host: impl AsRef<str>) -> Self {
        let host = host.as_ref().trim().to_ascii_lowercase();
        let entry = match Authority::from_str(&host) {
            Ok(authority) => (authority.host().trim_end_matches('.').to_owned(), authority.port_u16()),
            Err(_) => (host, None),
        };
        self.names.push(entry);
        self
    }

    /// Checks one request's `Host` and request target.
    ///
    /// # Errors
    /// `forbidden_host` for a host not served or not a valid `host[:port]`;
    /// `malformed_request` for a `Host` sent twice (RFC 9112 §3.2).
    pub fn check(&self, headers: &HeaderMap, uri: &Uri) -> Result<(), TransportError> {
        if self.any {
            return Ok(());
        }
        let mut values = headers.get_all(header::HOST).iter();
        let first = values.next();
        if values.next().is_some() {
            return Err(TransportError::host_sent_twice());
        }
        if let Some(authority) = uri.authority() {
            self.check_one(authority.as_str())?;
        }
        match first {
            // The usual request to a loopback server, checked without parsing.
            Some(value) if self.loopback && is_plain_loopback(value.as_bytes()) => Ok(()),
            Some(value) => self.check_one(&String::from_utf8_lossy(value.as_bytes())),
            None => Ok(()),
        }
    }

    pub(super) fn check_one(&self, value: &str) -> Result<(), TransportError> {
        let served = !value.contains('@')
            && Authority::from_str(value).is_ok_and(|authority| {
                let host = authority.host().to_ascii_lowercase();
                let host = host.trim_end_matches('.');
                (self.loopback && host_is_loopback(host))
                    || self
                        .names
                        .iter()
                        .any(|(name, port)| name == host && port.is_none_or(|p| Some(p) == authority.port_u16()))
            });
        if served { Ok(()) } else { Err(self.refuse(value)) }
    }

    fn refuse(&self, value: &str) -> TransportError {
        let mut served: Vec<String> = Vec::new();
        if self.loopback {
            served.extend(["localhost".to_owned(), "127.0.0.1".to_owned(), "[::1]".to_owned()]);
        }
        served.extend(self.names.iter().take(10).map(|(name, port)| match port {
            Some(port) => format!("{name}:{port}"),
            None => name.clone(),
        }));
        let served = match served.split_last() {
            None => "a host this server is configured to serve".to_owned(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        };
        TransportError::forbidden_host(value, &served)
    }
}
