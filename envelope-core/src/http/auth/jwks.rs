//! The verification keys of a JWKS document (RFC 7517 §5), cached, and fetched again at most
//! once a minute when a token names a key the cache does not hold.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

use super::fetch;

/// The shortest time between two fetches of a JWKS document: 60 seconds. A token naming an
/// unknown `kid` within it of the last fetch is refused without a fetch.
pub const DEFAULT_MIN_REFETCH_INTERVAL: Duration = Duration::from_secs(60);

/// How long fetched keys are used before they are fetched again in the background (so that a
/// key the issuer withdrew stops verifying): one hour.
pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(3600);

/// The largest JWKS document read: 1 MiB.
const MAX_DOCUMENT_BYTES: usize = 1 << 20;
/// The most keys kept from one document (the rest are ignored).
const MAX_KEYS: usize = 100;
/// How long one fetch may take, connection and body included.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a request naming a `kid` the cache does not hold waits for the refetch of the
/// keys: 2 s. A request with a body holds no place among the server's requests in flight
/// meanwhile (its body is read after the auth hook); past it, the token is refused.
pub const REFETCH_WAIT: Duration = Duration::from_secs(2);

/// A JWKS document that cannot be used: not read, not fetched, not JSON, no usable key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JwksError {
    message: String,
}

impl JwksError {
    fn new(message: impl Into<String>) -> Self {
        JwksError { message: message.into() }
    }
}

impl fmt::Display for JwksError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for JwksError {}

/// One verification key: its `kid`, the one algorithm it verifies, the key.
#[derive(Clone)]
pub(crate) struct Key {
    pub(crate) kid: Option<String>,
    pub(crate) alg: Algorithm,
    pub(crate) key: DecodingKey,
}

/// Why no key was found for a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Miss {
    /// No key of that `kid` (or, without a `kid`, none of that algorithm), after a fetch if one
    /// was allowed.
    Unknown,
    /// The key of that `kid` verifies another algorithm (algorithm confusion).
    Algorithm,
    /// No `kid`, and several keys of that algorithm.
    Ambiguous,
}

enum Source {
    Document,
    File(PathBuf),
    Url(fetch::Target),
}

struct State {
    keys: Arc<[Key]>,
    fetched_at: Option<Instant>,
    generation: u64,
}

struct Shared {
    source: Source,
    state: RwLock<State>,
    /// Held while a fetch runs: one fetch at a time (single-flight); others wait for its keys.
    refresh: tokio::sync::Mutex<()>,
    /// The generation of the keys, sent when a fetch ends: what a request waiting for a
    /// refetch watches.
    generations: tokio::sync::watch::Sender<u64>,
    fetches: AtomicU64,
}

/// The verification keys of a JWKS document (RFC 7517 §5): from a JSON text, a file, or a URL.
///
/// Keys kept: `kty` `RSA` (RS256 by default; RS384, RS512, PS256, PS384, PS512 when its `alg`
/// says so), `EC` on `P-256` (ES256) or `P-384` (ES384), `OKP` on `Ed25519` (EdDSA). Each key
/// verifies exactly one algorithm, its `alg` or the one its type and curve name; a token whose
/// header names another is refused (no algorithm confusion). Keys whose `use` is not `sig`,
/// symmetric keys (`oct`: a public document holds no secret), and keys of other types are
/// ignored; at most 100 keys of a document of at most 1 MiB are kept.
///
/// A file or URL is read again when a token names a `kid` the cache does not hold (a key
/// rotation), at most once per [`DEFAULT_MIN_REFETCH_INTERVAL`] (60 s), one read at a time
/// however many requests wait for it (they all use its keys), and in the background once the
/// keys are older than [`DEFAULT_MAX_AGE`] (1 h). A failed fetch keeps the keys it had and logs
/// one `tracing` warning naming the URL and the cause. A fetch over the network has 10 s, and
/// runs on tokio's I/O (never blocking a worker); a file is read on tokio's blocking threads.
/// The fetch runs as a task of its own: a request naming an unknown `kid` waits for it at most
/// [`REFETCH_WAIT`] (2 s), and is then refused as one naming a key the issuer does not publish
/// (the fetch goes on; later requests use its keys); within the interval after a fetch, such a
/// request is refused at once.
///
/// Cheap to clone: clones share the cache.
///
/// ```
/// use envelope_core::http::auth::Jwks;
///
/// let jwks = Jwks::from_json(r#"{"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "ed-1",
///     "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#).unwrap();
/// assert_eq!(jwks.kids(), ["ed-1"]);
/// assert!(Jwks::from_url("http://auth.example.com/jwks.json").is_err()); // http off loopback
/// assert!(Jwks::from_url("https://auth.example.com/jwks.json").is_ok());
/// ```
#[derive(Clone)]
pub struct Jwks {
    shared: Arc<Shared>,
    min_refetch_interval: Duration,
    max_age: Duration,
}

