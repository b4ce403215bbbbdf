//! Tokens a verifier must refuse although they are signed by the issuer's key: an `iss` that is
//! no string equal to the issuer, and a claim named twice (RFC 7519 §4).

use base64::Engine as _;
use envelope_core::http::auth::{Jwks, JwtVerifier};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey};

const ISSUER: &str = "https://auth.test.example";
const RESOURCE: &str = "https://notes.test.example/mcp";
const RSA_A: &str = include_str!("../fixtures/auth/TEST-ONLY-rsa-a.pem");

fn key() -> EncodingKey {
    EncodingKey::from_rsa_pem(RSA_A.as_bytes()).unwrap()
}

/// A verifier of the issuer, whose key set holds `rsa-a`.
fn verifier() -> JwtVerifier {
    let mut jwk = serde_json::to_value(Jwk::from_encoding_key(&key(), Algorithm::RS256).unwrap()).unwrap();
    jwk["kid"] = "rsa-a".into();
    let jwks = Jwks::from_json(&serde_json::json!({"keys": [jwk]}).to_string()).unwrap();
    JwtVerifier::new(ISSUER, RESOURCE).with_jwks(jwks)
}

/// `claims`, as written (a claim may be named twice), signed RS256 with `rsa-a`.
fn signed(claims: &str) -> String {
    let b64 = |text: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text);
    let message = format!("{}.{}", b64(r#"{"alg":"RS256","kid":"rsa-a","typ":"JWT"}"#), b64(claims));
    let signature = jsonwebtoken::crypto::sign(message.as_bytes(), &key(), Algorithm::RS256).unwrap();
    format!("{message}.{signature}")
}

fn exp() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 600
}

#[tokio::test]
async fn iss_must_be_the_issuer_as_a_string_and_no_claim_may_be_named_twice() {
    let verifier = verifier();
    let exp = exp();
    let good = format!(r#"{{"iss":"{ISSUER}","sub":"alice","aud":"{RESOURCE}","exp":{exp},"tenant_id":"acme"}}"#);
    let caller = verifier.verify(&signed(&good)).await.unwrap();
    assert_eq!((caller.subject(), caller.tenant()), (Some("alice"), Some("acme")));

    let message = |token: String| {
        let verifier = verifier.clone();
        async move { verifier.verify(&token).await.map(|c| c.key()).map_err(|e| e.message().to_owned()) }
    };
    let other_issuer = "The bearer token was not accepted: it was issued by another issuer (iss). Get a new token \
                        from the authorization server and send it.";
    for iss in [format!(r#"["{ISSUER}"]"#), format!(r#"["https://evil.example","{ISSUER}"]"#)] {
        let claims = format!(r#"{{"iss":{iss},"sub":"alice","aud":"{RESOURCE}","exp":{exp}}}"#);
        assert_eq!(message(signed(&claims)).await, Err(other_issuer.to_owned()), "{iss}");
    }
    let twice = "The bearer token was not accepted: it names a claim twice. Get a new token from the authorization \
                 server and send it.";
    for claims in [
        format!(
            r#"{{"iss":"{ISSUER}","sub":"alice","aud":"{RESOURCE}","exp":{exp},"tenant_id":"acme","tenant_id":"globex"}}"#
        ),
        format!(r#"{{"iss":"{ISSUER}","sub":"alice","aud":"{RESOURCE}","exp":{exp},"scope":"read","scope":"admin"}}"#),
    ] {
        assert_eq!(message(signed(&claims)).await, Err(twice.to_owned()), "{claims}");
    }
}
