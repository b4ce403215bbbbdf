//! Bounded slices of the fuzzers for every test run. `call_json`: 5,000 inputs from each of three
//! seeds (the test profile reads about 1,000 a second).
//! The long run is `cargo run --release -p envelope-fuzz -- 10_000_000`.

#[test]
fn no_promise_broken_on_a_slice() {
    for seed in [1, 2, 3] {
        let report = envelope_fuzz::run(5_000, seed).unwrap_or_else(|failure| panic!("seed {seed}: {failure}"));
        assert_eq!(report.inputs, 5_000);
        // Every kind of input was fed and every kind of answer seen, so the slice tests something.
        assert_eq!(report.by_kind.len(), 4, "{report}");
        for status in ["ok", "invalid", "unknown tool"] {
            assert!(report.by_status.get(status).copied().unwrap_or(0) > 0, "no {status:?} answer: {report}");
        }
    }
}

/// A bounded slice of the MCP line fuzzer: 1,000 lines from each of two seeds through the stdio
/// server (the test profile reads about 450 lines a second). The long run is
/// `cargo run --release -p envelope-fuzz -- mcp 2_000_000`.
#[test]
fn no_mcp_promise_broken_on_a_slice() {
    for seed in [1, 2] {
        let report = envelope_fuzz::run_mcp(1_000, seed).unwrap_or_else(|failure| panic!("seed {seed}: {failure}"));
        assert_eq!(report.lines, 1_000);
        // Every kind of line was fed and every kind of answer seen, so the slice tests something.
        for kind in ["tools/call", "unknown tool", "notification", "bad id", "bad shape", "random bytes", "mutated"] {
            assert!(report.by_kind.get(kind).copied().unwrap_or(0) > 0, "no {kind:?} line: {report}");
        }
        for reply in ["none", "tools/call ok", "tools/call invalid", "error -32700", "error -32600", "error -32602"] {
            assert!(report.by_reply.get(reply).copied().unwrap_or(0) > 0, "no {reply:?} reply: {report}");
        }
        assert!(
            report.largest_line.0 > 1000 && report.largest_line.0 <= envelope_fuzz::mcp::MAX_LINE_BYTES,
            "{report}"
        );
    }
}

/// A bounded slice of the HTTP fuzzer: 600 requests from each of two seeds over loopback TCP to
/// the example tools at `/mcp` and `/tools/{name}`. The long run is
/// `cargo run --release -p envelope-fuzz -- http 1_000_000`.
#[test]
fn no_http_promise_broken_on_a_slice() {
    for seed in [1, 2] {
        let report = envelope_fuzz::run_http(600, seed).unwrap_or_else(|failure| panic!("seed {seed}: {failure}"));
        assert_eq!(report.requests, 600);
        for kind in
            ["tools call", "mcp", "get", "method", "bytes", "empty", "foreign origin", "foreign host", "not http"]
        {
            assert!(report.by_kind.get(kind).copied().unwrap_or(0) > 0, "no {kind:?} request: {report}");
        }
        for reply in ["200 ok", "400 invalid", "200 result", "403 forbidden_origin"] {
            assert!(report.by_reply.get(reply).copied().unwrap_or(0) > 0, "no {reply:?} reply: {report}");
        }
    }
}
