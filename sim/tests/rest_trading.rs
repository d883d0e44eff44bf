//! REST trade endpoints over real TLS sockets: batches with a code per item, cancel-symbol-order,
//! history-orders / fills / unfilled-orders cursor pages, clientOid rules, modify autoCancel,
//! signatures (raw and decoded query, body, timestamp window), per-UID rate limits shared with
//! WS trade ops, and bad input that never corrupts state.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashSet;

use common::signing::{get, post, Signed};
use common::{item, Client};
use serde_json::Value;

const BATCH: &str = "/api/v3/trade/place-batch";
const MODIFY_BATCH: &str = "/api/v3/trade/batch-modify-order";
const CANCEL_BATCH: &str = "/api/v3/trade/cancel-batch";
const CANCEL_SYMBOL: &str = "/api/v3/trade/cancel-symbol-order";
const HISTORY: &str = "/api/v3/trade/history-orders";
const FILLS: &str = "/api/v3/trade/fills";
const UNFILLED: &str = "/api/v3/trade/unfilled-orders";
const ORDER_INFO: &str = "/api/v3/trade/order-info";
const DAY_MS: u64 = 24 * 3600 * 1000;

/// A resting usdt-futures limit buy (below the liquidity ladder).
fn buy(symbol: &str, price: &str, qty: &str, oid: &str) -> String {
    format!(
        r#"{{"category":"USDT-FUTURES","symbol":"{symbol}","side":"buy","orderType":"limit","price":"{price}","qty":"{qty}","timeInForce":"gtc","clientOid":"{oid}"}}"#
    )
}

fn arr(items: &[String]) -> String {
    format!("[{}]", items.join(","))
}

fn list(v: &Value) -> &Vec<Value> {
    v["data"]["list"].as_array().unwrap()
}

fn ids(v: &Value, key: &str) -> Vec<u64> {
    list(v)
        .iter()
        .map(|o| o[key].as_str().unwrap().parse().unwrap())
        .collect()
}

async fn unfilled_count(h: &sim::SimHandle, n: &str) -> usize {
    let (s, v) = get(h, n, UNFILLED, "").await;
    assert_eq!(s, 200, "{v}");
    list(&v).len()
}

/// Places `n` resting BTCUSDT buys in batches of 20 (clientOids `{prefix}{i}`).
async fn place_many(h: &sim::SimHandle, acct: &str, prefix: &str, n: usize) -> Vec<String> {
    let mut order_ids = Vec::new();
    let items: Vec<String> = (0..n)
        .map(|i| buy("BTCUSDT", "50000", "0.001", &format!("{prefix}{i}")))
        .collect();
    for chunk in items.chunks(20) {
        let (s, v) = post(h, acct, BATCH, &arr(chunk)).await;
        assert_eq!(s, 200, "{v}");
        for it in v["data"].as_array().unwrap() {
            assert_eq!(it["code"], "00000", "{it}");
            order_ids.push(it["orderId"].as_str().unwrap().to_string());
        }
    }
    order_ids
}

/// Walks every page of a cursor endpoint; asserts each page's ids are below the cursor and
/// strictly decreasing, and returns all ids.
async fn walk(h: &sim::SimHandle, path: &str, base_query: &str, id_key: &str) -> Vec<Vec<u64>> {
    let mut pages = Vec::new();
    let mut cursor = String::new();
    loop {
        let q = if cursor.is_empty() {
            base_query.to_string()
        } else {
            format!("{base_query}&cursor={cursor}")
        };
        let (s, v) = get(h, "a", path, q.trim_start_matches('&')).await;
        assert_eq!(s, 200, "{v}");
        assert_eq!(v["code"], "00000");
        let page = ids(&v, id_key);
        assert!(page.len() <= 100);
        assert!(page.windows(2).all(|w| w[0] > w[1]), "newest first");
        if let Ok(c) = cursor.parse::<u64>() {
            assert!(page.iter().all(|id| *id < c), "later page ids < cursor");
        }
        let next = v["data"]["cursor"].as_str().unwrap().to_string();
        if !page.is_empty() {
            pages.push(page);
        }
        if next.is_empty() {
            break;
        }
        assert!(pages.len() < 10, "pagination terminates");
        cursor = next;
    }
    pages
}

