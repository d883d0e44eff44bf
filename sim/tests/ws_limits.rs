//! WebSocket limits (reference §2.3) and tolerance of unknown keys in client messages.
#![allow(clippy::unwrap_used)]

mod common;

use common::{item, Client};

#[tokio::test]
async fn the_message_limit_counts_pings_and_json_ops() {
    let mut cfg = common::config(true);
    cfg.max_msgs_per_s = 10;
    let h = sim::Sim::start(cfg).await.unwrap();
    // Exactly the limit: every frame is answered.
    let mut c = Client::connect(&h, false).await;
    for i in 0..10 {
        if i % 2 == 0 {
            c.send("ping").await;
        } else {
            c.send(r#"{"op":"subscribe","args":[{"instType":"usdt-futures","topic":"ticker","symbol":"BTCUSDT"}]}"#).await;
        }
    }
    let mut answers = 0;
    while answers < 10 {
        let t = c.recv_text().await.expect("open");
        if t == "pong" || t.contains("\"event\":\"subscribe\"") {
            answers += 1;
        } else {
            assert!(!t.contains("30007"), "{t}");
        }
    }
    // Over the limit with JSON ops and pings mixed: 30007, then closed.
    let mut c = Client::connect(&h, false).await;
    for i in 0..25 {
        if i % 2 == 0 {
            c.send("ping").await;
        } else {
            c.send(r#"{"op":"subscribe","args":[{"instType":"usdt-futures","topic":"ticker","symbol":"BTCUSDT"}]}"#).await;
        }
    }
    let mut refused = false;
    while let Some(t) = c.recv_text().await {
        if t.contains("\"code\":30007") {
            refused = true;
        }
    }
    assert!(refused);
    assert_eq!(h.stats().msg_limit_closes, 1);
    h.shutdown().await;
}

#[tokio::test]
async fn unknown_keys_are_ignored_in_login_subscribe_and_trade() {
    let h = common::start(true).await;
    let mut c = Client::connect(&h, true).await;
    let ts = (sim::now_ms() / 1000).to_string();
    let sign = sim::auth::sign("secret-a", &format!("{ts}GET/user/verify"));
    c.send(&format!(
        r#"{{"op":"login","reqId":"r1","extra":{{"x":1}},"args":[{{"apiKey":"key-a","passphrase":"pass-a","timestamp":"{ts}","sign":"{sign}","recvWindow":5000,"whatever":null}}]}}"#
    ))
    .await;
    let v = c.recv().await;
    assert_eq!(v["event"], "login", "{v}");
    assert_eq!(v["code"], 0);
    c.send(r#"{"op":"subscribe","id":"s1","foo":"bar","args":[{"instType":"UTA","topic":"order","unknown":true}]}"#)
        .await;
    let v = c.recv().await;
    assert_eq!(v["event"], "subscribe", "{v}");
    let v = c
        .trade(r#"{"op":"trade","id":"t1","category":"usdt-futures","topic":"place-order","requestTime":"1","apiCode":"x","unknownTop":[1,2],"args":[{"orderType":"limit","price":"50000","qty":"0.001","side":"buy","symbol":"BTCUSDT","clientOid":"uk-1","receiveWindow":"5000","notAField":{"a":1}}]}"#)
        .await;
    assert_eq!(v["event"], "trade", "{v}");
    assert_eq!(v["code"], "0");
    let push = c.recv().await;
    assert_eq!(item(&push)["clientOid"], "uk-1");
    assert_eq!(item(&push)["orderStatus"], "live");
    h.shutdown().await;
}
