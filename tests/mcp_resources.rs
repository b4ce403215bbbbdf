//! Resources, resource templates and prompts declared on an `McpServer` (`mcp::catalog`), over
//! MCP stdio (`serve_io`, a 2025-11-25 session) and Streamable HTTP (stateless 2026-07-28):
//! listed and read; hidden on a surface (absent from the lists, read or got with the same bytes
//! as a URI or name never declared); an unknown URI answered -32602 with `data.uri` (SEP-2164);
//! a read answered per caller; a read function's failure answered through the code table.

use std::time::Duration;

#[path = "support/http_client.rs"]
mod http_client;

use envelope_core::mcp::catalog::{GetPromptResult, Prompt, Resource, ResourceContents, ResourceTemplate, UriMatch};
use envelope_core::mcp::rmcp::model::{PromptArgument, PromptMessage, Role};
use envelope_core::mcp::{McpServer, serve_io, streamable::McpHttp};
use envelope_core::{Caller, Context, Fault, Refusal, ToolError, Toolbox, call::Surface, codes, http::BearerTokens};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// A note that does not exist, in the tools' own words.
#[derive(Debug, ToolError)]
enum NoteError {
    #[refuse(code = codes::NOT_FOUND, parameter = "id", reason = "is not a note", accepted = "a note id from 1 to 9",
             fix = "Read a note that exists.")]
    Missing { rejected: String },
}

/// The catalog every test serves: a greeting read per caller, a secret note, a note template, a
/// resource whose read fails, and two prompts.
fn declared(toolbox: Toolbox) -> McpServer {
    let greeting = Resource::new("notes://greeting", "greeting").with_mime_type("text/plain");
    let secret = Resource::new("notes://secret", "secret").with_mime_type("text/plain");
    let broken = Resource::new("notes://broken", "broken");
    let note = ResourceTemplate::new("notes://note/{id}", "note").with_mime_type("application/json");
    let summarize = Prompt::new(
        "summarize",
        Some("Summarizes a note"),
        Some(vec![PromptArgument::new("id").with_required(true), PromptArgument::new("style")]),
    );
    let audit = Prompt::new("audit", Some("Audits the notes"), None);
    McpServer::new(toolbox)
        .with_resource(greeting, |cx: Context| async move {
            let who = cx.caller().subject().unwrap_or("stranger").to_owned();
            Ok::<_, Fault>(vec![ResourceContents::text(format!("Hello, {who}."), "notes://greeting")])
        })
        .with_resource(secret, |_cx: Context| async {
            Ok::<_, Fault>(vec![ResourceContents::text("42", "notes://secret")])
        })
        .with_resource(broken, |_cx: Context| async {
            Err::<Vec<ResourceContents>, _>(Fault::backend("the note store"))
        })
        .with_resource_template(note, |uri: UriMatch, _cx: Context| async move {
            let id = uri.variable("id").unwrap_or_default().to_owned();
            if id.parse::<u8>().is_ok_and(|n| (1..=9).contains(&n)) {
                let text = json!({"id": id}).to_string();
                Ok(vec![ResourceContents::text(text, uri.uri).with_mime_type("application/json")])
            } else {
                Err(NoteError::Missing { rejected: id })
            }
        })
        .with_prompt(summarize, |arguments, cx: Context| async move {
            let style = arguments.get("style").map_or("short", String::as_str);
            let text =
                format!("Summarize note {} for {} ({style}).", arguments["id"], cx.caller().subject().unwrap_or("?"));
            Ok::<_, Refusal>(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]))
        })
        .with_prompt(audit, |_arguments, _cx: Context| async {
            Ok::<_, Fault>(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, "Audit every note.")]))
        })
}

/// The surface that hides the secret note and the `audit` prompt.
fn public() -> Surface {
    Surface::public("mcp").all_resources_but(["secret"]).all_prompts_but(["audit"])
}

struct Session {
    input: WriteHalf<DuplexStream>,
    output: Lines<BufReader<ReadHalf<DuplexStream>>>,
}

