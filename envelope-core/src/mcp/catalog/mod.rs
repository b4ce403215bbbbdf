//! Resources, resource templates and prompts beside the tools (MCP 2025-11-25 "Server
//! Features / Resources" and "/ Prompts"), declared with rmcp's model types on an
//! [`McpServer`](super::McpServer) and served by it, under the same surface and caller as its
//! tools.
//!
//! - [`McpServer::with_resource`](super::McpServer::with_resource) declares a resource
//!   ([`Resource`]: its URI, name, MIME type...) and the function that reads it;
//!   [`with_resource_template`](super::McpServer::with_resource_template) a
//!   [`ResourceTemplate`] (`{id}` and `{+path}` variables, RFC 6570 levels 1 and 2) and the
//!   function that reads any URI it expands to ([`UriMatch`]: the URI and each variable);
//!   [`with_prompt`](super::McpServer::with_prompt) a [`Prompt`] and the function that answers
//!   `prompts/get` ([`GetPromptResult`]). Each function gets the request's
//!   [`Context`](crate::Context): its [`Caller`](crate::Caller) (the one the HTTP auth hook
//!   verified, else the server's), its surface and protocol version, so it can answer per
//!   caller. It returns `Result<_, E>` with
//!   `E` a [`ToolError`](crate::ToolError) (a [`Fault`](crate::Fault), a
//!   [`Refusal`](crate::Refusal), a `#[derive(ToolError)]` enum), never a free-form string.
//! - Serve the server as any: [`serve_stdio`](super::serve_stdio)`(server)`, or over HTTP
//!   `McpHttp::with_handler(server)` (`McpHttp::new(toolbox)` builds a server of its own,
//!   without them). It then declares the `resources` (or `prompts`) capability and answers
//!   `resources/list`, `resources/templates/list`, `resources/read`, `prompts/list` and
//!   `prompts/get`; the lists and reads carry the server's `ttlMs`
//!   ([`McpServer::with_ttl_ms`](super::McpServer::with_ttl_ms)).
//! - **Surfaces.** A surface names the resources and templates it shows by `name`
//!   ([`Surface::only_resources`](crate::call::Surface::only_resources),
//!   [`all_resources_but`](crate::call::Surface::all_resources_but)) and its prompts likewise
//!   ([`only_prompts`](crate::call::Surface::only_prompts)). One it hides is absent from the
//!   lists, and reading or getting it is answered with the same bytes as a URI or name the
//!   server never declared. A caller short of the surface's scopes (or without a tenant where
//!   it needs one) is refused as a tool's call is, `FORBIDDEN` (`-32000`).
//! - **Failures** are JSON-RPC errors whose `code` comes from the failure's row of the code
//!   table ([`Code::json_rpc_code`](crate::Code::json_rpc_code)), whose `message` is the
//!   envelope's sentence, and whose `data` is the envelope with `uri` (or `name`) added. A URI
//!   no resource has is `NOT_FOUND`, `-32602` with `data.uri` (SEP-2164); a read function's
//!   `Fault` is `-32603`; a missing `required` prompt argument, or one that is not a string, is
//!   `VALIDATION_ERROR`, `-32602`.
//!
//! ```
//! use envelope_core::{Context, Fault, Toolbox, call::Surface, mcp::McpServer};
//! use envelope_core::mcp::rmcp::model::{Resource, ResourceContents};
//!
//! let server = McpServer::new(Toolbox::new())
//!     .with_resource(Resource::new("notes://motd", "motd").with_mime_type("text/plain"), |cx: Context| async move {
//!         let who = cx.caller().subject().unwrap_or("stranger").to_owned();
//!         Ok::<_, Fault>(vec![ResourceContents::text(format!("Good morning, {who}."), "notes://motd")])
//!     })
//!     .with_surface(Surface::public("mcp").all_resources_but(["motd"]));
//! # let _ = server;
//! ```
//!
//! Subscriptions (`resources/subscribe`), completion (`completion/complete`) and list-changed
//! notifications are not declared here: a handler of your own answers them and hands the rest
//! to the `McpServer` (see `examples/conformance_server.rs`).

// How a failure of a catalog request leaves, and who may ask.
mod jsonrpc_error;
// The prompts: listed, their arguments checked, got.
mod prompts;
// The resources and templates: listed, matched, read.
mod resources;
// RFC 6570 templates matched against a URI.
mod uri_template;

pub use rmcp::model::{GetPromptResult, Prompt, Resource, ResourceContents, ResourceTemplate};
pub use uri_template::UriMatch;

pub(crate) use prompts::{Prompts, getter};
pub(crate) use resources::{Resources, reader};
