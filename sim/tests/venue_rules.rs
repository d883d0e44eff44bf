//! The venue rules a strategy meets live (issue 27), over the real WebSocket and REST with TLS:
//! the price band (`25205` / `25206`), the open-order caps (`25211`) and the modification
//! limits (`25569`, `25572`). Source: reference §6.2 error table and §7 instruments fields.
#![allow(clippy::unwrap_used)]

mod common;

use common::{signed_get, signed_post, Client};
use serde_json::Value;
use sim::{Category, SimConfig, SimHandle};

/// ETHUSDT usdt-futures (no liquidity in the common config) with its mark pinned at 3000.
async fn start(cfg: SimConfig) -> SimHandle {
    let h = sim::Sim::start(cfg).await.unwrap();
    assert!(h.set_mark(
        Category::UsdtFutures,
        "ETHUSDT",
        Some("3000".parse().unwrap())
    ));
    h
}

fn eth_args(side: &str, price: &str, oid: &str) -> String {
    format!(
        r#"{{"symbol":"ETHUSDT","side":"{side}","orderType":"limit","price":"{price}","qty":"0.01","clientOid":"{oid}"}}"#
    )
}

fn ws_place(id: &str, side: &str, price: &str, oid: &str) -> String {
    format!(
        r#"{{"op":"trade","id":"{id}","category":"usdt-futures","topic":"place-order","args":[{}]}}"#,
        eth_args(side, price, oid)
    )
}

fn ws_modify(id: &str, oid: &str, price: &str) -> String {
    format!(
        r#"{{"op":"trade","id":"{id}","category":"usdt-futures","topic":"modify-order","args":[{{"symbol":"ETHUSDT","clientOid":"{oid}","price":"{price}"}}]}}"#
    )
}

fn rest_place(side: &str, price: &str, oid: &str) -> String {
    format!(
        r#"{{"category":"USDT-FUTURES","symbol":"ETHUSDT","side":"{side}","orderType":"limit","price":"{price}","qty":"0.01","clientOid":"{oid}"}}"#
    )
}

/// Drains the order pushes an accepted op caused (one per accepted place / modify here).
async fn push(c: &mut Client) -> Value {
    let p = c.recv().await;
    assert_eq!(common::topic(&p), "order", "{p}");
    p
}

