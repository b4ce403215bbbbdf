//! The registry: list tools, call one by name.

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{self, Poll};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::args;
use crate::audit::Governed;
use crate::confirm::{Decision, Guarded, MIN_SECRET_BYTES, PendingCheck, SecretTooShort, Step, validated_args};
use crate::context::{Caller, Context};
use crate::cx::Numbers;
use crate::envelope::Envelope;
use crate::fault::Fault;
use crate::input::{self, Input, Sent};
use crate::read::text;
use crate::refusal::Refusal;
use crate::render;
use crate::schema;
use crate::spec::ToolSpec;
use crate::store::Store;
use crate::wire::WireFormat;

pub use crate::outcome::{EnvelopeFuture, Outcome};
use crate::policy::{Policy, PolicyRequest, Verdict};
use crate::surface::Surface;

/// The function `#[tool]` generates: reads the arguments and calls the tool.
///
/// Its outcome does not borrow the arguments (`Input`): the values it read are owned, so an
/// async tool's future outlives the walked text's slots, which stay on the caller's stack.
pub type CallFn = for<'a, 'i> fn(&'a ToolSpec, Input<'i>) -> Outcome<'a>;

/// The function `#[tools]` generates for a method: [`CallFn`] with the state first.
pub type MethodFn<S> = for<'a, 'i> fn(&Arc<S>, &'a ToolSpec, Input<'i>) -> Outcome<'a>;

/// A call function with state (a `#[tools]` method bound to its `Arc<S>`).
type DynCall = Arc<dyn for<'a, 'i> Fn(&'a ToolSpec, Input<'i>) -> Outcome<'a> + Send + Sync>;

