//! MCP server adapter over the official `rmcp` SDK (feature `rmcp`; Streamable HTTP with
//! feature `http`).
//!
#![doc = include_str!("../../docs/mcp.md")]

// A tool's answer as MCP content blocks (image, audio, resources, ...).
pub mod content;
// Resources, resource templates and prompts beside the tools, per surface and caller.
pub mod catalog;
// A tool's requests to its client on 2026-07-28: input-required results (SEP-2322).
mod input_required;
// One `tools/call` served: the arguments text to the toolbox, the envelope as a `CallToolResult`.
mod call_tool;
// The direct path: when a plain `tools/call` is answered without rmcp, for stdio and HTTP alike.
mod direct;
// One JSON-RPC message read before rmcp does: its `id`, notification or not, `arguments` text.
mod frame;
// Approval through MCP 2026-07-28's multi round-trip requests.
mod mrtr;
// A tool's progress and log messages as MCP notifications.
mod notify;
// MCP over stdio, each line read before rmcp does.
mod stdio;
// Long-running tools as tasks (SEP-2663).
pub mod tasks;
// A task's status changes as `notifications/tasks` to the session that started it.
mod task_notices;

// MCP over Streamable HTTP, stateless, on axum.
#[cfg(feature = "http")]
pub mod streamable;

// The sessions of a Streamable HTTP endpoint, bounded and bound to their opener.
#[cfg(feature = "http")]
mod sessions;

// What rmcp's refusals over Streamable HTTP quote of a request's headers, cut.
#[cfg(feature = "http")]
mod echoes;

use std::sync::{Arc, Mutex};

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode, Extensions, Implementation,
        ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
};
use serde_json::Value;

use crate::{Caller, Context, Toolbox, context::LogLevel};

pub use stdio::{MAX_REQUESTS_IN_FLIGHT, serve_handler_stdio, serve_io, serve_stdio};

/// The `rmcp` this adapter is built on, for handlers of your own (see [`serve_handler_stdio`]):
/// the same version, so its types are the adapter's.
pub use rmcp;

/// An `rmcp` [`ServerHandler`] that serves the tools of one [`Toolbox`].
///
/// It advertises the `tools` capability and answers `tools/list` and `tools/call` as the
/// [module documentation](self) describes; with resources, resource templates or prompts
/// declared ([`with_resource`](Self::with_resource), [`with_prompt`](Self::with_prompt)), also
/// the `resources` and `prompts` capabilities and their requests ([`catalog`]). Serve it with [`serve_stdio`] or (feature `http`)
/// `http::McpHttp`, which read each message first; or hand it to any other `rmcp` transport
/// with [`rmcp::ServiceExt::serve`], where rmcp's parser reads the messages (a `tools/call`
/// nested past 127 levels is then lost to it). To serve envelope tools beside requests of
/// your own (subscriptions, completion), call [`McpServer::list_tools`](ServerHandler::list_tools),
/// [`McpServer::call_tool`](ServerHandler::call_tool) and the others from your own handler's.
pub struct McpServer {
    toolbox: Arc<Toolbox>,
    caller: Arc<Caller>,
    surface: Arc<str>,
    /// The level log messages are sent at when the client set none.
    default_level: Option<LogLevel>,
    /// The level the client set with `logging/setLevel`, for this session (a clone starts
    /// without one: stateless HTTP serves each request with a clone).
    level: Arc<Mutex<Option<LogLevel>>>,
    /// Whether tools may ask the client (sampling, elicitation): every call then goes through
    /// rmcp's service, where the request's peer can carry a request to the client.
    asks_client: bool,
    /// The key that seals the request state of input-required results ([`input_required`]).
    input_key: Arc<[u8; 32]>,
    /// `ttlMs` of `tools/list` (SEP-2549); `None`: rmcp's `0`.
    ttl_ms: Option<u64>,
    /// The names of the tools that answer [`content::Contents`].
    block_tools: Arc<std::collections::HashSet<String>>,
    /// The tools served as tasks, and the tasks running here ([`tasks`]).
    tasks: Arc<tasks::Tasks>,
    /// The resources and resource templates declared beside the tools ([`catalog`]).
    resources: Arc<catalog::Resources>,
    /// The prompts declared beside the tools ([`catalog`]).
    prompts: Arc<catalog::Prompts>,
}

