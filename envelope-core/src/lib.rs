//! # envelope
//!
//! Declare the tools language models call as plain Rust functions. From one declaration —
//! `#[tool]` on the function, `#[validate(...)]` on its parameters — envelope generates the
//! argument reading, the `inputSchema`, and a wire contract in which every outcome is one JSON
//! [`Envelope`]:
//!
//! ```
//! use envelope_core::{tool, Toolbox};
//! use serde_json::json;
//!
//! /// Lists the most expensive queries of the last hours.
//! #[tool(read_only)]
//! fn get_top_queries(
//!     /// How far back to look, in hours.
//!     #[validate(range = 1..=720)]
//!     hours_back: u32,
//!     #[validate(choices = ["query_hash", "database", "application"])]
//!     group_by: String,
//!     /// How many rows to return.
//!     #[validate(range = 1..=100, default = 10)]
//!     top: u32,
//! ) -> Vec<String> {
//!     vec![format!("{group_by} over {hours_back}h, top {top}")]
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let toolbox = Toolbox::new().with(get_top_queries::tool());
//! let env = toolbox
//!     .call("get_top_queries", Some(&json!({"hours_back": 0, "group_by": "databse"})))
//!     .await
//!     .unwrap();
//! assert_eq!(env.message().unwrap(),
//!     "hours_back: 0 is out of range; accepted: a whole number from 1 to 720. \
//!      Send a value from 1 to 720.\n\
//!      group_by: \"databse\" is not an accepted value; accepted: one of \"query_hash\", \
//!      \"database\", \"application\". Did you mean \"database\"? Send \"database\".");
//! # });
//! ```
//!
//! ## Reading arguments
//! Arguments absent or `null` read as `{}`. Every problem becomes part of one refusal (status
//! `invalid`, code `VALIDATION_ERROR`): a missing required parameter, a name that is not a
//! parameter (with the closest name), a wrong JSON type, a value out of range (both bounds and
//! whether each is included), a value not among the choices (every choice, the closest
//! offered). JSON `null` for a parameter means the same as leaving it out.
//!
//! Lax by default, for lossless coercions only: `"48"` for an integer, `"0.5"` for a number,
//! `"true"`/`"false"` for a boolean. `#[tool(strict)]` refuses them instead, saying to send the
//! JSON type itself. A whole float (`48.0`) is an integer to JSON Schema, and to both modes.
#![warn(missing_docs)]

// The layers, lowest first; each uses only the ones above it in this list
// (scripts/module_cycles.py --layers checks it; README "Layout" draws it).
mod call;
mod client;
pub mod http;
#[cfg(feature = "rmcp")]
pub mod mcp;
mod outcome;
pub mod providers;
mod read;
mod schema;
pub mod spec;
mod words;

// The paths of the modules before they moved into their layer's folder.
pub use call::guard::{confirm, store};
pub use call::{audit, policy};
use call::{surface, toolbox};
use outcome::{code, digest, envelope, fault, refusal, wire};
use read::{args, context, cx, input, readers, rules, sent};
use spec::formats;
pub use spec::rate;
use words::{budget, render};

