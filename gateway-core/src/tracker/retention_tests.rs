//! Unit tests of the retention of ended orders: eviction by count and by time, tombstones, and
//! that an evicted order answers everything late exactly as the ended order did in full (the
//! same scenario is run on a tracker that evicts at once and on one that keeps everything, and
//! their reports compared).

use codec::json::JsonParser;
use codec::sbe::{
    Category, CxlRejReason, CxlRejResponseTo, ExecType, ItemStatus, OrdStatus, OrdType, Side,
    Symbol, TimeInForce,
};
use codec::Decimal;

use super::core::{ReportMsg, Tracker};
use super::reconcile::{ExchangeState, StateSource};
use super::request::{BatchItem, ListDone, NewOrder, RequestKind, SentBatch, SentRequest};
use super::resolve::{Deadlines, UnknownCause, NOT_APPLIED_TEXT};
use super::retention::{Evicted, Retention, Tombstone};
use super::OrderScope;
use crate::ids::ClientOid;
use crate::rest_objects::OpenOrder;

const S: u64 = 7;
const MS: u64 = 1_000_000;
const T0: u64 = 1_000 * MS;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn oid(cl: u64) -> String {
    ClientOid::new(S, cl).as_str().to_owned()
}

/// Keeps no ended order: each leaves at the end of the input that ended it.
const AT_ONCE: Retention = Retention {
    retention_ms: 0,
    retention_orders: 0,
    tombstones: 1_024,
    unseen_tail_ms: 0,
};

/// Evicts at once the ended orders their strategy has seen (see `unseen`).
const HOLD_UNSEEN: Retention = Retention {
    unseen_tail_ms: super::retention::UNSEEN_TAIL_MS,
    ..AT_ONCE
};

/// Keeps every ended order of these tests.
const KEEP: Retention = Retention {
    retention_ms: u64::MAX / 2_000_000,
    retention_orders: 1 << 16,
    tombstones: 1_024,
    unseen_tail_ms: 0,
};

struct Rig {
    t: Tracker,
    p: JsonParser,
}

impl Rig {
    fn new(retention: Retention) -> Self {
        Rig::with_capacity(64, retention)
    }

    fn with_capacity(open: usize, retention: Retention) -> Self {
        let mut t = Tracker::with_retention(open, retention);
        t.on_session_opened(S, 0);
        t.set_deadlines(Deadlines {
            reply_timeout_ms: 5_000,
            push_deadline_ms: 3_000,
        });
        Rig {
            t,
            p: JsonParser::new(),
        }
    }

    fn sent(&mut self, req_id: u64, root: u64, kind: RequestKind) {
        self.t.on_sent(SentRequest {
            req_id,
            session_id: S,
            root,
            kind,
            t_read_ns: T0,
            t_written_ns: T0,
        });
    }

    fn place(&mut self, req_id: u64, cl: u64) {
        self.sent(req_id, cl, new_kind(cl));
    }

    fn frame_at(&mut self, t: u64, json: &str) -> Vec<ReportMsg> {
        let inbound = self.p.parse(json.as_bytes()).unwrap();
        self.t.on_inbound(t, 5, &inbound);
        self.t.drain_reports().map(|r| r.msg).collect()
    }

    fn frame(&mut self, json: &str) -> Vec<ReportMsg> {
        self.frame_at(T0 + MS, json)
    }

    /// Places `cl` (request id `cl`), acknowledges it and fills it whole.
    fn place_and_fill(&mut self, cl: u64) {
        self.place(cl, cl);
        self.frame(&ack(cl, cl));
        self.frame(&fill(cl, cl * 10));
    }

    fn evicted(&mut self) -> Vec<u64> {
        self.t.drain_evicted().map(|e| e.root).collect()
    }
}

fn new_kind(cl: u64) -> RequestKind {
    RequestKind::New(NewOrder {
        cl_ord_id: cl,
        category: Category::UsdtFutures,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        price: Some(d("100")),
        qty: d("1"),
    })
}

fn ack(req_id: u64, cl: u64) -> String {
    format!(
        r#"{{"event":"trade","id":"{req_id}","category":"usdt-futures","topic":"place-order","args":[{{"symbol":"BTCUSDT","orderId":"{}","clientOid":"{}","cTime":"1"}}],"code":"0","msg":"Success","ts":"1"}}"#,
        500 + cl,
        oid(cl)
    )
}

fn fill(cl: u64, exec_id: u64) -> String {
    format!(
        r#"{{"action":"snapshot","arg":{{"instType":"UTA","topic":"fill"}},"data":[{{"orderId":"{}","clientOid":"{}","execId":"{exec_id}","category":"USDT-FUTURES","symbol":"BTCUSDT","orderType":"limit","side":"buy","execQty":"1","execValue":"100","execPrice":"100","execPnl":"0","tradeScope":"taker","feeDetail":[{{"feeCoin":"USDT","fee":"0.01"}}],"execTime":"4","updatedTime":"4"}}],"ts":4}}"#,
        500 + cl,
        oid(cl)
    )
}

