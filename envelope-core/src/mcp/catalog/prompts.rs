//! The prompts a server declares: listed per surface, got per caller with their arguments
//! checked against the declaration first.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ErrorData, GetPromptResult, JsonObject, Prompt};
use serde_json::Value;

use super::jsonrpc_error::{caller_refusal, error};
use crate::outcome::failure::ToolError;
use crate::words::{budget, render, suggest};
use crate::{Context, Envelope, Fault, Refusal, Toolbox, codes};

/// A get in progress: the prompt's messages, or the failure's envelope.
type GetFuture = Pin<Box<dyn Future<Output = Result<GetPromptResult, Envelope>> + Send>>;

/// A declared get function, its error type turned into an envelope.
pub(crate) type GetFn = Arc<dyn Fn(BTreeMap<String, String>, Context) -> GetFuture + Send + Sync>;

/// `get` as a [`GetFn`]: called inside the future it answers, so its panic is caught too.
pub(crate) fn getter<F, Fut, E>(get: F) -> GetFn
where
    F: Fn(BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult, E>> + Send + 'static,
    E: ToolError,
{
    let get = Arc::new(get);
    Arc::new(move |arguments, cx| {
        let get = Arc::clone(&get);
        Box::pin(async move { get(arguments, cx).await.map_err(ToolError::into_envelope) })
    })
}

/// The declared prompts, in the order declared.
#[derive(Clone, Default)]
pub(crate) struct Prompts {
    declared: Vec<(Prompt, GetFn)>,
}

impl Prompts {
    /// Whether none is declared (the server then declares no `prompts` capability).
    pub(crate) fn is_empty(&self) -> bool {
        self.declared.is_empty()
    }

    pub(crate) fn add(&mut self, prompt: Prompt, get: GetFn) {
        self.declared.push((prompt, get));
    }

    /// `prompts/list`: the prompts the toolbox's surface shows.
    pub(crate) fn list(&self, toolbox: &Toolbox) -> Vec<Prompt> {
        self.declared.iter().filter(|(p, _)| shown(toolbox, &p.name)).map(|(p, _)| p.clone()).collect()
    }

    /// `prompts/get` of `name` by `cx`: a name no shown prompt has is `NOT_FOUND` (`-32602`,
    /// the visible names listed, the closest suggested), a hidden one's the same bytes; then
    /// the caller is checked as a tool's is on the surface; then the `arguments`: each a JSON
    /// string (MCP's `PromptArgument` values are), every argument the prompt declares
    /// `required` present, else `VALIDATION_ERROR` naming each; then the get function runs, its
    /// failure (a panic is `BACKEND_ERROR`) answered through the code table. An argument the
    /// prompt does not declare is refused by name, the closest declared one suggested.
    pub(crate) async fn get(
        &self,
        toolbox: &Toolbox,
        cx: Context,
        name: &str,
        arguments: Option<&JsonObject>,
    ) -> Result<GetPromptResult, ErrorData> {
        let on_the_wire = |envelope: Envelope| error(&envelope.with_code_prefix(toolbox.code_prefix()), "name", name);
        let Some((prompt, get)) = self.declared.iter().find(|(p, _)| p.name == name && shown(toolbox, &p.name)) else {
            return Err(on_the_wire(self.unknown(toolbox, name)));
        };
        if let Some(refused) = caller_refusal(toolbox, &cx, name) {
            return Err(on_the_wire(refused));
        }
        let arguments = read_arguments(prompt, arguments).map_err(|r| on_the_wire(Envelope::from(r)))?;
        match crate::call::unwind::CatchUnwind(get(arguments, cx)).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(envelope)) => Err(on_the_wire(envelope)),
            Err(()) => Err(on_the_wire(Fault::backend("getting the prompt").into())),
        }
    }

    /// `NOT_FOUND` for a name no shown prompt has: the shown names listed (at most 20, the rest
    /// counted), the closest one suggested.
    fn unknown(&self, toolbox: &Toolbox, name: &str) -> Envelope {
        let names: Vec<&str> =
            self.declared.iter().map(|(p, _)| p.name.as_str()).filter(|n| shown(toolbox, n)).collect();
        let (listed, more) = budget::name_list(names.iter().copied(), |n| render::quoted_list([n]));
        let accepted = match (names.is_empty(), more) {
            (true, _) => "none: this server lists no prompt".to_owned(),
            (false, 0) => format!("one of {listed}"),
            (false, _) => format!("one of {listed} (prompts/list lists them all)"),
        };
        let suggestion = suggest::closest(name, names.iter().copied());
        let fix = match suggestion {
            Some(s) => format!("Get \"{s}\"."),
            None => "Get a prompt prompts/list lists.".to_owned(),
        };
        let mut refusal = Refusal::parameter("name")
            .rejected(name)
            .reason("is not a prompt of this server")
            .accepted(accepted)
            .fix(fix);
        if let Some(s) = suggestion {
            refusal = refusal.suggestion(s);
        }
        Envelope::from(refusal.build().with_code(codes::NOT_FOUND))
    }
}

