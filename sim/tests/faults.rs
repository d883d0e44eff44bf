//! Faults on demand, each observed over real TLS sockets (see `sim::faults`).
#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use common::{item, place, signed_get, signed_post, start, topic, Client};
use sim::Scope;

fn resting(id: &str, oid: &str) -> String {
    place(id, "BTCUSDT", "buy", Some("50000"), "0.001", "gtc", oid)
}

#[tokio::test]
async fn close_connections_of_one_account_then_all() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    let mut b = Client::ready(&h, "b").await;
    assert_eq!(
        h.faults().close_connections(Scope::uid("uid-a")).unwrap(),
        1
    );
    assert_eq!(a.recv_text().await, None, "a is closed");
    b.send("ping").await;
    assert_eq!(b.recv_text().await.as_deref(), Some("pong"), "b stays open");
    // b (and a, if its task has not unregistered yet).
    assert!(h.faults().close_connections(Scope::All).unwrap() >= 1);
    assert_eq!(b.recv_text().await, None);
    assert!(h.faults().close_connections(Scope::uid("nobody")).is_err());
    h.shutdown().await;
}

#[tokio::test]
async fn service_upgrade_notice_then_close_after_the_delay() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    let t0 = Instant::now();
    assert_eq!(h.faults().service_upgrade(Scope::All, 300).unwrap(), 1);
    let v = a.recv().await;
    assert_eq!(v["event"], "error", "{v}");
    assert_eq!(
        v["code"], 30033,
        "numeric code like the other control errors: {v}"
    );
    assert!(v["msg"].as_str().unwrap().contains("upgrade"));
    assert_eq!(a.recv_text().await, None);
    assert!(t0.elapsed() >= Duration::from_millis(300));
    h.shutdown().await;
}

#[tokio::test]
async fn delayed_replies_let_pushes_arrive_first() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    h.faults().delay_replies(Scope::uid("uid-a"), 400).unwrap();
    let t0 = Instant::now();
    a.send(&resting("d1", "delay-1")).await;
    let first = a.recv().await;
    assert_eq!(
        topic(&first),
        "order",
        "the push overtakes the delayed reply: {first}"
    );
    assert_eq!(item(&first)["orderStatus"], "live");
    let reply = a.recv().await;
    assert_eq!(reply["event"], "trade", "{reply}");
    assert_eq!(reply["id"], "d1");
    assert!(t0.elapsed() >= Duration::from_millis(400));
    // Back to normal: reply first, then the push.
    h.faults().delay_replies(Scope::uid("uid-a"), 0).unwrap();
    assert_eq!(a.trade(&resting("d2", "delay-2")).await["event"], "trade");
    assert_eq!(topic(&a.recv().await), "order");
    h.shutdown().await;
}

#[tokio::test]
async fn delayed_pushes_are_overtaken_by_replies() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    // Long enough for the ping below to arrive while the push is held.
    h.faults().delay_pushes(Scope::All, 1000).unwrap();
    let t0 = Instant::now();
    assert_eq!(a.trade(&resting("p1", "pdelay-1")).await["event"], "trade");
    a.send("ping").await;
    assert_eq!(
        a.recv_text().await.as_deref(),
        Some("pong"),
        "the pong overtakes the delayed push"
    );
    let push = a.recv().await;
    assert_eq!(item(&push)["clientOid"], "pdelay-1");
    assert!(t0.elapsed() >= Duration::from_millis(1000));
    h.shutdown().await;
}

#[tokio::test]
async fn duplicated_pushes_arrive_twice() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    h.faults()
        .duplicate_pushes(Scope::uid("uid-a"), true)
        .unwrap();
    assert_eq!(a.trade(&resting("u1", "dup-1")).await["event"], "trade");
    let p1 = a.recv_text().await.unwrap();
    let p2 = a.recv_text().await.unwrap();
    assert_eq!(p1, p2);
    assert!(p1.contains("dup-1"));
    h.faults()
        .duplicate_pushes(Scope::uid("uid-a"), false)
        .unwrap();
    assert_eq!(a.trade(&resting("u2", "dup-2")).await["event"], "trade");
    assert_eq!(item(&a.recv().await)["clientOid"], "dup-2");
    a.send("ping").await;
    assert_eq!(
        a.recv_text().await.as_deref(),
        Some("pong"),
        "one push only"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn reordered_pushes_are_swapped_pairwise() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    h.faults().reorder_pushes(Scope::All, 3000).unwrap();
    assert_eq!(a.trade(&resting("r1", "ro-1")).await["event"], "trade");
    // The push of ro-1 is held; the reply to the next request comes first.
    assert_eq!(a.trade(&resting("r2", "ro-2")).await["event"], "trade");
    assert_eq!(item(&a.recv().await)["clientOid"], "ro-2");
    assert_eq!(item(&a.recv().await)["clientOid"], "ro-1");
    // A lone push goes out when the window ends.
    assert_eq!(a.trade(&resting("r3", "ro-3")).await["event"], "trade");
    assert_eq!(item(&a.recv().await)["clientOid"], "ro-3");
    h.shutdown().await;
}

