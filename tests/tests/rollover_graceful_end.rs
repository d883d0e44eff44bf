//! The graceful end of an epoch (issue 37 item 4): a scheduled rollover's Terminate reaches a
//! strategy that is behind in reading and keeps sending, and so does every message numbered
//! before it. The gateway writes what it queued, shuts down its write half and reads (and
//! discards) what the strategy still sends until the strategy closes
//! (`gateway_core::session::epoch_end`). Before, it closed the socket with the strategy's
//! frames unread: the kernel answered with a reset and dropped what it had not sent yet, the
//! Terminate and the epoch's last reports among them (the soak's lost Fill and Canceled).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use codec::sbe::{
    BoolFlag, ExecType, MassStatusReqType, OrderMassStatusRequest, Symbol, TerminationCode,
};
use e2e::{resting_buy, Harness, Strategy};
use strategy_client::{ClientError, Handshake, Received, StrategyClient};

/// Rollover period of the test's schedule, ms.
const PERIOD_MS: u64 = 4_000;
/// Orders resting, each reported OrderStatus by every OrderMassStatusRequest.
const ORDERS: u64 = 50;

fn utc_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// Sleeps until UTC ms `at`.
fn sleep_until(at: u64) {
    let now = utc_ms();
    if at > now {
        std::thread::sleep(Duration::from_millis(at - now));
    }
}

fn connect(h: &Harness) -> StrategyClient {
    StrategyClient::connect_with(
        h.gateway().strategy_addr(),
        &Harness::client_options(1),
        Handshake::default(),
    )
    .expect("connect")
}

#[test]
fn a_rollovers_terminate_and_what_precedes_it_reach_a_strategy_that_keeps_sending() {
    let h = Harness::start_with(e2e::quiet_sim_config(), |s| {
        s.rollover = format!("every {}s", PERIOD_MS / 1_000).parse().unwrap();
    });
    // The orders first, on a connection of their own (Terminate: they stay open), so that
    // their pace does not matter below.
    let mut s = Strategy::from_client(connect(&h));
    let epoch = s.c.session_ver_id();
    for cl in 1..=ORDERS {
        s.c.send_new_order(&resting_buy(cl)).unwrap();
    }
    for _ in 1..=ORDERS {
        assert_eq!(s.exec().exec_type, ExecType::New);
    }
    s.c.terminate().unwrap();
    drop(s);
    // Connect again once a boundary of the schedule has passed (a session whose strategy left
    // less than 10 s ago, AWAY_GRACE_MS, waits for it in the old epoch): the Terminate comes
    // once the strategy has been established for 1 s (CATCH_UP_MS; the connection checks every
    // 20 ms).
    sleep_until((utc_ms() / PERIOD_MS + 1) * PERIOD_MS + 50);
    let mut s = Strategy::from_client(connect(&h));
    let established = utc_ms();
    assert_eq!(s.c.session_ver_id(), epoch, "still the old epoch");

    // From 300 ms before the Terminate the strategy stops reading and keeps asking for the
    // status of its orders (about 9 kB of reports a request, every 5 ms): the gateway's
    // output piles up in its buffers when the Terminate is queued; the requests sent after it
    // are never read by the gateway.
    sleep_until(established + 700);
    let stop = Arc::new(AtomicBool::new(false));
    let mut tx = s.c.sender().unwrap();
    let sender = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut id = 1_000;
            while !stop.load(Ordering::Relaxed) {
                id += 1;
                let m = OrderMassStatusRequest {
                    mass_status_req_id: id,
                    transact_time: 0,
                    symbol: Symbol::EMPTY,
                    mass_status_req_type: MassStatusReqType::Session,
                    category: None,
                    refresh_from_exchange: BoolFlag::No,
                };
                if tx.send_frame(|b| m.encode_frame(b)).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    // Back to reading about 400 ms after the Terminate, within the gateway's grace (1 s).
    sleep_until(established + 1_400);
    let mut terminate = None;
    let mut after_terminate = 0;
    loop {
        match s.c.recv(Duration::from_secs(3)) {
            Ok(Some(Received::Terminate(t))) => {
                stop.store(true, Ordering::Relaxed);
                terminate = Some(t);
            }
            Ok(Some(_)) if terminate.is_some() => after_terminate += 1,
            Ok(Some(_)) => {}
            Ok(None) => panic!("neither end of stream nor a reset within 3 s"),
            Err(ClientError::Closed) => break,
            Err(e) => panic!(
                "the connection ended with {e} after message {} (Terminate: {terminate:?})",
                s.c.last_seq()
            ),
        }
    }
    stop.store(true, Ordering::Relaxed);
    sender.join().unwrap();
    let t = terminate.expect("the rollover's Terminate");
    assert_eq!(t.code, TerminationCode::SessionRollover);
    assert_eq!(after_terminate, 0, "nothing after the Terminate");
    let read = s.c.last_read();
    assert!(read.seq > ORDERS, "the status reports came: {read:?}");
    drop(s);

    // The next epoch's EstablishmentAck says where the old one ended: where the strategy
    // stopped reading.
    let c = connect(&h);
    assert!(c.session_ver_id() > epoch);
    let previous = c.previous_epoch().expect("a previous epoch");
    assert_eq!(previous, read, "every message of the old epoch was read");
}
