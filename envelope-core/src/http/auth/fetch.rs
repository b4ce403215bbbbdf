//! One `GET` of a JWKS document: hyper's HTTP/1.1 client on a fresh connection, over rustls
//! for `https` (the webpki roots), under a time and a size bound. A fetch runs at most once a
//! minute (see `jwks`), so there is no connection pool.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::http::{Request, header};
use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

/// Where a JWKS document is fetched from, checked once when configured.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    pub(crate) tls: bool,
    pub(crate) host: String,
    pub(crate) port: u16,
    /// The request target: path and query (`/jwks.json`).
    pub(crate) path: String,
    /// The URL as given, for messages.
    pub(crate) url: String,
}

impl Target {
    /// `url`, an `https` URL, or `http` on a loopback host (`allow_http`: on any host).
    pub(crate) fn parse(url: &str, allow_http: bool) -> Result<Target, String> {
        let uri = fluent_uri::Uri::parse(url).map_err(|_| format!("{url:?} is not a URL"))?;
        let tls = match uri.scheme().as_str().to_ascii_lowercase().as_str() {
            "https" => true,
            "http" => false,
            other => return Err(format!("{url:?} has the scheme {other:?}; accepted: https (http on loopback)")),
        };
        let authority = uri.authority().ok_or_else(|| format!("{url:?} names no host"))?;
        let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_owned();
        if !tls && !allow_http && !super::super::gate::host_is_loopback(authority.host()) {
            return Err(format!(
                "{url:?} is plain http on a host that is not loopback: keys fetched so could be forged on the way; \
                 use https (or opt in to plain http explicitly)"
            ));
        }
        let port = match authority.port_to_u16() {
            Ok(Some(port)) => port,
            Ok(None) => {
                if tls {
                    443
                } else {
                    80
                }
            }
            Err(_) => return Err(format!("{url:?} has a port that is not a number from 0 to 65535")),
        };
        let mut path = uri.path().as_str().to_owned();
        if path.is_empty() {
            path.push('/');
        }
        if let Some(query) = uri.query() {
            path.push('?');
            path.push_str(query.as_str());
        }
        Ok(Target { tls, host, port, path, url: url.to_owned() })
    }
}

/// The TLS client configuration: the webpki (Mozilla) roots, rustls's `ring` provider.
fn tls_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    Arc::clone(CONFIG.get_or_init(|| {
        let roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("rustls's ring provider serves TLS 1.2 and 1.3")
            .with_root_certificates(roots)
            .with_no_client_auth();
        Arc::new(config)
    }))
}

/// `GET target`: the body of a 200 answer, at most `limit` bytes, within `within`.
pub(crate) async fn get(target: &Target, limit: usize, within: Duration) -> Result<Bytes, String> {
    match tokio::time::timeout(within, get_unbounded(target, limit)).await {
        Ok(result) => result,
        Err(_) => Err(format!("{} did not answer within {} ms", target.url, within.as_millis())),
    }
}

async fn get_unbounded(target: &Target, limit: usize) -> Result<Bytes, String> {
    let fail = |what: &str, e: &dyn std::fmt::Display| format!("{}: {what}: {e}", target.url);
    // tokio resolves the name on its blocking threads.
    let stream = tokio::net::TcpStream::connect((target.host.as_str(), target.port))
        .await
        .map_err(|e| fail("connecting", &e))?;
    let request = Request::get(target.path.as_str())
        .header(header::HOST, host_header(target))
        .header(header::ACCEPT, "application/jwk-set+json, application/json")
        .header(header::USER_AGENT, concat!("envelope/", env!("CARGO_PKG_VERSION")))
        .body(Empty::<Bytes>::new())
        .map_err(|e| fail("building the request", &e))?;
    let response = if target.tls {
        let name = rustls::pki_types::ServerName::try_from(target.host.clone())
            .map_err(|e| fail("reading the host name", &e))?;
        let tls = tokio_rustls::TlsConnector::from(tls_config())
            .connect(name, stream)
            .await
            .map_err(|e| fail("the TLS handshake", &e))?;
        send(TokioIo::new(tls), request).await
    } else {
        send(TokioIo::new(stream), request).await
    }
    .map_err(|e| fail("the request", &e))?;
    if response.status() != hyper::StatusCode::OK {
        return Err(format!("{} answered HTTP {}", target.url, response.status().as_u16()));
    }
    match Limited::new(response.into_body(), limit).collect().await {
        Ok(body) => Ok(body.to_bytes()),
        Err(e) => Err(fail(&format!("reading at most {limit} bytes of the body"), &e)),
    }
}

async fn send<T>(io: T, request: Request<Empty<Bytes>>) -> Result<hyper::Response<hyper::body::Incoming>, hyper::Error>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await?;
    // The connection task ends with the response's body (or with the timeout around `get`,
    // which drops the sender).
    tokio::spawn(connection);
    sender.send_request(request).await
}

fn host_header(target: &Target) -> String {
    let host = if target.host.contains(':') { format!("[{}]", target.host) } else { target.host.clone() };
    let default = if target.tls { 443 } else { 80 };
    if target.port == default { host } else { format!("{host}:{}", target.port) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        let t = Target::parse("https://auth.example.com/.well-known/jwks.json?v=2", false).unwrap();
        assert_eq!(
            (t.tls, t.host.as_str(), t.port, t.path.as_str()),
            (true, "auth.example.com", 443, "/.well-known/jwks.json?v=2")
        );
        let t = Target::parse("http://127.0.0.1:9000/jwks", false).unwrap();
        assert_eq!((t.tls, t.port, host_header(&t).as_str()), (false, 9000, "127.0.0.1:9000"));
        assert!(Target::parse("http://[::1]/jwks", false).is_ok());
        assert!(Target::parse("http://auth.example.com/jwks", false).unwrap_err().contains("not loopback"));
        assert!(Target::parse("http://auth.example.com/jwks", true).is_ok());
        assert!(Target::parse("ftp://auth.example.com/jwks", true).is_err());
        assert!(Target::parse("not a url", true).is_err());
    }
}
