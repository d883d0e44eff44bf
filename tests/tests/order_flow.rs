//! End-to-end order flow over real loopback sockets: strategy client → gateway → TLS WebSocket
//! → venue simulator, and the exact ExecutionReports that come back.

use codec::sbe::{
    BoolFlag, Category, CxlRejResponseTo, ExecType, OrdRejReason, OrdStatus, OrdType,
    OrderCancelReplaceRequest, OrderCancelRequest, Side, Symbol, TimeInForce,
};
use e2e::{btc_order, d, Harness};
use std::time::Duration;

#[test]
fn resting_limit_is_new_then_modified_then_cancelled() {
    let h = Harness::quiet();
    let mut s = h.client(1);
    let cl = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    let new = s.exec();
    assert_eq!(new.exec_type, ExecType::New);
    assert_eq!(new.ord_status, OrdStatus::New);
    assert_eq!(new.cl_ord_id, cl);
    assert_ne!(new.order_id, 0, "OrderID from the exchange");
    assert_eq!(new.price, Some(d("50000")));
    assert_eq!(new.order_qty, d("0.001"));
    assert_eq!(new.cum_qty, d("0"));
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
    assert_eq!(replaced.cl_ord_id, replace_cl);
    assert_eq!(replaced.orig_cl_ord_id, cl);
    assert_eq!(replaced.order_id, new.order_id);
    assert_eq!(replaced.price, Some(d("50000.5")));
    assert_eq!(replaced.order_qty, d("0.002"));
    assert_eq!(replaced.leaves_qty, d("0.002"));
    assert_eq!(replaced.ord_status, OrdStatus::New);

    // OrderQty is required on a replace, as in FIX 35=G: a null is refused by the gateway
    // (OrderCancelReject, nothing sent) and the order keeps its values.
    let no_qty = s.next_cl();
    s.c.send_replace(&OrderCancelReplaceRequest {
        cl_ord_id: no_qty,
        orig_cl_ord_id: replace_cl,
        transact_time: 0,
        price: Some(d("50001")),
        order_qty: None,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        category: Category::UsdtFutures,
        side: Side::Buy,
        auto_cancel: BoolFlag::No,
    })
    .unwrap();
    let r = s.cancel_reject();
    assert_eq!((r.cl_ord_id, r.orig_cl_ord_id), (no_qty, replace_cl));
    assert_eq!(
        r.cxl_rej_response_to,
        CxlRejResponseTo::OrderCancelReplaceRequest
    );
    assert_eq!(r.cxl_rej_reason, codec::sbe::CxlRejReason::Other);
    assert_eq!(r.text.as_str(), "OrderQty is required");

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
    assert_eq!(cancelled.exec_type, ExecType::Canceled);
    assert_eq!(cancelled.ord_status, OrdStatus::Canceled);
    assert_eq!(cancelled.cl_ord_id, cancel_cl);
    assert_eq!(cancelled.orig_cl_ord_id, replace_cl);
    assert_eq!(cancelled.leaves_qty, d("0"));
    assert_eq!(cancelled.text.as_str(), "normal_cancel");
}

#[test]
fn crossing_order_fills_in_parts_with_exact_quantities_and_average_price() {
    crossing_order_fills_in_parts(true);
}

/// The same reports whether or not the venue pushes `new` before the fills of an order that
/// trades on entry (reference §4.2 says it does; the gateway must not depend on either).
#[test]
fn crossing_order_reports_do_not_depend_on_a_new_push_before_the_fills() {
    crossing_order_fills_in_parts(false);
}

