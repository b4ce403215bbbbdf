//! Where state that outlives one call waits: pending actions waiting for approval and
//! idempotency records. One small async key-value trait, [`Store`], with an in-memory default
//! ([`MemoryStore`]) and, behind feature `redis`, [`RedisStore`] for servers run as several
//! replicas behind a load balancer.
//!
//! Every value is JSON text under a string key, each with a time to live. What envelope keeps:
//!
//! | key | value | written with |
//! |---|---|---|
//! | `envelope:pending:<id>` | the pending action (tool, validated arguments, preview), then the mark that it was decided | [`Store::admit`] as a [`Kind::PendingAction`], then [`Store::replace_if`]: of every replica deciding at once, one wins |
//! | `envelope:idem:<tool>:<caller>:<key>` | the claim of a running call, then the recorded envelope | [`Store::admit`] as a [`Kind::IdempotencyRecord`] (Redis `SET NX`), then [`Store::replace_if`] with the claim's own text |
//! | `envelope:rate:<tool>:<caller>` | a caller's rate-limit count: its GCRA theoretical arrival time (`*` for the toolbox's own limit; see [`crate::spec::rate`]) | [`Store::rate`], atomic; expires by itself |
//!
//! # Bounds and admission
//! A record is **admitted** ([`Store::admit`]) for one caller ([`Admission`]): every kind has
//! its own [`Capacity`], in all and per caller ([`Limits`]), so previews cannot crowd out
//! idempotency records nor one caller the others. No record is ever evicted before its time to
//! live: when a bound is reached the new record is refused ([`StoreError::as_full`], a
//! [`Full`] saying which bound and when the oldest record counted against it expires), and the
//! call answers a `RATE_LIMITED` refusal with `hints.retry_after_ms`.
//!
//! The caller is a key a quota is counted under. There is no verified caller yet: every call
//! is counted under [`ANONYMOUS`], so callers share the per-caller bound. Once calls carry a
//! verified identity, its key (the subject and tenant, say `sub:alice@acme`) takes its place
//! and each caller gets its own share.
//!
//! A store that fails answers [`StoreError`]; the call then answers a `BACKEND_ERROR` envelope,
//! never a panic.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::spec::rate::{RateCheck, RateLimit};

/// A boxed future of a store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

pub use crate::read::context::ANONYMOUS;

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
    /// Any other key, written with [`Store::put_new`] or [`Store::put`] without admission.
    Other,
}

impl Kind {
    /// The kind's name in a log line.
    fn plural(self) -> &'static str {
        match self {
            Kind::PendingAction => "pending actions",
            Kind::IdempotencyRecord => "idempotency records",
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
/// caller), 10 000 idempotency records (1 000 per caller), 10 000 other keys.
///
/// Since every call is counted under [`ANONYMOUS`] until calls carry a verified identity, the
/// per-caller bounds are what a server without one holds: 1 000 actions waiting for approval
/// and 1 000 idempotency keys (each kept 24 hours) by default. Raise them with
/// [`MemoryStore::with_limits`] or [`RedisStore::with_limits`] (feature `redis`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// [`Kind::PendingAction`].
    pub pending_actions: Capacity,
    /// [`Kind::IdempotencyRecord`].
    pub idempotency_records: Capacity,
    /// [`Kind::Other`]: keys written without admission (counted in all only).
    pub other: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            pending_actions: Capacity { total: 10_000, per_caller: 1_000 },
            idempotency_records: Capacity { total: 10_000, per_caller: 1_000 },
            other: 10_000,
        }
    }
}

impl Limits {
    /// `n` records of each kind, in all and per caller.
    pub fn uniform(n: usize) -> Self {
        let b = Capacity { total: n, per_caller: n };
        Limits { pending_actions: b, idempotency_records: b, other: n }
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

    /// The bound of `kind`, each count at least 1.
    pub fn of(&self, kind: Kind) -> Capacity {
        let b = match kind {
            Kind::PendingAction => self.pending_actions,
            Kind::IdempotencyRecord => self.idempotency_records,
            Kind::Other => Capacity { total: self.other, per_caller: self.other },
        };
        Capacity { total: b.total.max(1), per_caller: b.per_caller.max(1) }
    }
}

/// What a new record counts against: its kind and its caller's key ([`ANONYMOUS`] for a call
/// without a verified identity).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admission<'a> {
    /// The kind of record.
    pub kind: Kind,
    /// The caller's quota key.
    pub caller: &'a str,
}

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