#[tokio::test]
async fn place_batch_gives_a_code_per_item_and_the_ws_pushes() {
    let h = common::start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let items = vec![
        buy("BTCUSDT", "50000", "0.001", "b-ok1"),
        buy("BTCUSDT", "50000", "abc", "b-bad-decimal"),
        buy("NOPEUSDT", "1", "1", "b-unknown"),
        buy("BTCUSDT", "50000", "0.001", "b-ok1"),
        buy("BTCUSDT", "50000", "0.001", "bad oid!"),
        buy("BTCUSDT", "50000.05", "0.001", "b-tick"),
        buy("BTCUSDT", "50001", "0.001", "b-ok2"),
    ];
    let (s, v) = post(&h, "a", BATCH, &arr(&items)).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["code"], "00000");
    let data = v["data"].as_array().unwrap();
    let codes: Vec<&str> = data.iter().map(|i| i["code"].as_str().unwrap()).collect();
    assert_eq!(
        codes,
        ["00000", "40017", "25100", "25212", "40017", "25244", "00000"]
    );
    assert_eq!(data[0]["clientOid"], "b-ok1");
    assert_eq!(data[0]["msg"], "success");
    assert_eq!(data[2]["msg"], "trading pair NOPEUSDT does not exist");
    assert_eq!(data[3]["msg"], "Duplicate clientOid");
    assert_eq!(data[3]["orderId"], "");
    // The two accepted orders are pushed to the WS session, in order.
    let p1 = c.recv().await;
    assert_eq!(item(&p1)["clientOid"], "b-ok1");
    assert_eq!(item(&p1)["orderStatus"], "live");
    assert_eq!(item(&c.recv().await)["clientOid"], "b-ok2");
    assert_eq!(unfilled_count(&h, "a").await, 2);
    // A clientOid becomes reusable once its order is no longer pending.
    let (_, v) = post(
        &h,
        "a",
        CANCEL_BATCH,
        r#"[{"category":"USDT-FUTURES","symbol":"BTCUSDT","clientOid":"b-ok1"}]"#,
    )
    .await;
    assert_eq!(v["data"][0]["code"], "00000", "{v}");
    let (_, v) = post(&h, "a", BATCH, &arr(&items[..1])).await;
    assert_eq!(v["data"][0]["code"], "00000", "{v}");
    h.shutdown().await;
}

#[tokio::test]
async fn oversize_and_malformed_batches_are_refused_without_side_effects() {
    let h = common::start(true).await;
    let items: Vec<String> = (0..21)
        .map(|i| buy("BTCUSDT", "50000", "0.001", &format!("o{i}")))
        .collect();
    for path in [BATCH, MODIFY_BATCH, CANCEL_BATCH] {
        let (s, v) = post(&h, "a", path, &arr(&items)).await;
        assert_eq!(s, 400, "{path} {v}");
        assert_eq!(v["code"], "40017", "{path} {v}");
        assert_eq!(v["data"], Value::Null);
        let (s, v) = post(&h, "a", path, "[]").await;
        assert_eq!((s, v["code"].as_str().unwrap()), (400, "40017"), "{v}");
        let (s, v) = post(&h, "a", path, "{not json").await;
        assert_eq!((s, v["code"].as_str().unwrap()), (400, "40017"), "{v}");
        let (s, v) = post(&h, "a", path, &items[0]).await;
        assert_eq!((s, v["code"].as_str().unwrap()), (400, "40017"), "{v}");
    }
    // Mixed categories in one batch.
    let spot = r#"{"category":"SPOT","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001"}"#;
    let (s, v) = post(&h, "a", BATCH, &format!("[{},{spot}]", items[0])).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "40017"), "{v}");
    assert_eq!(unfilled_count(&h, "a").await, 0);
    // Exactly 20 is fine.
    let (s, v) = post(&h, "a", BATCH, &arr(&items[..20])).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["data"].as_array().unwrap().len(), 20);
    assert_eq!(unfilled_count(&h, "a").await, 20);
    h.shutdown().await;
}

