//! The rate budget end to end, with the simulator enforcing Bitget's limits (per-UID quotas
//! and 10 frames/s per connection) and the gateway on the default tier: the gateway refuses or
//! queues what the venue would refuse, cancels keep their share, the pool spreads ops over its
//! connections, and RateBudgetRequest shows the buckets.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use codec::sbe::{
    Category, CxlRejReason, ExecType, OrdRejReason, OrderCancelRequest, RateBudgetEntry,
    RateBudgetReport, RateBudgetRequest, Side, Symbol, TimeInForce,
};
use e2e::{quiet_sim_config, Harness, Strategy};
use gateway::budget::RateConfig;
use gateway::engine::BudgetPolicy;
use strategy_client::Received;

/// A simulator with Bitget's limits on; a gateway on the default tier with `connections`
/// connections, session 1 rejecting and session 2 queueing (5 s) when the budget is empty.
fn start(
    connections: usize,
    tweak_sim: impl FnOnce(&mut sim::SimConfig),
    rate: RateConfig,
) -> Harness {
    let mut cfg = quiet_sim_config();
    cfg.max_msgs_per_s = 10;
    cfg.rate_limits.enabled = true;
    tweak_sim(&mut cfg);
    Harness::start_with(cfg, |s| {
        s.rate = rate;
        for a in &mut s.accounts {
            a.connections = connections;
        }
        s.sessions[1].budget = BudgetPolicy::Queue(Duration::from_secs(5));
    })
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

fn budget_report(s: &mut Strategy, request_id: u64) -> (RateBudgetReport, Vec<RateBudgetEntry>) {
    s.c.send_frame(|b| {
        RateBudgetRequest {
            request_id,
            transact_time: 0,
        }
        .encode_frame(b)
    })
    .unwrap();
    loop {
        if let Received::RateBudgetReport(r, e) = s.next_message() {
            if r.request_id == request_id {
                return (r, e);
            }
        }
    }
}

fn entry<'a>(entries: &'a [RateBudgetEntry], name: &str, id: u16) -> &'a RateBudgetEntry {
    entries
        .iter()
        .find(|e| e.bucket_name.as_str() == name && e.endpoint_id == id)
        .unwrap_or_else(|| panic!("bucket {name}/{id} in {entries:?}"))
}

/// Outcome of a burst of new orders: acknowledged, refused by the budget (with the reject
/// text), and unasked RateBudgetReports seen.
struct Burst {
    new: usize,
    throttled: Vec<String>,
    unasked_reports: usize,
}

