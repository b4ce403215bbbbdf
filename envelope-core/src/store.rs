//! Where state that outlives one call waits: single-use approvals of pending actions and
//! idempotency records. One small async key-value trait, [`Store`], with an in-memory default
//! ([`MemoryStore`]) and, behind feature `redis`, [`RedisStore`] for servers run as several
//! replicas behind a load balancer.
//!
//! Every value is JSON text under a string key, each with a time to live. What envelope keeps:
//!
//! | key | value | written with |
//! |---|---|---|
//! | `envelope:pending:<id>` | the pending action: tool, validated arguments, preview | [`Store::put`], time to live of the approval |
//! | `envelope:used:<id>` | the marker that the id was approved or rejected | [`Store::put_new`] (Redis `SET NX PX`): one caller wins |
//! | `envelope:idem:<tool>:<key>` | `running`, then the recorded envelope | [`Store::put_new`] to claim the key, [`Store::put`] to record |
//!
//! A store that fails answers [`StoreError`]; the call then answers a `BACKEND_ERROR` envelope,
//! never a panic.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A boxed future of a store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A store operation failed (the connection, the server). Its text goes to the server's log,
/// never to the caller: the caller gets a `BACKEND_ERROR` envelope naming the operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(String);

impl StoreError {
    /// A failure described by `detail` (for logs).
    pub fn new(detail: impl Into<String>) -> Self {
        StoreError(detail.into())
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "store failed: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

/// The storage behind confirmation and idempotency keys: string keys, JSON text values, each
/// with a time to live. Shared by every replica that must see the same approvals and keys.
///
/// Implement it for another backend with the same guarantees: [`put_new`](Store::put_new) is
/// atomic (of any number of concurrent callers on any replica, exactly one gets `true`), and an
/// expired key reads as absent.
pub trait Store: Send + Sync + fmt::Debug + 'static {
    /// Sets `key` to `value` for `ttl` only if `key` is absent; `true` when this call set it.
    /// Redis: `SET key value NX PX ttl`.
    fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool>;
    /// Sets `key` to `value` for `ttl`, replacing any value. Redis: `SET key value PX ttl`.
    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()>;
    /// The value under `key`, if present and not expired. Redis: `GET key`.
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>>;
    /// Removes `key` (absent is fine). Redis: `DEL key`.
    fn remove<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()>;
}

/// The default store: in this process's memory, bounded in count and in age.
///
/// - At most `capacity` keys (10 000 by default). Writing a new key into a full store first
///   drops the expired keys, then, if still full, evicts the **oldest** key (the one written
///   first).
/// - No key lives longer than `max_age` (24 hours by default), whatever time to live it was
///   written with.
///
/// What eviction means: an evicted pending action answers `NOT_FOUND` when confirmed (call the
/// tool again: nothing ran, nothing runs twice); an evicted idempotency record lets a replay of
/// its key run again. Size `capacity` for the writes of a record's lifetime, or use Redis.
/// Approvals and keys held here are seen by this process only: servers run as several replicas
/// need a shared store ([`RedisStore`] with feature `redis`).
///
/// ```
/// use std::time::Duration;
/// use envelope_core::store::{MemoryStore, Store};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryStore::new(2, Duration::from_secs(60));
/// let ttl = Duration::from_secs(30);
/// assert!(store.put_new("a", "1", ttl).await.unwrap());
/// assert!(!store.put_new("a", "2", ttl).await.unwrap()); // taken: single use
/// store.put("b", "2", ttl).await.unwrap();
/// store.put("c", "3", ttl).await.unwrap(); // full: "a", the oldest, is evicted
/// assert_eq!(store.get("a").await.unwrap(), None);
/// assert_eq!(store.get("c").await.unwrap().as_deref(), Some("3"));
/// # });
/// ```
#[derive(Debug)]
pub struct MemoryStore {
    capacity: usize,
    max_age: Duration,
    inner: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    /// key -> (value, expiry, write sequence number)
    map: HashMap<String, (String, Instant, u64)>,
    /// write sequence number -> key: the oldest first.
    order: BTreeMap<u64, String>,
    next: u64,
}

impl Entries {
    fn live(&mut self, key: &str, now: Instant) -> Option<&String> {
        if self.map.get(key).is_some_and(|(_, exp, _)| *exp <= now) {
            self.delete(key);
        }
        self.map.get(key).map(|(v, _, _)| v)
    }

