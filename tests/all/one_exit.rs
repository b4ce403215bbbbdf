//! Every reply leaves through one exit that applies the toolbox's code prefix and wire format:
//! `Toolbox::confirm`, the MCP approval retry (MRTR, 2026-07-28) and `POST /tools/<unknown>`
//! answer in the format set with `with_wire_format`, as every call does.

use envelope_core::mcp::{McpServer, serve_io};
use envelope_core::{Toolbox, http::HttpTools, outcome::WireFormat};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability, Implementation, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext};
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};

use crate::http::{send, serve};
use crate::{block_on, tools as examples};

/// The example tools with notes 1 ("first") and 2 ("second"), in the success-flag format.
fn success_flag() -> Toolbox {
    let toolbox = examples::toolbox().with_wire_format(WireFormat::SuccessFlag);
    for title in ["first", "second"] {
        let created = block_on(toolbox.call("create_note", Some(&json!({ "title": title })))).unwrap();
        assert_eq!(created.to_value()["title"], title, "{}", created.to_json());
    }
    toolbox
}

#[test]
fn toolbox_confirm_answers_in_the_wire_format() {
    let toolbox = success_flag();
    let queued = block_on(toolbox.call("delete_note", Some(&json!({"note_id": 1})))).unwrap().to_value();
    assert_eq!(queued["success"], false, "{queued}");
    let id = queued["pending_action_id"].as_str().expect("pending_action_id").to_owned();

    let done = block_on(toolbox.confirm(&id, true)).to_json();
    assert_eq!(done, r#"{"deleted":{"id":1,"title":"first"}}"#, "the data itself, no envelope around it");
    let again = block_on(toolbox.confirm(&id, true)).to_value();
    assert_eq!(again["success"], false, "{again}");
    assert_eq!(again["refused"], true, "{again}");
    assert!(again.get("status").is_none(), "{again}");
    let unknown = block_on(toolbox.confirm("pa_nothing", true)).to_value();
    assert_eq!(unknown["refused"], true, "{unknown}");
    assert!(unknown.get("status").is_none() && unknown.get("error_code").is_none(), "{unknown}");
}

#[tokio::test]
async fn an_unknown_tool_over_http_answers_in_the_wire_format() {
    let addr = serve(HttpTools::new(examples::toolbox().with_wire_format(WireFormat::SuccessFlag)).router()).await;
    let reply = send(addr, "POST", "/tools/list_note", &[], "{}").await;
    assert_eq!(reply.status, 404, "{}", reply.text);
    let body: Value = serde_json::from_str(&reply.text).unwrap();
    assert_eq!(body["success"], false, "{body}");
    assert_eq!(body["refused"], true, "{body}");
    assert!(body.get("status").is_none(), "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(error.starts_with(r#"name: "list_note" is not a tool of this server"#), "{error}");
    assert!(error.contains(r#"Did you mean "list_notes"?"#), "{error}");
}

/// Accepts every approval form with `approved: true`.
#[derive(Clone)]
struct Approves;

impl ClientHandler for Approves {
    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let mut answer = ElicitResult::new(ElicitationAction::Accept);
        answer.content = Some(json!({"approved": true}));
        Ok(answer)
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        ClientConfig::new(capabilities, Implementation::new("one_exit", "0"))
            .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_approval_retry_answers_in_the_wire_format() {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (server_in, server_out) = tokio::io::split(server_io);
    let toolbox = tokio::task::spawn_blocking(success_flag).await.unwrap();
    tokio::spawn(serve_io(McpServer::new(toolbox), server_in, server_out));
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = Approves.serve_with_lifecycle(client_io, lifecycle).await.unwrap();
    let Value::Object(arguments) = json!({"note_id": 2}) else { unreachable!() };
    let result = client.call_tool(CallToolRequestParams::new("delete_note").with_arguments(arguments)).await.unwrap();
    let text = &result.content[0].as_text().unwrap().text;
    assert_eq!(text, r#"{"deleted":{"id":2,"title":"second"}}"#, "the data itself, no envelope around it");
    assert_eq!(result.structured_content, Some(json!({"deleted": {"id": 2, "title": "second"}})));
    assert_eq!(result.is_error, Some(false));
    client.cancel().await.unwrap();
}
