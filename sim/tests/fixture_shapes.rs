//! The simulator's frames have the shape of the golden fixtures (copied from
//! `shared/fixtures/bitget-uta/` into `tests/fixtures/`): every field of the fixture is present
//! with the same JSON type (string / number / array / object), recursively.
#![allow(clippy::unwrap_used)]

mod common;

use common::{item, place, start, topic, Client};
use serde_json::Value;

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every key of `want` exists in `got` with the same kind; arrays compare their first items.
fn same_shape(want: &Value, got: &Value, path: &str, errors: &mut Vec<String>) {
    if kind(want) != kind(got) {
        errors.push(format!("{path}: want {} got {}", kind(want), kind(got)));
        return;
    }
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                match g.get(k) {
                    Some(gv) => same_shape(wv, gv, &format!("{path}.{k}"), errors),
                    None => errors.push(format!("{path}.{k}: missing")),
                }
            }
        }
        (Value::Array(w), Value::Array(g)) => {
            if let (Some(wv), Some(gv)) = (w.first(), g.first()) {
                same_shape(wv, gv, &format!("{path}[0]"), errors);
            }
        }
        _ => {}
    }
}

fn check(name: &str, got: &Value) {
    let mut errors = Vec::new();
    same_shape(&fixture(name), got, "", &mut errors);
    assert!(errors.is_empty(), "{name}: {errors:?}\n{got}");
}

#[tokio::test]
async fn frames_match_fixture_shapes() {
    let h = start(true).await;
    let mut c = Client::connect(&h, true).await;
    check("ws_login_ok.json", &c.login("a").await);
    c.send(r#"{"op":"subscribe","args":[{"instType":"UTA","topic":"order"}]}"#)
        .await;
    check("ws_subscribe_ack.json", &c.recv().await);
    c.send(r#"{"op":"subscribe","args":[{"instType":"UTA","topic":"fill"}]}"#)
        .await;
    c.recv().await;

    // Resting futures order with posSide (hedge mode): live push.
    let v = c
        .trade(r#"{"op":"trade","id":"P:1","category":"usdt-futures","topic":"place-order","args":[{"orderType":"limit","price":"32000","qty":"0.0002","side":"buy","posSide":"long","symbol":"BTCUSDT","timeInForce":"gtc","clientOid":"s1:1"}]}"#)
        .await;
    check("ws_place_order_ok.json", &v);
    let order_id = v["args"][0]["orderId"].as_str().unwrap().to_string();
    check("ws_push_order_live.json", &c.recv().await);

    let v = c
        .trade(&format!(
            r#"{{"args":[{{"orderId":"{order_id}","price":"32000.5"}}],"id":"m1","op":"trade","category":"usdt-futures","topic":"modify-order"}}"#
        ))
        .await;
    check("ws_modify_order_ok.json", &v);
    c.recv().await;
    let v = c
        .trade(&format!(
            r#"{{"args":[{{"orderId":"{order_id}"}}],"id":"c1","op":"trade","topic":"cancel-order"}}"#
        ))
        .await;
    check("ws_cancel_order_ok.json", &v);
    c.recv().await;

    // Market buy, filled at once: `new` push (the shape of an order push), filled push and
    // fill push.
    let v = c
        .trade(&place("mk", "BTCUSDT", "buy", None, "0.001", "gtc", "s1:4"))
        .await;
    assert_eq!(v["code"], "0");
    let n = c.recv().await;
    assert_eq!(item(&n)["orderStatus"], "new");
    check("ws_push_order_live.json", &n);
    let o = c.recv().await;
    assert_eq!(item(&o)["orderStatus"], "filled");
    check("ws_push_order_filled.json", &o);
    let f = c.recv().await;
    assert_eq!(topic(&f), "fill");
    check("ws_push_fill.json", &f);

    // Spot post-only that would take.
    c.trade(r#"{"op":"trade","id":"s1","category":"spot","topic":"place-order","args":[{"orderType":"limit","price":"1000","qty":"0.5","side":"sell","symbol":"ETHUSDT","timeInForce":"gtc","clientOid":"s2:1"}]}"#)
        .await;
    c.recv().await;
    c.trade(r#"{"op":"trade","id":"s2","category":"spot","topic":"place-order","args":[{"orderType":"limit","price":"1000","qty":"0.5","side":"buy","symbol":"ETHUSDT","timeInForce":"post_only","clientOid":"s2:a","stpMode":"cancel_maker"}]}"#)
        .await;
    let o = c.recv().await;
    assert_eq!(item(&o)["cancelReason"], "post_only_fill_cancel");
    check("ws_push_order_cancelled_post_only.json", &o);

    // Errors.
    let v = c
        .trade(r#"{"op":"trade","id":"IQAC","category":"USDT-FUTURES","topic":"place-order","args":[{}]}"#)
        .await;
    check("ws_trade_error_category.json", &v);
    let v = c
        .trade(r#"{"op":"trade","id":"bc","topic":"batch-cancel","args":[{"clientOid":"s2:1"},{"orderId":"1300000000000000009"}]}"#)
        .await;
    check("ws_batch_cancel_partial.json", &v);

    let mut bad = Client::connect(&h, true).await;
    bad.send(r#"{"op":"login","args":[{"apiKey":"key-a","passphrase":"nope","timestamp":"1","sign":"x"}]}"#)
        .await;
    check("ws_login_error.json", &bad.recv().await);
    h.shutdown().await;
}

#[tokio::test]
async fn account_and_position_pushes_match_fixture_shapes() {
    let mut cfg = common::config(true);
    cfg.accounts[1].balances = vec![sim::config::CoinBalance {
        coin: "USDT".into(),
        amount: "10".parse().unwrap(),
    }];
    let h = sim::Sim::start(cfg).await.unwrap();
    let mut c = Client::connect(&h, true).await;
    c.login("a").await;
    c.send(r#"{"op":"subscribe","args":[{"instType":"UTA","topic":"account"},{"instType":"UTA","topic":"position"}]}"#)
        .await;
    c.recv().await;
    c.recv().await;
    let snap = c.recv().await;
    check("ws_push_account.json", &snap);
    assert!(snap["data"][0]["unrealisedPnL"].is_string());
    let v = c
        .trade(&place("mk", "BTCUSDT", "buy", None, "0.001", "gtc", "s1:4"))
        .await;
    assert_eq!(v["code"], "0");
    let p = c.recv().await;
    assert_eq!(topic(&p), "position");
    check("ws_push_position.json", &p);
    let a = c.recv().await;
    assert_eq!(topic(&a), "account");
    check("ws_push_account.json", &a);

    let mut poor = Client::connect(&h, true).await;
    poor.login("b").await;
    let v = poor
        .trade(&place(
            "mg",
            "BTCUSDT",
            "buy",
            Some("60000"),
            "0.01",
            "gtc",
            "s1:5",
        ))
        .await;
    check("ws_trade_error_margin.json", &v);
    assert_eq!(v["code"], "25203");
    h.shutdown().await;
}