/// The default store: in this process's memory, bounded in count and in age.
///
/// - At most [`Limits`] records of each kind, in all and per caller: by default 10 000 pending
///   actions (1 000 per caller), 10 000 idempotency records (1 000 per caller) and 10 000 other
///   keys. A new record past a bound is refused ([`StoreError::as_full`]); no record is evicted
///   before its time to live, whatever is written after it.
/// - No key lives longer than `max_age` (24 hours by default), whatever time to live it was
///   written with. Expired keys are dropped as writes come (each write costs O(log n)).
///
/// Approvals and keys held here are seen by this process only: servers run as several replicas
/// need a shared store ([`RedisStore`] with feature `redis`).
///
/// ```
/// use std::time::Duration;
/// use envelope_core::call::guard::store::{Admission, Kind, MemoryStore, Store};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryStore::new(2, Duration::from_secs(60));
/// let ttl = Duration::from_secs(30);
/// let alice = Admission { kind: Kind::PendingAction, caller: "alice" };
/// assert!(store.admit("a", "1", ttl, alice).await.unwrap());
/// assert!(!store.admit("a", "2", ttl, alice).await.unwrap()); // taken: single use
/// assert!(store.admit("b", "2", ttl, alice).await.unwrap());
/// let full = store.admit("c", "3", ttl, alice).await.unwrap_err(); // full: refused, not evicted
/// assert_eq!(full.as_full().unwrap().bound, 2);
/// assert_eq!(store.get("a").await.unwrap().as_deref(), Some("1"));
/// // Another kind has a bound of its own.
/// let key = Admission { kind: Kind::IdempotencyRecord, caller: "alice" };
/// assert!(store.admit("k", "running", ttl, key).await.unwrap());
/// # });
/// ```
#[derive(Debug)]
pub struct MemoryStore {
    limits: Limits,
    max_age: Duration,
    inner: Mutex<Entries>,
}

/// The entries, and for each kind its live keys by expiry, in all and per caller.
#[derive(Debug, Default)]
struct Entries {
    map: HashMap<Arc<str>, Entry>,
    parts: [Part; 3],
}

#[derive(Debug)]
struct Entry {
    value: String,
    expires: Instant,
    kind: Kind,
    caller: Option<Arc<str>>,
}

#[derive(Debug, Default)]
struct Part {
    by_expiry: BTreeSet<(Instant, Arc<str>)>,
    callers: HashMap<Arc<str>, BTreeSet<(Instant, Arc<str>)>>,
}

/// The delay a caller holding no record of a kind is given when the store's bound of that
/// kind is reached in all: 1 s.
const STORE_FULL_RETRY: Duration = Duration::from_secs(1);

/// How many expired entries of each kind a write drops, at most (beyond them, only at a bound).
const PURGE_BUDGET: usize = 64;

fn part_of(kind: Kind) -> usize {
    match kind {
        Kind::PendingAction => 0,
        Kind::IdempotencyRecord => 1,
        Kind::Other => 2,
    }
}

impl Entries {
    /// Drops expired entries, the front of each kind's expiry order, at most `budget` of each
    /// kind: a write pays for a few, so none pays for a flood that expires at once.
    fn purge(&mut self, now: Instant, budget: usize) {
        for i in 0..self.parts.len() {
            self.purge_part(i, now, budget);
        }
    }

    fn purge_part(&mut self, i: usize, now: Instant, budget: usize) {
        for _ in 0..budget {
            match self.parts[i].by_expiry.first() {
                Some((at, key)) if *at <= now => {
                    let key = key.clone();
                    self.unlink(&key);
                }
                _ => break,
            }
        }
    }

    /// Whether `key` holds a live entry; an expired one is dropped.
    fn live(&mut self, key: &str, now: Instant) -> bool {
        match self.map.get(key) {
            Some(e) if e.expires > now => true,
            Some(_) => {
                self.unlink(key);
                false
            }
            None => false,
        }
    }

    fn unlink(&mut self, key: &str) -> Option<Entry> {
        let (key, entry) = self.map.remove_entry(key)?;
        let part = &mut self.parts[part_of(entry.kind)];
        let slot = (entry.expires, key);
        part.by_expiry.remove(&slot);
        if let Some(caller) = &entry.caller
            && let Some(set) = part.callers.get_mut(caller)
        {
            set.remove(&slot);
            if set.is_empty() {
                part.callers.remove(caller);
            }
        }
        Some(entry)
    }

    fn link(&mut self, key: Arc<str>, entry: Entry) {
        let part = &mut self.parts[part_of(entry.kind)];
        part.by_expiry.insert((entry.expires, key.clone()));
        if let Some(caller) = &entry.caller {
            part.callers.entry(caller.clone()).or_default().insert((entry.expires, key.clone()));
        }
        self.map.insert(key, entry);
    }

    /// Whether a new `kind` record of `caller` would pass a bound, and if so which.
    fn refused(&self, kind: Kind, caller: Option<&str>, limits: &Limits, now: Instant) -> Option<Full> {
        let part = &self.parts[part_of(kind)];
        let bound = limits.of(kind);
        let wait = |set: &BTreeSet<(Instant, Arc<str>)>| {
            set.first().map_or(Duration::ZERO, |(at, _)| at.saturating_duration_since(now))
        };
        let own = caller.and_then(|c| part.callers.get(c));
        if let Some(set) = own
            && set.len() >= bound.per_caller
        {
            return Some(Full::new(kind, Scope::Caller, bound.per_caller, wait(set)));
        }
        // Full in all: the caller is told when its own oldest record frees room, or, holding
        // none, to try again shortly (never when another caller's record expires, a day away).
        let delay = own.map_or(STORE_FULL_RETRY, wait);
        (part.by_expiry.len() >= bound.total).then(|| Full::new(kind, Scope::Store, bound.total, delay))
    }