fn dyn_call<F>(f: F) -> DynCall
where
    F: for<'a, 'i> Fn(&'a ToolSpec, Input<'i>) -> Outcome<'a> + Send + Sync + 'static,
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
    /// The full `inputSchema` (cross-parameter rules as a top-level `allOf`).
    schema: Map<String, Value>,
    /// The description with the cross-parameter rules stated, for the portable `inputSchema`;
    /// `None` for a tool without such a rule.
    described: Option<Arc<str>>,
    /// Whether the full `inputSchema` is served ([`Toolbox::with_full_input_schema`]).
    full_schema: bool,
    format: WireFormat,
    sync_body: bool,
    /// Whether the servers run the sync body inline, on the async worker ([`Tool::inline_body`]).
    inline: bool,
    /// Whether `call_json` may read the text in one pass (`crate::input`): no cross-field
    /// rules (they compare parsed values) and no confirmation or key (the store keeps the
    /// parsed arguments).
    walkable: bool,
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
        let described = schema::described(&spec).map(Arc::from);
        let walkable = !spec.needs_confirmation
            && !spec.idempotency_key
            && spec.params.iter().all(|p| p.requires.is_empty() && p.excludes.is_empty());
        let format = WireFormat::Envelope;
        Tool { spec, call, schema, described, full_schema: false, format, sync_body: false, inline: false, walkable }
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
    /// [`Tool::call`] and [`Toolbox::call_json`], which run a sync body where they are called.
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
    /// codes, each with `prefix` (see [`Toolbox::with_code_prefix`]); in the wire format of the
    /// toolbox the tool is registered in ([`Toolbox::with_wire_format`]).
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
    /// toolbox [`with_full_input_schema`](Toolbox::with_full_input_schema), the rules are also in
    /// the schema, as a top-level `allOf` of `if`/`then` and `not`.
    pub fn input_schema(&self) -> Map<String, Value> {
        if self.full_schema || self.described.is_none() { self.schema.clone() } else { schema::portable(&self.schema) }
    }

    /// Calls the tool with `arguments` (`None`: not sent, read as `{}`).
    ///
    /// Answers `invalid` for every argument problem (all of them in one envelope); `error` with
    /// `BACKEND_ERROR` if the tool panics (not retryable unless the tool is idempotent); else
    /// what the tool returned. Never panics.
    ///
    /// A `serde_json::Value` has already lost what only the JSON text shows: a key sent twice
    /// (the parser kept one value), and the characters of each number (`1e3` is the double
    /// 1000.0, and is quoted as `1000.0`). With the text at hand, call [`Tool::call_json`].
    ///
    /// A confirm tool called outside a [`Toolbox`] queues into a store of this process; a key
    /// tool records its keys there too. `confirm_action` exists only in a toolbox.
    pub async fn call(&self, arguments: Option<&Value>) -> Envelope {
        let cx = Context::anonymous();
        if self.rate_limits(At::alone(&cx)) {
            // Boxed in a statement of its own: the future awaited here holds only the box.
            let counted = Box::pin(self.rate_limited(At::alone(&cx)));
            if let Some(refused) = counted.await {
                return refused;
            }
        }
        self.call_with(arguments, &[], At::alone(&cx), false).await.done()
    }

    /// Whether a call at `at` is counted against a rate limit (the toolbox's or the tool's):
    /// only then is [`rate_limited`](Self::rate_limited) awaited (in a future of its own, so
    /// the usual call's future does not carry the store's).
    fn rate_limits(&self, at: At<'_>) -> bool {
        let guard: &crate::call::guard::Guard = match at.toolbox {
            Some(t) => &t.guard,
            None => crate::call::guard::default_guard(),
        };
        guard.rate_limit.is_some() || self.spec.rate_limit.is_some()
    }

    /// The toolbox's and the tool's rate limits, counted for `at`'s caller: `None` to go on,
    /// else the envelope to answer (see [`crate::rate`]).
    async fn rate_limited(&self, at: At<'_>) -> Option<Envelope> {
        let guard: &crate::call::guard::Guard = match at.toolbox {
            Some(t) => &t.guard,
            None => crate::call::guard::default_guard(),
        };
        if guard.rate_limit.is_none() && self.spec.rate_limit.is_none() {
            return None;
        }
        guard.rate_limited(&self.spec, &at.cx.caller().key()).await
    }

    /// `numbers`: the characters numbers were sent with, by node address in `arguments` (see
    /// `sent::numbers_as_sent`), so a refusal quotes them instead of the double they were read as.
    /// `toolbox`: where the tool is registered (its store, its secret; `confirm_action` needs it).
    /// `defer`: leave a sync body for the caller to run ([`Started::Body`]).
    async fn call_with(&self, arguments: Option<&Value>, numbers: Numbers<'_>, at: At<'_>, defer: bool) -> Started {
        // Boxed: a lax tool's arguments sent as a string are rare, and this future stays small.
        let decoded: Box<Map<String, Value>>;
        let obj = match arguments {
            None | Some(Value::Null) => None,
            Some(Value::Object(o)) => Some(o),
            Some(Value::String(s)) if !self.spec.strict => match crate::readers::container_in_string(s) {
                Some(Value::Object(o)) => {
                    decoded = Box::new(o);
                    Some(&*decoded)
                }
                _ => {
                    let problem = args::not_an_object(&self.spec, &Value::String(s.clone()), numbers);
                    return Started::Done(Refusal::from_problems(vec![problem]).into());
                }
            },
            Some(other) => {
                let problem = args::not_an_object(&self.spec, other, numbers);
                return Started::Done(Refusal::from_problems(vec![problem]).into());
            }
        };
        // Under a policy, the body waits for its verdict: a sync body is left, not run.
        let defer = defer || at.under_policy(&self.spec);
        let input = Input::object_as_sent(obj, numbers).deferring(defer).in_context(at.cx);
        // Matched in a statement of its own, so only `rest` (not the `Result`) is held while
        // it is awaited.
        let rest = match self.started(self.start(input), obj, at) {
            Ok(started) => return started,
            Err(rest) => rest,
        };
        rest.await
    }

    /// What a started call comes to: its envelope, or its sync body left to run. Under a
    /// policy ([`Toolbox::with_policy`]), the arguments are read and valid here and the body has
    /// not run (a sync body was left, an async one not polled, a guarded one not stepped): the
    /// policy's verdict comes first.
    ///
    /// `Ok`: the usual call, answered without awaiting anything ([`started_now`](Self::started_now)).
    /// `Err`: what is left to await ([`Rest`]): an async body with nothing around it, or the
    /// rest ([`started_later`](Self::started_later): a policy, an audit record, a guard) in a
    /// future of its own; so the future that awaits it stays small.
    fn started<'a>(
        &'a self,
        outcome: Outcome<'a>,
        obj: Option<&'a Map<String, Value>>,
        at: At<'a>,
    ) -> Result<Started, Rest<'a>> {
        match self.started_now(outcome, obj, at) {
            Ok(started) => Ok(started),
            Err(Outcome::Pending(body)) if at.call.is_none() && !at.under_policy(&self.spec) => {
                Err(Rest::Body { tool: self, body })
            }
            Err(outcome) => Err(Rest::Later(Box::pin(self.started_later(outcome, obj, at)))),
        }
    }

    /// What [`started`](Self::started) answers without awaiting anything: a sync tool's answer
    /// or a refusal (settled), or a sync body left to run when no policy's verdict and no
    /// audit intent come before it. `Err`: the outcome, for [`started_later`](Self::started_later).
    fn started_now<'a>(
        &self,
        outcome: Outcome<'a>,
        obj: Option<&Map<String, Value>>,
        at: At<'_>,
    ) -> Result<Started, Outcome<'a>> {
        match outcome {
            Outcome::Ready(envelope) => {
                // A sync tool's answer, or a refusal: no future to poll.
                if let Some(call) = at.call.filter(|c| c.audits())
                    && envelope.status() != crate::Status::Invalid
                {
                    call.read(&self.spec, &validated_args(&self.spec.params, obj));
                }
                Ok(Started::Done(self.settled(envelope)))
            }
            // Without an audit trail, `Governed::before` records nothing and lets the body run.
            Outcome::Later(body) if !at.under_policy(&self.spec) && at.call.is_none_or(|c| !c.audits()) => {
                Ok(Started::Body(self.deferred(body)))
            }
            other => Err(other),
        }
    }

    /// A sync body left to run, with nothing around it yet (a toolbox adds its own).
    fn deferred(&self, body: crate::outcome::SyncBody) -> Deferred {
        Deferred {
            body,
            name: self.spec.name,
            idempotent: self.spec.annotations.idempotent_hint == Some(true),
            prefix: None,
            format: WireFormat::Envelope,
            inline: self.inline,
            call: None,
        }
    }

    /// [`started`](Self::started) of an outcome it could not answer at once.
    async fn started_later(&self, outcome: Outcome<'_>, obj: Option<&Map<String, Value>>, at: At<'_>) -> Started {
        if let Outcome::Ready(envelope) = outcome {
            // A sync tool's answer, or a refusal: no future to poll.
            if let Some(call) = at.call
                && envelope.status() != crate::Status::Invalid
            {
                call.read(&self.spec, &validated_args(&self.spec.params, obj));
            }
            return Started::Done(self.settled(envelope));
        }
        if let Some(toolbox) = at.toolbox.filter(|_| at.under_policy(&self.spec)) {
            let args = validated_args(&self.spec.params, obj);
            if let Some(refused) = toolbox.policing.verdict(self, &args, at.cx).await {
                return Started::Done(match refused {
                    Ruled::Answer(envelope) => envelope,
                    Ruled::Confirm => self.confirm_by_policy(outcome, args, toolbox, at.cx).await,
                });
            }
        }
        match outcome {
            Outcome::Ready(envelope) => Started::Done(self.settled(envelope)),
            Outcome::Later(body) => {
                if let Some(call) = at.call
                    && let Err(refused) = call.before(&self.spec, &validated_args(&self.spec.params, obj)).await
                {
                    return Started::Done(refused);
                }
                Started::Body(self.deferred(body))
            }
            outcome => Started::Done(self.answer(outcome, obj, at).await),
        }
    }

    /// The envelope of a started call: guarded (`obj`: the arguments it read), decided, or
    /// settled.
    async fn answer(&self, outcome: Outcome<'_>, obj: Option<&Map<String, Value>>, at: At<'_>) -> Envelope {
        let toolbox = at.toolbox;
        let guard: &crate::call::guard::Guard = match toolbox {
            Some(t) => &t.guard,
            None => crate::call::guard::default_guard(),
        };
        match outcome {
            Outcome::Guarded(g) => {
                let args = crate::confirm::validated_args(&self.spec.params, obj);
                // Quotas and keys are counted per caller (and tenant).
                let caller = at.cx.caller().key();
                if self.spec.needs_confirmation {
                    if let Some(call) = at.call {
                        call.read(&self.spec, &args);
                    }
                    guard.queue(self, args, g, at.cx.caller()).await
                } else {
                    guard.idempotent(self, &args, g, &caller, at.call).await
                }
            }
            Outcome::Decide(id, decision) => match toolbox {
                // The caller of confirm_action runs the action: it needs the tool's scopes.
                Some(toolbox) => {
                    guard.decide(&Approver { toolbox, caller: at.cx.caller() }, &id, decision, at.call, at.cx).await
                }
                None => Fault::backend("confirming an action outside its toolbox").into(),
            },
            other => {
                if let Some(call) = at.call
                    && let Err(refused) = call.before(&self.spec, &validated_args(&self.spec.params, obj)).await
                {
                    return refused;
                }
                self.settle(other).await
            }
        }
    }

    /// A call a policy asked to confirm: a confirm tool's own preview, else a preview of the
    /// call itself (`{"tool", "arguments"}`, without secret parameters), queued for approval.
    /// The started outcome is dropped unrun; `confirm_action` runs the call from its arguments.
    async fn confirm_by_policy(
        &self,
        outcome: Outcome<'_>,
        args: Map<String, Value>,
        toolbox: &Toolbox,
        cx: &Context,
    ) -> Envelope {
        match outcome {
            Outcome::Guarded(g) if self.spec.needs_confirmation => {
                return toolbox.guard.queue(self, args, g, cx.caller()).await;
            }
            unrun => drop(unrun),
        }
        let preview = serde_json::json!({
            "tool": self.spec.name,
            "arguments": crate::args::public_args(&self.spec.params, &args),
        });
        let g = Guarded::new(None, move |_| Outcome::Ready(Envelope::ok(preview)));
        toolbox.guard.queue(self, args, g, cx.caller()).await
    }

    /// Runs the generated call function on `input`; a panic becomes a `BACKEND_ERROR` fault.
    pub(crate) fn start<'a>(&'a self, input: Input<'_>) -> Outcome<'a> {
        catch_unwind(AssertUnwindSafe(|| (self.call)(&self.spec, input)))
            .unwrap_or_else(|_| Outcome::Ready(self.panicked()))
    }

    /// Asks a guarded call for its preview or its run; a panic becomes a fault.
    pub(crate) fn step<'a>(&self, g: crate::confirm::Guarded<'a>, step: crate::confirm::Step) -> Outcome<'a> {
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
    fn settled(&self, envelope: Envelope) -> Envelope {
        settled(envelope, self.spec.annotations.idempotent_hint == Some(true))
    }

    fn panicked(&self) -> Envelope {
        Fault::backend(self.spec.name).into()
    }

    /// Calls the tool with the JSON text of its arguments, of any nesting depth and any number
    /// size. What [`call`](Self::call) cannot see is read from the text:
    /// - a key sent twice in one object (the arguments, or a nested object at any depth) is
    ///   refused, naming the key and quoting every value sent under it
    ///   (`qty: "qty": -1, "qty": 5 sends the key twice; ...`), with any unknown names; the tool
    ///   is not called;
    /// - a number is quoted as sent (`1e3`, not `1000.0`; every digit of an integer too large
    ///   for 64 bits), wherever a refusal quotes it.
    ///
    /// - an object of more than 4096 members, at any depth (the arguments object itself, or an
    ///   object inside a parameter), is refused whole, quoting its first characters and counting
    ///   its keys: `arguments: {"hours_back":1,"group_by":"data… (cut; 32003 keys) has more
    ///   keys than one object may have; accepted: an object of at most 4096 keys, here the
    ///   parameters hours_back, group_by, top, each once. Send only the parameters listed, each
    ///   once.` (not quoted when the object is or holds a secret); the tool is not called.
    ///
    /// A parameter nested deeper than JSON parsing allows (128 levels), or holding a number too
    /// large for a double (`1e400`), is refused by name, together with any unknown names; text
    /// that is not JSON is refused as such, quoting its first characters (nothing when the tool
    /// has a secret parameter).
    ///
    /// The reading costs time linear in the length of `arguments` (the checks of keys sent
    /// twice count each key once), so it may run on an async worker whatever the text holds.
    pub async fn call_json(&self, arguments: &str) -> Envelope {
        let cx = Context::anonymous();
        if self.rate_limits(At::alone(&cx)) {
            // Boxed in a statement of its own: the future awaited here holds only the box.
            let counted = Box::pin(self.rate_limited(At::alone(&cx)));
            if let Some(refused) = counted.await {
                return refused;
            }
        }
        self.call_json_at(arguments, At::alone(&cx), false).await.done()
    }

    /// `defer`: leave a sync body for the caller to run ([`Started::Body`]).
    ///
    /// The usual call, an object of parameters walked in one pass ([`walked`](Self::walked)),
    /// keeps its walked values (`WALKED_INLINE` slots) on the stack, never in this future: what
    /// is left to await after it, an async tool's body, owns the values it read. The general
    /// reading runs in a future of its own ([`read_json`](Self::read_json)).
    async fn call_json_at(&self, arguments: &str, at: At<'_>, defer: bool) -> Started {
        // An audited call hashes its validated arguments, and a policy reads them: both read
        // them as an object.
        let walk = self.walkable && at.call.is_none_or(|c| !c.audits()) && !at.under_policy(&self.spec);
        if walk {
            // Matched in a statement of its own, so only `rest` (not the `Result` with its
            // room for an envelope) is held while it is awaited.
            let rest = match self.walked(arguments, at, defer) {
                Some(Ok(started)) => return started,
                Some(Err(rest)) => Some(rest),
                None => None,
            };
            if let Some(rest) = rest {
                return rest.await;
            }
        }
        // Boxed in a statement of its own: a temporary lives to the end of its statement, and
        // this future would hold the unboxed one across the `.await` of the same statement.
        let rest = Box::pin(self.read_json(arguments, at, defer));
        rest.await
    }

    /// The walk of an object of parameters (see `crate::input`), the call started without
    /// awaiting anything: the walked values stay on this stack. `None`: not an object the walk
    /// reads (the general reading reads it). `Err`: what is left to await ([`Rest`]): an async
    /// body, or the rest of a call that needs a future (a guard, `confirm_action`).
    fn walked<'a>(&'a self, arguments: &str, at: At<'a>, defer: bool) -> Option<Result<Started, Rest<'a>>> {
        let mut room = WalkSlots::default();
        let slots = room.for_params(self.spec.params.len());
        if !input::walk(arguments, &self.spec.params, slots) {
            return None;
        }
        Some(self.started(self.start(Input::text(slots).deferring(defer).in_context(at.cx)), None, at))
    }

    /// The general reading of a call's arguments, from their text (see `crate::read::text`):
    /// what [`walked`](Self::walked) declined.
    async fn read_json(&self, arguments: &str, at: At<'_>, defer: bool) -> Started {
        // Refused past the key limit, for a key sent twice, or for text that cannot be read.
        let mut read = text::Read::default();
        match text::read(&self.spec, arguments, &mut read) {
            Ok((parsed, numbers)) => self.call_with(Some(parsed), &numbers, at, defer).await,
            Err(refusal) => Started::Done(refusal.into()),
        }
    }
}

