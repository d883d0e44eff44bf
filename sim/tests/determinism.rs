//! Seeded mode with a manual clock: the same scripted session against two simulator instances
//! gets byte-identical replies and pushes on every connection (ids, timestamps, connId, depth
//! seq, random-walk moves included).
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use common::{place, Client};
use sim::{ManualClock, SimHandle};

const START_MS: u64 = 1_760_000_000_000;

/// Reads frames until `pong` (the barrier), returning those before it.
async fn barrier(c: &mut Client, log: &mut Vec<String>) {
    c.send("ping").await;
    loop {
        let t = c.recv_text().await.expect("open");
        if t == "pong" {
            return;
        }
        log.push(t);
    }
}

async fn login(c: &mut Client, n: &str, ts_s: u64, log: &mut Vec<String>) {
    let sign = sim::auth::sign(&format!("secret-{n}"), &format!("{ts_s}GET/user/verify"));
    c.send(&format!(
        r#"{{"op":"login","args":[{{"apiKey":"key-{n}","passphrase":"pass-{n}","timestamp":"{ts_s}","sign":"{sign}"}}]}}"#
    ))
    .await;
    log.push(c.recv_text().await.unwrap());
    c.send(r#"{"op":"subscribe","args":[{"instType":"UTA","topic":"order"},{"instType":"UTA","topic":"fill"},{"instType":"UTA","topic":"account"},{"instType":"UTA","topic":"position"}]}"#).await;
}

/// Runs the script; returns the transcript of the public, `a` and `b` connections.
async fn session(seed: u64) -> [Vec<String>; 3] {
    let clock = Arc::new(ManualClock::new(START_MS));
    let mut cfg = common::config(true);
    cfg.liquidity.walk_percent = 50;
    cfg.liquidity.seed = seed;
    let h: SimHandle = sim::Sim::start_with_clock(cfg, clock.clone())
        .await
        .unwrap();
    let mut logs: [Vec<String>; 3] = Default::default();
    let mut p = Client::connect(&h, false).await;
    let mut a = Client::connect(&h, true).await;
    let mut b = Client::connect(&h, true).await;
    p.send(r#"{"op":"subscribe","args":[{"instType":"usdt-futures","topic":"books","symbol":"BTCUSDT"},{"instType":"usdt-futures","topic":"books5","symbol":"BTCUSDT"}]}"#).await;
    login(&mut a, "a", START_MS / 1000, &mut logs[1]).await;
    login(&mut b, "b", START_MS / 1000, &mut logs[2]).await;
    macro_rules! sync_all {
        () => {{
            barrier(&mut p, &mut logs[0]).await;
            barrier(&mut a, &mut logs[1]).await;
            barrier(&mut b, &mut logs[2]).await;
        }};
    }
    sync_all!();
    let steps: Vec<(usize, String)> = vec![
        (1, place("1", "BTCUSDT", "buy", Some("59998"), "0.2", "gtc", "a-1")),
        (1, place("2", "BTCUSDT", "sell", Some("60003"), "0.1", "gtc", "a-2")),
        (2, place("3", "BTCUSDT", "sell", Some("59990"), "0.9", "ioc", "b-1")),
        (2, place("4", "BTCUSDT", "buy", None, "0.3", "gtc", "b-2")),
        (1, r#"{"op":"trade","id":"5","category":"usdt-futures","topic":"modify-order","args":[{"clientOid":"a-2","price":"60001","qty":"0.2"}]}"#.to_string()),
        (1, r#"{"op":"trade","id":"6","category":"usdt-futures","topic":"batch-place","args":[{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"59000","qty":"0.01","clientOid":"a-3"},{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"59000.05","qty":"0.01"}]}"#.to_string()),
        (2, r#"{"op":"trade","id":"7","topic":"cancel-order","args":[{"clientOid":"nope"}]}"#.to_string()),
    ];
    for (who, text) in steps {
        let c = if who == 1 { &mut a } else { &mut b };
        c.send(&text).await;
        sync_all!();
        // Time passes: random-walk steps (one per refresh_ms) move the ladder.
        clock.advance(170);
        sync_all!();
    }
    a.send(r#"{"op":"trade","id":"8","topic":"cancel-order","args":[{"clientOid":"a-1"}]}"#)
        .await;
    clock.advance(1000);
    sync_all!();
    sync_all!();
    h.shutdown().await;
    logs
}

#[tokio::test]
async fn same_seed_and_manual_clock_give_identical_streams() {
    let one = session(7).await;
    let two = session(7).await;
    for (i, (x, y)) in one.iter().zip(two.iter()).enumerate() {
        assert_eq!(x.len(), y.len(), "connection {i}");
        for (fx, fy) in x.iter().zip(y.iter()) {
            assert_eq!(fx, fy, "connection {i}");
        }
    }
    // The transcript is not trivial: ids, fills, depth updates, timestamps from the clock.
    let all = one.concat().join("\n");
    assert!(all.contains("\"connId\":\"sim-000002\""), "{all}");
    assert!(all.contains("\"topic\":\"fill\""));
    assert!(all.contains("\"topic\":\"account\""));
    assert!(all.contains("\"topic\":\"position\""));
    assert!(all.contains("\"action\":\"update\""));
    assert!(all.contains(&format!("\"cTime\":\"{START_MS}\"")));
    assert!(one[1]
        .iter()
        .any(|f| f.contains("\"orderStatus\":\"cancelled\"")));
    // The seed matters: another seed walks the ladder differently.
    let other = session(8).await;
    assert_ne!(one[0], other[0]);
}

#[tokio::test]
async fn the_injected_clock_drives_rest_time_and_the_login_window() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let h = sim::Sim::start_with_clock(common::config(true), clock.clone())
        .await
        .unwrap();
    assert_eq!(h.clock().now_ms(), START_MS);
    let (_, v) = common::https_get_with(&h, "/api/v3/public/time", &[]).await;
    assert_eq!(v["data"]["serverTime"], START_MS.to_string());
    assert_eq!(v["requestTime"], START_MS);
    clock.advance(1234);
    let (_, v) = common::https_get_with(&h, "/api/v3/public/time", &[]).await;
    assert_eq!(v["data"]["serverTime"], (START_MS + 1234).to_string());
    // A login stamped with the system time is outside the window of the injected clock.
    let mut c = Client::connect(&h, true).await;
    let v = c.login("a").await;
    assert_eq!(v["code"], 30014, "{v}");
    // One stamped with the injected clock's time is accepted.
    let mut c = Client::connect(&h, true).await;
    let mut log = Vec::new();
    login(&mut c, "a", (START_MS + 1234) / 1000, &mut log).await;
    assert!(log[0].contains("\"event\":\"login\""), "{log:?}");
    h.shutdown().await;
}
