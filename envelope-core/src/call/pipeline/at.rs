//! Where a call is made (`At`: its toolbox, its context, what the toolbox adds around it) and
//! its arguments as they came (`Arguments`).

use serde_json::Value;

use crate::call::audit::Governed;
use crate::call::registry::Toolbox;
use crate::context::Context;
use crate::spec::ToolSpec;

/// The arguments of a call as they came: parsed, the JSON text, or the bytes of a body (read
/// as UTF-8 JSON text once the call is admitted, see `text::of_bytes`).
#[derive(Clone, Copy)]
pub(crate) enum Arguments<'a> {
    Value(Option<&'a Value>),
    Text(&'a str),
    Bytes(&'a [u8]),
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
        self.toolbox.is_some_and(|t| t.policing.policy.is_some())
            && spec.name != crate::call::guard::confirm::CONFIRM_ACTION
    }
}
