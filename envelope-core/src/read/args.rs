//! Reading a tool's arguments, above the value readers and the rules: [`Args`] reads an
//! arguments object parameter by parameter, collecting every problem so one reply names them
//! all, then checks the cross-field rules (`requires`, `excludes`); and the refusals of the
//! arguments as a whole (not an object, unreadable text, a key sent twice).
//!
//! Layering, with no cycle: `path` (the reading context) ← `rules` (one module per rule) ←
//! `readers` (a JSON shape each) ← `args` (this module).

use serde_json::{Map, Value};
use std::borrow::Cow;

use crate::outcome::refusal::{Problem, Rejected};
pub use crate::read::containers::object_of;
pub use crate::read::input::Input;
use crate::read::input::{Sent, Source};
pub(crate) use crate::read::path::holds_secret;
pub use crate::read::path::{ArgPath, Reading};
use crate::read::path::{Numbers, SHOWN_ITEMS, rejected_of};
pub use crate::read::readers::{FromArg, Numeric, read_choice};
use crate::read::rules::{example_json, value_words};
use crate::spec::{ParamSpec, Rules, ToolSpec, Ty};
use crate::words::cut;
use crate::{read::sent, words::render};

// The cross-field rules (`requires`, `excludes`) and the fixes they shape.
mod cross;

/// `args` without their secrets: what a hash, a preview or an audit record sent anywhere may
/// cover. A `secret` parameter is left out; a secret inside one (a secret field of an object,
/// `each(secret)` items or values, at any depth) is replaced by [`SECRET_SHOWN`].
pub(crate) fn public_args(params: &[ParamSpec], args: &Map<String, Value>) -> Value {
    let public = args.iter().filter_map(|(k, v)| match params.iter().find(|p| p.name == k) {
        Some(p) if p.rules.secret => None,
        Some(p) => Some((k.clone(), without_secrets(v, &p.rules, &p.ty))),
        None => Some((k.clone(), v.clone())),
    });
    Value::Object(public.collect())
}

/// What stands for a secret inside an argument in [`public_args`].
pub(crate) const SECRET_SHOWN: &str = "(secret, not shown)";

/// `v`, of shape `ty` under `rules`, with each secret in it replaced by [`SECRET_SHOWN`].
fn without_secrets(v: &Value, rules: &Rules, ty: &Ty) -> Value {
    if rules.secret {
        return Value::String(SECRET_SHOWN.to_owned());
    }
    if !holds_secret(rules, Some(ty)) {
        return v.clone();
    }
    let inner = rules.items.as_deref().unwrap_or(&Rules::NONE);
    match (ty, v) {
        // An `Option` not sent.
        (_, Value::Null) => Value::Null,
        (Ty::Object(o), Value::Object(fields)) => Value::Object(
            fields
                .iter()
                .map(|(k, x)| match o.params.iter().find(|p| p.name == k) {
                    Some(p) => (k.clone(), without_secrets(x, &p.rules, &p.ty)),
                    None => (k.clone(), x.clone()),
                })
                .collect(),
        ),
        (Ty::Array(item), Value::Array(items)) => {
            Value::Array(items.iter().map(|x| without_secrets(x, inner, item)).collect())
        }
        (Ty::Map(value), Value::Object(entries)) => {
            Value::Object(entries.iter().map(|(k, x)| (k.clone(), without_secrets(x, inner, value))).collect())
        }
        // A secret the shape does not locate: none of it shown.
        _ => Value::String(SECRET_SHOWN.to_owned()),
    }
}

