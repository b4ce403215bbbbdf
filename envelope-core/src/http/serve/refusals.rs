//! The answers the server writes by hand: a connection refused over a bound, and hyper's own
//! error heads replaced by JSON.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

use crate::http::transport::TransportError;

use super::peers::LOG_TARGET;
use super::shared::{LINGER, LINGER_BYTES, Shared};

/// A response written to the socket by hand, for a connection hyper does not serve (or no
/// longer): status line, `content-type`, `content-length`, `retry-after` of a 503,
/// `connection: close`, then the plain JSON body.
/// `date` is a `date: ...` field line, without its CRLF.
pub(super) fn raw_response(status: u16, reason: &str, error: &TransportError, date: Option<&[u8]>) -> Vec<u8> {
    let body = error.to_json();
    let mut head =
        format!("HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n", body.len());
    if let Some(seconds) = error.retry_after_seconds() {
        head.push_str(&format!("retry-after: {seconds}\r\n"));
    }
    head.push_str("connection: close\r\n");
    let mut bytes = head.into_bytes();
    if let Some(date) = date {
        bytes.extend_from_slice(date);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(b"\r\n");
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

/// A connection over the bound: answered 503 and closed. Draining what the client sent before
/// closing lets it read the answer (closing a socket with unread data resets it).
pub(super) fn refuse(
    stream: TcpStream,
    peer: SocketAddr,
    shared: &Shared,
    lingering: &Arc<Semaphore>,
    why: RefusedFor,
) {
    let reply = match why {
        RefusedFor::Connections => {
            tracing::warn!(
                target: LOG_TARGET,
                %peer,
                "connection refused: this server is at its bound of {} open connections",
                shared.limits.max_connections
            );
            shared.busy_reply.clone()
        }
        RefusedFor::Heads => {
            tracing::warn!(
                target: LOG_TARGET,
                %peer,
                "connection refused: this address holds this server's bound of {} unfinished request heads",
                shared.limits.max_unfinished_heads_per_peer
            );
            shared.heads_reply.clone()
        }
    };
    match Arc::clone(lingering).try_acquire_owned() {
        Ok(permit) => {
            tokio::spawn(async move {
                let _permit = permit;
                let _ = tokio::time::timeout(LINGER, linger(stream, reply)).await;
            });
        }
        Err(_) => {
            // The send buffer of a new connection is empty: the answer fits at once.
            let _ = stream.try_write(&reply);
        }
    }
}

/// Why a connection is refused before its request is read.
#[derive(Clone, Copy)]
pub(super) enum RefusedFor {
    Connections,
    Heads,
}

pub(super) async fn linger(mut stream: TcpStream, reply: Bytes) -> io::Result<()> {
    stream.write_all(&reply).await?;
    stream.shutdown().await?;
    let mut buf = [0u8; 2048];
    let mut drained = 0;
    while drained < LINGER_BYTES {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        drained += n;
    }
    Ok(())
}

/// hyper's own answer to a head it could not parse (`role.rs`, `on_error`): a status line
/// and no fields but `content-length: 0`, `date` and `connection`; the error to answer
/// instead, and hyper's `date` line.
pub(super) fn hyper_error_head(
    buf: &[u8],
    max_header_bytes: usize,
) -> Option<(TransportError, u16, &'static str, &[u8])> {
    const HEADS: [(&[u8], u16, &str); 3] = [
        (b"HTTP/1.1 400 Bad Request\r\n", 400, "Bad Request"),
        (b"HTTP/1.1 414 URI Too Long\r\n", 414, "URI Too Long"),
        (b"HTTP/1.1 431 Request Header Fields Too Large\r\n", 431, "Request Header Fields Too Large"),
    ];
    let (line, status, reason) = HEADS.iter().find(|(line, ..)| buf.starts_with(line))?;
    let fields = buf[line.len()..].strip_suffix(b"\r\n\r\n")?;
    let mut date: &[u8] = &[];
    let mut has_length = false;
    for field in fields.split(|&b| b == b'\n') {
        let field = field.strip_suffix(b"\r").unwrap_or(field);
        let lower = field.to_ascii_lowercase();
        if lower == b"content-length: 0" {
            has_length = true;
        } else if lower.starts_with(b"date: ") {
            date = field;
        } else if !lower.starts_with(b"connection: ") {
            return None;
        }
    }
    if !has_length {
        return None;
    }
    let error = match status {
        400 => TransportError::malformed_request(),
        414 => TransportError::uri_too_long(65_534),
        _ => TransportError::header_fields_too_large(max_header_bytes),
    };
    Some((error, *status, reason, date))
}
