//! The server the MCP conformance suite (`@modelcontextprotocol/conformance`) is run against:
//! every fixture tool, resource and prompt its server scenarios name, the tools written with
//! envelope's `#[tool]`, served over Streamable HTTP at `/mcp` with sessions for 2025 clients
//! (`McpHttp::with_sessions`) and statelessly for 2026-07-28 ones.
//!
//! `cargo run --example conformance_server -- --port 3001` listens on `127.0.0.1:3001` (port
//! `0` picks a free one) and prints its URL as the last line on stdout. Then:
//! `npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3001/mcp`.
//!
//! The tools answer through envelope: each reply's `structuredContent` is the envelope, and a
//! tool that answers `Contents` (text, image, audio, embedded resources) has its blocks first,
//! the envelope's text block last. The fixture resources, resource template and prompts are
//! declared on the same `McpServer` (`mcp::catalog`); subscriptions, completion, list-changed
//! notifications and the prompt that asks its client first (SEP-2322) are answered by an rmcp
//! `ServerHandler` that hands everything else to the `McpServer`.

use std::sync::Arc;
use std::time::Duration;

use envelope_core::mcp::catalog::{GetPromptResult, ResourceContents, UriMatch};
use envelope_core::mcp::content::Contents;
use envelope_core::mcp::rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams, CompleteResult, ContentBlock,
        CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult,
        Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
        PaginatedRequestParams, PromptMessage, ReadResourceRequestParams, ReadResourceResponse, Reference, Role,
        ServerCapabilities, ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
        UpdateTaskParams,
    },
    service::{RequestContext, SubscriptionContext},
};
// Logging: SEP-2577 deprecates it on 2026-07-28; 2025 clients use it.
#[allow(deprecated)]
use envelope_core::mcp::rmcp::model::SetLevelRequestParams;
use envelope_core::mcp::{McpServer, streamable::McpHttp, tasks::TaskSupport};
use envelope_core::{ClientAsk, ClientError, Context, Fault, Toolbox, tool};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// How long a client may keep this server's lists and resources, in milliseconds (SEP-2549).
const TTL_MS: u64 = 60_000;

/// A 1x1 red PNG.
const PNG: [u8; 70] = [
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 31, 21, 196,
    137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 218, 99, 252, 207, 192, 240, 31, 0, 5, 5, 2, 0, 95, 200, 241, 210, 0, 0, 0,
    0, 73, 69, 78, 68, 174, 66, 96, 130,
];

/// A minimal WAV file (two bytes of silence).
const WAV: [u8; 44] = [
    82, 73, 70, 70, 38, 0, 0, 0, 87, 65, 86, 69, 102, 109, 116, 32, 16, 0, 0, 0, 1, 0, 1, 0, 64, 31, 0, 0, 0, 125, 0,
    0, 2, 0, 16, 0, 100, 97, 116, 97, 2, 0, 0, 0,
];

/// Tests simple text content response
#[tool(read_only)]
fn test_simple_text() -> Contents {
    Contents::new().text("This is a simple text response for testing.")
}

/// Tests image content response
#[tool(read_only)]
fn test_image_content() -> Contents {
    Contents::new().image(PNG, "image/png")
}

/// Tests audio content response
#[tool(read_only)]
fn test_audio_content() -> Contents {
    Contents::new().audio(WAV, "audio/wav")
}

/// Tests embedded resource content response
#[tool(read_only)]
fn test_embedded_resource() -> Contents {
    Contents::new().resource_text("test://embedded-resource", "text/plain", "This is an embedded resource content.")
}

/// Tests response with multiple content types (text, image, resource)
#[tool(read_only)]
fn test_multiple_content_types() -> Contents {
    Contents::new().text("Multiple content types test:").image(PNG, "image/png").resource_text(
        "test://mixed-content-resource",
        "application/json",
        r#"{"test":"data","value":123}"#,
    )
}