#[tokio::test]
async fn batch_modify_and_cancel_batch_mix_success_and_failure() {
    let h = common::start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let ids = place_many(&h, "a", "m", 2).await;
    c.recv().await;
    c.recv().await;
    let body = format!(
        r#"[{{"category":"USDT-FUTURES","symbol":"BTCUSDT","orderId":"{}","price":"50100"}},{{"category":"USDT-FUTURES","symbol":"BTCUSDT","orderId":"1"}},{{"category":"USDT-FUTURES","symbol":"BTCUSDT","clientOid":"m1","price":"50000","qty":"0.001"}}]"#,
        ids[0]
    );
    let (s, v) = post(&h, "a", MODIFY_BATCH, &body).await;
    assert_eq!(s, 200, "{v}");
    let codes: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["00000", "25204", "25571"], "{v}");
    assert_eq!(v["data"][0]["orderId"], ids[0].as_str());
    assert_eq!(v["data"][0]["clientOid"], "m0");
    assert_eq!(item(&c.recv().await)["price"], "50100");
    // Account b cannot touch a's orders; a's cancel-batch mixes success and failure (one
    // identifier type per call, reference §5.1: clientOids here).
    let cancel = r#"[{"category":"USDT-FUTURES","symbol":"BTCUSDT","clientOid":"m0"},{"category":"USDT-FUTURES","clientOid":"m1"},{"category":"USDT-FUTURES","clientOid":"none"}]"#;
    let (_, v) = post(&h, "b", CANCEL_BATCH, cancel).await;
    assert!(v["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["code"] == "25204"));
    let (s, v) = post(&h, "a", CANCEL_BATCH, cancel).await;
    assert_eq!(s, 200);
    let codes: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["00000", "00000", "25204"], "{v}");
    assert_eq!(item(&c.recv().await)["cancelReason"], "normal_cancel");
    assert_eq!(item(&c.recv().await)["cancelReason"], "normal_cancel");
    assert_eq!(unfilled_count(&h, "a").await, 0);
    h.shutdown().await;
}

#[tokio::test]
async fn modify_with_auto_cancel_over_rest_cancels_the_refused_order() {
    let h = common::start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let (_, v) = post(
        &h,
        "a",
        "/api/v3/trade/place-order",
        &buy("BTCUSDT", "50000", "0.001", "ac1"),
    )
    .await;
    let order_id = v["data"]["orderId"].as_str().unwrap().to_string();
    c.recv().await;
    // Refused without autoCancel: the order stays.
    let (s, v) = post(
        &h,
        "a",
        "/api/v3/trade/modify-order",
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","clientOid":"ac1","price":"50000.05"}"#,
    )
    .await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "25244"), "{v}");
    assert_eq!(unfilled_count(&h, "a").await, 1);
    // Refused with autoCancel yes: error reply, then the order is cancelled.
    let (s, v) = post(
        &h,
        "a",
        "/api/v3/trade/modify-order",
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","clientOid":"ac1","price":"50000.05","autoCancel":"yes"}"#,
    )
    .await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "25244"), "{v}");
    let p = c.recv().await;
    assert_eq!(item(&p)["orderStatus"], "cancelled");
    assert_eq!(item(&p)["cancelReason"], "normal_cancel");
    let (_, v) = get(&h, "a", ORDER_INFO, &format!("orderId={order_id}")).await;
    assert_eq!(v["data"]["orderStatus"], "cancelled", "{v}");
    assert_eq!(unfilled_count(&h, "a").await, 0);
    h.shutdown().await;
}

