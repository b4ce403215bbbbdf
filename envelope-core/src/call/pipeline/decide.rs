//! Deciding: the policy hook's verdict on a call whose arguments were read (allow, deny, block,
//! or queue for approval), within its timeout.

use serde_json::{Map, Value};

use crate::call::policy::Policing;
use crate::call::registry::Toolbox;
use crate::call::tool::Tool;

use crate::call::policy::{PolicyRequest, Verdict};
use crate::context::Context;
use crate::outcome::Guarded;
use crate::outcome::Outcome;
use crate::outcome::envelope::Envelope;

/// What a policy made of a call it did not allow.
pub(in crate::call) enum Ruled {
    /// Refused or blocked: this envelope.
    Answer(Envelope),
    /// Queued for approval.
    Confirm,
}

impl Policing {
    /// The policy's verdict on a call of `tool` with `args` in `cx`: `None` to go on.
    pub(in crate::call) async fn verdict(&self, tool: &Tool, args: &Map<String, Value>, cx: &Context) -> Option<Ruled> {
        let policy = self.policy.as_deref()?;
        let name = tool.spec.name;
        let request = PolicyRequest::new(cx, &tool.spec, args);
        match crate::call::policy::within(self.timeout, || policy.decide(&request)).await {
            Ok(Verdict::Allow) => None,
            Ok(Verdict::Confirm) => Some(Ruled::Confirm),
            Ok(Verdict::Deny(missing)) => Some(Ruled::Answer(crate::call::policy::denied(name, &missing))),
            Ok(Verdict::Block(reason)) => {
                Some(Ruled::Answer(crate::call::policy::blocked(name, cx.surface(), &reason)))
            }
            Err(why) => {
                #[cfg(feature = "http")]
                tracing::warn!(
                    tool = name,
                    call_id = cx.call_id(),
                    "the policy gave no decision ({why}); the call is refused"
                );
                let _ = why;
                Some(Ruled::Answer(crate::call::policy::undecided(name)))
            }
        }
    }
}

impl Tool {
    /// A call a policy asked to confirm: a confirm tool's own preview, else a preview of the
    /// call itself (`{"tool", "arguments"}`, without secret parameters), queued for approval.
    /// The started outcome is dropped unrun; `confirm_action` runs the call from its arguments.
    pub(super) async fn confirm_by_policy(
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
            "arguments": crate::read::args::public_args(&self.spec.params, &args),
        });
        let g = Guarded::new(None, move |_| Outcome::Ready(Envelope::ok(preview)));
        toolbox.guard.queue(self, args, g, cx.caller()).await
    }
}
