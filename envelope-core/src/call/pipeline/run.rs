//! Running: a started call's body, settled now, awaited, guarded (queued, replayed, decided), or
//! left to run off the runtime (`Deferred`: the pool of body threads, inline, at the call's
//! timeout).

use serde_json::{Map, Value};
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{self, Poll};

use super::at::At;
use super::decide::Ruled;
use crate::call::confirm_api::Approver;
use crate::call::tool::Tool;
use crate::call::unwind::CatchUnwind;

use crate::call::audit::Governed;
use crate::call::guard::confirm::validated_args;
use crate::call::tool::retry_as_declared;
#[cfg(any(feature = "rmcp", feature = "http"))]
use crate::context::Context;
use crate::outcome::envelope::Envelope;
use crate::outcome::fault::Fault;
use crate::outcome::wire::WireFormat;
use crate::outcome::{EnvelopeFuture, Outcome};

/// A call whose arguments were read: its envelope, or its sync body still to run.
pub(crate) enum Started {
    /// The envelope.
    Done(Envelope),
    /// The body, for a thread where blocking is allowed.
    Body(Deferred),
}

impl Started {
    /// The envelope, running a body that was left (on this thread).
    pub(super) fn done(self) -> Envelope {
        match self {
            Started::Done(envelope) => envelope,
            Started::Body(body) => body.run(),
        }
    }
}

/// A sync tool's body with its arguments read, and what its envelope needs once it ran.
pub(crate) struct Deferred {
    pub(super) body: crate::outcome::SyncBody,
    pub(super) name: &'static str,
    pub(super) idempotent: bool,
    pub(super) prefix: Option<&'static str>,
    pub(super) format: WireFormat,
    /// Run where it is awaited ([`Tool::inline_body`]), not on the pool of body threads.
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))] // read by `run_off_the_runtime`
    pub(super) inline: bool,
    /// What the toolbox adds once the body answered (its outcome record, `provenance`).
    #[cfg_attr(not(any(feature = "rmcp", feature = "http")), allow(dead_code))] // read by `run_off_the_runtime`
    pub(super) call: Option<Governed>,
}

/// What is left of a started call to await ([`Tool::started`]).
pub(super) enum Rest<'a> {
    /// An async tool's body, with nothing around it: settled as [`Tool::settle`] does.
    Body { tool: &'a Tool, body: CatchUnwind<EnvelopeFuture<'a>> },
    /// Anything else ([`Tool::started_later`]), boxed: rare, and large.
    Later(Pin<Box<dyn Future<Output = Started> + Send + 'a>>),
}

impl Future for Rest<'_> {
    type Output = Started;
    fn poll(mut self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<Started> {
        match &mut *self {
            Rest::Body { tool, body } => match Pin::new(body).poll(cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(Ok(envelope)) => Poll::Ready(Started::Done(tool.settled(envelope))),
                Poll::Ready(Err(())) => Poll::Ready(Started::Done(tool.settled(tool.panicked()))),
            },
            Rest::Later(later) => later.as_mut().poll(cx),
        }
    }
}