/// Tests tool that emits log messages during execution
#[tool(read_only)]
async fn test_tool_with_logging(cx: Context) -> Contents {
    cx.info("Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    cx.info("Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    cx.info("Tool execution completed");
    Contents::new().text("Tool with logging executed successfully")
}

/// Logs three messages at info (sent only to a client that asked for a level: on 2026-07-28 the
/// request's `_meta` `io.modelcontextprotocol/logLevel`)
#[tool(read_only)]
async fn test_logging_tool(cx: Context) -> Contents {
    for message in ["Tool execution started", "Tool processing data", "Tool execution completed"] {
        cx.info(message);
    }
    Contents::new().text("Tool with logging executed successfully")
}

/// Tests tool that reports progress notifications
#[tool(read_only)]
async fn test_tool_with_progress(cx: Context) -> Contents {
    for (step, done) in [0u32, 50, 100].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(60)).await;
        }
        cx.progress_with(done, 100, &format!("Completed step {done} of 100"));
    }
    Contents::new().text("Progress reported: 0, 50, 100 of 100")
}

/// Tests error response handling
#[tool(read_only)]
fn test_error_handling() -> Result<Contents, Fault> {
    Err(Fault::backend("This tool intentionally returns an error for testing"))
}

/// Tests server-initiated sampling (LLM completion request)
#[tool(read_only)]
async fn test_sampling(
    /// The prompt to send to the LLM
    prompt: String,
    cx: Context,
) -> Result<Contents, Fault> {
    let answer = cx.sample(prompt, 100).await.map_err(asked)?;
    Ok(Contents::new().text(format!("LLM response: {answer}")))
}

/// Asks the client to sample (SEP-2575's probe: a client that did not declare `sampling` is
/// answered -32021)
#[tool(read_only)]
async fn test_missing_capability(cx: Context) -> Result<Contents, Fault> {
    let answer = cx.sample("Say hello", 10).await.map_err(asked)?;
    Ok(Contents::new().text(format!("LLM response: {answer}")))
}

/// Echoes a region sent as the `Mcp-Param-Region` header as well as in the body (SEP-2243)
#[tool(read_only)]
fn test_headers(
    /// A region name, also sent as the header `Mcp-Param-Region`
    region: String,
) -> Contents {
    Contents::new().text(format!("region: {region}"))
}

/// Tests server-initiated elicitation (user input request)
#[tool(read_only)]
async fn test_elicitation(
    /// The message to show the user
    message: String,
    cx: Context,
) -> Result<Contents, Fault> {
    let schema = json!({
        "type": "object",
        "properties": {"response": {"type": "string", "description": "User's response"}},
        "required": ["response"]
    });
    elicited(&cx, message, schema, "User response").await
}

/// Tests elicitation with default values per SEP-1034
#[tool(read_only)]
async fn test_elicitation_sep1034_defaults(cx: Context) -> Result<Contents, Fault> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        },
        "required": []
    });
    elicited(&cx, "Please review and update the form fields with defaults", schema, "Elicitation completed").await
}

/// Tests elicitation with enum schema improvements per SEP-1330
#[tool(read_only)]
async fn test_elicitation_sep1330_enums(cx: Context) -> Result<Contents, Fault> {
    let options = |a: &str, b: &str, c: &str, word: &str| {
        json!([
            {"const": a, "title": format!("First {word}")},
            {"const": b, "title": format!("Second {word}")},
            {"const": c, "title": format!("Third {word}")}
        ])
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": options("value1", "value2", "value3", "Option")},
            "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3, "items": {"anyOf": options("value1", "value2", "value3", "Choice")}}
        },
        "required": []
    });
    elicited(&cx, "Please select options from the enum fields", schema, "Elicitation completed").await
}

/// A request to the client that got no answer, as the call's fault.
fn asked(error: ClientError) -> Fault {
    Fault::backend(format!("asking the client ({error})"))
}

async fn elicited(cx: &Context, message: impl Into<String>, schema: Value, label: &str) -> Result<Contents, Fault> {
    let answer = cx.elicit(message, schema).await.map_err(asked)?;
    let content = Value::Object(answer.content.unwrap_or_default());
    Ok(Contents::new().text(format!("{label}: action={}, content={content}", answer.action.as_str())))
}

