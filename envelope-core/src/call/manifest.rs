//! The manifest: every tool's declaration and the exact codes it can emit, as one JSON document.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::call::registry::Toolbox;
use crate::call::tool::Tool;
use crate::outcome::code::Code;
use crate::outcome::code::Status;

impl Toolbox {
    /// The manifest: what each tool takes, what it is, and every `error_code` it can emit, with
    /// a table of what each code means. Tools are in registration order and the code table is
    /// sorted by name, so the document diffs cleanly; code names carry the toolbox's prefix
    /// ([`Toolbox::with_code_prefix`]), as on the wire.
    ///
    /// ```json
    /// {
    ///   "tools": [{
    ///     "name": "get_top_queries",
    ///     "title": "...",                 // when declared
    ///     "description": "...",
    ///     "inputSchema": {"type": "object", ...},
    ///     "annotations": {"readOnlyHint": true, "idempotentHint": true},
    ///     "scopes": ["queries:read"],     // every one needed; [] for any caller
    ///     "tier": 1,                      // 1 (read) to 4 (destructive)
    ///     "error_codes": [
    ///       {"code": "VALIDATION_ERROR", "retryable": false},
    ///       {"code": "BACKEND_ERROR", "retryable": true}
    ///     ]
    ///   }],
    ///   "error_codes": {
    ///     "BACKEND_ERROR": {"status": "error", "meaning": "...", "action": "...",
    ///                       "retryable": true, "retry": "with_backoff", "http_status": 500},
    ///     "VALIDATION_ERROR": {...}
    ///   }
    /// }
    /// ```
    ///
    /// - `inputSchema` is [`Tool::input_schema`], the schema `tools/list` sends.
    /// - `annotations` holds the MCP hints (MCP 2025-11-25 `ToolAnnotations`) the tool declares
    ///   with `#[tool(read_only, destructive, idempotent, open_world)]`; an undeclared hint is
    ///   absent, not `false`.
    /// - `scopes` is what `#[tool(scopes = [...])]` declares ([`Tool::scopes`]): a caller
    ///   needs every one (else `FORBIDDEN`); `tier` is the effective tier, 1 to 4
    ///   ([`Tool::tier`]: declared with `#[tool(tier = N)]`, else 1 for `read_only`, 3 for
    ///   `destructive`, 2 otherwise).
    /// - A tool's `error_codes` lists every code its envelopes can carry and no other
    ///   ([`ToolSpec::error_codes`](crate::spec::ToolSpec::error_codes)), each with the `retryable`
    ///   its envelopes carry: a fault is retryable only when its code is and the tool repeats
    ///   safely, `idempotent` or `read_only` and not `destructive`
    ///   ([`Annotations::repeats_safely`](crate::spec::Annotations::repeats_safely): a retry of a
    ///   call that may have acted could act twice); a refusal never is.
    /// - The top-level `error_codes` table describes each code once: its `status` word (and
    ///   `also_status`, the other word it may come with: `CONFIRMATION_REQUIRED` is
    ///   `needs_confirmation`, or `error` where actions cannot be queued), its `meaning`, the
    ///   client's next `action`, its own `retryable` (on a tool where a retry is safe), its
    ///   `retry` guidance ([`Retry`](crate::outcome::Retry): `never` unchanged, `after_reread` of the
    ///   state, `with_backoff` under an idempotency key, `after_delay` given in `hints`) and its
    ///   `http_status` (RFC 9110 §15).
    ///
    /// ```
    /// use envelope_core::{tool, Toolbox};
    ///
    /// /// Adds two small numbers.
    /// #[tool(read_only, idempotent)]
    /// fn add(#[validate(range = 0..=100)] a: u32, #[validate(range = 0..=100)] b: u32) -> u32 {
    ///     a + b
    /// }
    ///
    /// let manifest = Toolbox::new().with(add::tool()).with_code_prefix("CALC_").manifest();
    /// assert_eq!(manifest["tools"][0]["annotations"],
    ///            serde_json::json!({"readOnlyHint": true, "idempotentHint": true}));
    /// assert_eq!(manifest["tools"][0]["error_codes"], serde_json::json!([
    ///     {"code": "CALC_VALIDATION_ERROR", "retryable": false},
    ///     {"code": "CALC_BACKEND_ERROR", "retryable": true},
    /// ]));
    /// assert_eq!(manifest["error_codes"]["CALC_BACKEND_ERROR"]["http_status"], 500);
    /// ```
    ///
    /// # Panics
    /// When two different codes share one name (the wire's `error_code` would not say which one
    /// was meant): a programming error, like two tools of one name.
    #[must_use]
    pub fn manifest(&self) -> Value {
        let prefix = self.code_prefix().unwrap_or("");
        let mut table: BTreeMap<String, Code> = BTreeMap::new();
        let mut tools = Vec::with_capacity(self.tools().len());
        for tool in self.tools() {
            for code in &tool.spec().error_codes {
                let name = format!("{prefix}{}", code.name());
                if let Some(seen) = table.get(&name) {
                    assert!(seen == code, "two different codes are named {name}: give each code its own name");
                }
                table.insert(name, *code);
            }
            tools.push(tool_entry(tool, prefix));
        }
        let table: Map<String, Value> = table.into_iter().map(|(name, code)| (name, code_entry(&code))).collect();
        json!({ "tools": tools, "error_codes": table })
    }
}