/// The envelope of a finished call of a tool (`idempotent`: declared so): a fault of a tool
/// that is not idempotent is not retryable, since a retry of a call that may have acted could
/// act twice.
fn settled(envelope: Envelope, idempotent: bool) -> Envelope {
    if envelope.status() == crate::Status::Error && !idempotent { envelope.not_retryable() } else { envelope }
}

/// A call whose arguments were read: its envelope, or its sync body still to run.
pub(crate) enum Started {
    /// The envelope.
    Done(Envelope),
    /// The body, for a thread where blocking is allowed.
    Body(Deferred),
}

impl Started {
    /// The envelope, running a body that was left (on this thread).
    fn done(self) -> Envelope {
        match self {
            Started::Done(envelope) => envelope,
            Started::Body(body) => body.run(),
        }
    }
}

/// A sync tool's body with its arguments read, and what its envelope needs once it ran.
pub(crate) struct Deferred {
    body: crate::outcome::SyncBody,
    name: &'static str,
    idempotent: bool,
    prefix: Option<&'static str>,
    format: WireFormat,
    /// Run where it is awaited ([`Tool::inline_body`]), not on the pool of body threads.
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))] // read by `run_off_the_runtime`
    inline: bool,
    /// What the toolbox adds once the body answered (its outcome record, `provenance`).
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))] // read by `run_off_the_runtime`
    call: Option<Governed>,
}

impl Deferred {
    /// Runs the body (a panic is a `BACKEND_ERROR` fault) and gives its envelope, as
    /// `Toolbox::call_json` would have.
    pub(crate) fn run(self) -> Envelope {
        let (name, idempotent, prefix, format) = (self.name, self.idempotent, self.prefix, self.format);
        let envelope = catch_unwind(AssertUnwindSafe(self.body)).unwrap_or_else(|_| Fault::backend(name).into());
        settled(envelope, idempotent).with_code_prefix(prefix).with_wire_format(format)
    }
}

impl Deferred {
    /// Runs the body on a thread of the pool of body threads (`call::bodies`; inline for a tool
    /// marked [`Tool::inline_body`]) and waits for its envelope, at most until the call's timeout (`#[tool(timeout_ms)]`), when the call is cancelled and answered with the
    /// `TIMEOUT` fault. A body left running there sees `cx.is_cancelled()`. The call is
    /// cancelled too when this future is dropped (a dropped connection, a server shutting down).
    /// Then the call is finished as the toolbox does (its outcome record, `warning`,
    /// `provenance`), a timed-out or panicked body too.
    #[cfg(any(feature = "rmcp", feature = "http"))]
    ///
    /// An inline body of a call with nothing to finish runs without a future; otherwise the
    /// wait is boxed (a timer, an audit write), so the future awaiting this one stays small.
    pub(crate) async fn run_off_the_runtime(self, cx: &Context) -> Envelope {
        if self.inline && self.call.is_none() {
            return self.run();
        }
        Box::pin(self.run_governed(cx)).await
    }

    #[cfg(any(feature = "rmcp", feature = "http"))]
    async fn run_governed(mut self, cx: &Context) -> Envelope {
        let call = self.call.take();
        let envelope = self.run_in_time(cx).await;
        match call {
            Some(call) => call.finish(envelope).await,
            None => envelope,
        }
    }

    #[cfg(any(feature = "rmcp", feature = "http"))]
    async fn run_in_time(self, cx: &Context) -> Envelope {
        let guard = cx.cancel_on_drop();
        if self.inline {
            // Declared quick by its author ([`Tool::inline_body`]): run here, on this worker.
            guard.disarm();
            return self.run();
        }
        // A timed-out or lost body's envelope, as `run` would have finished it.
        let (name, idempotent, prefix, format) = (self.name, self.idempotent, self.prefix, self.format);
        let finished =
            move |fault: Fault| settled(fault.into(), idempotent).with_code_prefix(prefix).with_wire_format(format);
        let (tx, body) = tokio::sync::oneshot::channel();
        let runtime = tokio::runtime::Handle::try_current().ok();
        super::bodies::run(move || {
            // In the runtime's context, as on tokio's blocking threads: a body may still use
            // `Handle::current()` (to `block_on` a future, or spawn one).
            let _entered = runtime.as_ref().map(tokio::runtime::Handle::enter);
            let _ = tx.send(self.run());
        });
        let joined = match cx.deadline() {
            Some(at) => match tokio::time::timeout_at(at.into(), body).await {
                Ok(joined) => joined,
                Err(_) => {
                    drop(guard);
                    return finished(Fault::timeout(name));
                }
            },
            None => body.await,
        };
        guard.disarm();
        // An error only if the body's thread dropped it unanswered (it catches panics itself).
        joined.unwrap_or_else(|_| finished(Fault::backend(name)))
    }
}

/// How many parameters' walked values `call_json` keeps inline, on the stack (more take one
/// allocation).
const WALKED_INLINE: usize = 12;

/// Room for the walked values of a tool's parameters: `WALKED_INLINE` slots in place, more on
/// the heap.
struct WalkSlots<'t> {
    inline: [Option<Sent<'t>>; WALKED_INLINE],
    heap: Vec<Option<Sent<'t>>>,
}

impl Default for WalkSlots<'_> {
    fn default() -> Self {
        WalkSlots { inline: std::array::from_fn(|_| None), heap: Vec::new() }
    }
}

impl<'t> WalkSlots<'t> {
    /// `n` empty slots, one per parameter.
    fn for_params(&mut self, n: usize) -> &mut [Option<Sent<'t>>] {
        if n <= WALKED_INLINE {
            &mut self.inline[..n]
        } else {
            self.heap.resize(n, None);
            &mut self.heap
        }
    }
}

/// What is left of a started call to await ([`Tool::started`]).
enum Rest<'a> {
    /// An async tool's body, with nothing around it: settled as [`Tool::settle`] does.
    Body { tool: &'a Tool, body: EnvelopeFuture<'a> },
    /// Anything else ([`Tool::started_later`]), boxed: rare, and large.
    Later(Pin<Box<dyn Future<Output = Started> + Send + 'a>>),
}

impl Future for Rest<'_> {
    type Output = Started;
    fn poll(mut self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<Started> {
        match &mut *self {
            Rest::Body { tool, body } => match catch_unwind(AssertUnwindSafe(|| body.as_mut().poll(cx))) {
                Ok(Poll::Pending) => Poll::Pending,
                Ok(Poll::Ready(envelope)) => Poll::Ready(Started::Done(tool.settled(envelope))),
                Err(_) => Poll::Ready(Started::Done(tool.settled(tool.panicked()))),
            },
            Rest::Later(later) => later.as_mut().poll(cx),
        }
    }
}

/// Catches a panic inside an async tool's future, so a panic becomes a fault, not a dead task.
struct CatchUnwind<'a>(EnvelopeFuture<'a>);

impl Future for CatchUnwind<'_> {
    type Output = Result<Envelope, ()>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<Self::Output> {
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
///
/// A toolbox with a confirm tool (`#[tool(confirm = ...)]`) also has `confirm_action`, always
/// listed last; see [`crate::confirm`] for confirmation, idempotency keys and their store.
#[derive(Clone, Debug, Default)]
pub struct Toolbox {
    tools: Vec<Tool>,
    prefix: Option<&'static str>,
    pub(crate) guard: Arc<crate::call::guard::Guard>,
    /// Whether the last tool is the `confirm_action` this toolbox added.
    confirm_action: bool,
    format: WireFormat,
    /// Whether the tools serve their full `inputSchema` ([`Toolbox::with_full_input_schema`]).
    full_schema: bool,
    /// The surface this toolbox is served on ([`Toolbox::on`]), if any.
    surface: Option<Arc<Surface>>,
    /// Every tool registered with [`Toolbox::with`], as registered (`tools` is what the
    /// surface shows of them, with `confirm_action`): [`Toolbox::on`] starts from these.
    registered: Vec<Tool>,
    policing: Policing,
}

/// The policy hook of a toolbox and its timeout.
#[derive(Clone)]
struct Policing {
    policy: Option<Arc<dyn Policy>>,
    timeout: Duration,
}

impl Default for Policing {
    fn default() -> Self {
        Policing { policy: None, timeout: crate::policy::DEFAULT_POLICY_TIMEOUT }
    }
}

impl fmt::Debug for Policing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Policing").field("policy", &self.policy.is_some()).field("timeout", &self.timeout).finish()
    }
}

