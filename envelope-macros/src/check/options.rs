//! The tool's own options: `rate_limit`, `scopes`, serde's `rename_all` words.

use crate::diag::{Accumulator, Error};

/// `"30/min"` as (30, 60 000 ms): `N/s`, `N/min` or `N/h`, N from 1 (envelope-core's
/// `RateLimit::from_str` reads the same forms at run time).
pub fn rate_limit(text: &str) -> Result<(u32, u64), String> {
    let form = "a rate limit is `\"N/s\"`, `\"N/min\"` or `\"N/h\"`, like `rate_limit = \"30/min\"`";
    let Some((n, unit)) = text.split_once('/') else {
        return Err(format!("`rate_limit` has no `/`: {form}"));
    };
    let ms = match unit.trim() {
        "s" | "sec" | "second" => 1_000,
        "m" | "min" | "minute" => 60_000,
        "h" | "hour" => 3_600_000,
        other => return Err(format!("`{other}` is not a period of `rate_limit`: {form}")),
    };
    match n.trim().parse::<u32>() {
        Ok(0) => Err(format!(
            "`rate_limit` of 0 calls would refuse every call: {form}; to turn a tool off, leave it out of the toolbox"
        )),
        Ok(count) => Ok((count, ms)),
        Err(_) => Err(format!("`{}` is not a whole number of calls from 1 to 4294967295: {form}", n.trim())),
    }
}

/// `scopes = [...]`: at least one, each a string literal holding one OAuth scope token
/// (RFC 6749 §3.3: `%x21 / %x23-5B / %x5D-7E`, so no space, `"` or `\\`), each once.
pub(super) fn check_scopes(list: &syn::ExprArray, errors: &mut Accumulator) -> Vec<String> {
    if list.elems.is_empty() {
        errors.push(
            Error::custom("`scopes` names at least one scope, like `scopes = [\"notes:write\"]`; drop `scopes` for a tool any caller may call")
                .with_span(list),
        );
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for elem in &list.elems {
        let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = elem else {
            errors.push(Error::custom("a scope is a string, like `\"notes:write\"`").with_span(elem));
            continue;
        };
        let scope = s.value();
        let token = !scope.is_empty()
            && scope.bytes().all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b));
        if !scope.is_empty() && scope.contains(' ') && !scope.contains(['"', '\\']) {
            let split: Vec<String> = scope.split_whitespace().map(|s| format!("\"{s}\"")).collect();
            errors.push(
                Error::custom(format!(
                    "a scope is one OAuth scope token, without spaces: list each scope as its own string, like `scopes = [{}]`",
                    split.join(", ")
                ))
                .with_span(s),
            );
        } else if !token {
            errors.push(
                Error::custom("a scope is one OAuth scope token (RFC 6749 §3.3): visible ASCII characters, no space, `\"` or `\\`, like `\"notes:write\"`")
                    .with_span(s),
            );
        } else if out.contains(&scope) {
            errors
                .push(Error::custom(format!("the scope `{scope}` is listed twice: list each scope once")).with_span(s));
        } else {
            out.push(scope);
        }
    }
    out
}

const RENAME_RULES: &[(&str, ident_case::RenameRule)] = &[
    ("lowercase", ident_case::RenameRule::LowerCase),
    ("PascalCase", ident_case::RenameRule::PascalCase),
    ("camelCase", ident_case::RenameRule::CamelCase),
    ("snake_case", ident_case::RenameRule::SnakeCase),
    ("SCREAMING_SNAKE_CASE", ident_case::RenameRule::ScreamingSnakeCase),
    ("kebab-case", ident_case::RenameRule::KebabCase),
];

/// serde's `rename_all` words.
pub fn rename_rule(value: &str) -> Result<ident_case::RenameRule, String> {
    RENAME_RULES.iter().find(|(name, _)| *name == value).map(|(_, r)| *r).ok_or_else(|| {
        let names: Vec<&str> = RENAME_RULES.iter().map(|(n, _)| *n).collect();
        let close = crate::suggest::closest(value, names.iter().copied());
        let hint = close.map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
        format!(
            "`rename_all` takes one of {}{hint}",
            names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
        )
    })
}
