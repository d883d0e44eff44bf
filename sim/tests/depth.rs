//! Public depth over real TLS: `books` snapshot + incremental updates rebuild the same book as
//! `GET /api/v3/market/orderbook` after trading; `books1/5/15/50` are snapshots of their depth.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;

use codec::Decimal;
use common::{place, signed_get, start, Client};
use serde_json::Value;

fn dec(v: &Value) -> Decimal {
    match v {
        Value::String(s) => s.parse().unwrap(),
        other => other.to_string().parse().unwrap(),
    }
}

/// One side of a depth frame as (price, size).
fn levels(v: &Value) -> Vec<(Decimal, Decimal)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| (dec(&l[0]), dec(&l[1])))
        .collect()
}

#[derive(Default)]
struct Rebuilt {
    asks: BTreeMap<Decimal, Decimal>,
    bids: BTreeMap<Decimal, Decimal>,
    seq: Option<u64>,
    updates: usize,
}

impl Rebuilt {
    fn apply(&mut self, v: &Value) {
        assert_eq!(v["arg"]["topic"], "books", "{v}");
        let d = &v["data"][0];
        let seq = d["seq"].as_u64().unwrap();
        let pseq = d["pseq"].as_u64().unwrap();
        assert_eq!(d["checksum"], 0);
        match v["action"].as_str().unwrap() {
            "snapshot" => {
                assert!(self.seq.is_none(), "one snapshot, then updates");
                self.asks.clear();
                self.bids.clear();
            }
            "update" => {
                assert_eq!(Some(pseq), self.seq, "pseq = previous seq");
                self.updates += 1;
            }
            other => panic!("action {other}"),
        }
        assert!(self.seq.is_none_or(|s| seq > s));
        self.seq = Some(seq);
        for (side, key) in [(&mut self.asks, "a"), (&mut self.bids, "b")] {
            for (p, q) in levels(&d[key]) {
                if q.is_zero() {
                    assert!(side.remove(&p).is_some(), "removal of a known level {p}");
                } else {
                    side.insert(p, q);
                }
            }
        }
    }
}

/// Reads public frames until `pong`.
async fn drain(p: &mut Client, book: &mut Rebuilt, others: &mut Vec<Value>) {
    p.send("ping").await;
    loop {
        let t = p.recv_text().await.unwrap();
        if t == "pong" {
            return;
        }
        let v: Value = serde_json::from_str(&t).unwrap();
        if v["event"] == "subscribe" {
            continue;
        }
        if v["arg"]["topic"] == "books" {
            book.apply(&v);
        } else {
            others.push(v);
        }
    }
}

#[tokio::test]
async fn books_snapshot_and_updates_match_the_rest_orderbook_after_trading() {
    let h = start(true).await;
    let mut p = Client::connect(&h, false).await;
    p.send(r#"{"op":"subscribe","args":[{"instType":"usdt-futures","topic":"books","symbol":"BTCUSDT"},{"instType":"usdt-futures","topic":"books1","symbol":"BTCUSDT"},{"instType":"usdt-futures","topic":"books15","symbol":"BTCUSDT"},{"instType":"usdt-futures","topic":"books50","symbol":"BTCUSDT"}]}"#).await;
    let mut book = Rebuilt::default();
    let mut others = Vec::new();
    drain(&mut p, &mut book, &mut others).await;
    assert_eq!(book.asks.len(), 10, "the liquidity ladder");
    let mut a = Client::ready(&h, "a").await;
    let mut b = Client::ready(&h, "b").await;
    // Client orders appear in the depth; crossing orders consume it; cancels and modifies
    // remove and move levels.
    let ops = [
        (0, place("1", "BTCUSDT", "buy", Some("59000"), "0.01", "gtc", "d-1")),
        (0, place("2", "BTCUSDT", "sell", Some("61000"), "0.02", "gtc", "d-2")),
        (1, place("3", "BTCUSDT", "buy", Some("59000"), "0.03", "gtc", "d-3")),
        (1, place("4", "BTCUSDT", "sell", Some("59990"), "1.2", "ioc", "d-4")),
        (0, r#"{"op":"trade","id":"5","category":"usdt-futures","topic":"modify-order","args":[{"clientOid":"d-2","price":"61500","qty":"0.05"}]}"#.to_string()),
        (1, r#"{"op":"trade","id":"6","topic":"cancel-order","args":[{"clientOid":"d-3"}]}"#.to_string()),
        (0, place("7", "BTCUSDT", "buy", None, "0.7", "gtc", "d-5")),
    ];
    for (who, op) in ops {
        let c = if who == 0 { &mut a } else { &mut b };
        c.send(&op).await;
        // The reply comes first; the private pushes do not matter here.
        loop {
            let v = c.recv().await;
            if v["event"] == "trade" {
                break;
            }
        }
    }
    drain(&mut p, &mut book, &mut others).await;
    assert!(book.updates >= 7, "{}", book.updates);
    assert_eq!(
        book.bids.get(&"59000".parse().unwrap()).copied(),
        Some("0.01".parse().unwrap()),
        "a's order is in the depth, b's cancelled one is gone"
    );
    assert_eq!(
        book.asks.get(&"61500".parse().unwrap()).copied(),
        Some("0.05".parse().unwrap())
    );
    assert!(!book.asks.contains_key(&"61000".parse().unwrap()));

    let (_, rest) = signed_get(
        &h,
        "a",
        "/api/v3/market/orderbook",
        "category=USDT-FUTURES&symbol=BTCUSDT&limit=200",
    )
    .await;
    let ra = levels(&rest["data"]["a"]);
    let rb = levels(&rest["data"]["b"]);
    let wa: Vec<_> = book.asks.iter().map(|(p, q)| (*p, *q)).collect();
    let wb: Vec<_> = book.bids.iter().rev().map(|(p, q)| (*p, *q)).collect();
    assert_eq!(wa, ra, "asks");
    assert_eq!(wb, rb, "bids");

    // The snapshot channels carry their depth, the latest equal to the top of the book.
    let last = |topic: &str| {
        others
            .iter()
            .rev()
            .find(|v| v["arg"]["topic"] == topic)
            .cloned()
            .unwrap()
    };
    for (topic, n) in [("books1", 1), ("books15", 15), ("books50", 50)] {
        let v = last(topic);
        assert_eq!(v["action"], "snapshot");
        let d = &v["data"][0];
        let a = levels(&d["a"]);
        let b = levels(&d["b"]);
        assert_eq!(a.len(), n.min(ra.len()), "{topic}");
        assert_eq!(b.len(), n.min(rb.len()), "{topic}");
        assert_eq!(a[..], ra[..a.len()], "{topic}");
        assert_eq!(b[..], rb[..b.len()], "{topic}");
    }
    assert!(
        others
            .iter()
            .filter(|v| v["arg"]["topic"] == "books1")
            .count()
            >= 2
    );
    h.shutdown().await;
}
