//! WebSocket login verification (reference §1.3): `sign = base64(HMAC-SHA256(secret,
//! timestamp + "GET" + "/user/verify"))`, timestamp in seconds or milliseconds (values below
//! 10^12 are seconds), sent as a string or a number, within the configured window.

use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use crate::config::AccountConfig;
use crate::matching::AccountId;

/// Why a login was refused, with the code of the reference §1.4 table (S3 ccxt map, P2) and
/// the message the public sources quote for it. Every refusal is followed by closing the socket
/// (reference §1.3 "Failed login ⇒ server disconnects").
///
/// Order of the checks: the four fields present, then key, passphrase, timestamp format,
/// timestamp window, signature; the first failing check decides the code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoginError {
    /// `args` not a non-empty array, `args[0]` not an object, or one of `apiKey`,
    /// `passphrase`, `timestamp`, `sign` absent or `null`: `30016` "Param error: <field>"
    /// (§1.4 "30016 param error"; the request is malformed before any credential is checked).
    #[error("Param error: {0}")]
    Missing(&'static str),
    /// No account with this key (`apiKey` a string or a number as written, else also this):
    /// `30011` (§1.4 "invalid ACCESS_KEY").
    #[error("Invalid ACCESS_KEY")]
    UnknownKey,
    /// Passphrase mismatch: `30012` (§1.4 "invalid ACCESS_PASSPHRASE"; §1.3 quotes
    /// `{"event":"error","code":30012,"msg":"Invalid ACCESS_PASSPHRASE"}`).
    #[error("Invalid ACCESS_PASSPHRASE")]
    Passphrase,
    /// Timestamp not a plain decimal integer (string or number): `30013` (§1.4
    /// "invalid ACCESS_TIMESTAMP").
    #[error("Invalid ACCESS_TIMESTAMP")]
    Timestamp,
    /// Timestamp outside the window: `30014` (§1.4 "request timestamp expired").
    #[error("Request timestamp expired")]
    Expired,
    /// Signature mismatch (or not base64): `30015` (§1.3 quotes
    /// `{"event":"error","code":30015,"msg":"Invalid sign"}` from ccxt).
    #[error("Invalid sign")]
    Sign,
}

impl LoginError {
    /// The WS error code sent for this failure (a JSON number, reference §1.3/§1.4).
    pub fn code(&self) -> u32 {
        match self {
            LoginError::Missing(_) => 30016,
            LoginError::UnknownKey => 30011,
            LoginError::Passphrase => 30012,
            LoginError::Timestamp => 30013,
            LoginError::Expired => 30014,
            LoginError::Sign => 30015,
        }
    }
}

/// `base64(HMAC-SHA256(secret, prehash))`.
pub fn sign(secret: &str, prehash: &str) -> String {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(m) => m,
        Err(_) => return String::new(),
    };
    mac.update(prehash.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

/// Checks a login request (`{"op":"login","args":[{apiKey, passphrase, timestamp, sign}]}`)
/// against the accounts at wall-clock `now_ms`.
pub fn verify_login(
    accounts: &[AccountConfig],
    req: &Value,
    now_ms: u64,
    window_s: u64,
) -> Result<AccountId, LoginError> {
    let arg = req
        .get("args")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .filter(|a| a.is_object())
        .ok_or(LoginError::Missing("args"))?;
    // Present and not null; the type is checked by the field's own rule below.
    let field = |k: &'static str| -> Result<&Value, LoginError> {
        match arg.get(k) {
            None | Some(Value::Null) => Err(LoginError::Missing(k)),
            Some(v) => Ok(v),
        }
    };
    // A string, or a number as written (the timestamp may be either, reference §1.3).
    let text = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    };
    let key = text(field("apiKey")?);
    let passphrase = text(field("passphrase")?);
    let ts = field("timestamp")?;
    let sig = field("sign")?;
    let (idx, acct) = accounts
        .iter()
        .enumerate()
        .find(|(_, a)| key.as_deref() == Some(a.api_key.as_str()))
        .ok_or(LoginError::UnknownKey)?;
    if passphrase.as_deref() != Some(acct.passphrase.as_str()) {
        return Err(LoginError::Passphrase);
    }
    let ts = text(ts)
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .ok_or(LoginError::Timestamp)?;
    let t: u64 = ts.parse().map_err(|_| LoginError::Timestamp)?;
    let t_ms = if t < 1_000_000_000_000 {
        t.saturating_mul(1000)
    } else {
        t
    };
    if now_ms.abs_diff(t_ms) > window_s.saturating_mul(1000) {
        return Err(LoginError::Expired);
    }
    let sig = sig.as_str().ok_or(LoginError::Sign)?;
    let given = base64::engine::general_purpose::STANDARD
        .decode(sig.as_bytes())
        .map_err(|_| LoginError::Sign)?;
    let mut mac =
        Hmac::<Sha256>::new_from_slice(acct.secret.as_bytes()).map_err(|_| LoginError::Sign)?;
    mac.update(ts.as_bytes());
    mac.update(b"GET/user/verify");
    mac.verify_slice(&given).map_err(|_| LoginError::Sign)?;
    Ok(AccountId(u32::try_from(idx).unwrap_or(u32::MAX - 1)))
}

