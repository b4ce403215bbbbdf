//! The reading context, beneath the rules and the value readers: where a value is ([`ArgPath`]),
//! what reading it needs ([`Reading`]), whether it may be quoted (the secret check), and the
//! constants every reader shares. It depends on no reader and no rule.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use crate::outcome::refusal::{Problem, Rejected};
use crate::spec::{Rules, Ty, Unit};
use crate::words::render;
use crate::words::texts::Text;

/// Where a value sits in the arguments: a parameter, an item of it, a field of it, the value
/// of a key of it (a map).
#[derive(Clone, Copy, Debug)]
pub enum ArgPath<'a> {
    /// A top-level parameter, by its declared name (`ParamSpec::name`): a refusal names it
    /// without a copy.
    Param(&'static str),
    /// `parent[i]`.
    Index(&'a ArgPath<'a>, usize),
    /// `parent.field`.
    Field(&'a ArgPath<'a>, &'a str),
    /// `parent["key"]`: the value of a map's key. The key is written as a JSON string, cut to
    /// its first 64 characters (then `…` inside the quotes): the caller chose it.
    Key(&'a ArgPath<'a>, &'a str),
    /// `parent[…]`: the value of a key of a `secret` map, whose keys are part of the secret and
    /// are not shown.
    SecretKey(&'a ArgPath<'a>),
}

/// The most characters of a map's key a path shows (`labels["…"]`).
pub(crate) const KEY_CHARS: usize = 64;

impl ArgPath<'_> {
    /// The top-level parameter this path is in.
    pub fn parameter(&self) -> &'static str {
        match self {
            ArgPath::Param(p) => p,
            ArgPath::Index(parent, _)
            | ArgPath::Field(parent, _)
            | ArgPath::Key(parent, _)
            | ArgPath::SecretKey(parent) => parent.parameter(),
        }
    }

    /// The path as its `Display` writes it (`filter.min_level`, `tags[1]`, `labels["env"]`), in
    /// one allocation of its exact length (`to_string` grows its string a segment at a time).
    pub(crate) fn text(&self) -> String {
        let mut out = String::with_capacity(self.text_len());
        // Writing to a `String` cannot fail.
        let _ = self.write_to(&mut out);
        out
    }

    /// The length in bytes of [`text`](Self::text).
    fn text_len(&self) -> usize {
        match self {
            ArgPath::Param(p) => p.len(),
            ArgPath::Index(parent, i) => parent.text_len() + 2 + i.checked_ilog10().map_or(1, |d| d as usize + 1),
            ArgPath::Field(parent, name) => parent.text_len() + 1 + name.len(),
            ArgPath::Key(parent, key) => parent.text_len() + 2 + key_text(key).len(),
            ArgPath::SecretKey(parent) => parent.text_len() + "[…]".len(),
        }
    }

    /// Writes the path, segment by segment: the one writer of both `Display` and `text`.
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self {
            ArgPath::Param(p) => out.write_str(p),
            ArgPath::Index(parent, i) => {
                parent.write_to(out)?;
                out.write_char('[')?;
                out.write_str(itoa::Buffer::new().format(*i))?;
                out.write_char(']')
            }
            ArgPath::Field(parent, name) => {
                parent.write_to(out)?;
                out.write_char('.')?;
                out.write_str(name)
            }
            ArgPath::Key(parent, key) => {
                parent.write_to(out)?;
                out.write_char('[')?;
                out.write_str(&key_text(key))?;
                out.write_char(']')
            }
            ArgPath::SecretKey(parent) => {
                parent.write_to(out)?;
                out.write_str("[…]")
            }
        }
    }
}

/// A map's key as a path writes it: a JSON string of its first [`KEY_CHARS`] characters, `…`
/// before the closing quote when cut (`"env"`, `"a \"quoted\" key"`).
pub(crate) fn key_text(key: &str) -> String {
    let shown = crate::words::cut::head(key, KEY_CHARS);
    let mut out = String::with_capacity(shown.len() + 5);
    crate::words::escape::push_str_to(&mut out, shown);
    if shown.len() < key.len() {
        out.insert(out.len() - 1, '…');
    }
    out
}

impl fmt::Display for ArgPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

