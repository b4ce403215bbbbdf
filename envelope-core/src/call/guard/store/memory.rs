//! The default store: in this process's memory, bounded in count and in age.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::{Admission, Full, Kind, Limits, Scope, Store, StoreError, StoreFuture, micros};
use crate::spec::rate::{RateCheck, RateLimit};

/// The default store: in this process's memory, bounded in count and in age.
///
/// - At most [`Limits`] records of each kind, in all and per caller: by default 10 000 pending
///   actions (1 000 per caller), 10 000 idempotency records (1 000 per caller), 10 000 MCP task
///   records (1 000 per caller) and 10 000 other keys. A new record past a bound is refused ([`StoreError::as_full`]), except that at the
///   bound in all of idempotency records a caller holding fewer takes the place of a settled
///   record of the largest holder (see [the module](super)); no pending action and no running
///   claim is ever dropped before its time to live.
/// - No key lives longer than `max_age` (24 hours by default), whatever time to live it was
///   written with. Expired keys are dropped as writes come (each write costs O(log n)).
///
/// Approvals and keys held here are seen by this process only: servers run as several replicas
/// need a shared store ([`RedisStore`](super::RedisStore) with feature `redis`).
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
    parts: [Part; 4],
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
pub(super) const STORE_FULL_RETRY: Duration = Duration::from_secs(1);

/// How many expired entries of each kind a write drops, at most (beyond them, only at a bound).
pub(super) const PURGE_BUDGET: usize = 64;

/// How many of a kind's records nearest their expiry a newcomer at the bound in all looks
/// among for the largest holder, and how many of that holder's records for a settled one.
pub(super) const DISPLACE_AMONG: usize = 256;

fn part_of(kind: Kind) -> usize {
    match kind {
        Kind::PendingAction => 0,
        Kind::IdempotencyRecord => 1,
        Kind::Task => 2,
        Kind::Other => 3,
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
                // Full in all: room is made from a larger holder's settled record, if any.
                let room = full.scope == Scope::Store && caller.is_some_and(|c| self.displace(kind, c));
                if !room {
                    return Err(StoreError::full(full));
                }
            }
        }
        // One allocation per caller while it holds records, shared by its entries.
        let caller = caller.map(|c| {
            self.parts[part_of(kind)].callers.get_key_value(c).map_or_else(|| Arc::from(c), |(k, _)| k.clone())
        });
        self.link(Arc::from(key), Entry { value: value.to_owned(), expires, kind, caller });
        Ok(())
    }

    /// At the bound in all of `kind`, makes room for a record of `caller`: among the callers of
    /// the [`DISPLACE_AMONG`] records nearest their expiry, the one holding most, if it holds
    /// more than `caller` does, loses its oldest settled record ([`super::settled`]: an
    /// idempotency record whose envelope is recorded; never a pending action nor a running
    /// claim). Whether a record was dropped.
    fn displace(&mut self, kind: Kind, caller: &str) -> bool {
        if kind != Kind::IdempotencyRecord {
            return false;
        }
        let part = &self.parts[part_of(kind)];
        let held = |c: &str| part.callers.get(c).map_or(0, BTreeSet::len);
        let own = held(caller);
        let mut largest: Option<(usize, &Arc<str>)> = None;
        for (_, key) in part.by_expiry.iter().take(DISPLACE_AMONG) {
            if let Some(holder) = self.map.get(key).and_then(|e| e.caller.as_ref()) {
                let n = held(holder);
                if largest.is_none_or(|(most, _)| n > most) {
                    largest = Some((n, holder));
                }
            }
        }
        let Some((most, holder)) = largest else { return false };
        if most <= own {
            return false;
        }
        let victim = part.callers.get(holder).and_then(|set| {
            set.iter()
                .take(DISPLACE_AMONG)
                .find(|(_, key)| self.map.get(key).is_some_and(|e| super::settled(&e.value)))
                .map(|(_, key)| key.clone())
        });
        let Some(victim) = victim else { return false };
        tracing::debug!(
            target: "envelope::store",
            "the store's bound of idempotency records is reached: a record of a caller holding {most} makes room for one of a caller holding {own}"
        );
        self.unlink(&victim).is_some()
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
