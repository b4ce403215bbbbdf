//! Error codes: the machine-readable `error_code` of every envelope that is not `ok`.

use std::fmt;

use serde::ser::{Serialize, Serializer};

/// The first key of every envelope (DESIGN "Status words").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// `ok`: served; `data` holds the answer (an empty answer is still `ok`).
    Ok,
    /// `invalid`: refused; fix the named parameter, retrying unchanged will not help.
    Invalid,
    /// `error`: a fault; the request was valid and the server failed.
    Error,
    /// `needs_confirmation`: nothing has happened yet; the action waits for approval.
    NeedsConfirmation,
}

impl Status {
    /// The wire word: `ok`, `invalid`, `error`, `needs_confirmation`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Invalid => "invalid",
            Status::Error => "error",
            Status::NeedsConfirmation => "needs_confirmation",
        }
    }
}

impl Serialize for Status {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A machine-readable error code, as it appears in `error_code` on the wire (UPPER_SNAKE).
///
/// Each code carries everything a client needs to branch without reading prose: the status word
/// it is sent with (`invalid` for a request the caller must change, `error` for a fault), what it
/// means, what the client should do next, whether the same call unchanged can succeed later, and
/// the HTTP status it maps to (RFC 9110 §15).
///
/// The standard set lives in [`codes`](crate::codes). A domain code is declared the same way:
///
/// ```
/// use envelope_core::{Code, Status};
///
/// const DOMAIN_TAKEN: Code = Code::new("DOMAIN_TAKEN", Status::Invalid)
///     .with_meaning("the domain is registered to someone else")
///     .with_action("choose another domain name")
///     .with_http_status(409);
/// assert_eq!(DOMAIN_TAKEN.name(), "DOMAIN_TAKEN");
/// assert!(!DOMAIN_TAKEN.retryable());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Code {
    name: &'static str,
    status: Status,
    meaning: &'static str,
    action: &'static str,
    http_status: u16,
    retry: Retry,
    also: Option<Status>,
    json_rpc_code: i32,
}

/// When and how a client may send a call again after this code: the contract's retry guidance,
/// stated per code in the manifest's code table (`"retry"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Retry {
    /// `never`: the same call cannot succeed; change it (validation, authorization, quota,
    /// not implemented) or, for `CONFIRMATION_REQUIRED`, approve it with `confirm_action`.
    Never,
    /// `after_reread`: read the current state, then send a call that fits it (`CONFLICT`,
    /// `VERSION_CONFLICT`).
    AfterReread,
    /// `with_backoff`: retry with bounded exponential backoff, and a write only under an
    /// idempotency key, so a retry of a call that did act acts once (`BACKEND_ERROR`, `TIMEOUT`,
    /// `IN_PROGRESS`).
    WithBackoff,
    /// `after_delay`: wait the delay the envelope gives in `hints`, then send the same call
    /// (`RATE_LIMITED`).
    AfterDelay,
    /// `reauthorize`: obtain a credential that has what the call needs (a token, a scope), then
    /// send the same call (`UNAUTHORIZED`; the transport words `missing_bearer_token`,
    /// `invalid_bearer_token`, `insufficient_scope`).
    Reauthorize,
}

impl Retry {
    /// The wire word: `never`, `after_reread`, `with_backoff`, `after_delay`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Retry::Never => "never",
            Retry::AfterReread => "after_reread",
            Retry::WithBackoff => "with_backoff",
            Retry::AfterDelay => "after_delay",
            Retry::Reauthorize => "reauthorize",
        }
    }

    /// Whether the same call, unchanged, can succeed later: `after_delay` and `with_backoff`
    /// (the envelope's `retryable`, derived from its `retry`).
    pub const fn unchanged(self) -> bool {
        matches!(self, Retry::AfterDelay | Retry::WithBackoff)
    }
}

