//! Position moves over real TLS sockets (signed REST, WebSocket pushes): `POST
//! /api/v3/account/move-positions` effects and every refusal with its code, `GET
//! /api/v3/account/move-position-history`. The simulator runs on a `ManualClock` set by the
//! test before each move (requests are signed with the clock's time).
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use common::{account, https_post_with, signed_get, signed_post, topic, Client};
use serde_json::Value;
use sim::config::{ApiKeyConfig, CoinBalance, HoldMode, Permission};
use sim::{Category, ManualClock, SimHandle};

const HOUR: u64 = 3_600_000;
/// 2026-11-28 00:00:00.000 UTC.
const DAY0: u64 = 1_795_824_000_000;
const MOVE: &str = "/api/v3/account/move-positions";
const HISTORY: &str = "/api/v3/account/move-position-history";

/// Accounts: `m` (whitelisted master; extra read-only key `ro`), its subs `s1` (one-way),
/// `s2` (hedge mode), `thin` (1 000 USDT); `x` (whitelisted master) with sub `xs`; `n` (master
/// not whitelisted) with sub `ns`. Manual clock at [`at`]`(0, 30)`; the ladder is refreshed
/// every 10 minutes of clock time (no random walk).
async fn start() -> Sim {
    let mut cfg = common::config(true);
    cfg.liquidity.refresh_ms = 600_000;
    let mut m = account("m");
    m.move_positions_whitelist = true;
    m.api_keys = vec![ApiKeyConfig {
        api_key: "key-ro".into(),
        secret: "secret-ro".into(),
        passphrase: "pass-ro".into(),
        permissions: vec![Permission::Read],
    }];
    let sub = |n: &str, master: &str| {
        let mut a = account(n);
        a.master_uid = Some(format!("uid-{master}"));
        a
    };
    let mut s2 = sub("s2", "m");
    s2.hold_mode = HoldMode::HedgeMode;
    let mut thin = sub("thin", "m");
    thin.balances = vec![CoinBalance {
        coin: "USDT".into(),
        amount: "1000".parse().unwrap(),
    }];
    let mut x = account("x");
    x.move_positions_whitelist = true;
    cfg.accounts = vec![
        m,
        sub("s1", "m"),
        s2,
        thin,
        x,
        sub("xs", "x"),
        account("n"),
        sub("ns", "n"),
    ];
    let clock = Arc::new(ManualClock::new(at(0, 30)));
    let h = sim::Sim::start_with_clock(cfg, clock.clone())
        .await
        .unwrap();
    Sim { h, clock }
}

/// A running simulator and its manual clock.
struct Sim {
    h: SimHandle,
    clock: Arc<ManualClock>,
}

impl std::ops::Deref for Sim {
    type Target = SimHandle;
    fn deref(&self) -> &SimHandle {
        &self.h
    }
}

impl Sim {
    async fn shutdown(self) {
        self.h.shutdown().await;
    }
}

/// `min` minutes after `hour`:00 UTC of [`DAY0`] (`hour` 24 = the next day).
fn at(hour: u64, min: u64) -> u64 {
    DAY0 + hour * HOUR + min * 60_000
}