    fn delete(&mut self, key: &str) {
        if let Some((_, _, seq)) = self.map.remove(key) {
            self.order.remove(&seq);
        }
    }

    fn write(&mut self, key: &str, value: &str, expires: Instant, capacity: usize, now: Instant) {
        self.delete(key);
        if self.map.len() >= capacity {
            let expired: Vec<String> =
                self.map.iter().filter(|(_, (_, exp, _))| *exp <= now).map(|(k, _)| k.clone()).collect();
            for k in expired {
                self.delete(&k);
            }
        }
        while self.map.len() >= capacity.max(1) {
            let Some((_, oldest)) = self.order.pop_first() else { break };
            self.map.remove(&oldest);
        }
        let seq = self.next;
        self.next += 1;
        self.map.insert(key.to_owned(), (value.to_owned(), expires, seq));
        self.order.insert(seq, key.to_owned());
    }
}

impl Default for MemoryStore {
    /// 10 000 keys, none older than 24 hours.
    fn default() -> Self {
        MemoryStore::new(10_000, Duration::from_secs(24 * 60 * 60))
    }
}

impl MemoryStore {
    /// A store of at most `capacity` keys (at least 1), none kept longer than `max_age`.
    pub fn new(capacity: usize, max_age: Duration) -> Self {
        MemoryStore { capacity: capacity.max(1), max_age, inner: Mutex::new(Entries::default()) }
    }

    /// How many keys it holds now (expired ones included until they are next touched).
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
}

fn ready<'a, T: Send + 'a>(v: T) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Ok(v)))
}

impl Store for MemoryStore {
    fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let mut e = self.lock();
        if e.live(key, now).is_some() {
            return ready(false);
        }
        e.write(key, value, self.expiry(now, ttl), self.capacity, now);
        ready(true)
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        let now = Instant::now();
        self.lock().write(key, value, self.expiry(now, ttl), self.capacity, now);
        ready(())
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        let v = self.lock().live(key, Instant::now()).cloned();
        ready(v)
    }

    fn remove<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
        self.lock().delete(key);
        ready(())
    }
}

#[cfg(feature = "redis")]
pub use self::redis_store::RedisStore;

#[cfg(feature = "redis")]
mod redis_store {
    use std::time::Duration;

    use redis::aio::ConnectionManager;

    use super::{Store, StoreError, StoreFuture};

    /// A [`Store`] in Redis (feature `redis`): every replica that connects to the same Redis
    /// and holds the same secret sees the same approvals and idempotency keys. Single use is
    /// Redis's atomic `SET key value NX PX ttl`; expiry is Redis's own (`PX`). The connection
    /// reconnects by itself after a failure; a command that fails answers [`StoreError`] (the
    /// call: a `BACKEND_ERROR` envelope).
    ///
    /// Keys are prefixed (`envelope:` by default; see [`with_prefix`](Self::with_prefix)) so
    /// several servers can share one Redis.
    #[derive(Clone)]
    pub struct RedisStore {
        conn: ConnectionManager,
        prefix: String,
    }