/// One New, then PartialFill and Fill with exact quantities, for the taker; the maker's fills.
/// `new_before_fill`: the simulator's `SimConfig::new_before_fill`.
fn crossing_order_fills_in_parts(new_before_fill: bool) {
    let mut cfg = e2e::quiet_sim_config();
    cfg.new_before_fill = new_before_fill;
    let h = Harness::start(cfg);
    let mut maker = h.client(1);
    let mut taker = h.client(2);
    let m1 = maker.limit(Side::Sell, TimeInForce::Gtc, "60000", "0.002");
    assert_eq!(maker.exec().exec_type, ExecType::New);
    let m2 = maker.limit(Side::Sell, TimeInForce::Gtc, "60001", "0.003");
    assert_eq!(maker.exec().exec_type, ExecType::New);

    let t = taker.limit(Side::Buy, TimeInForce::Gtc, "60001", "0.004");
    assert_eq!(taker.exec().exec_type, ExecType::New);
    let f1 = taker.exec();
    assert_eq!(f1.cl_ord_id, t);
    assert_eq!(f1.exec_type, ExecType::PartialFill);
    assert_eq!(f1.ord_status, OrdStatus::PartiallyFilled);
    assert_eq!(f1.last_qty, Some(d("0.002")));
    assert_eq!(f1.last_px, Some(d("60000")));
    assert_eq!(f1.cum_qty, d("0.002"));
    assert_eq!(f1.leaves_qty, d("0.002"));
    assert_eq!(f1.avg_px, Some(d("60000")));
    assert_ne!(f1.exec_id, 0);
    let f2 = taker.exec();
    assert_eq!(f2.exec_type, ExecType::Fill);
    assert_eq!(f2.ord_status, OrdStatus::Filled);
    assert_eq!(f2.last_qty, Some(d("0.002")));
    assert_eq!(f2.last_px, Some(d("60001")));
    assert_eq!(f2.cum_qty, d("0.004"));
    assert_eq!(f2.leaves_qty, d("0"));
    assert_eq!(f2.avg_px, Some(d("60000.5")));
    assert_ne!(f2.exec_id, f1.exec_id);

    // The maker side: first order filled, second partially.
    let mf1 = maker.exec();
    assert_eq!(
        (mf1.cl_ord_id, mf1.exec_type, mf1.cum_qty),
        (m1, ExecType::Fill, d("0.002"))
    );
    let mf2 = maker.exec();
    assert_eq!((mf2.cl_ord_id, mf2.exec_type), (m2, ExecType::PartialFill));
    assert_eq!(mf2.cum_qty, d("0.002"));
    assert_eq!(mf2.leaves_qty, d("0.001"));
}

#[test]
fn ioc_remainder_is_cancelled_with_the_exchange_reason() {
    let h = Harness::quiet();
    let mut maker = h.client(1);
    let mut taker = h.client(2);
    maker.limit(Side::Sell, TimeInForce::Gtc, "60000", "0.001");
    assert_eq!(maker.exec().exec_type, ExecType::New);
    let t = taker.limit(Side::Buy, TimeInForce::Ioc, "60000", "0.003");
    assert_eq!(taker.exec().exec_type, ExecType::New);
    let fill = taker.exec();
    assert_eq!(
        (fill.exec_type, fill.cum_qty),
        (ExecType::PartialFill, d("0.001"))
    );
    let cancelled = taker.exec();
    assert_eq!(cancelled.cl_ord_id, t);
    assert_eq!(cancelled.exec_type, ExecType::Canceled);
    assert_eq!(cancelled.cum_qty, d("0.001"));
    assert_eq!(cancelled.leaves_qty, d("0"));
    assert_eq!(cancelled.avg_px, Some(d("60000")));
    assert_eq!(cancelled.text.as_str(), "ioc_not_full_cancel");
}

#[test]
fn post_only_that_would_cross_is_cancelled_with_the_exchange_reason() {
    let h = Harness::quiet();
    let mut maker = h.client(1);
    let mut taker = h.client(2);
    maker.limit(Side::Sell, TimeInForce::Gtc, "60000", "0.001");
    assert_eq!(maker.exec().exec_type, ExecType::New);
    let t = taker.limit(Side::Buy, TimeInForce::PostOnly, "60000", "0.001");
    assert_eq!(taker.exec().exec_type, ExecType::New);
    let cancelled = taker.exec();
    assert_eq!(cancelled.cl_ord_id, t);
    assert_eq!(cancelled.exec_type, ExecType::Canceled);
    assert_eq!(cancelled.cum_qty, d("0"));
    assert_eq!(cancelled.text.as_str(), "post_only_fill_cancel");
    maker.expect_silence(Duration::from_millis(200));
}

#[test]
fn market_order_fills_against_the_liquidity_source() {
    let h = Harness::start(sim::SimConfig::demo());
    let mut s = h.client(1);
    let cl = s.next_cl();
    s.c.send_new_order(&btc_order(
        cl,
        Side::Buy,
        OrdType::Market,
        TimeInForce::Ioc,
        None,
        "0.001",
    ))
    .unwrap();
    assert_eq!(s.exec().exec_type, ExecType::New);
    let mut last = s.exec();
    while last.exec_type == ExecType::PartialFill {
        last = s.exec();
    }
    assert_eq!(last.exec_type, ExecType::Fill);
    assert_eq!(last.cum_qty, d("0.001"));
    assert!(last.avg_px.unwrap() > d("0"));
}

