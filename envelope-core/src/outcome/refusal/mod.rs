//! Refusals: the `invalid` outcome, one problem per refused parameter, each with its three parts.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
#[cfg(test)]
use serde_json::Map;
use serde_json::Value;

use crate::outcome::code::{Code, codes};
use crate::words::escape;
use crate::words::texts::Text;
use crate::{words::budget, words::render};

/// Why a tool did not serve a request: one [`Problem`] per refused parameter, sent as an
/// envelope with `status: "invalid"`.
///
/// A refusal cannot be made from a bare sentence. Argument reading builds it from the parts it
/// checked; a custom check builds it with [`Refusal::parameter`], whose `build` does not compile
/// until the rejected value, the accepted set and the fix are given:
///
/// ```
/// use envelope_core::Refusal;
///
/// let title = "x".repeat(130);
/// let refusal = Refusal::parameter("title")
///     .rejected(&title)
///     .reason(format!("is {} characters long", title.chars().count()))
///     .accepted("a string of 1 to 120 characters")
///     .fix("Shorten the title to 120 characters.")
///     .build();
/// assert!(refusal.message().starts_with("title: \"xxxx"));
/// assert!(refusal.message().ends_with(
///     "is 130 characters long; accepted: a string of 1 to 120 characters. \
///      Shorten the title to 120 characters."));
/// ```
///
/// ```compile_fail
/// // No accepted set and no fix: `build` is not available.
/// let r = envelope_core::Refusal::parameter("title").rejected(&"x").build();
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    code: Code,
    problems: Vec<Problem>,
    retry_after: Option<std::time::Duration>,
}

/// One refused parameter: where, what was sent, what is accepted, and how to fix the call.
///
/// Boxed: it is the error of every argument read, so the success path moves one pointer.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem(pub(crate) Box<ProblemData>);

/// The parts of a [`Problem`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ProblemData {
    /// Borrowed when it is a declared parameter's name (most): not copied.
    pub(crate) parameter: Cow<'static, str>,
    pub(crate) path: Option<String>,
    pub(crate) rejected: Rejected,
    pub(crate) issue: Cow<'static, str>,
    /// Kept with its rule when the rule worded it (`spec::kept`): not written again.
    pub(crate) accepted: Text,
    pub(crate) fix: Text,
    /// Borrowed when it is a declared name (a choice, a parameter): not copied.
    pub(crate) suggestion: Option<Cow<'static, str>>,
    /// Further problems found in the same value (other items of an array), reported after it.
    pub(crate) also: Vec<Problem>,
}

/// How the rejected value appears.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Rejected {
    /// JSON text, cut when long (see `render::shown`).
    Shown(String),
    /// The parameter was not sent (or was `null` where that means absent).
    Missing,
    /// The parameter is secret: its value is never echoed.
    Hidden,
}

impl Problem {
    pub(crate) fn new(
        parameter: impl Into<Cow<'static, str>>,
        rejected: Rejected,
        issue: impl Into<Cow<'static, str>>,
    ) -> Self {
        Problem(Box::new(ProblemData {
            parameter: parameter.into(),
            path: None,
            rejected,
            issue: issue.into(),
            accepted: Text::default(),
            fix: Text::default(),
            suggestion: None,
            also: Vec::new(),
        }))
    }

    pub(crate) fn with_accepted(mut self, accepted: impl Into<Text>) -> Self {
        self.0.accepted = accepted.into();
        self
    }

    pub(crate) fn with_fix(mut self, fix: impl Into<Text>) -> Self {
        self.0.fix = fix.into();
        self
    }

    pub(crate) fn with_suggestion(mut self, suggestion: Option<impl Into<Cow<'static, str>>>) -> Self {
        self.0.suggestion = suggestion.map(Into::into);
        self
    }

    /// Puts the problem under top-level `parameter` (for one found inside it).
    pub(crate) fn under(mut self, parameter: impl Into<Cow<'static, str>>) -> Self {
        self.0.parameter = parameter.into();
        self
    }

