//! Maps as parameter (and field) types: `BTreeMap<String, T>` and `HashMap<String, T>` read a
//! JSON object of any keys, each value read as `T` under the map's `each(...)` rules, the count
//! of its entries under `length`. A refused value is named by its key: `labels["env"]: 5 is a
//! number; ...`. The schema is `{"type": "object", "additionalProperties": <T's schema>}` (with
//! `minProperties`/`maxProperties` for `length`).
//!
//! As for an array: up to three refused values are described, the rest counted (up to 100;
//! past those the values are not read). A JSON string holding an object is decoded and read
//! in lax mode, refused under `#[tool(strict)]`. The typed reading (`read::typed`) reads a map
//! straight from the text and declines a key sent twice, so a map holds what serde_json's
//! `Value` would: the last value of a key.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::BuildHasher;
use std::marker::PhantomData;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;

use crate::outcome::refusal::{Problem, Rejected};
use crate::read::containers::container_in_string;
use crate::read::path::{ArgPath as Path, Reading, SHOWN_ITEMS, count, hidden_if_secret};
use crate::read::readers::{FromArg, Seed};
use crate::read::rules::{self, Accepted, Subject, fix_like};
use crate::read::sent::MAX_KEYS;
use crate::spec::{Ty, Unit};
use crate::words::render;

/// How many refused values of one map are counted past the [`SHOWN_ITEMS`] described: the
/// values after them are not read (as an array's items).
const COUNTED_VALUES: usize = 100;

/// A map the readers fill, whatever its kind.
trait Entries<T>: Default {
    /// Puts `value` at `key`; `false` when the key was there already.
    fn put(&mut self, key: String, value: T) -> bool;
    /// How many entries it holds.
    fn count(&self) -> usize;
}

impl<T> Entries<T> for BTreeMap<String, T> {
    fn put(&mut self, key: String, value: T) -> bool {
        self.insert(key, value).is_none()
    }
    fn count(&self) -> usize {
        self.len()
    }
}

impl<T, S: BuildHasher + Default> Entries<T> for HashMap<String, T, S> {
    fn put(&mut self, key: String, value: T) -> bool {
        self.insert(key, value).is_none()
    }
    fn count(&self) -> usize {
        self.len()
    }
}

