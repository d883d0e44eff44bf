//! Trade-op and subscription rules of the reference that no other file covers, over real TLS
//! sockets: identifier precedence, batch-cancel identifier mixing, the batch topic spellings,
//! and which private topics send a snapshot.
#![allow(clippy::unwrap_used)]

mod common;

use common::{item, place, signed_get, topic, Client};
use serde_json::Value;

/// Places a resting buy and returns its orderId (the `live` push is read).
async fn rest(c: &mut Client, id: &str, oid: &str, price: &str) -> String {
    let r = c
        .trade(&place(
            id,
            "BTCUSDT",
            "buy",
            Some(price),
            "0.01",
            "gtc",
            oid,
        ))
        .await;
    assert_eq!(r["code"], "0", "{r}");
    assert_eq!(item(&c.recv().await)["orderStatus"], "live");
    r["args"][0]["orderId"].as_str().unwrap().to_string()
}

/// Open orders of account `a`, by clientOid.
async fn open_oids(h: &sim::SimHandle) -> Vec<String> {
    let (_, v) = signed_get(h, "a", "/api/v3/trade/unfilled-orders", "").await;
    let mut oids: Vec<String> = v["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["clientOid"].as_str().unwrap().to_string())
        .collect();
    oids.sort();
    oids
}

/// Reference §5.1 (Modify-/Cancel-Order channel pages [P]): "`orderId` or `clientOid`
/// (orderId wins)". A request naming order A by orderId and order B by clientOid acts on A.
#[tokio::test]
async fn order_id_wins_over_client_oid_on_modify_and_cancel() {
    let h = common::start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let a = rest(&mut c, "1", "ord-a", "50000").await;
    rest(&mut c, "2", "ord-b", "50001").await;
    let r = c
        .trade(&format!(
            r#"{{"op":"trade","id":"m","category":"usdt-futures","topic":"modify-order","args":[{{"orderId":"{a}","clientOid":"ord-b","price":"50002","qty":"0.01"}}]}}"#
        ))
        .await;
    assert_eq!(r["code"], "0", "{r}");
    let p = c.recv().await;
    assert_eq!(
        item(&p)["clientOid"],
        "ord-a",
        "the orderId's order changed: {p}"
    );
    assert_eq!(item(&p)["price"], "50002");
    let r = c
        .trade(&format!(
            r#"{{"op":"trade","id":"c","topic":"cancel-order","args":[{{"orderId":"{a}","clientOid":"ord-b"}}]}}"#
        ))
        .await;
    assert_eq!(r["code"], "0", "{r}");
    assert_eq!(item(&c.recv().await)["clientOid"], "ord-a");
    assert_eq!(open_oids(&h).await, ["ord-b"]);
    h.shutdown().await;
}

/// Reference §5.1 (Batch-Cancel-Order channel page [P]): "use one identifier type per call;
/// mixing makes clientOid ignored". An item with only a clientOid, next to an item with an
/// orderId, gets `40017` and its order stays open; alone, clientOid items cancel.
#[tokio::test]
async fn a_batch_cancel_that_mixes_identifiers_ignores_the_client_oids() {
    let h = common::start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let a = rest(&mut c, "1", "mix-a", "50000").await;
    rest(&mut c, "2", "mix-b", "50001").await;
    rest(&mut c, "3", "mix-c", "50002").await;
    let r = c
        .trade(&format!(
            r#"{{"op":"trade","id":"bc","topic":"batch-cancel","args":[{{"orderId":"{a}"}},{{"clientOid":"mix-b"}}]}}"#
        ))
        .await;
    assert_eq!(r["code"], "0", "{r}");
    assert_eq!(r["args"][0]["code"], "0", "{r}");
    assert_eq!(r["args"][1]["code"], "40017", "{r}");
    assert_eq!(
        r["args"][1]["msg"],
        "Parameter verification failed: orderId or clientOid"
    );
    assert_eq!(item(&c.recv().await)["clientOid"], "mix-a");
    assert_eq!(open_oids(&h).await, ["mix-b", "mix-c"]);
    let r = c
        .trade(r#"{"op":"trade","id":"bc2","topic":"batch-cancel","args":[{"clientOid":"mix-b"},{"clientOid":"mix-c"}]}"#)
        .await;
    assert_eq!(
        (&r["args"][0]["code"], &r["args"][1]["code"]),
        (&Value::from("0"), &Value::from("0")),
        "{r}"
    );
    h.shutdown().await;
}

/// Reference §5.1 topic naming conflict [?]: the docs and bitget-api say `batch-place` /
/// `batch-cancel`; go-bitget sends `batch-place-order` / `batch-cancel-order`. Both are
/// accepted and the reply echoes the topic as sent.
#[tokio::test]
async fn both_batch_topic_spellings_are_accepted() {
    let h = common::start(true).await;
    let mut c = Client::ready(&h, "a").await;
    for (n, (place_topic, cancel_topic)) in [
        ("batch-place", "batch-cancel"),
        ("batch-place-order", "batch-cancel-order"),
    ]
    .into_iter()
    .enumerate()
    {
        let r = c
            .trade(&format!(
                r#"{{"op":"trade","id":"p{n}","category":"usdt-futures","topic":"{place_topic}","args":[{{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.01","clientOid":"sp-{n}"}}]}}"#
            ))
            .await;
        assert_eq!(
            (&r["code"], &r["topic"]),
            (&"0".into(), &place_topic.into()),
            "{r}"
        );
        assert_eq!(r["args"][0]["code"], "0", "{r}");
        assert_eq!(item(&c.recv().await)["orderStatus"], "live");
        let r = c
            .trade(&format!(
                r#"{{"op":"trade","id":"c{n}","topic":"{cancel_topic}","args":[{{"clientOid":"sp-{n}"}}]}}"#
            ))
            .await;
        assert_eq!(
            (&r["code"], &r["topic"]),
            (&"0".into(), &cancel_topic.into()),
            "{r}"
        );
        assert_eq!(r["args"][0]["code"], "0", "{r}");
        assert_eq!(item(&c.recv().await)["orderStatus"], "cancelled");
    }
    h.shutdown().await;
}

/// Reference §3.2 private topics table: `order` and `fill` send no snapshot on subscribe,
/// `fast-fill` is acknowledged; `account` sends one. After the acks, the only frame before a
/// `pong` is the account snapshot.
#[tokio::test]
async fn only_account_and_position_subscriptions_send_snapshots() {
    let h = common::start(true).await;
    let mut c = Client::connect(&h, true).await;
    assert_eq!(c.login("a").await["event"], "login");
    c.send(r#"{"op":"subscribe","args":[{"instType":"UTA","topic":"order"},{"instType":"UTA","topic":"fill"},{"instType":"UTA","topic":"fast-fill","symbol":"default"},{"instType":"UTA","topic":"account"}]}"#).await;
    let mut frames = Vec::new();
    c.send("ping").await;
    loop {
        let t = c.recv_text().await.unwrap();
        if t == "pong" {
            break;
        }
        frames.push(serde_json::from_str::<Value>(&t).unwrap());
    }
    let acks: Vec<&str> = frames
        .iter()
        .filter(|f| f["event"] == "subscribe")
        .map(|f| f["arg"]["topic"].as_str().unwrap())
        .collect();
    assert_eq!(acks, ["order", "fill", "fast-fill", "account"]);
    let pushes: Vec<&str> = frames
        .iter()
        .filter(|f| f.get("event").is_none())
        .map(topic)
        .collect();
    assert_eq!(pushes, ["account"], "{frames:?}");
    h.shutdown().await;
}
