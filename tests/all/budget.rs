//! Envelope's own words stay within their budget whatever they are given: a declared refusal
//! or fault whose fields are long stays under 2 KB, and the unknown-tool error of a server with
//! 500 tools stays short: over MCP stdio under 4.5 KB a line, over HTTP under 2 KB.

use envelope_core::__private010::{Input, Outcome, Tool};
use envelope_core::mcp::{McpServer, serve_io};
use envelope_core::{ToolError, Toolbox, codes, tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::block_on;

#[derive(Debug, ToolError)]
enum RegistryError {
    #[refuse(code = codes::NOT_FOUND, parameter = "domains[{index}]", reason = "is held by {holder}",
             accepted = "a domain that is free (free now: {free})",
             fix = "Choose a free domain, not one of {holder}.")]
    Held { rejected: String, index: usize, holder: String, free: String },
    #[fault(code = codes::BACKEND_ERROR, operation = "reading the registry at {path}")]
    Down { path: String },
}

#[test]
fn a_declared_refusal_with_short_fields_is_worded_in_full() {
    let held = RegistryError::Held {
        rejected: "example.com".into(),
        index: 2,
        holder: "ACME".into(),
        free: "example.org".into(),
    };
    let envelope = held.into_envelope();
    assert_eq!(
        envelope.message(),
        Some(
            "domains[2]: \"example.com\" is held by ACME; accepted: a domain that is free (free now: example.org). Choose a free domain, not one of ACME."
        )
    );
}

#[test]
fn a_declared_refusal_with_long_fields_stays_within_2_kb() {
    let held = RegistryError::Held {
        rejected: "d".repeat(5000),
        index: 7,
        holder: "h".repeat(20_000),
        free: (0..3000).map(|i| format!("free-{i}.org")).collect::<Vec<_>>().join(", "),
    };
    let text = held.into_envelope().to_json();
    assert!(text.len() <= 2048, "{} bytes: {text}", text.len());
    let envelope: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(envelope["error_code"], "NOT_FOUND");
    let message = envelope["message"].as_str().unwrap();
    // The rejected value is cut as every quoted value is; the interpolated fields are cut too.
    let start = format!(r#"domains[7]: "{}…" (5000 characters) is held by hhhh"#, "d".repeat(32));
    assert!(message.starts_with(&start), "{message}");
    assert!(message.contains("h…; accepted: a domain that is free (free now: free-0.org, free-1.org"), "{message}");
    let hints = &envelope["hints"];
    assert_eq!(hints["parameter"], "domains");
    assert_eq!(hints["path"], "domains[7]");
    assert!(hints["accepted"].as_str().unwrap().ends_with('…'), "{hints}");
    assert!(hints["fix"].as_str().unwrap().starts_with("Choose a free domain, not one of hhh"), "{hints}");
}

#[test]
fn a_declared_fault_with_a_long_field_stays_within_2_kb() {
    let path = format!("/srv/{}\u{1}", "p\u{0}".repeat(10_000));
    let text = RegistryError::Down { path }.into_envelope().to_json();
    assert!(text.len() <= 2048, "{} bytes: {text}", text.len());
    let envelope: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(envelope["error_code"], "BACKEND_ERROR");
    let operation = envelope["hints"]["operation"].as_str().unwrap();
    assert!(operation.starts_with("reading the registry at /srv/p\u{0}p") && operation.ends_with('…'), "{operation}");
    let message = envelope["message"].as_str().unwrap();
    assert!(message.starts_with(operation) && message.contains("… failed: "), "{message}");

    // A short operation is kept whole.
    let text = RegistryError::Down { path: "/srv/registry".into() }.into_envelope().to_json();
    let envelope: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(envelope["hints"]["operation"], "reading the registry at /srv/registry");
}

/// Echoes a number.
#[tool]
fn echo(#[validate(range = 0..=10)] n: u32) -> u32 {
    n
}

fn unanswered<'a>(_: &'a envelope_core::spec::ToolSpec, _: Input<'_>) -> Outcome<'a> {
    envelope_core::__private010::no_preview()
}

/// A toolbox of `echo` and 500 more tools, `tool_000` to `tool_499`.
fn toolbox_of_500() -> Toolbox {
    let mut toolbox = Toolbox::new().with(echo::tool());
    for i in 0..500 {
        let mut spec = echo::tool().spec().clone();
        spec.name = Box::leak(format!("tool_{i:03}").into_boxed_str());
        toolbox = toolbox.with(Tool::__new(spec, unanswered));
    }
    toolbox
}

const UNKNOWN_AMONG_500: &str = "\"toll_421\" is not a tool of this server; accepted: echo, tool_000, tool_001, tool_002, tool_003, tool_004, tool_005, tool_006, tool_007, tool_008, tool_009, tool_010, tool_011, tool_012, tool_013, tool_014, tool_015, tool_016, tool_017, tool_018 and 481 more (tools/list lists them all). Did you mean \"tool_421\"? Call \"tool_421\".";

#[test]
fn an_unknown_tool_among_500_lists_20_names_and_the_closest() {
    let toolbox = toolbox_of_500();
    let unknown = block_on(toolbox.call_json("toll_421", "{}")).unwrap_err();
    assert_eq!(unknown.to_string(), UNKNOWN_AMONG_500);
    assert_eq!(unknown.suggestion(), Some("tool_421"));

    // A few tools are all listed, as before.
    let small = Toolbox::new().with(echo::tool());
    let unknown = block_on(small.call_json("ecko", "{}")).unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "\"ecko\" is not a tool of this server; accepted: echo. Did you mean \"echo\"? Call \"echo\"."
    );
    let none = block_on(Toolbox::new().call_json("echo", "{}")).unwrap_err();
    assert_eq!(
        none.to_string(),
        "\"echo\" is not a tool of this server, which has no tools. Call one of the listed tools (tools/list)."
    );
}