impl Code {
    /// A code sent with `status`. Defaults: retry class `with_backoff` (so retryable) for
    /// `error`, `never` otherwise; HTTP 400 for `invalid`, 500 for `error`, 202 for
    /// `needs_confirmation`, 200 for `ok`; JSON-RPC code -32602 (Invalid params) for `invalid`,
    /// -32603 (Internal error) otherwise (JSON-RPC 2.0 §5.1).
    ///
    /// # Panics
    /// At compile time (in a `const`) when `name` is not UPPER_SNAKE (`A-Z`, `0-9`, `_`, starting
    /// with a letter).
    pub const fn new(name: &'static str, status: Status) -> Self {
        assert!(is_upper_snake(name), "an error code is UPPER_SNAKE, like NOT_FOUND");
        let http_status = match status {
            Status::Ok => 200,
            Status::Invalid => 400,
            Status::Error => 500,
            Status::NeedsConfirmation => 202,
        };
        let retry = match status {
            Status::Error => Retry::WithBackoff,
            _ => Retry::Never,
        };
        let json_rpc_code = match status {
            Status::Invalid => -32602,
            _ => -32603,
        };
        Code { name, status, meaning: "", action: "", http_status, retry, also: None, json_rpc_code }
    }

    /// The JSON-RPC error `code` (JSON-RPC 2.0 §5.1) this code answers with where a failure is
    /// a JSON-RPC error rather than an envelope: an MCP request other than `tools/call`
    /// (`resources/read`, `prompts/get`; see `mcp::catalog`). A `tools/call` always answers
    /// its envelope, whatever the code.
    pub const fn with_json_rpc_code(mut self, code: i32) -> Self {
        self.json_rpc_code = code;
        self
    }

    /// The JSON-RPC error `code` of this code (default -32602 for `invalid`, -32603 for the
    /// others): `NOT_FOUND` is -32602, as MCP's SEP-2164 answers a resource that does not
    /// exist; `UNAUTHORIZED` and `FORBIDDEN` are -32000, as the transport words of the same
    /// failures are.
    pub const fn json_rpc_code(&self) -> i32 {
        self.json_rpc_code
    }

    /// The retry guidance (default: `with_backoff` for an `error` code, `never` otherwise).
    pub const fn with_retry(mut self, retry: Retry) -> Self {
        self.retry = retry;
        self
    }

    /// The code may also be sent with `status` (`CONFIRMATION_REQUIRED`: `needs_confirmation`
    /// when the action is queued, `error` where it cannot be).
    pub const fn also_with(mut self, status: Status) -> Self {
        self.also = Some(status);
        self
    }

    /// The manifest's `retry`: the retry guidance.
    pub const fn retry(&self) -> Retry {
        self.retry
    }

    /// The manifest's `also_status`: the other status word the code may be sent with, if any.
    pub const fn also_status(&self) -> Option<Status> {
        self.also
    }

    /// Whether an envelope of `status` may carry this code.
    pub fn allows(&self, status: Status) -> bool {
        self.status == status || self.also == Some(status)
    }

    /// What the code means, in one clause (`"the request is not valid for this tool"`).
    pub const fn with_meaning(mut self, meaning: &'static str) -> Self {
        self.meaning = meaning;
        self
    }

    /// The client's next move (`"fix the named parameter and call again"`).
    pub const fn with_action(mut self, action: &'static str) -> Self {
        self.action = action;
        self
    }

    /// Marks the code as one where the same call, unchanged, can succeed later: its retry
    /// class becomes `with_backoff` unless it already is one that retries unchanged
    /// (`after_delay`).
    pub const fn retryable_unchanged(mut self) -> Self {
        if !self.retry.unchanged() {
            self.retry = Retry::WithBackoff;
        }
        self
    }

    /// The HTTP status (RFC 9110 §15) this code answers with on the HTTP surface.
    pub const fn with_http_status(mut self, status: u16) -> Self {
        self.http_status = status;
        self
    }

    /// The wire spelling (an envelope's `error_code`, without a toolbox's prefix), e.g.
    /// `"VALIDATION_ERROR"`.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The manifest's `status`: the status word an envelope carrying this code has.
    pub const fn status(&self) -> Status {
        self.status
    }