    /// Inserts a new entry, unless a bound refuses it.
    fn insert(
        &mut self,
        key: &str,
        value: &str,
        expires: Instant,
        who: Option<Admission<'_>>,
        limits: &Limits,
        now: Instant,
    ) -> Result<(), StoreError> {
        let (kind, caller) = who.map_or((Kind::Other, None), |w| (w.kind, Some(w.caller)));
        if self.refused(kind, caller, limits, now).is_some() {
            // Expired entries left by the purge's budget count no more.
            self.purge_part(part_of(kind), now, usize::MAX);
            if let Some(full) = self.refused(kind, caller, limits, now) {
                return Err(StoreError::full(full));
            }
        }
        // One allocation per caller while it holds records, shared by its entries.
        let caller = caller.map(|c| {
            self.parts[part_of(kind)].callers.get_key_value(c).map_or_else(|| Arc::from(c), |(k, _)| k.clone())
        });
        self.link(Arc::from(key), Entry { value: value.to_owned(), expires, kind, caller });
        Ok(())
    }

    /// Drops the rate limiter's key (value `gcra`, a GCRA theoretical arrival time as its
    /// expiry) nearest its end, if any: its caller's limit is the one nearest to being no limit.
    fn forget_nearest_rate(&mut self, now: Instant) {
        let part = &self.parts[part_of(Kind::Other)];
        let nearest = part
            .by_expiry
            .iter()
            .filter(|(at, _)| *at > now)
            .find(|(_, key)| self.map.get(key).is_some_and(|e| e.value == "gcra"))
            .map(|(_, key)| key.clone());
        if let Some(key) = nearest {
            self.unlink(&key);
        }
    }

    /// Sets the value and expiry of a live entry, keeping its kind and caller.
    fn rewrite(&mut self, key: &str, value: &str, expires: Instant) {
        if let Some((k, _)) = self.map.get_key_value(key) {
            let k = k.clone();
            if let Some(mut entry) = self.unlink(key) {
                value.clone_into(&mut entry.value);
                entry.expires = expires;
                self.link(k, entry);
            }
        }
    }
}

impl Default for MemoryStore {
    /// [`Limits::default`], none older than 24 hours.
    fn default() -> Self {
        MemoryStore::new(10_000, Duration::from_secs(24 * 60 * 60)).with_limits(Limits::default())
    }
}

impl MemoryStore {
    /// A store of at most `capacity` records of each kind (at least 1; in all and per caller:
    /// [`Limits::uniform`]), none kept longer than `max_age`.
    pub fn new(capacity: usize, max_age: Duration) -> Self {
        MemoryStore { limits: Limits::uniform(capacity), max_age, inner: Mutex::new(Entries::default()) }
    }

    /// This store with `limits` instead.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Its limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// How many keys it holds now (expired ones included until the next write drops them).
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // A panic while holding the lock cannot leave the maps half-written in a way that
        // matters more than losing the store: keep serving.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn expiry(&self, now: Instant, ttl: Duration) -> Instant {
        now.checked_add(ttl.min(self.max_age)).unwrap_or(now)
    }

    /// The write of `key` under the lock, with expired entries dropped first.
    fn write<T>(&self, f: impl FnOnce(&mut Entries, Instant) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let now = Instant::now();
        let mut e = self.lock();
        e.purge(now, PURGE_BUDGET);
        f(&mut e, now)
    }
}

fn done<'a, T: Send + 'a>(v: Result<T, StoreError>) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(v))
}

impl Store for MemoryStore {
    fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        done(self.write(|e, now| {
            if e.live(key, now) {
                return Ok(false);
            }
            e.insert(key, value, self.expiry(now, ttl), None, &self.limits, now).map(|()| true)
        }))
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        done(self.write(|e, now| {
            let expires = self.expiry(now, ttl);
            if e.live(key, now) {
                e.rewrite(key, value, expires);
                return Ok(());
            }
            e.insert(key, value, expires, None, &self.limits, now)
        }))
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        let now = Instant::now();
        let v = self.lock().map.get(key).filter(|e| e.expires > now).map(|e| e.value.clone());
        done(Ok(v))
    }

    fn remove<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
        self.lock().unlink(key);
        done(Ok(()))
    }

    fn admit<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration, who: Admission<'a>) -> StoreFuture<'a, bool> {
        done(self.write(|e, now| {
            if e.live(key, now) {
                return Ok(false);
            }
            e.insert(key, value, self.expiry(now, ttl), Some(who), &self.limits, now).map(|()| true)
        }))
    }

    fn is_shared(&self) -> bool {
        false
    }

    /// The caller's theoretical arrival time is the expiry of its key (Kind::Other): one lookup
    /// and one write under the lock; a refused call writes nothing.
    fn rate<'a>(&'a self, key: &'a str, limit: RateLimit) -> StoreFuture<'a, RateCheck> {
        done(self.write(|e, now| {
            let us = |at: Instant| u64::try_from(at.saturating_duration_since(now).as_micros()).unwrap_or(u64::MAX);
            // Times from `now` on: `now` is 0, the TAT its distance ahead.
            let live = e.live(key, now);
            let tat = if live { e.map.get(key).map_or(0, |entry| us(entry.expires)) } else { 0 };
            match crate::spec::rate::gcra(tat, 0, limit) {
                Err(wait) => Ok(RateCheck::Limited { retry_after: micros(wait) }),
                Ok(new_tat) => {
                    let expires = now.checked_add(Duration::from_micros(new_tat)).unwrap_or(now);
                    if live {
                        e.rewrite(key, "gcra", expires);
                    } else if e.insert(key, "gcra", expires, None, &self.limits, now).is_err() {
                        // Every key of the bound is in force (expired ones, whose time has
                        // passed, were dropped): the limit nearest its end is forgotten for
                        // this caller's, never this caller refused within its limit.
                        e.forget_nearest_rate(now);
                        e.insert(key, "gcra", expires, None, &self.limits, now)?;
                    }
                    Ok(RateCheck::Allowed)
                }
            }
        }))
    }

    fn replace_if<'a>(
        &'a self,
        key: &'a str,
        expected: &'a str,
        new: Option<&'a str>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        done(self.write(|e, now| {
            if !e.live(key, now) || e.map.get(key).is_some_and(|entry| entry.value != expected) {
                return Ok(false);
            }
            match new {
                Some(value) => e.rewrite(key, value, self.expiry(now, ttl)),
                None => drop(e.unlink(key)),
            }
            Ok(true)
        }))
    }
}

