//! Unknown outcomes, end to end over the real simulator: an outcome-unknown reply (40010, the
//! op applied or not), a reply later than the reply timeout, and pushes later than the push
//! deadline are resolved by querying the order by clientOid, never by resending. The strategy
//! gets exactly one ExecutionReport New (applied) or one Rejected NotApplied (not applied) per
//! order, and the simulator receives exactly one place per order.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use codec::sbe::{
    Category, CxlRejReason, ExecType, OrdRejReason, OrdStatus, OrderCancelRequest, Side, Symbol,
    TimeInForce,
};
use e2e::{quiet_sim_config, Harness, Strategy};
use gateway::engine::EngineSettings;
use gateway::tracker::{Deadlines, TrackerStats};
use sim::Scope;

/// Short deadlines so that the tests resolve quickly: reply timeout 600 ms, push deadline
/// 300 ms (a place not found is asked again after 600 ms). On a loaded machine the watchdog
/// may also flag a slow push, so counts of applied resolutions are lower bounds.
fn short_deadlines(s: &mut EngineSettings) {
    s.tracker.deadlines = Deadlines {
        reply_timeout_ms: 600,
        push_deadline_ms: 300,
    };
}

fn start() -> Harness {
    Harness::start_with(quiet_sim_config(), short_deadlines)
}

/// A resting buy far below the market (never fills).
fn rest_buy(s: &mut Strategy) -> u64 {
    s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001")
}

fn cancel(s: &mut Strategy, orig: u64) -> u64 {
    let cl = s.next_cl();
    s.c.send_cancel(&OrderCancelRequest {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        transact_time: 0,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        category: Category::UsdtFutures,
        side: Side::Buy,
    })
    .unwrap();
    cl
}

/// Long enough for any second report (a resolution re-asks after 600 ms).
const QUIET: Duration = Duration::from_millis(1_500);

/// Stops the gateway and returns the tracker's counters, after checking that the simulator
/// never received a clientOid twice (no resend).
fn stop(mut h: Harness) -> TrackerStats {
    assert_eq!(
        h.sim().stats().repeated_client_oids,
        0,
        "a clientOid was sent twice"
    );
    let report = h.gw.take().unwrap().shutdown();
    report.tracker.unwrap().stats
}

#[test]
fn an_applied_place_with_outcome_unknown_gives_exactly_one_new() {
    let h = start();
    let mut s = h.client(1);
    h.sim()
        .faults()
        .unknown_outcome(Scope::All, 1, Some("place-order"), true)
        .unwrap();
    let cl = rest_buy(&mut s);
    let er = s.exec();
    assert_eq!(
        (er.cl_ord_id, er.exec_type, er.ord_status),
        (cl, ExecType::New, OrdStatus::New)
    );
    assert_ne!(er.order_id, 0);
    s.expect_silence(QUIET);
    assert_eq!(h.sim().stats().orders_received, 1, "never resent");
    let stats = stop(h);
    assert_eq!(stats.outcome_unknown, 1);
    assert!(stats.resolved_applied >= 1, "{stats:?}");
    assert_eq!(stats.resolved_not_applied, 0);
}

#[test]
fn an_unapplied_place_with_outcome_unknown_is_rejected_not_applied_once() {
    let h = start();
    let mut s = h.client(1);
    h.sim()
        .faults()
        .unknown_outcome(Scope::All, 1, Some("place-order"), false)
        .unwrap();
    let lost = rest_buy(&mut s);
    let er = s.exec();
    assert_eq!(
        (er.cl_ord_id, er.exec_type, er.ord_status),
        (lost, ExecType::Rejected, OrdStatus::Rejected)
    );
    assert_eq!(er.ord_rej_reason, Some(OrdRejReason::NotApplied));
    assert_eq!(er.text.as_str(), "not applied at the exchange");
    s.expect_silence(QUIET);
    // The next order goes through normally.
    let ok = rest_buy(&mut s);
    let er = s.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (ok, ExecType::New));
    // The simulator does not count the unapplied op: a resend would make this 2.
    assert_eq!(h.sim().stats().orders_received, 1, "never resent");
    assert_eq!(h.sim().stats().orders_placed, 1);
    let stats = stop(h);
    assert_eq!(stats.resolved_not_applied, 1);
}