/// The name form of the input-required scenarios: `{"<field>": string}`, required.
fn one_field(message: &str, field: &str, kind: &str) -> Value {
    json!({"message": message, "requestedSchema": {
        "type": "object", "properties": {field: {"type": kind}}, "required": [field]}})
}

/// The text an elicitation answered in `field`.
fn field(answer: &Value, field: &str) -> String {
    match answer.pointer(&format!("/content/{field}")) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// Asks the user's name through an input-required result (2026-07-28, SEP-2322)
#[tool(read_only)]
async fn test_input_required_result_elicitation(cx: Context) -> Result<Contents, Fault> {
    let answer = cx.ask("user_name", ClientAsk::Elicitation, one_field("What is your name?", "name", "string"));
    let name = field(&answer.await.map_err(asked)?, "name");
    Ok(Contents::new().text(format!("Hello, {name}!")))
}

/// Asks the client's model through an input-required result (SEP-2322)
#[tool(read_only)]
async fn test_input_required_result_sampling(cx: Context) -> Result<Contents, Fault> {
    let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}], "maxTokens": 100});
    let answer = cx.ask("capital_question", ClientAsk::Sampling, params).await.map_err(asked)?;
    let text = answer.pointer("/content/text").and_then(Value::as_str).unwrap_or_default().to_owned();
    Ok(Contents::new().text(format!("The model answered: {text}")))
}

/// Asks the client's roots through an input-required result (SEP-2322)
#[tool(read_only)]
async fn test_input_required_result_list_roots(cx: Context) -> Result<Contents, Fault> {
    let answer = cx.ask("client_roots", ClientAsk::Roots, json!({})).await.map_err(asked)?;
    let roots: Vec<&str> = answer["roots"].as_array().into_iter().flatten().filter_map(|r| r["uri"].as_str()).collect();
    Ok(Contents::new().text(format!("Roots: {}", roots.join(", "))))
}

/// Asks for a confirmation; the retry's sealed requestState is checked before it runs again
#[tool(read_only)]
async fn test_input_required_result_request_state(cx: Context) -> Result<Contents, Fault> {
    let answer = cx.ask("confirm", ClientAsk::Elicitation, one_field("Please confirm", "ok", "boolean"));
    let ok = field(&answer.await.map_err(asked)?, "ok");
    Ok(Contents::new().text(format!("state-ok: confirmed={ok}")))
}

/// Asks for a confirmation; a tampered requestState is refused -32602
#[tool(read_only)]
async fn test_input_required_result_tampered_state(cx: Context) -> Result<Contents, Fault> {
    let answer = cx.ask("confirm", ClientAsk::Elicitation, one_field("Please confirm", "ok", "boolean"));
    let ok = field(&answer.await.map_err(asked)?, "ok");
    Ok(Contents::new().text(format!("confirmed={ok}")))
}

/// Asks three things at once: a name, a greeting from the model, the client's roots
#[tool(read_only)]
async fn test_input_required_result_multiple_inputs(cx: Context) -> Result<Contents, Fault> {
    let greeting = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}], "maxTokens": 50});
    let (name, greeting, roots) = tokio::join!(
        cx.ask("user_name", ClientAsk::Elicitation, one_field("What is your name?", "name", "string")),
        cx.ask("greeting", ClientAsk::Sampling, greeting),
        cx.ask("client_roots", ClientAsk::Roots, json!({})),
    );
    let (name, greeting, roots) = (name.map_err(asked)?, greeting.map_err(asked)?, roots.map_err(asked)?);
    let text = greeting.pointer("/content/text").and_then(Value::as_str).unwrap_or_default();
    let count = roots["roots"].as_array().map_or(0, Vec::len);
    Ok(Contents::new().text(format!("{text} {}; {count} roots", field(&name, "name"))))
}