/// What a policy made of a call it did not allow.
enum Ruled {
    /// Refused or blocked: this envelope.
    Answer(Envelope),
    /// Queued for approval.
    Confirm,
}

/// The codes a policy can add to any tool's answers.
const POLICY_CODES: [crate::Code; 3] =
    [crate::codes::FORBIDDEN, crate::codes::T4_BLOCKED, crate::codes::CONFIRMATION_REQUIRED];

impl Policing {
    /// The policy's verdict on a call of `tool` with `args` in `cx`: `None` to go on.
    async fn verdict(&self, tool: &Tool, args: &Map<String, Value>, cx: &Context) -> Option<Ruled> {
        let policy = self.policy.as_deref()?;
        let name = tool.spec.name;
        let request = PolicyRequest::new(cx, &tool.spec, args);
        match crate::policy::within(self.timeout, || policy.decide(&request)).await {
            Ok(Verdict::Allow) => None,
            Ok(Verdict::Confirm) => Some(Ruled::Confirm),
            Ok(Verdict::Deny(missing)) => Some(Ruled::Answer(crate::policy::denied(name, &missing))),
            Ok(Verdict::Block(reason)) => Some(Ruled::Answer(crate::policy::blocked(name, cx.surface(), &reason))),
            Err(why) => {
                #[cfg(feature = "http")]
                tracing::warn!(
                    tool = name,
                    call_id = cx.call_id(),
                    "the policy gave no decision ({why}); the call is refused"
                );
                let _ = why;
                Some(Ruled::Answer(crate::policy::undecided(name)))
            }
        }
    }
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
        let name = tool.name();
        assert!(self.registered.iter().all(|t| t.name() != name), "two tools are named `{name}`");
        self.registered.push(tool.clone());
        if self.show(tool) {
            self.refresh_confirm_action();
        }
        self
    }

    /// Adds `tool` (before any `confirm_action`) when this toolbox's surface shows it; `true`
    /// when added.
    fn show(&mut self, mut tool: Tool) -> bool {
        if let Some(surface) = &self.surface {
            if !surface.shows(&tool.spec) {
                return false;
            }
            if !surface.scopes().is_empty() || surface.needs_tenant() {
                crate::spec::add_codes(&mut tool.spec.error_codes, &[crate::codes::FORBIDDEN]);
            }
        }
        if self.policing.policy.is_some() {
            crate::spec::add_codes(&mut tool.spec.error_codes, &POLICY_CODES);
        }
        tool.format = self.format;
        tool.full_schema = self.full_schema;
        if self.guard.rate_limit.is_some() {
            tool.spec.declare_rate_limited();
        }
        self.declare_audit(&mut tool.spec);
        let at = self.tools.len() - usize::from(self.confirm_action);
        self.tools.insert(at, tool);
        true
    }

    /// This toolbox as served on `surface`: the same tools, store, secret and policy, showing
    /// only the tools `surface` shows ([`Surface::shows`]; never a T4 tool on a public surface).
    /// A hidden tool is absent from [`tools`](Self::tools), [`get`](Self::get), the
    /// [`manifest`](Self::manifest), `tools/list`, `GET /tools` and every provider export, and
    /// a call to it is answered exactly as a name no tool has ([`UnknownTool`] over the visible
    /// names: the same sentence, the same did-you-mean). The attempt is logged (`tracing`,
    /// feature `http`, a `warn` event `hidden tool called` with the surface, the tool, the
    /// call id and the caller's key).
    ///
    /// Every call is made on the surface: [`Context::surface`] is its name over the servers
    /// (`McpServer`, `HttpTools`), and a caller without the surface's scopes, or without a
    /// tenant where the surface needs one, is refused `FORBIDDEN` before any argument is read.
    /// Its tools list `FORBIDDEN` among their codes when the surface has scopes or needs a
    /// tenant. Served again on another surface, a toolbox starts again from every tool
    /// registered: `toolbox.on(&a).on(&b)` is `toolbox.on(&b)`.
    ///
    /// ```
    /// use envelope_core::{call::Surface, Toolbox, tool};
    ///
    /// /// Reads a note.
    /// #[tool(read_only)]
    /// fn read_note(id: u32) -> u32 { id }
    ///
    /// /// Deletes a note.
    /// #[tool(destructive)]
    /// fn delete_note(id: u32) -> u32 { id }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let toolbox = Toolbox::new().with(read_note::tool()).with(delete_note::tool());
    /// let readers = toolbox.on(&Surface::public("readers").only(["read_note"]));
    /// let hidden = readers.call("delete_note", None).await.unwrap_err();
    /// let unknown = readers.call("delete_notes", None).await.unwrap_err();
    /// assert_eq!(hidden.to_string(), r#""delete_note" is not a tool of this server; accepted: read_note. Call one of the listed tools (tools/list)."#);
    /// assert_eq!(unknown.to_string().replace("delete_notes", "delete_note"), hidden.to_string());
    /// # });
    /// ```
    #[must_use]
    pub fn on(&self, surface: &Surface) -> Toolbox {
        let mut out = Toolbox {
            tools: Vec::with_capacity(self.registered.len() + 1),
            surface: Some(Arc::new(surface.clone())),
            ..self.clone()
        };
        out.confirm_action = false;
        for tool in &self.registered {
            out.show(tool.clone());
        }
        out.refresh_confirm_action();
        out
    }

    /// The surface this toolbox is served on ([`on`](Self::on)), if any.
    pub fn surface(&self) -> Option<&Surface> {
        self.surface.as_deref()
    }

    /// Every scope a tool of this toolbox (or its surface) needs, each once, in order: what
    /// a server lists as `scopes_supported` (RFC 9728 §2).
    pub fn scopes(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        let surface = self.surface.iter().flat_map(|s| s.scopes().iter().map(String::as_str));
        for s in surface.chain(self.tools.iter().flat_map(|t| t.scopes().iter().copied())) {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }

    /// Asks `policy` about every call of this toolbox's tools (all but `confirm_action`), after
    /// the arguments are read and validated and before the body runs: allow, deny
    /// (`FORBIDDEN`), block (`T4_BLOCKED`), or queue for approval (see [`Verdict`]). A policy
    /// that errors or answers later than the timeout ([`with_policy_timeout`](Self::with_policy_timeout),
    /// 1 second by default) denies. Every tool then lists `FORBIDDEN`, `T4_BLOCKED` and
    /// `CONFIRMATION_REQUIRED` among its codes, and `confirm_action` is offered (unless
    /// [`without_queue`](Self::without_queue)). See [`Policy`].
    ///
    /// Under a policy the arguments object is built for every call (the one-pass reading of
    /// [`Tool::call_json`] does not build it).
    #[must_use]
    pub fn with_policy(mut self, policy: impl Policy) -> Self {
        self.policing.policy = Some(Arc::new(policy));
        let added = usize::from(self.confirm_action);
        let end = self.tools.len() - added;
        for tool in &mut self.tools[..end] {
            crate::spec::add_codes(&mut tool.spec.error_codes, &POLICY_CODES);
        }
        self.refresh_confirm_action();
        self
    }

    /// How long the policy may take before it counts as failed, and denies (default 1 second;
    /// needs feature `tokio`, without which a policy is awaited as long as it takes).
    #[must_use]
    pub fn with_policy_timeout(mut self, timeout: Duration) -> Self {
        self.policing.timeout = timeout;
        self
    }

    /// `cx`, made on this toolbox's surface (its name) when it is served on one.
    fn on_its_surface<'c>(&self, cx: &'c Context) -> std::borrow::Cow<'c, Context> {
        match self.surface.as_deref() {
            Some(surface) if surface.name() != cx.surface() => {
                std::borrow::Cow::Owned(cx.clone().with_surface(surface.name()))
            }
            _ => std::borrow::Cow::Borrowed(cx),
        }
    }

    /// The tool named `name`, for a call in `cx`: a hidden tool is not found, and its attempt
    /// is handed to [`hidden_attempt`](Self::hidden_attempt).
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))] // the servers find tools
    pub(crate) async fn find(&self, cx: &Context, name: &str) -> Result<&Tool, UnknownTool> {
        match self.get(name) {
            Some(tool) => Ok(tool),
            // Boxed: the record of a hidden tool (and its audit write) is rare, and would
            // otherwise size every caller's future.
            None => Err(Box::pin(self.not_found(cx, name)).await),
        }
    }

    /// A call in `cx` named a tool registered in this toolbox but hidden on its surface (a T4
    /// tool on a public surface, or a tool outside the surface's visible set). It is answered
    /// as unknown; here it is recorded before that answer: a `warn` event `hidden tool called`
    /// (`tracing`), and with an audit trail ([`with_audit`](Self::with_audit)) an `attempt`
    /// record.
    pub(crate) async fn hidden_attempt(&self, cx: &Context, tool: &Tool) {
        tracing::warn!(
            surface = cx.surface(),
            tool = tool.name(),
            call_id = cx.call_id(),
            caller = %cx.caller().key(),
            "hidden tool called"
        );
        if let Some(call) = crate::audit::Governed::of(&self.guard.governance, cx, tool.spec(), false) {
            call.attempted().await;
        }
    }

    /// The scopes of this toolbox's surface and of `tool` that `caller` was not granted, each
    /// once, the surface's first.
    pub(crate) fn missing_scopes<'a>(&'a self, caller: &Caller, tool: &'a Tool) -> Vec<&'a str> {
        let mut missing: Vec<&str> = self.surface.as_deref().map(|s| s.missing_scopes(caller)).unwrap_or_default();
        for s in tool.scopes() {
            if !caller.has_scope(s) && !missing.contains(s) {
                missing.push(s);
            }
        }
        missing
    }

    /// Whether a call of `tool` has its caller checked ([`refuse_caller`](Self::refuse_caller)):
    /// the tool or this toolbox's surface needs scopes, or the surface a tenant.
    fn checks_caller(&self, tool: &Tool) -> bool {
        !tool.scopes().is_empty() || self.surface.as_deref().is_some_and(|s| !s.scopes().is_empty() || s.needs_tenant())
    }

    /// The refusal of a call of `tool` in `cx` before any argument is read: the surface's and
    /// the tool's scopes the caller lacks, or no tenant on a surface that needs one.
    pub(crate) fn refuse_caller(&self, cx: &Context, tool: &Tool) -> Option<Envelope> {
        // The usual call: nothing to check.
        if !self.checks_caller(tool) {
            return None;
        }
        let caller = cx.caller();
        let missing = self.missing_scopes(caller, tool);
        if !missing.is_empty() {
            return Some(self.on_the_wire(crate::policy::missing_scopes(tool.name(), &missing)));
        }
        if let Some(surface) = self.surface.as_deref().filter(|s| s.needs_tenant())
            && caller.tenant().is_none()
        {
            return Some(self.on_the_wire(crate::policy::tenant_missing(tool.name(), surface.name())));
        }
        None
    }

    /// Adds `confirm_action` (last) exactly when a tool needs confirmation and actions can be
    /// queued; rebuilt so its codes cover every confirm tool.
    pub(crate) fn refresh_confirm_action(&mut self) {
        if self.confirm_action {
            let added = self.tools.iter().position(|t| t.name() == crate::confirm::CONFIRM_ACTION);
            if let Some(i) = added {
                self.tools.remove(i);
            }
            self.confirm_action = false;
        }
        let may_confirm = self.policing.policy.is_some() || self.tools.iter().any(|t| t.spec().needs_confirmation);
        if self.guard.queue && may_confirm {
            assert!(
                self.get(crate::confirm::CONFIRM_ACTION).is_none(),
                "a tool is named `confirm_action`, the tool the toolbox adds for confirm tools: rename it"
            );
            let spec = super::confirm_action::confirm_action_spec(self.tools.iter().map(Tool::spec));
            let mut spec = spec;
            if self.guard.rate_limit.is_some() {
                spec.declare_rate_limited();
            }
            let mut confirm_action = Tool::__new(spec, super::confirm_action::confirm_action_call);
            confirm_action.format = self.format;
            self.tools.push(confirm_action);
            self.confirm_action = true;
        }
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

    /// Writes every envelope of this toolbox in `format` (see [`WireFormat`]): the answers of
    /// [`call`](Self::call) and [`call_json`](Self::call_json), hence MCP's text content and
    /// `structuredContent` and the HTTP body, and each tool's `outputSchema`.
    ///
    /// ```
    /// use envelope_core::{tool, Toolbox, outcome::WireFormat};
    ///
    /// /// Counts.
    /// #[tool]
    /// fn count(#[validate(range = 1..=3)] n: u32) -> serde_json::Value {
    ///     serde_json::json!({"count": n, "results": vec![0; n as usize]})
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let toolbox = Toolbox::new().with(count::tool()).with_wire_format(WireFormat::SuccessFlag);
    /// let ok = toolbox.call("count", Some(&serde_json::json!({"n": 2}))).await.unwrap();
    /// assert_eq!(ok.to_json(), r#"{"count":2,"results":[0,0]}"#);
    /// let refused = toolbox.call("count", Some(&serde_json::json!({"n": 9}))).await.unwrap();
    /// assert_eq!(refused.to_json(), r#"{"success":false,"refused":true,"error":"n: 9 is out of range; accepted: a whole number from 1 to 3. Send a value from 1 to 3."}"#);
    /// # });
    /// ```
    #[must_use]
    pub fn with_wire_format(mut self, format: WireFormat) -> Self {
        self.format = format;
        for tool in &mut self.tools {
            tool.format = format;
        }
        self
    }

    /// Serves every tool's full `inputSchema`: cross-parameter rules (`requires`, `excludes`) as a
    /// top-level `allOf` of `if`/`then` and `not`, and the description as declared (see
    /// [`Tool::input_schema`]). For clients that validate arguments with the schema and never
    /// forward it to a model API: Anthropic's refuses such a schema, and an MCP client that
    /// forwards it fails every request it makes, not only this tool's calls.
    #[must_use]
    pub fn with_full_input_schema(mut self) -> Self {
        self.full_schema = true;
        for tool in &mut self.tools {
            tool.full_schema = true;
        }
        self
    }

    /// The format set with [`with_wire_format`](Self::with_wire_format).
    pub fn wire_format(&self) -> WireFormat {
        self.format
    }

    /// An envelope as this toolbox answers it: its code prefix and wire format applied. The one
    /// exit of every reply: each public method that answers an envelope, the HTTP endpoints,
    /// the MCP approval retry and the provider results pass through it.
    pub(crate) fn on_the_wire(&self, envelope: Envelope) -> Envelope {
        envelope.with_code_prefix(self.prefix).with_wire_format(self.format)
    }

    /// What this toolbox adds around a call of `tool` in `cx` (its audit records, `warning`,
    /// `provenance`), or `None` when it adds nothing.
    fn governed(&self, cx: &Context, tool: &Tool) -> Option<Governed> {
        let spec = tool.spec();
        let uses_store = spec.needs_confirmation
            || spec.idempotency_key
            || spec.rate_limit.is_some()
            || self.guard.rate_limit.is_some()
            || spec.name == crate::confirm::CONFIRM_ACTION;
        Governed::of(&self.guard.governance, cx, spec, uses_store && !self.guard.store.is_shared())
    }

    /// A call's envelope as this toolbox answers it: [`on_the_wire`](Self::on_the_wire), then
    /// its outcome recorded and its `warning` and `provenance` added.
    async fn finished(&self, call: Option<&Governed>, envelope: Envelope) -> Envelope {
        let write = match Self::recorded(call, self.on_the_wire(envelope)) {
            Ok(envelope) => return envelope,
            Err(write) => write,
        };
        write.await
    }

    /// `envelope` finished by `call` ([`Governed::finish`]; none: as it is): `Ok` at once when
    /// there is no record to write, else `Err` with the write to await, boxed (it is large and
    /// rare, and the future awaiting it stays small).
    #[allow(clippy::type_complexity)]
    fn recorded(
        call: Option<&Governed>,
        envelope: Envelope,
    ) -> Result<Envelope, Pin<Box<dyn Future<Output = Envelope> + Send + '_>>> {
        match call {
            None => Ok(envelope),
            Some(call) => call.finish_now(envelope).map_err(|envelope| Box::pin(call.finish(envelope)) as _),
        }
    }

    /// The error of a call in `cx` naming no tool this toolbox shows: a hidden tool's attempt
    /// is handed to [`hidden_attempt`](Self::hidden_attempt) first.
    async fn not_found(&self, cx: &Context, name: &str) -> UnknownTool {
        if let Some(hidden) = self.registered.iter().find(|t| t.name() == name) {
            self.hidden_attempt(cx, hidden).await;
        }
        self.unknown(name)
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
    /// A `serde_json::Value` cannot show a key sent twice (`{"qty": -1, "qty": 5}` parses to
    /// `{"qty": 5}`, and is served), nor a number's characters as sent (`1e3` is quoted as
    /// `1000.0`). Where the JSON text is at hand, as in a server, call
    /// [`call_json`](Self::call_json): it refuses the duplicate and quotes `1e3`.
    ///
    /// # Errors
    /// [`UnknownTool`] when no tool has that name (a protocol error, not an envelope).
    ///
    /// The call is made by [`Caller::anonymous`](crate::Caller::anonymous) on the surface
    /// `"local"`; [`call_in`](Self::call_in) makes it in a [`Context`] of your own.
    pub async fn call(&self, name: &str, arguments: Option<&Value>) -> Result<Envelope, UnknownTool> {
        let cx = Context::anonymous_local();
        let answer = self.call_in(&cx, name, arguments).await;
        cx.recycle();
        answer
    }

    /// [`call`](Self::call), made by `cx`'s caller on `cx`'s surface (on this toolbox's
    /// surface, [`on`](Self::on), when it is served on one): quotas and idempotency keys are
    /// counted under [`Caller::key`](crate::Caller::key), and the tool's body sees `cx`.
    ///
    /// A caller without the tool's scopes (or the surface's), or without a tenant on a surface
    /// that needs one, is answered `FORBIDDEN` before any argument is read:
    /// `scope: write_note needs the scope notes:write, which this caller was not granted;
    /// accepted: a caller granted notes:write. ...` (`hints.parameter` is `scope`, or
    /// `tenant`). Under a policy ([`with_policy`](Self::with_policy)) the call may also answer
    /// `FORBIDDEN` (`hints.parameter: "policy"`), `T4_BLOCKED` or `needs_confirmation`.
    ///
    /// # Errors
    /// [`UnknownTool`] when no tool has that name.
    pub async fn call_in(&self, cx: &Context, name: &str, arguments: Option<&Value>) -> Result<Envelope, UnknownTool> {
        self.dispatch(cx, name, Arguments::Value(arguments), false).await.map(Started::done)
    }

    /// Calls tool `name` with the JSON text of its arguments, of any nesting depth (see
    /// [`Tool::call_json`]), as [`Caller::anonymous`](crate::Caller::anonymous).
    ///
    /// # Errors
    /// [`UnknownTool`] when no tool has that name.
    pub async fn call_json(&self, name: &str, arguments: &str) -> Result<Envelope, UnknownTool> {
        let cx = Context::anonymous_local();
        let answer = self.call_json_in(&cx, name, arguments).await;
        cx.recycle();
        answer
    }

    /// [`call_json`](Self::call_json), made in `cx` (see [`call_in`](Self::call_in)).
    ///
    /// # Errors
    /// [`UnknownTool`] when no tool has that name.
    pub async fn call_json_in(&self, cx: &Context, name: &str, arguments: &str) -> Result<Envelope, UnknownTool> {
        self.dispatch(cx, name, Arguments::Text(arguments), false).await.map(Started::done)
    }

    /// [`call_json`](Self::call_json), with a sync tool's body left to run once its arguments
    /// are read: a refusal (or an async tool's answer) comes back done, without the body ever
    /// leaving this thread; a body comes back to run where blocking is allowed.
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))] // the servers hand sync bodies on
    pub(crate) async fn call_json_started(
        &self,
        cx: &Context,
        name: &str,
        arguments: &str,
    ) -> Result<Started, UnknownTool> {
        self.dispatch(cx, name, Arguments::Text(arguments), true).await
    }

    /// [`call_json_started`](Self::call_json_started) for a call sent without arguments (as
    /// [`call_in`](Self::call_in) with `None`).
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))] // MCP hands sync bodies on
    pub(crate) async fn call_started(&self, cx: &Context, name: &str) -> Result<Started, UnknownTool> {
        self.dispatch(cx, name, Arguments::Value(None), true).await
    }

    /// Every call of this toolbox, one way: the tool found on the call's surface (a hidden one
    /// recorded, and unknown), the caller checked (scopes, tenant), the call's audit and
    /// provenance opened, its rate limit counted, its arguments read, and its envelope finished
    /// ([`finished`](Self::finished): on the wire, recorded, warned). `leave_body`: a sync body
    /// comes back unrun ([`Started::Body`], finished by whoever runs it); otherwise it runs
    /// here.
    async fn dispatch(
        &self,
        cx: &Context,
        name: &str,
        arguments: Arguments<'_>,
        leave_body: bool,
    ) -> Result<Started, UnknownTool> {
        // Every step that may await (a hidden tool's record, an audit record, a rate count, a
        // policy, a guard) runs in a future of its own, and only when it applies: the usual
        // call's future stays small (it is moved by whoever awaits it) and awaits nothing.
        let cx = &*self.on_its_surface(cx);
        let tool = match self.get(name) {
            Some(tool) => tool,
            None => {
                // Each boxed in a statement of its own (see `Tool::call_json_at`).
                let unknown = Box::pin(self.not_found(cx, name));
                return Err(unknown.await);
            }
        };
        let call = self.governed(cx, tool);
        let at = At::of(self, cx).with_call(call.as_ref());
        if self.checks_caller(tool) || tool.rate_limits(at) {
            let first = Box::pin(self.refused_first(cx, tool, at));
            if let Some(refused) = first.await {
                return Ok(Started::Done(refused));
            }
        }
        // A governed write's body waits for its intent record.
        let defer = leave_body || call.as_ref().is_some_and(|c| c.needs_intent(tool.spec()));
        let started = match arguments {
            Arguments::Value(value) => tool.call_with(value, &[], at, defer).await,
            Arguments::Text(text) => tool.call_json_at(text, at, defer).await,
        };
        let write = match self.finishing(started, call, leave_body) {
            Ok(started) => return Ok(started),
            Err(write) => write,
        };
        Ok(Started::Done(write.await))
    }

    /// The envelope a call of `tool` at `at` is answered instead of running: its caller refused
    /// ([`refuse_caller`](Self::refuse_caller)) or past a rate limit, finished as every call's
    /// envelope is ([`finished`](Self::finished): recorded as refused, warned). `None`: the call
    /// goes on.
    async fn refused_first(&self, cx: &Context, tool: &Tool, at: At<'_>) -> Option<Envelope> {
        let refused = match self.refuse_caller(cx, tool) {
            Some(refused) => refused,
            None => tool.rate_limited(at).await?,
        };
        Some(self.finished(at.call, refused).await)
    }

    /// What [`dispatch`](Self::dispatch) answers for a started call: a sync body left
    /// (`leave_body`) with what the toolbox adds once it ran, else the envelope
    /// [`finished`](Self::finished): `Ok` at once, or `Err` with its record's write to await
    /// (boxed, holding `call`).
    #[allow(clippy::type_complexity)]
    fn finishing(
        &self,
        started: Started,
        call: Option<Governed>,
        leave_body: bool,
    ) -> Result<Started, Pin<Box<dyn Future<Output = Envelope> + Send + 'static>>> {
        let envelope = match started {
            Started::Body(body) if leave_body => {
                return Ok(Started::Body(Deferred { prefix: self.prefix, format: self.format, call, ..body }));
            }
            started => self.on_the_wire(started.done()),
        };
        let Some(call) = call else { return Ok(Started::Done(envelope)) };
        match call.finish_now(envelope) {
            Ok(envelope) => Ok(Started::Done(envelope)),
            Err(envelope) => Err(Box::pin(async move { call.finish(envelope).await })),
        }
    }

    /// The error for a tool name that does not exist: `name` quoted (cut to its first 32
    /// characters and its length when longer than 40), every tool name, and the closest one.
    ///
    /// Cheap for a name of any length: a name longer than the longest tool name by more than 16
    /// characters is close to none (MCP 2025-11-25 "Tool names": 1 to 128 characters), so no
    /// edit distance is computed for it.
    pub fn unknown(&self, name: &str) -> UnknownTool {
        let names: Vec<String> = self.tools.iter().map(|t| t.name().to_owned()).collect();
        let suggestion = render::closest(name, names.iter().map(String::as_str)).map(str::to_owned);
        UnknownTool { name: render::shown_str(name), names, suggestion }
    }
}