    pub(crate) fn at(mut self, path: String) -> Self {
        if path != self.0.parameter {
            self.0.path = Some(path);
        }
        self
    }

    /// The parameter as the caller spells it (the top-level argument name).
    pub fn parameter(&self) -> &str {
        &self.0.parameter
    }

    /// Where inside the parameter, when deeper than its top level: `tags[1]`, `filter.since`.
    pub fn path(&self) -> Option<&str> {
        self.0.path.as_deref()
    }

    /// The rejected value as JSON text, as the message quotes it (`"databse"`, `0`); `None` when
    /// the parameter was missing or is secret.
    pub fn rejected(&self) -> Option<&str> {
        match &self.0.rejected {
            Rejected::Shown(s) => Some(s),
            _ => None,
        }
    }

    /// `hints.accepted`: the accepted set, in words (`a whole number from 1 to 720`).
    pub fn accepted(&self) -> &str {
        &self.0.accepted
    }

    /// `hints.fix`: the move that fixes the call (`Send a value from 1 to 720.`).
    pub fn fix(&self) -> &str {
        &self.0.fix
    }

    /// `hints.suggestion`: the closest accepted value or name, when one is close.
    pub fn suggestion(&self) -> Option<&str> {
        self.0.suggestion.as_deref()
    }

    /// The problem's sentence: `hours_back: 0 is out of range; accepted: a whole number from 1
    /// to 720. Send a value from 1 to 720.`
    pub fn sentence(&self) -> String {
        let mut s = String::with_capacity(128);
        self.write_sentence(&mut s);
        s
    }

    /// The length in bytes of [`sentence`](Self::sentence), exact but for a quoted suggestion,
    /// counted at its longest (every byte escaped to six): never below the sentence's.
    fn sentence_len_bound(&self) -> usize {
        let d = &self.0;
        let rejected = match &d.rejected {
            Rejected::Shown(v) => v.len() + 1,
            Rejected::Hidden => "the value sent (secret, not shown) ".len(),
            Rejected::Missing => 0,
        };
        let suggestion = d.suggestion.as_ref().map_or(0, |s| "Did you mean ".len() + 2 + 6 * s.len() + "? ".len());
        let name = d.path.as_deref().unwrap_or(&d.parameter).len();
        name + ": ".len()
            + rejected
            + d.issue.len()
            + "; accepted: ".len()
            + d.accepted.len()
            + ". ".len()
            + suggestion
            + d.fix.len()
    }

    /// Whether any of this problem's texts holds a control character.
    fn has_control(&self) -> bool {
        let d = &self.0;
        let rejected = match &d.rejected {
            Rejected::Shown(v) => v.as_str(),
            _ => "",
        };
        d.accepted.has_control()
            || d.fix.has_control()
            || [&d.parameter, rejected, &d.issue]
                .into_iter()
                .chain(d.path.as_deref())
                .chain(d.suggestion.as_deref())
                .any(|t| escape::has_control(t.as_bytes()))
    }

    /// Appends [`sentence`](Self::sentence) to `s`.
    pub(crate) fn write_sentence(&self, s: &mut String) {
        s.push_str(self.0.path.as_deref().unwrap_or(&self.0.parameter));
        s.push_str(": ");
        match &self.0.rejected {
            Rejected::Shown(v) => {
                s.push_str(v);
                s.push(' ');
            }
            Rejected::Hidden => s.push_str("the value sent (secret, not shown) "),
            Rejected::Missing => {}
        }
        s.push_str(&self.0.issue);
        s.push_str("; accepted: ");
        s.push_str(&self.0.accepted);
        s.push_str(". ");
        if let Some(sugg) = &self.0.suggestion {
            s.push_str("Did you mean ");
            render::push_quoted(s, sugg);
            s.push_str("? ");
        }
        s.push_str(&self.0.fix);
    }

