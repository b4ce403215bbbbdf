//! Golden tests of the wire formats of existing surfaces: each format's ok, refusal, fault and
//! confirmation line, byte for byte, over MCP (text content, `structuredContent`, `isError`,
//! in-process through rmcp's client) and over HTTP (body and status, over loopback); each
//! format's `outputSchema` as `tools/list` advertises it, and every line valid against it.

use envelope_core::mcp::McpServer;
use envelope_core::{Toolbox, http::HttpTools, outcome::WireFormat, tool};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::http::{archive_note, send, serve};

/// Finds notes by a word.
#[tool(read_only)]
fn find_notes(#[validate(length = 1..=40)] word: String) -> Value {
    json!({"count": 2, "results": [{"id": 1, "title": format!("{word} one")}, {"id": 2, "title": format!("{word} two")}]})
}

/// Reads query statistics, from a store that is down.
#[tool]
fn get_top_queries(#[validate(range = 1..=720)] hours_back: u32) -> Result<Value, envelope_core::Fault> {
    Err(envelope_core::Fault::backend(format!("get_top_queries over {hours_back}h")))
}

fn toolbox(format: WireFormat) -> Toolbox {
    Toolbox::new()
        .with(find_notes::tool())
        .with(get_top_queries::tool())
        .with(archive_note::tool())
        .with_code_prefix("ACME_")
        .with_wire_format(format)
}

