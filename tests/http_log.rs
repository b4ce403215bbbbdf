//! The log of the HTTP endpoints: one `tool_call` span per call, a fault's log line and its
//! envelope sharing one trace id, no secret's value. A binary of its own, so no other test's
//! threads touch `tracing`'s per-call-site cache while a subscriber captures.

use std::sync::{Arc, Mutex};

use axum::Router;
use envelope_core::http::HttpTools;
use envelope_core::{Fault, Toolbox, tool};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::Value;

#[path = "../examples/tools/mod.rs"]
#[allow(dead_code)]
mod tools;

/// Reads the store, which is down.
#[tool]
fn answer() -> Result<Value, Fault> {
    Err(Fault::backend("answering the test"))
}

fn test_toolbox() -> Toolbox {
    tools::toolbox().with(answer::tool())
}

/// Serves `app` on a loopback port; the server task lives as long as the runtime.
async fn serve(app: Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

struct Reply {
    status: u16,
    text: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("{e}: {}", self.text))
    }
}

/// One request over a fresh HTTP/1.1 connection.
async fn send(addr: std::net::SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
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
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Reply { status, text: String::from_utf8(bytes.to_vec()).unwrap() }
}

/// Collects what a `tracing_subscriber::fmt` subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn one_span_per_call_and_a_faults_trace_id_in_its_log_line() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    // One thread: the server's tasks see this thread's subscriber.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let addr = serve(HttpTools::new(test_toolbox()).router()).await;
        let fault = send(addr, "POST", "/tools/answer", &[], "{}").await;
        assert_eq!(fault.status, 500);
        let trace_id = fault.json()["hints"]["trace_id"].as_str().unwrap().to_owned();
        assert_eq!(trace_id.len(), 16);
        let refused =
            send(addr, "POST", "/tools/set_threshold", &[], r#"{"ratio": 2, "api_key": "sk-ZZZZZZZZZZZZZZZZZZZZ"}"#)
                .await;
        assert_eq!(refused.status, 400);

        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 2, "{log}");
        let fault_line = lines[0];
        assert!(fault_line.contains("ERROR"), "{fault_line}");
        assert!(fault_line.contains(&format!("trace_id={trace_id}")), "{fault_line}");
        for field in
            ["tool=answer", "status=\"error\"", "error_code=\"BACKEND_ERROR\"", "http_status=500", "duration_ms="]
        {
            assert!(fault_line.contains(field), "{field} in {fault_line}");
        }
        assert!(
            lines[1].contains("tool=set_threshold") && lines[1].contains("error_code=\"VALIDATION_ERROR\""),
            "{}",
            lines[1]
        );
        assert!(!log.contains("sk-ZZZZ"), "{log}");
        assert_eq!(fault.json()["hints"]["operation"], "answering the test");
    });
}
