//! Where state that outlives one call waits: pending actions waiting for approval,
//! idempotency records, MCP tasks and rate-limit counts. One small async key-value trait,
//! [`Store`], with an in-memory default ([`MemoryStore`]) and, behind feature `redis`,
//! [`RedisStore`] for servers run as several replicas behind a load balancer.
//!
//! Every value is JSON text under a string key, each with a time to live. What envelope keeps:
//!
//! | key | value | written with |
//! |---|---|---|
//! | `envelope:pending:<id>` | the pending action (tool, validated arguments, preview), then the mark that it was decided | [`Store::admit`] as a [`Kind::PendingAction`], then [`Store::replace_if`]: of every replica deciding at once, one wins |
//! | `envelope:idem:<tool>:<caller>:<key>` | the claim of a running call, then the recorded envelope | [`Store::admit`] as a [`Kind::IdempotencyRecord`] (Redis `SET NX`), then [`Store::replace_if`] with the claim's own text |
//! | `envelope:task:<caller digest>:<task id>` | an MCP task: its status, timestamps, result or error, pending input requests (`crate::mcp::tasks`, feature `rmcp`) | [`Store::admit`] as a [`Kind::Task`], then [`Store::replace_if`] as it changes |
//! | `envelope:tasks:<caller>` | the caller's live task ids with their expiry, at most the server's bound of them | [`Store::admit`] as a [`Kind::Task`], then [`Store::replace_if`] |
//! | `envelope:rate:<tool>:<caller>` | a caller's rate-limit count: its GCRA theoretical arrival time (`*` for the toolbox's own limit; see [`crate::spec::rate`]) | [`Store::rate`], atomic; expires by itself |
//!
//! # Bounds and admission
//! A record is **admitted** ([`Store::admit`]) for one caller ([`Admission`]): every kind has
//! its own [`Capacity`], in all and per caller ([`Limits`]), so previews cannot crowd out
//! idempotency records nor one caller the others. When a bound is reached the new record is
//! refused ([`StoreError::as_full`], a [`Full`] saying which bound and when the caller's own
//! oldest record counted against it expires, 1 s for a caller holding none), and the call
//! answers a `RATE_LIMITED` refusal with `hints.retry_after_ms`.
//!
//! One exception keeps the bound in all from being anyone's to fill: when the idempotency
//! records are full in all, a newcomer's record takes the place of the oldest *settled* record
//! (its envelope recorded, `"state":"done"`) of the caller holding most among the callers of the 256
//! records nearest their expiry, if that caller holds more than the newcomer. So 10 000 callers
//! holding one record each leave room for the next one, and a caller that holds many gives way
//! first. A displaced key is no longer replayed: a retry with it runs again. A pending action
//! and a running claim are never dropped before their time to live.
//!
//! The caller is the key a quota is counted under: the verified identity
//! ([`Caller::quota_key`](crate::Caller::quota_key), say `sub:alice@acme`), never a tenant only
//! a request header named; a call without a verified identity counts under the address its
//! request came from (`peer:<address>`, over the HTTP surfaces), else under
//! [`ANONYMOUS`](crate::context::ANONYMOUS), so callers without an address share one
//! per-caller bound.
//!
//! A store that fails answers [`StoreError`]; the call then answers a `BACKEND_ERROR` envelope,
//! never a panic.

// What a record counts against: its kind, its caller, the bounds of each.
mod admission;
// The default store: this process's memory, bounded in count and in age.
mod memory;
// The store in Redis, shared by replicas (feature `redis`).
#[cfg(feature = "redis")]
mod redis;
#[cfg(test)]
mod tests;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use crate::spec::rate::{RateCheck, RateLimit};

/// A boxed future of a store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

#[cfg(feature = "redis")]
pub use self::redis::{DEFAULT_DEADLINE, RedisStore};
pub use admission::{Admission, Capacity, Full, Kind, Limits, Scope};
pub use memory::MemoryStore;

/// Whether `value`, an idempotency record's text, is settled: its envelope recorded
/// (`"state":"done"`, as the guard writes it), not a running call's claim (which holds only
/// its state, fingerprint and nonce, so it never contains those characters).
pub(crate) fn settled(value: &str) -> bool {
    value.contains(r#""state":"done""#)
}

/// A store operation did not happen: it failed (the connection, the server, no answer within
/// the deadline), or a bound refused a new record ([`as_full`](Self::as_full)). A failure's text
/// goes to the server's log, never to the caller: the caller gets a `BACKEND_ERROR` envelope
/// naming the operation, or for a full bound a `RATE_LIMITED` refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(Repr);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Repr {
    Failed(String),
    Full(Full),
}

impl StoreError {
    /// A failure described by `detail` (for logs; never a secret, such as a password in a URL).
    pub fn new(detail: impl Into<String>) -> Self {
        StoreError(Repr::Failed(detail.into()))
    }

    /// A new record refused because `full` is reached.
    pub fn full(full: Full) -> Self {
        StoreError(Repr::Full(full))
    }

