//! The example MCP server: the four tools of the project's example set, served over stdio.
//!
//! Run it with `cargo run --example mcp_server`; attach a client, e.g. the MCP Inspector:
//! `npx @modelcontextprotocol/inspector cargo run --example mcp_server`.

mod tools;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let toolbox = tools::toolbox();
    let names: Vec<&str> = toolbox.tools().iter().map(|t| t.name()).collect();
    eprintln!("envelope example MCP server on stdio; tools: {}", names.join(", "));
    envelope_core::mcp::serve_stdio(toolbox).await
}