    /// The manifest's `meaning`: what the code means.
    pub const fn meaning(&self) -> &'static str {
        self.meaning
    }

    /// The manifest's `action`: what the client should do next.
    pub const fn action(&self) -> &'static str {
        self.action
    }

    /// The manifest's `retryable`: whether the same call, unchanged, can succeed later, derived
    /// from [`retry`](Self::retry) (`after_delay` and `with_backoff` are).
    pub const fn retryable(&self) -> bool {
        self.retry.unchanged()
    }

    /// The manifest's `http_status`: the HTTP status (RFC 9110 §15) this code maps to.
    pub const fn http_status(&self) -> u16 {
        self.http_status
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

const fn is_upper_snake(name: &str) -> bool {
    let b = name.as_bytes();
    if b.is_empty() || !b[0].is_ascii_uppercase() {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if !(b[i].is_ascii_uppercase() || b[i].is_ascii_digit() || b[i] == b'_') {
            return false;
        }
        i += 1;
    }
    true
}

/// One row of the transport words (DESIGN "One code table", transport table): a failure before
/// any tool runs, sent as `{"error": "<word>", "message": "<sentence>"}` (or, over `/mcp`, as a
/// JSON-RPC error whose `data.error` is the word), never as an envelope.
///
/// ```
/// use envelope_core::codes::transport_words;
///
/// let row = transport_words::INSUFFICIENT_SCOPE;
/// assert_eq!((row.word(), row.http_status(), row.json_rpc_code()), ("insufficient_scope", 403, -32000));
/// assert_eq!(row.retry().as_str(), "reauthorize");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransportWord {
    word: &'static str,
    http_status: u16,
    json_rpc_code: i32,
    retry: Retry,
}

impl TransportWord {
    /// A row: the lowercase `word`, its HTTP status (RFC 9110 §15), JSON-RPC code -32000 (the
    /// range JSON-RPC 2.0 §5.1 leaves to servers; the word in `data.error` tells the failures
    /// apart) and retry class `never`.
    pub const fn new(word: &'static str, http_status: u16) -> Self {
        TransportWord { word, http_status, json_rpc_code: -32000, retry: Retry::Never }
    }

    /// The retry class.
    pub const fn with_retry(mut self, retry: Retry) -> Self {
        self.retry = retry;
        self
    }

    /// The word sent as `error` (`"missing_bearer_token"`).
    pub const fn word(&self) -> &'static str {
        self.word
    }

    /// The HTTP status this word answers with.
    pub const fn http_status(&self) -> u16 {
        self.http_status
    }

    /// The JSON-RPC error `code` of the same failure over `/mcp`.
    pub const fn json_rpc_code(&self) -> i32 {
        self.json_rpc_code
    }

    /// What a client does next: `reauthorize` for the bearer words, `with_backoff` for
    /// `service_unavailable`, `tenant_policy_unavailable` and `request_timeout`, `never`
    /// otherwise.
    pub const fn retry(&self) -> Retry {
        self.retry
    }
}

/// The standard codes. `invalid` codes ask the caller to change the request; `error` codes are
/// faults of the server.
///
/// The module holds the code vocabulary too: [`Code`], [`Retry`] and [`Status`] (also at the
/// crate root).
pub mod codes {
    use super::Status::{Error, Invalid, NeedsConfirmation};
    pub use super::{Code, Retry, Status, TransportWord};