/// The refusal of a key sent more than once in one object of the arguments (read from their
/// JSON text): names the key, quotes every value sent under it; a secret's values are not shown.
pub(crate) fn duplicate_key(spec: &ToolSpec, d: &crate::read::sent::Duplicate) -> Problem {
    let param = spec.params.iter().find(|p| p.name == d.at.parameter);
    let secret = param.is_some_and(|p| holds_secret(&p.rules, Some(&p.ty)));
    let key = render::shown(&Value::String(d.key.clone()));
    let times = if d.times == 2 { "twice".to_owned() } else { format!("{} times", d.times) };
    let (rejected, issue) = if secret {
        (Rejected::Missing, format!("was sent {times} under one key (secret, the values not shown)"))
    } else {
        // The first few values, the rest counted: a key sent 100,000 times keeps the reply short.
        let mut each: Vec<String> =
            d.values.iter().map(|v| format!("{key}: {}", cut::cut_counted(v, render::SHOWN_CHARS))).collect();
        if d.times > d.values.len() {
            each.push(format!("… ({} values)", d.times));
        }
        (Rejected::Shown(each.join(", ")), format!("sends the same key {times}"))
    };
    // Names are the caller's text: cut like a name that is not a parameter, so the reply keeps
    // its size whatever was sent.
    let parameter = cut::cut(&d.at.parameter, render::SHOWN_CHARS);
    let top = d.at.segments.is_empty();
    if secret && !top {
        // A key inside a secret value (a secret map's keys are part of it): not shown.
        return Problem::new(parameter.clone(), rejected, issue)
            .with_accepted("each key once")
            .with_fix("Send each key once, with the one value you mean.")
            .at(format!("{parameter}[…]"));
    }
    let accepted = match param {
        Some(p) if top => format!("{key} once, with one value: {}", accepted_words(p, &p.ty)),
        _ => format!("each key once, {key} with one value"),
    };
    Problem::new(parameter, rejected, issue)
        .with_accepted(accepted)
        .with_fix(format!("Send {key} once, with the one value you mean."))
        .at(sent_path(spec, &d.at))
}

/// A place in the text sent, written as a refusal's path with the declared types: a field of a
/// `#[derive(Object)]` as `.name`, a map's key as `["key"]` (JSON-quoted, cut as
/// [`ArgPath::Key`](crate::read::path::ArgPath::Key) cuts it), an index as `[i]`; a key the
/// declaration does not place (a `serde_json::Value`'s, an undeclared parameter's) as a field.
/// Cut to 128 characters; a control character of a field is written as its escape, so a path
/// is one line of the message.
fn sent_path(spec: &ToolSpec, at: &sent::Location) -> String {
    use std::fmt::Write;
    let mut ty = spec.params.iter().find(|p| p.name == at.parameter).map(|p| &p.ty);
    let mut out = at.parameter.clone();
    for segment in &at.segments {
        match (segment, ty) {
            (sent::Segment::Index(i), _) => {
                let _ = write!(out, "[{i}]");
                ty = match ty {
                    Some(Ty::Array(item)) => Some(&**item),
                    _ => None,
                };
            }
            (sent::Segment::Key(key), Some(Ty::Map(value))) => {
                let _ = write!(out, "[{}]", crate::read::path::key_text(key));
                ty = Some(&**value);
            }
            (sent::Segment::Key(name), _) => {
                out.push('.');
                out.push_str(name);
                ty = match ty {
                    Some(Ty::Object(object)) => object.params.iter().find(|f| f.name == name).map(|f| &f.ty),
                    _ => None,
                };
            }
        }
    }
    cut::one_line(&out, 2 * render::SHOWN_CHARS)
}

