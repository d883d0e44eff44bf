//! Sans-I/O tests of the venue: ids, clientOid lifecycle, push routing, request checks.

use super::*;
use crate::matching::Fill;

fn venue() -> Venue {
    let mut cfg = SimConfig::demo();
    cfg.id_base = Some(1_300_000_000_000_000_000);
    Venue::new(&cfg, Arc::new(Counters::default()), 0)
}

fn trade(v: &mut Venue, owner: u32, req: &str) -> (Value, Vec<Push>) {
    let req: Value = serde_json::from_str(req).unwrap();
    let out = v.handle_trade(AccountId(owner), &req, "c1", 1000);
    (serde_json::from_str(&out.reply).unwrap(), out.pushes)
}

fn place(oid: &str, side: &str, price: &str) -> String {
    format!(
        r#"{{"op":"trade","id":"1","category":"usdt-futures","topic":"place-order","args":[{{"symbol":"ETHUSDT","side":"{side}","orderType":"limit","price":"{price}","qty":"0.1","clientOid":"{oid}"}}]}}"#
    )
}

#[test]
fn ids_are_19_digit_and_increasing() {
    let mut v = venue();
    let (a, _) = trade(&mut v, 0, &place("x1", "buy", "2000"));
    let (b, _) = trade(&mut v, 0, &place("x2", "buy", "2000"));
    let a = a["args"][0]["orderId"].as_str().unwrap().to_string();
    let b = b["args"][0]["orderId"].as_str().unwrap().to_string();
    assert_eq!(a, "1300000000000000000");
    assert!(b > a && b.len() == 19);
}

#[test]
fn client_oid_is_freed_when_a_maker_fills() {
    let mut v = venue();
    let (r, p) = trade(&mut v, 0, &place("dup", "sell", "3000"));
    assert_eq!(r["code"], "0");
    assert_eq!(p.len(), 1);
    let (r, _) = trade(&mut v, 0, &place("dup", "sell", "3000"));
    assert_eq!(r["code"], "25212");
    // Account 1 (not configured: no balances or positions) takes it: pushes for both
    // owners, taker first (its `new`, then its match); the configured maker also gets its
    // position and account.
    let (r, p) = trade(&mut v, 1, &place("t", "buy", "3000"));
    assert_eq!(r["code"], "0");
    let owners: Vec<(u32, Topic)> = p.iter().map(|p| (p.owner.0, p.topic)).collect();
    assert_eq!(
        owners,
        vec![
            (1, Topic::Order),
            (1, Topic::Order),
            (1, Topic::Fill),
            (0, Topic::Order),
            (0, Topic::Fill),
            (0, Topic::Position),
            (0, Topic::Account)
        ]
    );
    let (r, _) = trade(&mut v, 0, &place("dup", "sell", "3000"));
    assert_eq!(r["code"], "0", "{r}");
}

