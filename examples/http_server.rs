//! The example MCP server over Streamable HTTP: the tools of the project's example set, served
//! statelessly at `/mcp`, and the same tools as plain HTTP endpoints at `/tools/{name}` on the
//! same port (`ENVELOPE_SECRET` and `ENVELOPE_REDIS_URL` as for `mcp_server`).
//!
//! `cargo run --example http_server` listens on `127.0.0.1:8080` and prints its URL. Choose the
//! address with `--host` / `--port` (or the `HOST` / `PORT` environment variables; port `0`
//! picks a free one). Attach a client, e.g. the MCP Inspector:
//! `npx -y @modelcontextprotocol/inspector --cli http://127.0.0.1:8080/mcp --transport http --method tools/list`.

use std::io;

use envelope_core::http::{HttpTools, OriginLayer};
use envelope_core::mcp::http::McpHttp;

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let host = setting(&args, "host", "HOST", "127.0.0.1");
    let port = setting(&args, "port", "PORT", "8080");
    let Ok(port) = port.parse::<u16>() else {
        eprintln!("--port {port:?} is not a port number; send a whole number from 0 to 65535, like --port 8080");
        std::process::exit(2);
    };
    let toolbox = tools::configured().await.map_err(io::Error::other)?;
    let listener = tokio::net::TcpListener::bind((host.as_str(), port)).await?;
    let address = listener.local_addr()?;
    eprintln!("plain HTTP tool endpoints: http://{address}/tools/{{name}}");
    println!("envelope example MCP server: http://{address}/mcp");
    let endpoints = HttpTools::new(toolbox.clone()).router().layer(OriginLayer::loopback());
    let app = McpHttp::new(toolbox).router().merge(endpoints);
    axum::serve(listener, app).await
}
