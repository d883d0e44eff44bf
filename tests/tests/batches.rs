//! Batches end to end: NewOrderList, OrderCancelReplaceList and OrderCancelList from a strategy,
//! split by the gateway into exchange batches of at most 20 (counted by the simulator), every
//! item answered in ListStatus and in its ExecutionReport / OrderCancelReject.

use codec::sbe::{
    BoolFlag, BusinessMessageReject, Category, CxlRejReason, ExecType, ExecutionReport, ItemStatus,
    ListStatus, ListStatusEntry, NewOrderList, NewOrderListEntry, OrdRejReason, OrdStatus, OrdType,
    OrderCancelList, OrderCancelListEntry, OrderCancelReject, OrderCancelReplaceList,
    OrderCancelReplaceListEntry, OrderCancelRequest, PosSide, Side, StpMode, Symbol, TimeInForce,
};
use e2e::{d, Harness, Strategy};
use strategy_client::Received;

fn sym(s: &str) -> Symbol {
    Symbol::new(s).expect("symbol")
}

/// A GTC limit item on BTCUSDT usdt-futures.
fn item(cl: u64, side: Side, price: &str, qty: &str, reduce_only: bool) -> NewOrderListEntry {
    NewOrderListEntry {
        cl_ord_id: cl,
        price: Some(d(price)),
        order_qty: d(qty),
        symbol: sym("BTCUSDT"),
        category: Category::UsdtFutures,
        side,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        pos_side: PosSide::None,
        reduce_only: if reduce_only {
            BoolFlag::Yes
        } else {
            BoolFlag::No
        },
        stp_mode: StpMode::None,
    }
}

fn send_new_list(s: &mut Strategy, list_id: u64, items: &[NewOrderListEntry]) {
    let m = NewOrderList {
        list_id,
        transact_time: 0,
    };
    s.c.send_frame(|b| {
        m.encode_frame(items.iter().copied(), b)
            .expect("fits a frame");
    })
    .expect("send");
}

/// What a list produced: its ListStatus messages, their entries, and the other reports.
#[derive(Default)]
struct ListOutcome {
    statuses: Vec<ListStatus>,
    entries: Vec<ListStatusEntry>,
    execs: Vec<ExecutionReport>,
    cancel_rejects: Vec<OrderCancelReject>,
}

impl ListOutcome {
    fn entry(&self, cl: u64) -> &ListStatusEntry {
        let found: Vec<_> = self.entries.iter().filter(|e| e.cl_ord_id == cl).collect();
        assert_eq!(
            found.len(),
            1,
            "one entry for ClOrdID {cl}: {:?}",
            self.entries
        );
        found[0]
    }
}

