//! The `position` channel around close-position orders, over real TLS sockets (issue 13 item 2).
//!
//! Source: Bitget UTA Positions-Channel page (https://www.bitget.com/api-doc/uta/websocket/private/Positions-Channel,
//! read via the mirrors bjxnyj.com / kqgmpj.cn): "Data will be pushed when … close-position
//! orders are placed …; futures positions are opened …; closed …; futures close-position orders
//! are modified …; futures close-position orders are cancelled". Reference §4.4: `size` =
//! `available` + `frozen`. Close-position orders are hedge-mode `sell long` / `buy short` and
//! one-way reduce-only orders (reference §8 "Position logic").
#![allow(clippy::unwrap_used)]

mod common;

use common::{account, item, signed_get, signed_post, topic, Client};
use serde_json::Value;
use sim::SimHandle;

/// Accounts `h` (switched to hedge mode) and `o` (one-way); liquidity on BTCUSDT futures
/// (best ask 60000.5, best bid 59999.5, 0.5 a level).
async fn start() -> SimHandle {
    let mut cfg = common::config(true);
    cfg.accounts = vec![account("h"), account("o")];
    let h = sim::Sim::start(cfg).await.unwrap();
    let (_, v) = signed_post(
        &h,
        "h",
        "/api/v3/account/set-hold-mode",
        r#"{"holdMode":"hedge_mode"}"#,
    )
    .await;
    assert_eq!(v["data"], "success", "{v}");
    h
}

