//! Reading a call: a tool's arguments, from the JSON text or value to typed values or one
//! refusal naming every problem. Above `context/` (the call a reader may hand a tool body) and
//! `spec/` (the declarations it reads by), beneath `schema.rs` and `call/`.

// The arguments object read parameter by parameter; the refusals of the arguments as a whole.
pub(crate) mod args;
// The strings a declaration writes (defaults, examples, `requires` values), held to the rules
// the macro cannot run, when a tool is built.
pub(crate) mod declared;
// Where JSON text stops being JSON, in JSON's words (MCP's parse error, arguments not JSON).
pub(crate) mod broken;
// A JSON container sent where one is expected: the object a `#[derive(Object)]` value is read
// from, the container a JSON string holds.
pub(crate) mod containers;
// The arguments as the generated reader receives them: a JSON object, or its text walked once.
pub(crate) mod input;
// What JSON a type the macro cannot name reads: `Textual` (a string), `Sequence` (an array or
// a map).
pub(crate) mod kinds;
// Maps (`BTreeMap<String, T>`, `HashMap<String, T>`): a JSON object of any keys, read value by
// value under `each(...)`.
pub(crate) mod maps;
// The reading context (`Reading`): where a value is (`ArgPath`), what reading it needs, the
// secret check.
pub(crate) mod path;
// The value readers: one JSON shape in, a typed value or a problem out; and the typed reading
// of an `Option`, an array and one value (serde into the type, the rules checked without words).
pub(crate) mod readers;
// The rules of `#[validate(...)]`, one module each.
pub(crate) mod rules;
// The typed reading of one scalar: serde's visitors that accept what the general readers do and
// decline anything else without an error, and the same reading of a held `Value`.
pub(crate) mod scalars;
// What a parsed value no longer shows: a key sent twice, the characters of each number.
pub(crate) mod sent;
// The refused members of one array or map: the first described, the next counted, the rest
// not read.
pub(crate) mod tally;
// The arguments read from their JSON text when the one-pass walk does not take them.
pub(crate) mod text;
// A tool's arguments (and an object's fields) read straight into their types, serde's way,
// when every type has the typed reading; the probe that asks whether it has.
pub(crate) mod typed;
// The integer a number literal names, read exactly from its characters.
pub(crate) mod whole;

pub use kinds::{Measured, Sequence, Textual};
pub use path::ArgPath;
pub use readers::Numeric;
