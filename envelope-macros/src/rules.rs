//! The rules of `#[validate(...)]` in one table: each rule's name, what its value is written
//! as, which parameter types it applies to, and the hint of a misplaced one. The parse stage
//! reads the names here (an unknown rule's did-you-mean is over this list), the check stage
//! asks [`applies`] before a rule's own checks, and the words of every diagnostic about a
//! rule's place or form come from its row. Adding a rule is a row here, its parse field, its
//! check, and its runtime module in envelope-core.

use crate::diag::Error;
use proc_macro2::Span;

use crate::ty::Kind;

/// How a rule's value is written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    /// `rule = 1..=720`.
    Range,
    /// `rule = [..]`.
    List,
    /// `rule = "..."`.
    Str,
    /// `rule = 5`.
    Number,
    /// `rule` alone.
    Flag,
    /// `rule = <a literal of the parameter's type>`.
    Literal,
    /// `rule(...)`.
    Nested,
}

/// The parameter types a rule applies to (without `Option`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Applies {
    /// Any parameter.
    Any,
    /// Integers and floats.
    Numbers,
    /// Strings and integers.
    StringsAndIntegers,
    /// Strings and `Vec`s.
    StringsAndVecs,
    /// Strings.
    Strings,
    /// `Vec`s.
    Vecs,
}

impl Applies {
    fn takes(self, kind: Kind) -> bool {
        match self {
            Applies::Any => true,
            Applies::Numbers => matches!(kind, Kind::Int { .. } | Kind::Float),
            Applies::StringsAndIntegers => matches!(kind, Kind::Int { .. } | Kind::Str),
            Applies::StringsAndVecs => matches!(kind, Kind::Str | Kind::Array),
            Applies::Strings => kind == Kind::Str,
            Applies::Vecs => kind == Kind::Array,
        }
    }

    fn words(self) -> &'static str {
        match self {
            Applies::Any => "all",
            Applies::Numbers => "integer and float",
            Applies::StringsAndIntegers => "string and integer",
            Applies::StringsAndVecs => "string and Vec",
            Applies::Strings => "string",
            Applies::Vecs => "Vec",
        }
    }
}

/// One rule.
pub struct Rule {
    /// As written in `#[validate(...)]`.
    pub name: &'static str,
    /// How its value is written.
    pub form: Form,
    /// The types it applies to.
    pub applies: Applies,
    /// What to write instead when it is on a type it does not apply to, by that type.
    pub hint: fn(Kind) -> &'static str,
    /// For a type the macro cannot name (an alias, a newtype): the trait of envelope-core whose
    /// bound decides, at the rule, whether it applies.
    pub by_trait: Option<ByTrait>,
}

/// A trait of envelope-core that says which JSON a parameter type reads, put as a bound on a
/// type the macro cannot name (the expansion calls the private function of that name, spanned
/// at the rule, and the trait's `on_unimplemented` sentence is the error).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ByTrait {
    /// `Numeric`: a number.
    Numeric,
    /// `Textual`: a string.
    Textual,
    /// `Sequence`: an array.
    Sequence,
    /// `Measured`: a string or an array (what `length` counts follows). Its bound is the
    /// trait's own `<T as Measured<_>>::UNIT`, not a function: the error names only the trait.
    Measured,
}

impl ByTrait {
    /// The public trait of envelope-core that carries the bound.
    pub fn trait_name(self) -> &'static str {
        match self {
            ByTrait::Numeric => "Numeric",
            ByTrait::Textual => "Textual",
            ByTrait::Sequence => "Sequence",
            ByTrait::Measured => "Measured",
        }
    }
}

fn no_hint(_: Kind) -> &'static str {
    ""
}

const NUMERIC: Option<ByTrait> = Some(ByTrait::Numeric);
const TEXTUAL: Option<ByTrait> = Some(ByTrait::Textual);