impl Session {
    /// A 2025-11-25 session with `server` over stdio; answers the server's `initialize` result.
    async fn start(server: McpServer) -> (Self, Value) {
        let (client, server_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(serve_io(server, server_read, server_write));
        let (read, input) = tokio::io::split(client);
        let mut session = Session { input, output: BufReader::new(read).lines() };
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
        session.send(&initialize).await;
        let (_, reply) = session.read().await;
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        (session, reply)
    }

    async fn send(&mut self, message: &Value) {
        self.input.write_all(message.to_string().as_bytes()).await.unwrap();
        self.input.write_all(b"\n").await.unwrap();
        self.input.flush().await.unwrap();
    }

    /// The next line the server writes: as written, and as JSON.
    async fn read(&mut self) -> (String, Value) {
        let line = tokio::time::timeout(READ_TIMEOUT, self.output.next_line())
            .await
            .expect("no line from the server in time")
            .unwrap()
            .expect("the server closed its output");
        let value = serde_json::from_str(&line).unwrap();
        (line, value)
    }

    /// One request and the line that answers it.
    async fn request(&mut self, id: u64, method: &str, params: Value) -> (String, Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        let (line, reply) = self.read().await;
        assert_eq!(reply["id"], id, "{line}");
        (line, reply)
    }
}

#[tokio::test]
async fn resources_templates_and_prompts_are_listed_and_read_over_stdio() {
    let (mut session, initialized) = Session::start(declared(Toolbox::new())).await;
    let capabilities = &initialized["result"]["capabilities"];
    assert_eq!(capabilities["resources"], json!({}), "{initialized}");
    assert_eq!(capabilities["prompts"], json!({}), "{initialized}");

    let (_, listed) = session.request(1, "resources/list", json!({})).await;
    let uris: Vec<&str> =
        listed["result"]["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["notes://greeting", "notes://secret", "notes://broken"]);
    assert_eq!(
        listed["result"]["resources"][0],
        json!({"uri": "notes://greeting", "name": "greeting", "mimeType": "text/plain"})
    );

    let (_, templates) = session.request(2, "resources/templates/list", json!({})).await;
    assert_eq!(
        templates["result"]["resourceTemplates"],
        json!([{"uriTemplate": "notes://note/{id}", "name": "note", "mimeType": "application/json"}])
    );

    let (line, read) = session.request(3, "resources/read", json!({"uri": "notes://note/7"})).await;
    // 2026-07-28's `resultType` is not sent to a 2025-11-25 client.
    assert!(read["result"].get("resultType").is_none(), "{line}");
    assert_eq!(
        read["result"]["contents"],
        json!([{"uri": "notes://note/7", "mimeType": "application/json", "text": "{\"id\":\"7\"}"}])
    );

    let (_, prompts) = session.request(4, "prompts/list", json!({})).await;
    let names: Vec<&str> =
        prompts["result"]["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["summarize", "audit"]);

    let (_, got) = session.request(5, "prompts/get", json!({"name": "summarize", "arguments": {"id": "7"}})).await;
    assert_eq!(
        got["result"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Summarize note 7 for ? (short)."}}])
    );
}

#[tokio::test]
async fn a_server_with_neither_declares_neither_capability() {
    let (_, initialized) = Session::start(McpServer::new(Toolbox::new())).await;
    let capabilities = &initialized["result"]["capabilities"];
    assert!(capabilities.get("resources").is_none() && capabilities.get("prompts").is_none(), "{initialized}");
}

#[tokio::test]
async fn an_unknown_uri_is_invalid_params_with_the_uri_in_data() {
    let (mut session, _) = Session::start(declared(Toolbox::new())).await;
    let (line, reply) = session.request(1, "resources/read", json!({"uri": "notes://nothing"})).await;
    let error = &reply["error"];
    assert_eq!(error["code"], -32602, "{line}");
    assert_eq!(error["data"]["uri"], "notes://nothing");
    assert_eq!(error["data"]["error_code"], "NOT_FOUND");
    assert_eq!(error["data"]["retry"], "never");
    assert_eq!(
        error["message"],
        "uri: \"notes://nothing\" is not a resource of this server; accepted: a URI resources/list lists, \
         or one a template of resources/templates/list expands to. Read a URI from those lists."
    );
    // A template's URI whose variable does not fit the template is no resource either.
    let (line, reply) = session.request(2, "resources/read", json!({"uri": "notes://note/7/extra"})).await;
    assert_eq!(
        (reply["error"]["code"].as_i64(), reply["error"]["data"]["uri"].as_str()),
        (Some(-32602), Some("notes://note/7/extra")),
        "{line}"
    );
}

#[tokio::test]
async fn a_read_functions_failure_is_answered_through_the_code_table() {
    let (mut session, _) = Session::start(declared(Toolbox::new())).await;
    // A fault: -32603, the envelope's sentence, retry with backoff.
    let (line, reply) = session.request(1, "resources/read", json!({"uri": "notes://broken"})).await;
    assert_eq!(reply["error"]["code"], -32603, "{line}");
    assert_eq!(reply["error"]["data"]["error_code"], "BACKEND_ERROR");
    assert_eq!(reply["error"]["data"]["retry"], "with_backoff");
    assert_eq!(reply["error"]["data"]["uri"], "notes://broken");
    // The template's own NOT_FOUND (a declared error enum): -32602, its refusal's sentence.
    let (line, reply) = session.request(2, "resources/read", json!({"uri": "notes://note/12"})).await;
    assert_eq!(reply["error"]["code"], -32602, "{line}");
    assert_eq!(reply["error"]["data"]["error_code"], "NOT_FOUND");
    assert_eq!(reply["error"]["data"]["hints"]["rejected"], "\"12\"");
    // A prompt got without its required argument, or with a number for one: every problem, once.
    let (line, reply) =
        session.request(3, "prompts/get", json!({"name": "summarize", "arguments": {"style": 3}})).await;
    assert_eq!(reply["error"]["code"], -32602, "{line}");
    assert_eq!(reply["error"]["data"]["error_code"], "VALIDATION_ERROR");
    assert_eq!(reply["error"]["data"]["name"], "summarize");
    assert_eq!(
        reply["error"]["message"],
        "style: 3 is a number; accepted: a string. Send it as a JSON string.\n\
         id: is missing; accepted: a string. Send arguments.id as a string."
    );
    // A name the prompt does not declare: refused by name, the closest free one suggested (a
    // typo of an optional argument was dropped without a word).
    let (line, reply) = session
        .request(4, "prompts/get", json!({"name": "summarize", "arguments": {"id": "7", "stlye": "long"}}))
        .await;
    assert_eq!(reply["error"]["code"], -32602, "{line}");
    assert_eq!(reply["error"]["data"]["hints"]["suggestion"], "style", "{line}");
    assert_eq!(
        reply["error"]["message"],
        "stlye: \"stlye\" is not an argument of the prompt summarize; accepted: one of \"id\", \"style\". \
         Did you mean \"style\"? Rename \"stlye\" to \"style\"."
    );
    // 4,000 names the prompt does not declare, of any type: three named, the reply short, and
    // no name read (the work grew with the square of their number when each was a problem).
    let mut many = serde_json::Map::new();
    many.insert("id".into(), json!("7"));
    for k in 0..4_000 {
        many.insert(format!("k{k}"), json!(k));
    }
    let (line, reply) = session.request(5, "prompts/get", json!({"name": "summarize", "arguments": many})).await;
    assert_eq!(reply["error"]["code"], -32602, "{line}");
    assert!(line.len() < 2048, "{} bytes", line.len());
    let message = reply["error"]["message"].as_str().unwrap();
    assert_eq!(message.matches("is not an argument of the prompt summarize").count(), 3, "{message}");
    // Past 4,096 keys an object's keys are not compared with each other (a key sent twice among
    // them would be read as its last value): refused whole.
    for k in 4_000..20_000 {
        many.insert(format!("k{k}"), json!(k));
    }
    let (line, reply) = session.request(7, "prompts/get", json!({"name": "summarize", "arguments": many})).await;
    assert_eq!(reply["error"]["code"], -32602, "{line}");
    assert_eq!(
        reply["error"]["message"],
        "prompts/get: params.arguments is an object of 20001 keys; this server reads objects of at most 4096 \
         keys: send fewer"
    );
    // A name's control characters are written as escapes: a message is one line.
    let arguments = json!({"id": "7", "st\u{0}y\nle": "x"});
    let (_, reply) = session.request(6, "prompts/get", json!({"name": "summarize", "arguments": arguments})).await;
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("st\\u0000y\\u000ale: "), "{message}");
}

#[tokio::test]
async fn a_resource_and_a_prompt_hidden_on_a_surface_are_absent_and_answered_as_unknown() {
    // The hidden ones are declared on one server and never declared on the other: what a client
    // of the surface reads is the same, byte for byte.
    let (mut hiding, _) = Session::start(declared(Toolbox::new()).with_surface(public())).await;
    let never = McpServer::new(Toolbox::new())
        .with_resource(
            Resource::new("notes://greeting", "greeting").with_mime_type("text/plain"),
            |_cx: Context| async { Ok::<_, Fault>(vec![ResourceContents::text("Hello.", "notes://greeting")]) },
        )
        .with_prompt(Prompt::new("summarize", Some("Summarizes a note"), None), |_a, _cx: Context| async {
            Ok::<_, Fault>(GetPromptResult::new(Vec::new()))
        })
        .with_surface(public());
    let (mut plain, _) = Session::start(never).await;

    let (_, listed) = hiding.request(1, "resources/list", json!({})).await;
    let names: Vec<&str> =
        listed["result"]["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["greeting", "broken"]);
    let (_, prompts) = hiding.request(2, "prompts/list", json!({})).await;
    assert_eq!(prompts["result"]["prompts"].as_array().unwrap().len(), 1, "{prompts}");
    assert_eq!(prompts["result"]["prompts"][0]["name"], "summarize");

    let (hidden, reply) = hiding.request(3, "resources/read", json!({"uri": "notes://secret"})).await;
    let (unknown, _) = plain.request(3, "resources/read", json!({"uri": "notes://secret"})).await;
    assert_eq!(hidden, unknown);
    assert_eq!(
        (reply["error"]["code"].as_i64(), reply["error"]["data"]["uri"].as_str()),
        (Some(-32602), Some("notes://secret"))
    );

    let (hidden, reply) = hiding.request(4, "prompts/get", json!({"name": "audit"})).await;
    let (unknown, _) = plain.request(4, "prompts/get", json!({"name": "audit"})).await;
    assert_eq!(hidden, unknown);
    assert_eq!(reply["error"]["code"], -32602);
    assert_eq!(
        reply["error"]["message"],
        "name: \"audit\" is not a prompt of this server; accepted: one of \"summarize\". Get a prompt prompts/list lists."
    );
}

#[tokio::test]
async fn a_caller_short_of_the_surfaces_scopes_is_refused_forbidden() {
    let internal = Surface::internal("internal").with_scopes(["notes:read"]);
    let server = declared(Toolbox::new()).with_surface(internal).with_caller(Caller::new("eve"));
    let (mut session, _) = Session::start(server).await;
    let (line, reply) = session.request(1, "resources/read", json!({"uri": "notes://greeting"})).await;
    assert_eq!(reply["error"]["code"], -32000, "{line}");
    assert_eq!(reply["error"]["data"]["error_code"], "FORBIDDEN");
    let (line, reply) = session.request(2, "prompts/get", json!({"name": "audit"})).await;
    assert_eq!(reply["error"]["data"]["error_code"], "FORBIDDEN", "{line}");
}

/// One stateless 2026-07-28 request over Streamable HTTP, with `authorization` when given.
async fn request_2026(addr: std::net::SocketAddr, token: Option<&str>, method: &str, params: Value) -> (u16, Value) {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    let name = params.get("uri").or(params.get("name")).and_then(Value::as_str).map(str::to_owned);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ];
    if let Some(name) = &name {
        headers.push(("mcp-name", name));
    }
    if let Some(bearer) = &bearer {
        headers.push(("authorization", bearer));
    }
    let reply = http_client::send(addr, "POST", "/mcp", &headers, &body).await;
    (reply.status, reply.json_rpc())
}

#[tokio::test]
async fn over_streamable_http_each_caller_reads_its_own_answer_and_a_hidden_one_is_unknown() {
    let tokens = BearerTokens::new(["unused"])
        .with_caller("tok-ada", Caller::new("ada"))
        .with_caller("tok-bob", Caller::new("bob"));
    let server = declared(Toolbox::new()).with_ttl_ms(60_000);
    let app = McpHttp::with_handler(server).with_surface(public()).with_auth(tokens).router();
    let addr = http_client::serve(app).await;

    let (status, listed) = request_2026(addr, Some("tok-ada"), "resources/list", json!({})).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["result"]["ttlMs"], 60_000);
    assert_eq!(listed["result"]["resources"].as_array().unwrap().len(), 2, "{listed}");

    for (token, text) in [("tok-ada", "Hello, ada."), ("tok-bob", "Hello, bob.")] {
        let (status, read) =
            request_2026(addr, Some(token), "resources/read", json!({"uri": "notes://greeting"})).await;
        assert_eq!(status, 200, "{read}");
        assert_eq!(read["result"]["resultType"], "complete");
        assert_eq!(read["result"]["ttlMs"], 60_000);
        // Each caller reads its own answer: no shared cache may keep it.
        assert_eq!(read["result"]["cacheScope"], "private");
        assert_eq!(read["result"]["contents"][0]["text"], text, "{read}");
    }

    // The same surface on a server that never declared the secret note: the same reply.
    let never = McpServer::new(Toolbox::new())
        .with_resource(Resource::new("notes://greeting", "greeting"), |_cx: Context| async {
            Ok::<_, Fault>(vec![ResourceContents::text("Hello.", "notes://greeting")])
        });
    let plain = http_client::serve(McpHttp::with_handler(never).with_surface(public()).router()).await;
    let (status, hidden) =
        request_2026(addr, Some("tok-ada"), "resources/read", json!({"uri": "notes://secret"})).await;
    let (_, unknown) = request_2026(plain, None, "resources/read", json!({"uri": "notes://secret"})).await;
    assert_eq!((status, &hidden), (200, &unknown));
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
    assert_eq!(hidden["error"]["data"]["uri"], "notes://secret");

    let (status, got) = request_2026(
        addr,
        Some("tok-bob"),
        "prompts/get",
        json!({"name": "summarize", "arguments": {"id": "3", "style": "long"}}),
    )
    .await;
    assert_eq!(status, 200, "{got}");
    assert_eq!(got["result"]["messages"][0]["content"]["text"], "Summarize note 3 for bob (long).");
}