/// Buy above mark × 1.05 → `25206`, sell below mark × 0.95 → `25205` (bounds inclusive), on
/// place, batch-place items and modify over the WebSocket and on the REST place, batch and
/// modify endpoints; the instruments response serves the ratios and caps.
#[tokio::test]
async fn price_band_over_websocket_and_rest() {
    let h = start(common::config(true)).await;
    let mut c = Client::ready(&h, "a").await;
    // Served as configured.
    let (_, v) = common::https_get_with(
        &h,
        "/api/v3/market/instruments?category=USDT-FUTURES&symbol=ETHUSDT",
        &[],
    )
    .await;
    let i = &v["data"][0];
    assert_eq!(i["buyLimitPriceRatio"], "0.05");
    assert_eq!(i["sellLimitPriceRatio"], "0.05");
    assert_eq!(i["maxSymbolOrderNum"], "200");
    assert_eq!(i["maxProductOrderNum"], "400");

    // WebSocket place.
    let r = c.trade(&ws_place("1", "buy", "3150.01", "b-over")).await;
    assert_eq!(r["code"], "25206", "{r}");
    assert_eq!(r["msg"], "price above 5% band");
    let r = c.trade(&ws_place("2", "sell", "2849.99", "s-under")).await;
    assert_eq!(r["code"], "25205", "{r}");
    assert_eq!(r["msg"], "price below 5% band");
    // A buy far below the mark and a sell far above it are not the band's business.
    for (n, (side, px)) in [
        ("buy", "3150"),
        ("sell", "2850"),
        ("buy", "1000"),
        ("sell", "9000"),
    ]
    .into_iter()
    .enumerate()
    {
        let r = c
            .trade(&ws_place(&format!("ok{n}"), side, px, &format!("ok{n}")))
            .await;
        assert_eq!(r["code"], "0", "{side} {px}: {r}");
        push(&mut c).await;
        // Cancelled again, so that the edge orders never meet each other.
        let cancel = format!(
            r#"{{"op":"trade","id":"c{n}","category":"usdt-futures","topic":"cancel-order","args":[{{"clientOid":"ok{n}"}}]}}"#
        );
        assert_eq!(c.trade(&cancel).await["code"], "0");
        push(&mut c).await;
    }
    // WebSocket batch-place: per item.
    let batch = format!(
        r#"{{"op":"trade","id":"3","category":"usdt-futures","topic":"batch-place","args":[{},{},{}]}}"#,
        eth_args("buy", "3200", "bb1"),
        eth_args("buy", "2990", "bb2"),
        eth_args("sell", "2800", "bb3")
    );
    let r = c.trade(&batch).await;
    let codes: Vec<&str> = r["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["25206", "0", "25205"], "{r}");
    push(&mut c).await;
    // WebSocket modify: a resting buy moved above the band is refused, the order stays.
    let r = c.trade(&ws_modify("4", "bb2", "3160")).await;
    assert_eq!(r["code"], "25206", "{r}");
    let r = c.trade(&ws_modify("5", "bb2", "3100")).await;
    assert_eq!(r["code"], "0", "{r}");
    push(&mut c).await;

    // REST place, batch and modify.
    let (status, v) = signed_post(
        &h,
        "a",
        "/api/v3/trade/place-order",
        &rest_place("buy", "3300", "r-over"),
    )
    .await;
    assert_eq!(v["code"], "25206", "{status} {v}");
    let (_, v) = signed_post(
        &h,
        "a",
        "/api/v3/trade/place-order",
        &rest_place("sell", "2000", "r-under"),
    )
    .await;
    assert_eq!(v["code"], "25205", "{v}");
    let body = format!(
        "[{},{}]",
        rest_place("sell", "2000", "rb1"),
        rest_place("sell", "3000", "rb2")
    );
    let (_, v) = signed_post(&h, "a", "/api/v3/trade/place-batch", &body).await;
    let data = v["data"].as_array().unwrap();
    assert_eq!(data[0]["code"], "25205", "{v}");
    assert_eq!(data[1]["code"], "00000", "{v}");
    let (_, v) = signed_post(
        &h,
        "a",
        "/api/v3/trade/modify-order",
        r#"{"category":"USDT-FUTURES","symbol":"ETHUSDT","clientOid":"rb2","price":"2000"}"#,
    )
    .await;
    assert_eq!(v["code"], "25205", "{v}");
    h.shutdown().await;
}

/// `maxSymbolOrderNum` 3 and `maxProductOrderNum` 4: the fourth open ETHUSDT order of an
/// account is refused `25211` (WebSocket and REST), another account is not affected, a
/// cancelled order frees its slot, and BTCUSDT of the same product line meets the product cap.
#[tokio::test]
async fn open_order_caps_per_symbol_and_product_line() {
    let mut cfg = common::config(true);
    for i in &mut cfg.instruments {
        i.max_symbol_order_num = 3;
        i.max_product_order_num = 4;
    }
    let h = start(cfg).await;
    let mut c = Client::ready(&h, "a").await;
    for n in 0..3 {
        let r = c
            .trade(&ws_place(&format!("p{n}"), "buy", "2900", &format!("o{n}")))
            .await;
        assert_eq!(r["code"], "0", "{r}");
        push(&mut c).await;
    }
    let r = c.trade(&ws_place("p3", "buy", "2900", "o3")).await;
    assert_eq!(r["code"], "25211", "{r}");
    assert_eq!(r["msg"], "Exceeds the limit of 3 maximum orders");
    let (_, v) = signed_post(
        &h,
        "a",
        "/api/v3/trade/place-order",
        &rest_place("buy", "2900", "r3"),
    )
    .await;
    assert_eq!(v["code"], "25211", "{v}");
    // Account b has its own count.
    let mut b = Client::ready(&h, "b").await;
    let r = b.trade(&ws_place("b0", "buy", "2900", "b0")).await;
    assert_eq!(r["code"], "0", "{r}");
    // The product line: one BTCUSDT order fits (4th of the line), a second does not.
    let btc = |id: &str, oid: &str| {
        common::place(id, "BTCUSDT", "buy", Some("59000"), "0.001", "gtc", oid)
    };
    let r = c.trade(&btc("q0", "btc0")).await;
    assert_eq!(r["code"], "0", "{r}");
    push(&mut c).await;
    let r = c.trade(&btc("q1", "btc1")).await;
    assert_eq!(r["code"], "25211", "{r}");
    assert_eq!(r["msg"], "Exceeds the limit of 4 maximum orders");
    // Spot is another product line.
    let spot = r#"{"op":"trade","id":"s0","category":"spot","topic":"place-order","args":[{"symbol":"ETHUSDT","side":"buy","orderType":"limit","price":"100","qty":"0.1","clientOid":"spot0"}]}"#;
    let r = c.trade(spot).await;
    assert_eq!(r["code"], "0", "{r}");
    push(&mut c).await;
    // A cancel frees a slot.
    let cancel = r#"{"op":"trade","id":"c0","category":"usdt-futures","topic":"cancel-order","args":[{"clientOid":"o0"}]}"#;
    let r = c.trade(cancel).await;
    assert_eq!(r["code"], "0", "{r}");
    push(&mut c).await;
    let r = c.trade(&ws_place("p4", "buy", "2900", "o4")).await;
    assert_eq!(r["code"], "0", "{r}");
    let (_, v) = signed_get(&h, "a", "/api/v3/trade/unfilled-orders", "").await;
    assert_eq!(v["data"]["list"].as_array().unwrap().len(), 5, "{v}");
    h.shutdown().await;
}

/// `max_modifications_per_order` 2: the third modification of an order is refused `25569`
/// (WebSocket and REST); `max_pending_modifications` 2 with `modify_pending_ms` 60 000: the
/// third modification while two are in progress is refused `25572`, in a batch-modify too.
#[tokio::test]
async fn modification_count_and_pending_limits() {
    let mut cfg = common::config(true);
    cfg.max_modifications_per_order = 2;
    let h = start(cfg).await;
    let mut c = Client::ready(&h, "a").await;
    let r = c.trade(&ws_place("p", "buy", "2900", "m")).await;
    assert_eq!(r["code"], "0", "{r}");
    push(&mut c).await;
    for (n, px) in ["2901", "2902"].into_iter().enumerate() {
        let r = c.trade(&ws_modify(&format!("m{n}"), "m", px)).await;
        assert_eq!(r["code"], "0", "{r}");
        push(&mut c).await;
    }
    let r = c.trade(&ws_modify("m2", "m", "2903")).await;
    assert_eq!(r["code"], "25569", "{r}");
    assert_eq!(r["msg"], "exceeded max modifications");
    let (_, v) = signed_post(
        &h,
        "a",
        "/api/v3/trade/modify-order",
        r#"{"category":"USDT-FUTURES","symbol":"ETHUSDT","clientOid":"m","price":"2904"}"#,
    )
    .await;
    assert_eq!(v["code"], "25569", "{v}");
    h.shutdown().await;

    let mut cfg = common::config(true);
    cfg.max_pending_modifications = 2;
    cfg.modify_pending_ms = 60_000;
    let h = start(cfg).await;
    let mut c = Client::ready(&h, "a").await;
    for oid in ["x", "y"] {
        let r = c.trade(&ws_place(oid, "buy", "2900", oid)).await;
        assert_eq!(r["code"], "0", "{r}");
        push(&mut c).await;
    }
    for (n, px) in ["2901", "2902"].into_iter().enumerate() {
        let r = c.trade(&ws_modify(&format!("x{n}"), "x", px)).await;
        assert_eq!(r["code"], "0", "{r}");
        push(&mut c).await;
    }
    let r = c.trade(&ws_modify("x2", "x", "2903")).await;
    assert_eq!(r["code"], "25572", "{r}");
    assert_eq!(r["msg"], "too many pending modification requests");
    // batch-modify: per item (y has nothing pending).
    let batch = r#"{"op":"trade","id":"bm","category":"usdt-futures","topic":"batch-modify","args":[{"clientOid":"x","price":"2904"},{"clientOid":"y","price":"2904"}]}"#;
    let r = c.trade(batch).await;
    let codes: Vec<&str> = r["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["25572", "0"], "{r}");
    h.shutdown().await;
}
