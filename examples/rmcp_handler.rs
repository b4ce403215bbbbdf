//! Envelope tools beside an existing rmcp server: a `ServerHandler` of your own that serves
//! resources and prompts, and answers `tools/list` and `tools/call` from a `Toolbox` by
//! delegating to an `McpServer`. Served over stdio with `serve_handler_stdio`, which reads each
//! line before rmcp, so the envelope tools keep every promise of `serve_stdio` (the exact
//! arguments text, ids on every error, sync bodies off the async workers).
//!
//! Run it with `cargo run --example rmcp_handler`.

#[allow(dead_code)] // each example uses some of the tools module
mod tools;

use envelope_core::mcp::{
    McpServer,
    rmcp::{
        ErrorData, RoleServer, ServerHandler,
        model::{
            CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
            ListPromptsResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage,
            ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role,
            ServerCapabilities, ServerConfig,
        },
        service::RequestContext,
    },
};

/// The server you already had: one resource and one prompt, and now the envelope tools.
#[derive(Clone)]
struct Notebook {
    tools: McpServer,
}

const GUIDE_URI: &str = "notes://guide";

impl ServerHandler for Notebook {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().enable_prompts().build())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let guide = Resource::new(GUIDE_URI, "guide").with_description("How notes are titled and tagged.");
        Ok(ListResourcesResult::with_all_items(vec![guide]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != GUIDE_URI {
            let why = format!("{:?} is not a resource of this server; accepted: {GUIDE_URI}", request.uri);
            return Err(ErrorData::resource_not_found(why, None));
        }
        let text = "Titles are 1 to 120 characters; tags are lowercase words joined by '-'.";
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, GUIDE_URI)]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompt = Prompt::new("summarize_notes", Some("Summarize the notes written so far."), None);
        Ok(ListPromptsResult::with_all_items(vec![prompt]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "summarize_notes" {
            let why = format!("{:?} is not a prompt of this server; accepted: summarize_notes", request.name);
            return Err(ErrorData::invalid_params(why, None));
        }
        let message = PromptMessage::new_text(Role::User, "Summarize my notes in three lines.");
        Ok(GetPromptResult::new(vec![message]).into())
    }

    // The tools: handed to the envelope server, context and all.
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.tools.list_tools(request, context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.tools.call_tool(request, context).await
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let server = Notebook { tools: McpServer::new(tools::with_context_tools(tools::toolbox())) };
    eprintln!("envelope example: an rmcp server with resources, prompts and the example tools, on stdio");
    envelope_core::mcp::serve_handler_stdio(server).await
}