#[test]
fn request_level_checks() {
    let mut v = venue();
    let args: Vec<String> = (0..21)
        .map(|i| format!(r#"{{"symbol":"ETHUSDT","side":"buy","orderType":"limit","price":"2000","qty":"0.1","clientOid":"b{i}"}}"#))
        .collect();
    let req = format!(
        r#"{{"op":"trade","id":"1","category":"usdt-futures","topic":"batch-place","args":[{}]}}"#,
        args.join(",")
    );
    assert_eq!(trade(&mut v, 0, &req).0["code"], "40017");
    let req = r#"{"op":"trade","id":"1","topic":"place-order","args":[{"symbol":"ETHUSDT","side":"buy","orderType":"limit","price":"2000","qty":"0.1"}]}"#;
    assert_eq!(trade(&mut v, 0, req).0["code"], "40017");
    let req = r#"{"op":"trade","id":"1","category":7,"topic":"place-order","args":[{}]}"#;
    assert_eq!(trade(&mut v, 0, req).0["code"], "41101");
    // Cancel with another category, or by another account → 25204.
    trade(&mut v, 0, &place("c1", "buy", "2000"));
    let req = r#"{"op":"trade","id":"1","category":"spot","topic":"cancel-order","args":[{"clientOid":"c1"}]}"#;
    assert_eq!(trade(&mut v, 0, req).0["code"], "25204");
    let req = r#"{"op":"trade","id":"1","topic":"modify-order","args":[{"clientOid":"c1","price":"2001"}]}"#;
    assert_eq!(trade(&mut v, 1, req).0["code"], "25204");
    assert_eq!(trade(&mut v, 0, req).0["code"], "0");
    // Missing id → "" echoed.
    let req = r#"{"op":"trade","topic":"cancel-order","args":[{"orderId":"12"}]}"#;
    let (r, _) = trade(&mut v, 0, req);
    assert_eq!(r["id"], "");
    assert_eq!(r["code"], "25204");
}

#[test]
fn batch_requests_are_counted_per_topic() {
    let mut v = venue();
    let item = |oid: &str| {
        format!(
            r#"{{"symbol":"ETHUSDT","side":"buy","orderType":"limit","price":"2000","qty":"0.1","clientOid":"{oid}"}}"#
        )
    };
    let req = format!(
        r#"{{"op":"trade","id":"1","category":"usdt-futures","topic":"batch-place","args":[{},{}]}}"#,
        item("p1"),
        item("p2")
    );
    trade(&mut v, 0, &req);
    trade(&mut v, 0, &place("p3", "buy", "2000"));
    let req = r#"{"op":"trade","id":"2","category":"usdt-futures","topic":"batch-cancel","args":[{"symbol":"ETHUSDT","clientOid":"p1"}]}"#;
    trade(&mut v, 0, req);
    let c = &v.counters;
    assert_eq!(c.batch_place_ops.load(Ordering::Relaxed), 1);
    assert_eq!(c.batch_modify_ops.load(Ordering::Relaxed), 0);
    assert_eq!(c.batch_cancel_ops.load(Ordering::Relaxed), 1);
    assert_eq!(c.orders_received.load(Ordering::Relaxed), 3);
}

#[test]
fn a_clientoid_sent_again_is_counted_even_after_the_order_ended() {
    let mut v = venue();
    trade(&mut v, 0, &place("r1", "buy", "2000"));
    // Open: refused as a duplicate, and counted.
    assert_eq!(
        trade(&mut v, 0, &place("r1", "buy", "2000")).0["code"],
        "25212"
    );
    let req = r#"{"op":"trade","id":"2","category":"usdt-futures","topic":"cancel-order","args":[{"symbol":"ETHUSDT","clientOid":"r1"}]}"#;
    trade(&mut v, 0, req);
    // Finished: the venue accepts it again, the counter still sees the repeat.
    trade(&mut v, 0, &place("r1", "buy", "2000"));
    // Another account may use the same clientOid.
    trade(&mut v, 1, &place("r1", "buy", "2000"));
    trade(&mut v, 0, &place("r2", "buy", "2000"));
    assert_eq!(v.counters.repeated_client_oids.load(Ordering::Relaxed), 2);
}

/// Every page of a cursor-paged list (`page(limit, cursor)` → the data JSON): the ids of all
/// pages in order.
fn all_pages(limit: usize, id_key: &str, page: impl Fn(usize, Option<u64>) -> String) -> Vec<u64> {
    let mut ids = Vec::new();
    let mut cursor = None;
    loop {
        let v: Value = serde_json::from_str(&page(limit, cursor)).unwrap();
        let list = v["list"].as_array().unwrap();
        ids.extend(
            list.iter()
                .map(|o| o[id_key].as_str().unwrap().parse::<u64>().unwrap()),
        );
        match v["cursor"].as_str().unwrap() {
            "" => return ids,
            c => cursor = Some(c.parse().unwrap()),
        }
    }
}

/// The list queries page from ordered ids (issue 23: a page costs its own items, not the
/// whole book or history): pages of 2 give, newest first, exactly what one page of 100 gives,
/// for open orders, finished orders and fills, with another account's items left out.
#[test]
fn small_pages_list_exactly_what_one_large_page_lists() {
    let mut v = venue();
    for i in 0..9 {
        let (r, _) = trade(
            &mut v,
            0,
            &place(&format!("s{i}"), "sell", &format!("{}", 3000 + i)),
        );
        assert_eq!(r["code"], "0", "{r}");
    }
    trade(&mut v, 1, &place("other", "sell", "3100"));
    // Account 1 takes the three cheapest: three orders of account 0 finish with fills.
    for i in 0..3 {
        let (r, _) = trade(&mut v, 1, &place(&format!("t{i}"), "buy", "3002"));
        assert_eq!(r["code"], "0", "{r}");
    }
    let unfilled = |limit, cursor| v.unfilled_orders(AccountId(0), None, None, limit, cursor);
    let open = all_pages(2, "orderId", unfilled);
    assert_eq!(open.len(), 6);
    assert!(
        open.windows(2).all(|w| w[0] > w[1]),
        "newest first: {open:?}"
    );
    assert_eq!(open, all_pages(100, "orderId", unfilled));
    let q = |limit, cursor| PageQuery {
        category: None,
        symbol: None,
        order_id: None,
        start_ms: 0,
        end_ms: u64::MAX,
        limit,
        cursor,
    };
    let history = |limit, cursor| v.history_orders(AccountId(0), &q(limit, cursor));
    let finished = all_pages(2, "orderId", history);
    assert_eq!(finished.len(), 3);
    assert!(finished.windows(2).all(|w| w[0] > w[1]));
    assert_eq!(finished, all_pages(100, "orderId", history));
    let fills = |limit, cursor| v.fills(AccountId(0), &q(limit, cursor));
    let execs = all_pages(2, "execId", fills);
    assert_eq!(execs.len(), 3);
    assert!(execs.windows(2).all(|w| w[0] > w[1]));
    assert_eq!(execs, all_pages(100, "execId", fills));
}

/// Every table the venue keeps per order, per clientOid or per fill, with what it holds
/// without growing (issue 23: sized at start, nothing rehashes or grows by copy while orders
/// flow). A hash table's figure is its entries plus its free slots: a slot freed as a
/// tombstone lowers it (reusing one raises it back), a growth doubles it. A rehash in place
/// needs the free slots used up: a few tombstones at the end show it is far off.
fn capacities(v: &Venue) -> [usize; 5] {
    let (index, queue) = v.history.capacity();
    [
        v.client_oids.capacity(),
        index,
        queue,
        v.fill_log.capacity(),
        v.seen_client_oids.capacity(),
    ]
}

fn ioc(oid: &str) -> String {
    format!(
        r#"{{"op":"trade","id":"1","category":"usdt-futures","topic":"place-order","args":[{{"symbol":"ETHUSDT","side":"buy","orderType":"limit","price":"2000","qty":"0.1","timeInForce":"ioc","clientOid":"{oid}"}}]}}"#
    )
}

/// Issue 23: finished orders past [`History::CAP`] leave, oldest first; the queries answer the
/// kept window; no table grew; the repeated-clientOid count still sees a repeat of an order
/// the history no longer holds.
#[test]
fn finished_orders_past_the_cap_leave_and_the_queries_answer_the_kept_window() {
    let mut v = venue();
    let start = capacities(&v);
    let n = History::CAP + 1_000;
    let mut last_id = 0u64;
    for i in 0..n {
        // An IOC buy with no ask to take ends at once (`ioc_not_full_cancel`).
        let out = v.handle_trade(
            AccountId(0),
            &serde_json::from_str(&ioc(&format!("h{i}"))).unwrap(),
            "c1",
            1_000 + i as u64,
        );
        let r: Value = serde_json::from_str(&out.reply).unwrap();
        assert_eq!(r["code"], "0", "{r}");
        last_id = r["args"][0]["orderId"].as_str().unwrap().parse().unwrap();
        assert!(v.history.len() <= History::CAP);
        let now = capacities(&v);
        assert!(
            now.iter().zip(start).all(|(a, b)| *a <= b),
            "a table grew at order {i}: {start:?} → {now:?}"
        );
    }
    assert_eq!(v.history.len(), History::CAP);
    // Tombstones cost a hash table a few free slots at most.
    let end = capacities(&v);
    assert!(
        end.iter().zip(start).all(|(a, b)| *a + 100 >= b),
        "{start:?} → {end:?}"
    );
    // The first 1 000 left; the 1 001st is the oldest kept.
    let info = |oid: &str| v.order_info(AccountId(0), None, Some(oid));
    assert_eq!(info("h0").unwrap_err().code, 25204);
    assert_eq!(info("h999").unwrap_err().code, 25204);
    let oldest: Value = serde_json::from_str(&info("h1000").unwrap()).unwrap();
    assert_eq!(oldest["orderStatus"], "cancelled");
    let newest: Value = serde_json::from_str(&info(&format!("h{}", n - 1)).unwrap()).unwrap();
    assert_eq!(newest["orderId"], last_id.to_string());
    // history-orders pages the kept window newest first, from the last order.
    let q = PageQuery {
        category: None,
        symbol: None,
        order_id: None,
        start_ms: 0,
        end_ms: u64::MAX,
        limit: 100,
        cursor: None,
    };
    let page: Value = serde_json::from_str(&v.history_orders(AccountId(0), &q)).unwrap();
    let list = page["list"].as_array().unwrap();
    assert_eq!(list.len(), 100);
    assert_eq!(list[0]["orderId"], last_id.to_string());
    // A clientOid whose order left the history is still counted when it is sent again.
    assert_eq!(v.counters.repeated_client_oids.load(Ordering::Relaxed), 0);
    trade(&mut v, 0, &ioc("h0"));
    assert_eq!(v.counters.repeated_client_oids.load(Ordering::Relaxed), 1);
}

fn fill(exec_id: u64, time_ms: u64) -> Fill {
    Fill {
        owner: AccountId(0),
        order_id: exec_id,
        client_oid: format!("f{exec_id}"),
        exec_id,
        exec_link_id: exec_id,
        side: Side::Buy,
        order_type: OrderType::Limit,
        pos_side: None,
        reduce_only: false,
        price: Decimal::ONE,
        qty: Decimal::ONE,
        value: Decimal::ONE,
        scope: crate::matching::TradeScope::Taker,
        fee: Decimal::ZERO,
        time_ms,
    }
}

/// Issue 23: the fill log keeps the last [`queries::FillLog::CAP`] fills in a ring that never
/// grows, and none past its window.
#[test]
fn the_fill_log_keeps_the_last_fills_in_a_ring_that_never_grows() {
    let mut log = queries::FillLog::new();
    let capacity = log.capacity();
    assert!(capacity > queries::FillLog::CAP);
    let n = queries::FillLog::CAP as u64 + 7;
    for id in 1..=n {
        log.insert(0, &fill(id, id), id);
        assert!(log.len() <= queries::FillLog::CAP);
    }
    assert_eq!(log.len(), queries::FillLog::CAP);
    assert_eq!(log.capacity(), capacity, "the ring grew");
    let kept: Vec<u64> = log.fills.iter().map(|(_, f)| f.exec_id).collect();
    assert_eq!(kept.first(), Some(&8));
    assert_eq!(kept.last(), Some(&n));
    // A fill as old as the window leaves at the next insert.
    let mut log = queries::FillLog::new();
    log.insert(0, &fill(1, 1_000), 1_000);
    log.insert(0, &fill(2, 2_000), 1_000 + queries::FillLog::WINDOW_MS - 1);
    assert_eq!(log.len(), 2);
    log.insert(0, &fill(3, 3_000), 1_000 + queries::FillLog::WINDOW_MS);
    let kept: Vec<u64> = log.fills.iter().map(|(_, f)| f.exec_id).collect();
    assert_eq!(kept, vec![2, 3]);
}
