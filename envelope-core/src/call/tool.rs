//! The tool value: what `#[tool]` generated for a function (its declaration, its schemas, its
//! call function), and its call function run with a panic caught as a `BACKEND_ERROR` fault.

use std::fmt;

use serde_json::{Map, Value};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crate::call::unwind::CatchUnwind;
use crate::outcome::envelope::Envelope;
use crate::outcome::fault::Fault;
use crate::read::input::Input;
use crate::schema;
use crate::spec::ToolSpec;

use crate::outcome::Outcome;
use crate::outcome::wire::WireFormat;

/// The function `#[tool]` generates: reads the arguments and calls the tool.
///
/// Its outcome does not borrow the arguments (`Input`): the values it read are owned, so an
/// async tool's future outlives the walked text's slots, which stay on the caller's stack.
pub type CallFn = for<'a, 'i> fn(&'a ToolSpec, Input<'i>) -> Outcome<'a>;

/// The typed reading `#[tool]` generates for a function whose parameter types have it
/// (`crate::read::typed`): the arguments read straight into their types and the tool started,
/// or `None` when the general reading ([`CallFn`]) must read them (it words every refusal).
pub type TypedFn = for<'a, 'i> fn(&'a ToolSpec, crate::read::typed::Raw<'i>, Input<'i>) -> Option<Outcome<'a>>;

/// The typed reading `#[tools]` generates for a method whose parameter types have it:
/// [`TypedFn`] with the state first.
pub type TypedMethodFn<S> =
    for<'a, 'i> fn(&Arc<S>, &'a ToolSpec, crate::read::typed::Raw<'i>, Input<'i>) -> Option<Outcome<'a>>;

/// A method's typed reading bound to its state.
pub(in crate::call) type BoundTyped =
    Arc<dyn for<'a, 'i> Fn(&'a ToolSpec, crate::read::typed::Raw<'i>, Input<'i>) -> Option<Outcome<'a>> + Send + Sync>;

/// A tool's typed reading: a function's, or a method's bound to its state.
#[derive(Clone)]
pub(in crate::call) enum TypedCall {
    Fn(TypedFn),
    Method(BoundTyped),
}

/// `f` as a method's typed reading (the closure's signature spelt for the compiler).
fn typed_method<F>(f: F) -> TypedCall
where
    F: for<'a, 'i> Fn(&'a ToolSpec, crate::read::typed::Raw<'i>, Input<'i>) -> Option<Outcome<'a>>
        + Send
        + Sync
        + 'static,
{
    TypedCall::Method(Arc::new(f))
}

/// The function `#[tools]` generates for a method: [`CallFn`] with the state first.
pub type MethodFn<S> = for<'a, 'i> fn(&Arc<S>, &'a ToolSpec, Input<'i>) -> Outcome<'a>;

/// A call function with state (a `#[tools]` method bound to its `Arc<S>`).
pub(in crate::call) type DynCall = Arc<dyn for<'a, 'i> Fn(&'a ToolSpec, Input<'i>) -> Outcome<'a> + Send + Sync>;

pub(in crate::call) fn dyn_call<F>(f: F) -> DynCall
where
    F: for<'a, 'i> Fn(&'a ToolSpec, Input<'i>) -> Outcome<'a> + Send + Sync + 'static,
{
    Arc::new(f)
}

/// The tools of a state type: what `#[tools]` on its impl block generates. Register them with
/// [`Toolbox::with_state`](crate::Toolbox::with_state).
pub trait ToolSet: Send + Sync + 'static {
    /// One tool per `#[tool]` method, each holding a clone of `state`.
    fn tools(state: Arc<Self>) -> Vec<Tool>;
}

/// One declared tool: what `#[tool]` generated for a function. Get it with
/// `<function name>::tool()` and register it in a [`Toolbox`](crate::Toolbox).
#[derive(Clone)]
pub struct Tool {
    pub(in crate::call) spec: ToolSpec,
    pub(in crate::call) call: DynCall,
    /// The full `inputSchema` (cross-parameter rules as a top-level `allOf`).
    pub(in crate::call) schema: Map<String, Value>,
    /// The description with the cross-parameter rules stated, for the portable `inputSchema`;
    /// `None` for a tool without such a rule.
    pub(in crate::call) described: Option<Arc<str>>,
    /// Whether the full `inputSchema` is served ([`Toolbox::with_full_input_schema`](crate::Toolbox::with_full_input_schema)).
    pub(in crate::call) full_schema: bool,
    pub(in crate::call) format: WireFormat,
    pub(in crate::call) sync_body: bool,
    /// Whether the servers run the sync body inline, on the async worker ([`Tool::inline_body`]).
    pub(in crate::call) inline: bool,
    /// Whether `call_json` may read the text in one pass (`crate::read::input`): no cross-field
    /// rules (they compare parsed values) and no confirmation or key (the store keeps the
    /// parsed arguments).
    pub(in crate::call) walkable: bool,
    /// The typed reading of a tool whose parameter types have it, tried before the general one
    /// (only on a `walkable` tool).
    pub(in crate::call) typed: Option<TypedCall>,
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

    /// # Panics
    ///
    /// When a string the declaration writes (a parameter's or a nested object's field's
    /// `default`, a `pattern`'s `example`, a `requires` value or `when`) is refused by the
    /// `pattern`, `format`, `length` or `choices` of the value it stands for (`tool "t",
    /// parameter "slug": the default "ABC" does not match its pattern ^[a-z]+$; ...`): the
    /// macro checks ranges, steps, lengths and choices at compile time, and the rules it cannot
    /// run (a regex, a format) here, when the tool is built.
    pub(in crate::call) fn with_call(spec: ToolSpec, call: DynCall) -> Self {
        crate::read::declared::check_tool(spec.name, &spec.params);
        let schema = schema::input_schema(&spec);
        let described = schema::described(&spec).map(Arc::from);
        let walkable = !spec.needs_confirmation
            && !spec.idempotency_key
            && spec.params.iter().all(|p| p.requires.is_empty() && p.excludes.is_empty());
        let format = WireFormat::Envelope;
        Tool {
            spec,
            call,
            schema,
            described,
            full_schema: false,
            format,
            sync_body: false,
            inline: false,
            walkable,
            typed: None,
        }
    }

    /// Gives the tool its typed reading when `reads` (every parameter type has it,
    /// `FromArg::reads_typed`; see `crate::read::typed`): tried first wherever the one-pass
    /// walk may read.
    #[doc(hidden)]
    #[must_use]
    pub fn __typed(mut self, reads: bool, typed: TypedFn) -> Self {
        self.typed = (reads && self.walkable).then_some(TypedCall::Fn(typed));
        self
    }

    /// Gives a `#[tools]` method its typed reading, bound to its state (see [`__typed`](Self::__typed)).
    #[doc(hidden)]
    #[must_use]
    pub fn __method_typed<S: Send + Sync + 'static>(
        mut self,
        reads: bool,
        state: Arc<S>,
        typed: TypedMethodFn<S>,
    ) -> Self {
        self.typed =
            (reads && self.walkable).then(|| typed_method(move |spec, raw, input| typed(&state, spec, raw, input)));
        self
    }

    /// Whether the tool has a typed reading (see [`__typed`](Self::__typed)).
    #[doc(hidden)]
    pub fn __reads_typed(&self) -> bool {
        self.typed.is_some()
    }

    /// This tool without its typed reading: every call read the general way (what a test of the
    /// two readings compares against).
    #[doc(hidden)]
    #[must_use]
    pub fn __untyped(mut self) -> Self {
        self.typed = None;
        self
    }

    /// Marks the tool's body as a plain (not `async`) function: `#[tool]` calls this.
    #[doc(hidden)]
    #[must_use]
    pub fn __sync_body(mut self) -> Self {
        self.sync_body = true;
        self
    }

    /// Whether the tool's body is a plain `fn` (not an `async fn`): it runs to its end on the
    /// thread that calls it, so the servers (`HttpTools`, `McpHttp`, the MCP adapters) run it on
    /// a pool of threads beside the async runtime rather than on its workers, where it would
    /// stall other calls (unless the tool is marked [`inline_body`](Self::inline_body)).
    pub fn has_sync_body(&self) -> bool {
        self.sync_body
    }

    /// Declares the tool's sync body quick (a computation of a few microseconds that never
    /// blocks: no file, network, lock held by others or sleep): the servers (`HttpTools`,
    /// `McpHttp`, the MCP adapters) then run it inline on the async worker that read the call,
    /// instead of handing it to a thread of their pool of body threads and waiting for it.
    ///
    /// What it saves: the handoff, about 6 to 10 µs of CPU and two thread wake-ups per call
    /// (`plain_http` bench, BENCHMARKS.md). What it risks: while the body runs, the worker runs
    /// nothing else. On a current-thread runtime that is every other request of the server
    /// (other calls, `GET /tools`, new connections) for as long as the body takes; on a
    /// multi-thread runtime, the requests on that worker. A body that blocks for 1.5 s stalls
    /// them 1.5 s; `#[tool(timeout_ms)]` cannot answer before it ends, and a dropped connection
    /// cannot stop it. An `async fn` tool is unaffected (it runs on the worker anyway); so is
    /// [`Tool::call`] and [`Toolbox::call_json`](crate::Toolbox::call_json), which run a sync body where they are called.
    #[must_use]
    pub fn inline_body(mut self) -> Self {
        self.inline = true;
        self
    }

    /// The name callers use in `tools/call`.
    pub fn name(&self) -> &str {
        self.spec.name
    }

    /// A human title, when declared with `#[tool(title = "...")]`.
    pub fn title(&self) -> Option<&str> {
        self.spec.title
    }

    /// The description, from the function's doc comment; with the portable `inputSchema` (the
    /// default), followed by one sentence per cross-parameter rule (`requires`, `excludes`) that
    /// the schema leaves out: `When dimension is "hour", data_state must be "HOURLY_ALL".`, `When
    /// since is sent, until must be sent too.`, `id and name cannot both be sent.`
    pub fn description(&self) -> &str {
        match &self.described {
            Some(d) if !self.full_schema => d,
            _ => self.spec.description,
        }
    }

    /// The `outputSchema`: the envelope's shape, with `data` as declared by
    /// `#[tool(output_schema = path)]` (any JSON otherwise) and `error_code` one of the tool's
    /// codes, each with `prefix` (see [`Toolbox::with_code_prefix`](crate::Toolbox::with_code_prefix)); in the wire format of the
    /// toolbox the tool is registered in ([`Toolbox::with_wire_format`](crate::Toolbox::with_wire_format)).
    pub fn output_schema(&self, prefix: Option<&str>) -> Map<String, Value> {
        crate::schema::output_schema(&self.spec, prefix.unwrap_or(""), self.format)
    }

    /// The OAuth scopes a caller needs, every one (`#[tool(scopes = [...])]`; empty: any
    /// caller). A caller without them is refused `FORBIDDEN` before any argument is read.
    pub fn scopes(&self) -> &[&'static str] {
        self.spec.scopes
    }

    /// The effective tier: `#[tool(tier = N)]`, else derived from the annotations
    /// (`destructive` → T3, `read_only` → T1, else T2; T4 only when declared). See
    /// [`Tier`](crate::spec::Tier).
    pub fn tier(&self) -> crate::spec::Tier {
        self.spec.tier()
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
    ///
    /// Portable by default: no `allOf`, `anyOf` or `oneOf` at the top level, since MCP clients
    /// forward a tool's `inputSchema` to their model API as it is and Anthropic's refuses those
    /// there (one such tool fails every request of the client). A cross-parameter rule is then
    /// stated in the [`description`](Self::description) and refused at run time as ever. In a
    /// toolbox [`with_full_input_schema`](crate::Toolbox::with_full_input_schema), the rules are also in
    /// the schema, as a top-level `allOf` of `if`/`then` and `not`.
    pub fn input_schema(&self) -> Map<String, Value> {
        if self.full_schema || self.described.is_none() { self.schema.clone() } else { schema::portable(&self.schema) }
    }

    /// Runs the generated call function on `input`; a panic becomes a `BACKEND_ERROR` fault.
    pub(crate) fn start<'a>(&'a self, input: Input<'_>) -> Outcome<'a> {
        catch_unwind(AssertUnwindSafe(|| (self.call)(&self.spec, input)))
            .unwrap_or_else(|_| Outcome::Ready(self.panicked()))
    }

    /// Starts the call through the typed reading, when the tool has one and it reads `raw`
    /// (see `crate::read::typed`); `None`: the general reading ([`start`](Self::start)) reads
    /// the arguments. A panic of the body becomes a fault, as in `start`.
    pub(crate) fn start_typed<'a>(&'a self, raw: crate::read::typed::Raw<'_>, input: Input<'_>) -> Option<Outcome<'a>> {
        let typed = self.typed.as_ref()?;
        catch_unwind(AssertUnwindSafe(|| match typed {
            TypedCall::Fn(f) => f(&self.spec, raw, input),
            TypedCall::Method(f) => f(&self.spec, raw, input),
        }))
        .unwrap_or_else(|_| Some(Outcome::Ready(self.panicked())))
    }

    /// Asks a guarded call for its preview or its run; a panic becomes a fault.
    pub(crate) fn step<'a>(&self, g: crate::outcome::Guarded<'a>, step: crate::outcome::Step) -> Outcome<'a> {
        catch_unwind(AssertUnwindSafe(|| (g.then)(step))).unwrap_or_else(|_| Outcome::Ready(self.panicked()))
    }

    /// The envelope of an outcome: awaited (a panic inside becomes a fault) and, for a tool
    /// that is not idempotent, with faults not retryable.
    pub(crate) async fn settle(&self, outcome: Outcome<'_>) -> Envelope {
        let envelope = match outcome {
            Outcome::Ready(e) => e,
            Outcome::Pending(fut) => CatchUnwind(fut).await.unwrap_or_else(|()| self.panicked()),
            // Never asked for here; run where it stands.
            Outcome::Later(body) => catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| self.panicked()),
            // A preview or run step never asks to be guarded again.
            Outcome::Guarded(_) | Outcome::Decide(..) => self.panicked(),
        };
        self.settled(envelope)
    }

    /// The envelope of a finished call: for a tool that is not idempotent, with faults not
    /// retryable.
    pub(in crate::call) fn settled(&self, envelope: Envelope) -> Envelope {
        retry_as_declared(envelope, self.spec.annotations.repeats_safely())
    }

    pub(in crate::call) fn panicked(&self) -> Envelope {
        Fault::backend(self.spec.name).into()
    }
}

/// The envelope of a finished call of a tool (`idempotent`: declared so): a fault of a tool
/// that is not idempotent is not retryable, since a retry of a call that may have acted could
/// act twice, and its message says to read the state first; a fault of an idempotent one says
/// that calling again is safe.
pub(in crate::call) fn retry_as_declared(envelope: Envelope, idempotent: bool) -> Envelope {
    match (envelope.status(), idempotent) {
        (crate::Status::Error, false) => envelope.not_retryable(),
        (crate::Status::Error, true) => envelope.retry_is_safe(),
        _ => envelope,
    }
}