pub use args::{Cx, FromArg, Numeric, Path};
pub use code::{Code, Retry, Status, codes};
pub use context::{Caller, Cancelled, Context, LogLevel};
pub use envelope::{Confirmation, Envelope, Warned};
/// Derives [`ToolError`](trait@ToolError) for an error enum whose variants are each a refusal
/// or a fault, built from parts: there is still no free-form failure string.
///
/// - `#[refuse(code = C, parameter = "...", reason = "...", accepted = "...", fix = "...")]`: the
///   caller must change the request (`C`'s status is `invalid`). The variant has a field
///   `rejected` holding the value as sent (any `Serialize`; the refusal quotes it), unless the
///   refusal is marked `secret` (the value is then never shown). `reason` is optional (default
///   `is not accepted`); a field named `suggestion` (any `Display`) becomes the refusal's
///   `Did you mean "…"?` and `hints.suggestion`.
/// - `#[fault(code = C, operation = "...")]`: the server failed while doing `operation`
///   (`C`'s status is `error`); the sentence is `<operation> failed: <meaning>. <Action>.`
///
/// The texts may interpolate the variant's own fields by name, `{field}` (any `Display`; `{{`
/// and `}}` are literal braces), and nothing else; a text that is one field and nothing more
/// (`fix = "{fix}"`) is refused as the free-form string it is. `CODES` is the variants' codes,
/// without repeats, in declaration order: they become the tool's `error_codes` in the manifest.
/// It is a compile error to leave a variant without `#[refuse]` or `#[fault]`, to give a refusal
/// no `rejected` field, to write a `message = "..."`, to name an unknown `{field}`, or to use a
/// code of the wrong status or without a meaning and an action.
///
/// ```
/// use envelope_core::{Code, Status, ToolError, codes};
///
/// const DOMAIN_TAKEN: Code = Code::new("DOMAIN_TAKEN", Status::Invalid)
///     .with_meaning("the domain is registered to someone else")
///     .with_action("choose another domain name")
///     .with_http_status(409);
///
/// #[derive(ToolError)]
/// enum RegisterError {
///     #[refuse(code = DOMAIN_TAKEN, parameter = "domain", reason = "is registered already",
///              accepted = "a domain nobody holds", fix = "Choose another domain, like {free}.")]
///     Taken { rejected: String, free: String },
///     #[fault(code = codes::BACKEND_ERROR, operation = "reading the registry of {zone}")]
///     Registry { zone: &'static str },
/// }
///
/// assert_eq!(RegisterError::CODES, [DOMAIN_TAKEN, codes::BACKEND_ERROR]);
/// let taken = RegisterError::Taken { rejected: "example.com".into(), free: "example.org".into() };
/// assert_eq!(
///     taken.into_envelope().message().unwrap(),
///     "domain: \"example.com\" is registered already; accepted: a domain nobody holds. \
///      Choose another domain, like example.org."
/// );
/// let down = RegisterError::Registry { zone: ".com" }.into_envelope();
/// assert_eq!(down.error_code(), Some(codes::BACKEND_ERROR));
/// assert!(down.message().unwrap().starts_with("reading the registry of .com failed: "));
/// ```
///
/// A `#[tool]` returns `Result<T, RegisterError>` like any other tool error type.
pub use envelope_macros::ToolError;
/// Declares a tool from a function: `#[tool]` on a free function (sync or `async`) whose
/// parameters carry `#[validate(...)]` rules. It keeps the function as written and adds a
/// type of the same name whose `tool()` gives the declaration for a [`Toolbox`].
///
/// The function's doc comment is the tool's `description`; a parameter's doc comment (or
/// `desc = "..."`) is its schema `description`. The name callers use is the parameter's name
/// (or `rename = "..."`, or the tool's `rename_all = "camelCase"`).
///
/// Flags on `#[tool(...)]`: `strict` (no lax coercions), `name = "..."`, `title = "..."`,
/// `rename_all = "..."` (serde's words), the MCP annotations `read_only`, `destructive`,
/// `idempotent`, `open_world` (each also `= false`; absent is an absent hint), `timeout_ms = N`
/// (a call past N milliseconds answers a `TIMEOUT` fault: an `async fn` is dropped (feature
/// `tokio`), a sync body sees its [`Context`] cancelled and the server answers at the deadline),
/// `output_schema = path` (a `fn() -> serde_json::Value` giving the JSON Schema of `data`;
/// without it, with feature `schemars`, a return type implementing `schemars::JsonSchema` gives
/// it, every subschema inlined),
/// `confirm = preview_fn` (a valid call runs only `preview_fn`, which takes the same parameters
/// by reference, and `&self` in `#[tools]`, and returns `Result<impl Serialize, E>` with `E` a
/// [`ToolError`]; the call answers `needs_confirmation` and `confirm_action` runs it once), and
/// `idempotency_key` (adds the optional `idempotency_key` parameter, 8 to 64 characters: a
/// replay answers the first envelope). See [`confirm`] for both. `scopes = ["notes:write"]`:
/// the OAuth scopes a caller needs, every one (else `FORBIDDEN`, before any argument is read;
/// see [`Caller`]); `tier = 1..=4`: T1 read to T4 destructive (undeclared: `read_only` T1,
/// `destructive` T3, else T2; T4 only declared, and never shown on a public [`Surface`]).
/// Both are in the manifest; see [`spec::Tier`] and [`Toolbox::on`].
///
/// A parameter of type [`Context`] (`cx: Context` or `cx: &Context`, recognised by the last
/// segment of its type's path) is the call itself, not an argument: it is in no schema, takes no
/// `#[validate]`, and at most one is allowed. A confirm tool's preview function then takes
/// `&Context` at the same place.
///
/// Rules in `#[validate(...)]`, comma-separated:
///
/// | rule | applies to | JSON Schema |
/// |---|---|---|
/// | `range = 1..=720` (`1..721`, `1..`, `..=720`, floats `0.0..1.0`) | integers, floats | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` |
/// | `choices = ["a", "b"]`, `ignore_case` | strings, integers | `enum` |
/// | `length = 1..=120` | strings (characters), `Vec` (items) | `minLength`/`maxLength`, `minItems`/`maxItems` |
/// | `byte_length = ..=64` | strings (UTF-8 bytes) | stated in `description` |
/// | `pattern = "^[a-z]+$"`, `example = "abc"` | strings | `pattern` |
/// | `format = "date"` (`date-time`, `uuid`, `email`, `uri`) | strings | `format` |
/// | `each(...)` | `Vec` items | `items` |
/// | `default = 10` | non-`Option` integer, float, bool, string | `default`, not `required` |
/// | `secret` | any | `writeOnly` |
/// | `requires = "other"`, `requires(other = "V", when = "W")`, `excludes = "other"` | any | `allOf` of `if`/`then`, `not` |
/// | `fix = "..."`, `reason = "..."` | any | — |
///
/// A rule that cannot hold, a rule on a type it does not apply to, an unknown rule, a default
/// that breaks its own rules, an invalid regex, and a free-form `message = "..."` are compile
/// errors at the offending token.
///
/// The function returns `T: Serialize` or `Result<T, E>` with `E` a [`ToolError`] ([`Refusal`],
/// [`Fault`], [`ToolFailure`], or a `#[derive(ToolError)]` enum). A free-form error type
/// (`String`, `&str`, `Box<dyn Error>`, `anyhow`) is a compile error.
///
/// ```
/// use envelope_core::{tool, Toolbox};
///
/// /// Says hello.
/// #[tool(read_only, rename_all = "camelCase")]
/// fn greet(
///     /// Who to greet.
///     #[validate(length = 1..=40)]
///     person_name: String,
///     #[validate(choices = ["en", "fr"], ignore_case, default = "en")]
///     language: String,
/// ) -> String {
///     match language.as_str() {
///         "fr" => format!("Bonjour, {person_name}"),
///         _ => format!("Hello, {person_name}"),
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let toolbox = Toolbox::new().with(greet::tool());
/// let env = toolbox.call("greet", Some(&serde_json::json!({"personName": "Ada", "language": "FR"}))).await.unwrap();
/// assert_eq!(env.data().unwrap(), "Bonjour, Ada");
/// # });
/// ```
pub use envelope_macros::tool;
pub use read::kinds::{Measured, Sequence, Textual};
pub use surface::{Surface, Visible};

