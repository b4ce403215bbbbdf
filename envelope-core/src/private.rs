//! What the code `#[tool]` generates calls. Not a public API: names and shapes may change in
//! any release.

pub use serde_json::{Map, Value};

pub use crate::outcome::{Guarded, Step};
pub use crate::read::args::{Args, FromArg, Input, Numeric, object_of, read_choice};
pub use crate::read::input::{Items, Scalar, Sent};
pub use crate::read::readers::{read_choice_sent, sent_as_value};
pub use crate::read::scalars::typed_choice;
pub use crate::read::typed::{Probe, ProbeGeneral, ProbeNoShape, ProbeShape, ProbeTyped, Raw, TypedArgs, read_typed};
pub use serde::Deserializer;

// What generated code names of the public API, so the macros reach every item through this
// one module (the crate's root may change without them).
pub use crate::call::ToolSet;
pub use crate::read::kinds::{Measured, Sequence, Textual};
pub use crate::{Code, Context, Envelope, Fault, Problem, Reading, Refusal, Status};

/// `value`, once the rule is shown to apply to the parameter type: `check` is the public trait's
/// own item (`<T as Numeric>::RULES_APPLY`, `<T as Textual>::RULES_APPLY`, a `PhantomData` of
/// `<T as Sequence>::Item`), spanned at the rule, for a type the expansion cannot name (an alias,
/// a newtype). An unmet bound on a trait's item names only the trait, and no function of this
/// module.
pub fn applies<C, V>(check: C, value: V) -> V {
    let _ = check;
    value
}

/// `length` counted in `unit`: the expansion passes `<T as Measured<_>>::UNIT` (characters of
/// a [`Textual`] type, items of a [`Sequence`]) for a type it cannot name, spanned at the rule,
/// so an unmet bound names only the public trait.
pub fn counted(length: Length, unit: Unit) -> Length {
    Length { unit, ..length }
}

/// The closest of `candidates` to `given`, as a refusal offers it (`Did you mean "…"?`): what
/// envelope-macros' own did-you-mean is tested against, typo for typo.
pub fn closest<'c>(given: &str, candidates: &[&'c str]) -> Option<&'c str> {
    crate::words::render::closest(given, candidates.iter().copied())
}
pub use crate::call::tool::{CallFn, Tool, TypedFn, TypedMethodFn};
pub use crate::outcome::Outcome;
pub use crate::spec::{
    Annotations, Bound, Choices, Format, Length, Num, ObjectSpec, ParamSpec, Pattern, Range, Requires, Rules, ToolSpec,
    Ty, Unit,
};

pub use crate::ToolError;
pub use crate::spec::rate::RateLimit;

/// The envelope of a tool's plain return value: `ok` with its JSON, or a fault if it does not
/// serialize (a map with non-string keys).
pub fn ok<T: serde::Serialize>(value: T) -> Envelope {
    crate::outcome::failure::ok_envelope(value)
}

/// A sync tool's call once its arguments are read: its envelope now, or, when the caller asks
/// (the MCP adapters), the body left to run on a thread where blocking is allowed.
pub fn sync_body<'a>(input: Input<'_>, body: impl FnOnce() -> Envelope + Send + 'static) -> Outcome<'a> {
    if input.defers_body() { Outcome::Later(Box::new(body)) } else { Outcome::Ready(body()) }
}

/// The envelope of a tool's `Result`.
pub fn result<T: serde::Serialize, E: ToolError>(r: Result<T, E>) -> Envelope {
    E::result_envelope(r)
}

/// A refusal under a declared `invalid` code.
pub fn refusal_with_code(refusal: Refusal, code: crate::Code) -> Refusal {
    refusal.with_code(code)
}

/// A fault under a declared `error` code.
pub fn fault_with_code(code: crate::Code, operation: &str) -> Fault {
    Fault::new(code, operation)
}

/// The codes a tool can emit, in a fixed order without repeats: `VALIDATION_ERROR`, its error
/// type's codes, `TIMEOUT` (with `timeout_ms`), then `BACKEND_ERROR` (a panic is always possible). `VALIDATION_ERROR` even
/// without parameters: a name the tool does not take, or arguments that are not an object, are
/// refused with it.
pub fn error_codes(declared: &[crate::Code], timeout: bool) -> Vec<crate::Code> {
    crate::spec::error_codes(declared, timeout)
}

/// The codes of a tool: [`error_codes`] of every declared set (the tool's error type, its
/// preview's), with `CONFIRMATION_REQUIRED`, `NOT_FOUND`, `CONFLICT` and `RATE_LIMITED` (the
/// store's bound of pending actions) for a confirm tool and `IDEMPOTENCY_CONFLICT`,
/// `IN_PROGRESS` and `RATE_LIMITED` (its bound of idempotency records) for a key tool, before
/// `TIMEOUT` and `BACKEND_ERROR`.
pub fn guarded_codes(declared: &[&[crate::Code]], timeout: bool, confirm: bool, key: bool) -> Vec<crate::Code> {
    use crate::codes;
    let mut all: Vec<crate::Code> = declared.iter().flat_map(|d| d.iter().copied()).collect();
    if confirm {
        all.extend([codes::CONFIRMATION_REQUIRED, codes::NOT_FOUND, codes::CONFLICT, codes::RATE_LIMITED]);
    }
    if key {
        all.extend([codes::IDEMPOTENCY_CONFLICT, codes::IN_PROGRESS, codes::RATE_LIMITED]);
    }
    error_codes(&all, timeout)
}

