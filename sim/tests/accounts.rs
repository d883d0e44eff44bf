//! Accounts over real TLS sockets: account REST endpoints, `account`/`position` snapshots and
//! pushes, balance/margin/reduce-only rejects, permissions, STP across sub-accounts.
#![allow(clippy::unwrap_used)]

mod common;

use common::{account, item, signed_get, signed_post, topic, Client};
use serde_json::Value;
use sim::config::{ApiKeyConfig, CoinBalance, Permission};
use sim::{Category, SimHandle};

/// Accounts: `m` (master, with a read-only extra key `ro`), `s1` and `s2` (subs of `m`),
/// `x` (another master), `poor` (10 000 USDT, 0.01 BTC).
async fn start() -> SimHandle {
    let mut cfg = common::config(true);
    let mut m = account("m");
    m.api_keys = vec![ApiKeyConfig {
        api_key: "key-ro".into(),
        secret: "secret-ro".into(),
        passphrase: "pass-ro".into(),
        permissions: vec![Permission::Read],
    }];
    let mut s1 = account("s1");
    s1.master_uid = Some("uid-m".into());
    let mut s2 = account("s2");
    s2.master_uid = Some("uid-m".into());
    let mut poor = account("poor");
    poor.balances = vec![
        CoinBalance {
            coin: "USDT".into(),
            amount: "10000".parse().unwrap(),
        },
        CoinBalance {
            coin: "BTC".into(),
            amount: "0.01".parse().unwrap(),
        },
    ];
    poor.funding_balances = vec![CoinBalance {
        coin: "USDT".into(),
        amount: "25".parse().unwrap(),
    }];
    cfg.accounts = vec![m, s1, s2, account("x"), poor];
    sim::Sim::start(cfg).await.unwrap()
}

