//! The call pipeline, one door: every call of a toolbox (by name, with arguments as a value,
//! text or bytes; a decision on a pending action) enters by `dispatch` or a decision's entry
//! here, and passes admission (`admit.rs`), reading (`reading.rs`), the policy (`decide.rs`),
//! running (`run.rs`) and finishing (`finish.rs`), each private to this folder. An adapter
//! builds a call and hands it here; it cannot reach admission.

use crate::call::confirm_api::Approver;
use crate::call::guard::confirm::{IdSent, PendingCheck};
use crate::outcome::Decision;
use serde_json::Value;

use crate::call::registry::{Toolbox, UnknownTool};
use crate::call::tool::Tool;
use crate::context::Context;
use crate::outcome::envelope::Envelope;

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
    }
}

impl Tool {
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
}

impl Toolbox {
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
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))] // MCP hands sync bodies on
    pub(crate) async fn call_json_started(
        &self,
        cx: &Context,
        name: &str,
        arguments: &str,
    ) -> Result<Started, UnknownTool> {
        self.dispatch(cx, name, Arguments::Text(arguments), true).await
    }

    /// [`call_json_started`](Self::call_json_started) for the bytes of a body (an HTTP
    /// request's): read as UTF-8 JSON text once the call is admitted, so a caller refused for
    /// its scopes is told that first, and bytes that are not UTF-8 are refused, recorded and
    /// finished as any other refusal.
    #[cfg_attr(not(feature = "http"), allow(dead_code))] // the HTTP endpoints send bodies
    pub(crate) async fn call_bytes_started(
        &self,
        cx: &Context,
        name: &str,
        body: &[u8],
    ) -> Result<Started, UnknownTool> {
        self.dispatch(cx, name, Arguments::Bytes(body), true).await
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
    pub(in crate::call) async fn dispatch(
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
            Arguments::Bytes(bytes) => match crate::read::text::of_bytes(tool.spec(), bytes) {
                Ok(text) => tool.call_json_at(text, at, defer).await,
                Err(refusal) => Started::Done(refusal.into()),
            },
        };
        let write = match self.finishing(started, call, leave_body) {
            Ok(started) => return Ok(started),
            Err(write) => write,
        };
        Ok(Started::Done(write.await))
    }
}

/// The decisions on pending actions: each enters here, as every call does.
impl Toolbox {
    /// Runs (`Approve`) or drops the pending action `pending_action_id`, once, as
    /// [`confirm`](Self::confirm); a dropped one answers `{"done": false, "reason": R}` with R
    /// `rejected`, `declined` or `cancelled`.
    ///
    /// Decided by [`Caller::anonymous`](crate::Caller::anonymous); [`decide_in`](Self::decide_in) decides as a caller.
    pub async fn decide(&self, pending_action_id: &str, decision: Decision) -> Envelope {
        let call =
            self.get(crate::call::guard::confirm::CONFIRM_ACTION).and_then(|t| self.governed(&Context::anonymous(), t));
        let cx = Context::anonymous();
        let envelope =
            self.guard.decide(self, pending_action_id, decision, call.as_ref(), &cx, IdSent::PendingActionId).await;
        self.finished(call.as_ref(), envelope).await
    }

    /// [`decide`](Self::decide), by `cx`'s caller, as its `confirm_action` would: an action of
    /// another tenant, or of a tool whose scopes the caller was not granted, is `NOT_FOUND` (the
    /// id is not used up); the approved run is made in `cx` (the tool's body sees that caller,
    /// call id and surface) and the audit trail records `cx`'s caller as the approver.
    pub async fn decide_in(&self, cx: &Context, pending_action_id: &str, decision: Decision) -> Envelope {
        self.decide_as(cx, pending_action_id, decision, IdSent::PendingActionId).await
    }

    /// [`decide_in`](Self::decide_in), its refusals naming the id as it was `sent`.
    async fn decide_as(&self, cx: &Context, pending_action_id: &str, decision: Decision, sent: IdSent) -> Envelope {
        let cx = &*self.on_its_surface(cx);
        let call = self.get(crate::call::guard::confirm::CONFIRM_ACTION).and_then(|t| self.governed(cx, t));
        let approver = Approver { toolbox: self, caller: cx.caller() };
        let envelope = self.guard.decide(&approver, pending_action_id, decision, call.as_ref(), cx, sent).await;
        self.finished(call.as_ref(), envelope).await
    }

    /// A call of `tool` retried with the sealed id of its pending action (MCP 2026-07-28's
    /// `requestState`, SEP-2322) and the person's `decision` (`Ok(None)`: no readable answer;
    /// `Err`: an answer the door refuses), made by `cx`'s caller: the caller checked first (a
    /// caller without the tool's scopes is refused, recorded and finished as any call), then
    /// the id checked against `arguments` without using it up
    /// ([`check_pending`](Self::check_pending)), then the answer, and the action decided
    /// ([`decide_in`](Self::decide_in)). `Ok(None)`: nothing to decide here (other arguments,
    /// or no answer): the call is made afresh, which asks again. The answer's refusal is
    /// answered only for an action that waits under this id and these arguments.
    #[cfg_attr(not(feature = "rmcp"), allow(dead_code))] // the MCP approval retry
    pub(crate) async fn retry_pending_in<E>(
        &self,
        cx: &Context,
        tool: &str,
        pending_action_id: &str,
        arguments: &Value,
        decision: Result<Option<Decision>, E>,
    ) -> Result<Option<Envelope>, E> {
        let cx = &*self.on_its_surface(cx);
        if let Some(t) = self.get(tool)
            && let Some(refused) = self.refuse_caller(cx, t)
        {
            let call = self.governed(cx, t);
            return Ok(Some(self.finished(call.as_ref(), refused).await));
        }
        match self.check_pending(pending_action_id, tool, Some(arguments)).await {
            PendingCheck::Matches => match decision? {
                Some(decision) => Ok(Some(self.decide_as(cx, pending_action_id, decision, IdSent::RequestState).await)),
                None => Ok(None),
            },
            PendingCheck::OtherArguments => Ok(None),
            PendingCheck::Refused(envelope) => Ok(Some(envelope)),
        }
    }
}

// Where a call is made (`At`) and its arguments as they came (`Arguments`).
mod at;
// Admission: the tool found, the caller checked, audit opened, the rate limit counted.
mod admit;
// Deciding: the policy hook's verdict.
pub(in crate::call) mod decide;
// Finishing, the one exit: prefix, wire format, the outcome recorded, provenance.
mod finish;
// Reading: the arguments, from a value or their text, to the tool's outcome.
mod reading;
// Running: a started call's body, settled, guarded or left to run off the runtime.
mod run;

pub(crate) use at::{Arguments, At};
pub(crate) use run::Started;
