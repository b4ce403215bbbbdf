//! The store in Redis (feature `redis`), shared by every replica that connects to it.

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
/// bound is refused, except that at the bound in all of idempotency records a caller holding
/// fewer takes the place of a settled record of the largest holder, as in [`MemoryStore`](super::MemoryStore)
/// (see [the module](super)). Each admitted value is stored after a one-line header
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
            Err(_) => Err(StoreError::new(format!("redis {op}: no answer within {} ms", self.deadline.as_millis()))),
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
        Kind::Task => "task",
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
/// bound in all, bound per caller, `1` when a settled record may be displaced at the bound in
/// all (idempotency records), prefix. Answers `{1, 0}` admitted, `{0, 0}` taken, `{2, ms}`
/// the caller's bound reached, `{3, ms}` the bound in all reached, with the wait until
/// the caller's own oldest record expires (1 s for a caller holding none).
///
/// At the bound in all, as the memory store does (see the module): among the callers of the
/// 256 records nearest their expiry, the one holding most, if it holds more than this caller,
/// loses its oldest settled record (`"state":"done"` in its value).
const ADMIT: &str = r#"
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, 0} end
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local function wait(k)
  local first = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
  return math.max(1, math.ceil(tonumber(first[2]) - now))
end
local function displace(own)
  local best, most, seen = nil, own, {}
  for _, k in ipairs(redis.call('ZRANGE', KEYS[2], 0, 255)) do
    local v = redis.call('GET', k)
    if v then
      local _, set = counted(ARGV[7], (split(v)))
      if set and not seen[set] then
        seen[set] = true
        redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
        local n = redis.call('ZCARD', set)
        if n > most then best, most = set, n end
      end
    end
  end
  if not best then return false end
  for _, k in ipairs(redis.call('ZRANGE', best, 0, 255)) do
    local v = redis.call('GET', k)
    if v then
      local _, body = split(v)
      if string.find(body, '"state":"done"', 1, true) then
        redis.call('DEL', k)
        redis.call('ZREM', KEYS[2], k)
        redis.call('ZREM', best, k)
        return true
      end
    end
  end
  return false
end
local own = redis.call('ZCARD', KEYS[3])
if own >= tonumber(ARGV[5]) then return {2, wait(KEYS[3])} end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  if not (ARGV[6] == '1' and displace(own)) then
    if own > 0 then return {3, wait(KEYS[3])} end
    return {3, 1000}
  end
end
local ttl = tonumber(ARGV[3])
redis.call('SET', KEYS[1], ARGV[1] .. '\n' .. ARGV[2], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
redis.call('ZADD', KEYS[3], now + ttl, KEYS[1])
keep(KEYS[2], ttl)
keep(KEYS[3], ttl)
return {1, 0}
"#;

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

    fn admit<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration, who: Admission<'a>) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let kind = class(who.kind);
            let owner = &crate::outcome::digest::sha256_hex(who.caller)[..32];
            let all = format!("{}envelope:quota:{kind}", self.prefix);
            let own = format!("{all}:{owner}");
            let bound = self.limits.of(who.kind);
            let mut cmd = script(ADMIT, &[&self.key(key), &all, &own]);
            let displaces = if who.kind == Kind::IdempotencyRecord { "1" } else { "0" };
            cmd.arg(format!("{kind}:{owner}")).arg(value).arg(millis(ttl)).arg(bound.total).arg(bound.per_caller);
            cmd.arg(displaces).arg(&self.prefix);
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
