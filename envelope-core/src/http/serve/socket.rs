//! A connection's socket: hyper's own error heads given a JSON body, the write stall timeout,
//! and the lingering drain before close.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::http::transport::TransportErrorKind;

use super::head::HeadClock;
use super::peers::LOG_TARGET;
use super::refusals::{hyper_error_head, raw_response};
use super::shared::LINGER;

/// The socket of a connection: gives hyper's own answers to an unparsable request head (empty
/// 400, 414, 431) a JSON body (hyper writes them before any service runs, as one buffer
/// holding a head alone), and closes with a lingering drain.
pub(super) struct Shaped {
    stream: TcpStream,
    head: HeadClock,
    max_header_bytes: usize,
    /// A replacement being written, and how much of it is.
    replacement: Option<(Vec<u8>, usize)>,
    /// A replacement was written: the connection ends after it.
    ended: bool,
    /// The deadline of the draining after the sending side is shut.
    linger: Option<Pin<Box<tokio::time::Sleep>>>,
    /// [`Serve::write_stall_timeout`](super::Serve::write_stall_timeout), and the deadline of a write that is waiting (made on
    /// the first write that waits, and kept for the connection's later ones).
    stall_timeout: Duration,
    stall: Option<Pin<Box<tokio::time::Sleep>>>,
    stalled: bool,
    peer: SocketAddr,
}

impl Shaped {
    pub(super) fn new(
        stream: TcpStream,
        max_header_bytes: usize,
        head: HeadClock,
        stall_timeout: Duration,
        peer: SocketAddr,
    ) -> Self {
        Shaped {
            stream,
            head,
            max_header_bytes,
            replacement: None,
            ended: false,
            linger: None,
            stall_timeout,
            stall: None,
            stalled: false,
            peer,
        }
    }

    /// A write to the socket that waits: its deadline set on its first wait (the task woken
    /// then); past it, the error the write ends with. Any progress clears the wait.
    fn waited<T>(&mut self, cx: &mut Context<'_>, polled: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.stalled = false;
            return polled;
        }
        let deadline = tokio::time::Instant::now() + self.stall_timeout;
        let stall = self.stall.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if !self.stalled {
            stall.as_mut().reset(deadline);
            self.stalled = true;
        }
        if stall.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        tracing::info!(
            target: LOG_TARGET,
            peer = %self.peer,
            "connection closed: the client read none of a response for {} ms",
            self.stall_timeout.as_millis()
        );
        Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client reads no response")))
    }

    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.replacement {
            if *written == bytes.len() {
                self.replacement = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.stream).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for Shaped {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(Ok(()));
        }
        let waiting = this.head.waiting();
        if waiting && this.head.sleep.is_elapsed() && this.head.expired(cx) {
            return Poll::Ready(Err(this.head.end()));
        }
        let before = buf.filled().len();
        let read = Pin::new(&mut this.stream).poll_read(cx, buf);
        if waiting && read.is_ready() {
            this.head.received(buf.filled().len() - before);
        }
        // Waiting for a head, and none here yet (or not the whole): woken at its deadline.
        if read.is_pending() && waiting {
            this.head.bring_forward();
            if this.head.poll_fired(cx) && this.head.expired(cx) {
                return Poll::Ready(Err(this.head.end()));
            }
        }
        read
    }
}

impl AsyncWrite for Shaped {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        if this.ended {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        if let Some((error, status, reason, date)) = hyper_error_head(buf, this.max_header_bytes) {
            let kind = error.kind();
            debug_assert!(matches!(
                kind,
                TransportErrorKind::MalformedRequest
                    | TransportErrorKind::UriTooLong
                    | TransportErrorKind::HeaderFieldsTooLarge
            ));
            let date = (!date.is_empty()).then_some(date);
            this.replacement = Some((raw_response(status, reason, &error, date), 0));
            this.ended = true;
            if let Poll::Ready(Err(e)) = this.drain(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        let polled = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.waited(cx, polled)
    }

    /// hyper flushes once its write buffer is empty (one buffer per write, `writev(false)`):
    /// after a response's last byte, the wait for the next head starts.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        ready!(Pin::new(&mut this.stream).poll_flush(cx))?;
        this.head.flushed(cx);
        Poll::Ready(Ok(()))
    }

    /// Ends the connection's sending side, then reads and discards what the client still sends
    /// (a body the server did not read) until the client ends its side or [`LINGER`] passes:
    /// closing a socket with unread data resets the connection, and a client still sending
    /// would lose the answer.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        if this.linger.is_none() {
            ready!(Pin::new(&mut this.stream).poll_shutdown(cx))?;
            this.linger = Some(Box::pin(tokio::time::sleep(LINGER)));
        }
        let mut buf = [0u8; 8192];
        loop {
            if this.linger.as_mut().is_none_or(|linger| linger.as_mut().poll(cx).is_ready()) {
                return Poll::Ready(Ok(()));
            }
            let mut read = ReadBuf::new(&mut buf);
            match Pin::new(&mut this.stream).poll_read(cx, &mut read) {
                Poll::Ready(Ok(())) if !read.filled().is_empty() => {}
                Poll::Ready(_) => return Poll::Ready(Ok(())),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        false
    }
}
