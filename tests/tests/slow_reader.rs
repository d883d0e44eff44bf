//! A strategy that stops reading, over real sockets: once its unread output passes
//! `[strategy] max_backlog_bytes` the gateway sends Terminate (after the rest of the frame the
//! strategy already has part of) and closes; the messages it dropped stay journaled, so the
//! session gets them back by RetransmitRequest after reconnecting; other sessions keep trading.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use codec::sbe::{ExecType, Side, TerminationCode, TimeInForce};
use e2e::{quiet_sim_config, unknown_symbol_order, Harness, Strategy, WAIT};
use strategy_client::Received;

/// Orders refused before the exchange (unknown symbol): one Rejected report each, at once.
const REJECTED: u64 = 1_000;

/// Sends `n` orders for an unknown symbol and reads their Rejected reports.
fn rejected_orders(s: &mut Strategy, n: u64) {
    for _ in 0..n {
        let cl = s.next_cl();
        let o = unknown_symbol_order(cl);
        s.c.send_new_order(&o).unwrap();
    }
    for _ in 0..n {
        assert_eq!(s.exec().exec_type, ExecType::Rejected);
    }
}

#[test]
fn a_strategy_that_stops_reading_gets_terminate_and_loses_nothing() {
    let h = Harness::start_with(quiet_sim_config(), |s| s.max_backlog = 64 * 1024);
    let mut slow = h.client(1);
    rejected_orders(&mut slow, REJECTED);
    assert_eq!(slow.c.last_seq(), REJECTED);

    // Stop reading and ask for everything again, many times: far more than the kernel's
    // buffers and the backlog limit hold (each answer is ~REJECTED reports).
    for _ in 0..120 {
        slow.c.send_retransmit_request(1, REJECTED as u32).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));

    // Reading now (within the gateway's drain grace): whole frames, then Terminate, then EOF.
    let mut frames = 0u64;
    let terminate = loop {
        match slow.c.recv(WAIT) {
            Ok(Some(Received::Terminate(t))) => break t,
            Ok(Some(_)) => frames += 1,
            Ok(None) => panic!("no Terminate within {WAIT:?} after {frames} frames"),
            Err(e) => panic!("connection broke before a Terminate after {frames} frames: {e}"),
        }
    };
    assert_eq!(terminate.code, TerminationCode::UnspecifiedError);
    assert!(
        terminate.reason.as_str().contains("max_backlog_bytes"),
        "{:?}",
        terminate.reason.as_str()
    );
    assert!(
        frames < 120 * (REJECTED + 2),
        "the unread output was cut ({frames} frames arrived)"
    );
    assert!(
        !matches!(slow.c.recv(Duration::from_secs(2)), Ok(Some(_))),
        "nothing after the Terminate"
    );
    drop(slow);

    // Nothing was lost: the session reconnects and every report is there, with its number.
    let mut again = h.client(1);
    assert!(again.c.next_seq_from_gateway > REJECTED);
    again.c.send_retransmit_request(1, REJECTED as u32).unwrap();
    let mut resent = 0u64;
    while resent < REJECTED {
        match again.next_message() {
            Received::Retransmission(r) => assert_eq!(r.next_seq_no, 1),
            Received::Exec(er) => {
                resent += 1;
                assert_eq!(er.exec_type, ExecType::Rejected);
                assert_eq!(again.c.last_seq(), resent);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    // The gateway serves the others as before.
    let mut other = h.client(2);
    let cl = other.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    let er = other.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (cl, ExecType::New));
}
