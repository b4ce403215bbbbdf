//! The keyed hashing of the guard, under the toolbox's secret (HMAC-SHA256, RFC 2104): the seal
//! of a pending action id and its layout (`expiry (4 bytes) | nonce (9) | tag (16)`, base64url),
//! the fingerprint of an idempotency key's arguments; and the nonces and the process key, drawn
//! from the operating system's generator.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::outcome::digest::{canonical, hex};

/// The random key of this process, drawn once.
pub(super) fn process_key() -> Arc<[u8]> {
    static KEY: OnceLock<Arc<[u8]>> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut k = [0u8; 32];
        random(&mut k);
        Arc::from(&k[..])
    })
    .clone()
}

/// Fills `buf` from the operating system's generator; should it fail, from std's randomly
/// seeded SipHash keys and the clock (still unpredictable to a caller, never a panic).
pub(super) fn random(buf: &mut [u8]) {
    if getrandom::fill(buf).is_ok() {
        return;
    }
    use std::hash::{BuildHasher, Hasher};
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    for chunk in buf.chunks_mut(8) {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(nanos);
        let bytes = h.finish().to_le_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
}

pub(super) const ID_BYTES: usize = 4 + 9 + 16;

/// A decoded pending action id: not yet verified.
pub(super) struct Sealed {
    pub(super) expiry: u32,
    pub(super) nonce: [u8; 9],
    pub(super) tag: [u8; 16],
}

pub(super) fn open(id: &str) -> Option<Sealed> {
    if id.len() != 39 {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(id).ok()?;
    if bytes.len() != ID_BYTES {
        return None;
    }
    let expiry = u32::from_be_bytes(bytes[0..4].try_into().ok()?);
    let nonce = bytes[4..13].try_into().ok()?;
    let tag = bytes[13..29].try_into().ok()?;
    Some(Sealed { expiry, nonce, tag })
}

/// Now, in Unix seconds.
pub(super) fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn mac(key: &[u8], domain: &[u8]) -> hmac::Hmac<Sha256> {
    let mut m = <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(&[0u8; 32]).expect("any key length"));
    m.update(domain);
    m
}

/// The seal of a pending action: HMAC-SHA256 under `key` over a domain label, the tool's name
/// (length first), the SHA-256 of the canonical arguments, the expiry and the nonce.
fn seal_tag(key: &[u8], tool: &str, args: &Map<String, Value>, expiry: u32, nonce: &[u8; 9]) -> hmac::Hmac<Sha256> {
    let mut m = mac(key, b"envelope pending action v1\0");
    m.update(&u32::try_from(tool.len()).unwrap_or(u32::MAX).to_be_bytes());
    m.update(tool.as_bytes());
    m.update(&Sha256::digest(canonical(&Value::Object(args.clone())).as_bytes()));
    m.update(&expiry.to_be_bytes());
    m.update(nonce);
    m
}

/// A new pending action id for `tool` and its validated `args`, expiring `ttl` from now.
pub(super) fn seal(key: &[u8], ttl: Duration, tool: &str, args: &Map<String, Value>) -> String {
    let ttl = u32::try_from(ttl.as_secs()).unwrap_or(u32::MAX);
    let expiry = u32::try_from(now_secs()).unwrap_or(u32::MAX).saturating_add(ttl);
    let mut nonce = [0u8; 9];
    random(&mut nonce);
    let tag = seal_tag(key, tool, args, expiry, &nonce).finalize().into_bytes();
    let mut bytes = Vec::with_capacity(ID_BYTES);
    bytes.extend_from_slice(&expiry.to_be_bytes());
    bytes.extend_from_slice(&nonce);
    bytes.extend_from_slice(&tag[..16]);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Whether `sealed` was sealed under `key` for `tool` and `args`.
pub(super) fn verifies(key: &[u8], sealed: &Sealed, tool: &str, args: &Map<String, Value>) -> bool {
    // Constant-time comparison of the truncated tag.
    seal_tag(key, tool, args, sealed.expiry, &sealed.nonce).verify_truncated_left(&sealed.tag).is_ok()
}

/// What an idempotency record remembers of its call's arguments: HMAC-SHA256 under `key` of their
/// canonical JSON, lowercase hex.
pub(super) fn fingerprint(key: &[u8], args: &Map<String, Value>) -> String {
    let mut m = mac(key, b"envelope idempotency v1\0");
    m.update(canonical(&Value::Object(args.clone())).as_bytes());
    hex(&m.finalize().into_bytes())
}
