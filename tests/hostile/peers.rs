//! An anonymous caller's limits count under the address its request came from
//! (`Caller::quota_key` is `peer:<address>`, set by `envelope_core::http::serve`): one address
//! that spends a rate limit leaves another address's calls served, over `/tools` and `/mcp`.
//! Linux routes all of `127.0.0.0/8` to loopback, so each client binds its own source address.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use envelope_core::http::{AllowedHosts, HttpTools, serve};
use envelope_core::mcp::streamable::McpHttp;
use envelope_core::spec::rate::RateLimit;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket};
use tokio::time::{Duration, timeout};

use crate::tools;

const FIRST: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 1);
const SECOND: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);

/// The example toolbox, `create_note` at 1 call an hour, over `/mcp` and `/tools` through
/// envelope's server, no authentication: every caller is anonymous.
async fn served() -> SocketAddr {
    let toolbox = tools::toolbox().with_tool_rate_limit("create_note", RateLimit::per_hour(1));
    let app = McpHttp::new(toolbox.clone()).router().merge(HttpTools::new(toolbox).router());
    let listener = TcpListener::bind("0.0.0.0:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = serve(listener, app).hosts(AllowedHosts::any());
    tokio::spawn(async move { server.await.unwrap() });
    SocketAddr::from(([127, 0, 0, 1], port))
}

/// `POST path` with a JSON `body` from the source address `from`: the status and the body's JSON.
async fn post_from(from: Ipv4Addr, addr: SocketAddr, path: &str, body: &str) -> (u16, Value) {
    let exchange = async {
        let socket = TcpSocket::new_v4().ok()?;
        socket.bind(SocketAddr::new(IpAddr::V4(from), 0)).ok()?;
        let mut stream = socket.connect(addr).await.ok()?;
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.ok()?;
        stream.write_all(body.as_bytes()).await.ok()?;
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).await.ok()?;
        let text = String::from_utf8_lossy(&reply).into_owned();
        let status = text.split(' ').nth(1)?.parse::<u16>().ok()?;
        let body = text.split_once("\r\n\r\n")?.1;
        Some((status, serde_json::from_str(body).unwrap_or(Value::Null)))
    };
    timeout(Duration::from_secs(5), exchange).await.ok().flatten().expect("an answer within 5 s")
}

/// The envelope's error code, or its status word when it has none.
fn outcome(envelope: &Value) -> String {
    envelope["error_code"].as_str().or(envelope["status"].as_str()).unwrap_or("no envelope").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anonymous_flood_from_one_address_spends_only_that_addresss_rate_limit() {
    let addr = served().await;
    let note = r#"{"title": "a note"}"#;
    let mut first = Vec::new();
    for _ in 0..5 {
        let (status, envelope) = post_from(FIRST, addr, "/tools/create_note", note).await;
        first.push((status, outcome(&envelope)));
    }
    assert_eq!(first[0], (200, "ok".to_owned()));
    assert!(first[1..].iter().all(|answer| *answer == (429, "RATE_LIMITED".to_owned())), "{first:?}");

    // Another address: its own limit, untouched by the first one's calls.
    let (status, envelope) = post_from(SECOND, addr, "/tools/create_note", note).await;
    assert_eq!((status, outcome(&envelope)), (200, "ok".to_owned()), "{envelope}");

    // Over MCP too: the same tool, the same per-address count (both addresses have spent it).
    let call =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note","arguments":{"title":"x"}}}"#;
    for from in [FIRST, SECOND] {
        let (status, reply) = post_from(from, addr, "/mcp", call).await;
        assert_eq!(status, 429, "{reply}");
        assert_eq!(outcome(&reply["result"]["structuredContent"]), "RATE_LIMITED", "{reply}");
    }
    let third = Ipv4Addr::new(127, 0, 0, 4);
    let (status, reply) = post_from(third, addr, "/mcp", call).await;
    assert_eq!((status, outcome(&reply["result"]["structuredContent"])), (200, "ok".to_owned()), "{reply}");
}