#[tokio::test]
async fn paused_pushes_are_dropped_until_resumed() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    h.faults().pause_pushes(Scope::uid("uid-a")).unwrap();
    assert_eq!(a.trade(&resting("s1", "pause-1")).await["event"], "trade");
    a.send("ping").await;
    assert_eq!(
        a.recv_text().await.as_deref(),
        Some("pong"),
        "no push, socket open"
    );
    h.faults().resume_pushes(Scope::uid("uid-a")).unwrap();
    assert_eq!(a.trade(&resting("s2", "pause-2")).await["event"], "trade");
    assert_eq!(
        item(&a.recv().await)["clientOid"],
        "pause-2",
        "pushes resume; the dropped one is never sent"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn silence_drops_every_frame_until_lifted() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    let mut b = Client::ready(&h, "b").await;
    h.faults().silence(Scope::uid("uid-a"), true).unwrap();
    a.send("ping").await;
    a.send(&resting("s1", "silent-1")).await;
    // b is not silenced: its pong arrives; a's ping and order were handled but not answered.
    b.send("ping").await;
    assert_eq!(b.recv_text().await.as_deref(), Some("pong"));
    let quiet = tokio::time::timeout(Duration::from_millis(300), a.recv_text()).await;
    assert!(quiet.is_err(), "nothing while silent: {quiet:?}");
    h.faults().silence(Scope::uid("uid-a"), false).unwrap();
    a.send("ping").await;
    assert_eq!(
        a.recv_text().await.as_deref(),
        Some("pong"),
        "socket still open"
    );
    let (_, info) = signed_get(&h, "a", "/api/v3/trade/order-info", "clientOid=silent-1").await;
    assert_eq!(
        info["code"], "00000",
        "the order sent while silent was placed: {info}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn rejected_trade_ops_are_not_applied() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    h.faults()
        .reject_trade_ops(
            Scope::uid("uid-a"),
            2,
            Some("place-order"),
            43012,
            "Insufficient balance",
        )
        .unwrap();
    let v = a.trade(&resting("x1", "rej-1")).await;
    assert_eq!(
        v,
        serde_json::json!({"event":"error","id":"x1","code":"43012","msg":"Insufficient balance"})
    );
    // Another topic is not affected.
    let v = a
        .trade(r#"{"op":"trade","id":"c1","topic":"cancel-order","args":[{"clientOid":"rej-1"}]}"#)
        .await;
    assert_eq!(v["code"], "25204", "{v}");
    assert_eq!(a.trade(&resting("x2", "rej-2")).await["code"], "43012");
    assert_eq!(h.stats().orders_received, 0, "never reached the venue");
    let v = a.trade(&resting("x3", "rej-3")).await;
    assert_eq!(v["event"], "trade", "the rule is used up: {v}");
    h.shutdown().await;
}

#[tokio::test]
async fn outcome_unknown_after_applying_the_order() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    h.faults()
        .unknown_outcome(Scope::uid("uid-a"), 1, None, true)
        .unwrap();
    let v = a.trade(&resting("k1", "unk-1")).await;
    assert_eq!(
        v,
        serde_json::json!({"event":"error","id":"k1","code":"40010","msg":"Request timed out"})
    );
    let push = a.recv().await;
    assert_eq!(item(&push)["clientOid"], "unk-1");
    assert_eq!(item(&push)["orderStatus"], "live");
    let (_, info) = signed_get(&h, "a", "/api/v3/trade/order-info", "clientOid=unk-1").await;
    assert_eq!(info["code"], "00000", "{info}");
    assert_eq!(info["data"]["orderStatus"], "live");
    h.shutdown().await;
}

#[tokio::test]
async fn outcome_unknown_without_applying_the_order() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    h.faults()
        .unknown_outcome(Scope::All, 1, Some("place-order"), false)
        .unwrap();
    let v = a.trade(&resting("n1", "unk-2")).await;
    assert_eq!(v["code"], "40010");
    assert_eq!(v["id"], "n1");
    a.send("ping").await;
    assert_eq!(a.recv_text().await.as_deref(), Some("pong"), "no push");
    let (_, info) = signed_get(&h, "a", "/api/v3/trade/order-info", "clientOid=unk-2").await;
    assert_eq!(info["code"], "25204", "{info}");
    h.shutdown().await;
}