/// A `tools/call` named a tool that does not exist. Its Display is the sentence for the
/// JSON-RPC error (-32602): `"get_top_query" is not a tool of this server; accepted:
/// get_top_queries, search_analytics. Did you mean "get_top_queries"? Call "get_top_queries".`
///
/// It lists at most 20 names (at most 800 bytes of them, each cut to 128 characters) and counts
/// the rest (`accepted: a, b, ... and 480 more (tools/list lists them all).`); the closest name
/// is looked for among all of them. So the sentence stays under 1.5 KB however many tools the
/// server has, and the JSON-RPC error line under MCP's 4.5 KB budget.
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
        let (listed, more) = crate::budget::name_list(self.names.iter().map(String::as_str), str::to_owned);
        if self.names.is_empty() {
            write!(f, "{} is not a tool of this server, which has no tools.", self.name)?;
        } else if more > 0 {
            write!(f, "{} is not a tool of this server; accepted: {listed} (tools/list lists them all).", self.name)?;
        } else {
            write!(f, "{} is not a tool of this server; accepted: {listed}.", self.name)?;
        }
        let suggestion = self.suggestion.as_deref().map(|s| crate::budget::cut_text(s, 128, 400));
        match &suggestion {
            Some(s) => write!(f, " Did you mean \"{s}\"? Call \"{s}\"."),
            None => write!(f, " Call one of the listed tools (tools/list)."),
        }
    }
}

