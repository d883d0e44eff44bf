//! Mass actions end to end: OrderMassCancelRequest by session, symbol, side and account (each
//! cancelled order gets its Canceled ExecutionReport, then one OrderMassCancelReport: on the
//! requester's session every Canceled comes before it, or the report goes out at the push
//! deadline when a push is lost), a mass cancel racing fills, and OrderMassStatusRequest with
//! and without RefreshFromExchange.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

use codec::sbe::{
    BoolFlag, Category, ExecType, ExecutionReport, ItemStatus, MassCancelRejectReason,
    MassCancelRequestType, MassCancelResponse, MassStatusReqType, NewOrderSingle, OrdStatus,
    OrdType, OrderMassCancelReport, OrderMassCancelRequest, OrderMassStatusEnd,
    OrderMassStatusRequest, PosSide, Side, StpMode, Symbol, TimeInForce,
};
use e2e::{d, quiet_sim_config, Harness, Strategy};
use gateway::exchange::rest_orders::{unfilled_orders, OpenOrder};
use gateway::exchange::sign::Secret;
use gateway::exchange::ws::ExchangeCredentials;
use gateway::exchange::{tls, RestClient};
use gateway::tracker::Deadlines;
use strategy_client::Received;

fn sym(s: &str) -> Symbol {
    Symbol::new(s).unwrap()
}

/// A GTC limit order on `symbol` usdt-futures; returns its ClOrdID.
fn limit_on(s: &mut Strategy, symbol: &str, side: Side, price: &str, qty: &str) -> u64 {
    let cl = s.next_cl();
    s.c.send_new_order(&NewOrderSingle {
        cl_ord_id: cl,
        transact_time: 0,
        price: Some(d(price)),
        order_qty: d(qty),
        symbol: sym(symbol),
        category: Category::UsdtFutures,
        side,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        pos_side: PosSide::None,
        reduce_only: BoolFlag::No,
        stp_mode: StpMode::None,
    })
    .unwrap();
    cl
}

/// Rests a BTCUSDT order and waits for its New.
fn rest_btc(s: &mut Strategy, side: Side, price: &str) -> u64 {
    rest_on(s, "BTCUSDT", side, price, "0.001")
}

fn rest_on(s: &mut Strategy, symbol: &str, side: Side, price: &str, qty: &str) -> u64 {
    let cl = limit_on(s, symbol, side, price, qty);
    let er = s.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (cl, ExecType::New), "{er:?}");
    cl
}

fn send_mass_cancel(
    s: &mut Strategy,
    t: MassCancelRequestType,
    symbol: &str,
    side: Option<Side>,
) -> u64 {
    let cl = s.next_cl();
    let m = OrderMassCancelRequest {
        cl_ord_id: cl,
        transact_time: 0,
        symbol: sym(symbol),
        mass_cancel_request_type: t,
        category: None,
        side,
    };
    s.c.send_frame(|b| m.encode_frame(b)).unwrap();
    cl
}