#[cfg(feature = "redis")]
pub use self::redis_store::{DEFAULT_DEADLINE, RedisStore};

#[cfg(feature = "redis")]
mod redis_store {
    use std::time::Duration;

    use redis::aio::{ConnectionManager, ConnectionManagerConfig};

    use super::{Admission, Full, Kind, Limits, RateCheck, RateLimit, Scope, Store, StoreError, StoreFuture, micros};

    /// The default deadline of one store call on Redis: 1 second.
    pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(1);

    /// A [`Store`] in Redis (feature `redis`): every replica that connects to the same Redis
    /// and holds the same secret sees the same approvals and idempotency keys. Single use is
    /// atomic in Redis (`SET NX`, and scripts run with `EVAL`); expiry is Redis's own (`PX`).
    ///
    /// **Deadline.** Every store call answers within one deadline ([`DEFAULT_DEADLINE`], 1 s;
    /// [`connect_with_deadline`](Self::connect_with_deadline)): Redis down, unreachable or
    /// stalled, the call answers a [`StoreError`] (the tool call: `BACKEND_ERROR`) once it
    /// passes. Under it, the connection (the `redis` crate's `ConnectionManager`) waits at most
    /// the deadline for an answer and half of it for a connection, and reconnects once, 50 ms
    /// to a quarter of the deadline later, instead of the crate's default of 6 reconnection
    /// attempts over about 6 s, which a call waited for (9.45 s measured per call with Redis
    /// down).
    ///
    /// **Bounds.** Admitted records ([`Store::admit`]) are counted per kind, in all and per
    /// caller, as [`Limits`] say (the defaults of [`Limits::default`]): in sorted sets
    /// `envelope:quota:<kind>` and `envelope:quota:<kind>:<caller hash>` (the caller's key is
    /// stored only as the first 16 bytes of its SHA-256), scored by expiry; a record past a
    /// bound is refused, never evicted. Each admitted value is stored after a one-line header
    /// naming its kind and caller. Keys written with [`Store::put_new`] or [`Store::put`]
    /// without admission are not counted here (envelope writes none). Run Redis with
    /// `maxmemory-policy noeviction` (its default): an evicting policy would drop approvals and
    /// keys before their time.
    ///
    /// Keys are prefixed (nothing by default; see [`with_prefix`](Self::with_prefix)) so
    /// several servers can share one Redis.
    #[derive(Clone)]
    pub struct RedisStore {
        conn: ConnectionManager,
        prefix: String,
        deadline: Duration,
        limits: Limits,
    }

