//! The strings a declaration writes (a `default`, a `pattern`'s `example`, a `requires` value, a
//! `when`) held, when the tool is declared, to the string rules of the value they stand for:
//! `length`, `format`, `pattern` and `choices`. The macro checks ranges, steps, lengths and
//! choices at compile time; it does not run a regex or a format's check, so a string one of
//! those refuses is found here, with the reader's own rules, and the declaration panics naming
//! it. Each such string would make the tool refuse what it offers: a default given to the tool
//! that its rules refuse, a fix (`Send a value of the same form as "My Post".`) that is refused
//! again, a `requires` every call that triggers it breaks, a `when` that never applies.

use serde_json::Value;

use crate::read::rules::{choices, length};
use crate::spec::{Choices, ParamSpec, Rules, Ty};

/// [`check`] of a tool's parameters, and of every `#[derive(Object)]` they hold (as a value, an
/// array's item or a map's value), each named: `tool "t"`, `object "Filter"`.
pub(crate) fn check_tool(name: &str, params: &[ParamSpec]) {
    check("tool", name, params);
    for p in params {
        objects_in(&p.ty);
    }
}

/// [`check`] of the `#[derive(Object)]` structs in the shape `ty`, at any depth.
fn objects_in(ty: &Ty) {
    match ty {
        Ty::Object(o) => {
            check("object", o.name, &o.params);
            for p in &o.params {
                objects_in(&p.ty);
            }
        }
        Ty::Array(item) | Ty::Map(item) => objects_in(item),
        _ => {}
    }
}

/// Panics when a string written in the declaration of the `kind` (`tool`, `object`) named
/// `owner` is refused by the rules of the value it stands for, naming the parameter, the string
/// and the rule: `tool "t", parameter "slug": the default "ABC" does not match its pattern ...`.
pub(crate) fn check(kind: &str, owner: &str, params: &[ParamSpec]) {
    for p in params {
        let at = |what: String, rule: &str, consequence: &str| -> ! {
            panic!("{kind} \"{owner}\", parameter \"{}\": {what} {rule}; {consequence}", p.name)
        };
        if let Some(Value::String(d)) = &p.default
            && let Some(rule) = refusing(&p.rules, d)
        {
            at(format!("the default {d:?}"), &rule, "a caller who leaves it out would get a value the tool refuses");
        }
        examples(&p.rules, &|example, rule| {
            at(format!("the example {example:?}"), &rule, "the fix that offers it would be refused again")
        });
        for rule in &p.requires {
            if let Some(Value::String(w)) = &rule.when
                && let Some(broken) = refusing(&p.rules, w)
            {
                at(format!("the `when` value {w:?}"), &broken, "the rule would never apply");
            }
            for (name, want) in &rule.then {
                let (Some(Value::String(w)), Some(other)) = (want, params.iter().find(|o| o.name == *name)) else {
                    continue;
                };
                if let Some(broken) = refusing(&other.rules, w) {
                    at(
                        format!("requires {name} = {w:?}, which {name}'s rules refuse:"),
                        &broken,
                        "every call that triggers the rule would be refused",
                    );
                }
            }
        }
    }
}

/// Calls `refused` with a `pattern`'s `example` (on the value or on its items, `each(...)`)
/// that the rules it stands beside refuse, and the rule that refuses it.
fn examples(rules: &Rules, refused: &dyn Fn(&str, String)) {
    if let Some(example) = rules.pattern.as_ref().and_then(|p| p.example)
        && let Some(rule) = refusing(rules, example)
    {
        refused(example, rule);
    }
    if let Some(items) = &rules.items {
        examples(items, refused);
    }
}