/// The four calls: ok, refusal, fault, confirmation.
const CALLS: [(&str, &str); 4] = [
    ("find_notes", r#"{"word": "release"}"#),
    ("get_top_queries", r#"{"hours_back": 0}"#),
    ("get_top_queries", r#"{"hours_back": 24}"#),
    ("archive_note", r#"{"note_id": 3}"#),
];

/// What one call answers over MCP and over HTTP.
#[derive(Debug, PartialEq)]
struct Line {
    text: String,
    is_error: bool,
    http_status: u16,
}

/// Each call of [`CALLS`] over MCP (the text content; `structuredContent` checked equal to it)
/// and over HTTP (the body checked equal to the text), and the `outputSchema`s advertised.
async fn lines(format: WireFormat) -> (Vec<Line>, Vec<(String, Value)>) {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = McpServer::new(toolbox(format));
    tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let client = ().serve(client_io).await.unwrap();
    let addr = serve(HttpTools::new(toolbox(format)).router()).await;
    let mut out = Vec::new();
    for (name, args) in CALLS {
        let Value::Object(arguments) = serde_json::from_str(args).unwrap() else { unreachable!() };
        let result = client.call_tool(CallToolRequestParams::new(name).with_arguments(arguments)).await.unwrap();
        let text = result.content[0].as_text().unwrap().text.clone();
        let structured = result.structured_content.clone().unwrap();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), structured, "{name}");
        let http = send(addr, "POST", &format!("/tools/{name}"), &[], args).await;
        if format == WireFormat::Envelope {
            // Over HTTP a fault's envelope also carries `hints.trace_id`, the id of its log line.
            let mut body: Value = serde_json::from_str(&http.text).unwrap();
            let trace_id = body.get_mut("hints").and_then(Value::as_object_mut).and_then(|h| h.remove("trace_id"));
            assert_eq!(trace_id.is_some(), structured["status"] == "error", "{}", http.text);
            assert_eq!(body, structured, "{name}: the HTTP body is the MCP envelope");
        } else {
            assert_eq!(http.text, text, "{name}: the HTTP body is the MCP text, byte for byte");
        }
        out.push(Line { text, is_error: result.is_error.unwrap(), http_status: http.status });
    }
    let schemas = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| (t.name.to_string(), Value::Object((*t.output_schema.unwrap()).clone())))
        .collect();
    client.cancel().await.unwrap();
    (out, schemas)
}

fn line(text: &str, is_error: bool, http_status: u16) -> Line {
    Line { text: text.to_owned(), is_error, http_status }
}

const REFUSAL: &str =
    "hours_back: 0 is out of range; accepted: a whole number from 1 to 720. Send a value from 1 to 720.";
const FAULT: &str = "get_top_queries over 24h failed: the server failed while serving a valid request. It may have \
                     taken effect: read the current state before calling again.";
const CONFIRM: &str = "Deleting note 3 waits for approval: show the preview, then call confirm_action.";

/// Checks every line against the `outputSchema` its tool advertises.
fn check_schemas(lines: &[Line], schemas: &[(String, Value)]) {
    for ((name, _), line) in CALLS.iter().zip(lines) {
        let schema = &schemas.iter().find(|(n, _)| n == name).unwrap().1;
        let validator = jsonschema::validator_for(schema).unwrap();
        let value: Value = serde_json::from_str(&line.text).unwrap();
        let errors: Vec<String> = validator.iter_errors(&value).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {} against {schema}: {errors:?}", line.text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn format_1_status_and_hints() {
    let (lines, schemas) = lines(WireFormat::StatusHints).await;
    assert_eq!(
        lines,
        [
            line(
                r#"{"status":"ok","data":{"count":2,"results":[{"id":1,"title":"release one"},{"id":2,"title":"release two"}]}}"#,
                false,
                200
            ),
            line(
                &format!(r#"{{"status":"invalid","message":"{REFUSAL}","hints":{{"parameter":"hours_back"}}}}"#),
                true,
                400
            ),
            line(
                &format!(
                    r#"{{"status":"error","message":"{FAULT}","hints":{{"operation":"get_top_queries over 24h"}}}}"#
                ),
                true,
                500
            ),
            line(
                &format!(
                    r#"{{"status":"needs_confirmation","message":"{CONFIRM}","pending_action_id":"pa_7Qx2","preview":{{"delete":{{"id":3,"title":"Release notes"}}}},"preview_hash":"{}"}}"#,
                    preview_hash()
                ),
                false,
                202
            ),
        ]
    );
    check_schemas(&lines, &schemas);
    let find = &schemas[0].1;
    assert_eq!(find["properties"]["status"], json!({"enum": ["ok", "invalid", "error"]}));
    assert_eq!(
        find["properties"]["hints"]["properties"],
        json!({"parameter": {"type": "string"}, "operation": {"type": "string"}})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn format_2_success_flag() {
    let (lines, schemas) = lines(WireFormat::SuccessFlag).await;
    assert_eq!(
        lines,
        [
            line(
                r#"{"count":2,"results":[{"id":1,"title":"release one"},{"id":2,"title":"release two"}]}"#,
                false,
                200
            ),
            line(&format!(r#"{{"success":false,"refused":true,"error":"{REFUSAL}"}}"#), true, 400),
            line(&format!(r#"{{"success":false,"refused":false,"error":"{FAULT}"}}"#), true, 500),
            line(
                &format!(
                    r#"{{"success":false,"refused":false,"error":"{CONFIRM}","pending_action_id":"pa_7Qx2","preview":{{"delete":{{"id":3,"title":"Release notes"}}}},"preview_hash":"{}"}}"#,
                    preview_hash()
                ),
                false,
                202
            ),
        ]
    );
    for failure in &lines[1..] {
        let v: Value = serde_json::from_str(&failure.text).unwrap();
        assert!(v.get("count").is_none() && v.get("results").is_none(), "{}", failure.text);
    }
    check_schemas(&lines, &schemas);
    // The schema tells a success from a failure by `success` alone.
    let schema = &schemas[0].1;
    let validator = jsonschema::validator_for(schema).unwrap();
    assert!(!validator.is_valid(&json!({"success": false, "error": "no refused key"})));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn format_3_error_code_and_summary() {
    let (lines, schemas) = lines(WireFormat::ErrorCodeSummary).await;
    assert_eq!(
        lines,
        [
            line(
                r#"{"status":"ok","data":{"count":2,"results":[{"id":1,"title":"release one"},{"id":2,"title":"release two"}]}}"#,
                false,
                200
            ),
            line(
                &format!(r#"{{"status":"error","error_code":"ACME_VALIDATION_ERROR","summary":"{REFUSAL}"}}"#),
                true,
                400
            ),
            line(&format!(r#"{{"status":"error","error_code":"ACME_BACKEND_ERROR","summary":"{FAULT}"}}"#), true, 500),
            line(
                &format!(
                    r#"{{"status":"needs_confirmation","error_code":"ACME_CONFIRMATION_REQUIRED","pending_action_id":"pa_7Qx2","preview":{{"delete":{{"id":3,"title":"Release notes"}}}},"preview_hash":"{}","summary":"{CONFIRM}"}}"#,
                    preview_hash()
                ),
                false,
                202
            ),
        ]
    );
    // isError is true exactly for the lines whose status is `error`.
    for l in &lines {
        let v: Value = serde_json::from_str(&l.text).unwrap();
        assert_eq!(l.is_error, v["status"] == "error", "{}", l.text);
    }
    check_schemas(&lines, &schemas);
    assert_eq!(
        schemas[1].1["properties"]["error_code"],
        json!({"enum": ["ACME_VALIDATION_ERROR", "ACME_BACKEND_ERROR", "ACME_TIMEOUT", "ACME_NOT_IMPLEMENTED"]})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_format_is_the_envelope() {
    let (lines, schemas) = lines(WireFormat::Envelope).await;
    assert!(lines[0].text.starts_with(r#"{"status":"ok","success":true,"data":{"count":2"#), "{}", lines[0].text);
    assert!(lines[1].text.starts_with(r#"{"status":"invalid","success":false,"error_code":"ACME_VALIDATION_ERROR""#));
    assert_eq!(schemas[0].1, Value::Object(toolbox(WireFormat::Envelope).tools()[0].output_schema(Some("ACME_"))));
}

/// The preview's hash, as `Confirmation::new` computes it.
fn preview_hash() -> String {
    let env = envelope_core::Envelope::needs_confirmation(envelope_core::outcome::Confirmation::new(
        "pa_7Qx2",
        CONFIRM,
        json!({"delete": {"id": 3, "title": "Release notes"}}),
    ));
    env.to_value()["preview_hash"].as_str().unwrap().to_owned()
}

/// Reads the notes from a cache, with a warning.
#[tool(read_only)]
fn cached_notes() -> envelope_core::outcome::Warned<Value> {
    envelope_core::outcome::Warned::new(
        json!({"count": 1, "results": [{"id": 1}]}),
        "The notes are from a cache, 5 minutes old.",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provenance_and_warning_in_every_format_and_its_output_schema() {
    let formats =
        [WireFormat::Envelope, WireFormat::StatusHints, WireFormat::SuccessFlag, WireFormat::ErrorCodeSummary];
    for format in formats {
        let toolbox = || toolbox(format).with(cached_notes::tool()).with_provenance();
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let server = McpServer::new(toolbox());
        tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
        let client = ().serve(client_io).await.unwrap();
        let addr = serve(HttpTools::new(toolbox()).router()).await;
        let schemas: Vec<(String, Value)> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| (t.name.to_string(), Value::Object((*t.output_schema.unwrap()).clone())))
            .collect();
        let calls = CALLS.iter().copied().chain([("cached_notes", "{}")]);
        for (name, args) in calls {
            let Value::Object(arguments) = serde_json::from_str(args).unwrap() else { unreachable!() };
            let result = client.call_tool(CallToolRequestParams::new(name).with_arguments(arguments)).await.unwrap();
            let mcp: Value = serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap();
            let http = send(addr, "POST", &format!("/tools/{name}"), &[], args).await.json();
            let schema = &schemas.iter().find(|(n, _)| n == name).unwrap().1;
            let validator = jsonschema::validator_for(schema).unwrap();
            for (surface, line) in [("mcp", &mcp), ("http", &http)] {
                let errors: Vec<String> = validator.iter_errors(line).map(|e| e.to_string()).collect();
                assert!(errors.is_empty(), "{format:?} {name} over {surface}: {line} against {schema}: {errors:?}");
                // SuccessFlag writes a success as the tool's own data object: no room there.
                let bare = format == WireFormat::SuccessFlag && line.get("count").is_some();
                if bare {
                    assert!(line.get("provenance").is_none() && line.get("warning").is_none(), "{line}");
                    continue;
                }
                let provenance = &line["provenance"];
                assert!(provenance["call_id"].as_str().unwrap().starts_with("call_"), "{format:?} {name}: {line}");
                assert_eq!(provenance["tool"], name);
                assert_eq!(provenance["surface"], surface);
                assert_eq!(provenance["replay"], false);
                let keys: Vec<&String> = line.as_object().unwrap().keys().collect();
                assert_eq!(keys.last().unwrap().as_str(), "provenance", "{line}");
                if name == "cached_notes" {
                    assert_eq!(line["warning"], "The notes are from a cache, 5 minutes old.", "{line}");
                }
            }
            // Both advertise the keys.
            let props = if format == WireFormat::SuccessFlag {
                schema["anyOf"][2]["properties"].clone()
            } else {
                schema["properties"].clone()
            };
            assert!(props.get("warning").is_some() && props.get("provenance").is_some(), "{format:?}: {schema}");
        }
        client.cancel().await.unwrap();
    }
}
