//! The confirmation API: `confirm_action` by hand (`confirm`), a pending action checked against
//! a retry's arguments (`check_pending`), and the tools an approver may run.

use serde_json::{Map, Value};
use std::future::Future;

use crate::call::registry::Toolbox;
use crate::call::tool::Tool;

use crate::call::guard::confirm::{IdSent, PendingCheck, validated_args};
use crate::context::{Caller, Context};
use crate::outcome::envelope::Envelope;
use crate::outcome::{Decision, Guarded, Step};
use crate::read::input::Input;
use crate::spec::ToolSpec;

use crate::outcome::Outcome;

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

/// The tools `confirm_action` may run for its caller, of actions queued within its tenant:
/// those the toolbox shows whose scopes (and its surface's) the caller was granted. Another
/// pending action is not found, and its id is not used up.
/// The approved action's body runs in the approver's call (its call id), as the caller who
/// queued it (its subject and tenant: its space).
pub(in crate::call) struct Approver<'a> {
    pub(in crate::call) toolbox: &'a Toolbox,
    pub(in crate::call) caller: &'a Caller,
}

impl crate::call::guard::Lookup for Approver<'_> {
    type Tool = Tool;

    fn tool(&self, name: &str) -> Option<&Tool> {
        self.toolbox.get(name).filter(|t| self.toolbox.missing_scopes(self.caller, t).is_empty())
    }

    fn decides_for(&self, tenant: Option<&str>) -> bool {
        self.caller.tenant() == tenant
    }

    fn may_decide(&self, queued_by: &str, queuer: &Caller) -> bool {
        self.caller.key() == queued_by
            || self.toolbox.guard.approvers.as_ref().is_some_and(|approves| approves(self.caller, queuer))
    }

    fn is_queuer(&self, queued_by: &str) -> bool {
        self.caller.key() == queued_by
    }

    fn step_up(&self, name: &str, queued_by: &str) -> Option<Envelope> {
        if self.caller.is_anonymous() || self.caller.key() != queued_by {
            return None;
        }
        let tool = self.toolbox.get(name)?;
        let missing = self.toolbox.missing_scopes(self.caller, tool);
        if missing.is_empty() {
            return None;
        }
        Some(self.toolbox.on_the_wire(crate::call::policy::missing_scopes(name, &missing)))
    }

    // Spelled out: the trait asks for a `Send` future, which an `async fn` here would not state.
    #[allow(clippy::manual_async_fn)]
    fn approval_verdict<'a>(
        &'a self,
        tool: &'a Tool,
        args: &'a Map<String, Value>,
        cx: &'a Context,
    ) -> impl Future<Output = Option<Envelope>> + Send + 'a {
        self.toolbox.approval_verdict(tool, args, cx)
    }
}

impl Toolbox {
    /// `confirm_action` by hand: `approved` runs the pending action once and answers its
    /// envelope; otherwise `ok` with `{"done": false, "reason": "rejected"}`. Unknown, expired,
    /// forged or altered ids answer `NOT_FOUND`, a used one `CONFLICT`, a store fault
    /// `BACKEND_ERROR`.
    pub async fn confirm(&self, pending_action_id: &str, approved: bool) -> Envelope {
        let decision = if approved { Decision::Approve } else { Decision::Reject };
        self.decide(pending_action_id, decision).await
    }

    /// Whether `pending_action_id` was sealed for a call of `tool` with `arguments` (an MCP
    /// retry carrying it as `requestState`), without using it up: [`PendingCheck::Matches`]
    /// (go on with [`decide`](Self::decide)), [`PendingCheck::OtherArguments`] (ask again: call
    /// the tool for a new id), or the envelope to answer.
    pub async fn check_pending(&self, pending_action_id: &str, tool: &str, arguments: Option<&Value>) -> PendingCheck {
        // Only a confirm tool's reading stops before its body: never run another to check.
        let Some(t) = self.get(tool).filter(|t| t.spec().needs_confirmation) else {
            return PendingCheck::Refused(
                self.on_the_wire(self.guard.not_found(pending_action_id, IdSent::RequestState)),
            );
        };
        let obj = match arguments {
            None | Some(Value::Null) => None,
            Some(Value::Object(o)) => Some(o),
            Some(_) => return PendingCheck::Refused(self.on_the_wire(t.call(arguments).await)),
        };
        match t.start(crate::read::args::Input::object(obj)) {
            Outcome::Guarded(_) => {}
            other => return PendingCheck::Refused(self.on_the_wire(t.settle(other).await)),
        }
        let args = validated_args(&t.spec().params, obj);
        match self.guard.check(pending_action_id, tool, &args, IdSent::RequestState).await {
            PendingCheck::Refused(e) => PendingCheck::Refused(self.on_the_wire(e)),
            other => other,
        }
    }
}

impl crate::call::guard::Lookup for Toolbox {
    type Tool = Tool;

    fn tool(&self, name: &str) -> Option<&Tool> {
        self.get(name)
    }

    // Spelled out: the trait asks for a `Send` future, which an `async fn` here would not state.
    #[allow(clippy::manual_async_fn)]
    fn approval_verdict<'a>(
        &'a self,
        tool: &'a Tool,
        args: &'a serde_json::Map<String, serde_json::Value>,
        cx: &'a crate::Context,
    ) -> impl std::future::Future<Output = Option<crate::Envelope>> + Send + 'a {
        async move {
            match self.policing.verdict(tool, args, cx).await? {
                crate::call::pipeline::decide::Ruled::Answer(refused) => Some(refused),
                // The approval it asked for is this one.
                crate::call::pipeline::decide::Ruled::Confirm => None,
            }
        }
    }
}