impl fmt::Debug for Jwks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match &self.shared.source {
            Source::Document => "document".to_owned(),
            Source::File(path) => format!("file {}", path.display()),
            Source::Url(target) => format!("url {}", target.url),
        };
        f.debug_struct("Jwks")
            .field("source", &source)
            .field("kids", &self.kids())
            .field("min_refetch_interval", &self.min_refetch_interval)
            .finish_non_exhaustive()
    }
}

impl Jwks {
    fn with_source(source: Source, keys: Vec<Key>, fetched: bool) -> Self {
        let state = State { keys: keys.into(), fetched_at: fetched.then(Instant::now), generation: u64::from(fetched) };
        Jwks {
            shared: Arc::new(Shared {
                source,
                state: RwLock::new(state),
                refresh: tokio::sync::Mutex::new(()),
                generations: tokio::sync::watch::Sender::new(u64::from(fetched)),
                fetches: AtomicU64::new(u64::from(fetched)),
            }),
            min_refetch_interval: DEFAULT_MIN_REFETCH_INTERVAL,
            max_age: DEFAULT_MAX_AGE,
        }
    }

    /// The keys of a JWKS JSON text (`{"keys": [...]}`), fixed: never fetched again.
    ///
    /// # Errors
    /// The text is not JSON, has no `keys` array, or holds no key this type keeps.
    pub fn from_json(text: &str) -> Result<Self, JwksError> {
        let keys = parse(text.as_bytes())?;
        Ok(Jwks::with_source(Source::Document, keys, true))
    }

