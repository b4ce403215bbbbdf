//! Calling a tool: the tool value, the toolbox (its registry and settings), the call pipeline
//! every call enters by (`pipeline/`: admission, reading, policy, running, finishing), the
//! surfaces and policy that decide who may call what, the audit trail, and the guard of writes
//! that run once. Above `read/` and `schema.rs`, beneath the adapters (`http/`, `mcp/`,
//! `providers/`), which build a call and hand it to the pipeline.

// Where the servers run sync tool bodies: a bounded pool of threads beside the runtime.
#[cfg(any(feature = "rmcp", feature = "http"))]
pub(crate) mod bodies;
// The audit trail: one record per governed call.
pub mod audit;
// The `confirm_action` tool a toolbox adds for its confirm tools.
mod confirm_action;
// The guard of writes that run once: confirmation, idempotency keys, the store they wait in.
pub mod guard;
// The manifest: every tool's declaration and the codes it can emit, as one JSON document.
pub(crate) mod manifest;
// The policy hooks: may this caller make this call, act for this tenant.
pub mod policy;
// Surfaces: where a toolbox is served, with which tools, scopes and tenant rule.
pub(crate) mod surface;
// The tool value: what `#[tool]` generated for a function.
pub(crate) mod tool;
// The registry: a toolbox's tools, found by name; the answer to a name it does not show.
pub(crate) mod registry;
// A toolbox's settings: the `with_*` builders.
mod settings;
// The confirmation API: `confirm`, `check_pending`, the tools an approver may run.
mod confirm_api;
// The call pipeline, one door: admission, reading, policy, running, finishing.
pub(crate) mod pipeline;
// The one catch-unwind future.
pub(crate) mod unwind;

pub use registry::UnknownTool;
pub use surface::{Surface, Visible};
pub use tool::ToolSet;