/// Whether an envelope of `tool` carrying `code` says `retryable: true`: a refusal when its code
/// is retryable (`RATE_LIMITED`), a fault when its code is retryable and the tool is idempotent,
/// never a confirmation. `Tool::call`
/// applies the same rule; the `codes` integration test holds them together.
pub(crate) fn retryable_on(tool: &Tool, code: &Code) -> bool {
    match code.status() {
        // Nothing happened: the same call can succeed later if the code says so (RATE_LIMITED).
        Status::Invalid => code.retryable(),
        // Something may have happened: only an idempotent tool can be called again unchanged,
        // unless the code says nothing ran (the audit intent or the policy's verdict was not had).
        Status::Error => {
            code.retryable()
                && (tool.spec().annotations.repeats_safely()
                    || *code == crate::codes::AUDIT_UNAVAILABLE
                    || *code == crate::codes::POLICY_UNAVAILABLE)
        }
        Status::Ok | Status::NeedsConfirmation => false,
    }
}

fn tool_entry(tool: &Tool, prefix: &str) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(tool.name()));
    if let Some(title) = tool.title() {
        m.insert("title".into(), json!(title));
    }
    m.insert("description".into(), json!(tool.description()));
    m.insert("inputSchema".into(), Value::Object(tool.input_schema()));
    m.insert("outputSchema".into(), Value::Object(tool.output_schema(Some(prefix))));
    let a = tool.spec().annotations;
    let mut hints = Map::new();
    for (key, hint) in [
        ("readOnlyHint", a.read_only_hint),
        ("destructiveHint", a.destructive_hint),
        ("idempotentHint", a.idempotent_hint),
        ("openWorldHint", a.open_world_hint),
    ] {
        if let Some(on) = hint {
            hints.insert(key.into(), json!(on));
        }
    }
    m.insert("annotations".into(), Value::Object(hints));
    m.insert("scopes".into(), json!(tool.scopes()));
    m.insert("tier".into(), json!(tool.tier().number()));
    let codes: Vec<Value> = tool
        .spec()
        .error_codes
        .iter()
        .map(|c| json!({ "code": format!("{prefix}{}", c.name()), "retryable": retryable_on(tool, c) }))
        .collect();
    m.insert("error_codes".into(), Value::Array(codes));
    Value::Object(m)
}

fn code_entry(code: &Code) -> Value {
    let mut entry = json!({
        "status": code.status().as_str(),
        "meaning": code.meaning(),
        "action": code.action(),
        "retryable": code.retryable(),
        "retry": code.retry().as_str(),
        "http_status": code.http_status(),
    });
    if let (Some(also), Value::Object(m)) = (code.also_status(), &mut entry) {
        m.insert("also_status".into(), json!(also.as_str()));
    }
    entry
}
