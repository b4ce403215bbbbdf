//! The example MCP server over Streamable HTTP: the four tools of the project's example set,
//! served statelessly at `/mcp`.
//!
//! `cargo run --example http_server` listens on `127.0.0.1:8080` and prints its URL. Choose the
//! address with `--host` / `--port` (or the `HOST` / `PORT` environment variables; port `0`
//! picks a free one). Attach a client, e.g. the MCP Inspector:
//! `npx -y @modelcontextprotocol/inspector --cli http://127.0.0.1:8080/mcp --transport http --method tools/list`.

use std::io;

use envelope_core::mcp::http::McpHttp;

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
    let listener = tokio::net::TcpListener::bind((host.as_str(), port)).await?;
    let address = listener.local_addr()?;
    println!("envelope example MCP server: http://{address}/mcp");
    let app = McpHttp::new(tools::toolbox()).router();
    axum::serve(listener, app).await
}
