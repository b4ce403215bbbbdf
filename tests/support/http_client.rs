//! An HTTP/1.1 client for the tests that serve an axum `Router` on loopback (hyper's client):
//! `serve` it, `send` one request, read the `Reply`. Shared by `tests/all` and `tests/http_log.rs`.

use axum::Router;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// Serves `app` on a loopback port; the server task lives as long as the runtime.
pub(crate) async fn serve(app: Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// A response: its status, headers and body text.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: hyper::HeaderMap,
    pub(crate) text: String,
}

impl Reply {
    /// The body as JSON (panics with the text when it is not).
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("{e}: {}", self.text))
    }

    /// A JSON-RPC reply: the body as JSON, or, for an event stream, its last `data:` line's.
    #[allow(dead_code)]
    pub(crate) fn json_rpc(&self) -> Value {
        match self.text.lines().rev().find_map(|l| l.strip_prefix("data:")) {
            Some(data) => serde_json::from_str(data.trim()).unwrap_or_else(|e| panic!("{e}: {}", self.text)),
            None => self.json(),
        }
    }

    /// A header's value, when it is there and readable.
    #[allow(dead_code)]
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// One request over a fresh HTTP/1.1 connection.
pub(crate) async fn send(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(conn);
    let mut request = hyper::Request::builder().method(method).uri(path).header("host", addr.to_string());
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let request = request.body(Full::new(Bytes::from(body.to_owned()))).unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Reply { status, headers, text: String::from_utf8(bytes.to_vec()).unwrap() }
}

/// [`send`] with a body of any bytes (UTF-8 or not) and no extra headers.
#[allow(dead_code)]
pub(crate) async fn send_bytes(addr: std::net::SocketAddr, method: &str, path: &str, body: &'static [u8]) -> Reply {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(conn);
    let request = hyper::Request::builder().method(method).uri(path).header("host", addr.to_string());
    let request = request.body(Full::new(Bytes::from_static(body))).unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Reply { status, headers, text: String::from_utf8(bytes.to_vec()).unwrap() }
}