#[test]
fn a_cancel_with_outcome_unknown_ends_canceled_exactly_once() {
    let h = start();
    let mut s = h.client(1);
    let cl = rest_buy(&mut s);
    assert_eq!(s.exec().exec_type, ExecType::New);
    h.sim()
        .faults()
        .unknown_outcome(Scope::All, 1, Some("cancel-order"), true)
        .unwrap();
    let cx = cancel(&mut s, cl);
    let er = s.exec();
    assert_eq!(
        (er.cl_ord_id, er.orig_cl_ord_id, er.exec_type, er.ord_status),
        (cx, cl, ExecType::Canceled, OrdStatus::Canceled)
    );
    s.expect_silence(QUIET);
    assert_eq!(h.sim().stats().orders_cancelled, 1);
    let stats = stop(h);
    assert!(stats.resolved_applied >= 1, "{stats:?}");
}

#[test]
fn an_unapplied_cancel_with_outcome_unknown_is_rejected_not_applied() {
    let h = start();
    let mut s = h.client(1);
    let cl = rest_buy(&mut s);
    assert_eq!(s.exec().exec_type, ExecType::New);
    h.sim()
        .faults()
        .unknown_outcome(Scope::All, 1, Some("cancel-order"), false)
        .unwrap();
    let cx = cancel(&mut s, cl);
    let r = s.cancel_reject();
    assert_eq!(
        (
            r.cl_ord_id,
            r.orig_cl_ord_id,
            r.cxl_rej_reason,
            r.ord_status
        ),
        (cx, cl, CxlRejReason::NotApplied, OrdStatus::New)
    );
    s.expect_silence(QUIET);
    // The order is still open: a second cancel works.
    let cx2 = cancel(&mut s, cl);
    let er = s.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (cx2, ExecType::Canceled));
    let stats = stop(h);
    assert_eq!(stats.resolved_not_applied, 1);
}

#[test]
fn a_reply_later_than_the_timeout_is_resolved_by_query_and_reported_once() {
    let h = start();
    let mut s = h.client(1);
    h.sim().faults().delay_replies(Scope::All, 1_500).unwrap();
    let cl = rest_buy(&mut s);
    let er = s.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (cl, ExecType::New));
    // The reply arrives after the timeout and the query: nothing more.
    s.expect_silence(Duration::from_millis(2_500));
    assert_eq!(h.sim().stats().orders_received, 1, "never resent");
    let stats = stop(h);
    assert!(
        stats.watchdog_push_without_reply + stats.outcome_unknown >= 1,
        "{stats:?}"
    );
    assert_eq!(stats.resolved_not_applied, 0);
}

#[test]
fn pushes_later_than_the_deadline_are_flagged_and_reported_once() {
    let h = start();
    let mut s = h.client(1);
    h.sim().faults().delay_pushes(Scope::All, 1_500).unwrap();
    let cl = rest_buy(&mut s);
    let er = s.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (cl, ExecType::New));
    s.expect_silence(Duration::from_millis(2_500));
    assert_eq!(h.sim().stats().orders_received, 1);
    let stats = stop(h);
    assert_eq!(stats.watchdog_ack_without_push, 1, "{stats:?}");
    assert!(stats.resolved_applied >= 1, "{stats:?}");
    assert_eq!(stats.resolved_not_applied, 0);
}

