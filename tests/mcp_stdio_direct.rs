//! Over MCP stdio, an `McpServer` answers a plain `tools/call` itself, without rmcp's
//! per-request service (`envelope_core::mcp::serve_io`). These tests hold that path to the
//! bytes rmcp's path writes: the same server behind a handler of its own, which `serve_io`
//! always serves through rmcp, answers the same lines, and every reply line must be the same.

use std::time::Duration;

use envelope_core::{
    Context, Toolbox,
    mcp::{
        McpServer,
        rmcp::{
            ErrorData, RoleServer, ServerHandler,
            model::{CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams, ServerConfig},
            service::RequestContext,
        },
        serve_io,
    },
    tool,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// Adds two small numbers.
#[tool]
fn add(#[validate(range = 0..=100)] a: u32, #[validate(range = 0..=100)] b: u32) -> u32 {
    a + b
}

/// Adds two small numbers, later.
#[tool]
async fn add_later(#[validate(range = 0..=100)] a: u32, #[validate(range = 0..=100)] b: u32) -> u32 {
    tokio::task::yield_now().await;
    a + b
}

/// Echoes a word; its arguments must be an object, never a string holding one.
#[tool(strict)]
fn echo(#[validate(length = 1..=16)] word: String) -> String {
    word
}

/// What the call's context says.
#[tool]
fn whoami(cx: &Context) -> Value {
    json!({"subject": cx.caller().subject(), "surface": cx.surface(), "protocol_version": cx.protocol_version()})
}

/// Panics, from a plain `fn` body.
#[tool]
fn boom(#[validate(range = 0..=100)] a: u32) -> u32 {
    panic!("boom {a}")
}

/// Panics, from an `async fn` body.
#[tool]
async fn boom_later(#[validate(range = 0..=100)] a: u32) -> u32 {
    tokio::task::yield_now().await;
    panic!("boom {a}")
}

/// Works 1.5 s, past its 200 ms timeout, without looking at its context.
#[tool(timeout_ms = 200)]
fn dawdle() -> bool {
    std::thread::sleep(Duration::from_millis(1500));
    true
}

/// Naps 300 ms, then answers.
#[tool]
async fn nap() -> bool {
    tokio::time::sleep(Duration::from_millis(300)).await;
    true
}

fn server() -> McpServer {
    McpServer::new(
        Toolbox::new()
            .with(nap::tool())
            .with(add::tool())
            .with(add_later::tool())
            .with(echo::tool())
            .with(whoami::tool())
            .with(boom::tool())
            .with(boom_later::tool())
            .with(dawdle::tool()),
    )
}

/// The same server behind a handler of its own: served through rmcp, every message.
struct ViaRmcp(McpServer);

impl ServerHandler for ViaRmcp {
    fn get_info(&self) -> ServerConfig {
        self.0.get_info()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.0.list_tools(request, context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.0.call_tool(request, context).await
    }
}

struct Session {
    input: WriteHalf<DuplexStream>,
    output: Lines<BufReader<ReadHalf<DuplexStream>>>,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Session {
    async fn start<H: ServerHandler>(handler: H, version: &str) -> Self {
        let (client, server_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        let served = tokio::spawn(serve_io(handler, server_read, server_write));
        let (read, input) = tokio::io::split(client);
        let mut session = Session { input, output: BufReader::new(read).lines(), served };
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "direct", "version": "0"}}});
        let reply = session.exchange(&initialize.to_string()).await;
        assert!(reply.contains(&format!(r#""protocolVersion":"{version}""#)), "{reply}");
        session.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
        session
    }

    /// A session that sends no `initialize` (MCP 2026-07-28: each request carries its own
    /// `_meta`), opened with `server/discover` when `discover`.
    async fn stateless<H: ServerHandler>(handler: H, discover: bool) -> Self {
        let (client, server_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        let served = tokio::spawn(serve_io(handler, server_read, server_write));
        let (read, input) = tokio::io::split(client);
        let mut session = Session { input, output: BufReader::new(read).lines(), served };
        if discover {
            let line = format!(r#"{{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{{"_meta":{META}}}}}"#);
            let reply = session.exchange(&line).await;
            assert!(reply.contains(r#""supportedVersions""#), "{reply}");
        }
        session
    }

    async fn send(&mut self, line: &str) {
        self.input.write_all(line.as_bytes()).await.unwrap();
        self.input.write_all(b"\n").await.unwrap();
        self.input.flush().await.unwrap();
    }

    /// Writes `line` and reads the one reply line.
    async fn exchange(&mut self, line: &str) -> String {
        self.send(line).await;
        tokio::time::timeout(READ_TIMEOUT, self.output.next_line())
            .await
            .unwrap_or_else(|_| panic!("no reply to {line}"))
            .unwrap()
            .expect("the server closed its output")
    }

    /// Closes the input: the session ends once every reply is written.
    async fn end(mut self) {
        self.input.shutdown().await.unwrap();
        tokio::time::timeout(READ_TIMEOUT, self.served).await.unwrap().unwrap().unwrap();
    }
}

/// A 2026-07-28 request's own `_meta`, as the official Python SDK sends it.
const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"mcp","version":"0.1.0"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

/// Plain `tools/call` lines (answered directly by an `McpServer`), and a few that are not.
fn lines() -> Vec<String> {
    let call =
        |id: &str, params: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#);
    vec![
        call("1", r#"{"name":"add","arguments":{"a":1,"b":2}}"#),
        call("2", r#"{"name":"add","arguments":{"a":101,"b":2}}"#),
        call("3", r#"{"name":"add","arguments":{"a":"x","b":2}}"#),
        call("4", r#"{"name":"sub","arguments":{"a":1,"b":2}}"#),
        call("5", r#"{"name":"add","arguments":[1,2]}"#),
        call("6", r#"{"name":"add","arguments":"{\"a\":1,\"b\":2}"}"#),
        call("7", r#"{"name":"add"}"#),
        call("8", r#"{"name":"add","arguments":null}"#),
        call(r#""call \"9\"""#, r#"{"arguments":{"b":2,"a":1},"name":"add"}"#),
        call("-10", r#"{"name":"add_later","arguments":{"a":3,"b":4}}"#),
        call("11", r#"{"name":"add_later","arguments":{"a":3,"b":400}}"#),
        call("12", r#"{"name":"echo","arguments":"{\"word\":\"hi\"}"}"#),
        call("13", r#"{"name":"echo","arguments":{"word":"hi"}}"#),
        call("14", r#"{"name":"whoami","arguments":{}}"#),
        call("15", r#"{"name":"a\u0064d","arguments":{"a":1,"b":2,"c":3}}"#),
        call("16", r#"{"name":"add","arguments":{"a":1e400,"b":2}}"#),
        // Not plain: through rmcp on both servers.
        call("17", r#"{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":1}}"#),
        call("18", r#"{"name":"add","name":"add","arguments":{"a":1,"b":2}}"#),
        r#"{"jsonrpc":"2.0","id":19,"method":"tools/list"}"#.to_owned(),
    ]
}

#[tokio::test(flavor = "current_thread")]
async fn a_plain_call_answered_directly_is_the_bytes_rmcp_writes() {
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut direct = Session::start(server(), version).await;
        let mut rmcp = Session::start(ViaRmcp(server()), version).await;
        for line in lines() {
            let (a, b) = (direct.exchange(&line).await, rmcp.exchange(&line).await);
            assert_eq!(a, b, "{version}: {line}");
        }
        // The context a tool sees: the server's caller, the surface, the session's version.
        let reply: Value = serde_json::from_str(
            &direct.exchange(r#"{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"whoami"}}"#).await,
        )
        .unwrap();
        assert_eq!(
            reply["result"]["structuredContent"]["data"],
            json!({"subject": null, "surface": "mcp", "protocol_version": version}),
            "{reply}"
        );
        direct.end().await;
        rmcp.end().await;
    }
}

/// Pipelined on a multi-thread runtime: every call answered once, under its own id, and the
/// session ends once every reply is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_plain_calls_are_each_answered_once() {
    let mut session = Session::start(server(), "2025-11-25").await;
    let n = 500;
    let mut burst = String::new();
    for id in 1..=n {
        let tool = if id % 2 == 0 { "add" } else { "add_later" };
        let b = if id % 3 == 0 { 101 } else { 2 };
        burst.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"a":1,"b":{b}}}}}}}"#
        ));
        burst.push('\n');
    }
    session.input.write_all(burst.as_bytes()).await.unwrap();
    session.input.flush().await.unwrap();
    let mut seen = vec![false; n + 1];
    for _ in 1..=n {
        let line = tokio::time::timeout(READ_TIMEOUT, session.output.next_line()).await.unwrap().unwrap().unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        let id = usize::try_from(reply["id"].as_u64().unwrap()).unwrap();
        assert!(!seen[id], "{id} answered twice");
        seen[id] = true;
        assert_eq!(reply["result"]["isError"], id % 3 == 0, "{line}");
    }
    session.end().await;
}

/// Hostile plain-looking lines: ids of every JSON type, escapes, duplicate and escaped keys,
/// `arguments` of every shape, whitespace, and bodies that panic. Each is answered by the
/// direct path exactly as by rmcp's.
#[tokio::test(flavor = "current_thread")]
async fn hostile_lines_are_answered_as_rmcp_answers_them() {
    let call =
        |id: &str, params: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#);
    let add = r#"{"name":"add","arguments":{"a":1,"b":2}}"#;
    let deep = format!(r#"{{"name":"add","arguments":{{"a":1,"b":2,"c":{}1{}}}}}"#, "[".repeat(300), "]".repeat(300));
    let huge = format!(r#"{{"name":"echo","arguments":{{"word":"{}"}}}}"#, "w".repeat(1 << 20));
    let mut lines = vec![];
    for id in [
        r#""\u00e9\ud83d\ude00\u0000\/\t""#,
        r#""""#,
        r#""\ud800""#,
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "-1",
        "0",
        "1e2",
        "1.5",
        "-0",
        "-0.0",
        "null",
        "{}",
        "[]",
        "true",
        r#"{"a":1}"#,
    ] {
        lines.push(call(id, add));
    }
    for params in [
        r#"{"name":"add","arguments":null}"#,
        r#"{"name":"add","arguments":[]}"#,
        r#"{"name":"add","arguments":"x"}"#,
        r#"{"name":"add","arguments":"{\"a\":1,\"b\":2}"}"#,
        r#"{"name":"add","arguments":"[1]"}"#,
        r#"{"name":"add","arguments":3}"#,
        r#"{"name":"add","arguments":true}"#,
        r#"{"name":"add","arguments":{"a":1,"a":2,"b":2}}"#,
        r#"{"name":"add","arguments": { "a" : 1 ,	"b":2 } }"#,
        r#"{"name":"add","\u0061rguments":{"a":1,"b":2}}"#,
        r#"{"\u006eame":"add","arguments":{"a":1,"b":2}}"#,
        r#"{"name":"","arguments":{}}"#,
        r#"{"name":"nope\u0000","arguments":{}}"#,
        r#"{"name":"boom","arguments":{"a":1}}"#,
        r#"{"name":"boom_later","arguments":{"a":1}}"#,
        r#"{"name":"boom"}"#,
        r#"{"name":"whoami"}"#,
        r#"{}"#,
        &deep,
        &huge,
    ] {
        lines.push(call("7", params));
    }
    for line in [
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#,
        r#"{"jsonrpc":"2.0","\u0069d":1,"method":"tools/call","params":{"name":"add"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","p\u0061rams":{"name":"add"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/c\u0061ll","params":{"name":"add"}}"#,
        r#"{"jsonrpc":"2.0 ","id":1,"method":"tools/call","params":{"name":"add"}}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"add"}}"#,
        r#"{"jsonrpc":2.0,"id":1,"method":"tools/call","params":{"name":"add"}}"#,
        r#"{"id":1,"method":"tools/call","params":{"name":"add"}}"#,
        "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"add\"}}\r",
        " \t{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"add\"}} \t\r",
        "\u{a0}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"add\"}}",
    ] {
        lines.push(line.to_owned());
    }
    for version in ["2025-03-26", "2025-11-25"] {
        let mut direct = Session::start(server(), version).await;
        let mut rmcp = Session::start(ViaRmcp(server()), version).await;
        for line in &lines {
            let (a, b) = (direct.exchange(line).await, rmcp.exchange(line).await);
            assert_eq!(a, b, "{version}: {}", line.chars().take(200).collect::<String>());
        }
        direct.end().await;
        rmcp.end().await;
    }
}

/// A second `initialize` in a running session: rmcp takes the client's new version for the
/// calls after it (its `initialize` sets the peer's info), so a call answered directly must too.
#[tokio::test(flavor = "current_thread")]
async fn a_call_after_a_second_initialize_is_answered_as_rmcp_answers_it() {
    for (first, second) in [("2025-03-26", "2025-11-25"), ("2025-11-25", "2026-07-28")] {
        let mut direct = Session::start(server(), first).await;
        let mut rmcp = Session::start(ViaRmcp(server()), first).await;
        let again = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": second, "capabilities": {}, "clientInfo": {"name": "again", "version": "0"}}})
        .to_string();
        for line in [
            again.as_str(),
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#,
        ] {
            let (a, b) = (direct.exchange(line).await, rmcp.exchange(line).await);
            assert_eq!(a, b, "{first} then {second}: {line}");
        }
        direct.end().await;
        rmcp.end().await;
    }
}

/// A sync tool called without `arguments` is answered at its timeout, as with `{}`: the call
/// waits for its body no longer than `#[tool(timeout_ms)]`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_tool_called_without_arguments_times_out_in_time() {
    for handler in [0, 1] {
        let mut session = if handler == 0 {
            Session::start(server(), "2025-11-25").await
        } else {
            Session::start(ViaRmcp(server()), "2025-11-25").await
        };
        for params in [r#"{"name":"dawdle","arguments":{}}"#, r#"{"name":"dawdle"}"#] {
            let started = std::time::Instant::now();
            let line = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
            let reply: Value = serde_json::from_str(&session.exchange(&line).await).unwrap();
            let took = started.elapsed();
            assert_eq!(reply["result"]["structuredContent"]["error_code"], "TIMEOUT", "{params}: {reply}");
            assert!(took < Duration::from_millis(1000), "{params}: answered after {took:?}, timeout_ms = 200");
        }
        session.end().await;
    }
}

/// A 2026-07-28 session (no `initialize`; each call carries its version and the client's
/// capabilities in `_meta`, as the Python SDK sends them by default): a plain call with that
/// `_meta` is answered directly, and every reply is the bytes rmcp writes, for every `_meta`
/// the direct path takes and for those it leaves to rmcp.
#[tokio::test(flavor = "current_thread")]
async fn a_2026_07_28_call_answered_directly_is_the_bytes_rmcp_writes() {
    let with_meta = |line: &str, meta: &str| {
        let at = line.rfind("}}").expect("a call line ends with its params");
        let params_open = line[..at].ends_with('{');
        format!("{}{}\"_meta\":{meta}}}}}", &line[..at], if params_open { "" } else { "," })
    };
    let mut lines: Vec<String> =
        lines().iter().filter(|line| line.contains(r#""params""#)).map(|line| with_meta(line, META)).collect();
    // Lines without `_meta`: refused by rmcp in a session that sent no `initialize`.
    lines.extend(self::lines().into_iter().take(3));
    let add = r#"{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;
    let version = "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"";
    let capabilities = "\"io.modelcontextprotocol/clientCapabilities\":{}";
    for meta in [
        format!("{{{version},{capabilities}}}"),
        format!("{{{capabilities},{version}}}"),
        format!(r#"{{{version},{capabilities},"io.modelcontextprotocol/clientInfo":5}}"#),
        format!(r#"{{{version},"io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}},"sampling":{{}}}}}}"#),
        // Text that rmcp's path cannot read: refused there, so never taken directly.
        format!(
            r#"{{{version},{capabilities},"io.modelcontextprotocol/clientInfo":{{"name":"x","version":"1","z":1e400}}}}"#
        ),
        format!(r#"{{{version},"io.modelcontextprotocol/clientCapabilities":{{"zzz":-1e400}}}}"#),
        format!(r#"{{{version},"io.modelcontextprotocol/clientCapabilities":{{"sampling":{{"zz":1e400}}}}}}"#),
        format!(
            r#"{{{version},{capabilities},"io.modelcontextprotocol/clientInfo":{}1{}}}"#,
            "[".repeat(130),
            "]".repeat(130)
        ),
        format!(
            r#"{{{version},{capabilities},"io.modelcontextprotocol/clientInfo":{}1{}}}"#,
            "[".repeat(118),
            "]".repeat(118)
        ),
        format!(
            r#"{{{version},"io.modelcontextprotocol/clientCapabilities":{{"zzz":{}1{}}}}}"#,
            "[".repeat(130),
            "]".repeat(130)
        ),
        // Not taken directly: through rmcp on both servers.
        format!("{{{version}}}"),
        format!("{{{capabilities}}}"),
        format!(r#"{{{version},"io.modelcontextprotocol/clientCapabilities":[]}}"#),
        format!(r#"{{{version},"io.modelcontextprotocol/clientCapabilities":null}}"#),
        format!(r#"{{"io.modelcontextprotocol/protocolVersion":"2025-11-25",{capabilities}}}"#),
        format!(r#"{{"io.modelcontextprotocol/protocolVersion":"2099-01-01",{capabilities}}}"#),
        format!(r#"{{"io.modelcontextprotocol/protocolVersion":"2026\u002d07-28",{capabilities}}}"#),
        format!(r#"{{"io.modelcontextprotocol/protocolVersion":20260728,{capabilities}}}"#),
        format!(r#"{{"io.modelcontextprotocol\/protocolVersion":"2026-07-28",{capabilities}}}"#),
        format!("{{{version},{version},{capabilities}}}"),
        format!(
            r#"{{{version},{capabilities},"io.modelcontextprotocol/clientInfo":{{"name":"a","name":"b","version":"1"}}}}"#
        ),
        format!(r#"{{{version},{capabilities},"progressToken":1}}"#),
        format!(r#"{{{version},{capabilities},"io.modelcontextprotocol/logLevel":"debug"}}"#),
        format!(r#"{{{version},{capabilities},"x":1}}"#),
        "{}".to_owned(),
        "null".to_owned(),
        "[]".to_owned(),
    ] {
        lines.push(with_meta(add, &meta));
    }
    lines.push(format!(r#"{{"jsonrpc":"2.0","id":31,"method":"tools/list","params":{{"_meta":{META}}}}}"#));
    lines.push(with_meta(add, META));
    for discover in [false, true] {
        let mut direct = Session::stateless(server(), discover).await;
        let mut rmcp = Session::stateless(ViaRmcp(server()), discover).await;
        for line in &lines {
            let (a, b) = (direct.exchange(line).await, rmcp.exchange(line).await);
            assert_eq!(a, b, "discover {discover}: {line}");
        }
        // The context a tool sees: the server's caller, the surface, the request's version.
        let whoami =
            format!(r#"{{"jsonrpc":"2.0","id":32,"method":"tools/call","params":{{"name":"whoami","_meta":{META}}}}}"#);
        let reply: Value = serde_json::from_str(&direct.exchange(&whoami).await).unwrap();
        assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
        assert_eq!(
            reply["result"]["structuredContent"]["data"],
            json!({"subject": null, "surface": "mcp", "protocol_version": "2026-07-28"}),
            "{reply}"
        );
        direct.end().await;
        rmcp.end().await;
    }
}

/// In a 2026-07-28 session, the request that starts rmcp's session goes through rmcp, so what
/// comes after (an `initialize`, a call without `_meta`) is answered as in the session the client
/// opened; the calls after it are answered directly, as rmcp answers them.
#[tokio::test(flavor = "current_thread")]
async fn a_2026_07_28_session_is_the_one_rmcp_opened() {
    let whoami = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"whoami","arguments":{{}},"_meta":{META}}}}}"#
    );
    let add = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}},"_meta":{META}}}}}"#
    );
    let lines = [
        whoami.as_str(),
        r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"whoami","arguments":{}}}"#,
        add.as_str(),
    ];
    for discover in [false, true] {
        let mut direct = Session::stateless(server(), discover).await;
        let mut rmcp = Session::stateless(ViaRmcp(server()), discover).await;
        for line in lines {
            let (a, b) = (direct.exchange(line).await, rmcp.exchange(line).await);
            assert_eq!(a, b, "discover {discover}: {line}");
        }
        direct.end().await;
        rmcp.end().await;
    }
}

/// A 2026-07-28 call answered directly is cancelled by `notifications/cancelled`: no reply is
/// ever written for it, and the session goes on.
#[tokio::test(flavor = "current_thread")]
async fn a_2026_07_28_call_cancelled_gets_no_reply() {
    let mut session = Session::stateless(server(), true).await;
    let add = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}},"_meta":{META}}}}}"#
        )
    };
    // The request that starts rmcp's session, answered by rmcp.
    let reply: Value = serde_json::from_str(&session.exchange(&add(1)).await).unwrap();
    assert_eq!(reply["result"]["structuredContent"]["data"], 3, "{reply}");
    session
        .send(&format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"nap","_meta":{META}}}}}"#))
        .await;
    session
        .send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"no longer needed"}}"#)
        .await;
    let reply: Value = serde_json::from_str(&session.exchange(&add(3)).await).unwrap();
    assert_eq!(reply["id"], 3, "{reply}");
    assert_eq!(reply["result"]["structuredContent"]["data"], 3, "{reply}");
    // Past the nap's 300 ms: nothing more is written.
    let late = tokio::time::timeout(Duration::from_millis(800), session.output.next_line()).await;
    assert!(late.is_err(), "a reply to the cancelled call: {late:?}");
    session.end().await;
}