/// Reads until the list's last ListStatus arrived and `reports` ERs/OCRs were seen.
fn collect(s: &mut Strategy, list_id: u64, reports: usize) -> ListOutcome {
    let mut out = ListOutcome::default();
    let mut last = false;
    while !last || out.execs.len() + out.cancel_rejects.len() < reports {
        match s.next_message() {
            Received::ListStatus(ls, entries) => {
                assert_eq!(ls.list_id, list_id);
                assert!(!last, "ListStatus after the last fragment");
                last = ls.last_fragment == BoolFlag::Yes;
                out.statuses.push(ls);
                out.entries.extend(entries);
            }
            Received::Exec(er) => out.execs.push(er),
            Received::CancelReject(r) => out.cancel_rejects.push(r),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(out.execs.len() + out.cancel_rejects.len(), reports);
    out
}

/// Places `n` resting buys (ClOrdIDs `first..first+n`, prices 40000, 40001, …) as list `list_id`.
fn place_resting(s: &mut Strategy, list_id: u64, first: u64, n: u64) -> ListOutcome {
    let items: Vec<_> = (0..n)
        .map(|i| {
            item(
                first + i,
                Side::Buy,
                &(40000 + i).to_string(),
                "0.001",
                false,
            )
        })
        .collect();
    send_new_list(s, list_id, &items);
    let out = collect(s, list_id, n as usize);
    assert!(out.execs.iter().all(|er| er.exec_type == ExecType::New));
    out
}

#[test]
fn new_order_list_of_45_is_sent_as_20_20_5_and_every_item_is_answered() {
    let h = Harness::quiet();
    let mut s = h.client(1);
    let before = h.sim().stats();
    // Item 30: a reduce-only sell without a position, which only the exchange can refuse.
    let items: Vec<_> = (0..45u64)
        .map(|i| {
            if i == 30 {
                item(1000 + i, Side::Sell, "70000", "0.001", true)
            } else {
                item(
                    1000 + i,
                    Side::Buy,
                    &(40000 + i).to_string(),
                    "0.001",
                    false,
                )
            }
        })
        .collect();
    send_new_list(&mut s, 1, &items);
    let out = collect(&mut s, 1, 45);
    let after = h.sim().stats();
    assert_eq!(
        after.batch_place_ops - before.batch_place_ops,
        3,
        "20 + 20 + 5"
    );
    assert_eq!(after.orders_received - before.orders_received, 45);

    assert_eq!(out.statuses.len(), 1);
    assert_eq!(out.statuses[0].ref_msg_type, NewOrderList::TEMPLATE_ID);
    assert_eq!(out.entries.len(), 45);
    for i in 0..45u64 {
        let e = out.entry(1000 + i);
        if i == 30 {
            assert_eq!(e.item_status, ItemStatus::Rejected);
            assert_eq!(e.ord_rej_reason, Some(OrdRejReason::ExchangeReject));
            assert_eq!(e.exchange_code, 25227);
            assert!(!e.text.as_str().is_empty());
        } else {
            assert_eq!(e.item_status, ItemStatus::Accepted, "{e:?}");
            assert_ne!(e.order_id, 0);
            assert_eq!(e.ord_rej_reason, None);
        }
    }
    let rejected: Vec<_> = out
        .execs
        .iter()
        .filter(|er| er.exec_type == ExecType::Rejected)
        .collect();
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].cl_ord_id, 1030);
    assert_eq!(rejected[0].exchange_code, 25227);
    assert_eq!(rejected[0].ord_status, OrdStatus::Rejected);
    let new: Vec<_> = out
        .execs
        .iter()
        .filter(|er| er.exec_type == ExecType::New)
        .collect();
    assert_eq!(new.len(), 44);

    // A gateway check failing: the item is never sent.
    let before = h.sim().stats();
    let items: Vec<_> = (0..21u64)
        .map(|i| {
            let price = if i == 5 {
                "41000.05".to_string()
            } else {
                (41000 + i).to_string()
            };
            item(2000 + i, Side::Buy, &price, "0.001", false)
        })
        .collect();
    send_new_list(&mut s, 2, &items);
    let out = collect(&mut s, 2, 21);
    let after = h.sim().stats();
    assert_eq!(after.batch_place_ops - before.batch_place_ops, 1);
    assert_eq!(after.orders_received - before.orders_received, 20);
    assert_eq!(out.entries.len(), 21);
    let bad = out.entry(2005);
    assert_eq!(bad.item_status, ItemStatus::Rejected);
    assert_eq!(
        bad.ord_rej_reason,
        Some(OrdRejReason::InvalidPriceIncrement)
    );
    assert_eq!(bad.exchange_code, 0);
    assert!(bad.text.as_str().contains("tick"), "{bad:?}");
    let rejected: Vec<_> = out
        .execs
        .iter()
        .filter(|er| er.exec_type == ExecType::Rejected)
        .collect();
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].cl_ord_id, 2005);
    assert_eq!(
        rejected[0].ord_rej_reason,
        Some(OrdRejReason::InvalidPriceIncrement)
    );
}