/// What reading one value needs: its rules, the policy and where it is; and, carried by the
/// reader, the characters each number of the arguments was sent with.
#[derive(Clone, Copy, Debug)]
pub struct Reading<'a> {
    /// Rules that apply to this value.
    pub rules: &'a Rules,
    /// `#[tool(strict)]`.
    pub strict: bool,
    /// Where the value is.
    pub path: ArgPath<'a>,
    /// The characters numbers were sent with (`1e3`, which a `Value` holds as 1000.0), by the
    /// address of their node in the value being read, sorted; empty when no text was sent.
    pub(crate) numbers: Numbers<'a>,
}

pub(crate) use crate::words::render::Numbers;

static SECRET: Rules = Rules { secret: true, ..Rules::NONE };
static NO_RULES: Rules = Rules::NONE;

impl<'a> Reading<'a> {
    /// The context of a value at `path` under `rules`, read in strict or lax mode.
    pub fn new(rules: &'a Rules, strict: bool, path: ArgPath<'a>) -> Self {
        Reading { rules, strict, path, numbers: &[] }
    }

    /// This context with other rules (the same place, policy and numbers).
    pub(crate) fn with_rules<'b>(&'b self, rules: &'b Rules) -> Reading<'b> {
        Reading { rules, strict: self.strict, path: self.path, numbers: self.numbers }
    }

    /// This context with the characters of the numbers of another value (a container a JSON
    /// string held, decoded), by the address of their node.
    pub(crate) fn with_numbers<'b>(&self, numbers: Numbers<'b>) -> Reading<'b>
    where
        'a: 'b,
    {
        Reading { rules: self.rules, strict: self.strict, path: self.path, numbers }
    }

    /// The context of the `i`-th item of this (array) value: no rules of its own yet.
    pub fn item<'b>(&'b self, path: &'b ArgPath<'b>) -> Reading<'b> {
        let rules = match &self.rules.items {
            Some(items) => items,
            None if self.rules.secret => &SECRET,
            None => &NO_RULES,
        };
        Reading { rules, strict: self.strict, path: *path, numbers: self.numbers }
    }

    /// A problem with the value `v`: `<path>: <v> <issue>; accepted: <accepted>. <fix>`. Under a
    /// secret rule `v` is not shown, and `fix` must not quote it back either (the readers leave
    /// their example out then).
    pub fn problem(&self, v: &Value, issue: impl Into<String>, accepted: String, fix: String) -> Problem {
        self.problem_of(v, issue.into(), accepted, fix)
    }

    /// [`problem`](Self::problem) with an issue that may be borrowed for good (the readers'
    /// own words, `is out of range`): not copied.
    pub(crate) fn problem_of(
        &self,
        v: &Value,
        issue: impl Into<Cow<'static, str>>,
        accepted: impl Into<Text>,
        fix: impl Into<Text>,
    ) -> Problem {
        let rejected = if holds_secret(self.rules, None) {
            Rejected::Hidden
        } else {
            Rejected::Shown(render::shown_as_sent(v, self.numbers))
        };
        let fix = match self.rules.fix {
            Some(f) => Text::from(f),
            None => fix.into(),
        };
        let issue: Cow<'static, str> = match self.rules.reason {
            Some(r) => format!("{} ({r})", issue.into()).into(),
            None => issue.into(),
        };
        let problem = Problem::new(self.path.parameter(), rejected, issue).with_accepted(accepted).with_fix(fix);
        match self.path {
            // A top-level parameter is its own path: no path is kept, none is written.
            ArgPath::Param(_) => problem,
            path => problem.at(path.text()),
        }
    }
}

/// `problem` with its value not quoted when a value of shape `ty` under `rules` holds a secret
/// at any depth (an object of a map or array with a secret field): what a refusal of the whole
/// container (its count, its type) would otherwise show of it. [`Reading::problem_of`] sees the
/// rules alone.
pub(crate) fn hidden_if_secret(mut problem: Problem, rules: &Rules, ty: &Ty) -> Problem {
    if holds_secret(rules, Some(ty)) {
        problem.0.rejected = Rejected::Hidden;
    }
    problem
}

/// How a value is quoted: not at all when it is, or holds, a secret; its numbers as sent.
pub(crate) fn rejected_of(v: &Value, secret: bool, numbers: Numbers<'_>) -> Rejected {
    if secret { Rejected::Hidden } else { Rejected::Shown(render::shown_as_sent(v, numbers)) }
}