impl std::error::Error for UnknownTool {}

/// How a surface that answers envelopes words the refusal of a tool name it does not have.
pub(crate) struct UnknownToolWords {
    /// `is not a tool of this server`.
    pub(crate) reason: &'static str,
    /// The accepted set when there are no tools: `none: this server has no tools`.
    pub(crate) none: &'static str,
    /// Before the listed names: nothing, or `one of `.
    pub(crate) one_of: &'static str,
    /// After the listed names when some are counted instead: ` (GET /tools lists them all)`.
    pub(crate) more: &'static str,
    /// The fix, with the closest name or without one.
    pub(crate) fix: fn(Option<&str>) -> String,
}

impl UnknownTool {
    /// The same unknown name refused in an envelope (`NOT_FOUND`, `hints.parameter` `name`):
    /// `sent` quoted, the tools listed as JSON strings (at most 20, the rest counted), the
    /// closest name as the suggestion, in the surface's `words`.
    pub(crate) fn refusal(&self, sent: &str, words: &UnknownToolWords) -> Refusal {
        let names = self.names.iter().map(String::as_str);
        let (listed, more) = crate::budget::name_list(names, |n| render::quoted_list([n]));
        let accepted = if self.names.is_empty() {
            words.none.to_owned()
        } else if more > 0 {
            format!("{}{listed}{}", words.one_of, words.more)
        } else {
            format!("{}{listed}", words.one_of)
        };
        let mut refusal = Refusal::parameter("name")
            .rejected(sent)
            .reason(words.reason)
            .accepted(accepted)
            .fix((words.fix)(self.suggestion()));
        if let Some(s) = self.suggestion() {
            refusal = refusal.suggestion(s);
        }
        refusal.build().with_code(crate::codes::NOT_FOUND)
    }
}

