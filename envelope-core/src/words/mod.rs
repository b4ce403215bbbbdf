//! Words: how envelope words and bounds the texts it writes. The lowest layer: it uses nothing
//! else in the crate.

// The one cut of a text to N characters, and how a cut text is shown.
pub(crate) mod cut;
// The budgets of a reply's texts (2 KB an envelope): the cut of a long text, counted name lists.
pub(crate) mod budget;
// How a value is shown in a sentence: quoting, lists and plurals, did-you-mean, numbers.
pub(crate) mod render;