    impl std::fmt::Debug for RedisStore {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("RedisStore").field("prefix", &self.prefix).finish_non_exhaustive()
        }
    }

    impl RedisStore {
        /// Connects to the Redis at `url` (`redis://127.0.0.1:6379/0`; `rediss://` is not
        /// built in). Needs a tokio runtime.
        ///
        /// # Errors
        /// When the URL does not parse or the server cannot be reached.
        pub async fn connect(url: &str) -> Result<Self, StoreError> {
            let client = redis::Client::open(url).map_err(|e| StoreError::new(format!("opening {url}: {e}")))?;
            let conn = ConnectionManager::new(client)
                .await
                .map_err(|e| StoreError::new(format!("connecting to {url}: {e}")))?;
            Ok(RedisStore { conn, prefix: String::new() })
        }

        /// Prefixes every key with `prefix` (`"billing:"`), besides envelope's own `envelope:`.
        #[must_use]
        pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
            self.prefix = prefix.into();
            self
        }

        fn key(&self, key: &str) -> String {
            format!("{}{key}", self.prefix)
        }
    }

    fn millis(ttl: Duration) -> u64 {
        u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
    }

    fn fault(op: &str, e: &redis::RedisError) -> StoreError {
        StoreError::new(format!("redis {op}: {e}"))
    }

    impl Store for RedisStore {
        fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
            Box::pin(async move {
                let mut conn = self.conn.clone();
                let set: Option<String> = redis::cmd("SET")
                    .arg(self.key(key))
                    .arg(value)
                    .arg("NX")
                    .arg("PX")
                    .arg(millis(ttl))
                    .query_async(&mut conn)
                    .await
                    .map_err(|e| fault("SET NX", &e))?;
                Ok(set.is_some())
            })
        }

        fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
            Box::pin(async move {
                let mut conn = self.conn.clone();
                let _: () = redis::cmd("SET")
                    .arg(self.key(key))
                    .arg(value)
                    .arg("PX")
                    .arg(millis(ttl))
                    .query_async(&mut conn)
                    .await
                    .map_err(|e| fault("SET", &e))?;
                Ok(())
            })
        }

        fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
            Box::pin(async move {
                let mut conn = self.conn.clone();
                redis::cmd("GET").arg(self.key(key)).query_async(&mut conn).await.map_err(|e| fault("GET", &e))
            })
        }

        fn remove<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
            Box::pin(async move {
                let mut conn = self.conn.clone();
                let _: i64 =
                    redis::cmd("DEL").arg(self.key(key)).query_async(&mut conn).await.map_err(|e| fault("DEL", &e))?;
                Ok(())
            })
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

    #[test]
    fn evicts_the_oldest_key_when_full() {
        let s = MemoryStore::new(3, Duration::from_secs(60));
        let ttl = Duration::from_secs(60);
        for k in ["a", "b", "c"] {
            block(s.put(k, k, ttl)).unwrap();
        }
        // Rewriting "a" makes it the newest: "b" is now the oldest.
        block(s.put("a", "a2", ttl)).unwrap();
        block(s.put("d", "d", ttl)).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(block(s.get("b")).unwrap(), None);
        assert_eq!(block(s.get("a")).unwrap().as_deref(), Some("a2"));
        assert_eq!(block(s.get("c")).unwrap().as_deref(), Some("c"));
        assert_eq!(block(s.get("d")).unwrap().as_deref(), Some("d"));
    }

    #[test]
    fn an_expired_key_is_absent_and_can_be_taken_again() {
        let s = MemoryStore::new(10, Duration::from_secs(60));
        assert!(block(s.put_new("k", "1", Duration::from_millis(1))).unwrap());
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(block(s.get("k")).unwrap(), None);
        assert!(block(s.put_new("k", "2", Duration::from_secs(5))).unwrap());
        assert!(!block(s.put_new("k", "3", Duration::from_secs(5))).unwrap());
        assert_eq!(block(s.get("k")).unwrap().as_deref(), Some("2"));
    }

    #[test]
    fn max_age_caps_a_longer_time_to_live() {
        let s = MemoryStore::new(10, Duration::from_millis(1));
        block(s.put("k", "1", Duration::from_secs(3600))).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(block(s.get("k")).unwrap(), None);
    }

    #[test]
    fn a_full_store_drops_expired_keys_before_evicting_live_ones() {
        let s = MemoryStore::new(2, Duration::from_secs(60));
        block(s.put("live", "1", Duration::from_secs(60))).unwrap();
        block(s.put("short", "2", Duration::from_millis(1))).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        block(s.put("new", "3", Duration::from_secs(60))).unwrap();
        assert_eq!(block(s.get("live")).unwrap().as_deref(), Some("1"));
        assert_eq!(block(s.get("new")).unwrap().as_deref(), Some("3"));
        block(s.remove("live")).unwrap();
        assert_eq!(block(s.get("live")).unwrap(), None);
    }
}