#[test]
fn pre_trade_rejects_never_reach_the_exchange() {
    let h = Harness::quiet();
    let mut s = h.client(1);
    let before = h.sim().stats();
    let cases: [(Option<&str>, &str, &str, OrdRejReason, &str); 5] = [
        (
            Some("60000.05"),
            "0.001",
            "BTCUSDT",
            OrdRejReason::InvalidPriceIncrement,
            "tick:",
        ),
        (
            Some("60000"),
            "0.00015",
            "BTCUSDT",
            OrdRejReason::IncorrectQuantity,
            "lot:",
        ),
        (
            Some("1000"),
            "0.001",
            "BTCUSDT",
            OrdRejReason::Other,
            "min notional:",
        ),
        (
            Some("60000"),
            "0.001",
            "BTCUSDX",
            OrdRejReason::UnknownSymbol,
            "unknown symbol",
        ),
        (
            Some("60000"),
            "0",
            "BTCUSDT",
            OrdRejReason::IncorrectQuantity,
            "qty:",
        ),
    ];
    for (price, qty, symbol, reason, text) in cases {
        let cl = s.next_cl();
        let mut o = btc_order(cl, Side::Buy, OrdType::Limit, TimeInForce::Gtc, price, qty);
        o.symbol = Symbol::new(symbol).unwrap();
        s.c.send_new_order(&o).unwrap();
        let er = s.exec();
        assert_eq!(er.cl_ord_id, cl);
        assert_eq!(er.exec_type, ExecType::Rejected);
        assert_eq!(er.ord_status, OrdStatus::Rejected);
        assert_eq!(er.ord_rej_reason, Some(reason), "{symbol} {price:?} {qty}");
        assert!(er.text.as_str().starts_with(text), "{}", er.text.as_str());
        assert_eq!(er.order_id, 0);
    }
    // A duplicate ClOrdID is refused too.
    let cl = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    assert_eq!(s.exec().exec_type, ExecType::New);
    s.c.send_new_order(&btc_order(
        cl,
        Side::Buy,
        OrdType::Limit,
        TimeInForce::Gtc,
        Some("50000"),
        "0.001",
    ))
    .unwrap();
    let dup = s.exec();
    assert_eq!(
        (dup.exec_type, dup.ord_rej_reason),
        (ExecType::Rejected, Some(OrdRejReason::DuplicateOrder))
    );
    let after = h.sim().stats();
    assert_eq!(
        after.orders_received - before.orders_received,
        1,
        "only the valid order reached the exchange"
    );
}

#[test]
fn cancel_of_unknown_or_filled_order_is_rejected() {
    let h = Harness::quiet();
    let mut maker = h.client(1);
    let mut taker = h.client(2);
    // Unknown: refused by the gateway itself.
    let cl = taker.next_cl();
    taker
        .c
        .send_cancel(&OrderCancelRequest {
            cl_ord_id: cl,
            orig_cl_ord_id: 999,
            transact_time: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Buy,
        })
        .unwrap();
    let r = taker.cancel_reject();
    assert_eq!((r.cl_ord_id, r.orig_cl_ord_id), (cl, 999));
    assert_eq!(r.cxl_rej_response_to, CxlRejResponseTo::OrderCancelRequest);
    assert_eq!(r.cxl_rej_reason, codec::sbe::CxlRejReason::UnknownOrder);

    // Filled: the exchange refuses (25204) and the gateway reports it.
    maker.limit(Side::Sell, TimeInForce::Gtc, "60000", "0.001");
    assert_eq!(maker.exec().exec_type, ExecType::New);
    let t = taker.limit(Side::Buy, TimeInForce::Gtc, "60000", "0.001");
    assert_eq!(taker.exec().exec_type, ExecType::New);
    assert_eq!(taker.exec().exec_type, ExecType::Fill);
    let cl = taker.next_cl();
    taker
        .c
        .send_cancel(&OrderCancelRequest {
            cl_ord_id: cl,
            orig_cl_ord_id: t,
            transact_time: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Buy,
        })
        .unwrap();
    let r = taker.cancel_reject();
    assert_eq!((r.cl_ord_id, r.orig_cl_ord_id), (cl, t));
    assert_eq!(r.exchange_code, 25204);
    assert_eq!(r.ord_status, OrdStatus::Filled);
    assert_eq!(r.cxl_rej_reason, codec::sbe::CxlRejReason::TooLateToCancel);
}

/// The gateway's clientOid (`base36(SessionID):base36(root ClOrdID)`, `gateway_core::ids`)
/// passes the simulator's check of both documented patterns (reference §6.3: the WebSocket
/// one, used by the gateway, and the REST one), from the smallest to the largest ids.
#[test]
fn gateway_client_oids_fit_both_documented_patterns() {
    use gateway::ids::ClientOid;
    use sim::venue::{valid_client_oid, Channel};
    for (session, cl) in [
        (0, 0),
        (1, 1),
        (36, 35),
        (42, 1_000_000_007),
        (u64::MAX, u64::MAX),
    ] {
        let oid = ClientOid::new(session, cl);
        for channel in [Channel::Ws, Channel::Rest] {
            assert!(
                valid_client_oid(channel, oid.as_str()),
                "{channel:?} refuses {}",
                oid.as_str()
            );
        }
    }
}
