//! Reading: a call's arguments, from a value or from their JSON text (walked in one pass where
//! the tool allows it), to the tool's outcome.

use serde_json::Value;

use super::at::At;
use super::run::Rest;
use super::run::Started;
use crate::call::tool::Tool;

use crate::outcome::refusal::Refusal;
use crate::read::args;
use crate::read::input::{self, Input, Sent};
use crate::read::path::Numbers;
use crate::read::text;
use crate::read::typed::Raw;

/// How many parameters' walked values `call_json` keeps inline, on the stack (more take one
/// allocation).
pub(super) const WALKED_INLINE: usize = 12;

/// Room for the walked values of a tool's parameters: `WALKED_INLINE` slots in place, more on
/// the heap.
pub(super) struct WalkSlots<'t> {
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
    pub(super) fn for_params(&mut self, n: usize) -> &mut [Option<Sent<'t>>] {
        if n <= WALKED_INLINE {
            &mut self.inline[..n]
        } else {
            self.heap.resize(n, None);
            &mut self.heap
        }
    }
}

impl Tool {
    /// `numbers`: the characters numbers were sent with, by node address in `arguments` (see
    /// `sent::numbers_as_sent`), so a refusal quotes them instead of the double they were read as.
    /// `toolbox`: where the tool is registered (its store, its secret; `confirm_action` needs it).
    /// `defer`: leave a sync body for the caller to run ([`Started::Body`]).
    pub(super) async fn call_with(
        &self,
        arguments: Option<&Value>,
        numbers: Numbers<'_>,
        at: At<'_>,
        defer: bool,
    ) -> Started {
        // Boxed: a lax tool's arguments sent as a string are rare, and this future stays small.
        let decoded: Box<crate::read::containers::Decoded<'_>>;
        let mut numbers = numbers;
        let obj = match arguments {
            None | Some(Value::Null) => None,
            Some(Value::Object(o)) => Some(o),
            Some(Value::String(s)) if !self.spec.strict => match crate::read::containers::container_in_string(s) {
                Some(held) if held.value.is_object() => {
                    // Read with its numbers as the string held them.
                    decoded = Box::new(held);
                    numbers = &decoded.numbers;
                    decoded.value.as_object()
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
        // The typed reading first, where the walk would read the text (no audit trail or policy
        // reads the arguments as an object first): it declines whatever the general one must word.
        if let Some(o) = obj
            && self.typed.is_some()
            && self.walks(at)
            && let Some(outcome) = self.start_typed(Raw::Object(o), input)
        {
            let rest = match self.started(outcome, obj, at) {
                Ok(started) => return started,
                Err(rest) => rest,
            };
            return rest.await;
        }
        // Matched in a statement of its own, so only `rest` (not the `Result`) is held while
        // it is awaited.
        let rest = match self.started(self.start(input), obj, at) {
            Ok(started) => return started,
            Err(rest) => rest,
        };
        rest.await
    }

    /// `defer`: leave a sync body for the caller to run ([`Started::Body`]).
    ///
    /// The usual call, an object of parameters walked in one pass ([`walked`](Self::walked)),
    /// keeps its walked values (`WALKED_INLINE` slots) on the stack, never in this future: what
    /// is left to await after it, an async tool's body, owns the values it read. The general
    /// reading runs in a future of its own ([`read_json`](Self::read_json)).
    pub(super) async fn call_json_at(&self, arguments: &str, at: At<'_>, defer: bool) -> Started {
        let walk = self.walks(at);
        if walk && self.typed.is_some() {
            // The typed reading first (see `crate::read::typed`), in a statement of its own so
            // only `rest` is held while it is awaited.
            let input = Input::object(None).deferring(defer).in_context(at.cx);
            let rest = match self.start_typed(Raw::Text(arguments), input).map(|o| self.started(o, None, at)) {
                Some(Ok(started)) => return started,
                Some(Err(rest)) => Some(rest),
                None => None,
            };
            if let Some(rest) = rest {
                return rest.await;
            }
        }
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

    /// Whether a call at `at` may be read without a parsed object first: by the walk, and by
    /// the typed reading where the tool has one (it has one only where the walk may read). An
    /// audited call hashes its validated arguments, and a policy reads them: both read them as
    /// an object.
    fn walks(&self, at: At<'_>) -> bool {
        self.walkable && at.call.is_none_or(|c| !c.audits()) && !at.under_policy(&self.spec)
    }

    /// The walk of an object of parameters (see `crate::read::input`), the call started without
    /// awaiting anything: the walked values stay on this stack. `None`: not an object the walk
    /// reads (the general reading reads it). `Err`: what is left to await ([`Rest`]): an async
    /// body, or the rest of a call that needs a future (a guard, `confirm_action`).
    pub(super) fn walked<'a>(&'a self, arguments: &str, at: At<'a>, defer: bool) -> Option<Result<Started, Rest<'a>>> {
        let mut room = WalkSlots::default();
        let slots = room.for_params(self.spec.params.len());
        if !input::walk(arguments, &self.spec.params, slots) {
            return None;
        }
        Some(self.started(self.start(Input::text(slots).deferring(defer).in_context(at.cx)), None, at))
    }

    /// The general reading of a call's arguments, from their text (see `crate::read::text`):
    /// what [`walked`](Self::walked) declined.
    pub(super) async fn read_json(&self, arguments: &str, at: At<'_>, defer: bool) -> Started {
        // Refused past the key limit, for a key sent twice, or for text that cannot be read.
        let mut read = text::Read::default();
        match text::read(&self.spec, arguments, &mut read) {
            Ok((parsed, numbers)) => self.call_with(Some(parsed), &numbers, at, defer).await,
            Err(refusal) => Started::Done(refusal.into()),
        }
    }
}