/// The refusal of an object of more than [`sent::MAX_KEYS`] members (read from the arguments'
/// JSON text): quotes its first characters and counts its keys; an object that is, or is inside,
/// a secret parameter (the arguments object itself, when the tool has one) is not quoted.
///
/// `arguments: {"hours_back":1,"group_by":"data… (cut; 32003 keys) has more keys than one object
/// may have; accepted: an object of at most 4096 keys, here the parameters hours_back, group_by,
/// top, each once. Send only the parameters listed, each once.`
pub(crate) fn too_many_keys(spec: &ToolSpec, c: &sent::Crowded<'_>) -> Problem {
    let limit = sent::MAX_KEYS;
    let secret = match &c.at {
        Some(at) => spec.params.iter().any(|p| p.name == at.parameter && holds_secret(&p.rules, Some(&p.ty))),
        None => spec.params.iter().any(|p| holds_secret(&p.rules, Some(&p.ty))),
    };
    let rejected = if secret {
        Rejected::Hidden
    } else {
        Rejected::Shown(format!("{}… (cut; {} keys)", cut::head(c.text, render::SHOWN_CHARS - 8), c.keys))
    };
    let issue = "has more keys than one object may have";
    let path = c.at.as_ref().map(|at| sent_path(spec, at));
    let (parameter, accepted, fix) = match (&c.at, &path) {
        (Some(at), Some(path)) => {
            let parameter = cut::cut(&at.parameter, render::SHOWN_CHARS);
            (parameter, format!("an object of at most {limit} keys"), format!("Send {path} with at most {limit} keys."))
        }
        _ => {
            let names: Vec<&str> = spec.params.iter().map(|p| p.name).collect();
            let (listed, _) = crate::words::budget::name_list(names.iter().copied(), str::to_owned);
            let accepted = if names.is_empty() {
                format!("an object of at most {limit} keys, here {{}}: {} has no parameters", spec.name)
            } else {
                format!("an object of at most {limit} keys, here the parameters {listed}, each once")
            };
            ("arguments".to_owned(), accepted, "Send only the parameters listed, each once.".to_owned())
        }
    };
    let problem = Problem::new(parameter, rejected, issue).with_accepted(accepted).with_fix(fix);
    match path {
        Some(path) => problem.at(path),
        None => problem,
    }
}

/// Reads a tool's arguments object parameter by parameter, collecting every problem so one
/// reply names them all. Used by the code `#[tool]` generates.
pub struct Args<'a> {
    params: &'a [ParamSpec],
    strict: bool,
    /// `get_top_queries` (a tool) or the path of a nested object (`filter`).
    owner: &'a str,
    /// The object's own path, for a nested object; `None` for a tool's arguments.
    parent: Option<ArgPath<'a>>,
    obj: Option<&'a Map<String, Value>>,
    /// The characters the numbers of `obj` were sent with (empty without the text).
    numbers: Numbers<'a>,
    /// The value sent for each parameter, found in one pass over the object (or the text).
    slots: Slots<'a>,
    problems: Vec<Problem>,
    /// Names that are not parameters: reported after the parameters' own problems.
    unknown: Vec<Problem>,
    /// What the values read to is not used (a nested object read after a refused value): each
    /// is only checked (`FromArg::from_sent_unused`), as after a problem of this object's own.
    unused: bool,
}

/// What was sent for one parameter: a node of the parsed object, or a value of the walked text.
#[derive(Clone, Copy)]
enum Slot<'a> {
    Value(&'a Value),
    Text(&'a Sent<'a>),
}

impl Slot<'_> {
    fn is_null(&self) -> bool {
        match self {
            Slot::Value(v) => v.is_null(),
            Slot::Text(s) => s.is_null(),
        }
    }
}

/// Per-parameter values, inline for the usual handful of parameters (no allocation).
enum Slots<'a> {
    Inline([Option<Slot<'a>>; 12]),
    Heap(Vec<Option<Slot<'a>>>),
    /// The walked text's own slots.
    Text(&'a [Option<Sent<'a>>]),
}

impl<'a> Slots<'a> {
    fn new(n: usize) -> Self {
        if n <= 12 { Slots::Inline([None; 12]) } else { Slots::Heap(vec![None; n]) }
    }

    fn get(&self, i: usize) -> Option<Slot<'a>> {
        match self {
            Slots::Inline(a) => a.get(i).copied().flatten(),
            Slots::Heap(v) => v.get(i).copied().flatten(),
            Slots::Text(t) => t.get(i).and_then(Option::as_ref).map(Slot::Text),
        }
    }

    fn set(&mut self, i: usize, value: &'a Value) {
        let value = Slot::Value(value);
        let slot = match self {
            Slots::Inline(a) => a.get_mut(i),
            Slots::Heap(v) => v.get_mut(i),
            Slots::Text(_) => None,
        };
        if let Some(slot) = slot {
            *slot = Some(value);
        }
    }
}

