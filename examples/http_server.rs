//! The example MCP server over Streamable HTTP: the tools of the project's example set, served
//! statelessly at `/mcp`, and the same tools as plain HTTP endpoints at `/tools/{name}` on the
//! same port (`ENVELOPE_SECRET` and `ENVELOPE_REDIS_URL` as for `mcp_server`), by envelope's
//! bounded server (`envelope_core::http::serve`: timeouts on request heads and bodies, bounds
//! on connections, requests in flight and body bytes, loopback `Host` names only).
//!
//! `cargo run --example http_server` listens on `127.0.0.1:8080` and prints its URL. Choose the
//! address with `--host` / `--port` (or the `HOST` / `PORT` environment variables; port `0`
//! picks a free one). With `--token` (or `TOKEN`) every request to `/mcp` and `/tools` needs
//! `Authorization: Bearer <token>`. Each call logs one line to stderr, and so does each request
//! or connection the server refuses. Attach a client, e.g. the MCP Inspector:
//! `npx -y @modelcontextprotocol/inspector --cli http://127.0.0.1:8080/mcp --transport http --method tools/list`.

use std::io;

use envelope_core::http::{AuthLayer, BearerTokens, HttpTools, OriginLayer};
use envelope_core::mcp::http::McpHttp;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::{Layer as _, layer::SubscriberExt as _, util::SubscriberInitExt as _};

#[allow(dead_code)] // each example uses some of the tools module
mod tools;

/// `--name value`, `--name=value`, else the environment variable `env`, else `default`.
fn setting(args: &[String], name: &str, env: &str, default: &str) -> String {
    let flag = format!("--{name}");
    let mut value = std::env::var(env).ok();
    for (i, arg) in args.iter().enumerate() {
        if *arg == flag {
            value = args.get(i + 1).cloned();
        } else if let Some(v) = arg.strip_prefix(&format!("{flag}=")) {
            value = Some(v.to_owned());
        }
    }
    value.unwrap_or_else(|| default.to_owned())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> io::Result<()> {
    // One line per call (envelope's events), not rmcp's three per stateless request.
    let filter = Targets::new().with_default(LevelFilter::INFO).with_target("rmcp", LevelFilter::WARN);
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(io::stderr).with_filter(filter))
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let host = setting(&args, "host", "HOST", "127.0.0.1");
    let port = setting(&args, "port", "PORT", "8080");
    let Ok(port) = port.parse::<u16>() else {
        eprintln!("--port {port:?} is not a port number; send a whole number from 0 to 65535, like --port 8080");
        std::process::exit(2);
    };
    let token = setting(&args, "token", "TOKEN", "");
    if args.iter().any(|a| a == "--token" || a.starts_with("--token=")) && token.is_empty() {
        eprintln!("--token is empty; send the token the clients will present, like --token s3cret");
        std::process::exit(2);
    }
    let toolbox = tools::with_context_tools(tools::configured().await.map_err(io::Error::other)?);
    let mut mcp = McpHttp::new(toolbox.clone());
    let mut endpoints = HttpTools::new(toolbox).router();
    if !token.is_empty() {
        mcp = mcp.with_auth(BearerTokens::new([token.clone()]));
        endpoints = endpoints.layer(AuthLayer::new(BearerTokens::new([token])));
    }
    let app = mcp.router().merge(endpoints.layer(OriginLayer::loopback()));
    let listener = tokio::net::TcpListener::bind((host.as_str(), port)).await?;
    let address = listener.local_addr()?;
    eprintln!("plain HTTP tool endpoints: http://{address}/tools/{{name}}");
    println!("envelope example MCP server: http://{address}/mcp");
    envelope_core::http::serve(listener, app)
        .routes(["POST /mcp", "POST /tools/{name}", "GET /tools", "GET /manifest"])
        .await
}