impl Clone for McpServer {
    fn clone(&self) -> Self {
        McpServer {
            toolbox: Arc::clone(&self.toolbox),
            caller: Arc::clone(&self.caller),
            surface: Arc::clone(&self.surface),
            default_level: self.default_level,
            level: Arc::default(),
            block_tools: Arc::clone(&self.block_tools),
            asks_client: self.asks_client,
            ttl_ms: self.ttl_ms,
            input_key: Arc::clone(&self.input_key),
            tasks: Arc::clone(&self.tasks),
            resources: Arc::clone(&self.resources),
            prompts: Arc::clone(&self.prompts),
        }
    }
}

/// Put in a request's extensions by the Streamable HTTP endpoint when the client does not
/// accept `text/event-stream`: its reply cannot carry notifications, so none are sent.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NoEventStream;

impl McpServer {
    /// Wraps `toolbox`; the server identifies itself as `envelope` with this crate's version.
    /// Its calls are made on the surface `"mcp"`, by the caller the HTTP auth hook verified
    /// (`http::McpHttp`), else by [`Caller::anonymous`].
    #[must_use]
    pub fn new(toolbox: Toolbox) -> Self {
        // A toolbox served on a surface (`Toolbox::on`) makes its calls on that surface.
        let surface = Arc::from(toolbox.surface().map_or("mcp", crate::call::Surface::name));
        let block_tools = Arc::new(block_tools(&toolbox));
        let mut tasks = tasks::Tasks::default();
        tasks.blocks = Arc::clone(&block_tools);
        Self {
            block_tools,
            asks_client: false,
            ttl_ms: None,
            input_key: Arc::new(random_key()),
            toolbox: Arc::new(toolbox),
            caller: Arc::new(Caller::anonymous()),
            surface,
            default_level: None,
            level: Arc::default(),
            tasks: Arc::new(tasks),
            resources: Arc::default(),
            prompts: Arc::default(),
        }
    }

    /// Declares the resource `resource` (its `uri`, `name`, MIME type...; listed by
    /// `resources/list` as given) and `read`, which answers a `resources/read` of its URI with
    /// its contents (`[{"uri", "mimeType", "text"}]` or `"blob"`, base64) from the request's
    /// [`Context`] (the caller, the surface). Its failure (`Err(E)`, a panic) is a JSON-RPC
    /// error whose code the code table gives; see [`catalog`]. Resources are listed in the
    /// order declared; a surface names the ones it shows by `name`
    /// ([`crate::call::Surface::only_resources`]).
    #[must_use]
    pub fn with_resource<F, Fut, E>(mut self, resource: catalog::Resource, read: F) -> Self
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Vec<catalog::ResourceContents>, E>> + Send + 'static,
        E: crate::ToolError,
    {
        let read = catalog::reader(move |_: catalog::UriMatch, cx| read(cx));
        Arc::make_mut(&mut self.resources).add(resource, read);
        self
    }

    /// Declares the resource template `template` (listed by `resources/templates/list`) and
    /// `read`, which answers a `resources/read` of any URI the template expands to and no
    /// declared resource has: [`catalog::UriMatch`] gives the URI and each variable
    /// (`notes://{owner}/{id}` read as `notes://ada/7` gives `owner` `ada`, `id` `7`). The
    /// first declared template that matches reads the URI.
    ///
    /// # Panics
    /// When `uriTemplate` uses what the matcher does not read (RFC 6570 operators other than
    /// `+`, modifiers, lists, two variables side by side): `{id}` and `{+path}` are read.
    #[must_use]
    pub fn with_resource_template<F, Fut, E>(mut self, template: catalog::ResourceTemplate, read: F) -> Self
    where
        F: Fn(catalog::UriMatch, Context) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Vec<catalog::ResourceContents>, E>> + Send + 'static,
        E: crate::ToolError,
    {
        if let Err(why) = Arc::make_mut(&mut self.resources).add_template(template, catalog::reader(read)) {
            panic!("{why}");
        }
        self
    }