    /// The keys of the JWKS file at `path`, read now (call it at start-up) and read again, on
    /// tokio's blocking threads, on an unknown `kid` (rotate keys by rewriting the file).
    ///
    /// # Errors
    /// The file cannot be read, is over 1 MiB, or is no usable document.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, JwksError> {
        let path = path.as_ref().to_owned();
        let keys = parse(&read_file(&path)?)?;
        Ok(Jwks::with_source(Source::File(path), keys, true))
    }

    /// The keys at `url` (an issuer's `jwks_uri`, RFC 8414 §2), fetched when first needed (or
    /// by [`refresh`](Self::refresh) at start-up). `https` on any host (verified against the
    /// Mozilla roots), plain `http` only on a loopback host (`localhost`, `127.0.0.0/8`, `[::1]`).
    ///
    /// # Errors
    /// `url` is not a URL, is neither `https` nor loopback `http`, or names no host.
    pub fn from_url(url: &str) -> Result<Self, JwksError> {
        let target = fetch::Target::parse(url, false).map_err(JwksError::new)?;
        Ok(Jwks::with_source(Source::Url(target), Vec::new(), false))
    }

    /// As [`from_url`](Self::from_url), also taking plain `http` on any host: an explicit
    /// opt-in for a network where nothing on the way can forge the keys (a service mesh that
    /// encrypts on its own).
    ///
    /// # Errors
    /// `url` is not an `http` or `https` URL with a host.
    pub fn from_url_allowing_plain_http(url: &str) -> Result<Self, JwksError> {
        let target = fetch::Target::parse(url, true).map_err(JwksError::new)?;
        Ok(Jwks::with_source(Source::Url(target), Vec::new(), false))
    }

    /// A file path or an `http(s)://` URL, as an operator writes it in configuration (e.g.
    /// `ENVELOPE_JWKS`): [`from_url`](Self::from_url) for a URL, else
    /// [`from_file`](Self::from_file).
    ///
    /// # Errors
    /// As those.
    pub fn from_location(location: &str) -> Result<Self, JwksError> {
        let lower = location.to_ascii_lowercase();
        if lower.starts_with("https://") || lower.starts_with("http://") {
            Jwks::from_url(location)
        } else {
            Jwks::from_file(location)
        }
    }

    /// The shortest time between two fetches (default 60 s). Tests shorten it; a server has
    /// no reason to.
    #[must_use]
    pub fn with_min_refetch_interval(mut self, interval: Duration) -> Self {
        self.min_refetch_interval = interval;
        self
    }

    /// How long fetched keys are used before a background fetch (default 1 h).
    #[must_use]
    pub fn with_max_age(mut self, max_age: Duration) -> Self {
        self.max_age = max_age;
        self
    }

    /// Fetches (or reads) the document now, whatever the last fetch's time, and answers the
    /// number of keys kept: for a server that checks its configuration at start-up.
    ///
    /// # Errors
    /// The document could not be fetched or read, or holds no usable key; the keys held before
    /// are kept.
    pub async fn refresh(&self) -> Result<usize, JwksError> {
        let _one_at_a_time = self.shared.refresh.lock().await;
        self.load().await
    }

    /// How many times the document was read or fetched (successfully or not).
    pub fn fetches(&self) -> u64 {
        self.shared.fetches.load(Ordering::Relaxed)
    }

    /// The `kid`s of the keys held, in document order (a key without one is left out).
    pub fn kids(&self) -> Vec<String> {
        self.snapshot().0.iter().filter_map(|k| k.kid.clone()).collect()
    }

    fn snapshot(&self) -> (Arc<[Key]>, Option<Instant>, u64) {
        let state = self.shared.state.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        (Arc::clone(&state.keys), state.fetched_at, state.generation)
    }

    /// The key for a token's `kid` and `alg`: from the cache, else after one fetch when the
    /// last is older than the interval, waited for at most [`REFETCH_WAIT`].
    pub(crate) async fn key(&self, kid: Option<&str>, alg: Algorithm) -> Result<Key, Miss> {
        let (keys, fetched_at, generation) = self.snapshot();
        match find(&keys, kid, alg) {
            Err(Miss::Unknown) => {}
            found => {
                if fetched_at.is_some_and(|t| t.elapsed() > self.max_age) {
                    self.refresh_in_background(generation);
                }
                return found;
            }
        }
        if matches!(self.shared.source, Source::Document) {
            return Err(Miss::Unknown);
        }
        let mut generations = self.shared.generations.subscribe();
        // No fetch in flight: one is started unless the last is too recent (then the kid is
        // unknown at once). The guard is dropped before the fetch's task takes it.
        let idle = self.shared.refresh.try_lock().is_ok();
        if idle {
            if fetched_at.is_some_and(|t| t.elapsed() < self.min_refetch_interval) {
                return Err(Miss::Unknown);
            }
            self.refresh_in_background(generation);
        }
        let _ = tokio::time::timeout(REFETCH_WAIT, generations.wait_for(|g| *g != generation)).await;
        find(&self.snapshot().0, kid, alg)
    }

    /// Fetches once, unless another fetch ran since `seen` or the last one is too recent.
    async fn refetch(&self, seen: u64) {
        let _one_at_a_time = self.shared.refresh.lock().await;
        let (_, fetched_at, generation) = self.snapshot();
        if generation != seen || fetched_at.is_some_and(|t| t.elapsed() < self.min_refetch_interval) {
            return;
        }
        // A failure is logged in `load` and leaves the keys as they were.
        let _ = self.load().await;
    }

    fn refresh_in_background(&self, seen: u64) {
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let this = self.clone();
            runtime.spawn(async move { this.refetch(seen).await });
        }
    }

    /// Reads or fetches the document (the caller holds `refresh`); records the time whatever
    /// the outcome, so a failing source is not asked more than once per interval.
    async fn load(&self) -> Result<usize, JwksError> {
        self.shared.fetches.fetch_add(1, Ordering::Relaxed);
        let loaded = match &self.shared.source {
            Source::Document => Ok(self.snapshot().0.to_vec()),
            // Reading a file, and parsing up to 1 MiB of JSON, happen on tokio's blocking threads.
            Source::File(path) => {
                let path = path.clone();
                off_the_runtime(move || read_file(&path).and_then(|bytes| parse(&bytes))).await
            }
            Source::Url(target) => match fetch::get(target, MAX_DOCUMENT_BYTES, FETCH_TIMEOUT).await {
                Ok(bytes) => off_the_runtime(move || parse(&bytes))
                    .await
                    .map_err(|e| JwksError::new(format!("{}: {e}", target.url))),
                Err(e) => Err(JwksError::new(e)),
            },
        };
        let mut state = self.shared.state.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        state.fetched_at = Some(Instant::now());
        state.generation += 1;
        self.shared.generations.send_replace(state.generation);
        match loaded {
            Ok(keys) => {
                let count = keys.len();
                state.keys = keys.into();
                Ok(count)
            }
            Err(e) => {
                tracing::warn!("the JWKS keys were not refreshed: {e}");
                Err(e)
            }
        }
    }
}

