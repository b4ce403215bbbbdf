//! The log of the HTTP endpoints: one `tool_call` span per call, a fault's log line and its
//! envelope sharing one trace id, no secret's value. A binary of its own, so no other test's
//! threads touch `tracing`'s per-call-site cache while a subscriber captures.

use envelope_core::http::HttpTools;
use envelope_core::{Fault, Toolbox, tool};
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

#[path = "support/http_client.rs"]
mod client;
use client::{send, serve};

#[path = "support/captured.rs"]
mod captured;
use captured::Captured;

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
        // The call id the audit record and the reply's provenance carry.
        assert!(fault_line.contains("call_id=call_"), "{fault_line}");
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
