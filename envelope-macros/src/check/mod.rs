//! Check: rules that look at the parameter's type or across attributes. Turns what the user
//! wrote (`attr`) into the typed model (`model`) that expansion can trust, every mistake
//! reported at its token. One module per concern:
//!
//! - `options`: the tool's own options (`rate_limit`, `scopes`, `rename_all`);
//! - `parameter`: a parameter (its wire name, description, default) and the rules across
//!   parameters (`requires`, `excludes`, two names alike);
//! - `value_rules`: the rules of one value, each against the value's type (or left to a trait bound
//!   for a type the macro cannot name);
//! - `range`: number literals, `range` in its two forms, and whether a range holds a value;
//! - `returns`: the return type, the error type and the type of `data`.

// A `pattern` JSON Schema (ECMA-262) and the `regex` crate read alike.
mod ecma;
mod options;
mod parameter;
mod range;

pub(crate) use range::number;
mod returns;
#[cfg(test)]
mod tests;
mod value_rules;

use syn::ReturnType;

use crate::attr::{RawTool, join_docs};
use crate::diag::{Accumulator, Error};
use crate::model::{Param, Ret, Tool};

pub use options::{rate_limit, rename_rule};
pub use parameter::{check_cross, check_param};

/// Checks a whole `#[tool]`: its options, every parameter, the rules across them, the return type.
pub fn check(raw: &RawTool, errors: &mut Accumulator) -> Tool {
    let sig = &raw.item.sig;
    if !sig.generics.params.is_empty() {
        errors.push(
            Error::custom(
                "a `#[tool]` function cannot be generic: its parameters are read from JSON by their concrete types",
            )
            .with_span(&sig.generics),
        );
    }
    if sig.variadic.is_some() || sig.abi.is_some() {
        errors.push(Error::custom("a `#[tool]` function is a plain Rust function").with_span(&sig.ident));
    }
    let rename_all = raw.args.rename_all.as_ref().and_then(|r| match rename_rule(r) {
        Ok(rule) => Some(rule),
        Err(msg) => {
            errors.push(Error::custom(msg).with_span(&r.span()));
            None
        }
    });
    let params: Vec<Param> = raw.params.iter().map(|p| check_param(p, rename_all, errors)).collect();
    check_cross(&params, &raw.params, errors);
    let (ret, ret_span) = returns::check_return(&sig.output, errors);
    let timeout_ms = raw.args.timeout_ms.as_ref().and_then(|lit| match lit.base10_parse::<u64>() {
        Ok(0) | Err(_) => {
            errors.push(
                Error::custom("`timeout_ms` is a whole number of milliseconds above 0, like `timeout_ms = 5000`")
                    .with_span(lit),
            );
            None
        }
        Ok(ms) => Some((ms, lit.span())),
    });
    let idempotency_key = raw.args.idempotency_key.is_present();
    if idempotency_key {
        let span = raw.args.idempotency_key.span();
        if raw.args.confirm.is_some() {
            errors.push(Error::custom("a `confirm` tool runs once per approval already: drop `idempotency_key`, or drop `confirm` for a write that needs no approval").with_span(&span));
        }
        if let Some(p) = params.iter().find(|p| p.name == "idempotency_key") {
            errors.push(Error::custom("`#[tool(idempotency_key)]` adds the `idempotency_key` parameter itself: remove this parameter, or rename it").with_span(&p.span));
        }
    }
    let rate_limit = raw.args.rate_limit.as_ref().and_then(|lit| match rate_limit(&lit.value()) {
        Ok(limit) => Some(limit),
        Err(msg) => {
            errors.push(Error::custom(msg).with_span(lit));
            None
        }
    });
    let scopes = raw.args.scopes.as_ref().map_or_else(Vec::new, |list| options::check_scopes(list, errors));
    let tier = raw.args.tier.as_ref().and_then(|lit| match lit.base10_parse::<u8>() {
        Ok(n @ 1..=4) => Some(n),
        _ => {
            errors.push(
                Error::custom("`tier` is a whole number from 1 (read) to 4 (destructive), like `tier = 3`")
                    .with_span(lit),
            );
            None
        }
    });
    let data_type = returns::data_type(&ret, &sig.output);
    let error_type = match (&ret, &sig.output) {
        (Ret::Result, ReturnType::Type(_, ty)) => crate::ty::result_error(ty).cloned(),
        _ => None,
    };
    let name = raw.args.name.as_ref().map_or_else(|| sig.ident.to_string(), syn::LitStr::value);
    if let Some(why) = mcp_tool_name(&name) {
        let message = format!(
            "{name:?} is not an MCP tool name: {why}; a tool name is 1 to 128 characters from A-Z, a-z, 0-9, \
             `_`, `-` and `.` (SEP-986)"
        );
        match &raw.args.name {
            Some(lit) => errors.push(Error::custom(message).with_span(lit)),
            None => errors.push(
                Error::custom(format!(
                    "{message}: rename the function, or name the tool with `#[tool(name = \"...\")]`"
                ))
                .with_span(&sig.ident),
            ),
        }
    }
    let description = description(raw, errors);
    Tool {
        name,
        title: raw.args.title.as_ref().map(syn::LitStr::value),
        description,
        strict: raw.args.strict.is_present(),
        read_only: raw.args.read_only,
        destructive: raw.args.destructive,
        idempotent: raw.args.idempotent,
        open_world: raw.args.open_world,
        params,
        ret,
        ret_span,
        error_type,
        timeout_ms,
        output_schema: raw.args.output_schema.clone(),
        confirm: raw.args.confirm.clone(),
        idempotency_key,
        rate_limit,
        scopes,
        tier,
        context: raw.context.as_ref().map(|c| (c.position, c.by_ref)),
        data_type,
    }
}

/// Why `name` is not an MCP tool name (SEP-986: 1 to 128 characters, each of `A-Z`, `a-z`,
/// `0-9`, `_`, `-`, `.`), or `None` when it is one.
pub(crate) fn mcp_tool_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_owned());
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))) {
        return Some(format!("{c:?} is not one of its characters"));
    }
    let n = name.len();
    (n > 128).then(|| format!("it has {n} characters"))
}

/// The description the model reads (`tools/list`'s `description`): the function's doc comment,
/// or `#[tool(description = "...")]`. Exactly one of them, and not blank: a model chooses a tool
/// by its description, and an empty one compiled silently before.
fn description(raw: &RawTool, errors: &mut Accumulator) -> String {
    let docs = join_docs(&raw.docs);
    match &raw.args.description {
        Some(lit) if !docs.is_empty() => {
            errors.push(
                Error::custom(
                    "this tool has a doc comment already; keep one description: the doc comment or `description`",
                )
                .with_span(lit),
            );
            docs
        }
        Some(lit) if lit.value().trim().is_empty() => {
            errors.push(
                Error::custom("`description` is what the model reads to choose this tool: say what it does, like `description = \"Reads the weather of a city.\"`")
                    .with_span(lit),
            );
            String::new()
        }
        Some(lit) => lit.value(),
        None if docs.is_empty() => {
            errors.push(
                Error::custom(
                    "this tool has no description, and the model reads one to choose it: write a doc comment above the function (`/// Reads the weather of a city.`), or `#[tool(description = \"Reads the weather of a city.\")]`",
                )
                .with_span(&raw.item.sig.ident),
            );
            docs
        }
        None => docs,
    }
}