/// The `idempotency_key` parameter of `#[tool(idempotency_key)]`: optional, 8 to 64 characters.
pub fn idempotency_key_param() -> ParamSpec {
    crate::call::guard::idempotency::idempotency_key_param()
}

/// The error type of a preview function's `Result`, as a type (the closure naming it is never
/// called).
pub fn preview_error<T, E>(_: &Result<T, E>) -> core::marker::PhantomData<fn() -> E> {
    core::marker::PhantomData
}

/// The codes of a preview function's error type, from a closure that calls it (never run).
pub fn preview_codes<A, E: ToolError>(
    _: impl Fn(&A) -> core::marker::PhantomData<fn() -> E>,
) -> &'static [crate::Code] {
    E::CODES
}

/// The outcome of a key tool asked for a preview (it has none; never asked).
pub fn no_preview<'a>() -> Outcome<'a> {
    Outcome::Ready(Envelope::ok(Value::Null))
}

/// A guarded call: the toolbox previews, queues, replays or runs it.
pub fn guarded<'a>(key: Option<String>, then: impl FnOnce(Step) -> Outcome<'a> + Send + 'a) -> Outcome<'a> {
    Outcome::Guarded(Guarded::new(key, then))
}

/// `#[tool(timeout_ms = N)]` needs a timer: the `tokio` feature of envelope-core (on with
/// `rmcp`).
#[diagnostic::on_unimplemented(
    message = "`timeout_ms` needs the `tokio` feature of envelope-core",
    label = "enable the `tokio` (or `rmcp`) feature of envelope-core in Cargo.toml"
)]
pub trait TimeoutNeedsTokio {}

#[cfg(feature = "tokio")]
impl<T: ?Sized> TimeoutNeedsTokio for T {}

/// Runs an async tool's future for at most `ms` milliseconds; past that, the call `cx` is
/// cancelled (what the body spawned sees it) and answered with a `TIMEOUT` fault for
/// `operation` (the tool's name). Needs a tokio runtime (the MCP adapter runs one).
pub fn with_timeout<'a, F>(
    cx: crate::Context,
    ms: u64,
    operation: &'static str,
    f: F,
) -> impl core::future::Future<Output = Envelope> + Send + 'a
where
    F: core::future::Future<Output = Envelope> + Send + 'a + TimeoutNeedsTokio,
{
    cx.time_out_in(ms);
    timeout_impl(cx, ms, operation, f)
}

#[cfg(feature = "tokio")]
async fn timeout_impl<F: core::future::Future<Output = Envelope>>(
    cx: crate::Context,
    ms: u64,
    operation: &'static str,
    f: F,
) -> Envelope {
    match tokio::time::timeout(std::time::Duration::from_millis(ms), f).await {
        Ok(e) => e,
        Err(_) => {
            cx.cancel();
            Fault::timeout(operation).into()
        }
    }
}

#[cfg(not(feature = "tokio"))]
async fn timeout_impl<F: core::future::Future<Output = Envelope>>(
    _cx: crate::Context,
    _ms: u64,
    _operation: &'static str,
    f: F,
) -> Envelope {
    f.await
}

/// A sync tool's call with `#[tool(timeout_ms = ms)]`: the call `cx` times out `ms`
/// milliseconds from now ([`crate::Context::is_cancelled`] turns true, for the body to stop),
/// and a body that returns past it is answered with a `TIMEOUT` fault for `operation`. A
/// server that waits on the body (MCP, the HTTP endpoints) answers that fault at the deadline.
pub fn sync_body_timed<'a>(
    input: Input<'_>,
    cx: crate::Context,
    ms: u64,
    operation: &'static str,
    body: impl FnOnce() -> Envelope + Send + 'static,
) -> Outcome<'a> {
    cx.time_out_in(ms);
    sync_body(input, move || {
        let envelope = body();
        if cx.timed_out() { Fault::timeout(operation).into() } else { envelope }
    })
}

/// The probe of a tool's data type `T` for a JSON Schema:
/// `DataSchema::<T>::new().with_data_schema(spec)` resolves to the inherent method when
/// `T: schemars::JsonSchema` (feature `schemars`), else, through `Deref`, to [`AnyData`]'s
/// (no schema). No trait needs to be in scope.
pub struct DataSchema<T: ?Sized>(core::marker::PhantomData<fn() -> T>);

impl<T: ?Sized> DataSchema<T> {
    /// The probe.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        DataSchema(core::marker::PhantomData)
    }
}

