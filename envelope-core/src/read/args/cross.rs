//! The cross-field rules (`requires`, `excludes`) of the arguments read ([`Args::cross`]), and
//! the fixes of refused values that offer a value those rules would then refuse.

use std::borrow::Cow;

use serde_json::Value;

use super::{Args, accepted_words};
use crate::outcome::refusal::{Problem, Rejected};
use crate::read::path::{Numbers, holds_secret, rejected_of};
use crate::spec::ParamSpec;
use crate::words::render;
use crate::words::texts::Text;

/// JSON equality of the values read, with numbers compared by value and strings optionally
/// without case. A value sent in a lax form (`"20"` read as 20, `"true"` as true: a parameter
/// that read without a problem holds one only in lax mode) equals the value it reads as.
fn same(a: &Value, b: &Value, ignore_case: bool) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::String(x), Value::String(y)) if ignore_case => x.to_lowercase() == y.to_lowercase(),
        (Value::String(s), Value::Number(n)) | (Value::Number(n), Value::String(s)) => {
            s.trim() == s && s.parse::<f64>().is_ok_and(|f| f.is_finite() && Some(f) == n.as_f64())
        }
        (Value::String(s), Value::Bool(v)) | (Value::Bool(v), Value::String(s)) => {
            (s == "true" && *v) || (s == "false" && !*v)
        }
        _ => a == b,
    }
}

/// Whether `value` (as sent, else the default) meets a `requires`' `want`: that value, or
/// (`None`) any value sent.
fn meets(want: Option<&Value>, value: Option<&Value>, ignore_case: bool) -> bool {
    match (want, value) {
        (None, v) => v.is_some(),
        (Some(w), Some(v)) => same(v, w, ignore_case),
        (Some(_), None) => false,
    }
}

/// What triggered a `requires`: `dimension "hour"` / `dimension is "hour"`.
struct Cause {
    noun: String,
    when: String,
}

/// A broken `requires`: `other` must be `want` (or sent) because of `cause`.
#[allow(clippy::too_many_arguments)]
fn cross_problem(
    other: &ParamSpec,
    sent: Option<&Value>,
    sent_null: bool,
    value: Option<&Value>,
    want: Option<&Value>,
    by: &ParamSpec,
    cause: &Cause,
    numbers: Numbers<'_>,
) -> Problem {
    let when = &cause.when;
    let noun = &cause.noun;
    let accepted = match want {
        Some(w) => format!("{} when {when}", render::shown(w)),
        None => accepted_words(other, &other.ty),
    };
    let change = if when.ends_with(" is sent") { "remove" } else { "change" };
    let fix = match want {
        Some(w) => format!("Send {} {}, or {change} {}.", other.name, render::shown(w), by.name),
        None => format!("Add \"{}\" to the arguments, or {change} {}.", other.name, by.name),
    };
    let (rejected, issue) = match (sent, value) {
        (Some(v), _) => {
            (rejected_of(v, holds_secret(&other.rules, Some(&other.ty)), numbers), format!("does not go with {noun}"))
        }
        (None, Some(d)) if sent_null => (
            Rejected::Missing,
            format!(
                "was sent as null, which reads as not sent, and its default {} does not go with {noun}",
                render::shown(d)
            ),
        ),
        (None, Some(d)) => {
            (Rejected::Missing, format!("was not sent, and its default {} does not go with {noun}", render::shown(d)))
        }
        (None, None) if sent_null => {
            (Rejected::Missing, format!("was sent as null, which reads as not sent; it is required when {when}"))
        }
        (None, None) => (Rejected::Missing, format!("is required when {when}")),
    };
    Problem::new(other.name, rejected, issue).with_accepted(accepted).with_fix(fix)
}

impl<'a> Args<'a> {
    /// The parameter's value for cross-field rules: as sent (not `null`), else its default.
    fn effective<'s>(&'s self, p: &'s ParamSpec) -> Option<&'s Value> {
        self.sent(p).or(p.default.as_ref())
    }

    /// Whether the parameter was sent as `null` (read as not sent; the refusal says which).
    fn sent_null(&self, p: &ParamSpec) -> bool {
        self.params.iter().position(|q| std::ptr::eq(q, p)).and_then(|i| self.slots.get(i)).is_some_and(|s| s.is_null())
    }