/// Confirmation and idempotency keys: the settings of the toolbox's guard, and confirmation by
/// hand (see [`crate::confirm`]).
impl Toolbox {
    /// Keeps pending actions and idempotency records in `store` (default: a [`MemoryStore`](crate::store::MemoryStore) of
    /// this toolbox and its clones). Replicas that share a store (and a secret,
    /// [`with_secret`](Self::with_secret)) confirm each other's actions and replay each
    /// other's keys.
    #[must_use]
    pub fn with_store(mut self, store: Arc<dyn Store>) -> Self {
        Arc::make_mut(&mut self.guard).store = store;
        self
    }

    /// Seals pending action ids and fingerprints arguments with `secret` (at least 32 bytes;
    /// the examples read it from `ENVELOPE_SECRET`). Without it, a random key of this process:
    /// approvals do not survive a restart or cross replicas.
    ///
    /// # Errors
    /// [`SecretTooShort`] under 32 bytes: refuse to start rather than seal with a guessable key.
    pub fn with_secret(mut self, secret: impl AsRef<[u8]>) -> Result<Self, SecretTooShort> {
        let secret = secret.as_ref();
        if secret.len() < MIN_SECRET_BYTES {
            return Err(SecretTooShort { len: secret.len() });
        }
        Arc::make_mut(&mut self.guard).key = Arc::from(secret);
        Ok(self)
    }

    /// At most `limit` calls of this toolbox's tools, all of them together, per caller and
    /// tenant ([`Caller::key`](crate::Caller::key)), counted in the toolbox's store (GCRA; see
    /// [`crate::rate`]): with a `RedisStore` the limit holds across replicas. A call past it
    /// runs nothing and answers `RATE_LIMITED` (`retryable: true`, `hints.retry_after_ms`, HTTP
    /// 429 with `Retry-After`); every tool lists `RATE_LIMITED` in its `error_codes`. A tool's
    /// own `#[tool(rate_limit = "...")]` is counted too, after this one.
    ///
    /// ```
    /// use envelope_core::{tool, spec::rate::RateLimit, Toolbox};
    ///
    /// /// Pings.
    /// #[tool(read_only)]
    /// fn ping() -> u32 {
    ///     1
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let toolbox = Toolbox::new().with(ping::tool()).with_rate_limit(RateLimit::per_minute(1));
    /// assert!(toolbox.call("ping", None).await.unwrap().data().is_some());
    /// let limited = toolbox.call("ping", None).await.unwrap();
    /// assert_eq!(limited.error_code().unwrap().name(), "RATE_LIMITED");
    /// assert_eq!(limited.retryable(), Some(true));
    /// assert!(limited.retry_after_ms().unwrap() > 59_000);
    /// assert!(limited.message().unwrap().ends_with("Try again in 60 seconds."));
    /// # });
    /// ```
    #[must_use]
    pub fn with_rate_limit(mut self, limit: crate::spec::rate::RateLimit) -> Self {
        Arc::make_mut(&mut self.guard).rate_limit = Some(limit);
        for tool in &mut self.tools {
            tool.spec.declare_rate_limited();
        }
        self
    }

    /// Limits tool `name` to `limit` calls per caller and tenant, replacing its
    /// `#[tool(rate_limit = "...")]` (a limit read from the configuration, say
    /// `ENVELOPE_RATE_LIMIT`, parsed with `"5/s".parse::<RateLimit>()`). A name no tool has
    /// changes nothing.
    #[must_use]
    pub fn with_tool_rate_limit(mut self, name: &str, limit: crate::spec::rate::RateLimit) -> Self {
        // The registered tool too, so the limit holds on every surface (`on`).
        for tool in self.tools.iter_mut().chain(self.registered.iter_mut()).filter(|t| t.name() == name) {
            tool.spec.rate_limit = Some(limit);
            tool.spec.declare_rate_limited();
        }
        self
    }

    /// Requires `scopes` of every caller of tool `name`, replacing its `#[tool(scopes = [...])]`
    /// (scopes read from the configuration: the same tools served with and without
    /// authentication). A caller without them is refused `FORBIDDEN` before any argument is
    /// read (over `/tools`, 403 with `WWW-Authenticate: Bearer error="insufficient_scope"`);
    /// the tool lists `FORBIDDEN` among its codes and the scopes in the manifest. A name no tool
    /// has changes nothing.
    #[must_use]
    pub fn with_tool_scopes(mut self, name: &str, scopes: &'static [&'static str]) -> Self {
        // The registered tool too, so the scopes hold on every surface (`on`).
        for tool in self.tools.iter_mut().chain(self.registered.iter_mut()).filter(|t| t.name() == name) {
            tool.spec = tool.spec.clone().with_scopes(scopes);
        }
        self.refresh_confirm_action();
        self
    }

    /// Records every call in an audit trail (see [`crate::audit`]): one outcome record per
    /// call, and for a governed write (a tool of `audit`'s intent tier or above, 3 by default)
    /// an intent record before its body runs; when the intent cannot be written the body does
    /// not run and the call answers `AUDIT_UNAVAILABLE` (listed in those tools' `error_codes`).
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use envelope_core::call::audit::{Audit, AuditFuture, AuditRecord, AuditSink};
    /// use envelope_core::{tool, Toolbox};
    ///
    /// #[derive(Debug, Default)]
    /// struct Kept(Mutex<Vec<AuditRecord>>);
    /// impl AuditSink for Kept {
    ///     fn write<'a>(&'a self, record: &'a AuditRecord) -> AuditFuture<'a> {
    ///         self.0.lock().unwrap().push(record.clone());
    ///         Box::pin(async { Ok(()) })
    ///     }
    /// }
    ///
    /// /// Deletes everything.
    /// #[tool(destructive)]
    /// fn wipe() -> u32 {
    ///     0
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let kept = Arc::new(Kept::default());
    /// let toolbox = Toolbox::new().with(wipe::tool()).with_audit(Audit::new(kept.clone()));
    /// toolbox.call("wipe", None).await.unwrap();
    /// let records = kept.0.lock().unwrap();
    /// let kinds: Vec<String> = records.iter().map(|r| r.to_json()).collect();
    /// assert!(kinds[0].starts_with(r#"{"kind":"intent","call_id":"call_"#), "{kinds:?}");
    /// assert_eq!(records[1].outcome, Some(serde_json::json!({"status": "ok"})));
    /// assert_eq!(records[0].call_id, records[1].call_id);
    /// # });
    /// ```
    #[must_use]
    pub fn with_audit(mut self, audit: crate::audit::Audit) -> Self {
        Arc::make_mut(&mut self.guard).governance.audit = Some(audit);
        let mut tools = std::mem::take(&mut self.tools);
        for tool in &mut tools {
            self.declare_audit(&mut tool.spec);
        }
        self.tools = tools;
        self.refresh_confirm_action();
        self
    }

    /// Adds `provenance` to every envelope of this toolbox: `{"call_id", "surface", "tool",
    /// "tier", "caller", "tenant", "approval", "replay"}` (the caller's subject and tenant;
    /// never a token or a claim), in every wire format with room for it and in `outputSchema`.
    ///
    /// ```
    /// use envelope_core::{tool, Caller, Context, Toolbox};
    ///
    /// /// Reads.
    /// #[tool(read_only)]
    /// fn read() -> u32 {
    ///     1
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let toolbox = Toolbox::new().with(read::tool()).with_provenance();
    /// let cx = Context::new(Caller::new("alice").with_tenant("acme")).with_surface("mcp");
    /// let env = toolbox.call_in(&cx, "read", None).await.unwrap();
    /// assert_eq!(env.provenance().unwrap(), &serde_json::json!({
    ///     "call_id": cx.call_id(), "surface": "mcp", "tool": "read", "tier": 1,
    ///     "caller": "alice", "tenant": "acme", "approval": null, "replay": false}));
    /// # });
    /// ```
    #[must_use]
    pub fn with_provenance(mut self) -> Self {
        Arc::make_mut(&mut self.guard).governance.provenance = true;
        self
    }

    /// Says this server runs as several replicas: a call that relies on the store (approvals,
    /// idempotency keys, rate limits) over a store other replicas do not see (the default
    /// [`MemoryStore`](crate::store::MemoryStore)) answers with a `warning` saying so.
    #[must_use]
    pub fn with_replicas(mut self) -> Self {
        Arc::make_mut(&mut self.guard).governance.replicas = true;
        self
    }

    /// Lists `AUDIT_UNAVAILABLE` among the codes of a governed write.
    fn declare_audit(&self, spec: &mut ToolSpec) {
        if let Some(audit) = &self.guard.governance.audit
            && crate::audit::tier(spec) >= audit.intent_from_tier()
            && !spec.error_codes.contains(&crate::codes::AUDIT_UNAVAILABLE)
        {
            spec.error_codes.push(crate::codes::AUDIT_UNAVAILABLE);
        }
    }

    /// How long a pending action waits for approval (default 15 minutes; at least 1 second).
    #[must_use]
    pub fn with_confirmation_ttl(mut self, ttl: Duration) -> Self {
        Arc::make_mut(&mut self.guard).confirm_ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// How long an idempotency record is kept (default 24 hours).
    #[must_use]
    pub fn with_idempotency_ttl(mut self, ttl: Duration) -> Self {
        Arc::make_mut(&mut self.guard).idem_ttl = ttl;
        self
    }

    /// How long a call waits for the envelope of a running call with its idempotency key before
    /// answering `IN_PROGRESS` (default 5 seconds; needs feature `tokio` to wait at all).
    #[must_use]
    pub fn with_idempotency_wait(mut self, wait: Duration) -> Self {
        Arc::make_mut(&mut self.guard).wait = wait;
        self
    }

    /// This toolbox cannot queue actions for approval (served where `confirm_action` is not
    /// exposed): a confirm tool runs its preview and answers `error` with
    /// `CONFIRMATION_REQUIRED` and no `pending_action_id`; `confirm_action` is not offered.
    #[must_use]
    pub fn without_queue(mut self) -> Self {
        Arc::make_mut(&mut self.guard).queue = false;
        self.refresh_confirm_action();
        self
    }

    /// Whether tool `name` waits for approval (`#[tool(confirm = ...)]`).
    pub fn needs_confirmation(&self, name: &str) -> bool {
        self.get(name).is_some_and(|t| t.spec().needs_confirmation)
    }

    /// `confirm_action` by hand: `approved` runs the pending action once and answers its
    /// envelope; otherwise `ok` with `{"done": false, "reason": "rejected"}`. Unknown, expired,
    /// forged or altered ids answer `NOT_FOUND`, a used one `CONFLICT`, a store fault
    /// `BACKEND_ERROR`.
    pub async fn confirm(&self, pending_action_id: &str, approved: bool) -> Envelope {
        let decision = if approved { Decision::Approve } else { Decision::Reject };
        self.decide(pending_action_id, decision).await
    }

    /// Runs (`Approve`) or drops the pending action `pending_action_id`, once, as
    /// [`confirm`](Self::confirm); a dropped one answers `{"done": false, "reason": R}` with R
    /// `rejected`, `declined` or `cancelled`.
    ///
    /// Decided by [`Caller::anonymous`]; [`decide_in`](Self::decide_in) decides as a caller.
    pub async fn decide(&self, pending_action_id: &str, decision: Decision) -> Envelope {
        let call = self.get(crate::confirm::CONFIRM_ACTION).and_then(|t| self.governed(&Context::anonymous(), t));
        let cx = Context::anonymous();
        let envelope = self.guard.decide(self, pending_action_id, decision, call.as_ref(), &cx).await;
        self.finished(call.as_ref(), envelope).await
    }

    /// [`decide`](Self::decide), by `cx`'s caller, as its `confirm_action` would: an action of
    /// another tenant, or of a tool whose scopes the caller was not granted, is `NOT_FOUND` (the
    /// id is not used up); the approved run is made in `cx` (the tool's body sees that caller,
    /// call id and surface) and the audit trail records `cx`'s caller as the approver.
    pub async fn decide_in(&self, cx: &Context, pending_action_id: &str, decision: Decision) -> Envelope {
        let cx = &*self.on_its_surface(cx);
        let call = self.get(crate::confirm::CONFIRM_ACTION).and_then(|t| self.governed(cx, t));
        let approver = Approver { toolbox: self, caller: cx.caller() };
        let envelope = self.guard.decide(&approver, pending_action_id, decision, call.as_ref(), cx).await;
        self.finished(call.as_ref(), envelope).await
    }

    /// Whether `pending_action_id` was sealed for a call of `tool` with `arguments` (an MCP
    /// retry carrying it as `requestState`), without using it up: [`PendingCheck::Matches`]
    /// (go on with [`decide`](Self::decide)), [`PendingCheck::OtherArguments`] (ask again: call
    /// the tool for a new id), or the envelope to answer.
    pub async fn check_pending(&self, pending_action_id: &str, tool: &str, arguments: Option<&Value>) -> PendingCheck {
        // Only a confirm tool's reading stops before its body: never run another to check.
        let Some(t) = self.get(tool).filter(|t| t.spec().needs_confirmation) else {
            return PendingCheck::Refused(self.on_the_wire(self.guard.not_found(pending_action_id)));
        };
        let obj = match arguments {
            None | Some(Value::Null) => None,
            Some(Value::Object(o)) => Some(o),
            Some(_) => return PendingCheck::Refused(self.on_the_wire(t.call(arguments).await)),
        };
        match t.start(crate::args::Input::object(obj)) {
            Outcome::Guarded(_) => {}
            other => return PendingCheck::Refused(self.on_the_wire(t.settle(other).await)),
        }
        let args = validated_args(&t.spec().params, obj);
        match self.guard.check(pending_action_id, tool, &args).await {
            PendingCheck::Refused(e) => PendingCheck::Refused(self.on_the_wire(e)),
            other => other,
        }
    }
}

