//! What a new record counts against: its kind ([`Kind`]) and its caller ([`Admission`]), the
//! bounds of each kind in all and per caller ([`Capacity`], [`Limits`]), and a refusal at a bound
//! ([`Full`]).

use std::time::Duration;

/// What a record is, for its bound ([`Limits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// An action waiting for a person's approval (`envelope:pending:<id>`), kept for the
    /// confirmation's time to live (15 minutes by default).
    PendingAction,
    /// An idempotency key's claim and recorded envelope (`envelope:idem:<tool>:<caller>:<key>`), kept
    /// for the idempotency time to live (24 hours by default).
    IdempotencyRecord,
    /// An MCP task (`envelope:task:<caller digest>:<task id>`, the task's status, result or
    /// error, and pending input requests) and a caller's index of its live tasks
    /// (`envelope:tasks:<caller>`), kept for the tasks' time to live (one hour by default; see
    /// `envelope_core::mcp::tasks`).
    Task,
    /// Any other key, written with [`Store::put_new`](super::Store::put_new) or [`Store::put`](super::Store::put) without admission.
    Other,
}

impl Kind {
    /// The kind's name in a log line.
    pub(crate) fn plural(self) -> &'static str {
        match self {
            Kind::PendingAction => "pending actions",
            Kind::IdempotencyRecord => "idempotency records",
            Kind::Task => "task records",
            Kind::Other => "other keys",
        }
    }
}

/// Which count of a [`Capacity`] is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The caller's own records ([`Capacity::per_caller`]).
    Caller,
    /// The store's records of that kind, every caller's ([`Capacity::total`]).
    Store,
}

/// A refused record: which bound was reached, and when a record counted against it expires
/// (the earliest time the same call can be admitted, unless records are removed sooner).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Full {
    /// The kind of record refused.
    pub kind: Kind,
    /// The count that is reached.
    pub scope: Scope,
    /// That count's bound, in records.
    pub bound: usize,
    /// Until the oldest record counted against the bound expires (at least 1 ms).
    pub retry_after: Duration,
}

impl Full {
    /// A refusal of a `kind` record: `scope`'s `bound` is reached until `retry_after`.
    pub fn new(kind: Kind, scope: Scope, bound: usize, retry_after: Duration) -> Self {
        Full { kind, scope, bound, retry_after: retry_after.max(Duration::from_millis(1)) }
    }
}

/// How many live records of one kind a store admits: in all, and per caller (each at least 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacity {
    /// Records of every caller.
    pub total: usize,
    /// Records of one caller.
    pub per_caller: usize,
}

/// The bounds of a store, per [`Kind`]. The default: 10 000 pending actions (1 000 per
/// caller), 10 000 idempotency records (1 000 per caller), 10 000 task records (1 000 per
/// caller), 10 000 other keys.
///
/// A call without a verified identity is counted under its peer address over HTTP
/// (`peer:<address>`), else under [`ANONYMOUS`](crate::context::ANONYMOUS) (over stdio, or
/// through [`Toolbox::call`](crate::Toolbox::call)), so the per-caller bounds are what one
/// address holds on a server without authentication: 1 000 actions waiting for approval and
/// 1 000 idempotency keys (each kept 24 hours) by default. Raise them with
/// [`MemoryStore::with_limits`](super::MemoryStore::with_limits) or [`RedisStore::with_limits`](super::RedisStore::with_limits) (feature `redis`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// [`Kind::PendingAction`].
    pub pending_actions: Capacity,
    /// [`Kind::IdempotencyRecord`].
    pub idempotency_records: Capacity,
    /// [`Kind::Task`]: MCP tasks and each caller's index of them (one record per caller).
    pub task_records: Capacity,
    /// [`Kind::Other`]: keys written without admission (counted in all only).
    pub other: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            pending_actions: Capacity { total: 10_000, per_caller: 1_000 },
            idempotency_records: Capacity { total: 10_000, per_caller: 1_000 },
            task_records: Capacity { total: 10_000, per_caller: 1_000 },
            other: 10_000,
        }
    }
}

impl Limits {
    /// `n` records of each kind, in all and per caller.
    pub fn uniform(n: usize) -> Self {
        let b = Capacity { total: n, per_caller: n };
        Limits { pending_actions: b, idempotency_records: b, task_records: b, other: n }
    }

    /// These limits with `bound` for pending actions.
    #[must_use]
    pub fn with_pending_actions(mut self, bound: Capacity) -> Self {
        self.pending_actions = bound;
        self
    }

    /// These limits with `bound` for idempotency records.
    #[must_use]
    pub fn with_idempotency_records(mut self, bound: Capacity) -> Self {
        self.idempotency_records = bound;
        self
    }

    /// These limits with `bound` for task records (MCP tasks and each caller's index of
    /// them: a caller holding `n` tasks holds `n + 1` records).
    #[must_use]
    pub fn with_task_records(mut self, bound: Capacity) -> Self {
        self.task_records = bound;
        self
    }

    /// The bound of `kind`, each count at least 1.
    pub fn of(&self, kind: Kind) -> Capacity {
        let b = match kind {
            Kind::PendingAction => self.pending_actions,
            Kind::IdempotencyRecord => self.idempotency_records,
            Kind::Task => self.task_records,
            Kind::Other => Capacity { total: self.other, per_caller: self.other },
        };
        Capacity { total: b.total.max(1), per_caller: b.per_caller.max(1) }
    }
}

/// What a new record counts against: its kind and its caller's quota key
/// ([`Caller::quota_key`](crate::Caller::quota_key): `peer:<address>` for an anonymous HTTP call,
/// [`ANONYMOUS`](crate::context::ANONYMOUS) for one without an address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admission<'a> {
    /// The kind of record.
    pub kind: Kind,
    /// The caller's quota key.
    pub caller: &'a str,
}
