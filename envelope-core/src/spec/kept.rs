//! What a rule's refusals say, kept with the rule once written: the accepted set in words
//! (`a whole number from 1 to 720`, `one of "asc", "desc"`) and the fix of a value out of range
//! (`Send a value from 1 to 720.`), each with its JSON escape. They depend on the rule and the
//! value's type only, so a parameter refused again shares them instead of writing, escaping and
//! freeing them again. One text of each per rule, whatever is sent: the memory they hold is
//! bounded by the declarations.

use std::sync::{Arc, OnceLock};

use crate::words::texts::{Kept, Text};

/// Where a rule keeps its words, each under a key `K` of everything the words depend on (the
/// rules' `KeptKey`): given to every declared parameter's rules (and their items'), shared by
/// clones of them; none in `Rules::NONE` itself (a constant holds no cache), so a `Rules` built
/// by hand words each refusal afresh. Not part of the rule's value: any two are equal.
pub(crate) struct KeptSlot<K>(Option<Arc<KeptWords<K>>>);

/// One place per choice, each filled when its choice is first offered.
type ChoiceFixes = Box<[OnceLock<Arc<Kept>>]>;

/// A rule's kept words, empty until a refusal under the rule writes them.
pub(crate) struct KeptWords<K> {
    accepted: OnceLock<(K, Arc<Kept>)>,
    out_of_range_fix: OnceLock<(K, Arc<Kept>)>,
    /// The fix offering each choice (`Send "database".`), by the choice's place.
    choice_fixes: OnceLock<(K, ChoiceFixes)>,
}

impl<K> KeptSlot<K> {
    /// No place to keep words.
    pub(crate) const NONE: KeptSlot<K> = KeptSlot(None);

    /// Whether it has a place.
    pub(crate) fn is_some(&self) -> bool {
        self.0.is_some()
    }

    /// This slot, or a new empty place when it has none.
    pub(crate) fn or_new(self) -> KeptSlot<K> {
        match self.0 {
            Some(_) => self,
            None => KeptSlot(Some(Arc::new(KeptWords {
                accepted: OnceLock::new(),
                out_of_range_fix: OnceLock::new(),
                choice_fixes: OnceLock::new(),
            }))),
        }
    }
}

impl<K: Copy + PartialEq> KeptSlot<K> {
    /// The accepted set in words under `key`: kept, or written by `words` (and kept when
    /// nothing is kept under another key).
    pub(crate) fn accepted(&self, key: K, words: impl FnOnce() -> String) -> Text {
        match &self.0 {
            Some(kept) => kept_or(&kept.accepted, key, words),
            None => Text::Owned(words()),
        }
    }

    /// The fix of a value out of range under `key`, as [`accepted`](Self::accepted).
    pub(crate) fn out_of_range_fix(&self, key: K, words: impl FnOnce() -> String) -> Text {
        match &self.0 {
            Some(kept) => kept_or(&kept.out_of_range_fix, key, words),
            None => Text::Owned(words()),
        }
    }

    /// The fix offering the choice at place `at` of the `n` choices `key` names (`Send
    /// "database".`): kept per choice, or written by `words` (for no place, or other choices
    /// than those kept).
    pub(crate) fn choice_fix(&self, key: K, at: Option<usize>, n: usize, words: impl FnOnce() -> String) -> Text {
        let (Some(kept), Some(at)) = (&self.0, at) else {
            return Text::Owned(words());
        };
        let (k, fixes) = kept.choice_fixes.get_or_init(|| (key, (0..n).map(|_| OnceLock::new()).collect()));
        match fixes.get(at) {
            Some(fix) if *k == key => Text::Kept(Arc::clone(fix.get_or_init(|| Kept::new(words())))),
            _ => Text::Owned(words()),
        }
    }
}

fn kept_or<K: PartialEq>(slot: &OnceLock<(K, Arc<Kept>)>, key: K, words: impl FnOnce() -> String) -> Text {
    match slot.get() {
        Some((k, kept)) if *k == key => Text::Kept(Arc::clone(kept)),
        // Other words than those kept under this slot (a clone of a parameter's rules given to
        // a parameter of another type or with other rules): written each time.
        Some(_) => Text::Owned(words()),
        None => {
            let kept = Kept::new(words());
            // Another thread may have kept its own first: this one is used once, then freed.
            let _ = slot.set((key, Arc::clone(&kept)));
            Text::Kept(kept)
        }
    }
}

impl<K> Clone for KeptSlot<K> {
    fn clone(&self) -> Self {
        KeptSlot(self.0.clone())
    }
}

impl<K> Default for KeptSlot<K> {
    fn default() -> Self {
        KeptSlot(None)
    }
}

impl<K> PartialEq for KeptSlot<K> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<K> std::fmt::Debug for KeptSlot<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptSlot").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kept under its key, written again under another, never kept twice.
    #[test]
    fn words_are_kept_under_their_key_only() {
        let kept = KeptSlot::<(usize, usize)>::NONE.or_new();
        let written = std::cell::Cell::new(0);
        let words = |s: &str| {
            written.set(written.get() + 1);
            s.to_owned()
        };
        let a = kept.accepted((1, 720), || words("a whole number from 1 to 720"));
        let b = kept.accepted((1, 720), || words("not asked for"));
        assert!(matches!((&a, &b), (Text::Kept(x), Text::Kept(y)) if Arc::ptr_eq(x, y)));
        assert_eq!(&*b, "a whole number from 1 to 720");
        let c = kept.accepted((0, 255), || words("a whole number from 0 to 255"));
        assert!(matches!(c, Text::Owned(_)));
        assert_eq!(&*c, "a whole number from 0 to 255");
        assert_eq!(written.get(), 2);
        let shared = kept.clone().accepted((1, 720), || words("not asked for"));
        assert!(matches!((&a, &shared), (Text::Kept(x), Text::Kept(y)) if Arc::ptr_eq(x, y)), "a clone shares them");
        assert!(matches!(KeptSlot::<(usize, usize)>::NONE.accepted((9, 9), || words("any number")), Text::Owned(_)));
        assert_eq!(written.get(), 3);

        // A fix per choice, by its place among the choices kept first.
        let choices = (0x1000, 3);
        let first = kept.choice_fix(choices, Some(1), 3, || words("Send \"b\"."));
        let again = kept.choice_fix(choices, Some(1), 3, || words("not asked for"));
        assert!(matches!((&first, &again), (Text::Kept(x), Text::Kept(y)) if Arc::ptr_eq(x, y)));
        assert_eq!(&*kept.choice_fix(choices, Some(2), 3, || words("Send \"c\".")), "Send \"c\".");
        let other = (0x2000, 3);
        assert!(matches!(kept.choice_fix(other, Some(1), 3, || words("Send \"y\".")), Text::Owned(_)));
        assert!(matches!(kept.choice_fix(choices, Some(3), 3, || words("past the end")), Text::Owned(_)));
        assert!(matches!(kept.choice_fix(choices, None, 3, || words("no place")), Text::Owned(_)));
        assert_eq!(written.get(), 8);
    }
}