impl crate::call::guard::Steps for Tool {
    fn declared(&self) -> &ToolSpec {
        &self.spec
    }

    fn finish(&self, g: Guarded<'_>, step: Step) -> impl Future<Output = Envelope> + Send {
        self.settle(self.step(g, step))
    }

    // Spelled out: the trait asks for a `Send` future, which an `async fn` here would not state.
    #[allow(clippy::manual_async_fn)]
    fn run_with<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        cx: &'a Context,
    ) -> impl Future<Output = Envelope> + Send + 'a {
        async move {
            match self.start(Input::object(Some(args)).in_context(cx)) {
                Outcome::Guarded(g) => self.settle(self.step(g, Step::Run)).await,
                // Read again, the stored arguments were refused (a tool changed between replicas).
                other => self.settle(other).await,
            }
        }
    }
}

impl crate::call::guard::Lookup for Toolbox {
    type Tool = Tool;

    fn tool(&self, name: &str) -> Option<&Tool> {
        self.get(name)
    }
}

/// The tools `confirm_action` may run for its caller, of actions queued within its tenant:
/// those the toolbox shows whose scopes (and its surface's) the caller was granted. Another
/// pending action is not found, and its id is not used up.
/// The approved action's body runs in the approver's call (its caller, tenant and call id).
struct Approver<'a> {
    toolbox: &'a Toolbox,
    caller: &'a Caller,
}

impl crate::call::guard::Lookup for Approver<'_> {
    type Tool = Tool;

    fn tool(&self, name: &str) -> Option<&Tool> {
        self.toolbox.get(name).filter(|t| self.toolbox.missing_scopes(self.caller, t).is_empty())
    }

    fn decides_for(&self, tenant: Option<&str>) -> bool {
        self.caller.tenant() == tenant
    }
}

/// The arguments of a call as they came: parsed, or the JSON text.
#[derive(Clone, Copy)]
enum Arguments<'a> {
    Value(Option<&'a Value>),
    Text(&'a str),
}

/// Where a call is made: the toolbox it was found in (its store, its secret; `confirm_action`
/// needs it; `None` for a lone [`Tool`]), and the call's [`Context`].
#[derive(Clone, Copy)]
pub(crate) struct At<'t> {
    pub(crate) toolbox: Option<&'t Toolbox>,
    pub(crate) cx: &'t Context,
    /// What the toolbox adds around the call, when it adds anything.
    pub(crate) call: Option<&'t Governed>,
}

impl<'t> At<'t> {
    pub(crate) fn of(toolbox: &'t Toolbox, cx: &'t Context) -> Self {
        At { toolbox: Some(toolbox), cx, call: None }
    }

    pub(crate) fn alone(cx: &'t Context) -> Self {
        At { toolbox: None, cx, call: None }
    }

    pub(crate) fn with_call(self, call: Option<&'t Governed>) -> Self {
        At { call, ..self }
    }

    /// Whether a call of `spec` here waits for a policy's verdict: a toolbox with a policy, a
    /// tool other than `confirm_action`.
    pub(crate) fn under_policy(&self, spec: &ToolSpec) -> bool {
        self.toolbox.is_some_and(|t| t.policing.policy.is_some()) && spec.name != crate::confirm::CONFIRM_ACTION
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whoever awaits a call moves its future (into a task, a `Box`, a `pin!` on its stack):
    /// the usual call's must stay small, its rare parts (audit records, rate counts, policy,
    /// guard, an async tool's walked values) boxed where they are met. Before they were, the
    /// future of `Toolbox::call_json` was over 1 KB and carried the walked values of twelve
    /// parameters; now about 370 bytes (a debug build).
    #[test]
    fn the_futures_of_a_call_stay_small() {
        let toolbox = Toolbox::new();
        let cx = Context::anonymous();
        let sizes = [
            ("call_json", std::mem::size_of_val(&toolbox.call_json("t", "{}"))),
            ("call", std::mem::size_of_val(&toolbox.call("t", None))),
            ("call_json_in", std::mem::size_of_val(&toolbox.call_json_in(&cx, "t", "{}"))),
            ("call_json_started", std::mem::size_of_val(&toolbox.call_json_started(&cx, "t", "{}"))),
        ];
        eprintln!("{sizes:?}");
        for (name, size) in sizes {
            assert!(size <= 512, "{name}'s future is {size} bytes");
        }
        // Finding a tool awaits only for a name it does not show (the hidden tool's record,
        // boxed): every caller's future holds this one.
        let find = std::mem::size_of_val(&toolbox.find(&cx, "t"));
        assert!(find <= 128, "find's future is {find} bytes");
    }
}
