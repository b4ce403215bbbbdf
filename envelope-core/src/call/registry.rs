//! The registry: a toolbox's tools (what its surface shows of those registered, with
//! `confirm_action` last), found by name, and the answer to a name it does not show.

use std::collections::HashMap;
use std::fmt;

use std::sync::Arc;

use crate::call::policy::{POLICY_CODES, Policing};

use crate::call::tool::{Tool, ToolSet};
use crate::outcome::refusal::Refusal;
use crate::words::render;

use crate::outcome::wire::WireFormat;

use crate::call::surface::Surface;

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
/// listed last; see [`crate::call::guard::confirm`] for confirmation, idempotency keys and their store.
#[derive(Clone, Debug, Default)]
pub struct Toolbox {
    pub(in crate::call) tools: Vec<Tool>,
    pub(in crate::call) prefix: Option<&'static str>,
    pub(crate) guard: Arc<crate::call::guard::Guard>,
    /// Whether the last tool is the `confirm_action` this toolbox added.
    pub(in crate::call) confirm_action: bool,
    pub(in crate::call) format: WireFormat,
    /// Whether the tools serve their full `inputSchema` ([`Toolbox::with_full_input_schema`]).
    pub(in crate::call) full_schema: bool,
    /// The surface this toolbox is served on ([`Toolbox::on`]), if any.
    pub(in crate::call) surface: Option<Arc<Surface>>,
    /// Every tool registered with [`Toolbox::with`], as registered (`tools` is what the
    /// surface shows of them, with `confirm_action`): [`Toolbox::on`] starts from these.
    pub(in crate::call) registered: Vec<Tool>,
    pub(in crate::call) policing: Policing,
    /// Where each tool is in `tools`, by name, when there are more than [`SCANNED_UP_TO`]
    /// (fewer are found sooner by comparing names); rebuilt by [`reindex`](Self::reindex)
    /// whenever `tools` changes (every change ends in `refresh_confirm_action`). [`get`](Self::get)
    /// checks the name of the tool it finds there.
    pub(in crate::call) index: HashMap<&'static str, usize>,
}

/// How many tools a toolbox finds by comparing each name; past that, by [`Toolbox::index`].
const SCANNED_UP_TO: usize = 8;

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