    /// Declares the prompt `prompt` (its `name`, `arguments`...; listed by `prompts/list`)
    /// and `get`, which answers `prompts/get` with its messages from the arguments (each a
    /// string; every argument `prompt` declares `required` is there, else the request was
    /// refused `VALIDATION_ERROR` before `get` ran) and the request's [`Context`]. A surface
    /// names the prompts it shows ([`crate::call::Surface::only_prompts`]).
    #[must_use]
    pub fn with_prompt<F, Fut, E>(mut self, prompt: catalog::Prompt, get: F) -> Self
    where
        F: Fn(std::collections::BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<catalog::GetPromptResult, E>> + Send + 'static,
        E: crate::ToolError,
    {
        Arc::make_mut(&mut self.prompts).add(prompt, catalog::getter(get));
        self
    }

    /// Serves tool `name` as a task (the MCP tasks extension, SEP-2663; see [`tasks`]): a
    /// client that declared `io.modelcontextprotocol/tasks` gets the create-task result at
    /// once and polls `tasks/get`; `support` says what any other client gets (the direct
    /// answer, or `-32021`). `tools/list` lists it in the tool's `_meta`
    /// (`{"io.modelcontextprotocol/tasks": {"taskSupport": "optional"}}`), and the server
    /// advertises the extension under `capabilities.extensions`.
    ///
    /// # Panics
    /// After the server was cloned (set it while building the server).
    #[must_use]
    pub fn with_task(mut self, name: &str, support: tasks::TaskSupport) -> Self {
        Arc::get_mut(&mut self.tasks)
            .expect("set task tools before the server is cloned")
            .tools
            .insert(name.to_owned(), support);
        self
    }

    /// How long a task is kept after it was created ([`tasks::DEFAULT_TTL`], one hour, by
    /// default): its `ttlMs`; `tasks/get` answers it as unknown after that.
    ///
    /// # Panics
    /// After the server was cloned.
    #[must_use]
    pub fn with_task_ttl(mut self, ttl: std::time::Duration) -> Self {
        Arc::get_mut(&mut self.tasks).expect("set the task TTL before the server is cloned").ttl = ttl;
        self
    }

    /// How many live tasks one caller ([`Caller::key`]: subject and tenant) may have stored
    /// ([`tasks::DEFAULT_PER_CALLER`] by default); a task-tool call past it is refused
    /// `-32600` and runs nothing.
    ///
    /// # Panics
    /// After the server was cloned.
    #[must_use]
    pub fn with_tasks_per_caller(mut self, bound: usize) -> Self {
        Arc::get_mut(&mut self.tasks).expect("set the task bound before the server is cloned").per_caller = bound;
        self
    }

    /// How many task bodies this server runs at once ([`tasks::DEFAULT_MAX_RUNNING`], 256, by
    /// default; at least 1), every caller's together: a task-tool call past it is refused
    /// `-32600` (`this server runs 256 tasks, the most it runs at once; ...`), no task is
    /// created and nothing runs. A body holds its place until it ends (a cancelled task's
    /// async body is dropped at its next `.await`; a sync one runs until it looks at
    /// `cx.is_cancelled()`), or until its tool's `timeout_ms` passes. Keep it below the threads sync bodies run on
    /// (512) less the requests in flight, so a task never holds up a plain call. One caller
    /// (by its `Caller::quota_key`) holds at most an eighth of the places (32 of 256), unless
    /// [`with_max_running_tasks_per_caller`](Self::with_max_running_tasks_per_caller) says
    /// otherwise.
    ///
    /// # Panics
    /// After the server was cloned.
    #[must_use]
    pub fn with_max_running_tasks(mut self, bound: usize) -> Self {
        Arc::get_mut(&mut self.tasks)
            .expect("set the running-task bound before the server is cloned")
            .set_max_running(bound);
        self
    }

    /// How many of the running task bodies one caller (by its `Caller::quota_key`: a verified
    /// identity, else its address) may hold (an eighth of
    /// [`with_max_running_tasks`](Self::with_max_running_tasks) by default, 32 of 256; at least
    /// 1): a task-tool call past it is refused `-32600` (`this caller runs 32 tasks, the most one
    /// caller runs at once here; ...`), so a few callers cannot take every place from the rest.
    ///
    /// # Panics
    /// After the server was cloned.
    #[must_use]
    pub fn with_max_running_tasks_per_caller(mut self, share: usize) -> Self {
        Arc::get_mut(&mut self.tasks)
            .expect("set the running-task share before the server is cloned")
            .set_running_share(share);
        self
    }

    /// How many task bodies run on this server now (on this replica; every clone of the server
    /// shares them), of [`with_max_running_tasks`](Self::with_max_running_tasks): a task's body
    /// counts from its task's creation until it ends, cancelled or not.
    pub fn running_tasks(&self) -> usize {
        self.tasks.bodies_running()
    }

    /// Serves tool `name` as a task that first gathers its input through input-required rounds
    /// (SEP-2322) on 2026-07-28: the call's requests to its client are answered as any
    /// stateless call's are (an `InputRequiredResult` per round, no task), and on the round
    /// whose answers the body has all taken the task is created (the create-task result) and
    /// the body runs on in it. Support is `required` ([`with_task`](Self::with_task)). On an
    /// earlier version, or from a client that can answer nothing, it is an ordinary task.
    ///
    /// # Panics
    /// After the server was cloned.
    #[must_use]
    pub fn with_task_after_input(mut self, name: &str) -> Self {
        let tasks = Arc::get_mut(&mut self.tasks).expect("set task tools before the server is cloned");
        tasks.tools.insert(name.to_owned(), tasks::TaskSupport::Required);
        tasks.gathering.insert(name.to_owned());
        self
    }

    /// Whether tool `name` is served as a task.
    pub(crate) fn is_task_tool(&self, name: &str) -> bool {
        !self.tasks.tools.is_empty() && self.tasks.tools.contains_key(name)
    }

    /// Log messages of tools (`Context::log`) at `level` and above are sent to a client that set
    /// no level of its own (default: none are sent until the client sets a level). A stateless
    /// HTTP server forgets `logging/setLevel` between requests, so this is the level its 2025
    /// clients get.
    #[must_use]
    pub fn with_log_level(mut self, level: LogLevel) -> Self {
        self.default_level = Some(level);
        self
    }

    /// Lets tools ask the client from inside a call ([`Context::create_message`],
    /// [`Context::sample`], [`Context::elicit`]): the transports then hand every `tools/call`
    /// to rmcp's service, whose peer carries a request to the client, instead of answering a
    /// plain call themselves. Without it, a tool called on a direct path is answered
    /// [`crate::ClientError::Unavailable`].
    #[must_use]
    pub fn with_client_requests(mut self) -> Self {
        self.asks_client = true;
        self
    }

    /// `tools/list` answers `"ttlMs": ms` (SEP-2549, MCP 2026-07-28 "Caching"): a client may
    /// keep the list that many milliseconds before asking again (default `0`: ask each time).
    /// Set it when the toolbox does not change while the server runs. The lists and reads of
    /// [`catalog`] carry it too, with no `cacheScope` of their own: rmcp answers `private` on
    /// 2026-07-28, right for a read that may answer per caller.
    #[must_use]
    pub fn with_ttl_ms(mut self, ms: u64) -> Self {
        self.ttl_ms = Some(ms);
        self
    }

    /// Seals the `requestState` of the input-required results of tools that ask their client on
    /// 2026-07-28 ([`crate::Context::ask`]) with `key` (HMAC-SHA256) instead of a key random to
    /// this process: replicas that share it accept each other's states.
    #[must_use]
    pub fn with_input_state_key(mut self, key: [u8; 32]) -> Self {
        self.input_key = Arc::new(key);
        self
    }

    /// Calls made without a verified caller (every call over stdio, where MCP's authorization
    /// spec leaves a local server's caller to its configuration) are made by `caller`.
    #[must_use]
    pub fn with_caller(mut self, caller: Caller) -> Self {
        self.caller = Arc::new(caller);
        self
    }

    /// Serves the toolbox on `surface` ([`Toolbox::on`]): `tools/list` lists only the tools it
    /// shows, a call to a hidden one is answered exactly as a name no tool has (`-32602`, the
    /// same sentence over the visible names), calls are made on its name, and a caller without
    /// its scopes (or without a tenant where it needs one) is refused `FORBIDDEN`.
    ///
    /// A name alone (`with_surface("mcp")`, the default name) is a public surface of that name
    /// ([`crate::call::Surface::public`]): every tool but T4 ones. Over HTTP, `McpHttp::with_surface`
    /// also checks the surface's scopes and tenant per request, before the body is read.
    #[must_use]
    pub fn with_surface(mut self, surface: impl Into<crate::call::Surface>) -> Self {
        let surface = surface.into();
        self.toolbox = Arc::new(self.toolbox.on(&surface));
        self.surface = Arc::from(surface.name());
        self
    }

    /// The [`Context`] of one request: the caller the transport verified (an HTTP auth hook
    /// puts it in the request's extensions), else this server's configured caller; the surface;
    /// the protocol version.
    fn context(&self, context: &RequestContext<RoleServer>) -> Context {
        let verified = verified_caller(&context.extensions);
        let caller = verified.unwrap_or_else(|| Caller::clone(&self.caller));
        #[cfg(feature = "http")]
        let caller = match context.extensions.get::<axum::http::request::Parts>() {
            Some(parts) => crate::http::with_peer(caller, &parts.extensions),
            None => caller,
        };
        let cx = Context::on_surface(caller, &self.surface);
        match context.protocol_version() {
            Some(v) => cx.with_protocol_version(v.as_str()),
            None => cx,
        }
    }

    /// The [`Context`] of a request served without rmcp (the Streamable HTTP endpoint's direct
    /// `tools/call`): the caller the auth hook put in the request's extensions, else this
    /// server's configured caller; the surface; `version`.
    #[cfg(feature = "http")]
    fn http_context(&self, extensions: &axum::http::Extensions, version: &str) -> Context {
        let caller = extensions.get::<Caller>().cloned().unwrap_or_else(|| Caller::clone(&self.caller));
        let caller = crate::http::with_peer(caller, extensions);
        Context::on_surface(caller, &self.surface).with_protocol_version(version)
    }

    /// The level a request's log messages are sent at: on 2026-07-28 its `_meta`
    /// `io.modelcontextprotocol/logLevel`, else what the client set with `logging/setLevel` in
    /// this session, else the server's default.
    fn log_level(&self, context: &RequestContext<RoleServer>) -> Option<LogLevel> {
        context
            .meta
            .log_level()
            .map(notify::from_rmcp)
            .or_else(|| *self.level.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
            .or(self.default_level)
    }

    /// Where a request's progress and log messages go: to its client, unless the client cannot
    /// receive them on this reply (an HTTP client that does not accept `text/event-stream`).
    fn notifier(
        &self,
        context: &RequestContext<RoleServer>,
        round: Option<Arc<input_required::Round>>,
    ) -> Arc<notify::Notifier> {
        let silent = refuses_event_stream(&context.extensions);
        notify::Notifier::new(context, self.log_level(context), round, silent)
    }

    /// The toolbox this server answers from.
    #[must_use]
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// Whether tool `name` answers [`content::Contents`] (its blocks follow the envelope's).
    pub(crate) fn answers_blocks(&self, name: &str) -> bool {
        !self.block_tools.is_empty() && self.block_tools.contains(name)
    }
}

/// The names of the tools of `toolbox` whose `outputSchema` says they answer
/// [`content::Contents`].
fn block_tools(toolbox: &Toolbox) -> std::collections::HashSet<String> {
    toolbox
        .tools()
        .iter()
        .filter(|tool| content::answers_blocks(&tool.output_schema(None)))
        .map(|tool| tool.name().to_owned())
        .collect()
}

/// The caller an HTTP auth hook verified for this request, if any.
fn verified_caller(extensions: &Extensions) -> Option<Caller> {
    if let Some(caller) = extensions.get::<Caller>() {
        return Some(caller.clone());
    }
    #[cfg(feature = "http")]
    if let Some(parts) = extensions.get::<axum::http::request::Parts>() {
        return parts.extensions.get::<Caller>().cloned();
    }
    None
}

/// Whether the HTTP client of this request does not accept an event stream.
fn refuses_event_stream(extensions: &Extensions) -> bool {
    if extensions.get::<NoEventStream>().is_some() {
        return true;
    }
    #[cfg(feature = "http")]
    if let Some(parts) = extensions.get::<axum::http::request::Parts>() {
        return parts.extensions.get::<NoEventStream>().is_some();
    }
    false
}

/// The exact `arguments` text a transport of this module read for this request, if any.
fn raw_arguments(extensions: &Extensions) -> Option<frame::RawArguments> {
    if let Some(raw) = extensions.get::<frame::RawArguments>() {
        return Some(raw.clone());
    }
    #[cfg(feature = "http")]
    if let Some(parts) = extensions.get::<axum::http::request::Parts>() {
        return parts.extensions.get::<frame::RawArguments>().cloned();
    }
    None
}

impl McpServer {
    /// The methods this server answers, as a method-not-found error lists them (a request of
    /// one of them that reaches the catch-all had params rmcp could not read): the opening of
    /// the protocol version the request came under (`initialize` for a 2025 session,
    /// `server/discover` from 2026-07-28), and the methods of the capabilities
    /// [`get_info`](ServerHandler::get_info) declares.
    fn served_methods(&self, stateless: bool) -> Vec<&'static str> {
        let mut served =
            vec![if stateless { "server/discover" } else { "initialize" }, "ping", "tools/list", "tools/call"];
        // `logging/setLevel` is removed on 2026-07-28 (SEP-2577: a request's `_meta` carries
        // its log level), where the conformance suite expects -32601 (with 404) for it.
        if !stateless {
            served.push("logging/setLevel");
        }
        if !self.resources.is_empty() {
            served.extend(["resources/list", "resources/templates/list", "resources/read"]);
        }
        if !self.prompts.is_empty() {
            served.extend(["prompts/list", "prompts/get"]);
        }
        if !self.tasks.tools.is_empty() {
            served.extend(["tasks/get", "tasks/cancel", "tasks/update"]);
        }
        served
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        #[allow(deprecated)] // logging: SEP-2577 deprecates it on 2026-07-28; 2025 clients use it
        let capabilities = if self.tasks.tools.is_empty() {
            ServerCapabilities::builder().enable_logging().enable_tools().build()
        } else {
            ServerCapabilities::builder().enable_logging().enable_tools().enable_tasks().build()
        };
        let mut capabilities = capabilities;
        if !self.resources.is_empty() {
            capabilities.resources = Some(rmcp::model::ResourcesCapability::default());
        }
        if !self.prompts.is_empty() {
            capabilities.prompts = Some(rmcp::model::PromptsCapability::default());
        }
        ServerConfig::new(capabilities).with_server_info(Implementation::new("envelope", env!("CARGO_PKG_VERSION")))
    }

    /// `resources/list`: the declared resources the surface shows ([`catalog`]).
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        let listed = rmcp::model::ListResourcesResult::with_all_items(self.resources.list(&self.toolbox));
        Ok(match self.ttl_ms {
            Some(ms) => listed.with_ttl_ms(ms),
            None => listed,
        })
    }

