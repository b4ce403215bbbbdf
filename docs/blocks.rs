//! The code blocks of `README.md` and of the guide (`docs/guide/*.md`), compiled as doctests: `cargo
//! test --workspace` compiles every ```` ```rust ```` block of them (and runs it, unless it is marked
//! `no_run`), so no block can rot. Their shell and Python blocks are run by `.ci/doc_blocks.py`.
//! Nothing here is a library of any use; its documentation is the pages themselves.
#![doc = include_str!("../README.md")]

#[doc = include_str!("guide/tools-and-rules.md")]
pub mod tools_and_rules {}

#[doc = include_str!("guide/mcp.md")]
pub mod mcp {}

#[doc = include_str!("guide/http.md")]
pub mod http {}

#[doc = include_str!("guide/identity.md")]
pub mod identity {}

#[doc = include_str!("guide/confirmation.md")]
pub mod confirmation {}

#[doc = include_str!("guide/audit-and-limits.md")]
pub mod audit_and_limits {}

#[doc = include_str!("guide/call-context.md")]
pub mod call_context {}

#[doc = include_str!("guide/providers.md")]
pub mod providers {}

#[doc = include_str!("guide/replicas.md")]
pub mod replicas {}

#[doc = include_str!("guide/development.md")]
pub mod development {}
