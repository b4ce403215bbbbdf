//! What a pending action id is made of: its layout (`expiry (4 bytes) | nonce (9) | tag (16)`,
//! base64url), and the nonces and the process key, drawn from the operating system's generator.
//! The HMAC itself is `Guard::seal` (confirm.rs), under the toolbox's secret.

use std::sync::{Arc, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

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
