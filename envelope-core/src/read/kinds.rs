//! What JSON a parameter type reads, for the rules of a type the `#[tool]` macro cannot name (an
//! alias, a newtype): [`Textual`] (a string: `length`, `byte_length`, `pattern`, `format`, string
//! `choices`) and [`Sequence`] (an array: `length`, `each(...)`), beside
//! [`Numeric`](crate::Numeric) (a number: `range`, `multiple_of`).
//!
//! The macro checks the types it knows by name (`String`, `Vec<T>`, the numbers). For any other
//! type it leaves the rule to one of these traits, as a bound spanned at the rule: `pattern` on
//! a newtype that does not implement `Textual` is a compile error at `pattern`, with the
//! trait's `on_unimplemented` sentence. An alias is the type it names and needs nothing.
//!
//! A newtype opts in with one empty impl (or one with its item type), beside the `FromArg` impl
//! that reads the wrapped type — as garde's `HasLength` and friends are implemented by hand for
//! a type of one's own. A derive could not do better: only the type's author knows which JSON
//! its `FromArg` reads, and a derive sees the wrapped type's tokens, not what an alias names.

use crate::FromArg;
use crate::spec::Unit;

/// A parameter type that reads a JSON string: `length` (characters), `byte_length`, `pattern`,
/// `format` and string `choices` (with `ignore_case`) apply to it. Implemented for `String`; a
/// newtype of a string implements it to take those rules (its `FromArg` reads the string, so
/// the rules reach the string's reader through `reading`, and the refusals and the schema are a
/// string's). A type alias of `String` is `String` and needs nothing.
///
/// ```
/// use envelope_core::spec::Ty;
/// use envelope_core::read::Textual;
/// use envelope_core::{Reading, FromArg, Problem, Toolbox, tool};
/// use serde_json::{Value, json};
///
/// /// An email address.
/// pub struct Email(String);
///
/// impl FromArg for Email {
///     fn ty() -> Ty {
///         String::ty()
///     }
///     fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
///         String::from_arg(v, reading).map(Email)
///     }
/// }
///
/// impl Textual for Email {}
///
/// /// Invites someone.
/// #[tool]
/// fn invite(#[validate(format = "email", length = ..=254)] to: Email) -> String {
///     to.0
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let toolbox = Toolbox::new().with(invite::tool());
/// let refused = toolbox.call("invite", Some(&json!({"to": "ada"}))).await.unwrap();
/// assert_eq!(
///     refused.message().unwrap(),
///     "to: \"ada\" is not a valid email address; accepted: an email address of at most 254 \
///      characters. Send an address like \"ada@example.com\"."
/// );
/// let schema = toolbox.get("invite").unwrap().input_schema();
/// assert_eq!(schema["properties"]["to"], json!({"type": "string", "format": "email", "maxLength": 254}));
/// # });
/// ```
#[diagnostic::on_unimplemented(
    message = "`byte_length`, `pattern`, `format` and string `choices` apply to strings, and `{Self}` is not one",
    label = "this rule needs a parameter type that implements `envelope_core::read::Textual`",
    note = "a newtype of a string implements `FromArg` by reading the string, and `Textual`"
)]
pub trait Textual: FromArg {
    /// What the `#[tool]` macro names to check that a rule applies to the type: an unmet bound
    /// on it reports this trait only. Never implemented by hand.
    #[doc(hidden)]
    const RULES_APPLY: () = ();
}

impl Textual for String {}

/// A parameter type that reads a JSON array, or a JSON object whose values are of one type (a
/// map): `length` (items, or a map's entries: [`UNIT`](Sequence::UNIT)) and `each(...)` (rules
/// on every item, or every value of a map, of type [`Item`](Sequence::Item)) apply to it.
/// Implemented for `Vec<T>`, `BTreeMap<String, T>` and `HashMap<String, T>`; a newtype of one
/// implements it to take those rules, naming its item type. A type alias of a `Vec` or map is
/// that type and needs nothing.
///
/// ```
/// use envelope_core::spec::Ty;
/// use envelope_core::read::Sequence;
/// use envelope_core::{Reading, FromArg, Problem, Toolbox, tool};
/// use serde_json::{Value, json};
///
/// /// Labels.
/// pub struct Tags(Vec<String>);
///
/// impl FromArg for Tags {
///     fn ty() -> Ty {
///         Vec::<String>::ty()
///     }
///     fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
///         Vec::<String>::from_arg(v, reading).map(Tags)
///     }
/// }
///
/// impl Sequence for Tags {
///     type Item = String;
/// }
///
/// /// Labels a note.
/// #[tool]
/// fn label(#[validate(length = 1..=3, each(length = 1..=20))] tags: Tags) -> usize {
///     tags.0.len()
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let toolbox = Toolbox::new().with(label::tool());
/// let refused = toolbox.call("label", Some(&json!({"tags": []}))).await.unwrap();
/// assert_eq!(
///     refused.message().unwrap(),
///     "tags: [] has 0 items; accepted: an array of 1 to 3 items, each a string of 1 to 20 \
///      characters. Send at least 1 item."
/// );
/// # });
/// ```
#[diagnostic::on_unimplemented(
    message = "`each(...)` applies to arrays and maps, and `{Self}` is neither",
    label = "this rule needs a parameter type that implements `envelope_core::read::Sequence`",
    note = "a newtype of a `Vec` implements `FromArg` by reading the `Vec`, and `Sequence` with its item type"
)]
pub trait Sequence: FromArg {
    /// The type of one item (of a map, one value), which the rules of `each(...)` apply to.
    type Item;
    /// What `length` counts: [`Unit::Items`] of an array, [`Unit::Entries`] of a map.
    const UNIT: Unit = Unit::Items;
}

impl<T: FromArg> Sequence for Vec<T> {
    type Item = T;
}

impl<T: FromArg> Sequence for std::collections::BTreeMap<String, T> {
    type Item = T;
    const UNIT: Unit = Unit::Entries;
}

impl<T: FromArg, S: std::hash::BuildHasher + Default> Sequence for std::collections::HashMap<String, T, S> {
    type Item = T;
    const UNIT: Unit = Unit::Entries;
}

/// Marks the [`Measured`] impl of a [`Textual`] type.
#[doc(hidden)]
pub struct InCharacters;

/// Marks the [`Measured`] impl of a [`Sequence`] type.
#[doc(hidden)]
pub struct InItems;

/// What `length` counts on a parameter type: characters of a [`Textual`] type, items of a
/// [`Sequence`] (entries of a map). Implemented by both blanket impls, never by hand: a type takes `length` by
/// implementing `Textual` or `Sequence`, and the error of `length` on a type that implements
/// neither names this trait. `M` tells the two impls apart, so a type is `Measured` when it is
/// either (and the compiler infers which).
#[diagnostic::on_unimplemented(
    message = "`length` applies to strings, arrays and maps, and `{Self}` is none of them",
    label = "this rule needs a parameter type that implements `envelope_core::read::Textual` or `envelope_core::read::Sequence`",
    note = "a newtype implements `FromArg` by reading the type it wraps, and `Textual` (a string) or `Sequence` (a `Vec`)"
)]
pub trait Measured<M> {
    /// The unit `length` counts in.
    const UNIT: Unit;
}

impl<T: Textual> Measured<InCharacters> for T {
    const UNIT: Unit = Unit::Characters;
}

impl<T: Sequence> Measured<InItems> for T {
    const UNIT: Unit = <T as Sequence>::UNIT;
}