    /// `invalid`, 400: an argument is missing, unknown, of the wrong JSON type, out of range or
    /// not an accepted value, or the combination is not served. Fix the named parameter.
    pub const VALIDATION_ERROR: Code = Code::new("VALIDATION_ERROR", Invalid)
        .with_meaning("an argument is missing, unknown, of the wrong type, or outside its accepted set")
        .with_action("fix the parameter named in hints.parameter as hints.fix says, then call again");
    /// `invalid`, 404, JSON-RPC -32602: the thing named does not exist (a resource read that
    /// names no resource is -32602 with `data.uri`, SEP-2164).
    pub const NOT_FOUND: Code = Code::new("NOT_FOUND", Invalid)
        .with_meaning("the thing the request names does not exist")
        .with_action("check the identifier, or list what exists first")
        .with_http_status(404);
    /// `invalid`, 409: the request conflicts with the current state.
    pub const CONFLICT: Code = Code::new("CONFLICT", Invalid)
        .with_meaning("the request conflicts with the current state")
        .with_action("read the current state and send a request that fits it")
        .with_retry(Retry::AfterReread)
        .with_http_status(409);
    /// `invalid`, 401: no valid credentials were presented.
    pub const UNAUTHORIZED: Code = Code::new("UNAUTHORIZED", Invalid)
        .with_meaning("no valid credentials were presented")
        .with_action("authenticate, then call again")
        .with_http_status(401)
        .with_json_rpc_code(-32000);
    /// `invalid`, 403: the credentials do not allow this.
    pub const FORBIDDEN: Code = Code::new("FORBIDDEN", Invalid)
        .with_meaning("the credentials presented do not allow this request")
        .with_action("do not retry; ask for access or choose another action")
        .with_http_status(403)
        .with_json_rpc_code(-32000);
    /// `invalid`, 429, retryable: too many calls; the same call succeeds after waiting.
    pub const RATE_LIMITED: Code = Code::new("RATE_LIMITED", Invalid)
        .with_meaning("too many calls in a short time")
        .with_action("wait the delay given in hints, then send the same call again")
        .retryable_unchanged()
        .with_retry(Retry::AfterDelay)
        .with_http_status(429);
    /// `invalid`, 429: a quota is used up; waiting a short while does not help.
    pub const QUOTA_EXCEEDED: Code = Code::new("QUOTA_EXCEEDED", Invalid)
        .with_meaning("a usage quota is used up")
        .with_action("do not retry until the quota resets or is raised")
        .with_http_status(429);
    /// `invalid`, 409: the version the caller based its change on is no longer current.
    pub const VERSION_CONFLICT: Code = Code::new("VERSION_CONFLICT", Invalid)
        .with_meaning("the version the change was based on is no longer current")
        .with_action("read the current version and apply the change to it")
        .with_retry(Retry::AfterReread)
        .with_http_status(409);
    /// `invalid`, 422: an idempotency key was reused with a different request; never retry it
    /// unchanged (IETF `draft-ietf-httpapi-idempotency-key-header` §2.7: 422 Unprocessable
    /// Content, apart from the 409 of a key still in flight, [`IN_PROGRESS`], which is retryable).
    pub const IDEMPOTENCY_CONFLICT: Code = Code::new("IDEMPOTENCY_CONFLICT", Invalid)
        .with_meaning("the idempotency key was already used with a different request")
        .with_action("send a new idempotency key, or resend the original request unchanged")
        .with_http_status(422);
    /// `invalid`, 409, retryable: a call with the same idempotency key is still running; nothing
    /// was done by this one (IETF `draft-ietf-httpapi-idempotency-key-header` §2.7: 409 Conflict).
    pub const IN_PROGRESS: Code = Code::new("IN_PROGRESS", Invalid)
        .with_meaning("a call with the same idempotency key is still running; this one did nothing")
        .with_action("wait a moment, then send the same call again to get the first call's answer")
        .retryable_unchanged()
        .with_retry(Retry::WithBackoff)
        .with_http_status(409);
    /// `needs_confirmation`, 202: nothing happened yet; the action waits for approval. Also sent
    /// with status `error` (and no `pending_action_id`) by a toolbox that cannot queue actions.
    pub const CONFIRMATION_REQUIRED: Code = Code::new("CONFIRMATION_REQUIRED", NeedsConfirmation)
        .with_meaning("the action needs a person's approval; nothing has happened yet")
        .with_action("show the preview to the person and call confirm_action with the pending_action_id; never repeat the original call")
        .also_with(Error)
        .with_http_status(202);
    /// `error`, 501, `never`: the tool does not implement this yet.
    pub const NOT_IMPLEMENTED: Code = Code::new("NOT_IMPLEMENTED", Error)
        .with_meaning("the server does not implement this request")
        .with_action("do not retry; use another tool or request")
        .with_retry(Retry::Never)
        .with_http_status(501);
    /// `error`, 504, retryable: the server did not finish in time.
    pub const TIMEOUT: Code = Code::new("TIMEOUT", Error)
        .with_meaning("the server did not finish in time")
        .with_action("retry later if the tool is idempotent; otherwise check whether it took effect")
        .retryable_unchanged()
        .with_http_status(504);
    /// `error`, 500, retryable: the server failed while serving a valid request.
    pub const BACKEND_ERROR: Code = Code::new("BACKEND_ERROR", Error)
        .with_meaning("the server failed while serving a valid request")
        .with_action("retry later if the tool is idempotent; otherwise check whether it took effect")
        .retryable_unchanged();
    /// `error`, 503, `with_backoff`: the audit record a governed write needs before it runs
    /// could not be written (the sink failed or passed its timeout), so the write did not run and
    /// its idempotency key was not used up. Fail closed, never bypassed (see
    /// [`crate::call::audit`]); the same call succeeds once the audit trail is back: retry with
    /// bounded backoff through the same governed path.
    pub const AUDIT_UNAVAILABLE: Code = Code::new("AUDIT_UNAVAILABLE", Error)
        .with_meaning("the audit record this write needs could not be written, so the write did not run")
        .with_action(
            "retry with bounded backoff; nothing was done, and the same call succeeds once the audit trail is back",
        )
        .with_http_status(503);