/// Asks in two rounds: a name, then a favourite color
#[tool(read_only)]
async fn test_input_required_result_multi_round(cx: Context) -> Result<Contents, Fault> {
    let step1 = cx.ask("step1", ClientAsk::Elicitation, one_field("Step 1: What is your name?", "name", "string"));
    let name = field(&step1.await.map_err(asked)?, "name");
    let step2 =
        cx.ask("step2", ClientAsk::Elicitation, one_field("Step 2: What is your favorite color?", "color", "string"));
    let color = field(&step2.await.map_err(asked)?, "color");
    Ok(Contents::new().text(format!("{name} likes {color}")))
}

/// Asks only for what the client declared: a name (elicitation) and a greeting (sampling)
#[tool(read_only)]
async fn test_input_required_result_capabilities(cx: Context) -> Result<Contents, Fault> {
    let greeting = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}], "maxTokens": 50});
    let name = async {
        match cx.can_ask(ClientAsk::Elicitation) {
            true => cx
                .ask("user_name", ClientAsk::Elicitation, one_field("What is your name?", "name", "string"))
                .await
                .map(Some),
            false => Ok(None),
        }
    };
    let greeting = async {
        match cx.can_ask(ClientAsk::Sampling) {
            true => cx.ask("greeting", ClientAsk::Sampling, greeting).await.map(Some),
            false => Ok(None),
        }
    };
    let (name, greeting) = tokio::join!(name, greeting);
    let (name, greeting) = (name.map_err(asked)?, greeting.map_err(asked)?);
    Ok(Contents::new().text(format!("asked for a name: {}, a greeting: {}", name.is_some(), greeting.is_some())))
}

/// Asks the user on 2026-07-28: the answer is an input-required result on the request's
/// reply, never a request of its own on the stream
#[tool(read_only)]
async fn test_streaming_elicitation(cx: Context) -> Result<Contents, Fault> {
    let schema = json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]});
    let answer = cx.elicit("Anything to add?", schema).await.map_err(asked)?;
    Ok(Contents::new().text(format!("action={}", answer.action.as_str())))
}

/// What changed, for the open `subscriptions/listen` streams.
#[derive(Clone, Copy, Debug)]
enum Change {
    Tools,
    Prompts,
}

/// The changes announced to `subscriptions/listen` streams (2026-07-28).
fn changes() -> &'static tokio::sync::broadcast::Sender<Change> {
    static CHANGES: std::sync::OnceLock<tokio::sync::broadcast::Sender<Change>> = std::sync::OnceLock::new();
    CHANGES.get_or_init(|| tokio::sync::broadcast::channel(16).0)
}

/// Announces that the tool list changed (`notifications/tools/list_changed`)
#[tool]
fn test_trigger_tool_change() -> Contents {
    let _ = changes().send(Change::Tools);
    Contents::new().text("tool list changed")
}

/// Announces that the prompt list changed (`notifications/prompts/list_changed`)
#[tool]
fn test_trigger_prompt_change() -> Contents {
    let _ = changes().send(Change::Prompts);
    Contents::new().text("prompt list changed")
}

/// Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)
#[tool(read_only)]
fn json_schema_2020_12_tool(
    /// A name.
    name: Option<String>,
    /// An address (`street`, `city`).
    address: Option<Value>,
) -> Contents {
    let args = json!({"name": name, "address": address});
    Contents::new().text(format!("JSON Schema 2020-12 tool called with: {args}"))
}

/// The input schema the suite expects `json_schema_2020_12_tool` to list as it is (SEP-1613).
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": false
    })
}

/// The input schemas listed otherwise than envelope derives them: the raw JSON Schema 2020-12
/// the suite checks is kept as written (SEP-1613), and `test_headers`'s `region` travels as the
/// header `Mcp-Param-Region` (SEP-2243, `x-mcp-header`).
fn input_schema(name: &str) -> Option<serde_json::Map<String, Value>> {
    let schema = match name {
        "json_schema_2020_12_tool" => json_schema_2020_12(),
        "test_headers" => json!({
            "type": "object",
            "properties": {"region": {"type": "string", "description": "A region name", "x-mcp-header": "Region"}},
            "required": ["region"]
        }),
        _ => return None,
    };
    Some(from_json(schema))
}