/// Whether the toolbox's surface (if any) shows the prompt `name`.
fn shown(toolbox: &Toolbox, name: &str) -> bool {
    toolbox.surface().is_none_or(|s| s.shows_prompt(name))
}

/// The `arguments` of a `prompts/get` as the get function takes them, or the refusal of every
/// argument that is not a string and every required one missing, in one reply.
fn read_arguments(prompt: &Prompt, arguments: Option<&JsonObject>) -> Result<BTreeMap<String, String>, Refusal> {
    let mut read = BTreeMap::new();
    let mut refused: Option<Refusal> = None;
    let mut refuse = |refusal: Refusal| {
        refused = Some(match refused.take() {
            Some(first) => first.and(refusal),
            None => refusal,
        });
    };
    let declared: Vec<&str> = prompt.arguments.iter().flatten().map(|a| a.name.as_str()).collect();
    // Only the declared names are read (as many as the prompt declares, whatever a request
    // sends: the work and the reply stay bounded); the others are refused below.
    for (key, value) in arguments.into_iter().flatten().filter(|(k, _)| declared.contains(&k.as_str())) {
        match value {
            Value::String(text) => {
                read.insert(key.clone(), text.clone());
            }
            other => refuse(
                Refusal::parameter(key.as_str())
                    .rejected(other)
                    .reason(render::type_issue(other))
                    .accepted("a string")
                    .fix("Send it as a JSON string.")
                    .build(),
            ),
        }
    }
    // A name the prompt does not declare (a typo of an optional one would drop it silently):
    // the first three named, each with the closest declared name not sent.
    let sent_names = arguments.into_iter().flat_map(|a| a.keys());
    for key in sent_names.filter(|k| !declared.contains(&k.as_str())).take(3) {
        let free = declared.iter().copied().filter(|n| !arguments.is_some_and(|a| a.contains_key(*n)));
        let suggestion = suggest::closest(key, free);
        let accepted = if declared.is_empty() {
            format!("none: the prompt {} takes no arguments", prompt.name)
        } else {
            format!("one of {}", render::quoted_list(declared.iter().copied()))
        };
        let fix = match suggestion {
            Some(s) => format!("Rename {} to \"{s}\".", render::shown(&Value::String(key.clone()))),
            None => "Remove it.".to_owned(),
        };
        // The caller's text: cut, a control character written as its escape (one line).
        let name = crate::words::cut::one_line(key, render::SHOWN_CHARS);
        let mut refusal = Refusal::parameter(name.as_str())
            .rejected(key.as_str())
            .reason(format!("is not an argument of the prompt {}", prompt.name))
            .accepted(accepted)
            .fix(fix);
        if let Some(s) = suggestion {
            refusal = refusal.suggestion(s);
        }
        refuse(refusal.build());
    }
    for declared in prompt.arguments.iter().flatten() {
        let sent = arguments.is_some_and(|a| a.contains_key(&declared.name));
        if declared.required == Some(true) && !sent {
            refuse(
                Refusal::parameter(declared.name.as_str())
                    .missing()
                    .accepted("a string")
                    .fix(format!("Send arguments.{} as a string.", declared.name))
                    .build(),
            );
        }
    }
    match refused {
        Some(refusal) => Err(refusal),
        None => Ok(read),
    }
}