/// Why a signed REST request was refused (reference §1.1, §6.2), with its Bitget code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestAuthError {
    /// `ACCESS-KEY` header missing (`40001`).
    #[error("ACCESS_KEY cannot be empty")]
    NoKey,
    /// `ACCESS-SIGN` header missing (`40003`).
    #[error("signature cannot be empty")]
    NoSign,
    /// `ACCESS-TIMESTAMP` missing or not an integer (`40005`).
    #[error("Invalid ACCESS_TIMESTAMP")]
    Timestamp,
    /// `ACCESS-PASSPHRASE` missing (`40011`).
    #[error("ACCESS_PASSPHRASE cannot be empty")]
    NoPassphrase,
    /// Unknown key (`40006`).
    #[error("Invalid ACCESS_KEY")]
    UnknownKey,
    /// Wrong passphrase (`40012`).
    #[error("apikey/password is incorrect")]
    Passphrase,
    /// Timestamp outside the window (`40008`).
    #[error("Request timestamp expired")]
    Expired,
    /// Signature mismatch (`40009`).
    #[error("sign signature error")]
    Sign,
}

impl RestAuthError {
    /// The Bitget code of the failure.
    pub fn code(&self) -> u32 {
        match self {
            RestAuthError::NoKey => 40001,
            RestAuthError::NoSign => 40003,
            RestAuthError::Timestamp => 40005,
            RestAuthError::NoPassphrase => 40011,
            RestAuthError::UnknownKey => 40006,
            RestAuthError::Passphrase => 40012,
            RestAuthError::Expired => 40008,
            RestAuthError::Sign => 40009,
        }
    }
}

/// The four `ACCESS-*` header values of a signed REST request.
#[derive(Debug, Clone, Copy)]
pub struct RestCredentials<'a> {
    /// `ACCESS-KEY`.
    pub key: Option<&'a str>,
    /// `ACCESS-SIGN`.
    pub sign: Option<&'a str>,
    /// `ACCESS-TIMESTAMP` (ms).
    pub timestamp: Option<&'a str>,
    /// `ACCESS-PASSPHRASE`.
    pub passphrase: Option<&'a str>,
}

/// What a REST signature covers.
#[derive(Debug, Clone, Copy)]
pub struct RestRequest<'a> {
    /// `GET` / `POST`.
    pub method: &'a str,
    /// Path only (`/api/v3/trade/order-info`).
    pub path: &'a str,
    /// Raw query string as received, without `?` (may be empty).
    pub query: &'a str,
    /// Raw body (empty for GET).
    pub body: &'a str,
}