impl<'a> Args<'a> {
    /// Starts reading a tool's arguments. Names that are not parameters are refused here, each
    /// with the list of parameters and the closest name.
    pub fn new(spec: &'a ToolSpec, input: Input<'a>) -> Self {
        match input.source {
            Source::Value { obj, numbers } => Args::scoped(&spec.params, spec.strict, spec.name, None, obj, numbers),
            // The walk matched every name to a parameter.
            Source::Text(sent) => Args {
                params: &spec.params,
                strict: spec.strict,
                owner: spec.name,
                parent: None,
                obj: None,
                numbers: &[],
                slots: Slots::Text(sent),
                problems: Vec::new(),
                unknown: Vec::new(),
                unused: false,
            },
        }
    }

    /// Starts reading a nested object (a `#[derive(Object)]` parameter) at `reading.path`.
    pub fn nested(params: &'a [ParamSpec], reading: &Reading<'a>, obj: &'a Map<String, Value>) -> Self {
        Args::scoped(params, reading.strict, "", Some(reading.path), Some(obj), reading.numbers)
    }

    /// The same reading, its values only checked when `unused` (the object is read by
    /// `FromArg::from_arg_unused` or `from_sent_unused`: a value before it was refused).
    #[must_use]
    pub fn unused(mut self, unused: bool) -> Self {
        self.unused = unused;
        self
    }