#[test]
fn with_pushes_paused_the_query_alone_reports_the_applied_place_and_cancel() {
    let h = start();
    let mut s = h.client(1);
    h.sim().faults().pause_pushes(Scope::All).unwrap();
    h.sim()
        .faults()
        .unknown_outcome(Scope::All, 1, Some("place-order"), true)
        .unwrap();
    let cl = rest_buy(&mut s);
    // No reply, no push: the New comes from order-info.
    let er = s.exec();
    assert_eq!(
        (er.cl_ord_id, er.exec_type, er.ord_status),
        (cl, ExecType::New, OrdStatus::New)
    );
    assert_ne!(er.order_id, 0);
    h.sim()
        .faults()
        .unknown_outcome(Scope::All, 1, Some("cancel-order"), true)
        .unwrap();
    let cx = cancel(&mut s, cl);
    let er = s.exec();
    assert_eq!(
        (er.cl_ord_id, er.exec_type, er.ord_status),
        (cx, ExecType::Canceled, OrdStatus::Canceled)
    );
    h.sim().faults().resume_pushes(Scope::All).unwrap();
    s.expect_silence(QUIET);
    assert_eq!(h.sim().stats().orders_received, 1);
    let stats = stop(h);
    assert!(stats.resolved_applied >= 2, "{stats:?}");
}

/// Reads ExecutionReports until `n` orders have one each (a second one for an order fails), then
/// checks that nothing more comes; returns ClOrdID → ExecType.
fn one_outcome_each(
    s: &mut Strategy,
    n: usize,
) -> std::collections::HashMap<u64, codec::sbe::ExecType> {
    let mut outcome = std::collections::HashMap::new();
    while outcome.len() < n {
        let er = s.exec();
        assert!(
            outcome.insert(er.cl_ord_id, er.exec_type).is_none(),
            "a second report for {}: {er:?}",
            er.cl_ord_id
        );
    }
    s.expect_silence(QUIET);
    outcome
}

#[test]
fn every_order_of_a_mixed_run_gets_exactly_one_outcome() {
    let h = start();
    let mut s = h.client(1);
    let faults = h.sim().faults();
    // Rules are consumed in the order they were added: 4 applied, 4 not applied, then normal.
    faults
        .unknown_outcome(Scope::All, 4, Some("place-order"), true)
        .unwrap();
    faults
        .unknown_outcome(Scope::All, 4, Some("place-order"), false)
        .unwrap();
    let cls: Vec<u64> = (0..12).map(|_| rest_buy(&mut s)).collect();
    let outcome = one_outcome_each(&mut s, cls.len());
    let rejected: Vec<u64> = cls
        .iter()
        .copied()
        .filter(|cl| outcome[cl] == ExecType::Rejected)
        .collect();
    assert_eq!(rejected, cls[4..8].to_vec());
    assert!(cls
        .iter()
        .filter(|cl| !rejected.contains(cl))
        .all(|cl| outcome[cl] == ExecType::New));
    let st = h.sim().stats();
    assert_eq!(
        (st.orders_received, st.orders_placed),
        (8, 8),
        "never resent"
    );
    let stats = stop(h);
    assert!(stats.resolved_applied >= 4, "{stats:?}");
    assert_eq!(stats.resolved_not_applied, 4);
}

/// Issue 10: a link drop or a burst of outcome-unknown replies leaves many orders unknown at
/// once; querying them one by one at the paced 10/s fell behind a soak with hundreds in flight
/// at every drop, so their outcomes came minutes late or never. Many due at once are settled
/// from the account's lists (a handful of queries), each order still exactly once.
#[test]
fn many_unknown_outcomes_at_once_are_settled_from_the_lists_each_once() {
    let h = start();
    let mut s = h.client(1);
    let faults = h.sim().faults();
    faults
        .unknown_outcome(Scope::All, 8, Some("place-order"), true)
        .unwrap();
    faults
        .unknown_outcome(Scope::All, 8, Some("place-order"), false)
        .unwrap();
    let cls: Vec<u64> = (0..16).map(|_| rest_buy(&mut s)).collect();
    let outcome = one_outcome_each(&mut s, cls.len());
    for (i, cl) in cls.iter().enumerate() {
        let want = if i < 8 {
            ExecType::New
        } else {
            ExecType::Rejected
        };
        assert_eq!(outcome[cl], want, "ClOrdID {cl}");
    }
    // One by one: 8 found + 8 × 2 not found = 24 order-info queries.
    let queries = h.sim().stats().order_info_queries;
    assert!(queries <= 4, "{queries} order-info queries");
    let stats = stop(h);
    assert_eq!(stats.resolved_not_applied, 8);
}