fn body(from: &str, to: &str, items: &[(&str, &str, &str)]) -> String {
    let list: Vec<String> = items
        .iter()
        .map(|(sym, side, qty)| format!(r#"{{"symbol":"{sym}","side":"{side}","qty":"{qty}"}}"#))
        .collect();
    format!(
        r#"{{"fromUid":"uid-{from}","toUid":"uid-{to}","category":"USDT-FUTURES","positionList":[{}]}}"#,
        list.join(",")
    )
}

/// Sets the clock to `t`, then moves with the key of `key`.
async fn mv(h: &Sim, key: &str, t: u64, body: &str) -> (String, Value) {
    h.clock.set(t);
    signed_post(h, key, MOVE, body).await
}

fn assert_refused(r: &(String, Value), code: &str, msg_part: &str) {
    assert!(r.0.contains("400"), "{r:?}");
    assert_eq!(r.1["code"], code, "{r:?}");
    assert!(
        r.1["msg"].as_str().unwrap().contains(msg_part),
        "{msg_part}: {r:?}"
    );
    assert_eq!(r.1["data"], Value::Null);
}

/// Market order over signed REST (`posSide` for hedge-mode accounts).
async fn market(h: &SimHandle, n: &str, side: &str, qty: &str, pos_side: Option<&str>) {
    let ps = pos_side
        .map(|p| format!(r#","posSide":"{p}""#))
        .unwrap_or_default();
    let b = format!(
        r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"{side}","orderType":"market","qty":"{qty}"{ps}}}"#
    );
    let r = signed_post(h, n, "/api/v3/trade/place-order", &b).await;
    assert_eq!(r.1["code"], "00000", "{r:?}");
}

/// A resting limit order; returns its orderId.
async fn limit(h: &SimHandle, n: &str, side: &str, price: &str, pos_side: Option<&str>) -> String {
    let ps = pos_side
        .map(|p| format!(r#","posSide":"{p}""#))
        .unwrap_or_default();
    let b = format!(
        r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"{side}","orderType":"limit","price":"{price}","qty":"0.01","timeInForce":"gtc"{ps}}}"#
    );
    let r = signed_post(h, n, "/api/v3/trade/place-order", &b).await;
    assert_eq!(r.1["code"], "00000", "{r:?}");
    r.1["data"]["orderId"].as_str().unwrap().to_string()
}

/// BTCUSDT positions of `n` as (posSide, size, avgPrice, leverage, holdMode).
async fn positions(h: &SimHandle, n: &str) -> Vec<(String, String, String, String, String)> {
    let (_, v) = signed_get(
        h,
        n,
        "/api/v3/position/current-position",
        "category=USDT-FUTURES&symbol=BTCUSDT",
    )
    .await;
    assert_eq!(v["code"], "00000", "{v}");
    v["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let f = |k: &str| p[k].as_str().unwrap_or("").to_string();
            (
                f("posSide"),
                f("total"),
                f("avgPrice"),
                f("leverage"),
                f("holdMode"),
            )
        })
        .collect()
}

fn pos(
    side: &str,
    size: &str,
    avg: &str,
    lev: &str,
    hold: &str,
) -> (String, String, String, String, String) {
    (
        side.into(),
        size.into(),
        avg.into(),
        lev.into(),
        hold.into(),
    )
}

async fn usdt_balance(h: &SimHandle, n: &str) -> codec::Decimal {
    let (_, v) = signed_get(h, n, "/api/v3/account/assets", "").await;
    let a = v["data"]["assets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["coin"] == "USDT")
        .unwrap()
        .clone();
    a["balance"].as_str().unwrap().parse().unwrap()
}

fn d(s: &str) -> codec::Decimal {
    s.parse().unwrap()
}

/// Logs in, subscribes to the four private topics and reads the acks and snapshots away.
/// `has_position`: `n` holds a position (a `position` snapshot follows that ack).
async fn watcher(h: &SimHandle, n: &str, has_position: bool) -> Client {
    let mut c = Client::connect(h, true).await;
    // Signed with the simulator's (manual) clock.
    let ts = h.clock().now_ms() / 1000;
    let sign = sim::auth::sign(&format!("secret-{n}"), &format!("{ts}GET/user/verify"));
    c.send(&format!(
        r#"{{"op":"login","args":[{{"apiKey":"key-{n}","passphrase":"pass-{n}","timestamp":"{ts}","sign":"{sign}"}}]}}"#
    ))
    .await;
    assert_eq!(c.recv().await["event"], "login");
    for t in ["order", "fill", "position", "account"] {
        c.send(&format!(
            r#"{{"op":"subscribe","args":[{{"instType":"UTA","topic":"{t}"}}]}}"#
        ))
        .await;
        assert_eq!(c.recv().await["event"], "subscribe");
        // position: a snapshot only with positions; account: always.
        if t == "account" || (t == "position" && has_position) {
            assert_eq!(topic(&c.recv().await), t);
        }
    }
    c
}

/// Frames up to and including the next `account` push.
async fn until_account(c: &mut Client) -> Vec<Value> {
    let mut out = Vec::new();
    loop {
        let v = c.recv().await;
        let done = topic(&v) == "account";
        out.push(v);
        if done {
            return out;
        }
    }
}

#[tokio::test]
async fn move_cancels_orders_moves_at_mark_without_fee_and_pushes_both_accounts() {
    let h = start().await;
    // s1 (one-way): long 0.1 at 60000.5, a pending buy. s2 (hedge, leverage 20): a pending
    // short opening order.
    market(&h, "s1", "buy", "0.1", None).await;
    let s1_order = limit(&h, "s1", "buy", "50000", None).await;
    let r = signed_post(
        &h,
        "s2",
        "/api/v3/account/set-leverage",
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","leverage":"20"}"#,
    )
    .await;
    assert_eq!(r.1["code"], "00000", "{r:?}");
    let s2_order = limit(&h, "s2", "sell", "70000", Some("short")).await;
    // A pending order on another symbol stays.
    let b = r#"{"category":"USDT-FUTURES","symbol":"ETHUSDT","side":"buy","orderType":"limit","price":"1000","qty":"0.1","timeInForce":"gtc"}"#;
    assert_eq!(
        signed_post(&h, "s1", "/api/v3/trade/place-order", b)
            .await
            .1["code"],
        "00000"
    );
    assert!(h.set_mark(Category::UsdtFutures, "BTCUSDT", Some(d("61000"))));
    let mut w1 = watcher(&h, "s1", true).await;
    let mut w2 = watcher(&h, "s2", false).await;
    let s1_before = usdt_balance(&h, "s1").await;
    let s2_before = usdt_balance(&h, "s2").await;
    let fills_before = h.stats().fills;

    let t = at(10, 30);
    let r = mv(
        &h,
        "m",
        t,
        &body("s1", "s2", &[("BTCUSDT", "sell", "0.06")]),
    )
    .await;
    assert!(r.0.contains("200"), "{r:?}");
    assert_eq!(r.1["code"], "00000", "{r:?}");
    same_keys(&fixture_ok(), &r.1, "");
    let close = &r.1["data"]["closePosition"];
    let open = &r.1["data"]["openPosition"];
    assert_eq!(close.as_array().unwrap().len(), 1);
    assert_eq!(open.as_array().unwrap().len(), 1);
    assert_eq!(close[0]["code"], "");
    assert_eq!(open[0]["code"], "");
    let close_id = close[0]["orderId"].as_str().unwrap().to_string();
    assert_eq!(close_id.len(), 19);
    assert_ne!(close_id, open[0]["orderId"].as_str().unwrap());
    assert!(!open[0]["clientOid"].as_str().unwrap().is_empty());

    // Source: its pending BTCUSDT order cancelled first, then position and account.
    let f1 = until_account(&mut w1).await;
    let topics: Vec<&str> = f1.iter().map(topic).collect();
    assert_eq!(topics, ["order", "position", "account"], "{f1:?}");
    assert_eq!(f1[0]["data"][0]["orderId"], s1_order.as_str());
    assert_eq!(f1[0]["data"][0]["orderStatus"], "cancelled");
    assert_eq!(f1[0]["data"][0]["cancelReason"], "normal_cancel");
    let p = &f1[1]["data"][0];
    assert_eq!(p["posSide"], "long");
    assert_eq!(p["size"], "0.04");
    assert_eq!(p["avgPrice"], "60000.5");
    assert_eq!(p["closeFeeTotal"], "0");
    // Target: its pending order cancelled, the long opened at the mark with its own leverage
    // and hold mode, no fee.
    let f2 = until_account(&mut w2).await;
    let topics: Vec<&str> = f2.iter().map(topic).collect();
    assert_eq!(topics, ["order", "position", "account"], "{f2:?}");
    assert_eq!(f2[0]["data"][0]["orderId"], s2_order.as_str());
    assert_eq!(f2[0]["data"][0]["orderStatus"], "cancelled");
    let p = &f2[1]["data"][0];
    assert_eq!(p["posSide"], "long");
    assert_eq!(p["size"], "0.06");
    assert_eq!(p["avgPrice"], "61000");
    assert_eq!(p["markPrice"], "61000");
    assert_eq!(p["leverage"], "20");
    assert_eq!(p["holdMode"], "hedge_mode");
    assert_eq!(p["openFeeTotal"], "0");

    // REST views agree; no fill, no fee: s1 realised (61000 − 60000.5) × 0.06, s2 unchanged.
    assert_eq!(
        positions(&h, "s1").await,
        vec![pos("long", "0.04", "60000.5", "10", "one_way_mode")]
    );
    assert_eq!(
        positions(&h, "s2").await,
        vec![pos("long", "0.06", "61000", "20", "hedge_mode")]
    );
    assert_eq!(
        usdt_balance(&h, "s1").await,
        d("59.97").checked_add(s1_before).unwrap()
    );
    assert_eq!(usdt_balance(&h, "s2").await, s2_before);
    assert_eq!(h.stats().fills, fills_before);
    let (_, u) = signed_get(&h, "s2", "/api/v3/trade/unfilled-orders", "").await;
    assert_eq!(u["data"]["list"].as_array().unwrap().len(), 0, "{u}");
    let (_, u) = signed_get(&h, "s1", "/api/v3/trade/unfilled-orders", "").await;
    let left = u["data"]["list"].as_array().unwrap();
    assert_eq!(left.len(), 1, "{u}");
    assert_eq!(left[0]["symbol"], "ETHUSDT");

    // History (master key), newest first.
    let (_, v) = signed_get(&h, "m", HISTORY, "category=USDT-FUTURES").await;
    assert_eq!(v["code"], "00000", "{v}");
    let rec = &v["data"]["list"][0];
    assert_eq!(rec["fromUid"], "uid-s1");
    assert_eq!(rec["toUid"], "uid-s2");
    assert_eq!(rec["orderId"], close_id.as_str());
    assert_eq!(rec["symbol"], "BTCUSDT");
    assert_eq!(rec["posSide"], "long");
    assert_eq!(rec["qty"], "0.06");
    assert_eq!(rec["price"], "61000");
    assert_eq!(rec["status"], "completed");
    assert_eq!(rec["createdTime"], t.to_string());
    // A sub-account key cannot read it; another master sees none of it.
    let (_, v) = signed_get(&h, "s1", HISTORY, "category=USDT-FUTURES").await;
    assert_eq!(v["code"], "40014", "{v}");
    let (_, v) = signed_get(&h, "x", HISTORY, "category=USDT-FUTURES").await;
    assert_eq!(v["data"]["list"].as_array().unwrap().len(), 0, "{v}");
    h.shutdown().await;
}

#[tokio::test]
async fn move_leaves_the_public_book_alone_and_nets_in_a_one_way_target() {
    let h = start().await;
    // m (master) long 0.05; s1 (one-way) short 0.02 at 59999.5.
    market(&h, "m", "buy", "0.05", None).await;
    market(&h, "s1", "sell", "0.02", None).await;
    assert!(h.set_mark(Category::UsdtFutures, "BTCUSDT", Some(d("60100"))));
    let (_, before) = signed_get(
        &h,
        "m",
        "/api/v3/market/orderbook",
        "category=USDT-FUTURES&symbol=BTCUSDT&limit=50",
    )
    .await;
    let fills = h.stats().fills;
    let r = mv(
        &h,
        "m",
        at(3, 20),
        &body("m", "s1", &[("BTCUSDT", "sell", "0.05")]),
    )
    .await;
    assert_eq!(r.1["code"], "00000", "{r:?}");
    let (_, after) = signed_get(
        &h,
        "m",
        "/api/v3/market/orderbook",
        "category=USDT-FUTURES&symbol=BTCUSDT&limit=50",
    )
    .await;
    assert_eq!(before["data"]["a"], after["data"]["a"]);
    assert_eq!(before["data"]["b"], after["data"]["b"]);
    assert_eq!(h.stats().fills, fills);
    // m's position is gone; s1's short 0.02 is closed by the received long, 0.03 long remains
    // at the mark.
    assert_eq!(positions(&h, "m").await, vec![]);
    assert_eq!(
        positions(&h, "s1").await,
        vec![pos("long", "0.03", "60100", "10", "one_way_mode")]
    );
    h.shutdown().await;
}

#[tokio::test]
async fn refused_without_a_master_trade_key_or_whitelist() {
    let h = start().await;
    market(&h, "s1", "buy", "0.1", None).await;
    market(&h, "ns", "buy", "0.1", None).await;
    let t = at(10, 30);
    let b = body("s1", "s2", &[("BTCUSDT", "sell", "0.01")]);
    // A sub-account's key.
    assert_refused(&mv(&h, "s1", t, &b).await, "40014", "master account");
    // The master's read-only key.
    assert_refused(&mv(&h, "ro", t, &b).await, "40014", "trade");
    // A master not on the whitelist, within its own system.
    let b = body("ns", "n", &[("BTCUSDT", "sell", "0.01")]);
    assert_refused(&mv(&h, "n", t, &b).await, "40014", "whitelist");
    assert_eq!(
        positions(&h, "ns").await,
        vec![pos("long", "0.1", "60000.5", "10", "one_way_mode")]
    );
    h.shutdown().await;
}

#[tokio::test]
async fn refused_outside_the_keys_master_sub_system() {
    let h = start().await;
    market(&h, "s1", "buy", "0.1", None).await;
    market(&h, "xs", "buy", "0.1", None).await;
    // Requests of one UID 1 s apart (the always-on 1/s/UID quota).
    let t = at(10, 30);
    let same = "same master-sub account system";
    // m's key, target in x's system.
    let r = mv(
        &h,
        "m",
        t,
        &body("s1", "xs", &[("BTCUSDT", "sell", "0.01")]),
    )
    .await;
    assert_refused(&r, "40017", same);
    // x's key (whitelisted master), both uids in m's system.
    let r = mv(
        &h,
        "x",
        t,
        &body("s1", "s2", &[("BTCUSDT", "sell", "0.01")]),
    )
    .await;
    assert_refused(&r, "40017", same);
    // Unknown uid.
    let r = mv(
        &h,
        "m",
        t + 1_000,
        &body("s1", "nobody", &[("BTCUSDT", "sell", "0.01")]),
    )
    .await;
    assert_refused(&r, "40017", same);
    // Same uid on both sides.
    let r = mv(
        &h,
        "m",
        t + 2_000,
        &body("s1", "s1", &[("BTCUSDT", "sell", "0.01")]),
    )
    .await;
    assert_refused(&r, "40017", "differ");
    // The same request within x's own system passes.
    let r = mv(
        &h,
        "x",
        t + 1_000,
        &body("xs", "x", &[("BTCUSDT", "sell", "0.01")]),
    )
    .await;
    assert_eq!(r.1["code"], "00000", "{r:?}");
    h.shutdown().await;
}

#[tokio::test]
async fn refused_within_five_minutes_of_every_hour() {
    let h = start().await;
    market(&h, "s1", "buy", "0.1", None).await;
    let b = body("s1", "s2", &[("BTCUSDT", "sell", "0.01")]);
    let msg = "within 5 minutes";
    // hh:55:00 .. hh+1:04:59.999, at several hours (not only the 8-hourly funding times).
    for t in [
        at(7, 2),
        at(9, 55),
        at(10, 0),
        at(10, 4) + 59_999,
        at(13, 57),
    ] {
        assert_refused(&mv(&h, "m", t, &b).await, "25002", msg);
    }
    assert_eq!(
        positions(&h, "s1").await,
        vec![pos("long", "0.1", "60000.5", "10", "one_way_mode")]
    );
    // hh:05:00 is outside.
    let r = mv(&h, "m", at(14, 5), &b).await;
    assert_eq!(r.1["code"], "00000", "{r:?}");
    // hh:54:59.999 too.
    let r = mv(&h, "m", at(14, 54) + 59_999, &b).await;
    assert_eq!(r.1["code"], "00000", "{r:?}");
    h.shutdown().await;
}

#[tokio::test]
async fn refused_when_the_source_mmr_is_at_least_80_percent() {
    let h = start().await;
    // thin: 1000 USDT, long 0.1 at 60000.5 (fee 3.60003). At mark 50250: maintenance margin
    // 0.1 × 50250 × 0.004 = 20.1, equity 996.39997 − 975.05 = 21.34997 → MMR ≈ 94 %.
    market(&h, "thin", "buy", "0.1", None).await;
    assert!(h.set_mark(Category::UsdtFutures, "BTCUSDT", Some(d("50250"))));
    let b = body("thin", "s1", &[("BTCUSDT", "sell", "0.1")]);
    let (_, a) = signed_get(&h, "thin", "/api/v3/account/assets", "").await;
    let mmr: codec::Decimal = a["data"]["mmr"].as_str().unwrap().parse().unwrap();
    assert!(mmr >= d("0.8"), "{a}");
    assert_refused(&mv(&h, "m", at(10, 30), &b).await, "25012", "MMR");
    // At mark 50400 (MMR ≈ 55 %) the move passes — a minute after the refused request, which
    // passed the spacing rule and so is "the previous request".
    assert!(h.set_mark(Category::UsdtFutures, "BTCUSDT", Some(d("50400"))));
    let (_, a) = signed_get(&h, "thin", "/api/v3/account/assets", "").await;
    let mmr: codec::Decimal = a["data"]["mmr"].as_str().unwrap().parse().unwrap();
    assert!(mmr < d("0.8"), "{a}");
    assert_refused(
        &mv(&h, "m", at(10, 30) + 1_000, &b).await,
        "25004",
        "1 minute",
    );
    let r = mv(&h, "m", at(10, 31), &b).await;
    assert_eq!(r.1["code"], "00000", "{r:?}");
    assert_eq!(positions(&h, "thin").await, vec![]);
    h.shutdown().await;
}

/// P4: "Each request must be at least 1 minute apart." The minute runs from the previous
/// request that passed the spacing rule, successful or not; requests refused before it, or by
/// it, do not restart the minute.
#[tokio::test]
async fn refused_less_than_a_minute_after_the_previous_request() {
    let h = start().await;
    market(&h, "s1", "buy", "0.1", None).await;
    let b = body("s1", "s2", &[("BTCUSDT", "sell", "0.01")]);
    let t = at(10, 20);
    assert_eq!(mv(&h, "m", t, &b).await.1["code"], "00000");
    // (Requests of one UID stay 1 s apart: the 1/s/UID quota counts refused ones too. The
    // exact millisecond bounds are in `rules::tests`.)
    assert_refused(&mv(&h, "m", t + 59_000, &b).await, "25004", "1 minute");
    // The refused request did not restart the minute: one minute after the success passes.
    assert_eq!(mv(&h, "m", t + 60_000, &b).await.1["code"], "00000");
    // A request whose items all fail moves nothing but is a request: the next one within
    // the minute is refused, the one a minute later passes.
    let none = body("s1", "s2", &[("BTCUSDT", "buy", "0.01")]);
    let t2 = t + 120_000;
    let r = mv(&h, "m", t2, &none).await;
    assert_eq!(r.1["code"], "00000");
    assert_eq!(r.1["data"]["closePosition"][0]["code"], "25227");
    assert_refused(&mv(&h, "m", t2 + 59_000, &b).await, "25004", "1 minute");
    assert_eq!(mv(&h, "m", t2 + 60_000, &b).await.1["code"], "00000");
    // Requests refused before the spacing rule (a parameter, the master-sub system, the
    // blackout) are not "the previous request": 1 s after them a move passes (t3 + 2 s is
    // 68 s after the last admitted request, t2 + 60 s).
    let t3 = t2 + 126_000;
    let bad = b.replace("USDT-FUTURES", "SPOT");
    assert_refused(&mv(&h, "m", t3, &bad).await, "41101", "category=SPOT");
    let outside = body("s1", "xs", &[("BTCUSDT", "sell", "0.01")]);
    assert_refused(
        &mv(&h, "m", t3 + 1_000, &outside).await,
        "40017",
        "same master-sub",
    );
    assert_eq!(mv(&h, "m", t3 + 2_000, &b).await.1["code"], "00000");
    assert_refused(
        &mv(&h, "m", at(10, 55), &b).await,
        "25002",
        "within 5 minutes",
    );
    assert_refused(
        &mv(&h, "m", at(11, 4) + 59_000, &b).await,
        "25002",
        "within 5 minutes",
    );
    assert_eq!(mv(&h, "m", at(11, 5), &b).await.1["code"], "00000");
    // Spacing is per master system: x moves at once.
    market(&h, "xs", "buy", "0.1", None).await;
    let r = mv(
        &h,
        "x",
        at(11, 5),
        &body("xs", "x", &[("BTCUSDT", "sell", "0.01")]),
    )
    .await;
    assert_eq!(r.1["code"], "00000", "{r:?}");
    // 5 moves of 0.01 left s1 with 0.05.
    assert_eq!(
        positions(&h, "s1").await,
        vec![pos("long", "0.05", "60000.5", "10", "one_way_mode")]
    );
    h.shutdown().await;
}

/// P4 "Rate limit: 1/sec/UID": always on (the demo config used here has `[rate_limits]`
/// off), per UID, taken before the body is read and before every move rule; a refused request
/// takes no token and is not "the previous request" of the 1-minute spacing.
#[tokio::test]
async fn a_second_request_within_a_second_gets_429_before_the_move_rules() {
    let h = start().await;
    market(&h, "s1", "buy", "0.1", None).await;
    let b = body("s1", "s2", &[("BTCUSDT", "sell", "0.01")]);
    let t = at(10, 20);
    let (sent, limited) = (h.stats().move_positions_requests, h.stats().rate_limited);
    // A malformed body takes the second's token too.
    assert_refused(&mv(&h, "m", t, "{}").await, "40017", "fromUid");
    let r = mv(&h, "m", t + 999, &b).await;
    assert!(r.0.contains("429"), "{r:?}");
    assert_eq!(r.1["code"], "429", "{r:?}");
    assert_eq!(r.1["msg"], "Too Many Requests", "{r:?}");
    assert_eq!(r.1["data"], Value::Null, "{r:?}");
    assert_eq!(r.1["requestTime"], t + 999, "{r:?}");
    // Another UID has its own quota (and its own spacing).
    market(&h, "xs", "buy", "0.1", None).await;
    let xb = body("xs", "x", &[("BTCUSDT", "sell", "0.01")]);
    assert_eq!(mv(&h, "x", t + 999, &xb).await.1["code"], "00000");
    // The 429 took no token and did not start the minute: at t + 1 s the move passes.
    assert_eq!(mv(&h, "m", t + 1_000, &b).await.1["code"], "00000");
    // Within the next second: 429, not the spacing rule's 25004 ...
    let r = mv(&h, "m", t + 1_999, &b).await;
    assert!(r.0.contains("429"), "{r:?}");
    assert_eq!(r.1["code"], "429");
    // ... after it, the spacing rule.
    assert_refused(&mv(&h, "m", t + 2_000, &b).await, "25004", "1 minute");
    assert_eq!(mv(&h, "m", t + 61_000, &b).await.1["code"], "00000");
    // Every authenticated request is counted (7), two of them as rate-limited.
    assert_eq!(h.stats().move_positions_requests - sent, 7);
    assert_eq!(h.stats().rate_limited - limited, 2);
    assert_eq!(
        positions(&h, "s1").await,
        vec![pos("long", "0.08", "60000.5", "10", "one_way_mode")]
    );
    h.shutdown().await;
}

#[tokio::test]
async fn refused_after_fifty_successful_moves_in_a_utc_day() {
    let h = start().await;
    market(&h, "s1", "buy", "0.1", None).await;
    let b = body("s1", "s2", &[("BTCUSDT", "sell", "0.001")]);
    // Requests whose items all fail ("counting from a successful call") do not count.
    let none = body("s1", "s2", &[("BTCUSDT", "buy", "0.001")]);
    // 50 moves on one UTC day: hours 1..=10, minutes 10, 20, 30, 40, 50; between them, at
    // minutes 15, 25, 35, 45 (hh:55 is in the blackout), and at 00:31 .. 00:50, a request
    // that moves nothing (45 of them).
    for min in [31, 35, 40, 45, 50] {
        let r = mv(&h, "m", at(0, min), &none).await;
        assert_eq!(r.1["data"]["closePosition"][0]["code"], "25227", "{r:?}");
    }
    let mut n = 0;
    for hour in 1..=10 {
        for min in [10, 20, 30, 40, 50] {
            let r = mv(&h, "m", at(hour, min), &b).await;
            assert_eq!(r.1["code"], "00000", "move {n}: {r:?}");
            assert_eq!(r.1["data"]["closePosition"][0]["code"], "", "move {n}");
            n += 1;
            if min < 50 {
                let r = mv(&h, "m", at(hour, min + 5), &none).await;
                assert_eq!(r.1["data"]["closePosition"][0]["code"], "25227", "{r:?}");
            }
        }
    }
    assert_eq!(n, 50);
    assert_refused(&mv(&h, "m", at(11, 10), &b).await, "25211", "50");
    assert_refused(&mv(&h, "m", at(23, 50), &b).await, "25211", "50");
    // The next UTC day counts afresh.
    assert_eq!(mv(&h, "m", at(24, 10), &b).await.1["code"], "00000");
    assert_eq!(
        positions(&h, "s1").await,
        vec![pos("long", "0.049", "60000.5", "10", "one_way_mode")]
    );
    h.shutdown().await;
}

#[tokio::test]
async fn refused_for_item_count_category_and_margin_mode() {
    let h = start().await;
    market(&h, "s1", "buy", "0.1", None).await;
    // One request a second (the always-on 1/s/UID quota).
    let mut t = at(10, 30);
    let mut next = || {
        t += 1_000;
        t
    };
    let eleven = vec![("BTCUSDT", "sell", "0.001"); 11];
    assert_refused(
        &mv(&h, "m", next(), &body("s1", "s2", &eleven)).await,
        "40017",
        "1 to 10",
    );
    assert_refused(
        &mv(&h, "m", next(), &body("s1", "s2", &[])).await,
        "40017",
        "1 to 10",
    );
    for cat in ["SPOT", "COIN-FUTURES", "MARGIN"] {
        let b = body("s1", "s2", &[("BTCUSDT", "sell", "0.01")]).replace("USDT-FUTURES", cat);
        assert_refused(
            &mv(&h, "m", next(), &b).await,
            "41101",
            &format!("category={cat}"),
        );
    }
    let b = body("s1", "s2", &[("BTCUSDT", "sell", "0.01")])
        .replace(r#""category""#, r#""marginMode":"isolated","category""#);
    assert_refused(&mv(&h, "m", next(), &b).await, "25002", "cross margin");
    // Ten items pass (ten slices of one position).
    let ten = vec![("BTCUSDT", "sell", "0.001"); 10];
    let r = mv(&h, "m", next(), &body("s1", "s2", &ten)).await;
    assert_eq!(r.1["code"], "00000", "{r:?}");
    assert_eq!(r.1["data"]["closePosition"].as_array().unwrap().len(), 10);
    assert_eq!(r.1["data"]["openPosition"].as_array().unwrap().len(), 10);
    // Every authenticated request is counted, refused ones included (2 + 3 + 1 + 1).
    assert_eq!(h.stats().move_positions_requests, 7);
    assert_eq!(
        positions(&h, "s2").await,
        vec![pos("long", "0.01", "60000", "10", "hedge_mode")]
    );
    h.shutdown().await;
}

#[tokio::test]
async fn items_without_a_position_or_above_it_get_their_code() {
    let h = start().await;
    market(&h, "s1", "buy", "0.1", None).await;
    assert!(h.set_mark(Category::UsdtFutures, "BTCUSDT", Some(d("60000"))));
    let items = [
        ("BTCUSDT", "buy", "0.01"),  // s1 holds no short
        ("BTCUSDT", "sell", "0.2"),  // more than the long
        ("ETHUSDT", "sell", "0.01"), // no ETH position
        ("NOPEUSDT", "sell", "0.01"),
        ("BTCUSDT", "sell", "0.04"), // moves
        ("BTCUSDT", "sell", "0.07"), // only 0.06 left after the previous item
    ];
    let r = mv(&h, "m", at(10, 30), &body("s1", "s2", &items)).await;
    assert_eq!(r.1["code"], "00000", "{r:?}");
    let codes = |k: &str| -> Vec<String> {
        r.1["data"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["code"].as_str().unwrap().to_string())
            .collect()
    };
    let want = ["25227", "25231", "25227", "25100", "", "25231"];
    assert_eq!(codes("closePosition"), want);
    assert_eq!(codes("openPosition"), want);
    assert_eq!(r.1["data"]["closePosition"][0]["orderId"], "");
    assert_eq!(
        positions(&h, "s1").await,
        vec![pos("long", "0.06", "60000.5", "10", "one_way_mode")]
    );
    assert_eq!(
        positions(&h, "s2").await,
        vec![pos("long", "0.04", "60000", "10", "hedge_mode")]
    );
    h.shutdown().await;
}

#[tokio::test]
async fn history_pages_with_a_cursor() {
    let h = start().await;
    market(&h, "s1", "buy", "0.1", None).await;
    let b = body("s1", "s2", &[("BTCUSDT", "sell", "0.01")]);
    for min in [10, 20, 30] {
        assert_eq!(mv(&h, "m", at(10, min), &b).await.1["code"], "00000");
    }
    let (_, p1) = signed_get(&h, "m", HISTORY, "category=USDT-FUTURES&limit=2").await;
    let l1 = p1["data"]["list"].as_array().unwrap();
    assert_eq!(l1.len(), 2);
    assert_eq!(l1[0]["createdTime"], at(10, 30).to_string());
    let cursor = p1["data"]["cursor"].as_str().unwrap();
    assert!(!cursor.is_empty());
    let (_, p2) = signed_get(
        &h,
        "m",
        HISTORY,
        &format!("category=USDT-FUTURES&limit=2&cursor={cursor}"),
    )
    .await;
    let l2 = p2["data"]["list"].as_array().unwrap();
    assert_eq!(l2.len(), 1);
    assert_eq!(l2[0]["createdTime"], at(10, 10).to_string());
    let (_, v) = signed_get(&h, "m", HISTORY, "").await;
    assert_eq!(v["code"], "40017", "{v}");
    let (_, v) = signed_get(&h, "m", HISTORY, "category=USDC-FUTURES").await;
    assert_eq!(v["data"]["list"].as_array().unwrap().len(), 0);
    h.shutdown().await;
}

/// `rest_move_positions_ok.json` (copied from `shared/fixtures/bitget-uta/`).
fn fixture_ok() -> Value {
    let path = format!(
        "{}/tests/fixtures/rest_move_positions_ok.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every key of `want` is in `got` with a value of the same JSON type (arrays: first items).
fn same_keys(want: &Value, got: &Value, path: &str) {
    let kind = |v: &Value| std::mem::discriminant(v);
    assert_eq!(kind(want), kind(got), "{path}: {want} vs {got}");
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                let gv = g
                    .get(k)
                    .unwrap_or_else(|| panic!("{path}.{k} missing in {got}"));
                same_keys(wv, gv, &format!("{path}.{k}"));
            }
        }
        (Value::Array(w), Value::Array(g)) => {
            if let (Some(wv), Some(gv)) = (w.first(), g.first()) {
                same_keys(wv, gv, &format!("{path}[0]"));
            }
        }
        _ => {}
    }
}

#[tokio::test]
async fn the_signing_vector_request_is_accepted() {
    // shared/fixtures/bitget-uta/signing_vectors.json, "rest POST move-positions": master 1001
    // (secret "test-secret") and its sub 1002, clock at the vector's timestamp (22:13 UTC).
    let mut cfg = common::config(true);
    let mut m = account("vec");
    m.uid = "1001".into();
    m.secret = "test-secret".into();
    m.move_positions_whitelist = true;
    let mut s = account("vec-sub");
    s.uid = "1002".into();
    s.master_uid = Some("1001".into());
    cfg.accounts = vec![m, s];
    let clock = Arc::new(ManualClock::new(1_700_000_000_123));
    let h = sim::Sim::start_with_clock(cfg, clock).await.unwrap();
    let body = r#"{"fromUid":"1001","toUid":"1002","category":"USDT-FUTURES","positionList":[{"symbol":"BTCUSDT","side":"sell","qty":"0.01"}]}"#;
    let headers = [
        ("ACCESS-KEY", "key-vec".to_string()),
        (
            "ACCESS-SIGN",
            "pSOmw0iVlDd2VcquHyz9meVC6tazd5Gge+VYvXju93I=".to_string(),
        ),
        ("ACCESS-TIMESTAMP", "1700000000123".to_string()),
        ("ACCESS-PASSPHRASE", "pass-vec".to_string()),
    ];
    let (status, v) = https_post_with(&h, MOVE, &headers, body).await;
    assert!(status.contains("200"), "{status} {v}");
    assert_eq!(v["code"], "00000", "{v}");
    // 1001 holds no long: the item carries 25227 in both results.
    assert_eq!(v["data"]["closePosition"][0]["code"], "25227");
    assert_eq!(v["data"]["openPosition"][0]["code"], "25227");
    h.shutdown().await;
}