    /// `resources/templates/list`: the declared templates the surface shows ([`catalog`]).
    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, ErrorData> {
        let listed =
            rmcp::model::ListResourceTemplatesResult::with_all_items(self.resources.list_templates(&self.toolbox));
        Ok(match self.ttl_ms {
            Some(ms) => listed.with_ttl_ms(ms),
            None => listed,
        })
    }

    /// `resources/read`: the contents of the shown resource (or template) of the URI, read by
    /// its function for the request's caller; a URI of none (or of a hidden one) is `-32602`
    /// with `data.uri` (SEP-2164). See [`catalog`].
    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        let contents = self.resources.read(&self.toolbox, self.context(&context), &request.uri).await?;
        let result = rmcp::model::ReadResourceResult::new(contents);
        Ok(match self.ttl_ms {
            Some(ms) => result.with_ttl_ms(ms),
            None => result,
        }
        .into())
    }

    /// `prompts/list`: the declared prompts the surface shows ([`catalog`]).
    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, ErrorData> {
        let listed = rmcp::model::ListPromptsResult::with_all_items(self.prompts.list(&self.toolbox));
        Ok(match self.ttl_ms {
            Some(ms) => listed.with_ttl_ms(ms),
            None => listed,
        })
    }

    /// `prompts/get`: the shown prompt's messages from its function, for the request's caller;
    /// an unknown (or hidden) name is `-32602` with `data.name`. See [`catalog`].
    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, ErrorData> {
        let cx = self.context(&context);
        Ok(self.prompts.get(&self.toolbox, cx, &request.name, request.arguments.as_ref()).await?.into())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.toolbox.tools().iter().map(|tool| {
            let mut listed = rmcp::model::Tool::new(
                tool.name().to_owned(),
                tool.description().to_owned(),
                Arc::new(tool.input_schema()),
            );
            listed.title = tool.title().map(str::to_owned);
            listed.output_schema = Some(Arc::new(tool.output_schema(self.toolbox.code_prefix())));
            let a = tool.spec().annotations;
            if a != envelope_core_annotations_none() {
                listed.annotations = Some(rmcp::model::ToolAnnotations::from_raw(
                    None,
                    a.read_only_hint,
                    a.destructive_hint,
                    a.idempotent_hint,
                    a.open_world_hint,
                ));
            }
            if let Some(support) = self.tasks.tools.get(tool.name()) {
                let mut meta = serde_json::Map::new();
                meta.insert(
                    rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                    serde_json::json!({"taskSupport": support.as_str()}),
                );
                listed.meta = Some(rmcp::model::MetaObject(meta));
            }
            listed
        });
        let mut listed = ListToolsResult::with_all_items(tools.collect());
        if let Some(ms) = self.ttl_ms {
            listed.ttl_ms = Some(ms);
        }
        Ok(listed)
    }

    /// Answers from the exact `arguments` text when the transport read it (see the
    /// [module documentation](self)), else from the object rmcp parsed.
    ///
    /// The tool's [`Context`] is cancelled when the client sends `notifications/cancelled` for
    /// the request (rmcp then sends no reply), when the HTTP connection drops, and when this
    /// call's future is dropped (the server shutting down); a sync body sees it with
    /// `cx.is_cancelled()`. Its progress and log messages go to the client as notifications
    /// before the reply.
    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = match raw_arguments(&context.extensions) {
            Some(raw) => raw.0,
            None => request.arguments.take().map(|object| Value::Object(object).to_string().into()),
        };
        if let Some(support) = self.tasks.tools.get(request.name.as_ref()).copied() {
            let declared = context.client_capabilities().is_some_and(|c| c.supports_tasks());
            if declared {
                let cx = self.context(&context);
                let capabilities = context.client_capabilities();
                let stateless =
                    context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
                let answers = capabilities
                    .as_ref()
                    .is_some_and(|c| c.sampling.is_some() || c.elicitation.is_some() || c.roots.is_some());
                if stateless && answers && self.tasks.gathering.contains(request.name.as_ref()) {
                    return self
                        .tasks
                        .gather(&self.toolbox, cx, capabilities, &request, arguments, &*self.input_key)
                        .await;
                }
                let session = task_notices::session_peer(&context);
                return match self
                    .tasks
                    .start(&self.toolbox, cx, capabilities, &request.name, arguments, session)
                    .await?
                {
                    Ok(created) => Ok(CallToolResponse::Task(created)),
                    Err(envelope) => Ok(call_tool::call_tool_result(&envelope).into()),
                };
            }
            if support == tasks::TaskSupport::Required {
                return Err(tasks::missing_extension());
            }
        }
        // A stateless 2026-07-28 call asks its client through input-required results.
        let stateless =
            context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        // Only a client that can answer something gets a round; any other is refused -32021 at
        // its first ask.
        let answers = context
            .client_capabilities()
            .is_some_and(|c| c.sampling.is_some() || c.elicitation.is_some() || c.roots.is_some());
        let round = if stateless && answers && !mrtr::applies(&self.toolbox, &request.name, &context) {
            let state = request.request_state.as_deref();
            Some(input_required::Round::open(&*self.input_key, &request.name, state, request.input_responses.as_ref())?)
        } else {
            None
        };
        let notifier = self.notifier(&context, round.clone());
        let cx = self.context(&context).with_sink(Arc::clone(&notifier) as Arc<dyn crate::context::Sink>);
        let call = async {
            if mrtr::applies(&self.toolbox, &request.name, &context) {
                return mrtr::call(&self.toolbox, &cx, &request, arguments).await;
            }
            let envelope = call_tool::call_with_raw_arguments(&self.toolbox, &cx, &request.name, arguments).await?;
            if self.answers_blocks(&request.name) {
                return Ok(call_tool::call_tool_result_with_blocks(&envelope).into());
            }
            Ok(call_tool::call_tool_result(&envelope).into())
        };
        tokio::pin!(call);
        // Declared after the call, so dropped before it: a body dropped with this future (a
        // runtime shutting down) finds its call already cancelled.
        let guard = cx.cancel_on_drop();
        let cancelled = async {
            context.ct.cancelled().await;
            // Before the call's future is dropped, so the body's drop sees it cancelled.
            cx.cancel();
        };
        let waiting = async {
            match &round {
                Some(round) => round.wait().await,
                None => std::future::pending().await,
            }
        };
        let result = tokio::select! {
            biased;
            result = &mut call => Some(result),
            () = cancelled => None,
            // The tool asked what this round has no answer for: the round ends here.
            () = waiting => {
                cx.cancel();
                guard.disarm();
                notifier.finish().await;
                let round = round.as_ref().expect("waiting only with a round");
                if let Some(malformed) = round.malformed() {
                    return Err(malformed);
                }
                return Ok(round.input_required(&*self.input_key)?.into());
            }
        };
        let Some(result) = result else {
            // Cancelled (`notifications/cancelled`, a dropped connection): no reply goes out.
            return Err(ErrorData::invalid_request("the call was cancelled", None));
        };
        guard.disarm();
        cx.flush();
        notifier.finish().await;
        if let Some(capability) = notifier.missing_capability() {
            return Err(input_required::missing_capability(capability));
        }
        if let Some(malformed) = round.as_ref().and_then(|r| r.malformed()) {
            return Err(malformed);
        }
        result
    }

    /// `tasks/get` (SEP-2663): the caller's task ([`tasks`]); another caller's id, or an
    /// expired one, is `-32602` as an unknown one.
    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        self.tasks.get(&self.toolbox, &self.context(&context), &request.task_id).await
    }

    /// `tasks/cancel` (SEP-2663): the empty acknowledgement; a working task settles to
    /// `cancelled` and its body's [`Context`] is cancelled.
    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel(&self.toolbox, &self.context(&context), &request.task_id).await
    }

    /// `tasks/update` (SEP-2663): the answers to a task's input requests (the requests its
    /// body made with [`Context::elicit`] and the like), then the empty acknowledgement;
    /// `-32602` for an unknown id.
    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let responses = serde_json::to_value(&request.input_responses).ok();
        let responses = match responses {
            Some(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        self.tasks.update(&self.toolbox, &self.context(&context), &request.task_id, &responses).await
    }

    /// `logging/setLevel` (MCP 2025-11-25, "Utilities / Logging"): tools' log messages at
    /// `level` and above are sent to this client from now on, for this session (on stdio, the
    /// process); over stateless HTTP for this request alone, which has nothing to log, so the
    /// server's default level ([`McpServer::with_log_level`]) or a 2026-07-28 request's `_meta`
    /// `io.modelcontextprotocol/logLevel` decides there.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        *self.level.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(notify::from_rmcp(request.level));
        Ok(())
    }

    /// rmcp reads `params.arguments` as an object; on a transport that is not this module's, a
    /// `tools/call` whose `arguments` is anything else fails that shape and arrives here, as
    /// the catch-all `CustomRequest` of its request union, instead of at [`Self::call_tool`].
    /// Left to rmcp, it would answer `-32601` (method not found) with the message `tools/call`.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != "tools/call" {
            let stateless =
                context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
            let mut served = self.served_methods(stateless);
            let method = frame::shorten(&request.method);
            // A method served whose params rmcp could not read arrives here too.
            if served.contains(&request.method.as_str()) {
                let message = format!("{method}: params do not have the shape MCP defines for it");
                return Err(ErrorData::invalid_params(message, None));
            }
            let last = served.pop().unwrap_or_default();
            let message = format!("method not found: {method}; this server answers {} and {last}", served.join(", "));
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, message, None));
        }
        let params = request.params.unwrap_or_default();
        let name = params.get("name").and_then(Value::as_str).ok_or_else(|| frame::wrong_name(params.get("name")))?;
        // This module's transports took the text of `arguments` out of the params (and refuse a
        // `tools/call` rmcp cannot read before it gets here); another transport left them in.
        let arguments = match raw_arguments(&context.extensions) {
            Some(raw) => raw.0,
            None => params.get("arguments").filter(|a| !a.is_null()).map(|a| a.to_string().into()),
        };
        let cx = self.context(&context);
        let mut result = call_tool::call_tool_result(
            &call_tool::call_with_raw_arguments(&self.toolbox, &cx, name, arguments).await?,
        );
        // rmcp shapes a custom result for no version: `resultType` is 2026-07-28's alone.
        if context.protocol_version().is_none_or(|v| v.as_str() < ProtocolVersion::V_2026_07_28.as_str()) {
            result.result_type = None;
        }
        let result = serde_json::to_value(result)
            .map_err(|_| ErrorData::internal_error("the tools/call result did not serialize", None))?;
        Ok(CustomResult::new(result))
    }
}

/// 32 random bytes (a key for this process).
fn random_key() -> [u8; 32] {
    let mut key = [0u8; 32];
    if getrandom::fill(&mut key).is_err() {
        // No system randomness: a key from the clock and the address space, still this
        // process's own.
        let seed = format!("{:?}{:p}", std::time::SystemTime::now(), &key);
        key.copy_from_slice(&<sha2::Sha256 as sha2::Digest>::digest(seed.as_bytes()));
    }
    key
}

fn envelope_core_annotations_none() -> crate::spec::Annotations {
    crate::spec::Annotations::default()
}