    /// This problem with its texts (parameter, path, reason, accepted set, fix, suggestion) cut
    /// to 512 characters each, then shorter, until `fits` (or to 16 characters each, which
    /// always fit a reply: the rejected value is already cut).
    fn fitted(&self, fits: impl Fn(&Problem) -> bool) -> Problem {
        let mut chars = 512;
        loop {
            let mut p = self.clone();
            p.0.also.clear();
            let cut = |text: &str| crate::words::budget::cut_text(text, chars, chars * 2);
            let (accepted, fix) = (p.0.accepted.as_mut_string(), p.0.fix.as_mut_string());
            for text in [Some(accepted), Some(fix), p.0.path.as_mut()].into_iter().flatten() {
                *text = cut(text);
            }
            for text in [Some(&mut p.0.parameter), Some(&mut p.0.issue), p.0.suggestion.as_mut()].into_iter().flatten()
            {
                *text = Cow::Owned(cut(text));
            }
            if chars <= 16 || fits(&p) {
                return p;
            }
            chars /= 2;
        }
    }

    /// `hints` of this problem as a map, built as the envelope's used to be: the reference the
    /// typed writer ([`ProblemHints`]) is checked against.
    #[cfg(test)]
    fn hints(&self) -> Map<String, Value> {
        let mut h = Map::new();
        h.insert("parameter".into(), Value::String(self.0.parameter.to_string()));
        if let Some(p) = &self.0.path {
            h.insert("path".into(), Value::String(p.clone()));
        }
        if let Rejected::Shown(v) = &self.0.rejected {
            h.insert("rejected".into(), Value::String(v.clone()));
        }
        h.insert("accepted".into(), Value::String(self.0.accepted.to_string()));
        h.insert("fix".into(), Value::String(self.0.fix.to_string()));
        if let Some(s) = &self.0.suggestion {
            h.insert("suggestion".into(), Value::String(s.to_string()));
        }
        h
    }

    /// The length of this problem's hints object ([`ProblemHints`]) once its JSON text is
    /// written in turn as a JSON string (as an MCP text content carries an envelope), counted
    /// from the texts alone: `budget::text_json_len` of the object, without writing it.
    fn hints_text_len(&self) -> usize {
        self.hints_text_len_with(twice_escaped_len)
    }

    /// An upper bound of [`hints_text_len`](Self::hints_text_len) from the lengths of the
    /// texts and the count of `"` and `\\` in this problem's sentence (`sentence_quotes`), which
    /// holds each hint text but the suggestion (quoted there) and, when a path is shown, the
    /// parameter: those two are counted exactly. `None` when a text has a control character
    /// (`sentence_controls` counts the sentence's), whose escapes the bound does not cover.
    fn hints_text_len_bound(&self, sentence_quotes: usize, sentence_controls: usize) -> Option<usize> {
        if sentence_controls > 0 {
            return None;
        }
        let d = &self.0;
        let exact_too = |text: Option<&str>| match text {
            Some(t) => budget::quotes_and_controls(t.as_bytes()).1 == 0,
            None => true,
        };
        if !exact_too(d.suggestion.as_deref()) || !exact_too(d.path.as_ref().map(|_| &*d.parameter)) {
            return None;
        }
        // Each text as if it held no quote (4 + its length), then 3 bytes for every `"` or `\\`
        // of the sentence, at least as many as the texts it holds have.
        let counted = |t: &str| {
            d.suggestion.as_deref().is_some_and(|s| std::ptr::eq(s, t))
                || (d.path.is_some() && std::ptr::eq(t, &*d.parameter))
        };
        let len = self.hints_text_len_with(|t| if counted(t) { twice_escaped_len(t) } else { 4 + t.len() });
        Some(len + 3 * sentence_quotes)
    }

