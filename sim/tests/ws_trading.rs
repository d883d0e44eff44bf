//! Trade ops over the private WebSocket (real TLS): replies, pushes, rejects.
#![allow(clippy::unwrap_used)]

mod common;

use common::{item, place, start, topic, Client};
use serde_json::Value;

fn is_19_digits(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| s.len() == 19 && s.bytes().all(|b| b.is_ascii_digit()))
}

#[tokio::test]
async fn resting_limit_ack_then_live_push() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let v = c
        .trade(r#"{"op":"trade","id":"p1","category":"usdt-futures","topic":"place-order","args":[{"orderType":"limit","price":"32000","qty":"0.0002","side":"buy","posSide":"long","symbol":"BTCUSDT","timeInForce":"gtc","clientOid":"s1:00000000001","stpMode":"cancel_maker"}]}"#)
        .await;
    assert_eq!(v["event"], "trade", "{v}");
    assert_eq!(v["id"], "p1");
    assert_eq!(v["category"], "usdt-futures");
    assert_eq!(v["topic"], "place-order");
    assert_eq!(v["code"], "0");
    let a = &v["args"][0];
    assert_eq!(a["symbol"], "BTCUSDT");
    assert_eq!(a["clientOid"], "s1:00000000001");
    assert!(is_19_digits(&a["orderId"]), "{a}");
    assert!(a["cTime"].is_string());
    let p = c.recv().await;
    assert_eq!(p["action"], "snapshot");
    assert_eq!(p["arg"]["instType"], "UTA");
    assert_eq!(topic(&p), "order");
    assert!(p["ts"].is_u64());
    let o = item(&p);
    assert_eq!(o["category"], "usdt-futures");
    assert_eq!(o["orderId"], a["orderId"]);
    assert_eq!(o["clientOid"], "s1:00000000001");
    assert_eq!(o["price"], "32000");
    assert_eq!(o["qty"], "0.0002");
    assert_eq!(o["orderStatus"], "live");
    assert_eq!(o["holdSide"], "long");
    assert_eq!(o["tradeSide"], "open");
    assert_eq!(o["side"], "buy");
    assert_eq!(o["orderType"], "limit");
    assert_eq!(o["timeInForce"], "gtc");
    assert_eq!(o["cumExecQty"], "0");
    assert_eq!(o["avgPrice"], "0");
    assert_eq!(o["cancelReason"], "");
    assert_eq!(o["reduceOnly"], "no");
    assert_eq!(o["feeDetail"], serde_json::json!([]));
    assert_eq!(o["stpMode"], "cancel_maker");

    // Numeric request ids are echoed as numbers; generated clientOid when absent.
    let v = c
        .trade(r#"{"op":"trade","id":1750034396082,"category":"usdt-futures","topic":"place-order","args":[{"orderType":"limit","price":"32000","qty":"0.0002","side":"buy","symbol":"BTCUSDT"}]}"#)
        .await;
    assert_eq!(v["id"], 1750034396082u64);
    assert!(!v["args"][0]["clientOid"].as_str().unwrap().is_empty());
    assert_eq!(item(&c.recv().await)["orderStatus"], "live");
    assert_eq!(h.stats().orders_placed, 2);
    h.shutdown().await;
}

#[tokio::test]
async fn crossing_ioc_fills_against_liquidity() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let v = c
        .trade(&place(
            "i1",
            "BTCUSDT",
            "buy",
            Some("61000"),
            "0.01",
            "ioc",
            "ioc-1",
        ))
        .await;
    assert_eq!(v["code"], "0", "{v}");
    let order_id = v["args"][0]["orderId"].clone();
    // It trades on entry: `new` first (reference §4.2), then the match.
    let n = c.recv().await;
    assert_eq!(item(&n)["orderStatus"], "new", "{n}");
    assert_eq!(item(&n)["cumExecQty"], "0");
    let p = c.recv().await;
    assert_eq!(topic(&p), "order");
    let o = item(&p);
    assert_eq!(o["orderId"], order_id);
    assert_eq!(o["orderStatus"], "filled");
    assert_eq!(o["cumExecQty"], "0.01");
    assert_eq!(o["cumExecValue"], "600.005");
    assert_eq!(o["avgPrice"], "60000.5");
    assert_eq!(o["feeDetail"][0]["feeCoin"], "USDT");
    assert_eq!(o["feeDetail"][0]["fee"], "0.360003");
    let f = c.recv().await;
    assert_eq!(topic(&f), "fill");
    let f = item(&f);
    assert_eq!(f["orderId"], order_id);
    assert_eq!(f["clientOid"], "ioc-1");
    assert!(is_19_digits(&f["execId"]));
    assert_eq!(f["category"], "USDT-FUTURES");
    assert_eq!(f["execPrice"], "60000.5");
    assert_eq!(f["execQty"], "0.01");
    assert_eq!(f["execValue"], "600.005");
    assert_eq!(f["tradeScope"], "taker");
    assert_eq!(f["side"], "buy");
    assert_eq!(f["holdSide"], "long");
    assert_eq!(f["tradeSide"], "open");
    assert_eq!(f["feeDetail"][0]["fee"], "0.360003");

    // A sweep over two levels (0.5 at 60000.5 after the top-up, then 60001): two fills at the
    // makers' prices, partially_filled then filled.
    let v = c
        .trade(&place(
            "i2",
            "BTCUSDT",
            "buy",
            Some("61000"),
            "0.6",
            "ioc",
            "ioc-2",
        ))
        .await;
    assert_eq!(v["code"], "0");
    let mut statuses = Vec::new();
    let mut prices = Vec::new();
    let mut exec_ids = Vec::new();
    let mut last = Value::Null;
    while statuses.last().map(String::as_str) != Some("filled") || prices.len() < 2 {
        let p = c.recv().await;
        if topic(&p) == "order" {
            statuses.push(item(&p)["orderStatus"].as_str().unwrap().to_string());
            last = item(&p).clone();
        } else {
            prices.push(item(&p)["execPrice"].as_str().unwrap().to_string());
            exec_ids.push(item(&p)["execId"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(statuses, vec!["new", "partially_filled", "filled"]);
    assert_eq!(prices, vec!["60000.5", "60001"]);
    assert_ne!(exec_ids[0], exec_ids[1]);
    assert_eq!(last["cumExecQty"], "0.6");
    assert_eq!(last["cumExecValue"], "36000.35");

    // A market sell of 0.01 fills at the best bid 59999.5.
    let v = c
        .trade(&place(
            "m1", "BTCUSDT", "sell", None, "0.01", "gtc", "mkt-1",
        ))
        .await;
    assert_eq!(v["code"], "0");
    let n = item(&c.recv().await).clone();
    assert_eq!(
        (&n["orderStatus"], &n["price"]),
        (&"new".into(), &"".into())
    );
    let o = item(&c.recv().await).clone();
    assert_eq!(o["orderStatus"], "filled");
    assert_eq!(o["avgPrice"], "59999.5");
    assert_eq!(o["price"], "");
    assert_eq!(h.stats().fills, 4);
    h.shutdown().await;
}

#[tokio::test]
async fn two_accounts_cross_ioc_remainder_cancelled() {
    let h = start(true).await;
    let mut a = Client::ready(&h, "a").await;
    let mut b = Client::ready(&h, "b").await;
    // ETHUSDT futures has no liquidity source in the test config.
    let v = a
        .trade(&place(
            "a1",
            "ETHUSDT",
            "sell",
            Some("3000"),
            "0.1",
            "gtc",
            "maker-1",
        ))
        .await;
    assert_eq!(v["code"], "0");
    assert_eq!(item(&a.recv().await)["orderStatus"], "live");
    let v = b
        .trade(&place(
            "b1",
            "ETHUSDT",
            "buy",
            Some("3000"),
            "0.3",
            "ioc",
            "taker-1",
        ))
        .await;
    assert_eq!(v["code"], "0");
    assert_eq!(item(&b.recv().await)["orderStatus"], "new");
    let p1 = b.recv().await;
    assert_eq!(item(&p1)["orderStatus"], "partially_filled");
    assert_eq!(item(&p1)["cumExecQty"], "0.1");
    let f = b.recv().await;
    assert_eq!(item(&f)["tradeScope"], "taker");
    let link = item(&f)["execLinkId"].clone();
    let p2 = b.recv().await;
    assert_eq!(item(&p2)["orderStatus"], "cancelled");
    assert_eq!(item(&p2)["cancelReason"], "ioc_not_full_cancel");
    assert_eq!(item(&p2)["cumExecQty"], "0.1");
    assert_eq!(item(&p2)["avgPrice"], "3000");
    // The maker's owner gets its pushes too.
    let m = a.recv().await;
    assert_eq!(item(&m)["orderStatus"], "filled");
    assert_eq!(item(&m)["clientOid"], "maker-1");
    let mf = a.recv().await;
    assert_eq!(item(&mf)["tradeScope"], "maker");
    assert_eq!(item(&mf)["fee"], Value::Null);
    assert_eq!(item(&mf)["feeDetail"][0]["fee"], "0.06");
    assert_eq!(item(&mf)["execLinkId"], link);
    assert_ne!(item(&mf)["execId"], item(&f)["execId"]);
    h.shutdown().await;
}

#[tokio::test]
async fn cancel_then_unknown() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let v = c
        .trade(&place(
            "p1",
            "BTCUSDT",
            "buy",
            Some("50000"),
            "0.01",
            "gtc",
            "c-1",
        ))
        .await;
    let order_id = v["args"][0]["orderId"].as_str().unwrap().to_string();
    assert_eq!(item(&c.recv().await)["orderStatus"], "live");
    let v = c
        .trade(&format!(
            r#"{{"op":"trade","id":"x1","topic":"cancel-order","args":[{{"orderId":"{order_id}"}}]}}"#
        ))
        .await;
    assert_eq!(v["event"], "trade");
    assert_eq!(v["topic"], "cancel-order");
    assert_eq!(v["code"], "0");
    assert_eq!(v["args"][0]["orderId"], order_id.as_str());
    assert_eq!(v["args"][0]["clientOid"], "c-1");
    let o = item(&c.recv().await).clone();
    assert_eq!(o["orderStatus"], "cancelled");
    assert_eq!(o["cancelReason"], "normal_cancel");
    let v = c
        .trade(&format!(
            r#"{{"op":"trade","id":"x2","topic":"cancel-order","args":[{{"orderId":"{order_id}"}}]}}"#
        ))
        .await;
    assert_eq!(v["event"], "error");
    assert_eq!(v["id"], "x2");
    assert_eq!(v["code"], "25204");
    assert_eq!(v["msg"], "Order does not exist");
    // By clientOid; the freed clientOid can be reused after the cancel.
    c.trade(&place(
        "p2",
        "BTCUSDT",
        "buy",
        Some("50000"),
        "0.01",
        "gtc",
        "c-1",
    ))
    .await;
    c.recv().await;
    let v = c
        .trade(r#"{"op":"trade","id":"x3","category":"usdt-futures","topic":"cancel-order","args":[{"clientOid":"c-1"}]}"#)
        .await;
    assert_eq!(v["code"], "0", "{v}");
    assert_eq!(item(&c.recv().await)["cancelReason"], "normal_cancel");
    // Another account cannot cancel it.
    let mut b = Client::ready(&h, "b").await;
    c.trade(&place(
        "p3",
        "BTCUSDT",
        "buy",
        Some("50000"),
        "0.01",
        "gtc",
        "c-2",
    ))
    .await;
    c.recv().await;
    let v = b
        .trade(r#"{"op":"trade","id":"x4","topic":"cancel-order","args":[{"clientOid":"c-2"}]}"#)
        .await;
    assert_eq!(v["code"], "25204");
    h.shutdown().await;
}

#[tokio::test]
async fn post_only_cross_is_acked_then_cancelled() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let v = c
        .trade(&place(
            "po",
            "BTCUSDT",
            "buy",
            Some("60000.5"),
            "0.01",
            "post_only",
            "po-1",
        ))
        .await;
    assert_eq!(v["event"], "trade");
    assert_eq!(v["code"], "0");
    let o = item(&c.recv().await).clone();
    assert_eq!(o["orderStatus"], "cancelled");
    assert_eq!(o["cancelReason"], "post_only_fill_cancel");
    assert_eq!(o["timeInForce"], "post_only");
    assert_eq!(o["cumExecQty"], "0");
    h.shutdown().await;
}

#[tokio::test]
async fn modify_ack_then_push_with_new_values() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let v = c
        .trade(&place(
            "p1",
            "BTCUSDT",
            "buy",
            Some("50000"),
            "0.01",
            "gtc",
            "m-1",
        ))
        .await;
    let order_id = v["args"][0]["orderId"].as_str().unwrap().to_string();
    c.recv().await;
    let v = c
        .trade(&format!(
            r#"{{"args":[{{"autoCancel":"no","orderId":"{order_id}","price":"50100.5","qty":"0.02","symbol":"BTCUSDT"}}],"id":"mod-1","op":"trade","category":"usdt-futures","topic":"modify-order"}}"#
        ))
        .await;
    assert_eq!(v["event"], "trade", "{v}");
    assert_eq!(v["topic"], "modify-order");
    assert_eq!(v["code"], "0");
    assert_eq!(v["args"][0]["orderId"], order_id.as_str());
    assert_eq!(v["args"][0]["clientOid"], "m-1");
    let o = item(&c.recv().await).clone();
    assert_eq!(o["orderStatus"], "live");
    assert_eq!(o["price"], "50100.5");
    assert_eq!(o["qty"], "0.02");
    // Same values → 25571; bad tick → 25244; unknown → 25204.
    let v = c
        .trade(r#"{"args":[{"clientOid":"m-1","price":"50100.5","qty":"0.02"}],"id":"mod-2","op":"trade","topic":"modify-order"}"#)
        .await;
    assert_eq!(v["code"], "25571");
    let v = c
        .trade(&format!(
            r#"{{"args":[{{"orderId":"{order_id}","price":"50100.55"}}],"id":"mod-3","op":"trade","topic":"modify-order"}}"#
        ))
        .await;
    assert_eq!(v["code"], "25244");
    let v = c
        .trade(r#"{"args":[{"orderId":"1000000000000000001","price":"50000"}],"id":"mod-4","op":"trade","topic":"modify-order"}"#)
        .await;
    assert_eq!(v["code"], "25204");
    // Modify to a crossing price: ACK, push with the new price, then the fill.
    let v = c
        .trade(&format!(
            r#"{{"args":[{{"orderId":"{order_id}","price":"60000.5"}}],"id":"mod-5","op":"trade","topic":"modify-order"}}"#
        ))
        .await;
    assert_eq!(v["code"], "0");
    let o = item(&c.recv().await).clone();
    assert_eq!(o["price"], "60000.5");
    assert_eq!(o["orderStatus"], "live");
    let o = item(&c.recv().await).clone();
    assert_eq!(o["orderStatus"], "filled");
    assert_eq!(o["cumExecQty"], "0.02");
    assert_eq!(topic(&c.recv().await), "fill");
    assert_eq!(h.stats().orders_modified, 2);
    // autoCancel=yes and a refused modification: error reply, then the order is cancelled.
    c.trade(&place(
        "p2",
        "BTCUSDT",
        "buy",
        Some("50000"),
        "0.01",
        "gtc",
        "m-2",
    ))
    .await;
    assert_eq!(item(&c.recv().await)["orderStatus"], "live");
    let v = c
        .trade(r#"{"args":[{"clientOid":"m-2","price":"50000.01","autoCancel":"yes"}],"id":"mod-6","op":"trade","topic":"modify-order"}"#)
        .await;
    assert_eq!(v["code"], "25244");
    let o = item(&c.recv().await).clone();
    assert_eq!(o["orderStatus"], "cancelled");
    assert_eq!(o["clientOid"], "m-2");
    h.shutdown().await;
}

#[tokio::test]
async fn rejects_with_documented_codes() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let cases: Vec<(String, &str, Option<&str>)> = vec![
        (place("r1", "BTCUSDT", "buy", Some("50000.05"), "0.01", "gtc", "r-1"), "25244", Some("Price should be a multiple of 0.1")),
        (place("r2", "BTCUSDT", "buy", Some("100"), "0.01", "gtc", "r-2"), "45110", Some("less than the minimum amount 5 USDT")),
        (place("r3", "DOGEUSDT", "buy", Some("1"), "10", "gtc", "r-3"), "25100", None),
        (place("r4", "BTCUSDT", "buy", Some("50000"), "0.00001", "gtc", "r-4"), "40017", None),
        (place("r5", "BTCUSDT", "buy", Some("50000"), "0.01", "gtc", "bad oid!"), "40017", None),
        (place("r6", "BTCUSDT", "BUY", Some("50000"), "0.01", "gtc", "r-6"), "41101", None),
        (r#"{"op":"trade","id":"r7","category":"USDT-FUTURES","topic":"place-order","args":[{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.01"}]}"#.to_string(), "41101", Some("Param category=USDT-FUTURES error")),
        // An empty category is a missing one, as on REST (one code per situation).
        (r#"{"op":"trade","id":"r7b","category":"","topic":"place-order","args":[{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.01"}]}"#.to_string(), "40017", Some("Parameter verification failed: category")),
        (r#"{"op":"trade","id":"r8","category":"usdt-futures","topic":"place-order","args":[{"symbol":"BTCUSDT","side":"buy","orderType":"limit","qty":"0.01"}]}"#.to_string(), "40017", None),
        (r#"{"op":"trade","id":"r9","category":"usdt-futures","topic":"teleport","args":[{}]}"#.to_string(), "41101", None),
    ];
    for (req, code, msg) in cases {
        let v = c.trade(&req).await;
        assert_eq!(v["event"], "error", "{req} → {v}");
        assert_eq!(v["code"], code, "{req} → {v}");
        if let Some(m) = msg {
            assert_eq!(v["msg"], m);
        }
        assert!(v["id"].as_str().unwrap().starts_with('r'));
    }
    // Duplicate pending clientOid.
    let v = c
        .trade(&place(
            "d1",
            "BTCUSDT",
            "buy",
            Some("50000"),
            "0.01",
            "gtc",
            "dup",
        ))
        .await;
    assert_eq!(v["code"], "0");
    c.recv().await;
    let v = c
        .trade(&place(
            "d2",
            "BTCUSDT",
            "buy",
            Some("50000"),
            "0.01",
            "gtc",
            "dup",
        ))
        .await;
    assert_eq!(v["code"], "25212");
    assert!(h.stats().rejects >= 10);
    // No push was sent for any reject: the next frame is the reply to ping.
    c.send("ping").await;
    assert_eq!(c.recv_text().await.as_deref(), Some("pong"));
    h.shutdown().await;
}

#[tokio::test]
async fn batch_place_and_cancel_per_item_codes() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let v = c
        .trade(r#"{"op":"trade","id":"b1","category":"usdt-futures","topic":"batch-place","args":[
            {"clientOid":"bp-1","orderType":"limit","price":"50000","qty":"0.01","side":"buy","symbol":"BTCUSDT","timeInForce":"gtc"},
            {"clientOid":"bp-2","orderType":"limit","price":"50000.01","qty":"0.01","side":"buy","symbol":"BTCUSDT","timeInForce":"gtc"}]}"#)
        .await;
    assert_eq!(v["event"], "trade", "{v}");
    assert_eq!(v["code"], "0");
    assert_eq!(v["args"][0]["code"], "0");
    assert_eq!(v["args"][0]["clientOid"], "bp-1");
    assert_eq!(v["args"][1]["code"], "25244");
    assert_eq!(v["args"][1]["orderId"], "");
    assert_eq!(v["args"][1]["clientOid"], "bp-2");
    assert_eq!(item(&c.recv().await)["orderStatus"], "live");
    let v = c
        .trade(r#"{"op":"trade","id":"b2","topic":"batch-cancel","args":[{"clientOid":"bp-1"},{"clientOid":"bp-9"}]}"#)
        .await;
    assert_eq!(v["args"][0]["code"], "0");
    assert_eq!(v["args"][1]["code"], "25204");
    assert_eq!(v["args"][1]["msg"], "Order does not exist");
    assert_eq!(item(&c.recv().await)["cancelReason"], "normal_cancel");
    h.shutdown().await;
}

#[tokio::test]
async fn many_orders_run_quickly_and_liquidity_does_not_starve() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    for i in 0..300 {
        let side = if i % 2 == 0 { "buy" } else { "sell" };
        let price = if i % 2 == 0 { "61000" } else { "59000" };
        let v = c
            .trade(&place(
                &format!("n{i}"),
                "BTCUSDT",
                side,
                Some(price),
                "0.01",
                "ioc",
                &format!("n-{i}"),
            ))
            .await;
        assert_eq!(v["code"], "0");
        assert_eq!(item(&c.recv().await)["orderStatus"], "new");
        let o = c.recv().await;
        assert_eq!(item(&o)["orderStatus"], "filled", "order {i}: {o}");
        let f = c.recv().await;
        assert_eq!(topic(&f), "fill");
    }
    assert_eq!(h.stats().fills, 300);
    h.shutdown().await;
}

/// 10,000 crossing IOC orders, one at a time (run with `--ignored`; prints the elapsed time).
#[tokio::test]
#[ignore]
async fn ten_thousand_orders() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let t0 = std::time::Instant::now();
    for i in 0..10_000 {
        let side = if i % 2 == 0 { "buy" } else { "sell" };
        let price = if i % 2 == 0 { "61000" } else { "59000" };
        let v = c
            .trade(&place(
                &format!("n{i}"),
                "BTCUSDT",
                side,
                Some(price),
                "0.01",
                "ioc",
                &format!("n-{i}"),
            ))
            .await;
        assert_eq!(v["code"], "0");
        assert_eq!(item(&c.recv().await)["orderStatus"], "new");
        assert_eq!(item(&c.recv().await)["orderStatus"], "filled");
        c.recv().await;
    }
    eprintln!("10000 orders in {:?}", t0.elapsed());
    assert_eq!(h.stats().fills, 10_000);
    h.shutdown().await;
}

#[tokio::test]
async fn rest_order_queries_are_signed_and_see_open_and_finished_orders() {
    use common::{https_get_with, signed_get};
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    for (i, px) in ["50000", "50001", "50002"].iter().enumerate() {
        c.trade(&place(
            &format!("q{i}"),
            "BTCUSDT",
            "buy",
            Some(px),
            "0.01",
            "gtc",
            &format!("q-{i}"),
        ))
        .await;
        c.recv().await;
    }
    // An IOC that fills: finished, still visible through order-info.
    c.trade(&place(
        "qf",
        "BTCUSDT",
        "buy",
        Some("61000"),
        "0.01",
        "ioc",
        "q-f",
    ))
    .await;
    c.recv().await;
    c.recv().await;

    let path = "/api/v3/trade/unfilled-orders";
    let (status, v) = signed_get(&h, "a", path, "category=USDT-FUTURES&limit=2").await;
    assert!(status.contains("200"), "{status} {v}");
    assert_eq!(v["code"], "00000");
    let list = v["data"]["list"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["clientOid"], "q-2");
    assert_eq!(list[0]["category"], "USDT-FUTURES");
    assert_eq!(list[0]["orderStatus"], "live");
    assert_eq!(list[0]["reduceOnly"], "NO");
    let cursor = v["data"]["cursor"].as_str().unwrap().to_string();
    let (_, v) = signed_get(
        &h,
        "a",
        path,
        &format!("category=USDT-FUTURES&limit=2&cursor={cursor}"),
    )
    .await;
    let list = v["data"]["list"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["clientOid"], "q-0");
    // Another account sees none of them.
    let (_, v) = signed_get(&h, "b", path, "").await;
    assert_eq!(v["data"]["list"].as_array().unwrap().len(), 0);

    let (_, v) = signed_get(&h, "a", "/api/v3/trade/order-info", "clientOid=q-f").await;
    assert_eq!(v["data"]["orderStatus"], "filled", "{v}");
    assert_eq!(v["data"]["cumExecQty"], "0.01");
    assert_eq!(v["data"]["avgPrice"], "60000.5");
    let (status, v) = signed_get(&h, "a", "/api/v3/trade/order-info", "clientOid=nope").await;
    assert!(status.contains("400"));
    assert_eq!(v["code"], "25204");
    assert_eq!(v["data"], Value::Null);

    // Bad signature / missing headers.
    let headers = [
        ("ACCESS-KEY", "key-a".to_string()),
        ("ACCESS-SIGN", "AAAA".to_string()),
        ("ACCESS-TIMESTAMP", sim::now_ms().to_string()),
        ("ACCESS-PASSPHRASE", "pass-a".to_string()),
    ];
    let (status, v) = https_get_with(&h, path, &headers).await;
    assert!(status.contains("400"));
    assert_eq!(v["code"], "40009");
    let (_, v) = https_get_with(&h, path, &[]).await;
    assert_eq!(v["code"], "40001");
    h.shutdown().await;
}

#[tokio::test]
async fn rest_trading_shares_the_venue_and_pushes() {
    use common::signed_post;
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let (status, v) = signed_post(
        &h,
        "a",
        "/api/v3/trade/place-order",
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","qty":"0.001","price":"30000","side":"buy","orderType":"limit","timeInForce":"gtc","clientOid":"r:1"}"#,
    )
    .await;
    assert!(status.contains("200"), "{status} {v}");
    assert_eq!(v["code"], "00000");
    assert_eq!(v["data"]["clientOid"], "r:1");
    let order_id = v["data"]["orderId"].as_str().unwrap().to_string();
    let p = c.recv().await;
    assert_eq!(item(&p)["orderStatus"], "live");
    assert_eq!(item(&p)["orderId"], order_id.as_str());
    let (_, v) = signed_post(
        &h,
        "a",
        "/api/v3/trade/modify-order",
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","clientOid":"r:1","price":"30000.5"}"#,
    )
    .await;
    assert_eq!(v["code"], "00000");
    assert_eq!(item(&c.recv().await)["price"], "30000.5");
    let body =
        format!(r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","orderId":"{order_id}"}}"#);
    let (_, v) = signed_post(&h, "a", "/api/v3/trade/cancel-order", &body).await;
    assert_eq!(v["code"], "00000");
    assert_eq!(item(&c.recv().await)["cancelReason"], "normal_cancel");
    let (status, v) = signed_post(&h, "a", "/api/v3/trade/cancel-order", &body).await;
    assert!(status.contains("400"));
    assert_eq!(v["code"], "25204");
    assert_eq!(v["msg"], "Order does not exist");
    let (_, v) = signed_post(&h, "a", "/api/v3/trade/place-order", "[1]").await;
    assert_eq!(v["code"], "40017");
    h.shutdown().await;
}