impl UnknownTool {
    /// The same unknown name refused in an envelope (`NOT_FOUND`, `hints.parameter` `name`):
    /// `sent` quoted, the tools listed as JSON strings (at most 20, the rest counted), the
    /// closest name as the suggestion, in the surface's `words`.
    pub(crate) fn refusal(&self, sent: &str, words: &UnknownToolWords) -> Refusal {
        let names = self.names.iter().map(String::as_str);
        let (listed, more) = crate::words::budget::name_list(names, |n| render::quoted_list([n]));
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

impl fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (listed, more) = crate::words::budget::name_list(self.names.iter().map(String::as_str), str::to_owned);
        if self.names.is_empty() {
            write!(f, "{} is not a tool of this server, which has no tools.", self.name)?;
        } else if more > 0 {
            write!(f, "{} is not a tool of this server; accepted: {listed} (tools/list lists them all).", self.name)?;
        } else {
            write!(f, "{} is not a tool of this server; accepted: {listed}.", self.name)?;
        }
        let suggestion = self.suggestion.as_deref().map(|s| crate::words::budget::cut_text(s, 128, 400));
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
    pub(in crate::call) fn show(&mut self, mut tool: Tool) -> bool {
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
    /// Every call is made on the surface: [`Context::surface`](crate::Context::surface) is its name over the servers
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

    /// Adds `confirm_action` (last) exactly when a tool needs confirmation and actions can be
    /// queued; rebuilt so its codes cover every confirm tool. Every change to `tools` ends
    /// here, so the [`index`](Self::index) is rebuilt here too.
    pub(crate) fn refresh_confirm_action(&mut self) {
        if self.confirm_action {
            let added = self.tools.iter().position(|t| t.name() == crate::call::guard::confirm::CONFIRM_ACTION);
            if let Some(i) = added {
                self.tools.remove(i);
            }
            self.confirm_action = false;
        }
        let may_confirm = self.policing.policy.is_some() || self.tools.iter().any(|t| t.spec().needs_confirmation);
        if self.guard.queue && may_confirm {
            assert!(
                self.get(crate::call::guard::confirm::CONFIRM_ACTION).is_none(),
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
        self.reindex();
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

    /// The prefix set with [`with_code_prefix`](Self::with_code_prefix), if any.
    pub fn code_prefix(&self) -> Option<&'static str> {
        self.prefix
    }

    /// The tools, in registration order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool named `name`: by its index past 8 tools (one hash of `name`, whatever the
    /// number of tools), by comparing names below.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        if self.index.is_empty() {
            return self.tools.iter().find(|t| t.name() == name);
        }
        // The name is checked too: an index is never trusted to name another tool.
        self.index.get(name).and_then(|&i| self.tools.get(i)).filter(|t| t.name() == name)
    }

    /// Builds [`index`](Self::index) again from `tools`: empty up to [`SCANNED_UP_TO`] tools.
    fn reindex(&mut self) {
        self.index.clear();
        if self.tools.len() > SCANNED_UP_TO {
            self.index.extend(self.tools.iter().enumerate().map(|(i, t)| (t.spec().name, i)));
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

    /// Whether tool `name` waits for approval (`#[tool(confirm = ...)]`).
    pub fn needs_confirmation(&self, name: &str) -> bool {
        self.get(name).is_some_and(|t| t.spec().needs_confirmation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;
    use crate::outcome::envelope::Envelope;
    use crate::spec::ToolSpec;

    const NAMES: [&str; 12] = ["t00", "t01", "t02", "t03", "t04", "t05", "t06", "t07", "t08", "t09", "t10", "t11"];

    fn numbered(name: &'static str) -> Tool {
        Tool::__new(ToolSpec::new(name, "A numbered tool.", Vec::new(), Vec::new()), |_, _| {
            Outcome::Ready(Envelope::ok(serde_json::Value::Null))
        })
    }

    fn toolbox(n: usize) -> Toolbox {
        NAMES[..n].iter().fold(Toolbox::new(), |t, name| t.with(numbered(name)))
    }

    /// Every name the index holds is where `tools` has that tool, and every tool is there.
    fn assert_indexed(toolbox: &Toolbox) {
        assert_eq!(toolbox.index.len(), toolbox.tools.len(), "{:?}", toolbox.index);
        for (name, &i) in &toolbox.index {
            assert_eq!(toolbox.tools[i].name(), *name);
        }
    }

    #[test]
    fn past_eight_tools_each_is_found_by_its_index() {
        let small = toolbox(SCANNED_UP_TO);
        assert!(small.index.is_empty());
        assert_eq!(small.get("t07").map(Tool::name), Some("t07"));

        let large = toolbox(NAMES.len());
        assert_indexed(&large);
        for name in NAMES {
            assert_eq!(large.get(name).map(Tool::name), Some(name));
        }
        assert!(large.get("t12").is_none());
        assert!(large.get("").is_none());

        // Served on a surface that shows nine of them: the index is the surface's.
        let shown = large.on(&Surface::public("p").only(NAMES[3..].iter().copied()));
        assert_indexed(&shown);
        assert_eq!(shown.tools.len(), 9);
        for name in &NAMES[..3] {
            assert!(shown.get(name).is_none(), "{name} is hidden");
        }
        for name in &NAMES[3..] {
            assert_eq!(shown.get(name).map(Tool::name), Some(*name));
        }
        // Fewer than nine shown: no index, found all the same.
        let few = large.on(&Surface::public("q").only(NAMES[..4].iter().copied()));
        assert!(few.index.is_empty());
        assert_eq!(few.get("t03").map(Tool::name), Some("t03"));
        assert!(few.get("t04").is_none());
    }
}