#[tokio::test]
async fn faults_from_the_configuration() {
    let mut cfg = common::config(true);
    cfg.faults = toml::from_str::<sim::faults::FaultsConfig>(
        r#"
        duplicate_pushes = true
        [[trade_rules]]
        uid = "uid-a"
        topic = "place-order"
        count = 1
        kind = "reject"
        code = 40725
        msg = "service return an error"
        "#,
    )
    .unwrap();
    let h = sim::Sim::start(cfg).await.unwrap();
    let mut a = Client::ready(&h, "a").await;
    assert_eq!(a.trade(&resting("f1", "cfg-1")).await["code"], "40725");
    assert_eq!(a.trade(&resting("f2", "cfg-2")).await["event"], "trade");
    let p1 = a.recv_text().await.unwrap();
    assert_eq!(a.recv_text().await.unwrap(), p1, "duplicated");
    h.shutdown().await;
}

#[tokio::test]
async fn http_control_endpoint_when_enabled() {
    let mut cfg = common::config(true);
    cfg.faults.control_api = true;
    let h = sim::Sim::start(cfg).await.unwrap();
    let mut a = Client::ready(&h, "a").await;
    let (status, v) = signed_post(
        &h,
        "a",
        "/sim/control/faults",
        r#"{"fault":"unknown_outcome","uid":"uid-a","count":1,"applied":false}"#,
    )
    .await;
    assert!(status.contains("200"), "{status} {v}");
    assert_eq!(a.trade(&resting("h1", "http-1")).await["code"], "40010");
    let (_, v) = signed_post(
        &h,
        "a",
        "/sim/control/faults",
        r#"{"fault":"close_connections","uid":"uid-a"}"#,
    )
    .await;
    assert_eq!(v["data"]["connections"], 1, "{v}");
    assert_eq!(a.recv_text().await, None);
    let (status, _) = signed_post(&h, "a", "/sim/control/faults", r#"{"fault":"nope"}"#).await;
    assert!(status.contains("400"), "{status}");
    h.shutdown().await;

    // Off by default.
    let h = start(true).await;
    let (status, v) = signed_post(&h, "a", "/sim/control/faults", r#"{"fault":"clear"}"#).await;
    assert!(status.contains("404"), "{status} {v}");
    h.shutdown().await;
}

#[tokio::test]
async fn trade_op_faults_apply_to_rest_orders_too() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    let body = |oid: &str| {
        format!(
            r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","clientOid":"{oid}"}}"#
        )
    };
    h.faults()
        .reject_trade_ops(Scope::uid("uid-a"), 1, None, 43012, "Insufficient balance")
        .unwrap();
    h.faults()
        .unknown_outcome(Scope::uid("uid-a"), 1, Some("place-order"), true)
        .unwrap();
    let (status, v) = signed_post(&h, "a", "/api/v3/trade/place-order", &body("rest-1")).await;
    assert!(status.contains("400"), "{status}");
    assert_eq!(v["code"], "43012", "{v}");
    let (_, v) = signed_post(&h, "a", "/api/v3/trade/place-order", &body("rest-2")).await;
    assert_eq!(v["code"], "40010", "{v}");
    assert_eq!(v["msg"], "Request timed out");
    // Applied: the WS connection gets the order push; the first one was never placed.
    assert_eq!(item(&a.recv().await)["clientOid"], "rest-2");
    let (_, info) = signed_get(&h, "a", "/api/v3/trade/order-info", "clientOid=rest-1").await;
    assert_eq!(info["code"], "25204", "{info}");
    let (_, v) = signed_post(&h, "a", "/api/v3/trade/place-order", &body("rest-3")).await;
    assert_eq!(v["code"], "00000", "rules used up: {v}");
    h.shutdown().await;
}