/// `work` on tokio's blocking threads.
async fn off_the_runtime(
    work: impl FnOnce() -> Result<Vec<Key>, JwksError> + Send + 'static,
) -> Result<Vec<Key>, JwksError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|_| Err(JwksError::new("reading the JWKS document stopped before its end")))
}

/// The key of `kid` for `alg`; without a `kid`, the one key of `alg`.
fn find(keys: &[Key], kid: Option<&str>, alg: Algorithm) -> Result<Key, Miss> {
    match kid {
        Some(kid) => match keys.iter().find(|k| k.kid.as_deref() == Some(kid)) {
            Some(key) if key.alg == alg => Ok(key.clone()),
            Some(_) => Err(Miss::Algorithm),
            None => Err(Miss::Unknown),
        },
        None => {
            let mut of_alg = keys.iter().filter(|k| k.alg == alg);
            match (of_alg.next(), of_alg.next()) {
                (Some(key), None) => Ok(key.clone()),
                (Some(_), Some(_)) => Err(Miss::Ambiguous),
                (None, _) => Err(Miss::Unknown),
            }
        }
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, JwksError> {
    use std::io::Read;
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| JwksError::new(format!("{shown}: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_DOCUMENT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| JwksError::new(format!("{shown}: {e}")))?;
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return Err(JwksError::new(format!("{shown} is larger than {MAX_DOCUMENT_BYTES} bytes")));
    }
    Ok(bytes)
}

/// The keys of a JWKS document kept (see [`Jwks`]).
fn parse(bytes: &[u8]) -> Result<Vec<Key>, JwksError> {
    let document: Value = serde_json::from_slice(bytes)
        .map_err(|_| JwksError::new("the JWKS document is not JSON (RFC 7517 §5: {\"keys\": [...]})"))?;
    let Some(listed) = document.get("keys").and_then(Value::as_array) else {
        return Err(JwksError::new("the JWKS document has no \"keys\" array (RFC 7517 §5)"));
    };
    let keys: Vec<Key> = listed.iter().filter_map(key).take(MAX_KEYS).collect();
    if keys.is_empty() {
        return Err(JwksError::new(format!(
            "none of the {} keys of the JWKS document is a signing key this server verifies with (RSA, EC P-256 or \
             P-384, OKP Ed25519)",
            listed.len()
        )));
    }
    Ok(keys)
}

/// One JWK as a verification key, or `None` when it is not one this server uses.
fn key(jwk: &Value) -> Option<Key> {
    let text = |name: &str| jwk.get(name).and_then(Value::as_str);
    if text("use").is_some_and(|u| u != "sig") {
        return None;
    }
    let declared = text("alg");
    let (alg, key) = match (text("kty")?, text("crv")) {
        ("RSA", _) => {
            let alg = match declared {
                None => Algorithm::RS256,
                Some("RS256") => Algorithm::RS256,
                Some("RS384") => Algorithm::RS384,
                Some("RS512") => Algorithm::RS512,
                Some("PS256") => Algorithm::PS256,
                Some("PS384") => Algorithm::PS384,
                Some("PS512") => Algorithm::PS512,
                Some(_) => return None,
            };
            (alg, DecodingKey::from_rsa_components(text("n")?, text("e")?).ok()?)
        }
        ("EC", Some(crv)) => {
            let alg = match (crv, declared) {
                ("P-256", None | Some("ES256")) => Algorithm::ES256,
                ("P-384", None | Some("ES384")) => Algorithm::ES384,
                _ => return None,
            };
            (alg, DecodingKey::from_ec_components(text("x")?, text("y")?).ok()?)
        }
        ("OKP", Some("Ed25519")) if matches!(declared, None | Some("EdDSA") | Some("Ed25519")) => {
            (Algorithm::EdDSA, DecodingKey::from_ed_components(text("x")?).ok()?)
        }
        _ => return None,
    };
    Some(Key { kid: text("kid").map(str::to_owned), alg, key })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ED: &str =
        r#"{"kty": "OKP", "crv": "Ed25519", "kid": "ed", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#;

    #[test]
    fn keys_kept_and_ignored() {
        let doc = format!(
            r#"{{"keys": [{ED},
                {{"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"}},
                {{"kty": "RSA", "kid": "enc", "use": "enc", "n": "AQAB", "e": "AQAB"}},
                {{"kty": "EC", "crv": "P-256", "kid": "ec-wrong-alg", "alg": "ES384", "x": "AA", "y": "AA"}},
                {{"kty": "RSA", "kid": "rsa", "n": "AQAB", "e": "AQAB"}}]}}"#
        );
        let jwks = Jwks::from_json(&doc).unwrap();
        assert_eq!(jwks.kids(), ["ed", "rsa"]);
        let keys = jwks.snapshot().0;
        assert_eq!(find(&keys, Some("ed"), Algorithm::EdDSA).map(|k| k.alg), Ok(Algorithm::EdDSA));
        assert_eq!(find(&keys, Some("rsa"), Algorithm::HS256).err(), Some(Miss::Algorithm));
        assert_eq!(find(&keys, Some("hmac"), Algorithm::HS256).err(), Some(Miss::Unknown));
        assert_eq!(find(&keys, None, Algorithm::RS256).map(|k| k.kid), Ok(Some("rsa".to_owned())));
        assert_eq!(jwks.fetches(), 1);
        assert_eq!(jwks.min_refetch_interval, Duration::from_secs(60));
    }

    #[test]
    fn unusable_documents() {
        assert!(Jwks::from_json("nope").unwrap_err().to_string().contains("not JSON"));
        assert!(Jwks::from_json("{}").unwrap_err().to_string().contains("no \"keys\""));
        let only_secret = r#"{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}"#;
        assert!(Jwks::from_json(only_secret).unwrap_err().to_string().starts_with("none of the 1 keys"));
        let err = Jwks::from_file("/nonexistent/jwks.json").unwrap_err().to_string();
        assert!(err.starts_with("/nonexistent/jwks.json: "), "{err}");
        assert_eq!(Jwks::from_location("/nonexistent/jwks.json").unwrap_err().to_string(), err);
        assert!(matches!(Jwks::from_location("HTTPS://auth.example/jwks").unwrap().shared.source, Source::Url(_)));
        assert!(Jwks::from_location("http://auth.example/jwks").unwrap_err().to_string().contains("not loopback"));
    }
}
