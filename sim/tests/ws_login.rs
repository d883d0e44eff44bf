//! WebSocket login refusals over real sockets: one code per cause, the documented message, then
//! the socket is closed.
//!
//! Sources (reference `shared/reference/bitget-uta-v3.md`):
//! - §1.3 [P] (P2 websocket-intro): "Failed login ⇒ server disconnects"; the refusal frame is
//!   `{"event":"error","code":<number>,"msg":"…"}` (numeric `code` on control frames, §1.3
//!   "Simulator" note, [S] S1/S2).
//! - §1.4 [S3 ccxt map + P2]: `30011` invalid ACCESS_KEY, `30012` invalid ACCESS_PASSPHRASE,
//!   `30013` invalid ACCESS_TIMESTAMP, `30014` request timestamp expired, `30015` invalid
//!   signature, `30016` param error, `30005` login failed.
//! - Messages: `"Invalid sign"` — §1.3 [S3] (ccxt `python/ccxt/pro/bitget.py`, comment
//!   `{event: 'error', code: 30015, msg: 'Invalid sign'}`); `"Invalid ACCESS_PASSPHRASE"` —
//!   §1.3 [S] (older Bitget client comment `{"event":"error","code":30012,"msg":"Invalid
//!   ACCESS_PASSPHRASE"}`); `"Request timestamp expired"` and `'Param error'` — the same ccxt
//!   map's comments for `30014` / `30016`; `"Invalid ACCESS_KEY"` and `"Invalid
//!   ACCESS_TIMESTAMP"` — the Bitget WS error strings of the public C++ client
//!   patrickk33/bg_api (`errors.cpp`), the same spelling as Bitget's REST messages for
//!   `40006` / `40005` (reference §6.2). roq-bitget (`utils.cpp`, `is_logon_error`) treats
//!   30005, 30011, 30012, 30013 and 30015 as login errors.
//! - Missing field / no `args`: `30016` "Param error: <field>" — §1.4 lists `30016` as "param
//!   error", and the request is malformed before any credential is checked; `30005` "login
//!   failed" (the generic code of the §1.3 [P] doc example) is not used because every refusal
//!   has a specific code.
#![allow(clippy::unwrap_used)]

mod common;

use common::Client;
use serde_json::{json, Value};

/// A login frame for account `a` with one field of `args[0]` replaced (`None` = removed).
fn login_with(field: &str, value: Option<Value>) -> String {
    let ts = (sim::now_ms() / 1000).to_string();
    let sign = sim::auth::sign("secret-a", &format!("{ts}GET/user/verify"));
    let mut arg = json!({"apiKey":"key-a","passphrase":"pass-a","timestamp":ts,"sign":sign});
    match value {
        Some(v) => arg[field] = v,
        None => {
            arg.as_object_mut().unwrap().remove(field);
        }
    }
    json!({"op":"login","args":[arg]}).to_string()
}

/// Sends `frame` on a fresh private connection and asserts the exact refusal frame (numeric
/// `code`, no other field) followed by the end of the connection.
async fn refused(h: &sim::SimHandle, frame: &str, code: u64, msg: &str) {
    let mut c = Client::connect(h, true).await;
    c.send(frame).await;
    let text = c
        .recv_text()
        .await
        .expect("a refusal frame before the close");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v,
        json!({"event":"error","code":code,"msg":msg}),
        "frame {frame}"
    );
    assert!(v["code"].is_u64(), "numeric code: {text}");
    assert_eq!(
        c.recv_text().await,
        None,
        "connection closed after the failed login ({frame})"
    );
}

/// Every login refusal over real sockets: reference §1.4 [S3 ccxt map] codes, §1.3 [P] close.
#[tokio::test]
async fn each_login_refusal_has_its_code_and_message_then_closes() {
    let h = common::start(true).await;
    // Unknown key → 30011 "Invalid ACCESS_KEY" (§1.4).
    refused(
        &h,
        &login_with("apiKey", Some("key-nobody".into())),
        30011,
        "Invalid ACCESS_KEY",
    )
    .await;
    // Wrong passphrase → 30012 "Invalid ACCESS_PASSPHRASE" (§1.3 [S], §1.4).
    refused(
        &h,
        &login_with("passphrase", Some("pass-b".into())),
        30012,
        "Invalid ACCESS_PASSPHRASE",
    )
    .await;
    // Malformed timestamp → 30013 "Invalid ACCESS_TIMESTAMP" (§1.4): not digits, a fraction,
    // a sign, an object.
    for ts in [
        json!("soon"),
        json!("1700000000.5"),
        json!(1_700_000_000.5),
        json!("+1700000000"),
        json!({"s":1}),
    ] {
        refused(
            &h,
            &login_with("timestamp", Some(ts)),
            30013,
            "Invalid ACCESS_TIMESTAMP",
        )
        .await;
    }
    // Timestamp outside the ±30 s window (signed correctly over it) → 30014 "Request timestamp
    // expired" (§1.3 "reject if older than ~30 s", §1.4).
    let old = (sim::now_ms() / 1000 - 60).to_string();
    let sign = sim::auth::sign("secret-a", &format!("{old}GET/user/verify"));
    refused(
        &h,
        &json!({"op":"login","args":[{"apiKey":"key-a","passphrase":"pass-a","timestamp":old,"sign":sign}]}).to_string(),
        30014,
        "Request timestamp expired",
    )
    .await;
    // Signature by another secret, or not base64 → 30015 "Invalid sign" (§1.3 [S3], §1.4).
    let ts = (sim::now_ms() / 1000).to_string();
    let wrong = sim::auth::sign("secret-b", &format!("{ts}GET/user/verify"));
    refused(
        &h,
        &json!({"op":"login","args":[{"apiKey":"key-a","passphrase":"pass-a","timestamp":ts,"sign":wrong}]}).to_string(),
        30015,
        "Invalid sign",
    )
    .await;
    refused(
        &h,
        &login_with("sign", Some("%%%".into())),
        30015,
        "Invalid sign",
    )
    .await;
    // Missing field, null field, no args, empty args → 30016 "Param error: <field>" (§1.4).
    for field in ["apiKey", "passphrase", "timestamp", "sign"] {
        refused(
            &h,
            &login_with(field, None),
            30016,
            &format!("Param error: {field}"),
        )
        .await;
    }
    refused(
        &h,
        &login_with("sign", Some(Value::Null)),
        30016,
        "Param error: sign",
    )
    .await;
    for frame in [
        r#"{"op":"login"}"#,
        r#"{"op":"login","args":[]}"#,
        r#"{"op":"login","args":{}}"#,
        r#"{"op":"login","args":["key-a"]}"#,
    ] {
        refused(&h, frame, 30016, "Param error: args").await;
    }
    // The first failing check decides: unknown key wins over a bad timestamp and signature.
    refused(
        &h,
        &json!({"op":"login","args":[{"apiKey":"nobody","passphrase":"x","timestamp":"x","sign":"x"}]}).to_string(),
        30011,
        "Invalid ACCESS_KEY",
    )
    .await;
    // Every refused connection is gone; a correct login still works.
    let mut c = Client::connect(&h, true).await;
    assert_eq!(c.login("a").await["code"], 0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while h.stats().ws_connections != 1 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(h.stats().ws_connections, 1);
    h.shutdown().await;
}