    /// [`hints_text_len`](Self::hints_text_len) with `twice` the length of a value's JSON
    /// string written again as a string's contents.
    fn hints_text_len_with(&self, twice: impl Fn(&str) -> usize) -> usize {
        let d = &self.0;
        // The outer quotes, the braces, and per field its key and value (each a JSON string,
        // written again as a string's contents), a colon and, but for the first, a comma.
        let field = |key: &str, value: &str| 4 + key.len() + 1 + twice(value);
        let mut n = 2 + 2 + field("parameter", &d.parameter);
        let mut fields = 1;
        let mut add = |key: &str, value: &str| {
            n += 1 + field(key, value);
            fields += 1;
        };
        if let Some(p) = &d.path {
            add("path", p);
        }
        if let Rejected::Shown(v) = &d.rejected {
            add("rejected", v);
        }
        add("accepted", &d.accepted);
        add("fix", &d.fix);
        if let Some(s) = &d.suggestion {
            add("suggestion", s);
        }
        n
    }

    /// The hints' fields in their fixed order: `parameter`, `path` (when deeper), `rejected`
    /// (absent when missing or secret), `accepted`, `fix`, `suggestion` (when close).
    fn hint_entries<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        let d = &self.0;
        m.serialize_entry("parameter", &d.parameter)?;
        if let Some(p) = &d.path {
            m.serialize_entry("path", p)?;
        }
        if let Rejected::Shown(v) = &d.rejected {
            m.serialize_entry("rejected", v)?;
        }
        m.serialize_entry("accepted", &*d.accepted)?;
        m.serialize_entry("fix", &*d.fix)?;
        if let Some(s) = &d.suggestion {
            m.serialize_entry("suggestion", s)?;
        }
        Ok(())
    }
    /// Appends the hints' fields (as [`hint_entries`](Self::hint_entries) serializes them, in
    /// the same order) to `out` as JSON, each text escaped straight from the problem.
    fn write_hint_fields(&self, out: &mut Vec<u8>) {
        let d = &self.0;
        let field = |out: &mut Vec<u8>, key: &[u8], value: &str| {
            out.extend_from_slice(key);
            escape::push_str(out, value);
        };
        field(out, b"\"parameter\":", &d.parameter);
        if let Some(p) = &d.path {
            field(out, b",\"path\":", p);
        }
        if let Rejected::Shown(v) = &d.rejected {
            field(out, b",\"rejected\":", v);
        }
        for (key, text) in [(&b",\"accepted\":\""[..], &d.accepted), (b",\"fix\":\"", &d.fix)] {
            out.extend_from_slice(key);
            text.push_json_contents(out);
            out.push(b'"');
        }
        if let Some(s) = &d.suggestion {
            field(out, b",\"suggestion\":", s);
        }
    }
}

/// The length of `text`'s JSON string written again as a JSON string's contents: `"a\"b"` is
/// `\"a\\\"b\"`, 4 bytes for the quotes and each byte as twice escaped (RFC 8259 §7, as
/// serde_json escapes: `"` and `\` take 4, the short escapes of control characters 3, the
/// other control characters 7, every other byte 1).
fn twice_escaped_len(text: &str) -> usize {
    let (quotes, controls) = budget::quotes_and_controls(text.as_bytes());
    if controls == 0 {
        return 4 + text.len() + 3 * quotes;
    }
    4 + text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' => 4,
            b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 3,
            0..0x20 => 7,
            _ => 1,
        })
        .sum::<usize>()
}

/// One problem's `hints` object, written straight from its texts, keys in their fixed order.
struct ProblemHints<'a>(&'a Problem);

impl Serialize for ProblemHints<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        self.0.hint_entries(&mut m)?;
        m.end()
    }
}

/// `hints.others`: the hints of every problem after the first, in order.
struct OtherHints<'a>(&'a [Problem]);

impl Serialize for OtherHints<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(ProblemHints))
    }
}