/// Sends a NewOrderList of `n` resting buys (ClOrdIDs `first..first+n`).
fn send_list(s: &mut Strategy, list_id: u64, first: u64, n: u64) -> Vec<u64> {
    use codec::sbe::{BoolFlag, NewOrderList, NewOrderListEntry, OrdType, PosSide, StpMode};
    let items: Vec<NewOrderListEntry> = (0..n)
        .map(|i| NewOrderListEntry {
            cl_ord_id: first + i,
            price: Some(e2e::d(&(50000 + i).to_string())),
            order_qty: e2e::d("0.001"),
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Buy,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            pos_side: PosSide::None,
            reduce_only: BoolFlag::No,
            stp_mode: StpMode::None,
        })
        .collect();
    let m = NewOrderList {
        list_id,
        transact_time: 0,
    };
    s.c.send_frame(|b| {
        m.encode_frame(items.iter().copied(), b).unwrap();
    })
    .unwrap();
    (first..first + n).collect()
}

/// Reads the list's ListStatus and one ExecutionReport per item; panics on a second report
/// for an item.
fn list_outcome(
    s: &mut Strategy,
    cls: &[u64],
) -> (
    Vec<codec::sbe::ListStatusEntry>,
    std::collections::HashMap<u64, codec::sbe::ExecutionReport>,
) {
    use strategy_client::Received;
    let mut entries = Vec::new();
    let mut last = false;
    let mut execs = std::collections::HashMap::new();
    while !last || execs.len() < cls.len() {
        match s.next_message() {
            Received::ListStatus(ls, e) => {
                last = ls.last_fragment == codec::sbe::BoolFlag::Yes;
                entries.extend(e);
            }
            Received::Exec(er) => {
                assert!(execs.insert(er.cl_ord_id, er).is_none(), "twice: {er:?}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    (entries, execs)
}

#[test]
fn batch_items_with_outcome_unknown_are_resolved_each_once() {
    let h = start();
    let mut s = h.client(1);
    // Not applied: every item ends Rejected NotApplied.
    h.sim()
        .faults()
        .unknown_outcome(Scope::All, 1, Some("batch-place"), false)
        .unwrap();
    let lost = send_list(&mut s, 1, 100, 3);
    let (entries, execs) = list_outcome(&mut s, &lost);
    assert_eq!(entries.len(), 3);
    assert!(entries.iter().all(|e| e.exchange_code == 40010));
    for cl in &lost {
        let er = execs[cl];
        assert_eq!(
            (er.exec_type, er.ord_rej_reason),
            (ExecType::Rejected, Some(OrdRejReason::NotApplied))
        );
    }
    // Applied: every item ends New.
    h.sim()
        .faults()
        .unknown_outcome(Scope::All, 1, Some("batch-place"), true)
        .unwrap();
    let placed = send_list(&mut s, 2, 200, 3);
    let (_, execs) = list_outcome(&mut s, &placed);
    assert!(placed.iter().all(|cl| execs[cl].exec_type == ExecType::New));
    s.expect_silence(QUIET);
    assert_eq!(h.sim().stats().orders_placed, 3);
    let stats = stop(h);
    assert!(stats.resolved_applied >= 3, "{stats:?}");
    assert_eq!(stats.resolved_not_applied, 3);
}
