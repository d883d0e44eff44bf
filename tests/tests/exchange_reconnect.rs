//! Exchange reconnect over the real simulator (TLS): the gateway's private WebSocket is closed,
//! told `30033`, or silenced by simulator faults; the gateway reconnects with backoff, keeps the
//! account closed (NotApplied) until it is back and reconciled, and the strategy ends up with
//! every missed change exactly once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant, SystemTime};

use codec::sbe::{ExecType, OrdRejReason, OrdStatus, Side, TimeInForce};
use e2e::{d, Harness, Strategy};
use gateway::engine::{EngineSettings, ReconnectStats};
use sim::Scope;
use strategy_client::Received;

/// The demo master account's uid (the gateway trades it).
const MASTER_UID: &str = "1000000001";
/// Generous deadline for the reconnect conditions.
const DEADLINE: Duration = Duration::from_secs(30);

/// Short reconnect delays and step deadlines, so that failed attempts retry quickly.
fn fast(s: &mut EngineSettings) {
    s.exchange.reconnect_min_ms = 50;
    s.exchange.reconnect_max_ms = 400;
    s.exchange.connect_timeout_ms = 1_000;
}

fn stats(h: &Harness) -> ReconnectStats {
    h.gateway().exchange_reconnects()[0]
}

/// Polls `cond` until it holds (panics with `what` after [`DEADLINE`]).
fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + DEADLINE;
    while !cond() {
        assert!(Instant::now() < end, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits until the account has completed `n` reconnects and is accepting requests again.
fn wait_back(h: &Harness, n: u64) {
    wait_until("reconnected and reconciled", || {
        stats(h).reconnects >= n && h.gateway().exchange_connected()
    });
}

/// The next application message within [`DEADLINE`] (keepalive Sequences skipped; the
/// harness's `next_message` would wait forever while they keep coming).
fn next_app(s: &mut Strategy) -> Received {
    let end = Instant::now() + DEADLINE;
    loop {
        let left = end
            .checked_duration_since(Instant::now())
            .expect("an application message in time");
        match s.c.recv(left).expect("recv") {
            Some(Received::Sequence(_)) | None => continue,
            Some(r) => return r,
        }
    }
}

/// Places a resting buy and checks it is acknowledged.
fn rest_buy(s: &mut Strategy, price: &str, qty: &str) -> u64 {
    let cl = s.limit(Side::Buy, TimeInForce::Gtc, price, qty);
    let er = s.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (cl, ExecType::New), "{er:?}");
    cl
}

/// Silences the master account and closes its sockets: reconnect attempts time out at the
/// login until [`end_outage`].
fn start_outage(h: &Harness) {
    h.sim()
        .faults()
        .silence(Scope::uid(MASTER_UID), true)
        .unwrap();
    h.sim()
        .faults()
        .close_connections(Scope::uid(MASTER_UID))
        .unwrap();
    wait_until("the gateway sees the drop", || {
        !h.gateway().exchange_connected()
    });
}

fn end_outage(h: &Harness) {
    h.sim()
        .faults()
        .silence(Scope::uid(MASTER_UID), false)
        .unwrap();
}

#[test]
fn closed_connections_reconnect_and_a_new_order_works() {
    let h = Harness::start_with(e2e::quiet_sim_config(), fast);
    let mut s = h.client(1);
    rest_buy(&mut s, "50000", "0.001");
    let before = h.sim().stats().ws_connections_total;
    assert!(h.sim().faults().close_connections(Scope::All).unwrap() >= 1);
    wait_back(&h, 1);
    let st = stats(&h);
    assert!(st.closed >= 1, "{st:?}");
    assert!(
        h.sim().stats().ws_connections_total > before,
        "a new socket"
    );
    rest_buy(&mut s, "49000", "0.001");
    // Twice more: the link survives repeated drops.
    for n in 2..=3 {
        h.sim().faults().close_connections(Scope::All).unwrap();
        wait_back(&h, n);
        rest_buy(&mut s, "48000", "0.001");
    }
}

#[test]
fn orders_while_the_link_is_down_are_not_applied_and_never_reach_the_exchange() {
    let h = Harness::start_with(e2e::quiet_sim_config(), fast);
    let mut s = h.client(1);
    rest_buy(&mut s, "50000", "0.001");
    start_outage(&h);
    let received = h.sim().stats().orders_received;
    for _ in 0..3 {
        let cl = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
        let er = s.exec();
        assert_eq!(er.cl_ord_id, cl);
        assert_eq!(er.exec_type, ExecType::Rejected);
        assert_eq!(er.ord_rej_reason, Some(OrdRejReason::NotApplied));
    }
    assert!(
        stats(&h).failed_attempts >= 1 || !h.gateway().exchange_connected(),
        "still down"
    );
    end_outage(&h);
    wait_back(&h, 1);
    assert_eq!(
        h.sim().stats().orders_received,
        received,
        "nothing sent while down"
    );
    rest_buy(&mut s, "49000", "0.001");
    assert_eq!(h.sim().stats().orders_received, received + 1);
}

/// Soak cause (issue 10): a strategy that re-sends, after its own reconnect, an order the
/// gateway had already sent got NotApplied while the link was down, then the order's real
/// outcome (resolution or reconciliation) as a second terminal report. A used ClOrdID is
/// answered DuplicateOrder whatever the link's state, and a ClOrdID refused while down stays
/// used.
#[test]
fn a_repeated_cl_ord_id_is_a_duplicate_even_while_the_link_is_down() {
    let h = Harness::start_with(e2e::quiet_sim_config(), fast);
    let mut s = h.client(1);
    let cl = rest_buy(&mut s, "50000", "0.001");
    start_outage(&h);
    let again = e2e::btc_order(
        cl,
        Side::Buy,
        codec::sbe::OrdType::Limit,
        TimeInForce::Gtc,
        Some("50000"),
        "0.001",
    );
    s.c.send_new_order(&again).expect("send");
    let er = s.exec();
    assert_eq!(er.cl_ord_id, cl);
    assert_eq!(er.exec_type, ExecType::Rejected);
    assert_eq!(
        er.ord_rej_reason,
        Some(OrdRejReason::DuplicateOrder),
        "{er:?}"
    );
    // Refused while down: NotApplied, and the ClOrdID is used from then on.
    let down = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    let er = s.exec();
    assert_eq!(
        (er.cl_ord_id, er.ord_rej_reason),
        (down, Some(OrdRejReason::NotApplied))
    );
    end_outage(&h);
    wait_back(&h, 1);
    let reused = e2e::btc_order(
        down,
        Side::Buy,
        codec::sbe::OrdType::Limit,
        TimeInForce::Gtc,
        Some("49000"),
        "0.001",
    );
    s.c.send_new_order(&reused).expect("send");
    let er = s.exec();
    assert_eq!(
        (er.cl_ord_id, er.ord_rej_reason),
        (down, Some(OrdRejReason::DuplicateOrder)),
        "{er:?}"
    );
    s.expect_silence(Duration::from_millis(300));
}

#[test]
fn a_fill_missed_while_down_reaches_the_strategy_exactly_once() {
    let h = Harness::start_with(e2e::master_and_sub_sim_config(), fast);
    let mut s = h.client(1);
    let cl = rest_buy(&mut s, "50000", "0.002");
    start_outage(&h);
    // Another account takes the resting order while the gateway cannot see the pushes.
    let sub = h.rest_client(e2e::sub_account_credentials());
    let body = r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"sell","orderType":"limit","price":"50000","qty":"0.002","stpMode":"none","clientOid":"sub-taker-1"}"#;
    h.rt.block_on(sub.signed_post("/api/v3/trade/place-order", body, SystemTime::now()))
        .expect("crossing order");
    wait_until("the sim fills the order", || h.sim().stats().fills >= 2);
    end_outage(&h);
    wait_back(&h, 1);
    // Exactly one Fill for the order, with the full quantity.
    let Received::Exec(er) = next_app(&mut s) else {
        panic!("expected the Fill");
    };
    assert_eq!(er.cl_ord_id, cl, "{er:?}");
    assert_eq!(er.exec_type, ExecType::Fill, "{er:?}");
    assert_eq!(er.ord_status, OrdStatus::Filled);
    assert_eq!(er.cum_qty, d("0.002"));
    assert_eq!(er.leaves_qty, d("0"));
    // A new order after the reconnect is acknowledged, and no second report for `cl` came in
    // between or follows.
    let next = s.limit(Side::Buy, TimeInForce::Gtc, "40000", "0.001");
    let mut fills = 0;
    loop {
        match next_app(&mut s) {
            Received::Exec(er) if er.cl_ord_id == next => {
                assert_eq!(er.exec_type, ExecType::New);
                break;
            }
            Received::Exec(er) if er.cl_ord_id == cl => fills += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(fills, 0, "the missed fill was reported once");
    s.expect_silence(Duration::from_millis(500));
}

#[test]
fn an_upgrade_notice_reconnects_before_the_exchange_drops_the_socket() {
    let h = Harness::start_with(e2e::quiet_sim_config(), fast);
    let mut s = h.client(1);
    // Bitget closes about 60 s after the notice; the gateway must not wait for that.
    assert!(
        h.sim()
            .faults()
            .service_upgrade(Scope::All, 60_000)
            .unwrap()
            >= 1
    );
    wait_back(&h, 1);
    let st = stats(&h);
    assert!(st.upgrade_notice >= 1, "{st:?}");
    rest_buy(&mut s, "50000", "0.001");
}

#[test]
fn a_silent_stream_is_detected_and_reconnected() {
    let h = Harness::start_with(e2e::quiet_sim_config(), |st| {
        fast(st);
        st.exchange.ping_interval_ms = 200;
        st.exchange.silence_timeout_ms = 1_000;
    });
    let mut s = h.client(1);
    rest_buy(&mut s, "50000", "0.001");
    // The socket stays open but nothing comes back, not even `pong`.
    h.sim()
        .faults()
        .silence(Scope::uid(MASTER_UID), true)
        .unwrap();
    wait_until("silence detected", || stats(&h).silent >= 1);
    assert!(!h.gateway().exchange_connected() || stats(&h).reconnects >= 1);
    end_outage(&h);
    wait_back(&h, 1);
    rest_buy(&mut s, "49000", "0.001");
}