    /// `error`, 503, `with_backoff`: the policy hook errored or did not answer in time, so
    /// nothing ran. Not a denial: the same call may be allowed once the policy service answers.
    pub const POLICY_UNAVAILABLE: Code = Code::new("POLICY_UNAVAILABLE", Error)
        .with_meaning("the policy that authorizes this call gave no decision (it failed or timed out), so nothing ran")
        .with_action("retry with bounded backoff; nothing was done")
        .with_http_status(503);

    /// `invalid`, 403, `never`: destructive execution is blocked on this surface or by the
    /// server's policy (DESIGN's code table): a policy decision, never a server fault. Nothing
    /// was done; the same call will be blocked again.
    pub const T4_BLOCKED: Code = Code::new("T4_BLOCKED", Invalid)
        .with_meaning("destructive execution is blocked on this surface or by the server's policy; nothing was done")
        .with_action("do not retry unchanged; ask a person to do it where it is allowed, or choose another action")
        .with_http_status(403);

    /// The transport words: one row each (word, HTTP status, JSON-RPC code, retry class), read
    /// by [`crate::http::TransportError`]; the table of DESIGN "Transport errors".
    pub mod transport_words {
        use super::super::{Retry, TransportWord};

        /// 401, `reauthorize`: no credential (RFC 6750 §3.1).
        pub const MISSING_BEARER_TOKEN: TransportWord =
            TransportWord::new("missing_bearer_token", 401).with_retry(Retry::Reauthorize);
        /// 401, `reauthorize`: the credential does not verify (RFC 6750 `invalid_token`).
        pub const INVALID_BEARER_TOKEN: TransportWord =
            TransportWord::new("invalid_bearer_token", 401).with_retry(Retry::Reauthorize);
        /// 403, `reauthorize`: the credential lacks a scope (RFC 6750 `insufficient_scope`;
        /// MCP 2025-11-25 step-up).
        pub const INSUFFICIENT_SCOPE: TransportWord =
            TransportWord::new("insufficient_scope", 403).with_retry(Retry::Reauthorize);
        /// 403: an `Origin` the server does not serve (DNS-rebinding defence).
        pub const FORBIDDEN_ORIGIN: TransportWord = TransportWord::new("forbidden_origin", 403);
        /// 403: a `Host` the server does not serve (DNS-rebinding defence).
        pub const FORBIDDEN_HOST: TransportWord = TransportWord::new("forbidden_host", 403);
        /// 404: a path no route serves.
        pub const NOT_FOUND: TransportWord = TransportWord::new("not_found", 404);
        /// 405: a method the path does not take (with `Allow`).
        pub const METHOD_NOT_ALLOWED: TransportWord = TransportWord::new("method_not_allowed", 405);
        /// 408, `with_backoff`: the body did not arrive in time.
        pub const REQUEST_TIMEOUT: TransportWord =
            TransportWord::new("request_timeout", 408).with_retry(Retry::WithBackoff);
        /// 413: a body over the server's limit.
        pub const PAYLOAD_TOO_LARGE: TransportWord = TransportWord::new("payload_too_large", 413);
        /// 415: a body sent with a content coding (`Content-Encoding: gzip`) the server does not
        /// read (RFC 9110 §15.5.16, "... or the content coding"); only uncoded bodies are read.
        pub const UNSUPPORTED_CONTENT_ENCODING: TransportWord = TransportWord::new("unsupported_content_encoding", 415);
        /// 415: a `/mcp` body sent with a `Content-Type` other than `application/json` (RFC 9110
        /// §15.5.16, "... the format of the content"; MCP "Streamable HTTP": a message is sent as
        /// JSON).
        pub const UNSUPPORTED_MEDIA_TYPE: TransportWord = TransportWord::new("unsupported_media_type", 415);
        /// 400: a request head that is not HTTP/1.1, a body cut short, an `MCP-Protocol-Version`
        /// longer than any version.
        pub const MALFORMED_REQUEST: TransportWord = TransportWord::new("malformed_request", 400);
        /// 414: a request target over the server's limit.
        pub const URI_TOO_LONG: TransportWord = TransportWord::new("uri_too_long", 414);
        /// 431: a request head over the server's limit.
        pub const HEADER_FIELDS_TOO_LARGE: TransportWord = TransportWord::new("header_fields_too_large", 431);
        /// 503, `with_backoff`: a bound of the server is reached (with `Retry-After`).
        pub const SERVICE_UNAVAILABLE: TransportWord =
            TransportWord::new("service_unavailable", 503).with_retry(Retry::WithBackoff);
        /// 429, `after_delay`: the caller holds its whole share of the requests in flight (with
        /// `Retry-After`); others are served.
        pub const RATE_LIMITED: TransportWord = TransportWord::new("rate_limited", 429).with_retry(Retry::AfterDelay);
        /// 400: a surface that needs a tenant got none.
        pub const TENANT_REQUIRED: TransportWord = TransportWord::new("tenant_required", 400);
        /// 403: a tenant header contradicts the verified claim (an authorization failure, not
        /// a malformed request).
        pub const TENANT_MISMATCH: TransportWord = TransportWord::new("tenant_mismatch", 403);
        /// 403: the tenant policy does not let the caller act for the tenant.
        pub const TENANT_FORBIDDEN: TransportWord = TransportWord::new("tenant_forbidden", 403);
        /// 403, `with_backoff`: the tenant's policy could not be read (fail closed).
        pub const TENANT_POLICY_UNAVAILABLE: TransportWord =
            TransportWord::new("tenant_policy_unavailable", 403).with_retry(Retry::WithBackoff);
        /// 410: `/sse` or `/messages`, the retired HTTP+SSE transport.
        pub const LEGACY_SSE_RETIRED: TransportWord = TransportWord::new("legacy_sse_retired", 410);

