//! The example MCP server: the tools of the project's example set, served over stdio to clients
//! of every protocol version (2025-06-18, 2025-11-25, 2026-07-28). `ENVELOPE_SECRET` (at least
//! 32 bytes) seals pending actions; with `ENVELOPE_REDIS_URL` set, approvals and idempotency keys
//! live in that Redis, so replicas share them. `rebuild_index` is also served as an MCP task
//! (`tools::with_tasks`): a client that declared `io.modelcontextprotocol/tasks` gets a task
//! to poll (`tasks/get`) and cancel (`tasks/cancel`).
//!
//! Run it with `cargo run --example mcp_server`; attach a client, e.g. the MCP Inspector:
//! `npx -y @modelcontextprotocol/inspector cargo run --example mcp_server`. It exits with code 0
//! when stdin closes.

#[allow(dead_code)] // each example uses some of the tools module
mod tools;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let toolbox = tools::with_context_tools(tools::configured().await.map_err(std::io::Error::other)?);
    let names: Vec<&str> = toolbox.tools().iter().map(|t| t.name()).collect();
    eprintln!("envelope example MCP server on stdio; tools: {}", names.join(", "));
    envelope_core::mcp::serve_handler_stdio(tools::with_tasks(envelope_core::mcp::McpServer::new(toolbox))).await
}
