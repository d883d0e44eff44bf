//! WebSocket login verification (reference §1.3): `sign = base64(HMAC-SHA256(secret,
//! timestamp + "GET" + "/user/verify"))`, timestamp in seconds or milliseconds (values below
//! 10^12 are seconds), sent as a string or a number, within the configured window.

use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use crate::config::AccountConfig;
use crate::matching::AccountId;

/// Why a login was refused. Every variant is answered with code `30005` (the contract's
/// "login failed"); the message names the cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoginError {
    /// `args[0]` missing or a field missing.
    #[error("login failed: missing {0}")]
    Missing(&'static str),
    /// No account with this key.
    #[error("login failed: invalid ACCESS_KEY")]
    UnknownKey,
    /// Passphrase mismatch.
    #[error("login failed: invalid ACCESS_PASSPHRASE")]
    Passphrase,
    /// Timestamp not an integer.
    #[error("login failed: invalid ACCESS_TIMESTAMP")]
    Timestamp,
    /// Timestamp outside the window.
    #[error("login failed: request timestamp expired")]
    Expired,
    /// Signature mismatch.
    #[error("login failed: invalid sign")]
    Sign,
}

impl LoginError {
    /// The WS error code sent for this failure.
    pub fn code(&self) -> u32 {
        30005
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
        .ok_or(LoginError::Missing("args"))?;
    let field = |k: &'static str| -> Result<String, LoginError> {
        match arg.get(k) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) => Ok(n.to_string()),
            _ => Err(LoginError::Missing(k)),
        }
    };
    let key = field("apiKey")?;
    let passphrase = field("passphrase")?;
    let ts = field("timestamp")?;
    let sig = field("sign")?;
    let (idx, acct) = accounts
        .iter()
        .enumerate()
        .find(|(_, a)| a.api_key == key)
        .ok_or(LoginError::UnknownKey)?;
    if acct.passphrase != passphrase {
        return Err(LoginError::Passphrase);
    }
    let t: u64 = ts.parse().map_err(|_| LoginError::Timestamp)?;
    let t_ms = if t < 1_000_000_000_000 {
        t.saturating_mul(1000)
    } else {
        t
    };
    if now_ms.abs_diff(t_ms) > window_s.saturating_mul(1000) {
        return Err(LoginError::Expired);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