    fn sent(&self, p: &ParamSpec) -> Option<&'a Value> {
        self.obj.and_then(|o| o.get(p.name)).filter(|v| !v.is_null())
    }

    /// Checks the cross-field rules (`requires`, `excludes`) of parameters that were read
    /// without a problem; each broken rule is a problem of the parameter to change. A refused
    /// parameter whose fix offers a value (`Send "hour".`) that a `requires` of its own would
    /// then break has the fix say what goes with it (`Send "hour", with data_state
    /// "HOURLY_ALL".`), so the call the fix leads to is not refused again.
    pub fn cross(&mut self) {
        self.fixes_within_requirements();
        self.fixes_with_requirements();
        let mut found = Vec::new();
        let failed = |name: &str, problems: &[Problem]| {
            let at = self.path_of(name);
            problems.iter().any(|p| p.0.path.as_deref().unwrap_or(&p.0.parameter) == at)
        };
        for p in self.params {
            if failed(p.name, &self.problems) {
                continue;
            }
            let this = self.effective(p);
            for rule in &p.requires {
                let triggered = match (&rule.when, this) {
                    (None, _) => self.sent(p).is_some(),
                    (Some(w), Some(v)) => same(v, w, p.rules.ignore_case),
                    (Some(_), None) => false,
                };
                if !triggered {
                    continue;
                }
                let cause = match &rule.when {
                    Some(w) => Cause {
                        noun: format!("{} {}", p.name, render::shown(w)),
                        when: format!("{} is {}", p.name, render::shown(w)),
                    },
                    None => Cause { noun: p.name.to_owned(), when: format!("{} is sent", p.name) },
                };
                for (other_name, want) in &rule.then {
                    let Some(other) = self.params.iter().find(|o| o.name == *other_name) else { continue };
                    if failed(other.name, &self.problems) {
                        continue;
                    }
                    let value = self.effective(other);
                    if !meets(want.as_ref(), value, other.rules.ignore_case) {
                        let problem = cross_problem(
                            other,
                            self.sent(other),
                            self.sent_null(other),
                            value,
                            want.as_ref(),
                            p,
                            &cause,
                            self.numbers,
                        );
                        found.push(problem.at(self.path_of(other.name)).under(self.parameter_of(other.name)));
                    }
                }
            }
            for other_name in &p.excludes {
                let Some(other) = self.params.iter().find(|o| o.name == *other_name) else { continue };
                if let (Some(v), Some(_)) = (self.sent(p), self.sent(other))
                    && !failed(other.name, &self.problems)
                {
                    found.push(
                        Problem::new(
                            p.name,
                            rejected_of(v, holds_secret(&p.rules, Some(&p.ty)), self.numbers),
                            format!("cannot be sent together with {}", other.name),
                        )
                        .with_accepted(format!("{} or {}, not both", p.name, other.name))
                        .with_fix(format!("Remove {} or {}.", p.name, other.name)),
                    );
                }
            }
        }
        self.problems.extend(found);
    }

    /// The index of the problem of the declared parameter `name` (at its path here) whose fix
    /// offers a value (a suggestion).
    fn offering(&self, name: &str) -> Option<usize> {
        let at = self.path_of(name);
        self.problems
            .iter()
            .position(|x| x.0.suggestion.is_some() && x.0.path.as_deref().unwrap_or(&x.0.parameter) == at)
    }

    /// `None` when the declared parameter `name` was not refused; else the value its fix offers
    /// (`Some(None)`: none).
    fn refused_offer(&self, name: &str) -> Option<Option<Value>> {
        let at = self.path_of(name);
        let problem = self.problems.iter().find(|x| x.0.path.as_deref().unwrap_or(&x.0.parameter) == at)?;
        Some(problem.0.suggestion.as_deref().map(|s| Value::String(s.to_owned())))
    }

    /// A refused parameter whose fix offers a value (its problem's suggestion, `"ALL"` for
    /// `"al"`) that another parameter's `requires` forbids (dimension `"hour"` requires
    /// data_state `"HOURLY_ALL"`): the fix offers the value required instead (`Send
    /// "HOURLY_ALL", which dimension "hour" requires, or change dimension.`), so the call it
    /// leads to is not refused again. Left as it is when the parameters that constrain it want
    /// different values (no value would be served), or when the author wrote its `fix`.
    fn fixes_within_requirements(&mut self) {
        // Only a problem that offers a value has a fix to change (none on a call that is served).
        if !self.problems.iter().any(|x| x.0.suggestion.is_some()) {
            return;
        }
        for p in self.params {
            if p.rules.fix.is_some() {
                continue;
            }
            let Some(i) = self.offering(p.name) else { continue };
            // Which values the other parameters, as read, require of this one, and which first.
            let mut required: Option<(&Value, String, &str)> = None;
            let mut agree = true;
            for by in self.params.iter().filter(|q| !std::ptr::eq(*q, p)) {
                // A refused parameter counts with the value its own fix offers, if any.
                let offered = match self.refused_offer(by.name) {
                    Some(Some(offer)) => Some(offer),
                    Some(None) => continue,
                    None => None,
                };
                let Some(value) = offered.as_ref().or(self.effective(by)) else { continue };
                for rule in &by.requires {
                    let triggered = match &rule.when {
                        Some(w) => same(value, w, by.rules.ignore_case),
                        None => offered.is_some() || self.sent(by).is_some(),
                    };
                    for (name, want) in rule.then.iter().filter(|_| triggered) {
                        let (true, Some(want)) = (*name == p.name, want) else { continue };
                        match &required {
                            None => {
                                let cause = match &rule.when {
                                    Some(w) => format!("{} {}", by.name, render::shown(w)),
                                    None => by.name.to_owned(),
                                };
                                required = Some((want, cause, by.name));
                            }
                            Some((first, _, _)) => agree &= same(first, want, p.rules.ignore_case),
                        }
                    }
                }
            }
            let Some((want @ Value::String(wanted), cause, by)) = required.filter(|_| agree) else { continue };
            let problem = &mut self.problems[i].0;
            if problem
                .suggestion
                .as_deref()
                .is_some_and(|s| same(&Value::String(s.to_owned()), want, p.rules.ignore_case))
            {
                continue;
            }
            problem.suggestion = Some(Cow::Owned(wanted.clone()));
            problem.fix = Text::Owned(format!("Send {}, which {cause} requires, or change {by}.", render::shown(want)));
        }
    }

    /// The other parameters a refused parameter's offered value (its problem's suggestion)
    /// requires and does not have, added to its fix (see [`cross`](Self::cross)). An author's
    /// own `fix` is left as written.
    fn fixes_with_requirements(&mut self) {
        if !self.problems.iter().any(|x| x.0.suggestion.is_some()) {
            return;
        }
        for p in self.params {
            if p.requires.is_empty() || p.rules.fix.is_some() {
                continue;
            }
            let Some(i) = self.offering(p.name) else { continue };
            let offered = Value::String(self.problems[i].0.suggestion.as_deref().unwrap_or_default().to_owned());
            // The values the fix leads to, followed along the requirements they bring in turn
            // (a chain: "hour" requires a level, which requires an extra), each parameter once.
            let mut assumed: Vec<(&ParamSpec, Value)> = vec![(p, offered)];
            let mut with = Vec::new();
            let mut next = 0;
            while let Some((q, value)) = assumed.get(next).cloned() {
                next += 1;
                let triggered =
                    q.requires.iter().filter(|r| r.when.as_ref().is_none_or(|w| same(&value, w, q.rules.ignore_case)));
                for rule in triggered {
                    for (other_name, want) in &rule.then {
                        let Some(other) = self.params.iter().find(|o| o.name == *other_name) else { continue };
                        if assumed.iter().any(|(a, _)| std::ptr::eq(*a, other)) {
                            continue;
                        }
                        // A refused parameter counts with the value its own fix offers.
                        let offered = self.refused_offer(other.name).flatten();
                        if meets(want.as_ref(), offered.as_ref().or(self.effective(other)), other.rules.ignore_case) {
                            continue;
                        }
                        match want {
                            Some(w) => {
                                with.push(format!("{} {}", other.name, render::shown(w)));
                                assumed.push((other, w.clone()));
                            }
                            None => {
                                let sent = format!("{} sent", other.name);
                                if !with.contains(&sent) {
                                    with.push(sent);
                                }
                            }
                        }
                    }
                }
            }
            if with.is_empty() {
                continue;
            }
            let fix = self.problems[i].0.fix.as_mut_string();
            if fix.ends_with('.') {
                fix.pop();
            }
            fix.push_str(", with ");
            fix.push_str(&with.join(" and "));
            fix.push('.');
        }
    }
}