/// Logs in and subscribes to `order` and `position` (no position snapshot: none yet).
async fn ready(h: &SimHandle, n: &str) -> Client {
    let mut c = Client::connect(h, true).await;
    assert_eq!(c.login(n).await["event"], "login");
    c.send(r#"{"op":"subscribe","args":[{"instType":"UTA","topic":"order"},{"instType":"UTA","topic":"position"}]}"#).await;
    for _ in 0..2 {
        assert_eq!(c.recv().await["event"], "subscribe");
    }
    c
}

/// A usdt-futures BTCUSDT op (`topic`, one args item).
fn op(topic: &str, args: &str) -> String {
    format!(
        r#"{{"op":"trade","id":"{topic}","category":"usdt-futures","topic":"{topic}","args":[{args}]}}"#
    )
}

/// Sends `req`, returns its reply; the pushes that follow are left for [`next_position`].
/// Order pushes of earlier requests are skipped; a position push nobody waited for fails.
async fn send(c: &mut Client, req: &str) -> Value {
    c.send(req).await;
    loop {
        let v = c.recv().await;
        match topic(&v) {
            "order" => continue,
            "position" => panic!("unexpected position push {v}"),
            _ => return v,
        }
    }
}

/// The next `position` push (order pushes are skipped); panics on anything else.
async fn next_position(c: &mut Client) -> Value {
    loop {
        let v = c.recv().await;
        match topic(&v) {
            "position" => return item(&v).clone(),
            "order" => continue,
            _ => panic!("unexpected frame {v}"),
        }
    }
}

fn sizes(p: &Value) -> (&str, &str, &str) {
    (
        p["size"].as_str().unwrap(),
        p["available"].as_str().unwrap(),
        p["frozen"].as_str().unwrap(),
    )
}

/// Hedge mode: placing, modifying and cancelling a close-long order each push the long with
/// its `frozen` / `available`; a second close order may close only what is available (`25231`);
/// the fill of a close order pushes the smaller position with the frozen it still has;
/// placing an opening order pushes nothing on the position channel.
#[tokio::test]
async fn close_orders_in_hedge_mode_freeze_and_push_the_position() {
    let h = start().await;
    let mut c = ready(&h, "h").await;
    // Open long 0.1 at the ask: one position push (the fill).
    let r = send(&mut c, &op("place-order", r#"{"symbol":"BTCUSDT","side":"buy","posSide":"long","orderType":"market","qty":"0.1","clientOid":"open-1"}"#)).await;
    assert_eq!(r["code"], "0", "{r}");
    let p = next_position(&mut c).await;
    assert_eq!(sizes(&p), ("0.1", "0.1", "0"));

    // Close order placed (resting sell long at 70000): frozen 0.04.
    let r = send(&mut c, &op("place-order", r#"{"symbol":"BTCUSDT","side":"sell","posSide":"long","orderType":"limit","price":"70000","qty":"0.04","clientOid":"close-1"}"#)).await;
    assert_eq!(r["code"], "0", "{r}");
    let p = next_position(&mut c).await;
    assert_eq!(p["posSide"], "long");
    assert_eq!(sizes(&p), ("0.1", "0.06", "0.04"));

    // Modified to 0.05: frozen follows.
    let r = send(
        &mut c,
        &op(
            "modify-order",
            r#"{"symbol":"BTCUSDT","clientOid":"close-1","qty":"0.05","price":"70000"}"#,
        ),
    )
    .await;
    assert_eq!(r["code"], "0", "{r}");
    let p = next_position(&mut c).await;
    assert_eq!(sizes(&p), ("0.1", "0.05", "0.05"));

    // REST current-position shows the same split.
    let (_, v) = signed_get(
        &h,
        "h",
        "/api/v3/position/current-position",
        "category=USDT-FUTURES&posSide=long",
    )
    .await;
    let rest = &v["data"]["list"][0];
    assert_eq!(
        (&rest["total"], &rest["available"], &rest["frozen"]),
        (
            &Value::from("0.1"),
            &Value::from("0.05"),
            &Value::from("0.05")
        ),
        "{v}"
    );

    // A close above what is available is refused, whatever the size.
    let r = send(&mut c, &op("place-order", r#"{"symbol":"BTCUSDT","side":"sell","posSide":"long","orderType":"limit","price":"70000","qty":"0.06","clientOid":"close-2"}"#)).await;
    assert_eq!(r["code"], "25231", "{r}");

    // An opening order rests: no position push. The cancel of the close order that follows
    // is the next position push, with frozen back to 0.
    let r = send(&mut c, &op("place-order", r#"{"symbol":"BTCUSDT","side":"buy","posSide":"long","orderType":"limit","price":"50000","qty":"0.01","clientOid":"open-2"}"#)).await;
    assert_eq!(r["code"], "0", "{r}");
    let r = send(
        &mut c,
        &op(
            "cancel-order",
            r#"{"symbol":"BTCUSDT","clientOid":"close-1"}"#,
        ),
    )
    .await;
    assert_eq!(r["code"], "0", "{r}");
    let p = next_position(&mut c).await;
    assert_eq!(sizes(&p), ("0.1", "0.1", "0"));

    // Two close orders, then one of them fills against the bid: the position shrinks and
    // keeps the other's frozen quantity.
    let r = send(&mut c, &op("place-order", r#"{"symbol":"BTCUSDT","side":"sell","posSide":"long","orderType":"limit","price":"70000","qty":"0.03","clientOid":"close-3"}"#)).await;
    assert_eq!(r["code"], "0", "{r}");
    assert_eq!(sizes(&next_position(&mut c).await), ("0.1", "0.07", "0.03"));
    let r = send(&mut c, &op("place-order", r#"{"symbol":"BTCUSDT","side":"sell","posSide":"long","orderType":"limit","price":"59999.5","qty":"0.02","clientOid":"close-4"}"#)).await;
    assert_eq!(r["code"], "0", "{r}");
    assert_eq!(
        sizes(&next_position(&mut c).await),
        ("0.08", "0.05", "0.03")
    );
    h.shutdown().await;
}

/// One-way mode: a reduce-only order is the close-position order; its placement and its
/// cancellation push the position with `frozen`.
#[tokio::test]
async fn reduce_only_orders_in_one_way_mode_freeze_and_push_the_position() {
    let h = start().await;
    let mut c = ready(&h, "o").await;
    let r = send(&mut c, &op("place-order", r#"{"symbol":"BTCUSDT","side":"buy","orderType":"market","qty":"0.1","clientOid":"open-1"}"#)).await;
    assert_eq!(r["code"], "0", "{r}");
    assert_eq!(sizes(&next_position(&mut c).await), ("0.1", "0.1", "0"));
    let r = send(&mut c, &op("place-order", r#"{"symbol":"BTCUSDT","side":"sell","orderType":"limit","price":"70000","qty":"0.03","reduceOnly":"yes","clientOid":"ro-1"}"#)).await;
    assert_eq!(r["code"], "0", "{r}");
    let p = next_position(&mut c).await;
    assert_eq!(p["holdMode"], "one_way_mode");
    assert_eq!(sizes(&p), ("0.1", "0.07", "0.03"));
    let r = send(
        &mut c,
        &op("cancel-order", r#"{"symbol":"BTCUSDT","clientOid":"ro-1"}"#),
    )
    .await;
    assert_eq!(r["code"], "0", "{r}");
    assert_eq!(sizes(&next_position(&mut c).await), ("0.1", "0.1", "0"));
    h.shutdown().await;
}
