//! Words: how envelope words and bounds the texts it writes. The lowest layer: it uses nothing
//! else in the crate.

// The one cut of a text to N characters, and how a cut text is shown.
pub(crate) mod cut;
// The budgets of a reply's texts (2 KB an envelope): the cut of a long text, counted name lists.
pub(crate) mod budget;
// JSON strings written and measured a word (8 bytes) at a time, as serde_json writes them.
pub(crate) mod escape;
// Numbers in words: floats in their shortest form, delays.
pub(crate) mod number;
// How a value is shown in a sentence: quoted, cut, as sent; lists and plurals; JSON type words.
pub(crate) mod render;
// Did you mean: the closest name to a name sent.
pub(crate) mod suggest;
// A refusal's accepted set and fix: written for it, or kept with its rule and escaped once.
pub(crate) mod texts;
