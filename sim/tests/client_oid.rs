//! `clientOid` patterns per channel, over real TLS sockets (issue 13 item 1).
//!
//! Source: reference §6.3. WebSocket (best-practices page and the WS place-order channel):
//! `^[0-9A-Za-z_:#\-+\s]{1,32}$`; REST place-order page: `^[\.A-Z\:/a-z0-9_-]{1,32}$`. Bitget's
//! own signing example uses `"clientOid":"channel#123456"` (reference §1.1). Outside the pattern:
//! `40017` "Parameter verification failed: clientOid", nothing placed.
#![allow(clippy::unwrap_used)]

mod common;

use common::{item, signed_get, signed_post, topic, Client};
use serde_json::Value;

fn ws_place(id: &str, oid_json: &str) -> String {
    format!(
        r#"{{"op":"trade","id":"{id}","category":"usdt-futures","topic":"place-order","args":[{{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.01","clientOid":{oid_json}}}]}}"#
    )
}

fn rest_place(oid_json: &str) -> String {
    format!(
        r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.01","clientOid":{oid_json}}}"#
    )
}

/// Number of open orders of account `a`.
async fn open_orders(h: &sim::SimHandle) -> usize {
    let (_, v) = signed_get(h, "a", "/api/v3/trade/unfilled-orders", "").await;
    v["data"]["list"].as_array().unwrap().len()
}

/// WebSocket: `#`, `+` and whitespace are accepted (and echoed in the reply and the push);
/// `.` and `/` (REST-only) and 33 characters are refused with `40017`.
#[tokio::test]
async fn the_websocket_pattern_accepts_hash_plus_and_spaces() {
    let h = common::start(true).await;
    let mut c = Client::ready(&h, "a").await;
    for (n, oid) in ["channel#123456", "p#1 +x", "tab\there", &"w".repeat(32)]
        .iter()
        .enumerate()
    {
        let json = Value::from(*oid).to_string();
        let r = c.trade(&ws_place(&format!("ok-{n}"), &json)).await;
        assert_eq!(r["code"], "0", "{oid:?}: {r}");
        assert_eq!(r["args"][0]["clientOid"], *oid);
        let push = c.recv().await;
        assert_eq!(topic(&push), "order");
        assert_eq!(item(&push)["clientOid"], *oid, "the push echoes it: {push}");
    }
    for (n, oid) in ["p.a/b", "a.b", "x/y", &"w".repeat(33), "é"]
        .iter()
        .enumerate()
    {
        let json = Value::from(*oid).to_string();
        let r = c.trade(&ws_place(&format!("bad-{n}"), &json)).await;
        assert_eq!(r["event"], "error", "{oid:?}: {r}");
        assert_eq!(r["code"], "40017", "{oid:?}: {r}");
        assert_eq!(r["msg"], "Parameter verification failed: clientOid");
    }
    assert_eq!(open_orders(&h).await, 4, "only the accepted ones rest");
    h.shutdown().await;
}

/// REST: `.` and `/` are accepted; `#`, `+` and spaces (WebSocket-only) are refused with
/// `40017` and nothing is placed.
#[tokio::test]
async fn the_rest_pattern_accepts_dots_and_slashes() {
    let h = common::start(true).await;
    for oid in ["p.a/b", "BITGET:1627293504612", "a-b_c"] {
        let (_, v) = signed_post(
            &h,
            "a",
            "/api/v3/trade/place-order",
            &rest_place(&Value::from(oid).to_string()),
        )
        .await;
        assert_eq!(v["code"], "00000", "{oid:?}: {v}");
        assert_eq!(v["data"]["clientOid"], oid);
    }
    for oid in ["channel#1", "p+1", "a b", &"r".repeat(33)] {
        let (_, v) = signed_post(
            &h,
            "a",
            "/api/v3/trade/place-order",
            &rest_place(&Value::from(oid).to_string()),
        )
        .await;
        assert_eq!(v["code"], "40017", "{oid:?}: {v}");
        assert_eq!(v["msg"], "Parameter verification failed: clientOid");
    }
    assert_eq!(open_orders(&h).await, 3);
    h.shutdown().await;
}