#[tokio::test]
async fn cancel_symbol_order_lists_every_cancelled_order() {
    let h = common::start(true).await;
    let mut c = Client::ready(&h, "a").await;
    place_many(&h, "a", "cs", 3).await;
    let (_, v) = post(
        &h,
        "a",
        "/api/v3/trade/place-order",
        &buy("ETHUSDT", "2000", "0.1", "eth1"),
    )
    .await;
    assert_eq!(v["code"], "00000", "{v}");
    for _ in 0..4 {
        c.recv().await;
    }
    let (s, v) = post(
        &h,
        "a",
        CANCEL_SYMBOL,
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT"}"#,
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let l = list(&v);
    assert_eq!(l.len(), 3);
    let oids: HashSet<&str> = l.iter().map(|o| o["clientOid"].as_str().unwrap()).collect();
    assert_eq!(oids, HashSet::from(["cs0", "cs1", "cs2"]));
    assert!(l
        .iter()
        .all(|o| o["code"] == "00000" && o["msg"] == "success"));
    for _ in 0..3 {
        assert_eq!(item(&c.recv().await)["cancelReason"], "normal_cancel");
    }
    assert_eq!(unfilled_count(&h, "a").await, 1);
    // Refusals.
    let (s, v) = post(&h, "a", CANCEL_SYMBOL, r#"{"symbol":"BTCUSDT"}"#).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "40017"));
    let (s, v) = post(
        &h,
        "a",
        CANCEL_SYMBOL,
        r#"{"category":"USDT-FUTURES","symbol":"NOPE"}"#,
    )
    .await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "25100"));
    let (s, v) = post(&h, "a", CANCEL_SYMBOL, r#"{"category":"NOPE"}"#).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "41101"));
    let (s, v) = post(&h, "a", CANCEL_SYMBOL, "[").await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "40017"));
    // Other account: nothing to cancel. Without symbol: the whole category.
    let (_, v) = post(&h, "b", CANCEL_SYMBOL, r#"{"category":"USDT-FUTURES"}"#).await;
    assert_eq!(list(&v).len(), 0);
    let (_, v) = post(&h, "a", CANCEL_SYMBOL, r#"{"category":"usdt-futures"}"#).await;
    assert_eq!(list(&v).len(), 1);
    assert_eq!(list(&v)[0]["clientOid"], "eth1");
    assert_eq!(unfilled_count(&h, "a").await, 0);
    h.shutdown().await;
}

#[tokio::test]
async fn unfilled_and_history_orders_walk_pages_over_more_than_100_records() {
    let h = common::start(true).await;
    let placed = place_many(&h, "a", "p", 130).await;
    let mut expected: Vec<u64> = placed.iter().map(|s| s.parse().unwrap()).collect();
    expected.sort_unstable_by(|a, b| b.cmp(a));
    let pages = walk(&h, UNFILLED, "", "orderId").await;
    assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [100, 30]);
    assert_eq!(pages.concat(), expected);
    // An explicit limit pages the same way.
    let pages = walk(&h, UNFILLED, "limit=50", "orderId").await;
    assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [50, 50, 30]);

    // Finish them all; history-orders then pages over them the same way.
    let (_, v) = post(&h, "a", CANCEL_SYMBOL, r#"{"category":"USDT-FUTURES"}"#).await;
    assert_eq!(list(&v).len(), 130);
    let pages = walk(&h, HISTORY, "category=USDT-FUTURES", "orderId").await;
    assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [100, 30]);
    assert_eq!(pages.concat(), expected);
    let (_, v) = get(
        &h,
        "a",
        HISTORY,
        "category=USDT-FUTURES&symbol=BTCUSDT&limit=1",
    )
    .await;
    assert_eq!(list(&v)[0]["orderStatus"], "cancelled");
    assert_eq!(list(&v)[0]["cancelReason"], "normal_cancel");
    assert_eq!(list(&v)[0]["category"], "USDT-FUTURES");
    let (_, v) = get(&h, "a", HISTORY, "category=SPOT").await;
    assert_eq!(list(&v).len(), 0);
    let (_, v) = get(&h, "a", HISTORY, "category=USDT-FUTURES&symbol=ETHUSDT").await;
    assert_eq!(list(&v).len(), 0);
    let (_, v) = get(&h, "b", HISTORY, "category=USDT-FUTURES").await;
    assert_eq!(list(&v).len(), 0);
    // Time windows.
    let now = sim::now_ms();
    let (_, v) = get(
        &h,
        "a",
        HISTORY,
        &format!("category=USDT-FUTURES&endTime={}", now - DAY_MS),
    )
    .await;
    assert_eq!(list(&v).len(), 0, "all created after endTime");
    let (_, v) = get(
        &h,
        "a",
        HISTORY,
        &format!(
            "category=USDT-FUTURES&startTime={}&endTime={}",
            now - 29 * DAY_MS,
            now + 1000
        ),
    )
    .await;
    assert_eq!(list(&v).len(), 100);
    for q in [
        String::new(),
        "category=USDT-FUTURES&limit=101".into(),
        "category=USDT-FUTURES&limit=0".into(),
        "category=USDT-FUTURES&cursor=x".into(),
        format!(
            "category=USDT-FUTURES&startTime={}&endTime={now}",
            now - 31 * DAY_MS
        ),
        format!(
            "category=USDT-FUTURES&startTime={}&endTime={}",
            now - 91 * DAY_MS,
            now - 80 * DAY_MS
        ),
        format!("category=USDT-FUTURES&startTime={now}&endTime={}", now - 1),
    ] {
        let (s, v) = get(&h, "a", HISTORY, &q).await;
        assert_eq!((s, v["code"].as_str().unwrap()), (400, "40017"), "{q}: {v}");
    }
    // A category that is no category is a present but unaccepted value: `41101`, as on
    // place-order and cancel-symbol-order (one code per situation; was `40017` here).
    let (s, v) = get(&h, "a", HISTORY, "category=WHAT").await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "41101"), "{v}");
    h.shutdown().await;
}