fn push(cl: u64, status: &str, cum: &str) -> String {
    format!(
        r#"{{"action":"snapshot","arg":{{"instType":"UTA","topic":"order"}},"data":[{{"category":"usdt-futures","symbol":"BTCUSDT","orderId":"{}","clientOid":"{}","price":"100","qty":"1","orderType":"limit","timeInForce":"gtc","side":"buy","cumExecQty":"{cum}","cumExecValue":"0","avgPrice":"0","orderStatus":"{status}","cancelReason":"","feeDetail":[],"createdTime":"1","updatedTime":"2"}}],"ts":3}}"#,
        500 + cl,
        oid(cl)
    )
}

fn cancel_reply(req_id: u64, cl: u64, code: &str, msg: &str) -> String {
    format!(
        r#"{{"event":"trade","id":"{req_id}","category":"usdt-futures","topic":"cancel-order","args":[{{"symbol":"BTCUSDT","orderId":"{}","clientOid":"{}","cTime":"1"}}],"code":"{code}","msg":"{msg}","ts":"1"}}"#,
        500 + cl,
        oid(cl)
    )
}

fn error_frame(req_id: u64, code: &str, msg: &str) -> String {
    format!(r#"{{"event":"error","id":"{req_id}","code":"{code}","msg":"{msg}"}}"#)
}

fn exchange_order(cl: u64, status: OrdStatus) -> OpenOrder {
    OpenOrder {
        order_id: 500 + cl,
        client_oid: oid(cl),
        category: Category::UsdtFutures,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        price: Some(d("100")),
        qty: d("1"),
        cum_qty: if status == OrdStatus::Filled {
            d("1")
        } else {
            d("0")
        },
        avg_px: None,
        status,
        cum_value: d("0"),
        cancel_reason: String::new(),
        updated_time_ms: 1_700_000_000_000,
    }
}

/// The reports as text (ids, times, every field), for comparing two trackers.
fn text(out: &[ReportMsg]) -> Vec<String> {
    out.iter().map(|m| format!("{m:?}")).collect()
}

/// Runs `scenario` on a tracker that evicts at once and on one that keeps every ended order;
/// returns each input's reports (the same for both, asserted) of the evicting one.
fn same_either_way(scenario: impl Fn(&mut Rig) -> Vec<Vec<ReportMsg>>) -> Vec<Vec<ReportMsg>> {
    let mut evicting = Rig::new(AT_ONCE);
    let mut keeping = Rig::new(KEEP);
    let a = scenario(&mut evicting);
    let b = scenario(&mut keeping);
    assert!(
        evicting.t.stats().evicted > 0,
        "the scenario evicted nothing"
    );
    assert_eq!(keeping.t.stats().evicted, 0);
    let a_text: Vec<_> = a.iter().map(|o| text(o)).collect();
    let b_text: Vec<_> = b.iter().map(|o| text(o)).collect();
    assert_eq!(
        a_text, b_text,
        "evicting and keeping trackers answered differently"
    );
    a
}

fn one_reject(out: &[ReportMsg]) -> codec::sbe::OrderCancelReject {
    match out {
        [ReportMsg::CancelReject(r)] => *r,
        other => panic!("expected one OrderCancelReject, got {other:?}"),
    }
}

#[test]
fn the_oldest_ended_order_leaves_when_one_more_than_the_count_ends() {
    let mut r = Rig::new(Retention {
        retention_ms: 3_600_000,
        retention_orders: 2,
        tombstones: 16,
        unseen_tail_ms: 0,
    });
    r.place_and_fill(1);
    r.place_and_fill(2);
    assert!(r.evicted().is_empty());
    assert_eq!(r.t.order_counts().ended, 2);
    // An open order does not count.
    r.place(3, 3);
    r.frame(&ack(3, 3));
    assert!(r.evicted().is_empty());
    r.frame(&fill(3, 30));
    assert_eq!(r.evicted(), vec![1]);
    assert!(r.t.order(S, 1).is_none());
    assert_eq!(
        r.t.tombstone(S, 1),
        Some(&Tombstone {
            cl_ord_id: 1,
            order_id: 501,
            status: OrdStatus::Filled,
            cum_qty: d("1"),
            epoch: Some(0),
        })
    );
    assert!(r.t.order(S, 2).is_some() && r.t.order(S, 3).is_some());
    let c = r.t.order_counts();
    assert_eq!((c.open, c.ended, c.tombstones), (0, 2, 1));
    assert_eq!(r.t.stats().evicted, 1);
}

#[test]
fn an_ended_order_leaves_once_retention_ms_passed_on_the_tick() {
    let mut r = Rig::new(Retention {
        retention_ms: 1_000,
        retention_orders: 100,
        tombstones: 16,
        unseen_tail_ms: 0,
    });
    r.place(1, 1);
    r.frame_at(T0, &ack(1, 1));
    r.frame_at(T0, &fill(1, 10));
    r.t.on_tick(T0 + 999 * MS, 1);
    assert!(r.evicted().is_empty());
    assert!(r.t.order(S, 1).is_some());
    r.t.on_tick(T0 + 1_000 * MS, 1);
    assert_eq!(r.evicted(), vec![1]);
    assert!(r.t.order(S, 1).is_none());
    assert!(r.t.tombstone(S, 1).is_some());
}

#[test]
fn a_duplicated_fill_and_a_late_push_after_eviction_report_nothing_and_count_as_late() {
    let mut r = Rig::new(AT_ONCE);
    r.place_and_fill(1);
    assert_eq!(r.evicted(), vec![1]);
    let before = r.t.stats();
    assert!(r.frame(&fill(1, 10)).is_empty(), "duplicated fill");
    assert!(r.frame(&push(1, "filled", "1")).is_empty(), "late push");
    assert!(
        r.frame(&push(1, "cancelled", "1")).is_empty(),
        "late cancelled push"
    );
    let after = r.t.stats();
    assert_eq!(after.late_for_evicted - before.late_for_evicted, 3);
    assert_eq!(after.unknown_pushes, before.unknown_pushes);
    assert_eq!(after.duplicate_fills, before.duplicate_fills);
    assert_eq!(after.execution_reports, before.execution_reports);
    // Another session's order of the same ClOrdID is not ours: unknown.
    let other = fill(1, 10).replace(&oid(1), ClientOid::new(S + 1, 1).as_str());
    assert!(r.frame(&other).is_empty());
    assert_eq!(r.t.stats().unknown_pushes, before.unknown_pushes + 1);
}

#[test]
fn a_cancel_racing_the_eviction_gets_one_too_late_to_cancel_as_if_kept() {
    // The order fills and leaves; a cancel the strategy sent meanwhile is answered by its
    // reply ("Order does not exist"), once.
    let out = same_either_way(|r| {
        r.place_and_fill(1);
        r.sent(2, 1, RequestKind::Cancel { cl_ord_id: 2 });
        vec![
            r.frame(&cancel_reply(2, 1, "25204", "Order does not exist")),
            r.frame(&cancel_reply(2, 1, "25204", "Order does not exist")),
        ]
    });
    let rej = one_reject(&out[0]);
    assert_eq!(
        (
            rej.cl_ord_id,
            rej.orig_cl_ord_id,
            rej.order_id,
            rej.ord_status
        ),
        (2, 1, 501, OrdStatus::Filled)
    );
    assert_eq!(rej.cxl_rej_reason, CxlRejReason::TooLateToCancel);
    assert_eq!(
        rej.cxl_rej_response_to,
        CxlRejResponseTo::OrderCancelRequest
    );
    assert_eq!(rej.exchange_code, 25204);
    assert!(out[1].is_empty(), "a repeated reply answers nothing");
}

#[test]
fn a_modify_racing_the_eviction_refused_by_an_error_frame_gets_one_too_late_as_if_kept() {
    let out = same_either_way(|r| {
        r.place_and_fill(1);
        r.sent(
            2,
            1,
            RequestKind::Replace {
                cl_ord_id: 2,
                price: Some(d("101")),
                qty: d("1"),
            },
        );
        vec![r.frame(&error_frame(2, "25204", "Order does not exist"))]
    });
    let rej = one_reject(&out[0]);
    assert_eq!(
        rej.cxl_rej_response_to,
        CxlRejResponseTo::OrderCancelReplaceRequest
    );
    assert_eq!(
        (rej.cl_ord_id, rej.cxl_rej_reason),
        (2, CxlRejReason::TooLateToCancel)
    );
}

#[test]
fn a_cancel_racing_the_eviction_with_an_unknown_outcome_is_resolved_once_as_if_kept() {
    let out = same_either_way(|r| {
        r.place_and_fill(1);
        r.sent(2, 1, RequestKind::Cancel { cl_ord_id: 2 });
        let first = r.frame(&error_frame(2, "40010", "Request timed out"));
        let asks: Vec<_> = r.t.drain_resolve_requests().collect();
        assert_eq!(asks.len(), 1);
        assert_eq!(asks[0].cause, UnknownCause::Code(40010));
        let filled = exchange_order(1, OrdStatus::Filled);
        let state = ExchangeState {
            account: 0,
            orders: vec![filled],
            fills: Vec::new(),
            not_found: Vec::new(),
            source: StateSource::Resolution,
        };
        r.t.on_exchange_state(T0 + 2 * MS, 9, &state);
        let second: Vec<_> = r.t.drain_reports().map(|x| x.msg).collect();
        r.t.on_exchange_state(T0 + 3 * MS, 9, &state);
        let third: Vec<_> = r.t.drain_reports().map(|x| x.msg).collect();
        vec![first, second, third]
    });
    assert!(out[0].is_empty());
    let rej = one_reject(&out[1]);
    assert_eq!(
        (rej.cl_ord_id, rej.cxl_rej_reason, rej.text.as_str()),
        (2, CxlRejReason::TooLateToCancel, NOT_APPLIED_TEXT)
    );
    assert!(out[2].is_empty(), "answered once");
}

#[test]
fn a_cancel_whose_push_came_before_its_reply_is_kept_until_the_reply() {
    // The Canceled push answers the cancel; its reply, coming after, must answer nothing, so
    // the order waits for it before it leaves.
    let out = same_either_way(|r| {
        r.place(1, 1);
        r.frame(&ack(1, 1));
        r.sent(2, 1, RequestKind::Cancel { cl_ord_id: 2 });
        let canceled = r.frame(&push(1, "cancelled", "0"));
        assert!(r.t.order(S, 1).is_some(), "its cancel's reply is due");
        let reply = r.frame(&cancel_reply(2, 1, "0", "Success"));
        vec![canceled, reply]
    });
    assert!(matches!(
        out[0][..],
        [ReportMsg::Exec(er)] if er.exec_type == ExecType::Canceled && er.cl_ord_id == 2
    ));
    assert!(out[1].is_empty());
}

#[test]
fn a_batch_cancel_item_on_an_evicted_order_is_answered_as_if_kept() {
    let run = |r: &mut Rig| {
        r.place_and_fill(1);
        r.t.on_sent_batch(SentBatch {
            req_id: 2,
            session_id: S,
            list_id: 9,
            items: vec![BatchItem {
                root: 1,
                kind: RequestKind::Cancel { cl_ord_id: 2 },
            }],
            t_written_ns: T0,
        });
        r.t.on_list_done(ListDone {
            session_id: S,
            list_id: 9,
            ref_msg_type: 109,
            batches_sent: 1,
            refused: Vec::new(),
        });
        let reply = format!(
            r#"{{"event":"trade","id":"2","topic":"batch-cancel","args":[{{"orderId":"501","clientOid":"{}","code":"25204","msg":"Order does not exist"}}],"code":"0","msg":"success"}}"#,
            oid(1)
        );
        let out = r.frame(&reply);
        let lists: Vec<_> = r.t.drain_list_reports().collect();
        (out, format!("{lists:?}"), lists)
    };
    let (mut evicting, mut keeping) = (Rig::new(AT_ONCE), Rig::new(KEEP));
    let (a, a_lists, lists) = run(&mut evicting);
    let (b, b_lists, _) = run(&mut keeping);
    assert_eq!(evicting.t.stats().evicted, 1);
    assert_eq!(text(&a), text(&b));
    assert_eq!(a_lists, b_lists);
    assert_eq!(one_reject(&a).cxl_rej_reason, CxlRejReason::TooLateToCancel);
    let e = &lists[0].entries[0];
    assert_eq!((e.order_id, e.item_status), (501, ItemStatus::Rejected));
}

#[test]
fn the_exchanges_state_never_brings_an_evicted_order_back() {
    let mut r = Rig::new(AT_ONCE);
    r.place_and_fill(1);
    assert_eq!(r.evicted(), vec![1]);
    // A restart's reconciliation lists it: not adopted, nothing reported.
    let state = ExchangeState {
        account: 0,
        orders: vec![exchange_order(1, OrdStatus::Filled)],
        fills: Vec::new(),
        not_found: Vec::new(),
        source: StateSource::Restart,
    };
    let sum = r.t.on_exchange_state(T0 + 2 * MS, 9, &state);
    assert_eq!((sum.adopted, sum.reports, sum.unknown), (0, 0, 0));
    assert!(r.t.drain_reports().next().is_none());
    assert!(r.t.order(S, 1).is_none());
    // An older open-orders list still shows it: neither selected nor foreign.
    let filter = super::OrderFilter {
        scope: OrderScope::Account(0),
        symbol: None,
        category: None,
        side: None,
    };
    let views =
        r.t.open_orders(&filter, Some(&[exchange_order(1, OrdStatus::New)]), 9);
    assert!(views.is_empty(), "{views:?}");
    // A place of the same root is a later epoch's order reusing it: a new order, tracked.
    r.place(3, 1);
    assert!(r.t.order(S, 1).is_some_and(|o| !o.is_terminal()));
    let out = r.frame(&ack(3, 1));
    assert!(matches!(out[..], [ReportMsg::Exec(er)] if er.exec_type == ExecType::New));
}

/// Epoch 1 reuses root 1 after epoch 0's order 1 was evicted: each clientOid reaches its own
/// order (the tracker keys orders by (SessionID, root); the tombstone's epoch tells them apart).
#[test]
fn a_later_epochs_order_reusing_an_evicted_root_is_tracked_apart_from_the_late_pushes() {
    let mut r = Rig::new(AT_ONCE);
    r.place_and_fill(1);
    assert_eq!(r.evicted(), vec![1]);
    let old = oid(1);
    let new = ClientOid::in_epoch(S, 1, 1).as_str().to_owned();
    r.place(2, 1);
    assert!(r.t.order(S, 1).is_some_and(|o| !o.is_terminal()));
    // The old order's late fill, before and after the new order's first push.
    assert!(r.frame(&fill(1, 10)).is_empty());
    let live = push(1, "live", "0").replace(&old, &new);
    let out = r.frame(&live);
    assert!(matches!(out[..], [ReportMsg::Exec(er)] if er.exec_type == ExecType::New));
    assert!(r.frame(&push(1, "filled", "1")).is_empty());
    assert!(r.frame(&fill(1, 10)).is_empty());
    assert_eq!(r.t.stats().late_for_evicted, 3);
    assert_eq!(r.t.order(S, 1).map(|o| o.cum_qty), Some(d("0")));
    assert!(r.frame(&ack(2, 1)).is_empty(), "acknowledged by its push");
    // The new order's own fill (same execId as the old one's: counted, its own order).
    let out = r.frame(&fill(1, 10).replace(&old, &new));
    assert!(matches!(out[..], [ReportMsg::Exec(er)] if er.exec_type == ExecType::Fill));
    assert_eq!(r.evicted(), vec![1]);
    assert_eq!(r.t.tombstone(S, 1).map(|t| t.epoch), Some(Some(1)));
    assert_eq!(r.t.stats().unknown_pushes, 0);
}

#[test]
fn an_order_a_mass_cancel_or_a_resolution_waits_on_stays() {
    let mut r = Rig::new(AT_ONCE);
    r.place(1, 1);
    // Its place times out: unresolved; then its fill ends it.
    r.t.on_tick(T0 + 6_000 * MS, 1);
    assert_eq!(r.t.unresolved(), 1);
    r.frame(&fill(1, 10));
    assert!(r.t.order(S, 1).is_some_and(|o| o.is_terminal()));
    assert!(r.evicted().is_empty(), "its resolution is due");
    r.t.resolve_after_state(
        [(
            oid(1).as_str(),
            super::resolve::ExchangeView {
                status: OrdStatus::Filled,
                price: Some(d("100")),
                qty: d("1"),
            },
        )],
        std::iter::empty(),
        9,
    );
    assert_eq!(r.t.unresolved(), 0);
    // Retired at the next input or tick.
    r.t.on_tick(T0 + 7_000 * MS, 1);
    assert_eq!(r.evicted(), vec![1]);
}

#[test]
fn the_live_table_stays_bounded_and_never_grows_over_100_000_orders() {
    let retention = Retention {
        retention_ms: 60_000,
        retention_orders: 1_000,
        tombstones: 4_000,
        unseen_tail_ms: 0,
    };
    let mut r = Rig::with_capacity(1_000, retention);
    let caps = r.t.table_capacities();
    assert_eq!(caps, (2_000, 4_000));
    let mut evicted = 0;
    for cl in 1..=100_000u64 {
        r.place_and_fill(cl);
        evicted += r.t.drain_evicted().count();
        let c = r.t.order_counts();
        assert!(c.open + c.ended <= 1_001, "{c:?} at {cl}");
        assert!(c.tombstones <= 4_000);
        assert_eq!(r.t.table_capacities(), caps, "a table grew at order {cl}");
    }
    assert_eq!(r.t.table_growths(), (0, 0));
    assert_eq!(evicted, 99_000);
    let c = r.t.order_counts();
    assert_eq!((c.open, c.ended, c.tombstones), (0, 1_000, 4_000));
    assert_eq!(r.t.stats().unknown_pushes, 0);
    // The last 4 000 evicted are recognised, the ones before are forgotten.
    assert!(r.t.tombstone(S, 95_001).is_some() && r.t.tombstone(S, 95_000).is_none());
}

#[test]
fn tombstones_are_kept_by_count_oldest_dropped_first() {
    let mut r = Rig::new(Retention {
        retention_ms: 60_000,
        retention_orders: 0,
        tombstones: 3,
        unseen_tail_ms: 0,
    });
    for cl in 1..=5 {
        r.place_and_fill(cl);
    }
    assert_eq!(r.evicted(), vec![1, 2, 3, 4, 5]);
    assert!(r.t.tombstone(S, 1).is_none() && r.t.tombstone(S, 2).is_none());
    assert!((3..=5).all(|cl| r.t.tombstone(S, cl).is_some()));
    assert_eq!(r.t.order_counts().tombstones, 3);
    // A push for an order whose tombstone was dropped is unknown; for a kept one, late.
    r.frame(&fill(1, 10));
    r.frame(&fill(5, 50));
    let s = r.t.stats();
    assert_eq!((s.unknown_pushes, s.late_for_evicted), (1, 1));
}

#[test]
fn restored_ended_orders_are_retained_and_evicted_like_the_others() {
    use std::collections::HashMap;
    let mut t = Tracker::with_retention(
        16,
        Retention {
            retention_ms: 1_000,
            retention_orders: 100,
            tombstones: 16,
            unseen_tail_ms: 0,
        },
    );
    t.on_session_opened(S, 0);
    let er = |cl: u64, exec_type, status| codec::sbe::ExecutionReport {
        cl_ord_id: cl,
        orig_cl_ord_id: 0,
        order_id: 500 + cl,
        exec_id: 0,
        transact_time: 1,
        price: Some(d("100")),
        order_qty: d("1"),
        last_qty: None,
        last_px: None,
        cum_qty: d("0"),
        leaves_qty: d("0"),
        avg_px: None,
        exchange_code: 0,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        category: Category::UsdtFutures,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        exec_type,
        ord_status: status,
        ord_rej_reason: None,
        text: codec::sbe::Text::new(""),
    };
    let roots: HashMap<u64, u64> = [(1, 1), (2, 2)].into();
    let reports = [
        er(1, ExecType::New, OrdStatus::New),
        er(2, ExecType::New, OrdStatus::New),
        er(1, ExecType::Canceled, OrdStatus::Canceled),
    ];
    t.restore_session(S, &roots, &reports, &HashMap::new(), &[]);
    // Its strategy connects again (held while it is away: see `unseen`).
    t.on_session_opened(S, 0);
    let c = t.order_counts();
    assert_eq!((c.open, c.ended), (1, 1));
    // Its window starts at the first tick (the restore had no clock).
    t.on_tick(T0, 1);
    assert_eq!(t.drain_evicted().count(), 0);
    t.on_tick(T0 + 1_000 * MS, 1);
    assert_eq!(
        t.drain_evicted()
            .map(|e| (e.session_id, e.root))
            .collect::<Vec<_>>(),
        vec![(S, 1)]
    );
    assert!(t.order(S, 2).is_some());
}

/// A rollover's OrderStatus reports are made a bounded number per tick (at once, tens of
/// thousands of them stalled the tracker thread 150-220 ms in the endurance bench), from each
/// order's state then; an ended order waits for its report before it leaves, then leaves (its
/// ClOrdID is free in the new epoch).
#[test]
fn a_rollovers_order_status_reports_are_spread_over_ticks() {
    use super::status_due::STATUS_PER_TICK;
    let n = STATUS_PER_TICK as u64 + 10;
    let mut r = Rig::with_capacity(512, KEEP);
    for cl in 1..=n {
        r.place(cl, cl);
        r.frame(&ack(cl, cl));
    }
    r.place_and_fill(n + 1);
    r.t.on_epoch(S, 1, &[], true, 5);
    assert!(
        r.t.drain_reports().next().is_none(),
        "nothing at the input itself"
    );
    let status = |out: Vec<ReportMsg>| -> Vec<u64> {
        out.into_iter()
            .map(|m| match m {
                ReportMsg::Exec(er) if er.exec_type == ExecType::OrderStatus => er.cl_ord_id,
                other => panic!("{other:?}"),
            })
            .collect()
    };
    r.t.on_tick(T0 + 2 * MS, 9);
    let first = status(r.t.drain_reports().map(|x| x.msg).collect());
    assert_eq!(first, (1..=STATUS_PER_TICK as u64).collect::<Vec<_>>());
    assert!(
        r.t.order(S, n + 1).is_some(),
        "the ended order waits for its report"
    );
    r.t.on_tick(T0 + 3 * MS, 9);
    let rest = status(r.t.drain_reports().map(|x| x.msg).collect());
    assert_eq!(
        rest,
        (STATUS_PER_TICK as u64 + 1..=n + 1).collect::<Vec<_>>()
    );
    assert!(r.t.order(S, n + 1).is_none());
    assert_eq!(r.evicted(), vec![n + 1]);
    r.t.on_tick(T0 + 4 * MS, 9);
    assert!(r.t.drain_reports().next().is_none());
}

/// The soak's failure (seed 20261124, ended orders evicted at once): an order open at the
/// rollover that ends in the new epoch leaves with its ClOrdIDs still used in that epoch
/// (`ended_before_epoch` false: a NewOrderSingle naming it may be the strategy's resend of
/// it); only one that had ended before the rollover frees them, once reported.
#[test]
fn only_an_order_ended_before_the_rollover_frees_its_cl_ord_ids() {
    for retention in [KEEP, AT_ONCE] {
        let mut r = Rig::new(retention);
        // Order 1 ended before the rollover (kept: KEEP), order 2 open across it.
        r.place_and_fill(1);
        r.place(2, 2);
        r.frame(&ack(2, 2));
        let before: Vec<Evicted> = r.t.drain_evicted().collect();
        r.t.on_epoch(S, 1, &[], true, 5);
        // Order 2 fills in the new epoch, before the rollover's OrderStatus of it is made.
        r.frame(&fill(2, 20));
        r.t.on_tick(T0 + 2 * MS, 9);
        r.t.drain_reports().for_each(drop);
        let after: Vec<Evicted> = r.t.drain_evicted().collect();
        let ev = |root, ended_before_epoch| Evicted {
            session_id: S,
            root,
            ended_before_epoch,
        };
        if retention == KEEP {
            assert!(before.is_empty());
            assert_eq!(after, [ev(1, true), ev(2, false)]);
        } else {
            // Evicted at once, in the old epoch (its ClOrdID used there).
            assert_eq!(before, [ev(1, false)]);
            assert_eq!(after, [ev(2, false)]);
        }
    }
}

/// The OrderStatus reports (ClOrdID, OrdStatus) among `out`.
fn order_status(out: &[ReportMsg]) -> Vec<(u64, OrdStatus)> {
    out.iter()
        .filter_map(|m| match m {
            ReportMsg::Exec(er) if er.exec_type == ExecType::OrderStatus => {
                Some((er.cl_ord_id, er.ord_status))
            }
            _ => None,
        })
        .collect()
}

/// The soak's lost report (retention 0): an order's Fill was numbered just before a scheduled
/// rollover's Terminate and never read by the strategy (the connection ended with it unread);
/// the order had left the tracker at once, so the new epoch said nothing about it. Now an order
/// whose end the strategy may not have seen stays until a rollover reports it (see `unseen`).
#[test]
fn an_order_ended_just_before_its_strategy_left_is_reported_by_the_new_epoch() {
    let mut r = Rig::new(HOLD_UNSEEN);
    r.t.on_session_opened(S, 0);
    r.place_and_fill(1);
    r.t.on_tick(T0 + 2 * MS, 1);
    assert_eq!(
        r.evicted(),
        Vec::<u64>::new(),
        "held: its Fill may be unread"
    );
    // The connection ends (a rollover's Terminate, or a drop); the session rolls later.
    r.t.on_session_closed(S);
    r.t.on_tick(T0 + 60_000 * MS, 2);
    assert_eq!(
        r.evicted(),
        Vec::<u64>::new(),
        "held while its strategy is away"
    );
    r.t.on_epoch(S, 1, &[], true, 5);
    r.t.on_tick(T0 + 60_001 * MS, 9);
    let out: Vec<ReportMsg> = r.t.drain_reports().map(|m| m.msg).collect();
    assert_eq!(order_status(&out), [(1, OrdStatus::Filled)]);
    // The OrderStatus is itself unread while the strategy is away: held, and a second
    // rollover before the strategy reads it reports it again (found by the deterministic
    // simulation: two rollovers 0.4 ms apart lost a Canceled).
    assert_eq!(
        r.evicted(),
        Vec::<u64>::new(),
        "its OrderStatus may be unread"
    );
    r.t.on_epoch(S, 2, &[], true, 6);
    r.t.on_tick(T0 + 60_002 * MS, 10);
    let out: Vec<ReportMsg> = r.t.drain_reports().map(|m| m.msg).collect();
    assert_eq!(order_status(&out), [(1, OrdStatus::Filled)]);
    // Once the strategy has been back for the tail, it leaves; its ClOrdID stays used in the
    // new epoch: the strategy, which may not have read its end, may resend it before it reads
    // this OrderStatus.
    r.t.on_session_opened(S, 0);
    let back = T0 + 60_003 * MS;
    r.t.on_tick(back, 11);
    r.t.on_tick(back + super::retention::UNSEEN_TAIL_MS * MS, 12);
    let ev: Vec<Evicted> = r.t.drain_evicted().collect();
    assert_eq!(
        ev,
        [Evicted {
            session_id: S,
            root: 1,
            ended_before_epoch: false
        }]
    );
}

/// An order that ended while its strategy was connected leaves once the unseen tail has passed
/// (the retention then applies as before); one that ended while its strategy was away leaves
/// once the strategy has been back that long (it catches up with RetransmitRequests).
#[test]
fn held_orders_leave_once_their_strategy_has_had_the_tail_to_read_their_end() {
    let tail = super::retention::UNSEEN_TAIL_MS * MS;
    let mut r = Rig::new(HOLD_UNSEEN);
    r.t.on_tick(T0, 1);
    r.t.on_session_opened(S, 0);
    r.place_and_fill(1);
    r.t.on_tick(T0 + MS + tail - 1, 2);
    assert_eq!(r.evicted(), Vec::<u64>::new());
    r.t.on_tick(T0 + MS + tail, 3);
    assert_eq!(r.evicted(), [1]);
    // Order 2 is open when the strategy leaves and fills while it is away.
    r.place(2, 2);
    r.frame_at(T0 + MS + tail, &ack(2, 2));
    r.t.on_session_closed(S);
    let t1 = T0 + 2 * tail;
    r.frame_at(t1, &fill(2, 20));
    r.t.on_tick(t1 + 10 * tail, 4);
    assert_eq!(r.evicted(), Vec::<u64>::new(), "away: held");
    let back = t1 + 10 * tail;
    r.t.on_session_opened(S, 0);
    r.t.on_tick(back + tail - 1, 5);
    assert_eq!(r.evicted(), Vec::<u64>::new(), "back: catching up");
    r.t.on_tick(back + tail, 6);
    assert_eq!(r.evicted(), [2]);
    // Nothing held: a rollover now reports no ended order.
    r.t.on_epoch(S, 1, &[], true, 7);
    r.t.on_tick(back + tail + MS, 8);
    let out: Vec<ReportMsg> = r.t.drain_reports().map(|m| m.msg).collect();
    assert_eq!(order_status(&out), []);
}

/// The soak, with ended orders held for their strategy (seed 10): order 970 was accepted just
/// before a scheduled rollover's Terminate and filled right after it, its New and Fill numbered
/// in the new epoch (the writer ends its epoch at the Terminate; the tracker learns the epoch
/// when the connection has ended). Still held at the rollover, it was taken for an order ended
/// before it and freed its ClOrdID, and the strategy's resend (it had not read the Fill yet)
/// was placed again. An order whose final report was written in the next epoch keeps its
/// ClOrdIDs used.
#[test]
fn an_order_whose_end_was_numbered_in_the_new_epoch_keeps_its_cl_ord_ids_used() {
    let mut r = Rig::new(KEEP);
    r.place_and_fill(1);
    r.place_and_fill(2);
    // Order 1's Filled went out in epoch 0; order 2's after the writer had started epoch 1.
    r.t.note_end_written(S, 1, 0);
    r.t.note_end_written(S, 2, 1);
    r.t.on_tick(T0 + 2 * MS, 1);
    r.t.on_session_closed(S);
    r.t.on_epoch(S, 1, &[], true, 5);
    r.t.on_tick(T0 + 2 * MS, 9);
    let out: Vec<ReportMsg> = r.t.drain_reports().map(|m| m.msg).collect();
    assert_eq!(
        order_status(&out),
        [(1, OrdStatus::Filled), (2, OrdStatus::Filled)]
    );
    let ev: Vec<(u64, bool)> =
        r.t.drain_evicted()
            .map(|e| (e.root, e.ended_before_epoch))
            .collect();
    // Order 2, its strategy away, may not read the OrderStatus either: it stays (it leaves by
    // the retention once its strategy has been back for the tail, its ClOrdIDs used).
    assert_eq!(ev, [(1, true)]);
    assert!(r.t.order(S, 2).is_some());
}

/// Issue 37 ("Rollover after a crash"): an order filled while its strategy was away, journaled
/// and never read, then a crash. The journal's fold keeps it as a held end (through a
/// checkpoint round trip); the restarted tracker rebuilds it ended and holds it while the
/// strategy is away; the next epoch's OrderStatus reports it once, and once the strategy has
/// been back for the tail it leaves (a later rollover reports nothing).
#[test]
fn a_held_end_restored_from_the_journal_is_reported_once_by_the_next_epoch() {
    use crate::journal::checkpoint::Checkpoint;
    use crate::journal::fold::JournalFold;
    use crate::journal::record::{self, Origin, Records};
    let er = |exec_type, status, cum: &str, exec_id, ms: u64| {
        let mut f = Vec::new();
        codec::sbe::ExecutionReport {
            cl_ord_id: 1,
            orig_cl_ord_id: 0,
            order_id: 501,
            exec_id,
            transact_time: ms * MS,
            price: Some(d("100")),
            order_qty: d("1"),
            last_qty: (exec_id != 0).then(|| d("1")),
            last_px: (exec_id != 0).then(|| d("100")),
            cum_qty: d(cum),
            leaves_qty: d("0"),
            avg_px: None,
            exchange_code: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Buy,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            exec_type,
            ord_status: status,
            ord_rej_reason: None,
            text: codec::sbe::Text::new(""),
        }
        .encode_frame(&mut f);
        f
    };
    let mut j = Vec::new();
    record::put_clock(&mut j, 1_000);
    record::put_presence(&mut j, true, 1_000, 5_000);
    record::put_cl_ord_id(&mut j, 1, 1);
    let new = er(ExecType::New, OrdStatus::New, "0", 0, 1_100);
    record::put_outbound(&mut j, 1, Origin::Reply, &new);
    record::put_presence(&mut j, false, 1_200, 5_000);
    let filled = er(ExecType::Fill, OrdStatus::Filled, "1", 77, 1_300);
    record::put_outbound(&mut j, 2, Origin::Push, &filled);
    let mut f = JournalFold::new();
    for r in Records::new(&j) {
        f.apply(r);
    }
    // A roll (checkpoint round trip), then the crash and the restart's clock record.
    let mut body = Vec::new();
    f.checkpoint().encode(&mut body);
    let mut f = JournalFold::from_checkpoint(&Checkpoint::decode(&body).unwrap()).unwrap();
    let mut after = Vec::new();
    record::put_clock(&mut after, 9_000);
    for r in Records::new(&after) {
        f.apply(r);
    }
    let rec = f.recovered();
    assert_eq!(rec.held_ends, [1].into());

    let mut t = Tracker::with_retention(16, HOLD_UNSEEN);
    t.on_session_opened(S, 0);
    t.restore_session(
        S,
        &rec.roots,
        &rec.reports,
        &rec.unanswered_since_ms,
        &rec.unanswered_amends,
    );
    assert!(
        t.drain_reports().next().is_none(),
        "the restore reports nothing"
    );
    assert!(
        t.drain_resolve_requests().next().is_none(),
        "nothing to ask"
    );
    let o = t.order(S, 1).expect("rebuilt");
    assert_eq!((o.status, o.cum_qty), (OrdStatus::Filled, d("1")));
    assert!(o.exec_ids.contains(&77));
    t.on_tick(T0, 1);
    t.on_tick(T0 + 60_000 * MS, 2);
    assert_eq!(t.drain_evicted().count(), 0, "held: its strategy is away");
    // The strategy asks for the next epoch without catching up: the OrderStatus tells it.
    t.on_epoch(S, 1, &[], true, 5);
    t.on_tick(T0 + 60_001 * MS, 3);
    let out: Vec<ReportMsg> = t.drain_reports().map(|m| m.msg).collect();
    assert_eq!(order_status(&out), [(1, OrdStatus::Filled)]);
    let ReportMsg::Exec(status) = &out[0] else {
        panic!("{out:?}");
    };
    assert_eq!(status.avg_px, Some(d("100")));
    t.on_tick(T0 + 60_002 * MS, 4);
    assert!(t.drain_reports().next().is_none(), "once");
    // Back for the tail: it leaves, and the next rollover reports nothing.
    t.on_session_opened(S, 0);
    let back = T0 + 60_003 * MS;
    t.on_tick(back, 5);
    t.on_tick(back + super::retention::UNSEEN_TAIL_MS * MS, 6);
    assert_eq!(t.drain_evicted().map(|e| e.root).collect::<Vec<_>>(), [1]);
    t.on_epoch(S, 2, &[], true, 7);
    t.on_tick(back + super::retention::UNSEEN_TAIL_MS * MS + MS, 8);
    let out: Vec<ReportMsg> = t.drain_reports().map(|m| m.msg).collect();
    assert_eq!(order_status(&out), []);
}