fn burst(s: &mut Strategy, n: usize) -> (Burst, Vec<u64>) {
    let cls: Vec<u64> = (0..n)
        .map(|_| s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001"))
        .collect();
    let mut b = Burst {
        new: 0,
        throttled: Vec::new(),
        unasked_reports: 0,
    };
    let mut resting = Vec::new();
    while b.new + b.throttled.len() < n {
        match s.next_message() {
            Received::Exec(er) if er.exec_type == ExecType::New => {
                b.new += 1;
                resting.push(er.cl_ord_id);
            }
            Received::Exec(er) => {
                assert_eq!(er.exec_type, ExecType::Rejected, "{er:?}");
                assert_eq!(
                    er.ord_rej_reason,
                    Some(OrdRejReason::ThrottleLimitExceeded),
                    "refused by the gateway, not the venue: {er:?}"
                );
                assert_eq!(er.exchange_code, 0);
                b.throttled.push(er.text.as_str().to_owned());
            }
            Received::RateBudgetReport(r, _) => {
                assert_eq!(r.request_id, 0);
                b.unasked_reports += 1;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(resting.iter().all(|c| cls.contains(c)));
    (b, resting)
}

#[test]
fn new_orders_beyond_the_place_order_quota_are_refused_by_the_gateway() {
    // Two connections: 13 new-order frames per window, so place-order (10/s) binds.
    let h = start(2, |_| {}, RateConfig::bitget());
    let mut s = h.client(1);
    let (b, _) = burst(&mut s, 15);
    assert!(b.new >= 10, "the first 10 fit the quota");
    assert!(!b.throttled.is_empty());
    assert!(b
        .throttled
        .iter()
        .all(|t| t == "rate budget exhausted: place-order"));
    // The first throttle is made visible with an unasked report (sent before its reject).
    assert!(b.unasked_reports >= 1);
    let st = h.sim().stats();
    assert_eq!(st.rate_limited, 0, "the venue never refused for rate");
    assert_eq!(st.msg_limit_closes, 0);
    assert_eq!(st.orders_placed as usize, b.new);
}

#[test]
fn cancels_go_through_while_new_orders_exhaust_the_budget() {
    // One connection: 10 frames per window, 2 of them reserved for cancels.
    let h = start(1, |_| {}, RateConfig::bitget());
    // Session 2 queues: its 12 resting orders all go, spread over a few windows.
    let mut q = h.client(2);
    let (b, resting) = burst(&mut q, 12);
    assert_eq!(b.new, 12);
    assert!(b.throttled.is_empty());
    // Session 1 (reject) exhausts the new-order tokens while session 2 cancels everything.
    let mut r = h.client(1);
    let cls: Vec<u64> = (0..10)
        .map(|_| r.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001"))
        .collect();
    for orig in &resting {
        cancel(&mut q, *orig);
    }
    let mut canceled = 0;
    while canceled < resting.len() {
        match q.next_message() {
            Received::Exec(er) => {
                assert_eq!(er.exec_type, ExecType::Canceled, "{er:?}");
                canceled += 1;
            }
            Received::RateBudgetReport(..) => {}
            other => panic!("every queued cancel goes through, got {other:?}"),
        }
    }
    // Session 1's answers: acks or refusals by the gateway, never by the venue.
    let mut done = 0;
    let mut throttled = 0;
    while done < cls.len() {
        match r.next_message() {
            Received::Exec(er) if er.exec_type == ExecType::New => done += 1,
            Received::Exec(er) => {
                assert_eq!(er.ord_rej_reason, Some(OrdRejReason::ThrottleLimitExceeded));
                done += 1;
                throttled += 1;
            }
            Received::RateBudgetReport(..) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(
        throttled > 0,
        "new orders were throttled while the cancels went"
    );
    let st = h.sim().stats();
    assert_eq!(st.rate_limited, 0);
    assert_eq!(st.msg_limit_closes, 0);
    assert_eq!(st.orders_cancelled, 12);
}

#[test]
fn with_reject_policy_the_reserve_lets_cancels_through_and_refusals_name_the_bucket() {
    let h = start(1, |_| {}, RateConfig::bitget());
    let mut s = h.client(1);
    // 10 frames per window: 2 went to login + subscribe, 2 are kept for cancels, so 6 new
    // orders fit and the rest are refused on the connection bucket.
    let (b, resting) = burst(&mut s, 10);
    assert!(b.new >= 6);
    assert!(b
        .throttled
        .iter()
        .all(|t| t == "rate budget exhausted: ws-connection"));
    for orig in &resting {
        cancel(&mut s, *orig);
    }
    let (mut canceled, mut refused) = (0, 0);
    while canceled + refused < resting.len() {
        match s.next_message() {
            Received::Exec(er) => {
                assert_eq!(er.exec_type, ExecType::Canceled, "{er:?}");
                canceled += 1;
            }
            Received::CancelReject(r) => {
                assert_eq!(r.cxl_rej_reason, CxlRejReason::ThrottleLimitExceeded);
                assert_eq!(r.text.as_str(), "rate budget exhausted: ws-connection");
                refused += 1;
            }
            Received::RateBudgetReport(..) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(
        canceled >= 2,
        "the cancel reserve is never taken by new orders"
    );
    let st = h.sim().stats();
    assert_eq!(st.rate_limited, 0);
    assert_eq!(st.msg_limit_closes, 0);
}

#[test]
fn the_pool_spreads_ops_over_its_connections() {
    // place-order quota raised on both sides: the per-connection limit (10 frames/s) binds.
    let mut rate = RateConfig::bitget();
    rate.overrides.place_order = Some(100);
    let h = start(2, |c| c.rate_limits.place_order = 100, rate);
    let mut s = h.client(1);
    let (b, _) = burst(&mut s, 16);
    // More new orders than one connection may carry in a window, and no connection closed
    // by the venue: both connections carried them.
    assert!(
        b.new >= 13,
        "6 + 7 new-order frames fit the two connections"
    );
    assert!(b
        .throttled
        .iter()
        .all(|t| t == "rate budget exhausted: ws-connection"));
    let st = h.sim().stats();
    assert_eq!(st.msg_limit_closes, 0);
    assert_eq!(st.rate_limited, 0);
    assert_eq!(st.ws_connections, 2);
    assert_eq!(st.orders_placed as usize, b.new);
    let (_, e) = budget_report(&mut s, 7);
    assert!(entry(&e, "ws-connection", 100).remaining < 8);
    assert!(entry(&e, "ws-connection", 101).remaining < 9);
}

#[test]
fn rate_budget_request_lists_every_bucket() {
    let h = start(2, |_| {}, RateConfig::bitget());
    let mut s = h.client(1);
    let (b, _) = burst(&mut s, 3);
    assert_eq!(b.new, 3);
    let (r, e) = budget_report(&mut s, 42);
    assert_eq!(r.request_id, 42);
    assert_ne!(r.transact_time, 0);
    let expect = [
        ("place-order", 1, 10),
        ("batch-place", 2, 5),
        ("modify-order", 3, 10),
        ("batch-modify", 4, 10),
        ("cancel-order", 5, 10),
        ("batch-cancel", 6, 5),
        ("ws-connection", 100, 10),
        ("ws-connection", 101, 10),
    ];
    assert_eq!(e.len(), expect.len());
    for (name, id, limit) in expect {
        let b = entry(&e, name, id);
        assert_eq!(b.limit, limit, "{name}");
        assert!(b.remaining <= limit);
        assert!(b.reset_time >= r.transact_time);
    }
    assert_eq!(entry(&e, "cancel-order", 5).remaining, 10);
}

/// A request queued for a token does not hold back the session's reports. Three cancels
/// arrive in one read with `cancel-order` at 1 per window and the session queueing: the first
/// goes at once, the others wait a window each. The first one's Canceled report comes while
/// they wait (before the fix the session's output stayed corked for the whole read, and the
/// report came after the last cancel was written, 2 windows later).
#[test]
fn a_queued_cancel_does_not_hold_back_the_reports_of_the_cancels_sent() {
    let mut rate = RateConfig::bitget();
    rate.overrides.cancel_order = Some(1);
    let h = start(1, |_| {}, rate);
    let mut q = h.client(2);
    let (b, resting) = burst(&mut q, 3);
    assert_eq!(b.new, 3);
    // One write holding the three cancels: the gateway reads them together.
    let mut frames = Vec::new();
    for orig in &resting {
        let cl = q.next_cl();
        OrderCancelRequest {
            cl_ord_id: cl,
            orig_cl_ord_id: *orig,
            transact_time: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Buy,
        }
        .encode_frame(&mut frames);
    }
    q.c.send_raw(&frames).unwrap();
    let mut canceled = 0;
    while canceled < resting.len() {
        match q.next_message() {
            Received::Exec(er) => {
                assert_eq!(er.exec_type, ExecType::Canceled, "{er:?}");
                canceled += 1;
                if canceled == 1 {
                    assert_eq!(
                        h.sim().stats().orders_cancelled,
                        1,
                        "the first report came while the other cancels waited for tokens"
                    );
                }
            }
            Received::RateBudgetReport(..) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(h.sim().stats().orders_cancelled, 3);
}
