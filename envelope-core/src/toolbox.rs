//! The registry: list tools, call one by name.

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::args;
use crate::envelope::Envelope;
use crate::fault::Fault;
use crate::refusal::Refusal;
use crate::render;
use crate::schema;
use crate::spec::ToolSpec;

/// A boxed future of an envelope, as an async tool's call returns it.
pub type EnvelopeFuture<'a> = Pin<Box<dyn Future<Output = Envelope> + Send + 'a>>;

/// What calling a tool gives: the envelope now (a sync tool, or a refusal), or later.
pub enum Outcome<'a> {
    /// Done.
    Ready(Envelope),
    /// An async tool at work.
    Pending(EnvelopeFuture<'a>),
}

/// The function `#[tool]` generates: reads the arguments object and calls the tool.
pub type CallFn = for<'a> fn(&'a ToolSpec, Option<&'a Map<String, Value>>) -> Outcome<'a>;

/// The function `#[tools]` generates for a method: [`CallFn`] with the state first.
pub type MethodFn<S> = for<'a> fn(&Arc<S>, &'a ToolSpec, Option<&'a Map<String, Value>>) -> Outcome<'a>;

/// A call function with state (a `#[tools]` method bound to its `Arc<S>`).
type DynCall = Arc<dyn for<'a> Fn(&'a ToolSpec, Option<&'a Map<String, Value>>) -> Outcome<'a> + Send + Sync>;

fn dyn_call<F>(f: F) -> DynCall
where
    F: for<'a> Fn(&'a ToolSpec, Option<&'a Map<String, Value>>) -> Outcome<'a> + Send + Sync + 'static,
{
    Arc::new(f)
}

/// The tools of a state type: what `#[tools]` on its impl block generates. Register them with
/// [`Toolbox::with_state`].
pub trait ToolSet: Send + Sync + 'static {
    /// One tool per `#[tool]` method, each holding a clone of `state`.
    fn tools(state: Arc<Self>) -> Vec<Tool>;
}

/// One declared tool: what `#[tool]` generated for a function. Get it with
/// `<function name>::tool()` and register it in a [`Toolbox`].
#[derive(Clone)]
pub struct Tool {
    spec: ToolSpec,
    call: DynCall,
    schema: Map<String, Value>,
    sync_body: bool,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool").field("name", &self.spec.name).finish_non_exhaustive()
    }
}

impl Tool {
    #[doc(hidden)]
    pub fn __new(spec: ToolSpec, call: CallFn) -> Self {
        Tool::with_call(spec, dyn_call(call))
    }