#[tokio::test]
async fn fills_walk_pages_and_filter_by_order() {
    let h = common::start(true).await;
    // 110 market IOC buys of 0.001 against the 0.5 BTC levels: one fill each.
    let items: Vec<String> = (0..110)
        .map(|i| {
            format!(
                r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"market","qty":"0.001","clientOid":"f{i}"}}"#
            )
        })
        .collect();
    let mut order_ids = Vec::new();
    for chunk in items.chunks(20) {
        let (_, v) = post(&h, "a", BATCH, &arr(chunk)).await;
        for it in v["data"].as_array().unwrap() {
            assert_eq!(it["code"], "00000", "{it}");
            order_ids.push(it["orderId"].as_str().unwrap().to_string());
        }
    }
    let pages = walk(&h, FILLS, "", "execId").await;
    assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [100, 10]);
    let all: HashSet<u64> = pages.concat().into_iter().collect();
    assert_eq!(all.len(), 110);
    let pages = walk(&h, FILLS, "category=USDT-FUTURES&limit=100", "execId").await;
    assert_eq!(pages.concat().len(), 110);
    // One order's fill.
    let (s, v) = get(&h, "a", FILLS, &format!("orderId={}", order_ids[5])).await;
    assert_eq!(s, 200, "{v}");
    let l = list(&v);
    assert_eq!(l.len(), 1);
    let f = &l[0];
    assert_eq!(f["clientOid"], "f5");
    assert_eq!(f["category"], "USDT-FUTURES");
    assert_eq!(f["execQty"], "0.001");
    assert_eq!(f["execPrice"], "60000.5");
    assert_eq!(f["tradeScope"], "taker");
    assert_eq!(f["tradeSide"], "open");
    assert_eq!(f["side"], "buy");
    assert!(f["execLinkId"].as_str().unwrap().len() == 19);
    // Other categories / accounts / windows see none.
    let (_, v) = get(&h, "a", FILLS, "category=SPOT").await;
    assert_eq!(list(&v).len(), 0);
    let (_, v) = get(&h, "b", FILLS, "").await;
    assert_eq!(list(&v).len(), 0);
    let (_, v) = get(
        &h,
        "a",
        FILLS,
        &format!("endTime={}", sim::now_ms() - DAY_MS),
    )
    .await;
    assert_eq!(list(&v).len(), 0);
    let (s, v) = get(&h, "a", FILLS, "orderId=abc").await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "40017"));
    h.shutdown().await;
}