    /// Starts reading a nested object (a `#[derive(Object)]` parameter) at `reading.path` from
    /// the arguments' text: its members in `slots` (one per field, all `None`), each read from
    /// its own text. `None` when the value is not an object of the text, holds a name that is
    /// not a field, or a field has cross-field rules (which read the object as a `Value`): the
    /// reader then reads the built `Value` (`sent_as_value`),
    /// and answers alike.
    pub fn nested_sent(
        params: &'a [ParamSpec],
        reading: &Reading<'a>,
        sent: &Sent<'a>,
        slots: &'a mut [Option<Sent<'a>>],
    ) -> Option<Self> {
        let cross = params.iter().any(|p| !p.requires.is_empty() || !p.excludes.is_empty());
        if cross || !sent.fields(params, slots) {
            return None;
        }
        Some(Args {
            params,
            strict: reading.strict,
            owner: "",
            parent: Some(reading.path),
            obj: None,
            numbers: reading.numbers,
            slots: Slots::Text(slots),
            problems: Vec::new(),
            unknown: Vec::new(),
            unused: false,
        })
    }

    fn scoped(
        params: &'a [ParamSpec],
        strict: bool,
        owner: &'a str,
        parent: Option<ArgPath<'a>>,
        obj: Option<&'a Map<String, Value>>,
        numbers: Numbers<'a>,
    ) -> Self {
        let mut args = Args {
            params,
            strict,
            owner,
            parent,
            obj,
            numbers,
            slots: Slots::new(params.len()),
            problems: Vec::new(),
            unknown: Vec::new(),
            unused: false,
        };
        if let Some(obj) = obj {
            // One pass, comparing names (as serde's derive does): no hashing per parameter.
            let mut unknown = false;
            let mut next = 0;
            for (k, v) in obj {
                match crate::read::input::param_index(params, k, next) {
                    Some(i) => {
                        args.slots.set(i, v);
                        next = i + 1;
                    }
                    None => unknown = true,
                }
            }
            if unknown {
                args.unknown = args.unknown_names(obj);
            }
        }
        args
    }

    /// The path of field `name` in this scope.
    fn path_of(&self, name: &str) -> String {
        match &self.parent {
            Some(parent) => ArgPath::Field(parent, name).text(),
            None => name.to_owned(),
        }
    }

    /// The top-level parameter this scope is in (for a nested object) or the declared `name`
    /// itself.
    fn parameter_of(&self, name: &'static str) -> &'static str {
        self.parent.as_ref().map_or(name, ArgPath::parameter)
    }

    /// [`parameter_of`](Self::parameter_of) a name sent (not declared): copied at the top level.
    fn parameter_of_sent(&self, name: &str) -> Cow<'static, str> {
        self.parent.as_ref().map_or_else(|| Cow::Owned(name.to_owned()), |p| Cow::Borrowed(p.parameter()))
    }

    /// Reads parameter `i` (declared order). `None` when it was refused (the problem is kept).
    pub fn take<T: FromArg>(&mut self, i: usize) -> Option<T> {
        let p = &self.params[i];
        match self.slots.get(i) {
            None => self.absent(p, false),
            Some(s) if s.is_null() => self.absent(p, true),
            Some(s) => self.read(p, s),
        }
    }

    /// A parameter not sent (or sent as `null`): `None` for `Option`, else a problem.
    fn absent<T: FromArg>(&mut self, p: &ParamSpec, sent_null: bool) -> Option<T> {
        if let Some(v) = T::absent() {
            return Some(v);
        }
        // A name misspelt (`form` for `from`) is one problem, the unknown name's ("did you mean
        // "from"? Rename ..."), not a second one for the parameter it was meant as.
        if !sent_null && self.unknown.iter().any(|u| u.0.suggestion.as_deref() == Some(p.name)) {
            return None;
        }
        let problem = self.missing(p, &T::ty(), sent_null);
        self.problems.push(problem);
        None
    }

    /// Reads parameter `i`, or `default()` when it is absent or `null`.
    pub fn take_or<T: FromArg>(&mut self, i: usize, default: impl FnOnce() -> T) -> Option<T> {
        let p = &self.params[i];
        match self.slots.get(i) {
            Some(s) if !s.is_null() => self.read(p, s),
            _ => Some(default()),
        }
    }

    fn read<T: FromArg>(&mut self, p: &ParamSpec, slot: Slot<'a>) -> Option<T> {
        let parent = self.parent;
        let path = match &parent {
            Some(parent) => ArgPath::Field(parent, p.name),
            None => ArgPath::Param(p.name),
        };
        let reading = Reading { rules: &p.rules, strict: self.strict, path, numbers: self.numbers };
        // Once a value is refused the call is, and what the others read to is not used: they
        // are only checked, for their own refusals (`FromArg::from_sent_unused`).
        let read = match (slot, self.problems.is_empty() && !self.unused) {
            (Slot::Value(v), true) => T::from_arg(v, &reading),
            (Slot::Value(v), false) => T::from_arg_unused(v, &reading),
            (Slot::Text(s), true) => T::from_sent(s, &reading),
            (Slot::Text(s), false) => T::from_sent_unused(s, &reading),
        };
        match read {
            Ok(x) => Some(x),
            Err(problem) => {
                self.problems.push(problem);
                None
            }
        }
    }

    fn missing(&self, p: &ParamSpec, ty: &Ty, sent_null: bool) -> Problem {
        let (rejected, issue) = if sent_null {
            (Rejected::Shown("null".into()), "is not accepted: this parameter is required")
        } else {
            (Rejected::Missing, "required, but not sent")
        };
        let into = match &self.parent {
            Some(parent) => parent.to_string(),
            None => "the arguments".to_owned(),
        };
        // The declared example (`#[validate(pattern = ..., example = "...")]`) where there is
        // one: a value the pattern takes, where the generic example would be `"…"`.
        let example = match p.rules.pattern.as_ref().and_then(|pattern| pattern.example) {
            Some(e) if matches!(ty, Ty::String) => Value::String(e.to_owned()).to_string(),
            _ => example_json(ty, &p.rules),
        };
        // Sent as null, the key is there: the fix is its value.
        let fix = match (sent_null, example.contains('…')) {
            (true, true) => format!("Send a value for \"{}\" instead of null.", p.name),
            (true, false) => {
                format!("Send a value for \"{}\" instead of null, like \"{}\": {example}.", p.name, p.name)
            }
            (false, true) => format!("Add \"{}\" to {into}.", p.name),
            (false, false) => format!("Add \"{}\" to {into}, like \"{}\": {example}.", p.name, p.name),
        };
        Problem::new(self.parameter_of(p.name), rejected, issue)
            .with_accepted(accepted_words(p, ty))
            .with_fix(fix)
            .at(self.path_of(p.name))
    }

    fn unknown_names(&self, obj: &Map<String, Value>) -> Vec<Problem> {
        let names: Vec<&str> = self.params.iter().map(|p| p.name).collect();
        let accepted = if names.is_empty() { "no parameters".to_owned() } else { names.join(", ") };
        let (what, of) = match &self.parent {
            Some(parent) => ("field", parent.to_string()),
            None => ("parameter", self.owner.to_owned()),
        };
        let unknown: Vec<&String> = obj.keys().filter(|k| !names.contains(&k.as_str())).collect();
        let mut out: Vec<Problem> = unknown
            .iter()
            .take(SHOWN_ITEMS)
            .map(|k| {
                let shown_name = render::shown(&Value::String((*k).clone()));
                // Offer only a name the caller did not send already.
                let sugg = render::closest(k, names.iter().copied().filter(|n| !obj.contains_key(*n)));
                let fix = match sugg {
                    Some(s) => format!("Rename {shown_name} to \"{s}\"."),
                    None => "Remove it.".to_owned(),
                };
                let name = cut::cut(k, render::SHOWN_CHARS);
                Problem::new(
                    self.parameter_of_sent(&name),
                    Rejected::Shown(shown_name),
                    format!("is not a {what} of {of}"),
                )
                .with_accepted(accepted.clone())
                .with_fix(fix)
                .with_suggestion(sugg)
                .at(self.path_of(&name))
            })
            .collect();
        if unknown.len() > SHOWN_ITEMS {
            let rest = unknown.len() - SHOWN_ITEMS;
            let listed: Vec<String> =
                unknown[SHOWN_ITEMS..].iter().take(3).map(|k| render::shown(&Value::String((*k).clone()))).collect();
            let etc = if rest > 3 { ", …" } else { "" };
            let at = self.parent.map_or_else(|| "arguments".to_owned(), |p| p.to_string());
            out.push(
                Problem::new(
                    self.parameter_of("arguments"),
                    Rejected::Missing,
                    format!("{rest} more names are not {what}s of {of} ({}{etc})", listed.join(", ")),
                )
                .with_accepted(accepted)
                .with_fix("Remove every name that is not listed as accepted.")
                .at(at),
            );
        }
        out
    }

    /// The refusal of every problem found (called when a parameter could not be read).
    pub fn refuse<'o>(self) -> crate::outcome::Outcome<'o> {
        let envelope = match self.finish() {
            Err(refusal) => refusal.into(),
            Ok(()) => crate::Fault::backend("reading the arguments").into(),
        };
        crate::outcome::Outcome::Ready(envelope)
    }

    /// The refusal of names that are not parameters, when every parameter was read.
    pub fn unknown<'o>(self) -> Option<crate::outcome::Outcome<'o>> {
        if self.problems.is_empty() && self.unknown.is_empty() { None } else { Some(self.refuse()) }
    }

    /// For a nested object whose field could not be read: its problems as one (never empty:
    /// a field that could not be read left one).
    pub fn into_problem_or(self, reading: &Reading<'_>) -> Problem {
        match self.into_problem() {
            Err(p) => p,
            Ok(()) => Problem::new(reading.path.parameter(), Rejected::Missing, "could not be read")
                .with_accepted("an object as the schema describes")
                .with_fix("Send it as the schema describes.")
                .at(reading.path.text()),
        }
    }

    /// For a nested object: every problem found, as one problem (the first) carrying the rest.
    pub fn into_problem(self) -> Result<(), Problem> {
        let mut all = self.problems;
        all.extend(self.unknown);
        if all.is_empty() {
            return Ok(());
        }
        let mut first = all.remove(0);
        // The list itself carries the rest (no second list), unless the first carries its own.
        if first.0.also.is_empty() {
            first.0.also = all;
        } else {
            first.0.also.extend(all);
        }
        Err(first)
    }

    /// Every problem found (the parameters' own, then names that are not parameters), or `Ok`
    /// when all parameters were read.
    pub fn finish(mut self) -> Result<(), crate::Refusal> {
        self.problems.append(&mut self.unknown);
        if self.problems.is_empty() { Ok(()) } else { Err(crate::Refusal::from_problems(self.problems)) }
    }
}