#[test]
fn modify_list_reports_replaced_and_refused_items() {
    let h = Harness::quiet();
    let mut s = h.client(1);
    place_resting(&mut s, 1, 100, 3);
    let before = h.sim().stats();
    let modify = |cl: u64, orig: u64, price: &str| OrderCancelReplaceListEntry {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        price: Some(d(price)),
        order_qty: Some(d("0.001")),
        symbol: sym("BTCUSDT"),
        category: Category::UsdtFutures,
        side: Side::Buy,
        auto_cancel: BoolFlag::No,
    };
    let items = [
        modify(200, 100, "39000.5"),
        // Unchanged price and quantity: refused by the exchange (25571).
        modify(201, 101, "40001"),
        // Unknown order: refused by the gateway.
        modify(202, 999, "40002"),
    ];
    let m = OrderCancelReplaceList {
        list_id: 2,
        transact_time: 0,
    };
    s.c.send_frame(|b| {
        m.encode_frame(items.iter().copied(), b).expect("fits");
    })
    .expect("send");
    let out = collect(&mut s, 2, 3);
    assert_eq!(
        h.sim().stats().batch_modify_ops - before.batch_modify_ops,
        1
    );
    assert_eq!(
        out.statuses[0].ref_msg_type,
        OrderCancelReplaceList::TEMPLATE_ID
    );
    assert_eq!(out.entries.len(), 3);
    assert_eq!(out.entry(200).item_status, ItemStatus::Accepted);
    let refused = out.entry(201);
    assert_eq!(refused.item_status, ItemStatus::Rejected);
    assert_eq!(refused.exchange_code, 25571);
    let unknown = out.entry(202);
    assert_eq!(unknown.item_status, ItemStatus::Rejected);
    assert_eq!(unknown.ord_rej_reason, Some(OrdRejReason::UnknownOrder));

    assert_eq!(out.execs.len(), 1);
    let replaced = &out.execs[0];
    assert_eq!(replaced.exec_type, ExecType::Replaced);
    assert_eq!(replaced.cl_ord_id, 200);
    assert_eq!(replaced.orig_cl_ord_id, 100);
    assert_eq!(replaced.price, Some(d("39000.5")));
    assert_eq!(out.cancel_rejects.len(), 2);
    let by_cl = |cl| {
        out.cancel_rejects
            .iter()
            .find(|r| r.cl_ord_id == cl)
            .expect("OrderCancelReject")
    };
    assert_eq!(by_cl(201).exchange_code, 25571);
    assert_eq!(by_cl(201).orig_cl_ord_id, 101);
    assert_eq!(by_cl(201).cxl_rej_reason, CxlRejReason::ExchangeReject);
    assert_eq!(by_cl(202).cxl_rej_reason, CxlRejReason::UnknownOrder);
}

#[test]
fn cancel_list_reports_each_item_including_an_order_already_gone() {
    let h = Harness::quiet();
    let mut s = h.client(1);
    place_resting(&mut s, 1, 100, 3);
    s.c.send_cancel(&OrderCancelRequest {
        cl_ord_id: 150,
        orig_cl_ord_id: 100,
        transact_time: 0,
        symbol: sym("BTCUSDT"),
        category: Category::UsdtFutures,
        side: Side::Buy,
    })
    .expect("send");
    assert_eq!(s.exec().exec_type, ExecType::Canceled);

    let before = h.sim().stats();
    let cancel = |cl: u64, orig: u64| OrderCancelListEntry {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        symbol: sym("BTCUSDT"),
        category: Category::UsdtFutures,
        side: Side::Buy,
    };
    let items = [cancel(300, 100), cancel(301, 101), cancel(302, 102)];
    let m = OrderCancelList {
        list_id: 3,
        transact_time: 0,
    };
    s.c.send_frame(|b| {
        m.encode_frame(items.iter().copied(), b).expect("fits");
    })
    .expect("send");
    let out = collect(&mut s, 3, 3);
    assert_eq!(
        h.sim().stats().batch_cancel_ops - before.batch_cancel_ops,
        1
    );
    assert_eq!(out.statuses[0].ref_msg_type, OrderCancelList::TEMPLATE_ID);
    assert_eq!(out.entries.len(), 3);
    let gone = out.entry(300);
    assert_eq!(gone.item_status, ItemStatus::Rejected);
    assert_eq!(gone.exchange_code, 25204);
    assert_eq!(out.entry(301).item_status, ItemStatus::Accepted);
    assert_eq!(out.entry(302).item_status, ItemStatus::Accepted);
    assert_eq!(out.cancel_rejects.len(), 1);
    assert_eq!(out.cancel_rejects[0].cl_ord_id, 300);
    assert_eq!(out.cancel_rejects[0].exchange_code, 25204);
    let mut cancelled: Vec<_> = out
        .execs
        .iter()
        .inspect(|er| assert_eq!(er.exec_type, ExecType::Canceled))
        .map(|er| (er.cl_ord_id, er.orig_cl_ord_id))
        .collect();
    cancelled.sort_unstable();
    assert_eq!(cancelled, vec![(301, 101), (302, 102)]);
}