impl Tool {
    /// What a started call comes to: its envelope, or its sync body left to run. Under a
    /// policy ([`Toolbox::with_policy`]), the arguments are read and valid here and the body has
    /// not run (a sync body was left, an async one not polled, a guarded one not stepped): the
    /// policy's verdict comes first.
    ///
    /// `Ok`: the usual call, answered without awaiting anything ([`started_now`](Self::started_now)).
    /// `Err`: what is left to await ([`Rest`]): an async body with nothing around it, or the
    /// rest ([`started_later`](Self::started_later): a policy, an audit record, a guard) in a
    /// future of its own; so the future that awaits it stays small.
    pub(super) fn started<'a>(
        &'a self,
        outcome: Outcome<'a>,
        obj: Option<&'a Map<String, Value>>,
        at: At<'a>,
    ) -> Result<Started, Rest<'a>> {
        match self.started_now(outcome, obj, at) {
            Ok(started) => Ok(started),
            Err(Outcome::Pending(body))
                if at.call.is_none() && !at.under_policy(&self.spec) && !at.cx.waits_before_body() =>
            {
                Err(Rest::Body { tool: self, body: CatchUnwind(body) })
            }
            Err(outcome) => Err(Rest::Later(Box::pin(self.started_later(outcome, obj, at)))),
        }
    }

    /// What [`started`](Self::started) answers without awaiting anything: a sync tool's answer
    /// or a refusal (settled), or a sync body left to run when no policy's verdict and no
    /// audit intent come before it. `Err`: the outcome, for [`started_later`](Self::started_later).
    pub(super) fn started_now<'a>(
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
    pub(super) fn deferred(&self, body: crate::outcome::SyncBody) -> Deferred {
        Deferred {
            body,
            name: self.spec.name,
            idempotent: self.spec.annotations.repeats_safely(),
            prefix: None,
            format: WireFormat::Envelope,
            inline: self.inline,
            call: None,
        }
    }

    /// [`started`](Self::started) of an outcome it could not answer at once.
    pub(super) async fn started_later(
        &self,
        outcome: Outcome<'_>,
        obj: Option<&Map<String, Value>>,
        at: At<'_>,
    ) -> Started {
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
        // The transport's word before an async or guarded body runs (an MCP task is created
        // here, once nothing before the body answered the call).
        if matches!(outcome, Outcome::Pending(_) | Outcome::Guarded(_)) && !at.cx.body_may_start().await {
            return Started::Done(Fault::backend("the body was not run: the transport could not take the call").into());
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
    pub(super) async fn answer(&self, outcome: Outcome<'_>, obj: Option<&Map<String, Value>>, at: At<'_>) -> Envelope {
        let toolbox = at.toolbox;
        let guard: &crate::call::guard::Guard = match toolbox {
            Some(t) => &t.guard,
            None => crate::call::guard::default_guard(),
        };
        match outcome {
            Outcome::Guarded(g) => {
                let args = crate::call::guard::confirm::validated_args(&self.spec.params, obj);
                if self.spec.needs_confirmation {
                    if let Some(call) = at.call {
                        call.read(&self.spec, &args);
                    }
                    guard.queue(self, args, g, at.cx.caller()).await
                } else {
                    guard.idempotent(self, &args, g, at.cx.caller(), at.call).await
                }
            }
            Outcome::Decide(id, decision) => match toolbox {
                // The caller of confirm_action runs the action: it needs the tool's scopes.
                Some(toolbox) => {
                    guard
                        .decide(
                            &Approver { toolbox, caller: at.cx.caller() },
                            &id,
                            decision,
                            at.call,
                            at.cx,
                            crate::call::guard::confirm::IdSent::PendingActionId,
                        )
                        .await
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
}

impl Deferred {
    /// Runs the body (a panic is a `BACKEND_ERROR` fault) and gives its envelope, as
    /// `Toolbox::call_json` would have.
    pub(crate) fn run(self) -> Envelope {
        let (name, idempotent, prefix, format) = (self.name, self.idempotent, self.prefix, self.format);
        let envelope = catch_unwind(AssertUnwindSafe(self.body)).unwrap_or_else(|_| Fault::backend(name).into());
        retry_as_declared(envelope, idempotent).with_code_prefix(prefix).with_wire_format(format)
    }

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
    pub(super) async fn run_governed(mut self, cx: &Context) -> Envelope {
        let call = self.call.take();
        let envelope = self.run_in_time(cx).await;
        match call {
            Some(call) => call.finish(envelope).await,
            None => envelope,
        }
    }

    #[cfg(any(feature = "rmcp", feature = "http"))]
    pub(super) async fn run_in_time(self, cx: &Context) -> Envelope {
        let guard = cx.cancel_on_drop();
        if self.inline {
            // Declared quick by its author ([`Tool::inline_body`]): run here, on this worker.
            guard.disarm();
            return self.run();
        }
        // A timed-out or lost body's envelope, as `run` would have finished it.
        let (name, idempotent, prefix, format) = (self.name, self.idempotent, self.prefix, self.format);
        let finished = move |fault: Fault| {
            retry_as_declared(fault.into(), idempotent).with_code_prefix(prefix).with_wire_format(format)
        };
        let (tx, body) = tokio::sync::oneshot::channel();
        let runtime = tokio::runtime::Handle::try_current().ok();
        crate::call::bodies::run(move || {
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
