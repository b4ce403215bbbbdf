//! Hashes of JSON values: RFC 8785 canonical text and SHA-256, beneath the envelope (a
//! `preview_hash`) and the confirmation guard.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The RFC 8785 (JSON Canonicalization Scheme) text of `v`: object keys sorted by UTF-16 code
/// units, no whitespace, numbers as ECMAScript prints them.
pub fn canonical(v: &Value) -> String {
    // A `Value` has string keys and finite numbers only: canonicalization cannot fail.
    serde_json_canonicalizer::to_string(v).unwrap_or_default()
}

/// SHA-256 (FIPS 180-4) of `text`, lowercase hex.
pub fn sha256_hex(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}