#[cfg(feature = "schemars")]
impl<T: ?Sized + schemars::JsonSchema> DataSchema<T> {
    /// `spec` with the schema of `data` (see [`data_schema`]).
    pub fn with_data_schema(&self, spec: ToolSpec) -> ToolSpec {
        data_schema(spec, Some(crate::schema::data_schema_of::<T>))
    }
}

impl<T: ?Sized> core::ops::Deref for DataSchema<T> {
    type Target = AnyData;
    fn deref(&self) -> &AnyData {
        &AnyData
    }
}

/// The probe's answer for a type without a schema.
pub struct AnyData;

impl AnyData {
    /// `spec` as it is: `data` is any JSON.
    pub fn with_data_schema(&self, spec: ToolSpec) -> ToolSpec {
        spec
    }
}

/// `spec` with the schema of `data` the probe found, unless it accepts any JSON (`true`).
pub fn data_schema(spec: ToolSpec, schema: Option<fn() -> Value>) -> ToolSpec {
    match schema {
        Some(f) if !matches!(f(), Value::Bool(true)) => spec.with_output_schema(f),
        _ => spec,
    }
}

/// The MCP annotations of `#[tool(read_only, destructive = false, …)]`, one letter a hint in
/// the order read-only, destructive, idempotent, open-world: `y` (true), `n` (false), `-`
/// (absent).
pub const fn hints(code: &[u8; 4]) -> Annotations {
    const fn hint(c: u8) -> Option<bool> {
        match c {
            b'y' => Some(true),
            b'n' => Some(false),
            _ => None,
        }
    }
    Annotations::new(hint(code[0]), hint(code[1]), hint(code[2]), hint(code[3]))
}

/// The context of a call, for a tool that takes one (or a timeout).
pub fn context(input: &Input<'_>) -> crate::Context {
    input.context()
}

/// A parameter the typed reading read (`Some`), or its default: `Args::take_or`'s shape.
pub fn typed_or<T>(read: Option<T>, default: impl FnOnce() -> T) -> T {
    read.unwrap_or_else(default)
}

/// Boxes an async tool's future.
pub fn pending<'a>(f: impl core::future::Future<Output = Envelope> + Send + 'a) -> Outcome<'a> {
    Outcome::Pending(Box::pin(f))
}

/// A default value as JSON, for the schema.
pub fn json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// `a == b` for strings, in a `const fn`.
const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `a == b` for codes (every field), in a `const fn`.
const fn same_code(a: &crate::Code, b: &crate::Code) -> bool {
    same_str(a.name(), b.name())
        && a.status() as u8 == b.status() as u8
        && same_str(a.meaning(), b.meaning())
        && same_str(a.action(), b.action())
        && a.retryable() == b.retryable()
        && a.http_status() == b.http_status()
        && a.retry() as u8 == b.retry() as u8
        && same_status(a.also_status(), b.also_status())
}

const fn same_status(a: Option<crate::Status>, b: Option<crate::Status>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a as u8 == b as u8,
        (None, None) => true,
        _ => false,
    }
}

/// How many distinct codes `all` holds (for `#[derive(ToolError)]`'s `CODES`).
///
/// # Panics
/// At compile time, when two different codes share one name: the manifest could not say which
/// one the wire's `error_code` means.
pub const fn distinct_count(all: &[crate::Code]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < all.len() {
        let mut seen = false;
        let mut j = 0;
        while j < i {
            if same_code(&all[i], &all[j]) {
                seen = true;
            } else if same_str(all[i].name(), all[j].name()) {
                panic!("two different codes of this error type share one name: give each code its own name");
            }
            j += 1;
        }
        if !seen {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The distinct codes of `all`, in first-seen order; `N` is `distinct_count(all)`.
pub const fn distinct<const N: usize>(all: &[crate::Code]) -> [crate::Code; N] {
    let mut out = [crate::codes::BACKEND_ERROR; N];
    let mut n = 0;
    let mut i = 0;
    while i < all.len() {
        let mut seen = false;
        let mut j = 0;
        while j < n {
            if same_code(&all[i], &out[j]) {
                seen = true;
            }
            j += 1;
        }
        if !seen {
            out[n] = all[i];
            n += 1;
        }
        i += 1;
    }
    out
}

/// A tool from a `#[tools]` method bound to its state.
pub fn method_tool<S: Send + Sync + 'static>(
    spec: ToolSpec,
    state: std::sync::Arc<S>,
    call: crate::call::tool::MethodFn<S>,
) -> Tool {
    Tool::__method(spec, state, call)
}

#[cfg(test)]
mod tests {
    /// The module's name carries the release: bumping the version without renaming it (in
    /// lib.rs and in envelope-macros/src/private.rs, where the expansion spells it once) would
    /// let a mismatched pair build.
    #[test]
    fn the_private_module_is_named_for_this_release() {
        let digits: String = env!("CARGO_PKG_VERSION").chars().filter(char::is_ascii_digit).collect();
        assert_eq!(format!("__private{digits}"), "__private010", "rename `__private010` for this release");
    }
}