    impl std::fmt::Debug for RedisStore {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("RedisStore")
                .field("prefix", &self.prefix)
                .field("deadline", &self.deadline)
                .field("limits", &self.limits)
                .finish_non_exhaustive()
        }
    }

    /// `url` without the password of its user information (`redis://user:***@host/`), for
    /// logs.
    fn redacted(url: &str) -> String {
        match (url.find("://"), url.rfind('@')) {
            (Some(scheme), Some(at)) if at > scheme => {
                let user = &url[scheme + 3..at];
                let name = user.split(':').next().unwrap_or("");
                format!("{}{name}:***{}", &url[..scheme + 3], &url[at..])
            }
            _ => url.to_owned(),
        }
    }

    impl RedisStore {
        /// Connects to the Redis at `url` (`redis://127.0.0.1:6379/0`; `rediss://` is not
        /// built in), with a deadline of [`DEFAULT_DEADLINE`] (1 s) per store call. Needs a
        /// tokio runtime.
        ///
        /// # Errors
        /// When the URL does not parse or the server cannot be reached within the deadline.
        pub async fn connect(url: &str) -> Result<Self, StoreError> {
            RedisStore::connect_with_deadline(url, DEFAULT_DEADLINE).await
        }

        /// Connects to the Redis at `url`, each store call (and this connection) bounded by
        /// `deadline` (at least 10 ms): a call Redis has not answered by then answers a
        /// [`StoreError`].
        ///
        /// # Errors
        /// When the URL does not parse or the server cannot be reached within `deadline`.
        pub async fn connect_with_deadline(url: &str, deadline: Duration) -> Result<Self, StoreError> {
            let deadline = deadline.max(Duration::from_millis(10));
            let shown = redacted(url);
            let client = redis::Client::open(url).map_err(|e| StoreError::new(format!("opening {shown}: {e}")))?;
            let config = ConnectionManagerConfig::new()
                .set_number_of_retries(1)
                .set_min_delay(Duration::from_millis(50).min(deadline / 4))
                .set_max_delay(deadline / 4)
                .set_connection_timeout(Some(deadline / 2))
                .set_response_timeout(Some(deadline));
            let conn = match tokio::time::timeout(deadline, ConnectionManager::new_with_config(client, config)).await {
                Ok(Ok(conn)) => conn,
                Ok(Err(e)) => return Err(StoreError::new(format!("connecting to {shown}: {e}"))),
                Err(_) => {
                    return Err(StoreError::new(format!(
                        "connecting to {shown}: no connection within {} ms",
                        deadline.as_millis()
                    )));
                }
            };
            Ok(RedisStore { conn, prefix: String::new(), deadline, limits: Limits::default() })
        }

        /// Prefixes every key with `prefix` (`"billing:"`), besides envelope's own `envelope:`.
        #[must_use]
        pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
            self.prefix = prefix.into();
            self
        }

        /// Counts admitted records against `limits` instead of [`Limits::default`]. Replicas
        /// sharing a Redis should share their limits.
        #[must_use]
        pub fn with_limits(mut self, limits: Limits) -> Self {
            self.limits = limits;
            self
        }

        /// The deadline of one store call.
        pub fn deadline(&self) -> Duration {
            self.deadline
        }

        fn key(&self, key: &str) -> String {
            format!("{}{key}", self.prefix)
        }

        /// Appends `record` to the stream `stream` (prefixed), trimmed to about `max_len`
        /// entries: `XADD <stream> MAXLEN ~ <max_len> * record <record>`, within the deadline.
        pub(crate) async fn xadd(&self, stream: &str, max_len: usize, record: &str) -> Result<(), StoreError> {
            let mut cmd = redis::cmd("XADD");
            cmd.arg(self.key(stream)).arg("MAXLEN").arg("~").arg(max_len).arg("*").arg("record").arg(record);
            let _: String = self.run("XADD", &cmd).await?;
            Ok(())
        }

        /// Runs `cmd` within the deadline.
        async fn run<T: redis::FromRedisValue>(&self, op: &str, cmd: &redis::Cmd) -> Result<T, StoreError> {
            let mut conn = self.conn.clone();
            match tokio::time::timeout(self.deadline, cmd.query_async::<T>(&mut conn)).await {
                Ok(Ok(v)) => Ok(v),
                Ok(Err(e)) => Err(StoreError::new(format!("redis {op}: {e}"))),
                Err(_) => {
                    Err(StoreError::new(format!("redis {op}: no answer within {} ms", self.deadline.as_millis())))
                }
            }
        }
    }

    fn millis(ttl: Duration) -> u64 {
        u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
    }

    fn class(kind: Kind) -> &'static str {
        match kind {
            Kind::PendingAction => "pending",
            Kind::IdempotencyRecord => "idem",
            Kind::Other => "other",
        }
    }

    /// What each script shares: Redis's clock, the header of a stored value (`<kind>:<caller
    /// hash>`, empty for a key written without admission) and the sorted sets counting it.
    const LIB: &str = r"
if redis.replicate_commands then redis.replicate_commands() end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function split(v)
  local nl = string.find(v, '\n', 1, true)
  if not nl then return '', v end
  return string.sub(v, 1, nl - 1), string.sub(v, nl + 1)
end
local function counted(prefix, head)
  local kind, owner = string.match(head, '^(%a+):(%x+)$')
  if not kind then return nil end
  return prefix .. 'envelope:quota:' .. kind, prefix .. 'envelope:quota:' .. kind .. ':' .. owner
end
local function keep(k, ttl)
  if redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
end
local function count(prefix, head, member, ttl)
  local all, own = counted(prefix, head)
  if not all then return end
  if ttl then
    local at = now_ms() + ttl
    redis.call('ZADD', all, at, member)
    redis.call('ZADD', own, at, member)
    keep(all, ttl)
    keep(own, ttl)
  else
    redis.call('ZREM', all, member)
    redis.call('ZREM', own, member)
  end
end
";

    /// KEYS: the record, its kind's set, its caller's set. ARGV: header, value, ttl (ms),
    /// bound in all, bound per caller. Answers `{1, 0}` admitted, `{0, 0}` taken, `{2, ms}`
    /// the caller's bound reached, `{3, ms}` the bound in all reached, with the wait until
    /// the caller's own oldest record expires (1 s for a caller holding none).
    const ADMIT: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, 0} end
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local function wait(k)
  local first = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
  return math.max(1, math.ceil(tonumber(first[2]) - now))
end
local own = redis.call('ZCARD', KEYS[3])
if own >= tonumber(ARGV[5]) then return {2, wait(KEYS[3])} end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  if own > 0 then return {3, wait(KEYS[3])} end
  return {3, 1000}