/// Every rule, in the order the unknown-rule message lists them.
pub const RULES: &[Rule] = &[
    Rule {
        name: "range",
        form: Form::Range,
        applies: Applies::Numbers,
        hint: |k| match k {
            Kind::Str | Kind::Array => "; for a length write `length = 1..=120`",
            _ => "; drop `range`",
        },
        by_trait: NUMERIC,
    },
    Rule {
        name: "multiple_of",
        form: Form::Number,
        applies: Applies::Numbers,
        hint: |k| match k {
            Kind::Str | Kind::Array => "; for a length write `length = 1..=120`",
            _ => "; drop `multiple_of`",
        },
        by_trait: NUMERIC,
    },
    // On a type the macro cannot name, string choices go by `Textual`; integer ones are refused.
    Rule { name: "choices", form: Form::List, applies: Applies::StringsAndIntegers, hint: no_hint, by_trait: TEXTUAL },
    Rule { name: "ignore_case", form: Form::Flag, applies: Applies::Any, hint: no_hint, by_trait: None },
    Rule {
        name: "length",
        form: Form::Range,
        applies: Applies::StringsAndVecs,
        hint: |k| match k {
            Kind::Int { .. } | Kind::Float => "; for a number use `range = 1..=10`",
            _ => "",
        },
        by_trait: Some(ByTrait::Measured),
    },
    Rule { name: "byte_length", form: Form::Range, applies: Applies::Strings, hint: no_hint, by_trait: TEXTUAL },
    Rule {
        name: "pattern",
        form: Form::Str,
        applies: Applies::Strings,
        hint: |k| if k == Kind::Array { "; for the items of a Vec write `each(pattern = \"...\")`" } else { "" },
        by_trait: TEXTUAL,
    },
    Rule { name: "example", form: Form::Str, applies: Applies::Any, hint: no_hint, by_trait: None },
    Rule { name: "format", form: Form::Str, applies: Applies::Strings, hint: no_hint, by_trait: TEXTUAL },
    Rule { name: "each", form: Form::Nested, applies: Applies::Vecs, hint: no_hint, by_trait: Some(ByTrait::Sequence) },
    Rule { name: "default", form: Form::Literal, applies: Applies::Any, hint: no_hint, by_trait: None },
    Rule { name: "secret", form: Form::Flag, applies: Applies::Any, hint: no_hint, by_trait: None },
    Rule { name: "requires", form: Form::Nested, applies: Applies::Any, hint: no_hint, by_trait: None },
    Rule { name: "excludes", form: Form::Str, applies: Applies::Any, hint: no_hint, by_trait: None },
    Rule { name: "rename", form: Form::Str, applies: Applies::Any, hint: no_hint, by_trait: None },
    Rule { name: "desc", form: Form::Str, applies: Applies::Any, hint: no_hint, by_trait: None },
    Rule { name: "fix", form: Form::Str, applies: Applies::Any, hint: no_hint, by_trait: None },
    Rule { name: "reason", form: Form::Str, applies: Applies::Any, hint: no_hint, by_trait: None },
];

/// The row of rule `name`.
pub fn rule(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// Every rule's name, in the table's order.
pub fn names() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|r| r.name)
}

/// Whether rule `name` applies to a parameter of kind `kind`; when not, the error (spanned at
/// the rule) says which types it applies to, which this one is, and what to write instead. A
/// type the macro cannot name is left to the rule's trait bound (`by_trait`), when it has one.
pub fn applies(name: &str, kind: Kind, span: Span, errors: &mut crate::diag::Accumulator) -> bool {
    let Some(r) = rule(name) else { return true };
    if r.applies.takes(kind) || (kind == Kind::Other && r.by_trait.is_some()) {
        return true;
    }
    let shown = if r.form == Form::Nested { format!("{name}(...)") } else { name.to_owned() };
    errors.push(
        Error::custom(format!(
            "`{shown}` applies to {} parameters, and this one is {}{}",
            r.applies.words(),
            kind.words(),
            (r.hint)(kind)
        ))
        .with_span(&span),
    );
    false
}

/// How a rule's value is written, for an error about its form: `` `range` takes a range, like
/// `range = 1..=120` ``.
pub fn form_words(name: &str) -> Option<String> {
    Some(match rule(name)?.form {
        Form::Range => format!("`{name}` takes a range, like `{name} = 1..=120`; for exactly 5 write `5..=5`"),
        Form::List => format!("`{name}` is a list, like `{name} = [\"a\", \"b\"]`"),
        Form::Str => format!("`{name}` is a string: write `{name} = \"...\"`"),
        Form::Number => format!("`{name}` is a number above 0, like `{name} = 5`"),
        Form::Flag | Form::Literal | Form::Nested => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_decides_applicability_and_its_words() {
        let mut errors = crate::diag::Error::accumulator();
        let int = Kind::Int { min: 0, max: 255, name: "u8" };
        assert!(applies("range", int, Span::call_site(), &mut errors));
        assert!(!applies("range", Kind::Str, Span::call_site(), &mut errors));
        assert!(!applies("each", Kind::Str, Span::call_site(), &mut errors));
        assert!(applies("multiple_of", Kind::Float, Span::call_site(), &mut errors));
        assert!(!applies("multiple_of", Kind::Str, Span::call_site(), &mut errors));
        let messages: Vec<String> = errors.finish().unwrap_err().into_iter().map(|e| e.to_string()).collect();
        assert_eq!(
            messages,
            [
                "`range` applies to integer and float parameters, and this one is a string; for a length write `length = 1..=120`",
                "`each(...)` applies to Vec parameters, and this one is a string",
                "`multiple_of` applies to integer and float parameters, and this one is a string; for a length write `length = 1..=120`",
            ]
        );
    }
}