#[tokio::test]
async fn signatures_raw_or_decoded_query_raw_body_and_timestamp_window() {
    let h = common::start(true).await;
    let (_, v) = post(
        &h,
        "a",
        "/api/v3/trade/place-order",
        &buy("BTCUSDT", "50000", "0.001", "s:1"),
    )
    .await;
    assert_eq!(v["code"], "00000", "{v}");
    // The query as sent (percent-encoded) or its decoded form: both verify.
    let raw = "clientOid=s%3A1";
    for signed_query in [raw, "clientOid=s:1"] {
        let mut r = Signed::new("a", "GET", ORDER_INFO, raw, "");
        r.signed_query = signed_query;
        let (s, v) = r.send(&h).await;
        assert_eq!(s, 200, "{signed_query}: {v}");
        assert_eq!(v["data"]["clientOid"], "s:1");
    }
    // Signed over another query: refused.
    let mut r = Signed::new("a", "GET", ORDER_INFO, raw, "");
    r.signed_query = "clientOid=s:2";
    let (s, v) = r.send(&h).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "40009"));
    // Re-ordered keys are not the query as sent.
    let mut r = Signed::new("a", "GET", UNFILLED, "limit=5&category=USDT-FUTURES", "");
    r.signed_query = "category=USDT-FUTURES&limit=5";
    assert_eq!(r.send(&h).await.1["code"], "40009");
    // Body: exactly the bytes sent.
    let body = buy("BTCUSDT", "50000", "0.001", "s2");
    let signed = buy("BTCUSDT", "50000", "0.002", "s2");
    let mut r = Signed::new("a", "POST", BATCH, "", "");
    let arr_body = format!("[{body}]");
    let arr_signed = format!("[{signed}]");
    r.body = &arr_body;
    r.signed_body = &arr_signed;
    let (s, v) = r.send(&h).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "40009"));
    // 30 s window either way.
    for (skew, code) in [(-31_000i64, "40008"), (31_000, "40008"), (-20_000, "00000")] {
        let mut r = Signed::new("a", "POST", BATCH, "", &arr_body);
        r.ts = (sim::now_ms() as i64 + skew) as u64;
        let (_, v) = r.send(&h).await;
        assert_eq!(v["code"], code, "skew {skew}: {v}");
    }
    assert_eq!(
        unfilled_count(&h, "a").await,
        2,
        "only the in-window batch placed"
    );
    // Wrong key / passphrase / missing headers on a POST.
    let (s, v) = common::signing::https(&h, "POST", BATCH, &[], &arr_body).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "40001"));
    let mut r = Signed::new(
        "zz",
        "POST",
        CANCEL_SYMBOL,
        "",
        r#"{"category":"USDT-FUTURES"}"#,
    );
    r.ts = sim::now_ms();
    assert_eq!(r.send(&h).await.1["code"], "40006");
    assert_eq!(unfilled_count(&h, "a").await, 2);
    h.shutdown().await;
}