/// Checks a signed REST request: `sign = base64(HMAC-SHA256(secret, timestamp + METHOD +
/// path [+ "?" + raw query] + body))`, over the query and body exactly as received, timestamp in
/// ms within `window_s`.
pub fn verify_rest(
    accounts: &[AccountConfig],
    cred: RestCredentials<'_>,
    req: RestRequest<'_>,
    now_ms: u64,
    window_s: u64,
) -> Result<AccountId, RestAuthError> {
    let key = cred
        .key
        .filter(|s| !s.is_empty())
        .ok_or(RestAuthError::NoKey)?;
    let sig = cred
        .sign
        .filter(|s| !s.is_empty())
        .ok_or(RestAuthError::NoSign)?;
    let ts = cred.timestamp.ok_or(RestAuthError::Timestamp)?;
    let passphrase = cred
        .passphrase
        .filter(|s| !s.is_empty())
        .ok_or(RestAuthError::NoPassphrase)?;
    let (idx, acct) = accounts
        .iter()
        .enumerate()
        .find(|(_, a)| a.api_key == key)
        .ok_or(RestAuthError::UnknownKey)?;
    if acct.passphrase != passphrase {
        return Err(RestAuthError::Passphrase);
    }
    let t: u64 = ts.parse().map_err(|_| RestAuthError::Timestamp)?;
    if now_ms.abs_diff(t) > window_s.saturating_mul(1000) {
        return Err(RestAuthError::Expired);
    }
    let given = base64::engine::general_purpose::STANDARD
        .decode(sig.as_bytes())
        .map_err(|_| RestAuthError::Sign)?;
    let signed_over = |query: &str| -> Result<(), RestAuthError> {
        let mut mac = Hmac::<Sha256>::new_from_slice(acct.secret.as_bytes())
            .map_err(|_| RestAuthError::Sign)?;
        mac.update(ts.as_bytes());
        mac.update(req.method.as_bytes());
        mac.update(req.path.as_bytes());
        if !query.is_empty() {
            mac.update(b"?");
            mac.update(query.as_bytes());
        }
        mac.update(req.body.as_bytes());
        mac.verify_slice(&given).map_err(|_| RestAuthError::Sign)
    };
    // The query exactly as received (reference §1.1 "Simulator guidance"), or its
    // percent-decoded form: ccxt sends `clientOid=a%3Ab` and signs `clientOid=a:b`, which the
    // real service accepts (issue 3 scope 2: "raw query as sent or its decoded form").
    signed_over(req.query).or_else(|e| match crate::query_decode::decode(req.query) {
        Some(decoded) if decoded != req.query => signed_over(&decoded),
        _ => Err(e),
    })?;
    Ok(AccountId(u32::try_from(idx).unwrap_or(u32::MAX - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(path: &'a str, query: &'a str) -> RestRequest<'a> {
        RestRequest {
            method: "GET",
            path,
            query,
            body: "",
        }
    }

    #[test]
    fn rest_signing_vector() {
        // shared/fixtures/bitget-uta/signing_vectors.json, "rest GET with query".
        let accts = vec![AccountConfig {
            uid: "1".into(),
            api_key: "k".into(),
            secret: "test-secret".into(),
            passphrase: "p".into(),
            ..AccountConfig::default()
        }];
        let cred = RestCredentials {
            key: Some("k"),
            sign: Some("leUzmMpUuN47NPFtoYJCsDmbWqKyZIGYFT/A8S5UJTQ="),
            timestamp: Some("1700000000123"),
            passphrase: Some("p"),
        };
        let q = "category=USDT-FUTURES&limit=100";
        let path = "/api/v3/trade/unfilled-orders";
        assert_eq!(
            verify_rest(&accts, cred, get(path, q), 1_700_000_001_000, 30),
            Ok(AccountId(0))
        );
        assert_eq!(
            verify_rest(
                &accts,
                cred,
                get(path, "limit=100&category=USDT-FUTURES"),
                1_700_000_001_000,
                30
            ),
            Err(RestAuthError::Sign)
        );
        assert_eq!(
            verify_rest(&accts, cred, get(path, q), 1_700_000_100_000, 30),
            Err(RestAuthError::Expired)
        );
        // "rest POST with body".
        let body = r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","qty":"0.001","price":"30000","side":"buy","orderType":"limit","timeInForce":"gtc","clientOid":"s1:1"}"#;
        let post = RestRequest {
            method: "POST",
            path: "/api/v3/trade/place-order",
            query: "",
            body,
        };
        let cred_post = RestCredentials {
            sign: Some("uZ+bFHFNym0He65ATwza1qsR5mD0rA9M2kpCtmevcrQ="),
            ..cred
        };
        assert_eq!(
            verify_rest(&accts, cred_post, post, 1_700_000_001_000, 30),
            Ok(AccountId(0))
        );
        let none = RestCredentials { key: None, ..cred };
        assert_eq!(
            verify_rest(&accts, none, get(path, q), 0, 30).map_err(|e| e.code()),
            Err(40001)
        );
    }

    #[test]
    fn signing_vector() {
        // shared/fixtures/bitget-uta/signing_vectors.json, "ws login".
        assert_eq!(
            sign("test-secret", "1700000000GET/user/verify"),
            "QKXMEacdjBcrVZaxWVJypn62KNrQGzBErbiQtYn6KO8="
        );
    }

    fn accts() -> Vec<AccountConfig> {
        vec![AccountConfig {
            uid: "1".into(),
            api_key: "k".into(),
            secret: "test-secret".into(),
            passphrase: "p".into(),
            ..AccountConfig::default()
        }]
    }

    #[test]
    fn seconds_string_and_ms_number() {
        let now = 1_700_000_000_000u64;
        let req = serde_json::json!({"op":"login","args":[{"apiKey":"k","passphrase":"p","timestamp":"1700000000","sign":"QKXMEacdjBcrVZaxWVJypn62KNrQGzBErbiQtYn6KO8="}]});
        assert_eq!(
            verify_login(&accts(), &req, now + 5000, 30),
            Ok(AccountId(0))
        );
        assert_eq!(
            verify_login(&accts(), &req, now + 31_000, 30),
            Err(LoginError::Expired)
        );
        let ms = 1_700_000_000_123u64;
        let s = sign("test-secret", &format!("{ms}GET/user/verify"));
        let req = serde_json::json!({"op":"login","args":[{"apiKey":"k","passphrase":"p","timestamp":ms,"sign":s}]});
        assert_eq!(verify_login(&accts(), &req, now, 30), Ok(AccountId(0)));
        let req = serde_json::json!({"op":"login","args":[{"apiKey":"k","passphrase":"x","timestamp":ms,"sign":s}]});
        assert_eq!(
            verify_login(&accts(), &req, now, 30),
            Err(LoginError::Passphrase)
        );
        let req = serde_json::json!({"op":"login","args":[{"apiKey":"k","passphrase":"p","timestamp":ms,"sign":"AAAA"}]});
        assert_eq!(verify_login(&accts(), &req, now, 30), Err(LoginError::Sign));
    }

    #[test]
    fn each_refusal_has_its_code_and_message() {
        let now = 1_700_000_000_000u64;
        let good = |k: &str, v: serde_json::Value| {
            let mut a = serde_json::json!({"apiKey":"k","passphrase":"p","timestamp":"1700000000","sign":"QKXMEacdjBcrVZaxWVJypn62KNrQGzBErbiQtYn6KO8="});
            a[k] = v;
            serde_json::json!({"op":"login","args":[a]})
        };
        let cases = [
            (good("apiKey", "nope".into()), 30011, "Invalid ACCESS_KEY"),
            (
                good("apiKey", serde_json::json!({})),
                30011,
                "Invalid ACCESS_KEY",
            ),
            (
                good("passphrase", "x".into()),
                30012,
                "Invalid ACCESS_PASSPHRASE",
            ),
            (
                good("timestamp", "17e8".into()),
                30013,
                "Invalid ACCESS_TIMESTAMP",
            ),
            (
                good("timestamp", "+1700000000".into()),
                30013,
                "Invalid ACCESS_TIMESTAMP",
            ),
            (
                good("timestamp", "".into()),
                30013,
                "Invalid ACCESS_TIMESTAMP",
            ),
            (
                good("timestamp", serde_json::json!(1.7e9)),
                30013,
                "Invalid ACCESS_TIMESTAMP",
            ),
            (
                good("timestamp", "99999999999999999999999".into()),
                30013,
                "Invalid ACCESS_TIMESTAMP",
            ),
            (
                good("timestamp", "1699999000".into()),
                30014,
                "Request timestamp expired",
            ),
            (good("sign", "AAAA".into()), 30015, "Invalid sign"),
            (good("sign", "not base64!".into()), 30015, "Invalid sign"),
            (good("sign", serde_json::json!(7)), 30015, "Invalid sign"),
            (
                good("sign", serde_json::Value::Null),
                30016,
                "Param error: sign",
            ),
            (
                serde_json::json!({"op":"login"}),
                30016,
                "Param error: args",
            ),
            (
                serde_json::json!({"op":"login","args":[]}),
                30016,
                "Param error: args",
            ),
            (
                serde_json::json!({"op":"login","args":["x"]}),
                30016,
                "Param error: args",
            ),
            (
                serde_json::json!({"op":"login","args":[{"apiKey":"k"}]}),
                30016,
                "Param error: passphrase",
            ),
        ];
        for (req, code, msg) in cases {
            let e = verify_login(&accts(), &req, now, 30).expect_err("refused");
            assert_eq!((e.code(), e.to_string().as_str()), (code, msg), "{req}");
        }
        // Key and passphrase may be numbers as written.
        let accts = vec![AccountConfig {
            api_key: "123".into(),
            passphrase: "456".into(),
            ..accts()[0].clone()
        }];
        let req = serde_json::json!({"op":"login","args":[{"apiKey":123,"passphrase":456,"timestamp":"1700000000","sign":"QKXMEacdjBcrVZaxWVJypn62KNrQGzBErbiQtYn6KO8="}]});
        assert_eq!(verify_login(&accts, &req, now, 30), Ok(AccountId(0)));
    }
}