    /// The bound that refused the record, when that is what happened.
    pub fn as_full(&self) -> Option<&Full> {
        match &self.0 {
            Repr::Full(f) => Some(f),
            Repr::Failed(_) => None,
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Failed(detail) => write!(f, "store failed: {detail}"),
            Repr::Full(full) => write!(
                f,
                "store full: {} {} {}, the bound; room for this caller in {} ms",
                full.bound,
                full.kind.plural(),
                match full.scope {
                    Scope::Caller => "of this caller",
                    Scope::Store => "in all",
                },
                full.retry_after.as_millis()
            ),
        }
    }
}

impl std::error::Error for StoreError {}

/// The storage behind confirmation and idempotency keys: string keys, JSON text values, each
/// with a time to live. Shared by every replica that must see the same approvals and keys.
///
/// Implement it for another backend with the same guarantees: [`put_new`](Store::put_new),
/// [`admit`](Store::admit) and [`replace_if`](Store::replace_if) are atomic (of any number of
/// concurrent callers on any replica, exactly one wins), an expired key reads as absent, no
/// record is evicted before its time to live, and every operation answers within a bounded time
/// (a deadline of its own: a call waits on it).
pub trait Store: Send + Sync + fmt::Debug + 'static {
    /// Sets `key` to `value` for `ttl` only if `key` is absent; `true` when this call set it.
    /// Counted as [`Kind::Other`]. Redis: `SET key value NX PX ttl`.
    fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool>;
    /// Sets `key` to `value` for `ttl`, replacing any value (an admitted record stays counted
    /// as it was). Redis: `SET key value PX ttl`.
    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()>;
    /// The value under `key`, if present and not expired. Redis: `GET key`.
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>>;
    /// Removes `key` (absent is fine). Redis: `DEL key`.
    fn remove<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()>;

    /// Sets `key` to `value` for `ttl` only if `key` is absent, counted against `who`'s bound
    /// of its kind: `Ok(true)` when this call set it, `Ok(false)` when the key is taken, and a
    /// [`StoreError::full`] when the bound is reached (nothing is evicted to make room).
    ///
    /// The default is [`put_new`](Store::put_new), for a backend without bounds.
    fn admit<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration, who: Admission<'a>) -> StoreFuture<'a, bool> {
        let _ = who;
        self.put_new(key, value, ttl)
    }

    /// Compare and set: if `key` holds exactly `expected`, sets it to `new` for `ttl` (`None`:
    /// removes it); `true` when it did. An admitted record stays counted as it was. Atomic: of
    /// concurrent calls expecting the same value, one succeeds. Redis: a script (`EVAL`) doing
    /// `GET`, then `SET key new PX ttl` or `DEL key`.
    fn replace_if<'a>(
        &'a self,
        key: &'a str,
        expected: &'a str,
        new: Option<&'a str>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool>;

    /// Whether every replica that uses this store sees the same records (Redis: yes; this
    /// process's memory: no). A toolbox that says it runs replicas
    /// ([`Toolbox::with_replicas`](crate::Toolbox::with_replicas)) over a store that is not
    /// shared warns in the replies that depend on it. Default `true`.
    fn is_shared(&self) -> bool {
        true
    }

    /// Counts one call against `limit` under `key` (GCRA, see [`crate::spec::rate`]): admitted and
    /// counted ([`RateCheck::Allowed`]), or refused and not counted, with the wait
    /// ([`RateCheck::Limited`]). Atomic: of any number of concurrent calls on any replica, no
    /// more than the limit are admitted.
    ///
    /// The default is a compare-and-set loop over [`get`](Store::get),
    /// [`put_new`](Store::put_new) and [`replace_if`](Store::replace_if) on this process's wall
    /// clock (replicas' clocks should agree within a small part of the emission interval);
    /// [`MemoryStore`] counts under its lock, `RedisStore` in one script on Redis's clock.
    fn rate<'a>(&'a self, key: &'a str, limit: RateLimit) -> StoreFuture<'a, RateCheck> {
        Box::pin(async move {
            for _ in 0..16 {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
                let old = self.get(key).await?;
                let tat = old.as_deref().and_then(|v| v.strip_prefix("gcra:")?.parse::<u64>().ok()).unwrap_or(0);
                let new_tat = match crate::spec::rate::gcra(tat, now, limit) {
                    Ok(t) => t,
                    Err(wait) => return Ok(RateCheck::Limited { retry_after: micros(wait) }),
                };
                let text = format!("gcra:{new_tat}");
                let ttl = micros(new_tat - now);
                let set = match &old {
                    None => self.put_new(key, &text, ttl).await?,
                    Some(old) => self.replace_if(key, old, Some(&text), ttl).await?,
                };
                if set {
                    return Ok(RateCheck::Allowed);
                }
            }
            Err(StoreError::new(format!("rate limit of {key}: 16 concurrent updates in a row")))
        })
    }
}

/// `us` microseconds, at least 1 millisecond.
fn micros(us: u64) -> Duration {
    Duration::from_micros(us).max(Duration::from_millis(1))
}
