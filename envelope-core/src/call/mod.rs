//! Calling a tool: the toolbox (the registry and the call pipeline), the surfaces and policy
//! that decide who may call what, the audit trail, and the guard of writes that run once.
//! Above `read/` and `schema.rs`, beneath the adapters (`http/`, `mcp/`, `providers/`).

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
// The tool, the toolbox (the registry) and the call pipeline.
pub(crate) mod toolbox;

pub use surface::{Surface, Visible};
pub use toolbox::{ToolSet, UnknownTool};
