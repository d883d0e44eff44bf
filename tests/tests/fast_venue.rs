//! The gateway against the simulator's fast venue (`venue = "fast"`, the benchmarks' venue
//! that answers every trade op at once): over real sockets and TLS, the same ExecutionReports
//! as against the full venue for a resting order's life, and an order that would cross rests
//! (nothing is matched).

use codec::sbe::{
    BoolFlag, Category, ExecType, OrdStatus, OrderCancelReplaceRequest, OrderCancelRequest, Side,
    Symbol, TimeInForce,
};
use e2e::{d, Harness};

fn fast_venue() -> Harness {
    let mut cfg = e2e::quiet_sim_config();
    cfg.venue = sim::config::VenueMode::Fast;
    Harness::start(cfg)
}

#[test]
fn a_resting_order_is_new_then_replaced_then_cancelled_against_the_fast_venue() {
    let h = fast_venue();
    let mut s = h.client(1);
    let cl = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    let new = s.exec();
    assert_eq!(
        (new.exec_type, new.ord_status),
        (ExecType::New, OrdStatus::New)
    );
    assert_eq!(new.cl_ord_id, cl);
    assert_ne!(new.order_id, 0, "OrderID from the venue");
    assert_eq!(new.price, Some(d("50000")));
    assert_eq!(new.leaves_qty, d("0.001"));

    let replace_cl = s.next_cl();
    s.c.send_replace(&OrderCancelReplaceRequest {
        cl_ord_id: replace_cl,
        orig_cl_ord_id: cl,
        transact_time: 0,
        price: Some(d("50000.5")),
        order_qty: Some(d("0.002")),
        symbol: Symbol::new("BTCUSDT").unwrap(),
        category: Category::UsdtFutures,
        side: Side::Buy,
        auto_cancel: BoolFlag::No,
    })
    .unwrap();
    let replaced = s.exec();
    assert_eq!(replaced.exec_type, ExecType::Replaced);
    assert_eq!(replaced.order_id, new.order_id);
    assert_eq!(replaced.price, Some(d("50000.5")));
    assert_eq!(replaced.leaves_qty, d("0.002"));

    let cancel_cl = s.next_cl();
    s.c.send_cancel(&OrderCancelRequest {
        cl_ord_id: cancel_cl,
        orig_cl_ord_id: replace_cl,
        transact_time: 0,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        category: Category::UsdtFutures,
        side: Side::Buy,
    })
    .unwrap();
    let cancelled = s.exec();
    assert_eq!(
        (cancelled.exec_type, cancelled.ord_status),
        (ExecType::Canceled, OrdStatus::Canceled)
    );
    assert_eq!(cancelled.cl_ord_id, cancel_cl);
    assert_eq!(cancelled.leaves_qty, d("0"));
    assert_eq!(cancelled.text.as_str(), "normal_cancel");

    let stats = h.sim().stats();
    assert_eq!(stats.orders_placed, 1);
    assert_eq!(stats.orders_cancelled, 1);
    assert_eq!(stats.fills, 0);
}

#[test]
fn orders_that_would_cross_both_rest_on_the_fast_venue() {
    let h = fast_venue();
    let mut s = h.client(1);
    let buy = s.limit(Side::Buy, TimeInForce::Gtc, "60000", "0.001");
    let sell = s.limit(Side::Sell, TimeInForce::Gtc, "59000", "0.001");
    for cl in [buy, sell] {
        let r = s.exec();
        assert_eq!((r.cl_ord_id, r.ord_status), (cl, OrdStatus::New));
        assert_eq!(r.cum_qty, d("0"));
    }
    s.expect_silence(std::time::Duration::from_millis(300));
    assert_eq!(h.sim().stats().fills, 0);
}