        /// Every transport word, in a fixed order.
        pub const ALL: &[TransportWord] = &[
            MISSING_BEARER_TOKEN,
            INVALID_BEARER_TOKEN,
            INSUFFICIENT_SCOPE,
            FORBIDDEN_ORIGIN,
            FORBIDDEN_HOST,
            NOT_FOUND,
            METHOD_NOT_ALLOWED,
            REQUEST_TIMEOUT,
            PAYLOAD_TOO_LARGE,
            UNSUPPORTED_CONTENT_ENCODING,
            UNSUPPORTED_MEDIA_TYPE,
            MALFORMED_REQUEST,
            URI_TOO_LONG,
            HEADER_FIELDS_TOO_LARGE,
            SERVICE_UNAVAILABLE,
            RATE_LIMITED,
            TENANT_REQUIRED,
            TENANT_MISMATCH,
            TENANT_FORBIDDEN,
            TENANT_POLICY_UNAVAILABLE,
            LEGACY_SSE_RETIRED,
        ];
    }

    /// Every standard code, in a fixed order.
    pub const ALL: &[Code] = &[
        VALIDATION_ERROR,
        NOT_FOUND,
        CONFLICT,
        UNAUTHORIZED,
        FORBIDDEN,
        RATE_LIMITED,
        QUOTA_EXCEEDED,
        VERSION_CONFLICT,
        IDEMPOTENCY_CONFLICT,
        IN_PROGRESS,
        CONFIRMATION_REQUIRED,
        NOT_IMPLEMENTED,
        TIMEOUT,
        BACKEND_ERROR,
        AUDIT_UNAVAILABLE,
        POLICY_UNAVAILABLE,
        T4_BLOCKED,
    ];
}