/// The accepted set of a parameter in words, with its rules.
pub(crate) fn accepted_words(p: &ParamSpec, ty: &Ty) -> String {
    value_words(ty, &p.rules)
}

/// Refusal of arguments that are not a JSON object (an array, a string, a number).
pub(crate) fn not_an_object(spec: &ToolSpec, v: &Value, numbers: Numbers<'_>) -> Problem {
    let names: Vec<String> = spec.params.iter().map(|p| format!("\"{}\"", p.name)).collect();
    // Every required parameter (a fix followed as written is not refused for one left out), or
    // the first parameter when none is required.
    let required: Vec<&ParamSpec> = spec.params.iter().filter(|p| p.required).collect();
    let shown = if required.is_empty() { spec.params.first().into_iter().collect() } else { required };
    let members: Vec<String> =
        shown.iter().map(|p| format!("\"{}\": {}", p.name, example_json(&p.ty, &p.rules))).collect();
    let like = format!("{{{}}}", members.join(", "));
    let secret = spec.params.iter().any(|p| holds_secret(&p.rules, Some(&p.ty)));
    Problem::new("arguments", rejected_of(v, secret, numbers), format!("is {}, not an object", render::json_type(v)))
        .with_accepted(if names.is_empty() {
            "an empty object, {}".to_owned()
        } else {
            format!("an object with the keys {}", names.join(", "))
        })
        .with_fix(format!("Send the arguments as a JSON object, like {like}."))
}

