//! The refused members of one container (an array's items, a map's values), for one refusal:
//! the first [`SHOWN_ITEMS`] described, the next up to [`COUNTED`] named and counted, the
//! members after those not read. Each refusal builds its words, so an array of a million
//! refused items would cost a million refusals for one sentence that counts them.
//!
//! `tags: has 2 more refused items (tags[3], tags[4])`; `labels: has at least 100 more refused
//! values (labels["d"], …); the 9897 entries after them were not checked`.

use crate::outcome::refusal::{Problem, Rejected};
use crate::read::path::{Reading, SHOWN_ITEMS};

/// How many refused members of one container are counted past the [`SHOWN_ITEMS`] described.
const COUNTED: usize = 100;

/// How many of the counted members a refusal names (`tags[3], tags[4], …`).
const NAMED: usize = 5;

/// The refused members of one container, as they are read.
pub(crate) struct Tally {
    /// The members described, each its own problem.
    described: Vec<Problem>,
    /// The paths of the first [`NAMED`] members counted.
    named: Vec<String>,
    /// How many members were refused past those described.
    counted: usize,
}

impl Tally {
    pub(crate) fn new() -> Self {
        Tally { described: Vec::new(), named: Vec::new(), counted: 0 }
    }

    /// No member refused yet.
    pub(crate) fn is_empty(&self) -> bool {
        self.described.is_empty()
    }

    /// [`COUNTED`] members were counted: the rest are not read.
    pub(crate) fn is_full(&self) -> bool {
        self.counted == COUNTED
    }

    /// One member refused, at the path `path` writes.
    pub(crate) fn refuse(&mut self, problem: Problem, path: impl FnOnce() -> String) {
        if self.described.len() < SHOWN_ITEMS {
            self.described.push(problem);
            return;
        }
        if self.named.len() < NAMED {
            self.named.push(path());
        }
        self.counted += 1;
    }

    /// The one problem of the container: the count's (`count`), else the first member's,
    /// carrying the other members' and, when members were counted, the problem that counts
    /// them. `noun` names one member and several (`("item", "items")`); `unread`, when members
    /// were left unread, says which (`the 9897 items from tags[103] on`). `None` when no member
    /// was refused: then `count` decides.
    pub(crate) fn into_problem(
        mut self,
        reading: &Reading<'_>,
        count: Result<(), Problem>,
        noun: (&str, &str),
        unread: Option<(usize, String)>,
    ) -> Result<(), Problem> {
        if self.described.is_empty() {
            return count;
        }
        if self.counted > 0 {
            let etc = if self.counted > self.named.len() { ", …" } else { "" };
            let nouns = if self.counted == 1 { noun.0 } else { noun.1 };
            let list = self.named.join(", ");
            let (issue, fix) = match unread {
                None => (
                    format!("has {} more refused {nouns} ({list}{etc})", self.counted),
                    format!("Fix those {} the same way.", noun.1),
                ),
                Some((n, which)) => (
                    format!(
                        "has at least {} more refused {nouns} ({list}{etc}); {which} {} not checked",
                        self.counted,
                        if n == 1 { "was" } else { "were" }
                    ),
                    format!("Fix those {} the same way, and check the rest likewise before sending again.", noun.1),
                ),
            };
            let accepted = self.described[0].0.accepted.clone();
            let path = reading.path;
            self.described.push(
                Problem::new(path.parameter(), Rejected::Missing, issue)
                    .with_accepted(accepted)
                    .with_fix(fix)
                    .at(path.text()),
            );
        }
        let mut first = match count {
            Err(count) => count,
            Ok(()) => self.described.remove(0),
        };
        // After the first problem's own further problems (the other fields of an object member).
        first.0.also.extend(self.described);
        Err(first)
    }
}
