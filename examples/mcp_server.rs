//! The example MCP server: the four tools of the project's example set, served over stdio to
//! clients of every protocol version (2025-06-18, 2025-11-25, 2026-07-28).
//!
//! Run it with `cargo run --example mcp_server`; attach a client, e.g. the MCP Inspector:
//! `npx -y @modelcontextprotocol/inspector cargo run --example mcp_server`. It exits with code 0
//! when stdin closes.

mod tools;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let toolbox = tools::toolbox();
    let names: Vec<&str> = toolbox.tools().iter().map(|t| t.name()).collect();
    eprintln!("envelope example MCP server on stdio; tools: {}", names.join(", "));
    envelope_core::mcp::serve_stdio(toolbox).await
}