/// Whether a value under `rules` is, or holds at any depth, a secret: then no part of it is shown.
/// The one secret check, for a whole argument and for a value being read. `ty`, where the caller
/// knows it (a parameter's declared type), adds what only the type shows: the fields of an
/// object, and the items of an array whose rules say nothing. Without it (a [`Reading`] carries rules,
/// not a type) the rules alone decide, at every depth of `items`.
pub(crate) fn holds_secret(rules: &Rules, ty: Option<&Ty>) -> bool {
    let item_ty = match ty {
        Some(Ty::Array(item) | Ty::Map(item)) => Some(&**item),
        _ => None,
    };
    rules.secret
        || rules.items.as_deref().is_some_and(|items| holds_secret(items, item_ty))
        || match ty {
            Some(Ty::Object(o)) => o.params.iter().any(|p| holds_secret(&p.rules, Some(&p.ty))),
            Some(Ty::Array(item) | Ty::Map(item)) => holds_secret(&Rules::NONE, Some(item)),
            _ => false,
        }
}

/// How many failing items of one array (or names that are not parameters) are described one by
/// one; the rest are counted.
pub(crate) const SHOWN_ITEMS: usize = 3;

/// `1 character`, `3 items`.
pub(crate) fn count(n: usize, unit: Unit) -> String {
    if n == 1 { format!("1 {}", unit.singular()) } else { format!("{n} {}", unit.word()) }
}

#[cfg(test)]
mod tests {
    use super::{ArgPath, holds_secret};
    use crate::spec::{ObjectSpec, ParamSpec, Rules, Ty};

    fn array(depth: usize) -> Ty {
        (0..depth).fold(Ty::String, |t, _| Ty::Array(Box::new(t)))
    }

    fn items(depth: usize, innermost: Rules) -> Rules {
        (0..depth).fold(innermost, |r, _| Rules::NONE.with_items(r))
    }

    /// With the type or without it, nested item rules decide alike; only the type shows an
    /// object's secret fields, and item rules deeper than the type are read from the rules.
    #[test]
    fn the_secret_check_reads_the_rules_and_what_the_type_adds() {
        for depth in 0..4 {
            for secret in [false, true] {
                let inner = if secret { Rules::NONE.with_secret() } else { Rules::NONE };
                let rules = items(depth, inner);
                assert_eq!(holds_secret(&rules, Some(&array(depth))), secret, "depth {depth}");
                assert_eq!(holds_secret(&rules, None), secret, "depth {depth}");
            }
        }
        // An object with a secret field: its rules say nothing of the field, its type does.
        let field = ParamSpec::new("token", "", Ty::String, true).with_rules(Rules::NONE.with_secret());
        let object: &'static ObjectSpec = Box::leak(Box::new(ObjectSpec::new("Login", vec![field])));
        assert!(holds_secret(&Rules::NONE, Some(&Ty::Object(object))));
        assert!(!holds_secret(&Rules::NONE, None));
        // An array of such objects hides its items, with no item rules.
        assert!(holds_secret(&Rules::NONE, Some(&Ty::Array(Box::new(Ty::Object(object))))));
        // Item rules two levels deep under a type that is not an array: the rules still hide it.
        let deep = items(2, Rules::NONE.with_secret());
        assert!(holds_secret(&deep, None));
        assert!(holds_secret(&deep, Some(&Ty::Any)));
        assert!(!holds_secret(&items(2, Rules::NONE), Some(&Ty::Any)));
    }

    /// A path's text is its `Display`, in a string of exactly its length, at every depth and
    /// for indices of every width.
    #[test]
    fn a_path_is_written_in_one_allocation_of_its_length() {
        let root = ArgPath::Param("filter");
        for i in [0, 9, 10, 99, 100, 12_345, usize::MAX] {
            let item = ArgPath::Index(&root, i);
            let field = ArgPath::Field(&item, "min_level");
            let deeper = ArgPath::Index(&field, i);
            for path in [root, item, field, deeper] {
                let text = path.text();
                assert_eq!(text, path.to_string());
                assert_eq!(text.capacity(), text.len(), "{text}");
            }
        }
    }
}