/// Greets by name (the tasks scenarios' tool that is never a task)
#[tool(read_only)]
fn greet(
    /// Whom to greet
    name: String,
) -> Contents {
    Contents::new().text(format!("Hello, {name}!"))
}

/// Sleeps `seconds` seconds, then answers; a task (optional). Stops when its call is cancelled.
#[tool(read_only)]
fn slow_compute(
    cx: &Context,
    /// How long to work, in seconds (0: at once)
    #[validate(range(max = 600))]
    seconds: u64,
    /// A label echoed in the answer
    label: Option<String>,
) -> Result<Contents, Fault> {
    let until = std::time::Instant::now() + Duration::from_secs(seconds);
    while std::time::Instant::now() < until {
        if cx.is_cancelled() {
            return Err(Fault::backend("slow_compute, cancelled"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(Contents::new().text(format!("computed {} after {seconds} s", label.unwrap_or_default())))
}

/// Works a second, then fails as a tool (an error envelope); a task (required)
#[tool(read_only)]
fn failing_job() -> Result<Contents, Fault> {
    std::thread::sleep(Duration::from_secs(1));
    Err(Fault::backend("failing_job"))
}

/// Asks the client's roots, which the tasks scenarios' clients do not declare: a protocol
/// error (-32021), so its task fails; a task (optional)
#[tool(read_only)]
async fn protocol_error_job(cx: Context) -> Result<Contents, Fault> {
    let roots = cx.ask("roots", ClientAsk::Roots, json!({})).await.map_err(asked)?;
    Ok(Contents::new().text(format!("roots: {roots}")))
}

/// Asks the person to confirm deleting a file; a task (optional), input_required until answered
#[tool(read_only)]
async fn confirm_delete(
    cx: Context,
    /// The file to delete
    filename: String,
) -> Result<Contents, Fault> {
    let answer =
        cx.ask("confirm", ClientAsk::Elicitation, one_field(&format!("Delete {filename}?"), "confirm", "boolean"));
    let confirmed = field(&answer.await.map_err(asked)?, "confirm");
    Ok(Contents::new().text(format!("delete {filename}: confirmed={confirmed}")))
}

/// Asks two things at once (a name, a confirmation); a task (optional)
#[tool(read_only)]
async fn multi_input(cx: Context) -> Result<Contents, Fault> {
    let (name, confirm) = tokio::join!(
        cx.ask("name", ClientAsk::Elicitation, one_field("What is your name?", "name", "string")),
        cx.ask("confirm", ClientAsk::Elicitation, one_field("Continue?", "confirm", "boolean")),
    );
    let (name, confirm) = (name.map_err(asked)?, confirm.map_err(asked)?);
    Ok(Contents::new().text(format!("{} confirmed={}", field(&name, "name"), field(&confirm, "confirm"))))
}

/// Asks the user's name through an input-required result, then works on as a task (required)
#[tool(read_only)]
async fn test_tool_with_task(cx: Context) -> Result<Contents, Fault> {
    let answer = cx.ask("user_name", ClientAsk::Elicitation, one_field("What is your name?", "name", "string"));
    let name = field(&answer.await.map_err(asked)?, "name");
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(Contents::new().text(format!("Hello, {name}! (gathered before the task)")))
}

/// The tools served as tasks (the MCP tasks extension, SEP-2663).
fn task_tools(server: McpServer) -> McpServer {
    server
        .with_task("slow_compute", TaskSupport::Optional)
        .with_task("failing_job", TaskSupport::Required)
        .with_task("protocol_error_job", TaskSupport::Optional)
        .with_task("confirm_delete", TaskSupport::Optional)
        .with_task("multi_input", TaskSupport::Optional)
        .with_task_after_input("test_tool_with_task")
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(test_simple_text::tool())
        .with(test_image_content::tool())
        .with(test_audio_content::tool())
        .with(test_embedded_resource::tool())
        .with(test_multiple_content_types::tool())
        .with(test_tool_with_logging::tool())
        .with(test_tool_with_progress::tool())
        .with(test_logging_tool::tool())
        .with(test_error_handling::tool())
        .with(test_sampling::tool())
        .with(test_elicitation::tool())
        .with(test_elicitation_sep1034_defaults::tool())
        .with(test_elicitation_sep1330_enums::tool())
        .with(json_schema_2020_12_tool::tool())
        .with(test_missing_capability::tool())
        .with(test_headers::tool())
        .with(test_streaming_elicitation::tool())
        .with(test_trigger_tool_change::tool())
        .with(test_trigger_prompt_change::tool())
        .with(test_input_required_result_elicitation::tool())
        .with(test_input_required_result_sampling::tool())
        .with(test_input_required_result_list_roots::tool())
        .with(test_input_required_result_request_state::tool())
        .with(test_input_required_result_tampered_state::tool())
        .with(test_input_required_result_multiple_inputs::tool())
        .with(test_input_required_result_multi_round::tool())
        .with(test_input_required_result_capabilities::tool())
        .with(greet::tool())
        .with(slow_compute::tool())
        .with(failing_job::tool())
        .with(protocol_error_job::tool())
        .with(confirm_delete::tool())
        .with(multi_input::tool())
        .with(test_tool_with_task::tool())
}

/// The prompt that asks its client for input first (SEP-2322), answered by the handler.
const INPUT_PROMPT: &str = "test_input_required_result_prompt";

/// A user message of a prompt.
fn user(content: ContentBlock) -> PromptMessage {
    PromptMessage::new(Role::User, content)
}

/// A prompt's answer: these blocks, each a user message.
fn said(blocks: impl IntoIterator<Item = ContentBlock>) -> Result<GetPromptResult, Fault> {
    Ok(GetPromptResult::new(blocks.into_iter().map(user).collect()))
}

/// The suite's fixture resources, resource template and prompts, declared on the server; the
/// metadata as the suite lists it.
fn catalog(server: McpServer) -> McpServer {
    let text = |uri: &'static str, text: &'static str| {
        move |_cx: Context| async move { Ok::<_, Fault>(vec![ResourceContents::text(text, uri)]) }
    };
    server
        .with_resource(
            from_json(json!({"uri": "test://static-text", "name": "static-text", "title": "Static Text Resource",
                "description": "A static text resource for testing", "mimeType": "text/plain"})),
            text("test://static-text", "This is the content of the static text resource."),
        )
        .with_resource(
            from_json(json!({"uri": "test://static-binary", "name": "static-binary", "title": "Static Binary Resource",
                "description": "A static binary resource (image) for testing", "mimeType": "image/png"})),
            |_cx: Context| async {
                Ok::<_, Fault>(vec![ResourceContents::blob(png_base64(), "test://static-binary").with_mime_type("image/png")])
            },
        )
        .with_resource(
            from_json(json!({"uri": "test://watched-resource", "name": "watched-resource", "title": "Watched Resource",
                "description": "A resource a client can subscribe to", "mimeType": "text/plain"})),
            text("test://watched-resource", "Watched resource content"),
        )
        .with_resource_template(
            from_json(json!({"uriTemplate": "test://template/{id}/data", "name": "template", "title": "Resource Template",
                "description": "A resource template with parameter substitution", "mimeType": "application/json"})),
            |uri: UriMatch, _cx: Context| async move {
                let id = uri.variable("id").unwrap_or_default();
                let text = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string();
                Ok::<_, Fault>(vec![ResourceContents::text(text, uri.uri.as_str()).with_mime_type("application/json")])
            },
        )
        .with_prompt(
            from_json(json!({"name": "test_simple_prompt", "title": "Simple Test Prompt",
                "description": "A simple prompt without arguments"})),
            |_arguments, _cx: Context| async { said([ContentBlock::text("This is a simple prompt for testing.")]) },
        )
        .with_prompt(
            from_json(json!({"name": "test_prompt_with_arguments", "title": "Prompt With Arguments",
                "description": "A prompt with required arguments", "arguments": [
                    {"name": "arg1", "description": "First test argument", "required": true},
                    {"name": "arg2", "description": "Second test argument", "required": true}]})),
            |arguments, _cx: Context| async move {
                said([ContentBlock::text(format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    arguments["arg1"], arguments["arg2"]
                ))])
            },
        )
        .with_prompt(
            from_json(json!({"name": "test_prompt_with_embedded_resource", "title": "Prompt With Embedded Resource",
                "description": "A prompt that includes an embedded resource",
                "arguments": [{"name": "resourceUri", "description": "URI of the resource to embed", "required": true}]})),
            |arguments, _cx: Context| async move {
                let embedded = ResourceContents::text("Embedded resource content for testing.", &arguments["resourceUri"]);
                said([ContentBlock::resource(embedded), ContentBlock::text("Please process the embedded resource above.")])
            },
        )
        .with_prompt(
            from_json(json!({"name": "test_prompt_with_image", "title": "Prompt With Image",
                "description": "A prompt that includes image content"})),
            |_arguments, _cx: Context| async {
                said([ContentBlock::image(png_base64(), "image/png"), ContentBlock::text("Please analyze the image above.")])
            },
        )
}

/// The suite's server: envelope's tools, and the fixture resources and prompts.
#[derive(Clone)]
struct Conformance {
    tools: McpServer,
}

fn from_json<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a fixture of this example reads as rmcp's model")
}

fn png_base64() -> String {
    envelope_core::mcp::content::base64(&PNG)
}

impl ServerHandler for Conformance {
    fn get_info(&self) -> ServerConfig {
        #[allow(deprecated)] // logging: 2025 clients use it
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_resources_list_changed()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_completions()
            .enable_tasks()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("envelope-conformance-server", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut listed = self.tools.list_tools(request, context).await?;
        for tool in &mut listed.tools {
            if let Some(schema) = input_schema(&tool.name) {
                tool.input_schema = Arc::new(schema);
            }
        }
        Ok(listed)
    }

    /// rmcp checks the `Mcp-Param-*` headers of a `tools/call` against the tool's `x-mcp-header`
    /// parameters (SEP-2243) with this.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        let tool = self.tools.toolbox().get(name)?;
        let schema = input_schema(name).unwrap_or_else(|| tool.input_schema());
        Some(Tool::new(name.to_owned(), tool.description().to_owned(), Arc::new(schema)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.tools.call_tool(request, context).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tools.get_task(request, context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tools.update_task(request, context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tools.cancel_task(request, context).await
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tools.set_level(request, context).await
    }

    /// `subscriptions/listen` (2026-07-28): every notification the client asks for that the
    /// server declares.
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), ErrorData> {
        let mut changed = changes().subscribe();
        loop {
            let change = tokio::select! {
                () = subscription.cancelled() => return Ok(()),
                change = changed.recv() => change,
            };
            let sent = match change {
                Ok(Change::Tools) => subscription.sink().notify_tool_list_changed().await,
                Ok(Change::Prompts) => subscription.sink().notify_prompt_list_changed().await,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return Ok(()),
            };
            if sent.is_err() {
                return Ok(());
            }
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.tools.list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.tools.list_resource_templates(request, context).await
    }

    /// An unknown URI is answered by `McpServer` as SEP-2164 says: -32602 with `data.uri`.
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.tools.read_resource(request, context).await
    }

    /// Its resources never change, so a subscription has nothing to announce: nothing is kept
    /// per subscription (a set of every URI asked would grow with each request, and one
    /// session could remove another's).
    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    /// The declared prompts, and the one that asks its client first (answered below).
    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let mut listed = self.tools.list_prompts(request, context).await?;
        listed.prompts.push(from_json(json!({"name": INPUT_PROMPT, "title": "Prompt Needing Input",
            "description": "A prompt that asks the user for its context first (SEP-2322)"})));
        Ok(listed)
    }

    /// SEP-2322 on a request other than `tools/call`: the prompt needs a context from the user,
    /// asked through an input-required result; every other prompt is `McpServer`'s.
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != INPUT_PROMPT {
            return self.tools.get_prompt(request, context).await;
        }
        let answer = request.input_responses.as_ref().and_then(|r| r.get("prompt_context"));
        let Some(answer) = answer.filter(|a| a.is_object()) else {
            let ask = json!({"prompt_context": {"method": "elicitation/create",
                "params": one_field("What context should the prompt use?", "context", "string")}});
            let requests = from_json(ask);
            let result = envelope_core::mcp::rmcp::model::InputRequiredResult::new(Some(requests), None);
            return Ok(GetPromptResponse::InputRequired(result));
        };
        let text = format!("Use this context: {}", field(answer, "context"));
        Ok(GetPromptResult::new(vec![user(ContentBlock::text(text))]).into())
    }

    /// The fixtures offer no completion values; a reference to a prompt or a resource template
    /// this server does not list is `-32602` naming it (MCP "Completion": invalid prompt name).
    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let unknown = match &request.r#ref {
            Reference::Prompt(prompt) => {
                let listed = self.list_prompts(None, context).await?;
                (!listed.prompts.iter().any(|p| p.name == prompt.name)).then(|| {
                    format!(
                        "ref/prompt {} is not a prompt of this server (prompts/list lists them)",
                        shown(&prompt.name)
                    )
                })
            }
            Reference::Resource(template) => {
                let listed = self.list_resource_templates(None, context).await?;
                (!listed.resource_templates.iter().any(|t| t.uri_template == template.uri)).then(|| {
                    format!(
                        "ref/resource {} is not a resource template of this server (resources/templates/list lists them)",
                        shown(&template.uri)
                    )
                })
            }
            // A reference of a later revision: nothing to complete.
            _ => None,
        };
        if let Some(why) = unknown {
            return Err(ErrorData::invalid_params(format!("completion/complete: {why}"), None));
        }
        Ok(from_json(json!({"resultType": "complete", "completion": {"values": [], "total": 0, "hasMore": false}})))
    }

    /// A request whose params rmcp could not read: a method served here beside `McpServer`'s is
    /// `-32602` naming it; any other is `McpServer`'s answer (`-32602` for its own methods,
    /// `-32601` listing what it serves for a method no one serves).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // `resources/(un)subscribe` is removed on 2026-07-28 (SEP-2575: `subscriptions/listen`).
        let stateless = context.protocol_version().is_some_and(|v| v.as_str() >= "2026-07-28");
        let subscribing = ["resources/subscribe", "resources/unsubscribe"].contains(&request.method.as_str());
        if (subscribing && !stateless) || request.method == "completion/complete" {
            let why = format!("{}: params do not have the shape MCP defines for it", request.method);
            return Err(ErrorData::invalid_params(why, None));
        }
        self.tools.on_custom_request(request, context).await
    }
}