/// Registers the `#[tool]` methods of an impl block as tools of a shared state: each takes
/// `&self`, and the toolbox holds the state in an `Arc`. Implements [`ToolSet`].
///
/// ```
/// use std::sync::{Arc, atomic::{AtomicU64, Ordering}};
/// use envelope_core::{tools, Toolbox};
///
/// #[derive(Default)]
/// struct Counter(AtomicU64);
///
/// #[tools]
/// impl Counter {
///     /// Adds to the counter and returns the new total.
///     #[tool]
///     fn add(&self, #[validate(range = 1..=100)] by: u64) -> u64 {
///         self.0.fetch_add(by, Ordering::Relaxed) + by
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let toolbox = Toolbox::new().with_state(Arc::new(Counter::default()));
/// let env = toolbox.call("add", Some(&serde_json::json!({"by": 5}))).await.unwrap();
/// assert_eq!(env.data().unwrap(), 5);
/// # });
/// ```
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

pub use client::{Reader, Reading, Reply, read};
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
pub use fault::Fault;
pub use rate::RateLimit;
pub use refusal::{Complete, No, Problem, Refusal, RefusalBuilder, Yes};
pub use toolbox::{Tool, ToolSet, Toolbox, UnknownTool};
pub use wire::WireFormat;

/// A tool's failure that is either a refusal (`invalid`) or a fault (`error`). Return
/// `Result<T, ToolFailure>` when a tool can do both; `?` converts either into it.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolFailure {
    /// The request as given cannot be served.
    Refused(Refusal),
    /// The request was valid and the server failed.
    Failed(Fault),
}