#[test]
fn an_unknown_tool_among_500_is_one_short_line_over_mcp_stdio() {
    block_on(async {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_in, server_out) = tokio::io::split(server);
        let served = tokio::spawn(serve_io(McpServer::new(toolbox_of_500()), server_in, server_out));
        let (output, mut input) = tokio::io::split(client);
        let mut output = BufReader::new(output);
        let lines = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
                "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "toll_421", "arguments": {}}}),
        ];
        for line in lines {
            input.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        }
        let mut reply = String::new();
        while !reply.contains(r#""id":2"#) {
            reply.clear();
            output.read_line(&mut reply).await.unwrap();
        }
        assert!(reply.len() <= 4608, "{} bytes: {reply}", reply.len());
        let reply: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert_eq!(reply["error"]["message"], UNKNOWN_AMONG_500);
        input.shutdown().await.unwrap();
        drop(input);
        served.await.unwrap().unwrap();
    });
}

#[test]
fn an_unknown_tool_among_500_is_refused_within_2_kb_over_http() {
    block_on(async {
        let addr = crate::http::serve(envelope_core::http::HttpTools::new(toolbox_of_500()).router()).await;
        let reply = crate::http::send(addr, "POST", "/tools/toll_421", &[], "{}").await;
        assert_eq!(reply.status, 404);
        assert!(reply.text.len() <= 2048, "{} bytes: {}", reply.text.len(), reply.text);
        let envelope: Value = serde_json::from_str(&reply.text).unwrap();
        let listed: Vec<String> =
            std::iter::once("\"echo\"".to_owned()).chain((0..19).map(|i| format!("\"tool_{i:03}\""))).collect();
        let accepted = format!("{} and 481 more (GET /tools lists them all)", listed.join(", "));
        assert_eq!(envelope["hints"]["accepted"], accepted.as_str());
        assert_eq!(envelope["hints"]["suggestion"], "tool_421");
        assert_eq!(
            envelope["message"],
            format!(
                "name: \"toll_421\" is not a tool of this server; accepted: {accepted}. Did you mean \"tool_421\"? Send POST /tools/tool_421."
            )
        );
    });
}