/// A refusal envelope's `hints`, typed: the problems reported (written straight from their
/// texts, no map built) with the delay, if any; or, for an envelope read back from its JSON
/// (an idempotency record), the object as recorded.
#[derive(Clone, Debug)]
pub(crate) enum Hints {
    /// The first problem's fields, then `others` (the rest's, when any), then
    /// `retry_after_ms` (when set).
    Problems { problems: Vec<Problem>, retry_after_ms: Option<u64> },
    /// `hints` as recorded.
    Recorded(Value),
}

/// Where a one-problem message's parts are (see [`Problem::sentence_parts`]).
struct SentenceParts<'m> {
    /// The suggestion as the sentence quotes it (`"database"`), when there is one.
    quoted_suggestion: Option<&'m str>,
}

impl Problem {
    /// Whether `message` is exactly this problem's sentence ([`write_sentence`](Self::write_sentence)),
    /// checked part by part, and the suggestion as it quotes it.
    fn sentence_parts<'m>(&self, message: &'m str) -> Option<SentenceParts<'m>> {
        let d = &self.0;
        let mut rest = message.strip_prefix(d.path.as_deref().unwrap_or(&d.parameter))?.strip_prefix(": ")?;
        match &d.rejected {
            Rejected::Shown(v) => rest = rest.strip_prefix(v.as_str())?.strip_prefix(' ')?,
            Rejected::Hidden => rest = rest.strip_prefix("the value sent (secret, not shown) ")?,
            Rejected::Missing => {}
        }
        rest = rest.strip_prefix(&*d.issue)?.strip_prefix("; accepted: ")?;
        rest = rest.strip_prefix(&*d.accepted)?.strip_prefix(". ")?;
        let rest = rest.strip_suffix(&*d.fix)?;
        let quoted_suggestion = match &d.suggestion {
            Some(_) => Some(rest.strip_prefix("Did you mean ")?.strip_suffix("? ")?),
            None if rest.is_empty() => None,
            None => return None,
        };
        Some(SentenceParts { quoted_suggestion })
    }
}

impl Refusal {
    /// The same refusal under another `invalid` code: for a declared error enum, whose codes
    /// are listed in the manifest.
    pub(crate) fn with_code(mut self, code: Code) -> Self {
        debug_assert_eq!(code.status(), crate::Status::Invalid);
        self.code = code;
        self
    }

    /// The same call can succeed after `wait` (an upstream's quota, say, read from its own
    /// `Retry-After`): the envelope carries it as `hints.retry_after_ms` (milliseconds, rounded
    /// up), the message ends with `Try again in <wait in words>.`, and over HTTP a 429 sends it
    /// as `Retry-After` in whole seconds, rounded up. Meant for `RATE_LIMITED`; a derived error's
    /// `#[refuse(code = codes::RATE_LIMITED, ...)]` variant gets it from a field named
    /// `retry_after` (a `Duration`).
    ///
    /// ```
    /// use std::time::Duration;
    /// use envelope_core::{Envelope, Refusal};
    ///
    /// let refusal = Refusal::parameter("query").missing().accepted("a call once the quota refills")
    ///     .fix("Wait for the upstream quota.").build().with_retry_after(Duration::from_millis(1500));
    /// let env = Envelope::from(refusal);
    /// assert_eq!(env.retry_after_ms(), Some(1500));
    /// assert!(env.message().unwrap().ends_with("Wait for the upstream quota. Try again in 2 seconds."));
    /// ```
    #[must_use]
    pub fn with_retry_after(mut self, wait: std::time::Duration) -> Self {
        self.retry_after = Some(wait);
        self
    }