/// A name or URI as a reply quotes it: a JSON string, cut to 64 characters.
fn shown(text: &str) -> String {
    let cut: String = text.chars().take(64).collect();
    let ellipsis = if cut.len() < text.len() { "…" } else { "" };
    format!("{}{ellipsis}", Value::String(cut))
}

/// The port from `--port PORT` (else `PORT`, else 3001); `0` picks a free one.
fn port() -> Result<u16, String> {
    let mut args = std::env::args().skip(1);
    let mut port = std::env::var("PORT").ok();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next(),
            "--help" | "-h" => {
                println!("conformance_server [--port PORT]: the MCP conformance suite's server at /mcp");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}; the one option is --port PORT")),
        }
    }
    port.map_or(Ok(3001), |p| p.parse().map_err(|_| format!("--port takes a number from 0 to 65535, not {p:?}")))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port = match port() {
        Ok(port) => port,
        Err(why) => {
            eprintln!("{why}");
            std::process::exit(2);
        }
    };
    let server = Conformance {
        tools: catalog(task_tools(McpServer::new(toolbox()).with_client_requests().with_ttl_ms(TTL_MS))),
    };
    let app = McpHttp::with_handler(server).with_sessions().router();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let address = listener.local_addr()?;
    println!("envelope MCP conformance server: http://{address}/mcp");
    envelope_core::http::serve(listener, app).await
}