impl From<Refusal> for ToolFailure {
    fn from(r: Refusal) -> Self {
        ToolFailure::Refused(r)
    }
}

impl From<Fault> for ToolFailure {
    fn from(f: Fault) -> Self {
        ToolFailure::Failed(f)
    }
}

/// An error type a tool may return: each failure is a refusal or a fault built from parts, never
/// a free-form sentence, and the type declares every code it can produce (they go into the
/// tool's `error_codes`). Implemented by [`Refusal`] (`VALIDATION_ERROR`), [`Fault`]
/// (`BACKEND_ERROR`, `TIMEOUT`, `NOT_IMPLEMENTED`) and [`ToolFailure`] (both).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool error type",
    label = "a tool returns `Result<T, Refusal>`, `Result<T, Fault>`, `Result<T, ToolFailure>`, or `Result<T, E>` with `#[derive(ToolError)] enum E`",
    note = "a free-form error string would reach the model without the rejected value, the accepted set and the fix"
)]
pub trait ToolError {
    /// Every code `into_envelope` can produce.
    const CODES: &'static [Code];
    /// The envelope for this failure.
    fn into_envelope(self) -> Envelope;
}

impl ToolError for Refusal {
    const CODES: &'static [Code] = &[codes::VALIDATION_ERROR];
    fn into_envelope(self) -> Envelope {
        self.into()
    }
}

impl ToolError for Fault {
    const CODES: &'static [Code] = &[codes::BACKEND_ERROR, codes::TIMEOUT, codes::NOT_IMPLEMENTED];
    fn into_envelope(self) -> Envelope {
        self.into()
    }
}

impl ToolError for ToolFailure {
    const CODES: &'static [Code] =
        &[codes::VALIDATION_ERROR, codes::BACKEND_ERROR, codes::TIMEOUT, codes::NOT_IMPLEMENTED];
    fn into_envelope(self) -> Envelope {
        match self {
            ToolFailure::Refused(r) => r.into(),
            ToolFailure::Failed(f) => f.into(),
        }
    }
}

/// What the code `#[tool]` and the derives generate calls. Versioned by envelope's release
/// (0.1.0: `010`), with envelope-macros pinned to the exact same version: an expansion from
/// another release names a module that does not exist, a loud error instead of a quiet
/// mismatch (thiserror's `__private{PATCH}`).
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private010;