    /// The delay set with [`with_retry_after`](Self::with_retry_after).
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        self.retry_after
    }

    pub(crate) fn from_problems(mut problems: Vec<Problem>) -> Self {
        if problems.is_empty() {
            // Never built empty by this crate; a refusal always names what to fix all the same.
            problems.push(
                Problem::new("arguments", Rejected::Missing, "could not be read")
                    .with_accepted("the arguments the schema describes")
                    .with_fix("Send the arguments as the inputSchema describes."),
            );
        }
        // Flat already (no problem carries others: the usual case) is kept as it is.
        if problems.iter().any(|p| !p.0.also.is_empty()) {
            problems = flat(problems);
        }
        Refusal { code: codes::VALIDATION_ERROR, problems, retry_after: None }
    }

    /// Starts a refusal of `parameter` (as the caller spells it; a path such as `tags[1]` is
    /// kept as the path, its first segment as the parameter). See the type's example.
    pub fn parameter(parameter: impl Into<String>) -> RefusalBuilder<No, No, No> {
        let path: String = parameter.into();
        let end = path.find(['[', '.']).unwrap_or(path.len());
        let problem = Problem::new(path[..end].to_owned(), Rejected::Missing, "is not accepted").at(path.clone());
        RefusalBuilder { problem, code: codes::VALIDATION_ERROR, _state: PhantomData }
    }

    /// Adds the problems of `other`, so one reply names every refused parameter.
    #[must_use]
    pub fn and(mut self, other: Refusal) -> Self {
        self.problems.extend(other.problems);
        self
    }

    /// The `error_code`: `VALIDATION_ERROR`, or a declared error enum's `invalid` code.
    pub fn error_code(&self) -> Code {
        self.code
    }

    /// The refused parameters, in the order they are reported.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The envelope's `message`: one sentence per problem, one per line.
    pub fn message(&self) -> String {
        let sentences: Vec<String> = self.problems.iter().map(Problem::sentence).collect();
        sentences.join("\n")
    }

    /// The envelope's `message` and `hints`, within a reply of at most 2 KB: problems are kept
    /// in order while their sentences and hints fit the budget; the rest become one problem
    /// that names their places. What a caller sends cannot make a reply grow past the budget,
    /// since each problem's size is bounded by the cut of rejected values and names. Each
    /// sentence is written once, into the message; the hints are measured from their texts and
    /// written later, straight from the problems (no map is built). The message is `None` for
    /// problems obviously within the budget: it is their sentences, a line each, written when
    /// asked for ([`Hints::sentences`]).
    ///
    /// `hints` is the first problem's `parameter`, `path` (when deeper), `rejected` (JSON text;
    /// absent when missing or secret), `accepted`, `fix`, `suggestion`; and, when more than one
    /// parameter was refused, `others`: the same object for each of the rest.
    pub(crate) fn rendered(self) -> (Option<String>, Hints) {
        const BUDGET: usize = 1600;
        let mut problems = self.problems;
        if !problems.is_empty() {
            // Within the budget if each byte of each sentence took `escaped` bytes in JSON, and
            // each of a hint `twice` once its JSON is escaped again: six and seven for a control
            // character, else two and four (a quote: `\"`, then `\\\"`). The loop below
            // counts each sentence and hints no higher, so it would keep every problem whole.
            let fits = |escaped: usize, twice: usize| {
                let each =
                    |p: &Problem| 2 + escaped * p.sentence_len_bound() + p.hints_text_len_with(|t| 4 + twice * t.len());
                problems.iter().map(each).sum::<usize>() <= BUDGET
            };
            if fits(6, 7) || (!problems.iter().any(Problem::has_control) && fits(2, 4)) {
                // Nothing to count, and the sentences are written only when asked for (the
                // wire writes them from their parts), a line each.
                return (None, Hints::Problems { problems, retry_after_ms: None });
            }
        }
        // Room for every sentence and its line break (a bound: exact but for a suggestion).
        let mut message = String::with_capacity(problems.iter().map(|p| p.sentence_len_bound() + 1).sum());
        // The JSON lengths of the sentences kept (exact), and of their hints: exact, or an
        // upper bound while `bounded` (a problem obviously within the budget is not counted).
        let (mut sentences, mut hints, mut bounded) = (0, 0, false);
        let mut kept = 0;
        while kept < problems.len() {
            let start = message.len();
            if kept > 0 {
                message.push('\n');
            }
            let at = message.len();
            problems[kept].write_sentence(&mut message);
            let (quotes, controls) = budget::quotes_and_controls(&message.as_bytes()[at..]);
            let mut sentence =
                if controls == 0 { 2 + (message.len() - at) + quotes } else { budget::json_len(&message[at..]) };
            if let Some(bound) = problems[kept].hints_text_len_bound(quotes, controls)
                && sentences + hints + sentence + bound <= BUDGET
            {
                // Within the budget by the bound: within it by the exact count too.
                (sentences, hints, bounded) = (sentences + sentence, hints + bound, true);
                kept += 1;
                continue;
            }
            if bounded {
                hints = problems[..kept].iter().map(Problem::hints_text_len).sum();
                bounded = false;
            }
            let mut hint = problems[kept].hints_text_len();
            if sentence + hint > BUDGET && kept == 0 {
                // The first problem alone is past the budget: its texts (a declared refusal's
                // interpolated fields, a custom check's words) are cut until it fits.
                let fitted = problems[0].fitted(|p| budget::json_len(&p.sentence()) + p.hints_text_len() <= BUDGET);
                message.truncate(at);
                fitted.write_sentence(&mut message);
                sentence = budget::json_len(&message[at..]);
                hint = fitted.hints_text_len();
                problems[0] = fitted;
            }
            if sentences + hints + sentence + hint > BUDGET && kept > 0 {
                message.truncate(start);
                break;
            }
            (sentences, hints) = (sentences + sentence, hints + hint);
            kept += 1;
        }
        if kept < problems.len() {
            let summary = summary_of(&problems[kept..]);
            problems.truncate(kept);
            if kept > 0 {
                message.push('\n');
            }
            summary.write_sentence(&mut message);
            problems.push(summary);
        }
        (Some(message), Hints::Problems { problems, retry_after_ms: None })
    }
}