/// The first string rule of `rules` that refuses `s`, in words (`does not match its pattern
/// ^[a-z]+$`), as the reader decides it; `None` when every one accepts it.
fn refusing(rules: &Rules, s: &str) -> Option<String> {
    if !length::takes_text(rules, s) {
        return Some("is outside its `length` or `byte_length`".into());
    }
    if let Some(form) = rules.format
        && !form.accepts(s)
    {
        return Some(format!("is not a valid {} (its `format`)", form.keyword()));
    }
    if let Some(p) = &rules.pattern
        && !p.regex.is_match(s)
    {
        return Some(format!("does not match its pattern {}", p.source));
    }
    match rules.choices {
        Some(Choices::Str(c)) if !(c.contains(&s) || (rules.ignore_case && choices::canonical(c, s).is_some())) => {
            Some("is not one of its `choices`".into())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::spec::{Format, ParamSpec, Pattern, Requires, Rules, Ty};
    use serde_json::json;

    fn param(name: &'static str, rules: Rules) -> ParamSpec {
        ParamSpec::new(name, "A value.", Ty::String, false).with_rules(rules)
    }

    fn panic_of(params: Vec<ParamSpec>) -> String {
        let caught = std::panic::catch_unwind(|| check("tool", "t", &params)).expect_err("panics");
        caught.downcast_ref::<String>().cloned().unwrap_or_default()
    }

    #[test]
    fn a_default_its_pattern_or_format_refuses_is_named() {
        let pattern = Rules { pattern: Some(Pattern::new("^[a-z]+$", None)), ..Rules::default() };
        assert_eq!(
            panic_of(vec![param("slug", pattern).with_default(json!("ABC"))]),
            "tool \"t\", parameter \"slug\": the default \"ABC\" does not match its pattern ^[a-z]+$; a caller who \
             leaves it out would get a value the tool refuses"
        );
        let date = Rules { format: Some(Format::Date), ..Rules::default() };
        assert_eq!(
            panic_of(vec![param("since", date).with_default(json!("tomorrow"))]),
            "tool \"t\", parameter \"since\": the default \"tomorrow\" is not a valid date (its `format`); a caller \
             who leaves it out would get a value the tool refuses"
        );
    }

    #[test]
    fn an_example_its_pattern_refuses_is_named() {
        let rules = Rules { pattern: Some(Pattern::new("^[a-z]+$", Some("My Post"))), ..Rules::default() };
        assert_eq!(
            panic_of(vec![param("slug", rules)]),
            "tool \"t\", parameter \"slug\": the example \"My Post\" does not match its pattern ^[a-z]+$; the fix that \
             offers it would be refused again"
        );
        let items = Rules {
            items: Some(Box::new(Rules { pattern: Some(Pattern::new("^[a-z]+$", Some("Tag"))), ..Rules::default() })),
            ..Rules::default()
        };
        assert!(panic_of(vec![param("tags", items)]).contains("the example \"Tag\" does not match"));
    }

    #[test]
    fn a_requires_value_or_when_the_rules_refuse_is_named() {
        let lower = || Rules { pattern: Some(Pattern::new("^[a-z]+$", None)), ..Rules::default() };
        let requiring =
            param("mode", lower()).with_requires(vec![Requires::new(None, vec![("level", Some(json!("HIGH")))])]);
        assert_eq!(
            panic_of(vec![requiring, param("level", lower())]),
            "tool \"t\", parameter \"mode\": requires level = \"HIGH\", which level's rules refuse: does not match its \
             pattern ^[a-z]+$; every call that triggers the rule would be refused"
        );
        let when =
            param("mode", lower()).with_requires(vec![Requires::new(Some(json!("FAST")), vec![("level", None)])]);
        assert!(panic_of(vec![when, param("level", lower())]).contains("the `when` value \"FAST\" does not match"));
    }

    #[test]
    fn strings_the_rules_accept_pass() {
        let rules = Rules { pattern: Some(Pattern::new("^[a-z]+$", Some("post"))), ..Rules::default() };
        check("tool", "t", &[param("slug", rules).with_default(json!("abc"))]);
    }
}