/// Reads until the OrderMassCancelReport of `cl` has arrived and every order of `orders` has a
/// terminal ExecutionReport; returns the report and each order's terminal reports. Any
/// OrderCancelReject fails the test.
fn collect_mass_cancel(
    s: &mut Strategy,
    cl: u64,
    orders: &[u64],
) -> (OrderMassCancelReport, HashMap<u64, Vec<ExecutionReport>>) {
    let mut report = None;
    let mut terminal: HashMap<u64, Vec<ExecutionReport>> = HashMap::new();
    while report.is_none() || orders.iter().any(|o| !terminal.contains_key(o)) {
        match s.next_message() {
            Received::MassCancelReport(r) => {
                assert_eq!(r.cl_ord_id, cl);
                assert!(report.is_none(), "two reports");
                report = Some(r);
            }
            Received::Exec(er) => {
                if matches!(er.ord_status, OrdStatus::Filled | OrdStatus::Canceled) {
                    terminal.entry(er.cl_ord_id).or_default().push(er);
                }
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    (report.unwrap(), terminal)
}

fn send_mass_status(s: &mut Strategy, t: MassStatusReqType, symbol: &str, refresh: bool) -> u64 {
    let id = s.next_cl();
    let m = OrderMassStatusRequest {
        mass_status_req_id: id,
        transact_time: 0,
        symbol: sym(symbol),
        mass_status_req_type: t,
        category: None,
        refresh_from_exchange: if refresh { BoolFlag::Yes } else { BoolFlag::No },
    };
    s.c.send_frame(|b| m.encode_frame(b)).unwrap();
    id
}

/// Reads the OrderStatus reports and the OrderMassStatusEnd of request `id`.
fn collect_mass_status(s: &mut Strategy, id: u64) -> (Vec<ExecutionReport>, OrderMassStatusEnd) {
    let mut reports = Vec::new();
    loop {
        match s.next_message() {
            Received::Exec(er) => {
                assert_eq!(er.exec_type, ExecType::OrderStatus, "{er:?}");
                reports.push(er);
            }
            Received::MassStatusEnd(end) => {
                assert_eq!(end.mass_status_req_id, id);
                return (reports, end);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

fn rest_client(h: &Harness) -> RestClient {
    let sim = h.sim();
    let tls = tls::client_config(Some(&sim.ca_cert_pem())).unwrap();
    RestClient::new(
        &sim.rest_url(),
        &tls,
        Duration::from_secs(5),
        Some(ExchangeCredentials {
            api_key: "bg_demo_key".into(),
            secret: Secret::new("demo-secret"),
            passphrase: Secret::new("demo-pass"),
        }),
    )
    .unwrap()
}

/// The simulator's open orders of the account.
fn venue_open_orders(h: &Harness) -> Vec<OpenOrder> {
    let rest = rest_client(h);
    h.rt.block_on(unfilled_orders(&rest, None, None)).unwrap()
}

/// Reads one Canceled report per ClOrdID of `orders` (sorted), in any order.
fn expect_canceled(s: &mut Strategy, orders: &[u64]) {
    let mut seen = Vec::new();
    while seen.len() < orders.len() {
        let er = s.exec();
        assert_eq!(er.exec_type, ExecType::Canceled);
        seen.push(er.cl_ord_id);
    }
    assert_eq!(sorted(seen), orders);
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

#[test]
fn mass_cancel_by_session_leaves_other_sessions_orders() {
    let h = Harness::quiet();
    let mut s1 = h.client(1);
    let mut s2 = h.client(2);
    let mine: Vec<u64> = (0..3)
        .map(|i| rest_btc(&mut s1, Side::Buy, &format!("5000{i}")))
        .collect();
    let theirs: Vec<u64> = (0..2)
        .map(|i| rest_btc(&mut s2, Side::Buy, &format!("5100{i}")))
        .collect();

    let cl = send_mass_cancel(&mut s1, MassCancelRequestType::Session, "", None);
    let (report, terminal) = collect_mass_cancel(&mut s1, cl, &mine);
    assert_eq!(report.mass_cancel_response, MassCancelResponse::Session);
    assert_eq!(
        report.mass_cancel_request_type,
        MassCancelRequestType::Session
    );
    assert_eq!(report.mass_cancel_reject_reason, None);
    assert_eq!(report.total_affected_orders, 3);
    assert_eq!(sorted(terminal.keys().copied().collect()), mine);
    for ers in terminal.values() {
        assert_eq!(ers.len(), 1);
        assert_eq!(ers[0].exec_type, ExecType::Canceled);
        assert_eq!(ers[0].leaves_qty, d("0"));
    }

    // Session 2's orders stay, on the gateway and on the venue.
    let id = send_mass_status(&mut s2, MassStatusReqType::Session, "", false);
    let (reports, end) = collect_mass_status(&mut s2, id);
    assert_eq!(end.request_status, ItemStatus::Accepted);
    assert_eq!(end.tot_num_reports, 2);
    assert_eq!(
        sorted(reports.iter().map(|r| r.cl_ord_id).collect()),
        theirs
    );
    assert_eq!(venue_open_orders(&h).len(), 2);

    // Nothing left: a second mass cancel affects nothing.
    let cl = send_mass_cancel(&mut s1, MassCancelRequestType::Session, "", None);
    let (report, _) = collect_mass_cancel(&mut s1, cl, &[]);
    assert_eq!(report.mass_cancel_response, MassCancelResponse::Session);
    assert_eq!(report.total_affected_orders, 0);
}

#[test]
fn mass_cancel_by_side_then_by_symbol() {
    let h = Harness::quiet();
    let mut s = h.client(1);
    let btc_buys = [
        rest_btc(&mut s, Side::Buy, "50000"),
        rest_btc(&mut s, Side::Buy, "50001"),
    ];
    let btc_sell = rest_btc(&mut s, Side::Sell, "70000");
    let eth_buy = rest_on(&mut s, "ETHUSDT", Side::Buy, "2000", "0.01");
    let eth_sell = rest_on(&mut s, "ETHUSDT", Side::Sell, "4000", "0.01");

    // Side Sell, no symbol: both sells, any symbol.
    let cl = send_mass_cancel(&mut s, MassCancelRequestType::Side, "", Some(Side::Sell));
    let (report, terminal) = collect_mass_cancel(&mut s, cl, &[btc_sell, eth_sell]);
    assert_eq!(report.mass_cancel_response, MassCancelResponse::Side);
    assert_eq!(report.total_affected_orders, 2);
    assert_eq!(terminal.len(), 2);

    // Symbol BTCUSDT: the two BTC buys, not the ETH buy.
    let cl = send_mass_cancel(&mut s, MassCancelRequestType::Symbol, "BTCUSDT", None);
    let (report, terminal) = collect_mass_cancel(&mut s, cl, &btc_buys);
    assert_eq!(report.mass_cancel_response, MassCancelResponse::Symbol);
    assert_eq!(report.total_affected_orders, 2);
    assert_eq!(
        sorted(terminal.keys().copied().collect()),
        btc_buys.to_vec()
    );

    let open = venue_open_orders(&h);
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(open[0].symbol.as_str(), "ETHUSDT");
    let id = send_mass_status(&mut s, MassStatusReqType::Session, "", false);
    let (reports, _) = collect_mass_status(&mut s, id);
    assert_eq!(
        reports.iter().map(|r| r.cl_ord_id).collect::<Vec<_>>(),
        [eth_buy]
    );

    // An unknown symbol is refused; a Side request without a side too.
    let cl = send_mass_cancel(&mut s, MassCancelRequestType::Symbol, "NOPEUSDT", None);
    let (report, _) = collect_mass_cancel(&mut s, cl, &[]);
    assert_eq!(report.mass_cancel_response, MassCancelResponse::Rejected);
    assert_eq!(
        report.mass_cancel_reject_reason,
        Some(MassCancelRejectReason::InvalidSecurity)
    );
    let cl = send_mass_cancel(&mut s, MassCancelRequestType::Side, "", None);
    let (report, _) = collect_mass_cancel(&mut s, cl, &[]);
    assert_eq!(report.mass_cancel_response, MassCancelResponse::Rejected);
    assert_eq!(venue_open_orders(&h).len(), 1);
}

#[test]
fn mass_cancel_by_account_covers_every_session_of_the_account() {
    let h = Harness::quiet();
    let mut s1 = h.client(1);
    let mut s2 = h.client(2);
    // 23 orders on session 1: two batch-cancel chunks for its share.
    let mine: Vec<u64> = (0..23)
        .map(|i| rest_btc(&mut s1, Side::Buy, &format!("500{:02}", i)))
        .collect();
    let theirs: Vec<u64> = (0..2)
        .map(|i| rest_btc(&mut s2, Side::Sell, &format!("7000{i}")))
        .collect();

    let cl = send_mass_cancel(&mut s1, MassCancelRequestType::Account, "", None);
    let (report, terminal) = collect_mass_cancel(&mut s1, cl, &mine);
    assert_eq!(report.mass_cancel_response, MassCancelResponse::Account);
    assert_eq!(report.total_affected_orders, 25);
    assert!(terminal.values().all(|v| v.len() == 1));
    // Session 2 gets the Canceled reports of its own orders.
    expect_canceled(&mut s2, &theirs);
    assert!(venue_open_orders(&h).is_empty());
}

#[test]
fn mass_cancel_racing_fills_ends_every_order_exactly_once() {
    let h = Harness::quiet();
    let mut maker = h.client(1);
    let mut taker = h.client(2);
    let n = 30;
    let makers: Vec<u64> = (0..n)
        .map(|_| rest_btc(&mut maker, Side::Sell, "60000"))
        .collect();
    // Crossing IOC buys from another session around the mass cancel.
    let ioc = |taker: &mut Strategy| {
        let cl = taker.next_cl();
        taker
            .c
            .send_new_order(&e2e::btc_order(
                cl,
                Side::Buy,
                OrdType::Limit,
                TimeInForce::Ioc,
                Some("60000"),
                "0.001",
            ))
            .unwrap();
    };
    for _ in 0..8 {
        ioc(&mut taker);
    }
    let cl = send_mass_cancel(&mut maker, MassCancelRequestType::Session, "", None);
    for _ in 0..8 {
        ioc(&mut taker);
    }
    let (report, terminal) = collect_mass_cancel(&mut maker, cl, &makers);
    assert_eq!(report.mass_cancel_response, MassCancelResponse::Session);

    let mut cancelled = 0u32;
    let mut filled = 0u32;
    for cl in &makers {
        let ers = &terminal[cl];
        assert_eq!(ers.len(), 1, "order {cl}: {ers:?}");
        match ers[0].exec_type {
            ExecType::Canceled => cancelled += 1,
            ExecType::Fill => filled += 1,
            other => panic!("order {cl}: terminal {other:?}"),
        }
    }
    assert_eq!(cancelled + filled, n);
    assert_eq!(report.total_affected_orders, cancelled);

    // No late duplicate and nothing open on the gateway: the status answer comes after any
    // report the tracker still had for these orders.
    let id = send_mass_status(&mut maker, MassStatusReqType::Session, "", false);
    match maker.next_message() {
        Received::MassStatusEnd(end) => {
            assert_eq!(end.mass_status_req_id, id);
            assert_eq!(end.tot_num_reports, 0);
        }
        other => panic!("after the mass cancel: {other:?}"),
    }
    assert!(venue_open_orders(&h).is_empty());
}

#[test]
fn mass_status_with_and_without_refresh() {
    let h = Harness::quiet();
    let mut s1 = h.client(1);
    let mut s2 = h.client(2);
    let a = rest_btc(&mut s1, Side::Sell, "60000");
    let partial = rest_on(&mut s1, "BTCUSDT", Side::Sell, "60001", "0.003");
    let other = rest_btc(&mut s2, Side::Buy, "50000");
    // Fill `a` fully and `partial` by 0.001.
    let t = s2.limit(Side::Buy, TimeInForce::Ioc, "60001", "0.002");
    let mut filled = Vec::new();
    while filled.len() < 2 {
        let er = s1.exec();
        assert!(matches!(
            er.exec_type,
            ExecType::Fill | ExecType::PartialFill
        ));
        filled.push(er.cl_ord_id);
    }
    assert_eq!(sorted(filled), sorted(vec![a, partial]));
    let _ = t;

    // A foreign order on the same account, placed over REST outside the gateway.
    let rest = rest_client(&h);
    let body = r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"40000","qty":"0.002","clientOid":"manual-1"}"#;
    h.rt.block_on(rest.signed_post("/api/v3/trade/place-order", body, SystemTime::now()))
        .unwrap();

    // Session scope, tracker only.
    let id = send_mass_status(&mut s1, MassStatusReqType::Session, "", false);
    let (reports, end) = collect_mass_status(&mut s1, id);
    assert_eq!(
        (end.request_status, end.tot_num_reports),
        (ItemStatus::Accepted, 1)
    );
    let p = &reports[0];
    assert_eq!(p.cl_ord_id, partial);
    assert_eq!(p.ord_status, OrdStatus::PartiallyFilled);
    assert_eq!((p.cum_qty, p.leaves_qty), (d("0.001"), d("0.002")));
    assert_eq!(p.avg_px, Some(d("60001")));
    assert_ne!(p.order_id, 0);

    // Account scope without refresh: both sessions' open orders, not the foreign one.
    let id = send_mass_status(&mut s1, MassStatusReqType::Account, "", false);
    let (reports, end) = collect_mass_status(&mut s1, id);
    assert_eq!(end.tot_num_reports, 2);
    assert_eq!(
        sorted(reports.iter().map(|r| r.cl_ord_id).collect()),
        sorted(vec![partial, other])
    );

    // Account scope with refresh: the foreign order too, with ClOrdID 0 and its OrderID.
    let id = send_mass_status(&mut s1, MassStatusReqType::Account, "", true);
    let (reports, end) = collect_mass_status(&mut s1, id);
    assert_eq!(
        (end.request_status, end.tot_num_reports),
        (ItemStatus::Accepted, 3)
    );
    let foreign: Vec<_> = reports.iter().filter(|r| r.cl_ord_id == 0).collect();
    assert_eq!(foreign.len(), 1);
    let venue_foreign = venue_open_orders(&h)
        .into_iter()
        .find(|o| o.client_oid == "manual-1")
        .unwrap();
    assert_eq!(foreign[0].order_id, venue_foreign.order_id);
    assert_eq!(foreign[0].order_qty, d("0.002"));
    assert_eq!(foreign[0].ord_status, OrdStatus::New);
    assert!(!foreign[0].text.as_str().is_empty());

    // Symbol scope with refresh: this session's BTCUSDT orders only.
    let id = send_mass_status(&mut s1, MassStatusReqType::Symbol, "BTCUSDT", true);
    let (reports, end) = collect_mass_status(&mut s1, id);
    assert_eq!(end.tot_num_reports, 1);
    assert_eq!(reports[0].cl_ord_id, partial);
}

#[test]
fn mass_status_refresh_failure_is_rejected() {
    let mut h = Harness::quiet();
    let mut s = h.client(1);
    rest_btc(&mut s, Side::Buy, "50000");
    h.stop_sim();
    let id = send_mass_status(&mut s, MassStatusReqType::Session, "", true);
    loop {
        match s.next_message() {
            Received::MassStatusEnd(end) => {
                assert_eq!(end.mass_status_req_id, id);
                assert_eq!(end.request_status, ItemStatus::Rejected);
                assert_eq!(end.tot_num_reports, 0);
                assert!(!end.text.as_str().is_empty());
                break;
            }
            Received::Exec(er) => panic!("no status report on a failed refresh: {er:?}"),
            _ => {}
        }
    }
    // Without the exchange, a mass cancel is not applied.
    let cl = send_mass_cancel(&mut s, MassCancelRequestType::Session, "", None);
    loop {
        if let Received::MassCancelReport(r) = s.next_message() {
            assert_eq!(r.cl_ord_id, cl);
            assert_eq!(r.mass_cancel_response, MassCancelResponse::Rejected);
            assert_eq!(
                r.mass_cancel_reject_reason,
                Some(MassCancelRejectReason::NotApplied)
            );
            break;
        }
    }
}

/// Reads the requester's messages until the OrderMassCancelReport of `cl`; returns the
/// terminal ExecutionReports (Canceled or Filled) that came before it, by ClOrdID. Any
/// OrderCancelReject fails the test.
fn terminals_before_report(
    s: &mut Strategy,
    cl: u64,
) -> (OrderMassCancelReport, HashMap<u64, ExecType>) {
    let mut before = HashMap::new();
    loop {
        match s.next_message() {
            Received::MassCancelReport(r) => {
                assert_eq!(r.cl_ord_id, cl);
                return (r, before);
            }
            Received::Exec(er) => {
                if matches!(er.ord_status, OrdStatus::Filled | OrdStatus::Canceled) {
                    let again = before.insert(er.cl_ord_id, er.exec_type);
                    assert!(again.is_none(), "two terminal reports: {er:?}");
                }
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// Issue 15: the exchange answers a `batch-cancel` before the order pushes that say
/// `cancelled`; the gateway holds the OrderMassCancelReport until each order the exchange
/// cancelled has had its Canceled report, so on the requester's session every Canceled comes
/// first. Three rounds of 20 orders on two symbols (one `batch-cancel` of 20): as the simulator
/// answers, with the pushes 200 ms late (well inside the push deadline), and in Account scope
/// with a second session's orders in it.
#[test]
fn every_canceled_report_precedes_the_mass_cancel_report() {
    let h = Harness::quiet();
    let mut s1 = h.client(1);
    let mut s2 = h.client(2);
    let rest_twenty = |s: &mut Strategy, round: usize| -> Vec<u64> {
        (0..20)
            .map(|i| {
                let step = round * 20 + i;
                if i % 2 == 0 {
                    rest_on(
                        s,
                        "BTCUSDT",
                        Side::Buy,
                        &(50_000 + step).to_string(),
                        "0.001",
                    )
                } else {
                    rest_on(s, "ETHUSDT", Side::Buy, &(1_900 + step).to_string(), "0.01")
                }
            })
            .collect()
    };
    for round in 0..3 {
        let mine = rest_twenty(&mut s1, round);
        let theirs: Vec<u64> = if round == 2 {
            (0..3)
                .map(|i| rest_btc(&mut s2, Side::Buy, &format!("4000{i}")))
                .collect()
        } else {
            Vec::new()
        };
        if round == 1 {
            h.sim().faults().delay_pushes(sim::Scope::All, 200).unwrap();
        }
        let scope = if round == 2 {
            MassCancelRequestType::Account
        } else {
            MassCancelRequestType::Session
        };
        let cl = send_mass_cancel(&mut s1, scope, "", None);
        let (report, before) = terminals_before_report(&mut s1, cl);
        h.sim().faults().clear();
        assert_eq!(report.mass_cancel_reject_reason, None, "round {round}");
        assert_eq!(
            report.total_affected_orders as usize,
            mine.len() + theirs.len(),
            "round {round}"
        );
        assert_eq!(
            sorted(before.keys().copied().collect()),
            mine,
            "round {round}: Canceled reports before the OrderMassCancelReport"
        );
        assert!(before.values().all(|t| *t == ExecType::Canceled));
        // Nothing for these orders after the report.
        let id = send_mass_status(&mut s1, MassStatusReqType::Session, "", false);
        let (reports, end) = collect_mass_status(&mut s1, id);
        assert_eq!(
            (reports.len(), end.tot_num_reports),
            (0, 0),
            "round {round}"
        );
        // The other session's orders report to it.
        expect_canceled(&mut s2, &theirs);
    }
    assert!(venue_open_orders(&h).is_empty());
}

/// A lost push (issue 15): with the simulator's pushes paused, the exchange cancels the orders
/// and answers the `batch-cancel`, but no push says so. The OrderMassCancelReport goes out at
/// the push deadline (300 ms here), not before, and the orders' Canceled reports follow from
/// querying them (as for any reply without its push); each order ends exactly once.
#[test]
fn a_lost_push_releases_the_mass_cancel_report_at_the_push_deadline() {
    let mut h = Harness::start_with(quiet_sim_config(), |s| {
        s.tracker.deadlines = Deadlines {
            reply_timeout_ms: 600,
            push_deadline_ms: 300,
        };
    });
    let mut s = h.client(1);
    let orders: Vec<u64> = (0..3)
        .map(|i| rest_btc(&mut s, Side::Buy, &format!("5000{i}")))
        .collect();
    h.sim().faults().pause_pushes(sim::Scope::All).unwrap();
    let sent = Instant::now();
    let cl = send_mass_cancel(&mut s, MassCancelRequestType::Session, "", None);
    let (report, before) = terminals_before_report(&mut s, cl);
    assert!(
        sent.elapsed() >= Duration::from_millis(300),
        "released before the push deadline: {:?}",
        sent.elapsed()
    );
    assert!(before.is_empty(), "{before:?}");
    assert_eq!(report.mass_cancel_response, MassCancelResponse::Session);
    assert_eq!(report.total_affected_orders, 3);
    let mut after = Vec::new();
    while after.len() < orders.len() {
        let er = s.exec();
        assert_eq!(er.exec_type, ExecType::Canceled, "{er:?}");
        after.push(er.cl_ord_id);
    }
    assert_eq!(sorted(after), orders);
    h.sim().faults().resume_pushes(sim::Scope::All).unwrap();
    s.expect_silence(Duration::from_millis(1_000));
    assert!(venue_open_orders(&h).is_empty());
    let stats = h.gw.take().unwrap().shutdown().tracker.unwrap().stats;
    assert!(stats.watchdog_ack_without_push >= 3, "{stats:?}");
}
