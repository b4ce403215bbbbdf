//! The `confirm_action` tool a toolbox adds when one of its tools needs confirmation: its
//! declaration and its call function (the decision itself is `Guard::decide`, in guard/confirm.rs).

use crate::call::guard::confirm::CONFIRM_ACTION;
use crate::outcome::Decision;
use crate::outcome::Outcome;
use crate::outcome::code::codes;
use crate::spec::{ParamSpec, ToolSpec, Ty};

/// The declaration of the `confirm_action` tool for the confirm tools among `tools` (its call
/// function is [`confirm_action_call`]).
pub(crate) fn confirm_action_spec<'t>(tools: impl Iterator<Item = &'t ToolSpec> + Clone) -> ToolSpec {
    let mut declared = vec![codes::NOT_FOUND, codes::CONFLICT];
    for t in tools.clone().filter(|t| t.needs_confirmation) {
        for c in &t.error_codes {
            if *c != codes::CONFIRMATION_REQUIRED && !declared.contains(c) {
                declared.push(*c);
            }
        }
    }
    let names: Vec<&str> = tools.filter(|t| t.needs_confirmation).map(|t| t.name).collect();
    let description: &'static str = Box::leak(
        format!(
            "Approves or rejects an action that waits for a person's approval (a needs_confirmation reply{}{}). Ask the person first, showing the preview; send approved: true only on their yes. Approved, the action runs once and this answers its reply; rejected, nothing runs. Either way the pending_action_id is used up.",
            if names.is_empty() { "" } else { " of " },
            names.join(", ")
        )
        .into_boxed_str(),
    );
    let params = vec![
        ParamSpec {
            name: "pending_action_id",
            description: "The pending_action_id of the needs_confirmation reply.",
            ty: Ty::String,
            required: true,
            default: None,
            rules: crate::spec::Rules::NONE,
            requires: Vec::new(),
            excludes: Vec::new(),
        },
        ParamSpec {
            name: "approved",
            description: "true: the person approved, run the action once; false: drop it.",
            ty: Ty::Boolean,
            required: true,
            default: None,
            rules: crate::spec::Rules::NONE,
            requires: Vec::new(),
            excludes: Vec::new(),
        },
    ];
    let error_codes = crate::spec::error_codes(&declared, false);
    ToolSpec { title: Some("Confirm an action"), ..ToolSpec::new(CONFIRM_ACTION, description, params, error_codes) }
}

/// `confirm_action`'s call function: reads its two arguments for the toolbox to decide.
pub(crate) fn confirm_action_call<'a>(
    spec: &'a crate::spec::ToolSpec,
    input: crate::read::args::Input<'_>,
) -> Outcome<'a> {
    let mut args = crate::read::args::Args::new(spec, input);
    let id = args.take::<String>(0);
    let approved = args.take::<bool>(1);
    let (Some(id), Some(approved)) = (id, approved) else { return args.refuse() };
    if let Some(refused) = args.unknown() {
        return refused;
    }
    Outcome::Decide(id, if approved { Decision::Approve } else { Decision::Reject })
}
