//! Bitget request signing: HMAC-SHA256 over a prehash string, base64-encoded.
//!
//! Source: Bitget common docs, "Signature" (`https://www.bitget.com/api-doc/common/signature`),
//! summarised in `shared/reference/bitget-uta-v3.md` §1.1 (REST) and §1.3 (WebSocket login).

use std::fmt;

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// A secret string (API secret key, passphrase, session credentials).
///
/// `Debug` and `Display` print `***`, so a secret can sit inside a logged or debug-printed struct
/// without leaking. Read the value only with [`Secret::expose`], right where it is used.
#[derive(Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The secret value itself. Do not log it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when no secret was given (empty string).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Secret {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Secret {
        Secret(value.to_owned())
    }
}

/// Serialized redacted, never as the value: `"<redacted>"`, or `""` when no secret was given
/// (so that a configuration printed with serde, e.g. `gateway check-config`, cannot leak one).
impl serde::Serialize for Secret {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if self.0.is_empty() { "" } else { REDACTED })
    }
}

/// What a set secret is serialized as.
pub const REDACTED: &str = "<redacted>";

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// `base64(HMAC-SHA256(key = secret, msg = concatenation of parts))`.
///
/// The parts are fed to the MAC in order, so no prehash string is built.
pub fn sign_parts(secret: &Secret, parts: &[&[u8]]) -> String {
    // HMAC accepts keys of any length, so `new_from_slice` cannot fail; fall back to an empty
    // signature (which the exchange rejects) rather than panicking, should that ever change.
    let Ok(mut mac) = HmacSha256::new_from_slice(secret.expose().as_bytes()) else {
        return String::new();
    };
    for part in parts {
        mac.update(part);
    }
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

/// The WebSocket login signature: base64 HMAC-SHA256 over `timestamp_s + "GET" + "/user/verify"`.
///
/// `timestamp_s` is the Unix time in **seconds** as decimal text, the same string sent in the
/// login's `timestamp` field (reference §1.3: SDKs in production send seconds).
pub fn ws_login_sign(secret: &Secret, timestamp_s: &str) -> String {
    sign_parts(secret, &[timestamp_s.as_bytes(), b"GET", b"/user/verify"])
}

/// The REST `ACCESS-SIGN` header: base64 HMAC-SHA256 over
/// `ts_ms + METHOD + path_with_query + body` (reference §1.1).
///
/// - `ts_ms`: Unix time in **milliseconds**, the same value sent as `ACCESS-TIMESTAMP`.
/// - `method`: upper-case HTTP method (`GET`, `POST`); it is signed as given.
/// - `path_with_query`: the request path plus `?query` when the query is non-empty, exactly as
///   sent on the wire (e.g. `/api/v3/trade/unfilled-orders?category=USDT-FUTURES&limit=100`).
/// - `body`: the exact JSON body sent (empty for GET).
pub fn rest_sign(
    secret: &Secret,
    ts_ms: u64,
    method: &str,
    path_with_query: &str,
    body: &str,
) -> String {
    let mut ts = itoa::Buffer::new();
    let ts = ts.format(ts_ms);
    sign_parts(
        secret,
        &[
            ts.as_bytes(),
            method.as_bytes(),
            path_with_query.as_bytes(),
            body.as_bytes(),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::fixtures_dir;

    #[derive(serde::Deserialize)]
    struct Vector {
        what: String,
        secret: String,
        prehash: String,
        sign: String,
    }

    fn vectors() -> Vec<Vector> {
        let text = std::fs::read_to_string(fixtures_dir().join("signing_vectors.json"))
            .expect("signing_vectors.json");
        serde_json::from_str(&text).expect("vectors parse")
    }

    #[test]
    fn every_vector_matches_via_sign_parts() {
        let vs = vectors();
        assert!(
            vs.len() >= 4,
            "expected at least 4 vectors, got {}",
            vs.len()
        );
        for v in &vs {
            let got = sign_parts(&Secret::new(v.secret.clone()), &[v.prehash.as_bytes()]);
            assert_eq!(got, v.sign, "vector {:?}", v.what);
        }
    }

    /// Splits each vector's prehash into the pieces the typed helpers take and checks them.
    #[test]
    fn every_vector_matches_via_typed_helpers() {
        let mut ws = 0;
        let mut rest = 0;
        for v in vectors() {
            let secret = Secret::new(v.secret.clone());
            if let Some(ts) = v.prehash.strip_suffix("GET/user/verify") {
                assert_eq!(ws_login_sign(&secret, ts), v.sign, "vector {:?}", v.what);
                ws += 1;
                continue;
            }
            let digits = v.prehash.bytes().take_while(u8::is_ascii_digit).count();
            let (ts, rest_of) = v.prehash.split_at(digits);
            let ts_ms: u64 = ts.parse().expect("timestamp");
            let (method, tail) = if let Some(t) = rest_of.strip_prefix("GET") {
                ("GET", t)
            } else if let Some(t) = rest_of.strip_prefix("POST") {
                ("POST", t)
            } else {
                panic!("unknown method in {:?}", v.what);
            };
            let (path, body) = match tail.find('{') {
                Some(i) => tail.split_at(i),
                None => (tail, ""),
            };
            assert_eq!(
                rest_sign(&secret, ts_ms, method, path, body),
                v.sign,
                "vector {:?}",
                v.what
            );
            rest += 1;
        }
        assert!(ws >= 1 && rest >= 3, "ws {ws} rest {rest}");
    }

    #[test]
    fn ws_login_fixture_request_signature() {
        // ws_login_request.json carries the signature for secret "test-secret", ts 1700000000.
        let text = std::fs::read_to_string(fixtures_dir().join("ws_login_request.json"))
            .expect("ws_login_request.json");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        let arg = &v["args"][0];
        let ts = arg["timestamp"].as_str().expect("timestamp");
        let sign = arg["sign"].as_str().expect("sign");
        assert_eq!(ws_login_sign(&Secret::new("test-secret"), ts), sign);
    }

    #[test]
    fn wrong_secret_gives_different_signature() {
        assert_ne!(
            ws_login_sign(&Secret::new("test-secret"), "1700000000"),
            ws_login_sign(&Secret::new("test-secreT"), "1700000000")
        );
    }

    #[test]
    fn secret_is_never_printed() {
        let s = Secret::new("hunter2");
        assert_eq!(format!("{s:?}"), "***");
        assert_eq!(format!("{s}"), "***");
        assert_eq!(s.expose(), "hunter2");
    }
}