/// The `FromArg` impl of a map type: one body for both kinds.
macro_rules! map_reads {
    ($(#[$doc:meta])* [$($generics:tt)*] $map:ty) => {
        $(#[$doc])*
        impl<$($generics)*> FromArg for $map {
            fn ty() -> Ty {
                Ty::Map(Box::new(T::ty()))
            }
            fn reads_typed() -> bool {
                T::reads_typed()
            }
            fn read_typed<'de, D: Deserializer<'de>>(de: D, reading: &Reading<'_>) -> Result<Option<Self>, D::Error> {
                de.deserialize_map(Typed::<T, Self>(reading, PhantomData))
            }
            fn from_arg(v: &Value, reading: &Reading<'_>) -> Result<Self, Problem> {
                read_entries(v, reading)
            }
            fn read_typed_value(v: &Value, reading: &Reading<'_>) -> Option<Self> {
                typed_value(v, reading)
            }
        }
    };
}

map_reads!(
    /// A JSON object of any keys, each value a `T`, in key order.
    ///
    /// Refusals: a value that is not an object (`labels: [1] is an array; accepted: an object
    /// whose values are strings. Send a JSON object, like {}.`), a count of entries outside
    /// `length` (`labels: {…} has 0 entries; accepted: an object of 1 to 20 entries, each value a
    /// string. Send at least 1 entry.`), and each refused value by its key (`labels["env"]: 5 is
    /// a number; accepted: a string. Send a JSON string, like "5".`).
    [T: FromArg] BTreeMap<String, T>
);

map_reads!(
    /// A JSON object of any keys, each value a `T`: the reading and refusals of `BTreeMap`'s.
    [T: FromArg, S: BuildHasher + Default] HashMap<String, T, S>
);

/// The general reading of a map: every value read (and refused) by its key.
fn read_entries<T: FromArg, M: Entries<T>>(v: &Value, reading: &Reading<'_>) -> Result<M, Problem> {
    let Value::Object(entries) = v else {
        // A JSON string holding an object: read in lax mode, refused in strict mode.
        if let Value::String(s) = v
            && !reading.strict
            && let Some(decoded @ Value::Object(_)) = container_in_string(s)
        {
            return read_entries(&decoded, reading);
        }
        return Err(hidden_if_secret(not_an_object::<T>(v, reading), reading.rules, &Ty::Map(Box::new(T::ty()))));
    };
    // A count the rule refuses is the first problem; the values are checked too, so one refusal
    // names every problem (of too many entries, those that fit the rule's most, as an array's).
    let count = rules::check(reading, v, Subject::Entries { n: entries.len(), value: T::ty })
        .map_err(|p| hidden_if_secret(p, reading.rules, &Ty::Map(Box::new(T::ty()))));
    let checked =
        if count.is_err() { entries.len().min(reading.rules.length.map_or(0, |l| l.max)) } else { entries.len() };
    let mut out = M::default();
    let mut refused: Vec<Problem> = Vec::new();
    let mut more: Vec<&str> = Vec::new();
    // The place of the first value not read, once `COUNTED_VALUES` more were refused.
    let mut unchecked = None;
    for (i, (key, value)) in entries.iter().take(checked).enumerate() {
        if more.len() == COUNTED_VALUES {
            unchecked = Some(i);
            break;
        }
        // A secret map's keys are part of its secret: not shown.
        let path = if reading.rules.secret { Path::SecretKey(&reading.path) } else { Path::Key(&reading.path, key) };
        let value_cx = reading.item(&path);
        match T::from_arg(value, &value_cx) {
            Ok(x) if refused.is_empty() && count.is_ok() => {
                out.put(key.clone(), x);
            }
            Ok(_) => {}
            Err(p) if refused.len() < SHOWN_ITEMS => refused.push(p),
            Err(_) => more.push(key),
        }
    }
    if refused.is_empty() {
        return count.map(|()| out);
    }
    if !more.is_empty() {
        refused.push(counted(reading, &refused[0], &more, unchecked.map(|first| entries.len() - first)));
    }
    let mut first = match count {
        Err(count) => count,
        Ok(()) => refused.remove(0),
    };
    // After the first problem's own further problems (the other fields of an object value).
    first.0.also.extend(refused);
    Err(first)
}

/// The problem that counts the refused values past those described: `labels: has 2 more refused
/// values (labels["c"], labels["d"])`; with `unread` values not read past the counted ones, that
/// they were not checked.
fn counted(reading: &Reading<'_>, first: &Problem, more: &[&str], unread: Option<usize>) -> Problem {
    let parent = reading.path;
    let list: Vec<String> = more
        .iter()
        .take(5)
        .map(|key| if reading.rules.secret { Path::SecretKey(&parent) } else { Path::Key(&parent, key) }.text())
        .collect();
    let etc = if more.len() > 5 { ", …" } else { "" };
    let values = if more.len() == 1 { "value" } else { "values" };
    let (issue, fix) = match unread {
        None => (
            format!("has {} more refused {values} ({}{etc})", more.len(), list.join(", ")),
            "Fix those values the same way.".to_owned(),
        ),
        Some(n) => (
            format!(
                "has at least {} more refused {values} ({}{etc}); the {} after them {} not checked",
                more.len(),
                list.join(", "),
                count(n, Unit::Entries),
                if n == 1 { "was" } else { "were" }
            ),
            "Fix those values the same way, and check the rest likewise before sending again.".to_owned(),
        ),
    };
    Problem::new(parent.parameter(), Rejected::Missing, issue)
        .with_accepted(first.0.accepted.clone())
        .with_fix(fix)
        .at(parent.text())
}

/// The refusal of a value that is not an object (a JSON string holding one, under
/// `#[tool(strict)]`: lax mode reads the object it holds, in [`read_entries`]).
fn not_an_object<T: FromArg>(v: &Value, reading: &Reading<'_>) -> Problem {
    let value = T::ty();
    let words = Accepted::entries(&value, reading.rules).words();
    if let Value::String(s) = v
        && let Some(Value::Object(_)) = container_in_string(s)
    {
        let fix = fix_like(reading, "Send the object itself", "{…}", ", not a string holding it");
        return reading.problem_of(v, "is a string holding an object", words, fix);
    }
    let fix = if reading.rules.length.is_some_and(|l| l.min > 0) {
        "Send a JSON object.".to_owned()
    } else {
        fix_like(reading, "Send a JSON object", "{}", "")
    };
    reading.problem_of(v, render::type_issue(v), words, fix)
}

/// The typed reading of a map (`FromArg::read_typed`): each value read into `T` with the value
/// rules as the object is read; it declines (`None`) at the first value refused, at a key sent
/// twice, and once it holds more entries than the `length` rule's most or than an object of the
/// text may have (`sent::MAX_KEYS`, 4,096, past which the general reading refuses it).
struct Typed<'r, 'a, T, M>(&'r Reading<'a>, PhantomData<(T, M)>);

impl<'de, T: FromArg, M: Entries<T>> Visitor<'de> for Typed<'_, '_, T, M> {
    type Value = Option<M>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let most = self.0.rules.length.map_or(usize::MAX, |len| len.max);
        // The value rules' reading; its path is never shown (the typed reading words nothing).
        let path = Path::Key(&self.0.path, "");
        let value = self.0.item(&path);
        let mut out = M::default();
        while let Some(key) = map.next_key::<String>()? {
            let Some(x) = map.next_value_seed(Seed::<T>(&value, PhantomData))? else { return Ok(None) };
            // Past the most keys an object of the text may have (`sent::MAX_KEYS`), the
            // general reading refuses the object whole.
            if out.count() >= most.min(MAX_KEYS) || !out.put(key, x) {
                return Ok(None);
            }
        }
        Ok(rules::accepts(self.0, Subject::Entries { n: out.count(), value: T::ty }).then_some(out))
    }
}

/// A held object read by the typed reading (`FromArg::read_typed_value`): its entries walked
/// directly, as the visitor reads them.
fn typed_value<T: FromArg, M: Entries<T>>(v: &Value, reading: &Reading<'_>) -> Option<M> {
    let Value::Object(entries) = v else { return None };
    let path = Path::Key(&reading.path, "");
    let value = reading.item(&path);
    let mut out = M::default();
    for (key, x) in entries {
        out.put(key.clone(), T::read_typed_value(x, &value)?);
    }
    rules::accepts(reading, Subject::Entries { n: out.count(), value: T::ty }).then_some(out)
}