fn place_args(side: &str, ty: &str, price: Option<&str>, qty: &str, extra: &str) -> String {
    let price = price
        .map(|p| format!(r#""price":"{p}","#))
        .unwrap_or_default();
    format!(
        r#"{{"symbol":"BTCUSDT","side":"{side}","orderType":"{ty}",{price}"qty":"{qty}"{extra}}}"#
    )
}

fn ws_place(category: &str, args: &str) -> String {
    format!(
        r#"{{"op":"trade","id":"t","category":"{category}","topic":"place-order","args":[{args}]}}"#
    )
}

/// Logs in and subscribes to the given private topics; returns the connection after the acks
/// (snapshots that follow the acks are left unread).
async fn ready(h: &SimHandle, n: &str, topics: &[&str]) -> Client {
    let mut c = Client::connect(h, true).await;
    assert_eq!(c.login(n).await["event"], "login");
    if topics.is_empty() {
        return c;
    }
    let args: Vec<String> = topics
        .iter()
        .map(|t| format!(r#"{{"instType":"UTA","topic":"{t}"}}"#))
        .collect();
    c.send(&format!(
        r#"{{"op":"subscribe","args":[{}]}}"#,
        args.join(",")
    ))
    .await;
    for _ in topics {
        let ack = c.recv().await;
        assert_eq!(ack["event"], "subscribe", "{ack}");
    }
    c
}

/// Sends a trade op and returns its reply (pushes of earlier requests are skipped).
async fn op(c: &mut Client, text: &str) -> Value {
    c.send(text).await;
    loop {
        let v = c.recv().await;
        if v.get("event").is_some() {
            return v;
        }
    }
}

/// Reads frames until one of `topic` arrives (pushes of other topics are skipped).
async fn next_of(c: &mut Client, t: &str) -> Value {
    loop {
        let v = c.recv().await;
        if topic(&v) == t {
            return v;
        }
    }
}

#[tokio::test]
async fn fill_updates_position_assets_records_and_pushes() {
    let h = start().await;
    let mut c = ready(&h, "m", &["order", "fill", "account", "position"]).await;
    // Account snapshot right after subscribing; no position snapshot without positions.
    let snap = c.recv().await;
    assert_eq!(topic(&snap), "account", "{snap}");
    assert_eq!(snap["action"], "snapshot");
    let usdt = snap["data"][0]["coin"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["coin"] == "USDT")
        .unwrap()
        .clone();
    assert_eq!(usdt["balance"], "100000000");
    assert!(snap["data"][0].get("unrealisedPnL").is_some());

    // Market buy 0.01 against the ladder: fills at the best ask 60000.5.
    let r = c
        .trade(&ws_place(
            "usdt-futures",
            &place_args("buy", "market", None, "0.01", ""),
        ))
        .await;
    assert_eq!(r["code"], "0", "{r}");
    let new = c.recv().await;
    assert_eq!(item(&new)["orderStatus"], "new", "{new}");
    let order = c.recv().await;
    assert_eq!(topic(&order), "order");
    assert_eq!(item(&order)["orderStatus"], "filled", "{order}");
    let fill = c.recv().await;
    assert_eq!(topic(&fill), "fill");
    let pos = c.recv().await;
    assert_eq!(topic(&pos), "position", "{pos}");
    let p = item(&pos);
    assert_eq!(p["symbol"], "BTCUSDT");
    assert_eq!(p["size"], "0.01");
    assert_eq!(p["avgPrice"], "60000.5");
    assert_eq!(p["posSide"], "long");
    assert_eq!(p["holdMode"], "one_way_mode");
    assert_eq!(p["marginMode"], "crossed");
    assert_eq!(p["positionStatus"], "opening");
    assert_eq!(p["openFeeTotal"], "-0.360003");
    assert_eq!(p["leverage"], "10");
    let acct = c.recv().await;
    assert_eq!(topic(&acct), "account");
    let usdt = acct["data"][0]["coin"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["coin"] == "USDT")
        .unwrap()
        .clone();
    assert_eq!(usdt["balance"], "99999999.639997");

    // REST: current position, assets, financial records.
    let (st, v) = signed_get(
        &h,
        "m",
        "/api/v3/position/current-position",
        "category=USDT-FUTURES&symbol=BTCUSDT",
    )
    .await;
    assert!(st.contains("200"), "{st} {v}");
    let list = v["data"]["list"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["total"], "0.01");
    assert_eq!(list[0]["category"], "USDT-FUTURES");
    assert_eq!(list[0]["avgPrice"], "60000.5");
    let (_, v) = signed_get(&h, "m", "/api/v3/account/assets", "").await;
    assert_eq!(v["code"], "00000");
    let a = v["data"]["assets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["coin"] == "USDT")
        .unwrap()
        .clone();
    assert_eq!(a["balance"], "99999999.639997");
    let (_, v) = signed_get(&h, "m", "/api/v3/account/financial-records", "").await;
    let recs = v["data"]["list"].as_array().unwrap();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["fee"], "-0.360003");
    assert_eq!(recs[0]["symbol"], "BTCUSDT");
    assert_eq!(recs[0]["positionAmount"], "0.01");
    assert_eq!(recs[0]["amount"], "-0.360003");

    // The mark is controllable: 61000.5 gives +10 unrealised.
    assert!(h.set_mark(
        Category::UsdtFutures,
        "BTCUSDT",
        Some("61000.5".parse().unwrap())
    ));
    let (_, v) = signed_get(
        &h,
        "m",
        "/api/v3/position/current-position",
        "category=USDT-FUTURES",
    )
    .await;
    assert_eq!(v["data"]["list"][0]["unrealisedPnl"], "10");
    assert_eq!(v["data"]["list"][0]["markPrice"], "61000.5");

    // A second connection gets a position snapshot (non-zero positions).
    let mut c2 = ready(&h, "m", &["position"]).await;
    let snap = c2.recv().await;
    assert_eq!(topic(&snap), "position");
    assert_eq!(item(&snap)["size"], "0.01");

    // Closing: sell 0.01 at the best bid 59999.5 → realised −0.01, size "0", "ended".
    let r = c
        .trade(&ws_place(
            "usdt-futures",
            &place_args("sell", "market", None, "0.01", r#","reduceOnly":"yes""#),
        ))
        .await;
    assert_eq!(r["code"], "0", "{r}");
    let pos = next_of(&mut c, "position").await;
    let p = item(&pos);
    assert_eq!(p["size"], "0");
    assert_eq!(p["positionStatus"], "ended");
    assert_eq!(p["curRealisedPnl"], "-0.01");
    let pos2 = next_of(&mut c2, "position").await;
    assert_eq!(item(&pos2)["positionStatus"], "ended");
    let (_, v) = signed_get(
        &h,
        "m",
        "/api/v3/position/current-position",
        "category=USDT-FUTURES",
    )
    .await;
    assert_eq!(v["data"]["list"].as_array().unwrap().len(), 0);
    // Records: newest first, ids below the cursor on the next page.
    let (_, v) = signed_get(&h, "m", "/api/v3/account/financial-records", "limit=1").await;
    let first = v["data"]["list"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(v["data"]["list"][0]["pnl"], "-0.01");
    assert_eq!(v["data"]["cursor"], first.as_str());
    let (_, v) = signed_get(
        &h,
        "m",
        "/api/v3/account/financial-records",
        &format!("limit=1&cursor={first}"),
    )
    .await;
    let second: u64 = v["data"]["list"][0]["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(second < first.parse::<u64>().unwrap());
    let (st, v) = signed_get(&h, "m", "/api/v3/account/financial-records", "limit=101").await;
    assert!(st.contains("400"));
    assert_eq!(v["code"], "40017");
    h.shutdown().await;
}

#[tokio::test]
async fn spot_fill_moves_base_and_quote() {
    let mut cfg = common::config(true);
    cfg.liquidity.symbols[0].category = Category::Spot;
    cfg.accounts = vec![account("a")];
    let h = sim::Sim::start(cfg).await.unwrap();
    let mut c = ready(&h, "a", &["account"]).await;
    let _snap = c.recv().await;
    let r = c
        .trade(&ws_place(
            "spot",
            &place_args("sell", "market", None, "0.5", ""),
        ))
        .await;
    assert_eq!(r["code"], "0", "{r}");
    let acct = next_of(&mut c, "account").await;
    let coins = acct["data"][0]["coin"].as_array().unwrap();
    let get = |c: &str| {
        coins.iter().find(|x| x["coin"] == c).unwrap()["balance"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // Spot ladder: tick 0.01, best bid 5 ticks below 60000. 0.5 BTC at 59999.95 =
    // 29999.975 USDT, fee 0.1 % = 29.999975.
    assert_eq!(get("BTC"), "999.5");
    assert_eq!(get("USDT"), "100029969.975025");
    h.shutdown().await;
}

#[tokio::test]
async fn settings_leverage_hold_mode_and_their_errors() {
    let h = start().await;
    let (_, v) = signed_get(&h, "m", "/api/v3/account/settings", "").await;
    let d = &v["data"];
    assert_eq!(d["uid"], "uid-m");
    assert_eq!(d["accountMode"], "unified");
    assert_eq!(d["accountLevel"], "advanced");
    assert_eq!(d["holdMode"], "one_way_mode");

    let mut c = ready(&h, "m", &["order", "account", "position"]).await;
    let _acct_snap = c.recv().await;
    // set-leverage: success, visible in settings, an account push follows.
    let (st, v) = signed_post(
        &h,
        "m",
        "/api/v3/account/set-leverage",
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","leverage":"20"}"#,
    )
    .await;
    assert!(st.contains("200"), "{st} {v}");
    assert_eq!(v["data"], "success");
    assert_eq!(topic(&c.recv().await), "account");
    let (_, v) = signed_get(&h, "m", "/api/v3/account/settings", "").await;
    assert_eq!(v["data"]["symbolConfigList"][0]["leverage"], "20");
    assert_eq!(v["data"]["symbolConfigList"][0]["symbol"], "BTCUSDT");
    let (_, v) = signed_post(
        &h,
        "m",
        "/api/v3/account/set-leverage",
        r#"{"category":"MARGIN","coin":"BTC","leverage":"3"}"#,
    )
    .await;
    assert_eq!(v["data"], "success");
    let (_, v) = signed_get(&h, "m", "/api/v3/account/settings", "").await;
    assert_eq!(v["data"]["coinConfigList"][0]["coin"], "BTC");
    assert_eq!(v["data"]["coinConfigList"][0]["leverage"], "3");
    for bad in [
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","leverage":"126"}"#,
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","leverage":"0"}"#,
        r#"{"category":"USDT-FUTURES","leverage":"5"}"#,
    ] {
        let (st, v) = signed_post(&h, "m", "/api/v3/account/set-leverage", bad).await;
        assert!(st.contains("400"), "{bad}: {st}");
        assert_eq!(v["code"], "40017", "{bad}: {v}");
    }
    // One code per situation across endpoints (sim/tests/rest_limits.rs): an unknown symbol is
    // `25100` and a category that is no category `41101`, as on place-order (were `40017`).
    for (bad, code) in [
        (
            r#"{"category":"USDT-FUTURES","symbol":"NOPE","leverage":"5"}"#,
            "25100",
        ),
        (
            r#"{"category":"NOPE","symbol":"BTCUSDT","leverage":"5"}"#,
            "41101",
        ),
    ] {
        let (st, v) = signed_post(&h, "m", "/api/v3/account/set-leverage", bad).await;
        assert!(st.contains("400"), "{bad}: {st}");
        assert_eq!(v["code"], code, "{bad}: {v}");
    }

    // set-hold-mode refused with a pending order, then with a position.
    let r = op(
        &mut c,
        &ws_place(
            "usdt-futures",
            &place_args(
                "buy",
                "limit",
                Some("50000"),
                "0.01",
                r#","clientOid":"rest1""#,
            ),
        ),
    )
    .await;
    assert_eq!(r["code"], "0");
    let (st, v) = signed_post(
        &h,
        "m",
        "/api/v3/account/set-hold-mode",
        r#"{"holdMode":"hedge_mode"}"#,
    )
    .await;
    assert!(st.contains("400"));
    assert_eq!(v["code"], "40920", "{v}");
    let r = op(
        &mut c,r#"{"op":"trade","id":"c","category":"usdt-futures","topic":"cancel-order","args":[{"clientOid":"rest1"}]}"#)
        .await;
    assert_eq!(r["code"], "0");
    let r = op(
        &mut c,
        &ws_place(
            "usdt-futures",
            &place_args("buy", "market", None, "0.01", ""),
        ),
    )
    .await;
    assert_eq!(r["code"], "0");
    let pos = next_of(&mut c, "position").await;
    assert_eq!(item(&pos)["leverage"], "20");
    let (_, v) = signed_post(
        &h,
        "m",
        "/api/v3/account/set-hold-mode",
        r#"{"holdMode":"hedge_mode"}"#,
    )
    .await;
    assert_eq!(v["code"], "40920");
    // Leverage change with a position pushes the position.
    let (_, v) = signed_post(
        &h,
        "m",
        "/api/v3/account/set-leverage",
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","leverage":"5"}"#,
    )
    .await;
    assert_eq!(v["data"], "success");
    let pos = next_of(&mut c, "position").await;
    assert_eq!(item(&pos)["leverage"], "5");
    // Close, then the change is accepted and hedge mode needs posSide.
    let r = op(
        &mut c,
        &ws_place(
            "usdt-futures",
            &place_args("sell", "market", None, "0.01", ""),
        ),
    )
    .await;
    assert_eq!(r["code"], "0");
    let (_, v) = signed_post(
        &h,
        "m",
        "/api/v3/account/set-hold-mode",
        r#"{"holdMode":"hedge_mode"}"#,
    )
    .await;
    assert_eq!(v["data"], "success", "{v}");
    let (_, v) = signed_get(&h, "m", "/api/v3/account/settings", "").await;
    assert_eq!(v["data"]["holdMode"], "hedge_mode");
    let (_, v) = signed_post(
        &h,
        "m",
        "/api/v3/account/set-hold-mode",
        r#"{"holdMode":"sideways"}"#,
    )
    .await;
    // A present but unaccepted enum value: `41101` (was `40017`; sim/tests/rest_limits.rs).
    assert_eq!(v["code"], "41101");
    h.shutdown().await;
}

#[tokio::test]
async fn hedge_mode_positions_over_the_wire() {
    let h = start().await;
    let (_, v) = signed_post(
        &h,
        "x",
        "/api/v3/account/set-hold-mode",
        r#"{"holdMode":"hedge_mode"}"#,
    )
    .await;
    assert_eq!(v["data"], "success");
    let mut c = ready(&h, "x", &["position"]).await;
    let r = c
        .trade(&ws_place(
            "usdt-futures",
            &place_args("buy", "market", None, "0.01", ""),
        ))
        .await;
    assert_eq!(r["code"], "40017", "posSide is required in hedge mode: {r}");
    for (side, ps) in [("buy", "long"), ("sell", "short")] {
        let r = c
            .trade(&ws_place(
                "usdt-futures",
                &place_args(
                    side,
                    "market",
                    None,
                    "0.01",
                    &format!(r#","posSide":"{ps}""#),
                ),
            ))
            .await;
        assert_eq!(r["code"], "0", "{r}");
        let p = next_of(&mut c, "position").await;
        assert_eq!(item(&p)["posSide"], ps);
        assert_eq!(item(&p)["holdMode"], "hedge_mode");
    }
    let (_, v) = signed_get(
        &h,
        "x",
        "/api/v3/position/current-position",
        "category=USDT-FUTURES",
    )
    .await;
    assert_eq!(v["data"]["list"].as_array().unwrap().len(), 2);
    let (_, v) = signed_get(
        &h,
        "x",
        "/api/v3/position/current-position",
        "category=USDT-FUTURES&posSide=short",
    )
    .await;
    assert_eq!(v["data"]["list"].as_array().unwrap().len(), 1);
    assert_eq!(v["data"]["list"][0]["posSide"], "short");
    // Closing more than the long: 25231; reduce-only on an opening order: 25232.
    let r = c
        .trade(&ws_place(
            "usdt-futures",
            &place_args("sell", "market", None, "0.02", r#","posSide":"long""#),
        ))
        .await;
    assert_eq!(r["code"], "25231", "{r}");
    let r = c
        .trade(&ws_place(
            "usdt-futures",
            &place_args(
                "buy",
                "market",
                None,
                "0.01",
                r#","posSide":"long","reduceOnly":"yes""#,
            ),
        ))
        .await;
    assert_eq!(r["code"], "25232", "{r}");
    h.shutdown().await;
}

#[tokio::test]
async fn insufficient_balance_margin_and_reduce_only_rejects() {
    let h = start().await;
    let mut c = ready(&h, "poor", &[]).await;
    // Spot: 0.5 BTC at 60000 costs 30000 USDT > 10000.
    let r = c
        .trade(&ws_place(
            "spot",
            &place_args("buy", "limit", Some("60000"), "0.5", ""),
        ))
        .await;
    assert_eq!(r["code"], "25202", "{r}");
    assert_eq!(r["msg"], "Insufficient balance");
    // Spot sell of more BTC than held.
    let r = c
        .trade(&ws_place(
            "spot",
            &place_args("sell", "limit", Some("60000"), "0.02", ""),
        ))
        .await;
    assert_eq!(r["code"], "25202");
    // Futures: 2 BTC at 60000 / 10x = 12000 margin > 10000.
    let r = c
        .trade(&ws_place(
            "usdt-futures",
            &place_args("buy", "limit", Some("59000"), "2", ""),
        ))
        .await;
    assert_eq!(r["code"], "25203", "{r}");
    assert_eq!(r["msg"], "Insufficient margin");
    // Reduce-only without a position.
    let r = c
        .trade(&ws_place(
            "usdt-futures",
            &place_args(
                "sell",
                "limit",
                Some("61000"),
                "0.1",
                r#","reduceOnly":"yes""#,
            ),
        ))
        .await;
    assert_eq!(r["code"], "25227", "{r}");
    // Same over REST place-order.
    let (st, v) = signed_post(
        &h,
        "poor",
        "/api/v3/trade/place-order",
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"59000","qty":"2"}"#,
    )
    .await;
    assert!(st.contains("400"));
    assert_eq!(v["code"], "25203");
    // One-way reduce-only larger than the position is trimmed to it.
    let r = c
        .trade(&ws_place(
            "usdt-futures",
            &place_args("buy", "market", None, "0.01", ""),
        ))
        .await;
    assert_eq!(r["code"], "0");
    let r = c
        .trade(&ws_place(
            "usdt-futures",
            &place_args(
                "sell",
                "limit",
                Some("61000"),
                "0.5",
                r#","reduceOnly":"yes","clientOid":"ro1""#,
            ),
        ))
        .await;
    assert_eq!(r["code"], "0", "{r}");
    let (_, v) = signed_get(&h, "poor", "/api/v3/trade/order-info", "clientOid=ro1").await;
    assert_eq!(v["data"]["qty"], "0.01", "{v}");
    assert_eq!(v["data"]["reduceOnly"], "YES");
    // A second reduce-only order beyond the remaining position replaces the first (§8).
    let r = c
        .trade(&ws_place(
            "usdt-futures",
            &place_args(
                "sell",
                "limit",
                Some("62000"),
                "0.01",
                r#","reduceOnly":"yes","clientOid":"ro2""#,
            ),
        ))
        .await;
    assert_eq!(r["code"], "0", "{r}");
    let (_, v) = signed_get(&h, "poor", "/api/v3/trade/order-info", "clientOid=ro1").await;
    assert_eq!(v["data"]["orderStatus"], "cancelled", "{v}");
    let (_, v) = signed_get(&h, "poor", "/api/v3/trade/order-info", "clientOid=ro2").await;
    assert_eq!(v["data"]["orderStatus"], "live", "{v}");

    // max-open-available, max-transferable, funding-assets.
    let (_, v) = signed_post(
        &h,
        "poor",
        "/api/v3/account/max-open-available",
        r#"{"category":"SPOT","symbol":"BTCUSDT","orderType":"limit","side":"buy","price":"50000"}"#,
    )
    .await;
    // 10000 USDT − the 0.360003 fee of the futures buy above, at 50000, down to the lot.
    assert_eq!(v["data"]["maxBuyOpen"], "0.199992", "{v}");
    assert_eq!(v["data"]["maxSellOpen"], "0.01");
    let (st, v) = signed_post(
        &h,
        "poor",
        "/api/v3/account/max-open-available",
        r#"{"category":"SPOT","symbol":"NOPE","orderType":"limit","side":"buy","price":"50000"}"#,
    )
    .await;
    assert!(st.contains("400"));
    assert_eq!(v["code"], "25100");
    let (_, v) = signed_get(&h, "poor", "/api/v3/account/max-transferable", "coin=BTC").await;
    assert_eq!(v["data"]["coin"], "BTC");
    assert_eq!(v["data"]["maxTransfer"], "0.01");
    let (st, v) = signed_get(&h, "poor", "/api/v3/account/max-transferable", "").await;
    assert!(st.contains("400"));
    assert_eq!(v["code"], "40017");
    let (_, v) = signed_get(&h, "poor", "/api/v3/account/funding-assets", "").await;
    assert_eq!(v["data"][0]["coin"], "USDT");
    assert_eq!(v["data"][0]["available"], "25");
    let (_, v) = signed_get(&h, "m", "/api/v3/account/funding-assets", "").await;
    assert_eq!(v["data"], serde_json::json!([]));
    h.shutdown().await;
}

#[tokio::test]
async fn read_only_key_gets_40014_on_trading() {
    let h = start().await;
    // Reads work with the read-only key and show the master's account.
    let (st, v) = signed_get(&h, "ro", "/api/v3/account/settings", "").await;
    assert!(st.contains("200"), "{st} {v}");
    assert_eq!(v["data"]["uid"], "uid-m");
    for (path, body) in [
        (
            "/api/v3/account/set-leverage",
            r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","leverage":"5"}"#,
        ),
        (
            "/api/v3/account/set-hold-mode",
            r#"{"holdMode":"hedge_mode"}"#,
        ),
        (
            "/api/v3/trade/place-order",
            r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.01"}"#,
        ),
    ] {
        let (st, v) = signed_post(&h, "ro", path, body).await;
        assert!(st.contains("400"), "{path}: {st}");
        assert_eq!(v["code"], "40014", "{path}: {v}");
    }
    let mut c = Client::connect(&h, true).await;
    assert_eq!(c.login("ro").await["event"], "login");
    let r = c
        .trade(&ws_place(
            "usdt-futures",
            &place_args("buy", "limit", Some("50000"), "0.01", ""),
        ))
        .await;
    assert_eq!(r["event"], "error");
    assert_eq!(r["code"], "40014", "{r}");
    // Nothing was placed.
    let (_, v) = signed_get(&h, "m", "/api/v3/trade/unfilled-orders", "").await;
    assert_eq!(v["data"]["list"].as_array().unwrap().len(), 0);
    h.shutdown().await;
}

/// s1 rests a sell at 60000 (inside the ladder's spread), s2 — another sub of the same master
/// — buys at 60000 with `mode`. Returns both connections and the simulator.
async fn stp_case(mode: &str) -> (Client, Client, SimHandle) {
    let h = start().await;
    let mut s1 = ready(&h, "s1", &["order"]).await;
    let mut s2 = ready(&h, "s2", &["order"]).await;
    let r = s1
        .trade(&ws_place(
            "usdt-futures",
            &place_args("sell", "limit", Some("60000"), "0.01", ""),
        ))
        .await;
    assert_eq!(r["code"], "0");
    assert_eq!(item(&s1.recv().await)["orderStatus"], "live");
    let r = s2
        .trade(&ws_place(
            "usdt-futures",
            &place_args(
                "buy",
                "limit",
                Some("60000"),
                "0.01",
                &format!(r#","stpMode":"{mode}""#),
            ),
        ))
        .await;
    assert_eq!(r["code"], "0", "{r}");
    // The taker crosses: it is pushed `new` first (reference §4.2), whatever STP then does.
    assert_eq!(item(&s2.recv().await)["orderStatus"], "new");
    (s1, s2, h)
}

#[tokio::test]
async fn stp_none_lets_subs_trade() {
    let (mut s1, mut s2, h) = stp_case("none").await;
    let (maker, taker) = (s1.recv().await, s2.recv().await);
    assert_eq!(item(&maker)["orderStatus"], "filled");
    assert_eq!(item(&taker)["orderStatus"], "filled");
    h.shutdown().await;
}

#[tokio::test]
async fn stp_cancel_maker_across_subs() {
    let (mut s1, mut s2, h) = stp_case("cancel_maker").await;
    let (maker, taker) = (s1.recv().await, s2.recv().await);
    assert_eq!(item(&maker)["orderStatus"], "cancelled");
    assert_eq!(item(&maker)["cancelReason"], "stp_cancel");
    // The taker rests (the next ask, 60000.5, is above its price).
    assert_eq!(item(&taker)["orderStatus"], "live");
    h.shutdown().await;
}

#[tokio::test]
async fn stp_cancel_taker_across_subs() {
    let (_s1, mut s2, h) = stp_case("cancel_taker").await;
    let taker = s2.recv().await;
    assert_eq!(item(&taker)["orderStatus"], "cancelled");
    assert_eq!(item(&taker)["cancelReason"], "stp_cancel");
    // The maker is still open.
    let (_, v) = signed_get(&h, "s1", "/api/v3/trade/unfilled-orders", "").await;
    assert_eq!(v["data"]["list"].as_array().unwrap().len(), 1);
    h.shutdown().await;
}

#[tokio::test]
async fn stp_cancel_both_across_subs() {
    let (mut s1, mut s2, h) = stp_case("cancel_both").await;
    let (maker, taker) = (s1.recv().await, s2.recv().await);
    assert_eq!(item(&maker)["orderStatus"], "cancelled");
    assert_eq!(item(&maker)["cancelReason"], "stp_cancel");
    assert_eq!(item(&taker)["orderStatus"], "cancelled");
    assert_eq!(item(&taker)["cancelReason"], "stp_cancel");
    h.shutdown().await;
}

#[tokio::test]
async fn stp_does_not_apply_across_masters() {
    let h = start().await;
    let mut s1 = ready(&h, "s1", &["order"]).await;
    let mut x = ready(&h, "x", &["order"]).await;
    let r = s1
        .trade(&ws_place(
            "usdt-futures",
            &place_args("sell", "limit", Some("60000"), "0.01", ""),
        ))
        .await;
    assert_eq!(r["code"], "0");
    let _live = s1.recv().await;
    let r = x
        .trade(&ws_place(
            "usdt-futures",
            &place_args(
                "buy",
                "limit",
                Some("60000"),
                "0.01",
                r#","stpMode":"cancel_both""#,
            ),
        ))
        .await;
    assert_eq!(r["code"], "0");
    assert_eq!(item(&x.recv().await)["orderStatus"], "new");
    assert_eq!(item(&x.recv().await)["orderStatus"], "filled");
    assert_eq!(item(&s1.recv().await)["orderStatus"], "filled");
    h.shutdown().await;
}
