#![doc = include_str!("../docs/crate.md")]
#![warn(missing_docs)]

// The layers, lowest first: each module uses only the ones before it (scripts/module_cycles.py
// --layers checks it; README "Layout" draws it).
// Words: quoting, the one cut of a long text, lists, did-you-mean, numbers, budgets.
mod words;

// Outcomes: the envelope, codes, refusals, faults, wire formats, and what a call gives.
pub mod outcome;

// Declarations as data: a tool's parameters, rules, formats and rate limits.
pub mod spec;

// The call: who calls (`Caller`), and the call a tool body sees (`Context`): its id, surface,
// cancellation and deadline, progress and log messages, what it asks its client.
pub mod context;

// Reading a call's arguments, value by value.
pub mod read;

// The `inputSchema` and every `outputSchema` of a tool.
mod schema;

// Calling a tool: the toolbox, surfaces, policy, audit, and the guard of writes run once.
pub mod call;

// The HTTP surfaces: the status rule, transport errors, axum layers and the tool router.
pub mod http;

// MCP: the rmcp adapter, over stdio and Streamable HTTP.
#[cfg(feature = "rmcp")]
pub mod mcp;

// Tool definitions in model providers' dialects, and their calls.
pub mod providers;

// The consumer's side: classify any reply text by its fields, never by its prose.
pub mod client;

pub use call::registry::Toolbox;
pub use call::tool::Tool;
pub use context::{Caller, ClientAsk, ClientError, Context, ElicitAction, Elicitation};
#[doc = include_str!("../docs/tool_error.md")]
pub use envelope_macros::ToolError;
#[doc = include_str!("../docs/tool.md")]
pub use envelope_macros::tool;
pub use outcome::code::{Code, Status, codes};
pub use outcome::envelope::Envelope;
pub use outcome::failure::ToolError;
pub use outcome::fault::Fault;
pub use outcome::refusal::{Problem, Refusal};
pub use read::args::{FromArg, Reading};

#[doc = include_str!("../docs/tools.md")]
pub use envelope_macros::tools;

/// A parameter type whose accepted values are a unit enum's variants: read without allocating,
/// advertised as `enum` in the schema. Variants are spelled as written, or per
/// `#[choice(rename_all = "snake_case")]` on the enum and `#[choice(rename = "...")]` on a
/// variant. Gives `as_str()` too.
///
/// ```
/// use envelope_core::{tool, Choice, Toolbox};
///
/// #[derive(Choice, Clone, Copy, Debug, PartialEq)]
/// #[choice(rename_all = "snake_case")]
/// enum GroupBy { QueryHash, Database, Application }
///
/// /// Groups.
/// #[tool]
/// fn group(group_by: GroupBy) -> String {
///     group_by.as_str().to_owned()
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let toolbox = Toolbox::new().with(group::tool());
/// let env = toolbox.call("group", Some(&serde_json::json!({"group_by": "databse"}))).await.unwrap();
/// assert_eq!(env.message().unwrap(),
///     "group_by: \"databse\" is not an accepted value; accepted: one of \"query_hash\", \"database\", \
///      \"application\". Did you mean \"database\"? Send \"database\".");
/// # });
/// ```
pub use envelope_macros::Choice;

/// A parameter type read from a JSON object: each named field is a key, with the same
/// `#[validate(...)]` rules as a tool's parameters; refusals name the field by path
/// (`filter.since`). `#[object(rename_all = "camelCase")]` on the struct.
///
/// ```
/// use envelope_core::{tool, Object, Toolbox};
///
/// #[derive(Object)]
/// struct Filter {
///     /// First day, inclusive.
///     #[validate(format = "date")]
///     since: String,
///     #[validate(range = 1..=50, default = 10)]
///     limit: u32,
/// }
///
/// /// Searches.
/// #[tool]
/// fn search(filter: Filter) -> u32 {
///     filter.limit
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let toolbox = Toolbox::new().with(search::tool());
/// let env = toolbox.call("search", Some(&serde_json::json!({"filter": {"since": "yesterday"}}))).await.unwrap();
/// assert_eq!(env.message().unwrap(),
///     "filter.since: \"yesterday\" is not a valid date; accepted: a date as YYYY-MM-DD. \
///      Send a date like \"2026-11-30\".");
/// # });
/// ```
pub use envelope_macros::Object;

/// What the code `#[tool]` and the derives generate calls. Versioned by envelope's release
/// (0.1.0: `010`), with envelope-macros pinned to the exact same version: an expansion from
/// another release names a module that does not exist, a loud error instead of a quiet
/// mismatch (thiserror's `__private{PATCH}`).
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private010;