/// `p`, then the problems it carries, at every depth (an item of an array of objects carries its
/// fields' problems), in order. The depth is the nesting of the parameter's declared type.
/// `problems` with the problems each carries after it, in order: one list. One problem of a
/// nested object carrying the object's others (flat themselves), the usual nesting, becomes the
/// list it carries with it in front (that list has room for it: it held it first); anything
/// else is copied into a list of the exact count.
fn flat(mut problems: Vec<Problem>) -> Vec<Problem> {
    if let [only] = problems.as_mut_slice()
        && only.0.also.iter().all(|a| a.0.also.is_empty())
    {
        let mut list = std::mem::take(&mut only.0.also);
        list.insert(0, problems.pop().expect("one problem"));
        return list;
    }
    fn count(p: &Problem) -> usize {
        1 + p.0.also.iter().map(count).sum::<usize>()
    }
    let mut out = Vec::with_capacity(problems.iter().map(count).sum());
    for p in problems {
        flatten(p, &mut out);
    }
    out
}

fn flatten(mut p: Problem, out: &mut Vec<Problem>) {
    let also = std::mem::take(&mut p.0.also);
    out.push(p);
    for a in also {
        flatten(a, out);
    }
}

/// One problem naming the places of problems left out to keep a reply short.
fn summary_of(rest: &[Problem]) -> Problem {
    let mut names: Vec<String> = Vec::new();
    for p in rest {
        let name = p.0.path.as_deref().unwrap_or(&p.0.parameter);
        let cut = crate::words::cut::cut(name, 24);
        if p.0.parameter != "arguments" && !names.contains(&cut) {
            names.push(cut);
        }
    }
    let listed = names.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
    let etc = if names.len() > 4 { ", …" } else { "" };
    let places =
        if listed.is_empty() { "names that are not parameters".to_owned() } else { format!("in {listed}{etc}") };
    Problem::new(
        "arguments",
        Rejected::Missing,
        format!("have further problems ({places}) not described, to keep this reply short"),
    )
    .with_accepted("each parameter as the schema describes it")
    .with_fix("Fix the problems above, then call again to see the rest.")
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Refusal {}

/// Typestate marker: a part the builder has been given.
#[derive(Debug)]
pub struct Yes;
/// Typestate marker: a part the builder still needs.
#[derive(Debug)]
pub struct No;

/// Builds a [`Refusal`] for a custom check. `build` exists only once `rejected` (or
/// `rejected_secret`), `accepted` and `fix` have been called.
#[derive(Debug)]
#[must_use = "call .build() to get the Refusal"]
pub struct RefusalBuilder<R, A, F> {
    problem: Problem,
    code: Code,
    _state: PhantomData<(R, A, F)>,
}

impl<R, A, F> RefusalBuilder<R, A, F> {
    fn to<R2, A2, F2>(self) -> RefusalBuilder<R2, A2, F2> {
        RefusalBuilder { problem: self.problem, code: self.code, _state: PhantomData }
    }

    /// The value as sent; shown as JSON, cut when long.
    pub fn rejected<T: Serialize + ?Sized>(mut self, value: &T) -> RefusalBuilder<Yes, A, F> {
        let v = serde_json::to_value(value).unwrap_or(Value::Null);
        self.problem.0.rejected = Rejected::Shown(render::shown(&v));
        self.to()
    }

    /// The value was secret: the refusal says what was wrong without showing it.
    pub fn rejected_secret(mut self) -> RefusalBuilder<Yes, A, F> {
        self.problem.0.rejected = Rejected::Hidden;
        self.to()
    }

    /// The parameter was not sent, and had to be.
    pub fn missing(mut self) -> RefusalBuilder<Yes, A, F> {
        self.problem.0.rejected = Rejected::Missing;
        self.problem.0.issue = "is missing".into();
        self.to()
    }

    /// The accepted set in words: every choice, both bounds, the unit.
    pub fn accepted(mut self, accepted: impl Into<String>) -> RefusalBuilder<R, Yes, F> {
        self.problem.0.accepted = Text::Owned(accepted.into());
        self.to()
    }

    /// The move that fixes the call, as a sentence (`Send data_state "HOURLY_ALL".`).
    pub fn fix(mut self, fix: impl Into<String>) -> RefusalBuilder<R, A, Yes> {
        self.problem.0.fix = Text::Owned(fix.into());
        self.to()
    }

    /// What is wrong with the value, as a clause after it (`is 130 characters long`); default
    /// `is not accepted`.
    pub fn reason(mut self, reason: impl Into<String>) -> Self {
        self.problem.0.issue = Cow::Owned(reason.into());
        self
    }

    /// The closest accepted value, offered as `Did you mean "…"?`.
    pub fn suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.problem.0.suggestion = Some(Cow::Owned(suggestion.into()));
        self
    }
}

/// Implemented only when the rejected value, the accepted set and the fix are given.
#[diagnostic::on_unimplemented(
    message = "this refusal is missing a part: call `.rejected(..)` (or `.rejected_secret()`), `.accepted(..)` and `.fix(..)` before `.build()`",
    label = "`Yes` marks a part given, `No` a part still missing, in the order rejected, accepted, fix"
)]
pub trait Complete {}

impl Complete for RefusalBuilder<Yes, Yes, Yes> {}

impl<R, A, F> RefusalBuilder<R, A, F> {
    /// The refusal. Exists once the rejected value, the accepted set and the fix are given.
    pub fn build(self) -> Refusal
    where
        Self: Complete,
    {
        Refusal { code: self.code, problems: vec![self.problem], retry_after: None }
    }
}

// How a refusal's `hints` are written and read: typed, straight from their problems' texts.
mod hints;

#[cfg(test)]
mod tests;