#[tokio::test]
async fn bad_input_gets_documented_codes_and_leaves_state_intact() {
    let h = common::start(true).await;
    place_many(&h, "a", "k", 2).await;
    let place = "/api/v3/trade/place-order";
    let cases: Vec<(&str, String, u16, &str)> = vec![
        (place, "{".into(), 400, "40017"),
        (place, "null".into(), 400, "40017"),
        (place, buy("NOPE", "1", "1", "x1"), 400, "25100"),
        (place, buy("BTCUSDT", "5e4", "0.001", "x2"), 400, "40017"),
        (
            place,
            buy("BTCUSDT", "50000", "0.0010000000000000000000001", "x3"),
            400,
            "40017",
        ),
        (place, buy("BTCUSDT", "50000", "-1", "x4"), 400, "40017"),
        (place, buy("BTCUSDT", "NaN", "0.001", "x5"), 400, "40017"),
        (place, buy("BTCUSDT", "50000", "0.001", "k0"), 400, "25212"),
        (
            place,
            r#"{"category":"usdt","symbol":"BTCUSDT"}"#.into(),
            400,
            "41101",
        ),
        (BATCH, r#"[1,"x",null]"#.into(), 400, "40017"),
        (
            CANCEL_BATCH,
            r#"[{"category":"USDT-FUTURES","orderId":"not-a-number"}]"#.into(),
            200,
            "00000",
        ),
        ("/api/v3/trade/nope", "{}".into(), 404, "40404"),
    ];
    for (path, body, status, code) in cases {
        let (s, v) = post(&h, "a", path, &body).await;
        assert_eq!(
            (s, v["code"].as_str().unwrap()),
            (status, code),
            "{path} {body}: {v}"
        );
    }
    // A known path with the wrong method is answered like an unknown path.
    let (s, v) = get(&h, "a", BATCH, "").await;
    assert_eq!((s, v["code"].as_str().unwrap()), (404, "40404"), "{v}");
    // Still two orders, and a normal order still works.
    assert_eq!(unfilled_count(&h, "a").await, 2);
    let (s, v) = post(&h, "a", place, &buy("BTCUSDT", "50000", "0.001", "after")).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (200, "00000"));
    assert_eq!(unfilled_count(&h, "a").await, 3);
    h.shutdown().await;
}

#[tokio::test]
async fn per_uid_rate_limit_answers_429_and_ws_ops_share_the_quota() {
    let mut cfg = common::config(true);
    cfg.rate_limits.enabled = true;
    cfg.rate_limits.place_order = 1;
    cfg.rate_limits.queries = 1;
    let h = sim::Sim::start(cfg).await.unwrap();
    let mut c = Client::ready(&h, "a").await;
    let place = "/api/v3/trade/place-order";
    // Capacity 1: the second request within the same second is refused.
    let mut saw_429 = None;
    for i in 0..20 {
        let (s, v) = post(
            &h,
            "a",
            place,
            &buy("BTCUSDT", "50000", "0.001", &format!("r{i}")),
        )
        .await;
        if s == 429 {
            saw_429 = Some(v);
            break;
        }
        assert_eq!(v["code"], "00000");
        assert_eq!(item(&c.recv().await)["orderStatus"], "live");
    }
    let v = saw_429.expect("a 429 within 20 requests at 1/s");
    assert_eq!(v["code"], "429");
    assert_eq!(v["msg"], "Too Many Requests");
    assert_eq!(v["data"], Value::Null);
    // The WS place-order right after counts against the same per-UID bucket.
    let reply = c
        .trade(&common::place(
            "w1",
            "BTCUSDT",
            "buy",
            Some("50000"),
            "0.001",
            "gtc",
            "w1",
        ))
        .await;
    assert_eq!(reply["event"], "error", "{reply}");
    assert_eq!(reply["code"], "429");
    assert_eq!(reply["msg"], "Too Many Requests");
    assert_eq!(reply["id"], "w1");
    assert_eq!(h.stats().rate_limited, 2);
    // Another UID has its own bucket; other endpoints have theirs.
    let (s, v) = post(&h, "b", place, &buy("BTCUSDT", "50000", "0.001", "b1")).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (200, "00000"));
    let (s, _) = post(&h, "a", CANCEL_SYMBOL, r#"{"category":"USDT-FUTURES"}"#).await;
    assert_eq!(s, 200);
    h.shutdown().await;
}