end
local ttl = tonumber(ARGV[3])
redis.call('SET', KEYS[1], ARGV[1] .. '\n' .. ARGV[2], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
redis.call('ZADD', KEYS[3], now + ttl, KEYS[1])
keep(KEYS[2], ttl)
keep(KEYS[3], ttl)
return {1, 0}
";

    /// KEYS: the record. ARGV: value, ttl (ms), prefix.
    const PUT: &str = r"
local old = redis.call('GET', KEYS[1])
local head = ''
if old then head = split(old) end
redis.call('SET', KEYS[1], head .. '\n' .. ARGV[1], 'PX', ARGV[2])
count(ARGV[3], head, KEYS[1], tonumber(ARGV[2]))
return 1
";

    /// KEYS: the record. ARGV: expected value, `1` to set or `0` to remove, new value, ttl
    /// (ms), prefix. Answers 1 when it matched.
    const REPLACE_IF: &str = r"
local old = redis.call('GET', KEYS[1])
if not old then return 0 end
local head, body = split(old)
if body ~= ARGV[1] then return 0 end
if ARGV[2] == '1' then
  redis.call('SET', KEYS[1], head .. '\n' .. ARGV[3], 'PX', ARGV[4])
  count(ARGV[5], head, KEYS[1], tonumber(ARGV[4]))
else
  redis.call('DEL', KEYS[1])
  count(ARGV[5], head, KEYS[1], nil)
end
return 1
";

    /// KEYS: the record. ARGV: prefix.
    const REMOVE: &str = r"
local old = redis.call('GET', KEYS[1])
if not old then return 0 end
local head = split(old)
redis.call('DEL', KEYS[1])
count(ARGV[1], head, KEYS[1], nil)
return 1
";

    /// GCRA in one step, on Redis's clock, in microseconds. KEYS: the caller's count. ARGV:
    /// the emission interval and the period. Answers `{1, 0}` admitted (the TAT moved on),
    /// `{0, wait}` refused (nothing written).
    const RATE: &str = r"
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if tat < now then tat = now end
local new = tat + tonumber(ARGV[1])
local allow = new - tonumber(ARGV[2])
if now < allow then return {0, allow - now} end
redis.call('SET', KEYS[1], string.format('%.0f', new), 'PX', math.max(1, math.ceil((new - now) / 1000)))
return {1, 0}
";

    fn script(body: &str, keys: &[&str]) -> redis::Cmd {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(format!("{LIB}{body}")).arg(keys.len());
        for k in keys {
            cmd.arg(*k);
        }
        cmd
    }

    /// The value of a stored text: after its header line.
    fn body(stored: String) -> String {
        match stored.find('\n') {
            Some(i) => stored[i + 1..].to_owned(),
            None => stored,
        }
    }

    impl Store for RedisStore {
        fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
            Box::pin(async move {
                let mut cmd = redis::cmd("SET");
                cmd.arg(self.key(key)).arg(format!("\n{value}")).arg("NX").arg("PX").arg(millis(ttl));
                let set: Option<String> = self.run("SET NX", &cmd).await?;
                Ok(set.is_some())
            })
        }

        fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
            Box::pin(async move {
                let mut cmd = script(PUT, &[&self.key(key)]);
                cmd.arg(value).arg(millis(ttl)).arg(&self.prefix);
                let _: i64 = self.run("SET", &cmd).await?;
                Ok(())
            })
        }

        fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
            Box::pin(async move {
                let mut cmd = redis::cmd("GET");
                cmd.arg(self.key(key));
                let stored: Option<String> = self.run("GET", &cmd).await?;
                Ok(stored.map(body))
            })
        }

        fn remove<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
            Box::pin(async move {
                let mut cmd = script(REMOVE, &[&self.key(key)]);
                cmd.arg(&self.prefix);
                let _: i64 = self.run("DEL", &cmd).await?;
                Ok(())
            })
        }

        fn admit<'a>(
            &'a self,
            key: &'a str,
            value: &'a str,
            ttl: Duration,
            who: Admission<'a>,
        ) -> StoreFuture<'a, bool> {
            Box::pin(async move {
                let kind = class(who.kind);
                let owner = &crate::outcome::digest::sha256_hex(who.caller)[..32];
                let all = format!("{}envelope:quota:{kind}", self.prefix);
                let own = format!("{all}:{owner}");
                let bound = self.limits.of(who.kind);
                let mut cmd = script(ADMIT, &[&self.key(key), &all, &own]);
                cmd.arg(format!("{kind}:{owner}")).arg(value).arg(millis(ttl)).arg(bound.total).arg(bound.per_caller);
                let answer: Vec<i64> = self.run("SET NX (admission)", &cmd).await?;
                let wait = || Duration::from_millis(answer.get(1).copied().unwrap_or(1).try_into().unwrap_or(1));
                match answer.first() {
                    Some(1) => Ok(true),
                    Some(0) => Ok(false),
                    Some(2) => Err(StoreError::full(Full::new(who.kind, Scope::Caller, bound.per_caller, wait()))),
                    Some(3) => Err(StoreError::full(Full::new(who.kind, Scope::Store, bound.total, wait()))),
                    _ => Err(StoreError::new(format!("redis SET NX (admission): unexpected answer {answer:?}"))),
                }
            })
        }

        fn rate<'a>(&'a self, key: &'a str, limit: RateLimit) -> StoreFuture<'a, RateCheck> {
            Box::pin(async move {
                let emission = u64::try_from(limit.emission_interval().as_micros()).unwrap_or(u64::MAX).max(1);
                let period = u64::try_from(limit.period().as_micros()).unwrap_or(u64::MAX);
                let mut cmd = redis::cmd("EVAL");
                cmd.arg(RATE).arg(1).arg(self.key(key)).arg(emission).arg(period);
                let answer: Vec<i64> = self.run("rate limit (GCRA)", &cmd).await?;
                match answer.as_slice() {
                    [1, _] => Ok(RateCheck::Allowed),
                    [0, wait] => Ok(RateCheck::Limited { retry_after: micros(u64::try_from(*wait).unwrap_or(1)) }),
                    _ => Err(StoreError::new(format!("redis rate limit: unexpected answer {answer:?}"))),
                }
            })
        }

        fn replace_if<'a>(
            &'a self,
            key: &'a str,
            expected: &'a str,
            new: Option<&'a str>,
            ttl: Duration,
        ) -> StoreFuture<'a, bool> {
            Box::pin(async move {
                let mut cmd = script(REPLACE_IF, &[&self.key(key)]);
                cmd.arg(expected)
                    .arg(if new.is_some() { "1" } else { "0" })
                    .arg(new.unwrap_or(""))
                    .arg(millis(ttl))
                    .arg(&self.prefix);
                let matched: i64 = self.run("compare and set", &cmd).await?;
                Ok(matched == 1)
            })
        }
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn a_url_in_a_log_line_has_no_password() {
            assert_eq!(super::redacted("redis://:hunter2@10.0.0.1:6379/0"), "redis://:***@10.0.0.1:6379/0");
            assert_eq!(super::redacted("redis://app:hunter2@db/"), "redis://app:***@db/");
            assert_eq!(super::redacted("redis://127.0.0.1:6379/"), "redis://127.0.0.1:6379/");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<T>(f: impl Future<Output = T>) -> T {
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        let mut f = std::pin::pin!(f);
        match f.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(v) => v,
            std::task::Poll::Pending => panic!("the memory store answers at once"),
        }
    }

    const MIN: Duration = Duration::from_secs(60);

    fn pending(caller: &str) -> Admission<'_> {
        Admission { kind: Kind::PendingAction, caller }
    }

    #[test]
    fn a_full_kind_refuses_new_records_and_keeps_every_live_one() {
        let s = MemoryStore::new(3, MIN)
            .with_limits(Limits::uniform(3).with_pending_actions(Capacity { total: 3, per_caller: 2 }));
        assert!(block(s.admit("a", "a", MIN, pending("eve"))).unwrap());
        assert!(block(s.admit("b", "b", MIN, pending("eve"))).unwrap());
        let refused = block(s.admit("c", "c", MIN, pending("eve"))).unwrap_err();
        let full = refused.as_full().unwrap();
        assert_eq!((full.kind, full.scope, full.bound), (Kind::PendingAction, Scope::Caller, 2));
        assert!(full.retry_after > Duration::from_secs(59) && full.retry_after <= MIN, "{full:?}");
        // Another caller has a share of its own, up to the bound in all.
        assert!(block(s.admit("d", "d", MIN, pending("bob"))).unwrap());
        let full = block(s.admit("e", "e", MIN, pending("ann"))).unwrap_err();
        assert_eq!(full.as_full().unwrap().scope, Scope::Store);
        assert_eq!(
            full.to_string(),
            format!(
                "store full: 3 pending actions in all, the bound; room for this caller in {} ms",
                full.as_full().unwrap().retry_after.as_millis()
            )
        );
        // Holding none, ann is told to try again in a second, not when another's record
        // expires; bob, full in all too, when his own oldest record does.
        assert_eq!(full.as_full().unwrap().retry_after, STORE_FULL_RETRY);
        let bob = block(s.admit("f", "f", MIN, Admission { kind: Kind::PendingAction, caller: "bob" })).unwrap_err();
        assert_eq!(bob.as_full().unwrap().scope, Scope::Store);
        assert!(bob.as_full().unwrap().retry_after > Duration::from_secs(59), "{bob:?}");
        // Another kind is counted apart.
        let key = Admission { kind: Kind::IdempotencyRecord, caller: "eve" };
        assert!(block(s.admit("k", "k", MIN, key)).unwrap());
        for k in ["a", "b", "d", "k"] {
            assert_eq!(block(s.get(k)).unwrap().as_deref(), Some(k));
        }
        // A removed record frees its place.
        block(s.remove("a")).unwrap();
        assert!(block(s.admit("c", "c", MIN, pending("eve"))).unwrap());
    }

    /// The rate limiter's keys are bounded with the other keys, yet never refuse a caller
    /// within its limit: past the bound, the limit nearest its end is forgotten.
    #[test]
    fn the_rate_limiter_never_refuses_a_caller_within_its_limit() {
        let s = MemoryStore::new(3, MIN);
        let limit = crate::spec::rate::RateLimit::per_hour(1);
        for caller in ["a", "b", "c", "d", "e"] {
            assert_eq!(block(s.rate(caller, limit)).unwrap(), RateCheck::Allowed, "{caller}");
        }
        assert_eq!(s.len(), 3);
        // The latest callers' limits are in force.
        assert!(matches!(block(s.rate("e", limit)).unwrap(), RateCheck::Limited { .. }));
        assert!(matches!(block(s.rate("d", limit)).unwrap(), RateCheck::Limited { .. }));
        // An other key is never forgotten for a limit.
        let s = MemoryStore::new(2, MIN);
        block(s.put("kept", "v", MIN)).unwrap();
        for caller in ["a", "b", "c"] {
            assert_eq!(block(s.rate(caller, limit)).unwrap(), RateCheck::Allowed, "{caller}");
        }
        assert_eq!(block(s.get("kept")).unwrap().as_deref(), Some("v"));
    }

    #[test]
    fn an_expired_record_frees_its_place() {
        let s = MemoryStore::new(1, MIN);
        assert!(block(s.admit("k", "1", Duration::from_millis(1), pending("eve"))).unwrap());
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(block(s.get("k")).unwrap(), None);
        assert!(block(s.admit("k", "2", Duration::from_secs(5), pending("eve"))).unwrap());
        assert!(!block(s.admit("k", "3", Duration::from_secs(5), pending("eve"))).unwrap());
        assert_eq!(block(s.get("k")).unwrap().as_deref(), Some("2"));
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn max_age_caps_a_longer_time_to_live() {
        let s = MemoryStore::new(10, Duration::from_millis(1));
        block(s.put("k", "1", Duration::from_secs(3600))).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(block(s.get("k")).unwrap(), None);
    }

    #[test]
    fn keys_written_without_admission_have_a_bound_of_their_own() {
        let s = MemoryStore::new(2, MIN);
        assert!(block(s.put_new("x", "1", MIN)).unwrap());
        block(s.put("y", "2", MIN)).unwrap();
        let full = block(s.put("z", "3", MIN)).unwrap_err();
        assert_eq!(full.as_full().unwrap().kind, Kind::Other);
        // Rewriting a key is no new record.
        block(s.put("y", "2b", MIN)).unwrap();
        assert!(block(s.admit("p", "p", MIN, pending("eve"))).unwrap());
        assert_eq!(block(s.get("y")).unwrap().as_deref(), Some("2b"));
    }

    #[test]
    fn replace_if_compares_the_whole_value_and_keeps_the_count() {
        let s = MemoryStore::new(1, MIN);
        assert!(block(s.admit("k", "running:1", MIN, pending("eve"))).unwrap());
        assert!(!block(s.replace_if("k", "running:2", Some("done"), MIN)).unwrap());
        assert!(block(s.replace_if("k", "running:1", Some("running:1"), MIN * 2)).unwrap());
        assert!(block(s.replace_if("k", "running:1", Some("done"), MIN)).unwrap());
        assert_eq!(block(s.get("k")).unwrap().as_deref(), Some("done"));
        // Still counted against eve: her bound of 1 is reached.
        assert!(block(s.admit("j", "j", MIN, pending("eve"))).is_err());
        assert!(block(s.replace_if("k", "done", None, MIN)).unwrap());
        assert_eq!(block(s.get("k")).unwrap(), None);
        assert!(!block(s.replace_if("k", "done", None, MIN)).unwrap());
        assert!(block(s.admit("j", "j", MIN, pending("eve"))).unwrap());
    }

    #[test]
    fn a_write_drops_a_few_expired_entries_and_a_bound_drops_them_all() {
        let s = MemoryStore::new(2_000, MIN)
            .with_limits(Limits::uniform(2_000).with_pending_actions(Capacity { total: 2_000, per_caller: 1_000 }));
        for i in 0..1_000 {
            assert!(block(s.admit(&format!("k{i}"), "v", Duration::from_millis(300), pending("eve"))).unwrap());
        }
        assert_eq!(s.len(), 1_000);
        std::thread::sleep(Duration::from_millis(350));
        assert!(block(s.admit("x", "v", MIN, pending("bob"))).unwrap());
        assert_eq!(s.len(), 1_001 - PURGE_BUDGET);
        // Expired, a key is absent to every operation, purged or not.
        assert_eq!(block(s.get("k999")).unwrap(), None);
        assert!(!block(s.replace_if("k999", "v", None, MIN)).unwrap());
        assert!(block(s.admit("k999", "w", MIN, pending("eve"))).unwrap());
        // At the bound, the expired entries are dropped before anything is refused.
        for i in 0..998 {
            assert!(block(s.admit(&format!("n{i}"), "v", MIN, pending("eve"))).unwrap(), "{i}");
        }
        assert_eq!(s.len(), 1_000);
        assert!(block(s.admit("last", "v", MIN, pending("eve"))).unwrap());
        let full = block(s.admit("over", "v", MIN, pending("eve"))).unwrap_err();
        assert_eq!(full.as_full().unwrap().scope, Scope::Caller);
        assert_eq!(s.len(), 1_001);
    }

    #[test]
    fn ten_thousand_refusals_cost_no_memory() {
        let s = MemoryStore::new(10, MIN);
        for i in 0..10_000 {
            let _ = block(s.admit(&format!("k{i}"), "v", MIN, pending("eve")));
        }
        assert_eq!(s.len(), 10);
        assert_eq!(block(s.get("k0")).unwrap().as_deref(), Some("v"));
    }
}