    /// A tool whose call function holds `state`.
    #[doc(hidden)]
    pub fn __method<S: Send + Sync + 'static>(spec: ToolSpec, state: Arc<S>, call: MethodFn<S>) -> Self {
        Tool::with_call(spec, dyn_call(move |spec, obj| call(&state, spec, obj)))
    }

    fn with_call(spec: ToolSpec, call: DynCall) -> Self {
        let schema = schema::input_schema(&spec);
        Tool { spec, call, schema, sync_body: false }
    }

    /// Marks the tool's body as a plain (not `async`) function: `#[tool]` calls this.
    #[doc(hidden)]
    #[must_use]
    pub fn __sync_body(mut self) -> Self {
        self.sync_body = true;
        self
    }

    /// Whether the tool's body is a plain `fn` (not an `async fn`): it runs to its end on the
    /// thread that calls it, so the MCP adapters run it on tokio's blocking threads
    /// (`spawn_blocking`) rather than on the async workers, where it would stall other calls.
    pub fn has_sync_body(&self) -> bool {
        self.sync_body
    }

    /// The name callers use in `tools/call`.
    pub fn name(&self) -> &str {
        self.spec.name
    }

    /// A human title, when declared with `#[tool(title = "...")]`.
    pub fn title(&self) -> Option<&str> {
        self.spec.title
    }

    /// The description, from the function's doc comment.
    pub fn description(&self) -> &str {
        self.spec.description
    }

    /// The `outputSchema`: the envelope's shape, with `data` as declared by
    /// `#[tool(output_schema = path)]` (any JSON otherwise) and `error_code` one of the tool's
    /// codes, each with `prefix` (see [`Toolbox::with_code_prefix`]).
    pub fn output_schema(&self, prefix: Option<&str>) -> Map<String, Value> {
        schema::output_schema(&self.spec, prefix.unwrap_or(""))
    }

    /// Whether lax coercions are off (`#[tool(strict)]`).
    pub fn strict(&self) -> bool {
        self.spec.strict
    }

    /// What the tool declares: parameters, rules, annotations.
    pub fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// The `inputSchema` (JSON Schema 2020-12): `{"type": "object", "properties": {...},
    /// "required": [...], "additionalProperties": false}`, each property with `type`,
    /// `description`, `minimum`/`maximum` (or the exclusive keywords), `enum`, `default`.
    pub fn input_schema(&self) -> Map<String, Value> {
        self.schema.clone()
    }

    /// Calls the tool with `arguments` (`None`: not sent, read as `{}`).
    ///
    /// Answers `invalid` for every argument problem (all of them in one envelope); `error` with
    /// `BACKEND_ERROR` if the tool panics (not retryable unless the tool is idempotent); else
    /// what the tool returned. Never panics.
    pub async fn call(&self, arguments: Option<&Value>) -> Envelope {
        self.call_with(arguments, Vec::new()).await
    }

    /// `exact`: the digits of integer literals too large for 64 bits, as sent, so a refusal
    /// quotes them instead of the float they were read as.
    async fn call_with(&self, arguments: Option<&Value>, exact: Vec<String>) -> Envelope {
        let decoded;
        let obj = match arguments {
            None | Some(Value::Null) => None,
            Some(Value::Object(o)) => Some(o),
            Some(Value::String(s)) if !self.spec.strict => match serde_json::from_str::<Value>(s) {
                Ok(Value::Object(o)) => {
                    decoded = o;
                    Some(&decoded)
                }
                _ => {
                    return Refusal::from_problems(vec![args::not_an_object(&self.spec, &Value::String(s.clone()))])
                        .into();
                }
            },
            Some(other) => return Refusal::from_problems(vec![args::not_an_object(&self.spec, other)]).into(),
        };
        let outcome =
            render::with_exact_digits(exact, || catch_unwind(AssertUnwindSafe(|| (self.call)(&self.spec, obj))));
        let envelope = match outcome {
            Ok(Outcome::Ready(e)) => e,
            Ok(Outcome::Pending(fut)) => CatchUnwind(fut).await.unwrap_or_else(|()| self.panicked()),
            Err(_) => self.panicked(),
        };
        if envelope.status() == crate::Status::Error && self.spec.annotations.idempotent != Some(true) {
            // A retry of a call that may have acted could act twice.
            envelope.not_retryable()
        } else {
            envelope
        }
    }

    fn panicked(&self) -> Envelope {
        Fault::backend(self.spec.name).into()
    }

    /// Calls the tool with the JSON text of its arguments, of any nesting depth and any number
    /// size. A parameter nested deeper than JSON parsing allows (128 levels), or holding a number
    /// too large for a double (`1e400`), is refused by name, together with any unknown names; an
    /// integer too large for 64 bits is quoted with the digits sent; text that is not JSON is
    /// refused as such.
    pub async fn call_json(&self, arguments: &str) -> Envelope {
        let parsed = match serde_json::from_str::<Value>(arguments) {
            Ok(v) => v,
            Err(_) => match self.read_fields(arguments) {
                Ok(fields) => Value::Object(fields),
                Err(refusal) => return refusal.into(),
            },
        };
        self.call_with(Some(&parsed), render::long_integers(arguments)).await
    }

    /// The arguments object read field by field, for text that does not parse whole: each field
    /// that cannot be read (nested past the depth limit, a number no double holds, an invalid
    /// escape) is refused by name, with any names that are not parameters.
    fn read_fields(&self, arguments: &str) -> Result<Map<String, Value>, Refusal> {
        // Skipping a value with RawValue is iterative in serde_json: no depth limit.
        let Ok(fields) = serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(arguments) else {
            let deep = serde_json::from_str::<serde::de::IgnoredAny>(arguments).is_ok();
            let p = args::unreadable(&self.spec, "arguments", arguments, deep);
            return Err(Refusal::from_problems(vec![p]));
        };
        let mut problems = Vec::new();
        let mut fields_read = Map::new();
        for (name, raw) in fields {
            match serde_json::from_str::<Value>(raw.get()) {
                Ok(v) => {
                    fields_read.insert(name, v);
                }
                // A name that is not a parameter is refused as such, whatever its value.
                Err(_) if !self.spec.params.iter().any(|p| p.name == name) => {
                    fields_read.insert(name, Value::Null);
                }
                Err(e) => {
                    let deep = e.to_string().starts_with("recursion limit exceeded");
                    problems.push(args::unreadable(&self.spec, &name, raw.get(), deep));
                }
            }
        }
        if problems.is_empty() {
            return Ok(fields_read);
        }
        // Report names that are not parameters too, without calling the tool.
        let mut refusal = Refusal::from_problems(problems);
        if let Err(unknown) = args::Args::new(&self.spec, Some(&fields_read)).finish() {
            refusal = refusal.and(unknown);
        }
        Err(refusal)
    }
}

/// Catches a panic inside an async tool's future, so a panic becomes a fault, not a dead task.
struct CatchUnwind<'a>(EnvelopeFuture<'a>);