#[tokio::test]
async fn account_endpoints_have_their_own_per_uid_quotas() {
    let mut cfg = common::config(true);
    cfg.rate_limits.enabled = true;
    cfg.rate_limits.account_reads = 2;
    cfg.rate_limits.set_leverage = 1;
    let h = sim::Sim::start(cfg).await.unwrap();
    // Reads: a burst of 2, then 429 within the same second.
    let mut codes = Vec::new();
    for _ in 0..6 {
        let (s, v) = get(&h, "a", "/api/v3/account/assets", "").await;
        codes.push((s, v["code"].as_str().unwrap_or("").to_string()));
    }
    let refused = codes
        .iter()
        .position(|(s, _)| *s == 429)
        .expect("a 429 within 6 reads at 2/s");
    assert!(refused >= 2, "{codes:?}");
    assert_eq!(codes[refused].1, "429");
    // Another read path has its own bucket.
    let (s, _) = get(&h, "a", "/api/v3/account/settings", "").await;
    assert_eq!(s, 200);
    // set-leverage at 1/s: the second within the second is refused; another UID is not.
    let body = r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","leverage":"5"}"#;
    let mut statuses = Vec::new();
    for _ in 0..4 {
        statuses.push(post(&h, "a", "/api/v3/account/set-leverage", body).await.0);
    }
    assert!(statuses.contains(&429), "{statuses:?}");
    assert_eq!(
        post(&h, "b", "/api/v3/account/set-leverage", body).await.0,
        200
    );
    // move-positions at Bitget's 1/s: the quota is taken before the move rules are looked at.
    let moves = "/api/v3/account/move-positions";
    let first = post(&h, "a", moves, "{}").await;
    assert_ne!(first.0, 429, "{first:?}");
    let second = post(&h, "a", moves, "{}").await;
    assert_eq!((second.0, second.1["code"].as_str()), (429, Some("429")));
    h.shutdown().await;
}

#[tokio::test]
async fn rate_limits_are_off_in_the_demo_config() {
    assert!(!sim::SimConfig::demo().rate_limits.enabled);
    let h = common::start(true).await;
    for i in 0..30 {
        let (s, v) = post(
            &h,
            "a",
            "/api/v3/trade/place-order",
            &buy("BTCUSDT", "50000", "0.001", &format!("d{i}")),
        )
        .await;
        assert_eq!((s, v["code"].as_str().unwrap()), (200, "00000"));
    }
    h.shutdown().await;
}

#[tokio::test]
async fn trade_op_faults_apply_to_rest_batches() {
    let h = common::start(true).await;
    let faults = h.faults();
    faults
        .reject_trade_ops(
            sim::Scope::All,
            1,
            Some("batch-place"),
            43012,
            "Insufficient balance",
        )
        .unwrap();
    let items = arr(&[buy("BTCUSDT", "50000", "0.001", "fb1")]);
    let (s, v) = post(&h, "a", BATCH, &items).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "43012"), "{v}");
    assert_eq!(
        unfilled_count(&h, "a").await,
        0,
        "a rejected batch is not applied"
    );
    faults
        .unknown_outcome(sim::Scope::All, 1, Some("batch-cancel"), true)
        .unwrap();
    let (_, v) = post(&h, "a", BATCH, &items).await;
    assert_eq!(v["data"][0]["code"], "00000", "the rule was consumed: {v}");
    let cancel = r#"[{"category":"USDT-FUTURES","clientOid":"fb1"}]"#;
    let (s, v) = post(&h, "a", CANCEL_BATCH, cancel).await;
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "40010"), "{v}");
    assert_eq!(
        unfilled_count(&h, "a").await,
        0,
        "applied despite the unknown outcome"
    );
    h.shutdown().await;
}