fn business_reject(s: &mut Strategy) -> BusinessMessageReject {
    match s.next_message() {
        Received::BusinessReject(r) => r,
        other => panic!("expected BusinessMessageReject, got {other:?}"),
    }
}

#[test]
fn bad_lists_are_refused_or_answered_per_item() {
    let h = Harness::quiet();
    let mut s = h.client(1);
    let before = h.sim().stats();

    send_new_list(&mut s, 10, &[]);
    let r = business_reject(&mut s);
    assert_eq!(r.ref_msg_type, NewOrderList::TEMPLATE_ID);
    assert_eq!(r.business_reject_ref_id, 10);
    assert_eq!(r.text.as_str(), "empty list");

    // 60 items of a category the account has no instrument of: all refused before sending,
    // answered in two ListStatus fragments (47 + 13).
    let items: Vec<_> = (0..60u64)
        .map(|i| NewOrderListEntry {
            symbol: sym("BTCUSD"),
            category: Category::CoinFutures,
            ..item(500 + i, Side::Buy, "40000", "1", false)
        })
        .collect();
    send_new_list(&mut s, 11, &items);
    let out = collect(&mut s, 11, 60);
    assert_eq!(out.entries.len(), 60);
    assert_eq!(out.statuses.len(), 2);
    assert_eq!(out.statuses[0].last_fragment, BoolFlag::No);
    assert_eq!(out.statuses[1].last_fragment, BoolFlag::Yes);
    assert_eq!(out.statuses[0].ref_msg_type, NewOrderList::TEMPLATE_ID);
    for e in &out.entries {
        assert_eq!(e.item_status, ItemStatus::Rejected);
        assert_eq!(e.ord_rej_reason, Some(OrdRejReason::UnknownSymbol));
        assert!(e.text.as_str().contains("not traded"), "{e:?}");
    }
    assert!(out
        .execs
        .iter()
        .all(|er| er.exec_type == ExecType::Rejected && er.cl_ord_id >= 500));

    // ListID reused.
    send_new_list(&mut s, 11, &[item(600, Side::Buy, "40000", "0.001", false)]);
    let r = business_reject(&mut s);
    assert_eq!(r.business_reject_ref_id, 11);
    assert_eq!(r.text.as_str(), "ListID already used");

    // ListID 0 means "none" in the schema: refused, nothing placed.
    send_new_list(&mut s, 0, &[item(650, Side::Buy, "40000", "0.001", false)]);
    let r = business_reject(&mut s);
    assert_eq!(r.ref_msg_type, NewOrderList::TEMPLATE_ID);
    assert_eq!(r.text.as_str(), "ListID 0 is reserved (0 means none)");
    assert!(
        r.ref_seq_num > 0,
        "names the refused message by its sequence number"
    );

    // A ClOrdID repeated inside a list: the second is refused.
    send_new_list(
        &mut s,
        12,
        &[
            item(700, Side::Buy, "40000", "0.001", false),
            item(700, Side::Buy, "40001", "0.001", false),
        ],
    );
    let out = collect(&mut s, 12, 2);
    assert_eq!(out.entries.len(), 2);
    let statuses: Vec<_> = out.entries.iter().map(|e| e.item_status).collect();
    assert!(statuses.contains(&ItemStatus::Accepted));
    let dup = out
        .entries
        .iter()
        .find(|e| e.item_status == ItemStatus::Rejected)
        .expect("duplicate refused");
    assert_eq!(dup.ord_rej_reason, Some(OrdRejReason::DuplicateOrder));
    let after = h.sim().stats();
    assert_eq!(after.batch_place_ops - before.batch_place_ops, 1);
    assert_eq!(after.orders_received - before.orders_received, 1);
}