impl Future for CatchUnwind<'_> {
    type Output = Result<Envelope, ()>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match catch_unwind(AssertUnwindSafe(|| self.0.as_mut().poll(cx))) {
            Ok(Poll::Ready(e)) => Poll::Ready(Ok(e)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    }
}

/// A set of tools, listed and called by name.
///
/// ```
/// use envelope_core::{tool, Toolbox};
///
/// /// Adds two small numbers.
/// #[tool]
/// fn add(#[validate(range = 0..=100)] a: u32, #[validate(range = 0..=100)] b: u32) -> u32 {
///     a + b
/// }
///
/// # tokio_test_block_on(async {
/// let toolbox = Toolbox::new().with(add::tool());
/// let env = toolbox.call("add", Some(&serde_json::json!({"a": 2, "b": 3}))).await.unwrap();
/// assert_eq!(env.to_json(), r#"{"status":"ok","success":true,"data":5}"#);
/// # });
/// # fn tokio_test_block_on(f: impl std::future::Future<Output = ()>) {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Toolbox {
    tools: Vec<Tool>,
    prefix: Option<&'static str>,
}

impl Toolbox {
    /// An empty toolbox.
    pub fn new() -> Self {
        Toolbox::default()
    }

    /// Adds a tool.
    ///
    /// # Panics
    /// If a tool of the same name is already registered (a programming error: the second
    /// could never be called).
    #[must_use]
    pub fn with(mut self, tool: Tool) -> Self {
        assert!(self.get(tool.name()).is_none(), "two tools are named `{}`", tool.name());
        self.tools.push(tool);
        self
    }

    /// Adds every `#[tool]` method of a `#[tools]` impl block, each calling `state`.
    ///
    /// # Panics
    /// As [`with`](Self::with), on a name already registered.
    #[must_use]
    pub fn with_state<S: ToolSet>(mut self, state: Arc<S>) -> Self {
        for tool in S::tools(state) {
            self = self.with(tool);
        }
        self
    }

    /// Prefixes every `error_code` on the wire (`with_code_prefix("ACME_")` sends
    /// `ACME_NOT_FOUND`).
    #[must_use]
    pub fn with_code_prefix(mut self, prefix: &'static str) -> Self {
        self.prefix = Some(prefix);
        self
    }

    /// The prefix set with [`with_code_prefix`](Self::with_code_prefix), if any.
    pub fn code_prefix(&self) -> Option<&'static str> {
        self.prefix
    }

    /// The tools, in registration order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name() == name)
    }

    /// Calls tool `name` with `arguments` (a JSON object; `None` or `null` read as `{}`; a
    /// non-object refused, except that a lax tool decodes a JSON string holding an object).
    ///
    /// # Errors
    /// [`UnknownTool`] when no tool has that name (a protocol error, not an envelope).
    pub async fn call(&self, name: &str, arguments: Option<&Value>) -> Result<Envelope, UnknownTool> {
        let tool = self.get(name).ok_or_else(|| self.unknown(name))?;
        Ok(tool.call(arguments).await.with_code_prefix(self.prefix))
    }

    /// Calls tool `name` with the JSON text of its arguments, of any nesting depth (see
    /// [`Tool::call_json`]).
    ///
    /// # Errors
    /// [`UnknownTool`] when no tool has that name.
    pub async fn call_json(&self, name: &str, arguments: &str) -> Result<Envelope, UnknownTool> {
        let tool = self.get(name).ok_or_else(|| self.unknown(name))?;
        Ok(tool.call_json(arguments).await.with_code_prefix(self.prefix))
    }

    /// The error for a tool name that does not exist.
    pub fn unknown(&self, name: &str) -> UnknownTool {
        let names: Vec<String> = self.tools.iter().map(|t| t.name().to_owned()).collect();
        let suggestion = render::closest(name, names.iter().map(String::as_str)).map(str::to_owned);
        UnknownTool { name: render::shown(&Value::String(name.to_owned())), names, suggestion }
    }
}

/// A `tools/call` named a tool that does not exist. Its Display is the sentence for the
/// JSON-RPC error (-32602): `unknown tool "get_top_query"; accepted: get_top_queries,
/// search_analytics. Did you mean "get_top_queries"?`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTool {
    name: String,
    names: Vec<String>,
    suggestion: Option<String>,
}

impl UnknownTool {
    /// The closest tool name, when one is close.
    pub fn suggestion(&self) -> Option<&str> {
        self.suggestion.as_deref()
    }
}

impl fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is not a tool of this server; accepted: {}.", self.name, self.names.join(", "))?;
        match &self.suggestion {
            Some(s) => write!(f, " Did you mean \"{s}\"? Call \"{s}\"."),
            None => write!(f, " Call one of the listed tools (tools/list)."),
        }
    }
}

impl std::error::Error for UnknownTool {}