/// Arguments text that is not JSON at all (a body cut short, a form encoding, a stray quote),
/// refused with the object the tool takes: `arguments: "hours_back=24" is not JSON; accepted:
/// an object with the keys "hours_back", "group_by", "top". Send the arguments as a JSON
/// object, like {"hours_back": 10, "group_by": "query_hash"}.` The text is quoted cut, and not at all when the tool has a
/// secret parameter (`the value sent (secret, not shown)`).
pub(crate) fn not_json(spec: &ToolSpec, text: &str) -> crate::outcome::refusal::Refusal {
    let secret = spec.params.iter().any(|p| holds_secret(&p.rules, Some(&p.ty)));
    let shape = not_an_object(spec, &Value::Null, &[]);
    let refusal = crate::outcome::refusal::Refusal::parameter("arguments");
    let refusal = if secret { refusal.rejected_secret() } else { refusal.rejected(text) };
    let reason = format!("is not JSON{}", crate::read::broken::arguments_words(text, secret));
    refusal.reason(reason).accepted(shape.accepted()).fix(shape.fix()).build()
}

/// Refusal of a parameter (or of the whole `arguments`) whose JSON text cannot be read: nested
/// past the 128 levels JSON parsing allows (`deep`), or holding a number no double holds
/// (`1e400`), or an invalid escape (a lone surrogate).
pub(crate) fn unreadable(spec: &ToolSpec, name: &str, raw: &str, deep: bool) -> Problem {
    let p = spec.params.iter().find(|p| p.name == name);
    let accepted = match p {
        Some(p) => accepted_words(p, &p.ty),
        None => "a JSON object of the parameters".to_owned(),
    };
    let secret = p.map_or_else(
        || spec.params.iter().any(|p| holds_secret(&p.rules, Some(&p.ty))),
        |p| holds_secret(&p.rules, Some(&p.ty)),
    );
    let number = raw.trim().starts_with(|c: char| c == '-' || c.is_ascii_digit());
    let (issue, fix) = if deep {
        (
            "is nested more than 127 levels deep",
            format!("Send {name} as the schema describes, without the extra nesting."),
        )
    } else if number && p.is_none_or(|p| matches!(p.ty, Ty::Integer { .. } | Ty::Number | Ty::Float | Ty::Any)) {
        ("is too large to read as a number", format!("Send {name} within the accepted range."))
    } else if number {
        // A number where the parameter takes no number at all: its range is not the fix.
        ("is too large to read as a number", format!("Send {name} as {accepted}."))
    } else {
        ("is not valid JSON text (an invalid escape or number)", format!("Send {name} as valid JSON."))
    };
    let rejected = if secret || deep {
        Rejected::Missing
    } else {
        Rejected::Shown(cut::cut_counted(raw.trim(), render::SHOWN_CHARS))
    };
    let issue = if matches!(rejected, Rejected::Missing) && !deep {
        format!("the value sent {issue}")
    } else if deep {
        format!("the value sent {issue} (not shown)")
    } else {
        issue.to_owned()
    };
    Problem::new(name.to_owned(), rejected, issue).with_accepted(accepted).with_fix(fix)
}
