//! Recoverable sessions, end to end over the simulator: the gateway's application messages are
//! numbered across reconnects and journaled; what a disconnected session missed is resent on
//! RetransmitRequest with the original sequence numbers; a ClOrdID stays used across reconnects
//! and gateway restarts; a gap in the strategy's numbering is answered NotApplied.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use codec::sbe::{
    Category, CxlRejReason, ExecType, OrdRejReason, OrdType, OrderCancelRequest,
    RetransmitRejectCode, Side, Symbol, TimeInForce,
};
use e2e::{btc_order, credentials, quiet_sim_config, settings_for, Harness, Strategy, WAIT};
use gateway::engine::Gateway;
use strategy_client::{ClientOptions, Received, StrategyClient};

/// Settings tweak: journal in `dir`; no position / balance channels, so that the only
/// application messages are the test's own reports (exact sequence numbers).
fn journaled(s: &mut gateway::engine::EngineSettings, dir: PathBuf) {
    s.journal_dir = Some(dir);
    for a in &mut s.accounts {
        a.position_updates = false;
    }
}

/// A fresh journal directory for one test.
fn journal_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bgw-e2e-journal-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn options(session_id: u64) -> ClientOptions {
    ClientOptions {
        session_id,
        credentials: credentials(session_id),
        keepalive_ms: 1_000,
        auto_keepalive: true,
        timeout: WAIT,
    }
}

/// Establishes session `id` again (Establish.NextSeqNo = 1).
fn reconnect(h: &Harness, id: u64) -> Strategy {
    h.client(id)
}

/// Reconnects until the gateway's EstablishmentAck announces at least `want` (the reports
/// produced while disconnected have all been numbered), ending each early attempt with
/// Terminate (no cancel on disconnect).
fn reconnect_when_next_seq_reaches(h: &Harness, id: u64, want: u64) -> Strategy {
    let deadline = Instant::now() + WAIT;
    loop {
        let mut s = reconnect(h, id);
        if s.c.next_seq_from_gateway >= want || Instant::now() > deadline {
            return s;
        }
        s.c.terminate().unwrap();
        // Wait for the gateway's Terminate answer (the connection then closes).
        while let Ok(Some(m)) = s.c.recv(WAIT) {
            if matches!(m, Received::Terminate(_)) {
                break;
            }
        }
        drop(s);
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Rests a far-away buy and waits for its New; returns (ClOrdID, sequence number of the New).
fn rest_one(s: &mut Strategy) -> (u64, u64) {
    let cl = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    let er = s.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (cl, ExecType::New));
    (cl, s.c.last_seq())
}

#[test]
fn reports_produced_while_disconnected_are_retransmitted_with_their_original_numbers() {
    let dir = journal_dir("retransmit");
    let d2 = dir.clone();
    let h = Harness::start_with(quiet_sim_config(), move |s| journaled(s, d2));
    let mut s = h.client(1);
    assert_eq!(s.c.next_seq_from_gateway, 1);
    let mut cls = Vec::new();
    for n in 1..=3u64 {
        let (cl, seq) = rest_one(&mut s);
        assert_eq!(
            seq, n,
            "the gateway numbers its application messages from 1"
        );
        cls.push(cl);
    }
    let last = s.c.last_seq();
    // The connection drops without Terminate: cancel on disconnect cancels the three orders
    // while no socket is attached; their three Canceled reports are numbered and journaled
    // (cancel on disconnect answers no request: no OrderMassCancelReport).
    drop(s);
    let mut s = reconnect_when_next_seq_reaches(&h, 1, last + 4);
    let next = s.c.next_seq_from_gateway;
    assert_eq!(
        next,
        last + 4,
        "EstablishmentAck.NextSeqNo shows the three reports missed"
    );
    assert!(dir
        .join("session-1")
        .join("e0000000000-s0000000001.journal")
        .exists());
    let missed = u32::try_from(next - last - 1).unwrap();

    s.c.send_retransmit_request(last + 1, missed).unwrap();
    match s.next_message() {
        Received::Retransmission(r) => {
            assert_eq!(
                (r.next_seq_no, r.count, r.session_id),
                (last + 1, missed, 1)
            );
        }
        other => panic!("expected Retransmission, got {other:?}"),
    }
    let mut canceled = Vec::new();
    for n in 1..=u64::from(missed) {
        let m = s.next_message();
        assert_eq!(s.c.last_seq(), last + n, "original sequence number");
        match m {
            Received::Exec(er) if er.exec_type == ExecType::Canceled => canceled.push(er.cl_ord_id),
            other => panic!("unexpected resent message {other:?}"),
        }
    }
    canceled.sort_unstable();
    assert_eq!(canceled, cls, "exactly the missed Canceled reports");
    // The Sequence after the resent block brings the numbering back to the live one.
    let deadline = Instant::now() + WAIT;
    while s.c.next_in_seq() != next && Instant::now() < deadline {
        let _ = s.c.recv(Duration::from_millis(50)).unwrap();
    }
    assert_eq!(s.c.next_in_seq(), next);

    // Out of range (beyond the last message sent) → RetransmitReject.
    s.c.send_retransmit_request(last + 2, missed).unwrap();
    match s.next_message() {
        Received::RetransmitReject(r) => assert_eq!(r.code, RetransmitRejectCode::OutOfRange),
        other => panic!("expected RetransmitReject, got {other:?}"),
    }
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_clordid_used_before_a_reconnect_is_refused_and_never_sent() {
    let h = Harness::quiet();
    let mut s = h.client(2);
    let (cl, _) = rest_one(&mut s);
    assert_eq!(cl, 1);
    s.c.terminate().unwrap();
    drop(s);
    let placed = h.sim().stats().orders_received;

    // A new connection of the same session starts its ClOrdIDs at 1 again.
    let mut s = reconnect(&h, 2);
    let again = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    assert_eq!(again, cl);
    let er = s.exec();
    assert_eq!(er.exec_type, ExecType::Rejected);
    assert_eq!(er.ord_rej_reason, Some(OrdRejReason::DuplicateOrder));
    // A fresh ClOrdID still goes through, so the duplicate had its turn at the exchange.
    let (fresh, _) = rest_one(&mut s);
    assert_eq!(fresh, 2);
    assert_eq!(
        h.sim().stats().orders_received,
        placed + 1,
        "the simulator saw one place for the reused ClOrdID's clientOid"
    );
}

/// What a strategy does after a reconnect with a cancel that got no answer: it sends the same
/// request again. If the gateway had it, the resend is refused DuplicateClOrdID and never reaches
/// the exchange; if not (the connection broke first), it is applied. (The soak strategy relies on
/// this; before it resent such cancels, their orders held its window open until the run stalled.)
#[test]
fn a_cancel_resent_after_a_reconnect_is_refused_if_seen_and_applied_if_not() {
    let h = Harness::quiet();
    let mut s = h.client(2);
    let (a, _) = rest_one(&mut s);
    let (b, _) = rest_one(&mut s);
    let cancel = |cl_ord_id: u64, orig_cl_ord_id: u64| OrderCancelRequest {
        cl_ord_id,
        orig_cl_ord_id,
        transact_time: 0,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        category: Category::UsdtFutures,
        side: Side::Buy,
    };
    s.c.send_cancel(&cancel(100, a)).unwrap();
    let er = s.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (100, ExecType::Canceled));
    s.c.terminate().unwrap();
    drop(s);
    let cancelled = h.sim().stats().orders_cancelled;

    let mut s = reconnect(&h, 2);
    // Seen before the reconnect: refused, not sent again.
    s.c.send_cancel(&cancel(100, a)).unwrap();
    let r = s.cancel_reject();
    assert_eq!(
        (r.cl_ord_id, r.orig_cl_ord_id, r.cxl_rej_reason),
        (100, a, CxlRejReason::DuplicateClOrdID),
        "{r:?}"
    );
    assert_eq!(h.sim().stats().orders_cancelled, cancelled);
    // Never seen: applied.
    s.c.send_cancel(&cancel(101, b)).unwrap();
    let er = s.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (101, ExecType::Canceled));
    assert_eq!(h.sim().stats().orders_cancelled, cancelled + 1);
    s.expect_silence(Duration::from_millis(200));
}

#[test]
fn a_gap_in_the_strategys_numbering_is_answered_not_applied() {
    let h = Harness::quiet();
    let mut s = h.client(3);
    rest_one(&mut s);
    rest_one(&mut s);
    s.c.terminate().unwrap();
    drop(s);
    // The gateway expects the strategy's message 3; it says its next is 10: 3..=9 not applied.
    let c = StrategyClient::connect_at(h.gateway().strategy_addr(), &options(3), 10).unwrap();
    let mut s = Strategy::from_client(c);
    match s.next_message() {
        Received::NotApplied(n) => assert_eq!((n.from_seq_no, n.count), (3, 7)),
        other => panic!("expected NotApplied, got {other:?}"),
    }
}

#[test]
fn a_restarted_gateway_continues_numbering_refuses_used_clordids_and_retransmits() {
    let dir = journal_dir("restart");
    let d2 = dir.clone();
    let mut h = Harness::start_with(quiet_sim_config(), move |s| journaled(s, d2));
    let mut s = h.client(4);
    let (cl1, seq1) = rest_one(&mut s);
    let (_cl2, seq2) = rest_one(&mut s);
    assert_eq!((seq1, seq2), (1, 2));
    s.c.terminate().unwrap();
    drop(s);

    // Restart: a new gateway on the same journal directory.
    h.gw.take().unwrap().shutdown();
    let mut settings = settings_for(h.sim(), "demo-secret");
    journaled(&mut settings, dir.clone());
    h.gw = Some(Gateway::start(settings).expect("gateway restarts"));

    let mut s = reconnect(&h, 4);
    assert_eq!(
        s.c.next_seq_from_gateway, 3,
        "the outbound sequence continues"
    );
    let placed = h.sim().stats().orders_received;
    s.c.send_new_order(&btc_order(
        cl1,
        Side::Buy,
        OrdType::Limit,
        TimeInForce::Gtc,
        Some("50000"),
        "0.001",
    ))
    .unwrap();
    let er = s.exec();
    assert_eq!(
        (er.cl_ord_id, er.exec_type, er.ord_rej_reason),
        (cl1, ExecType::Rejected, Some(OrdRejReason::DuplicateOrder))
    );
    assert_eq!(s.c.last_seq(), 3);
    assert_eq!(h.sim().stats().orders_received, placed, "never sent");

    // The messages sent before the restart come back from the journal.
    s.c.send_retransmit_request(1, 2).unwrap();
    match s.next_message() {
        Received::Retransmission(r) => assert_eq!((r.next_seq_no, r.count), (1, 2)),
        other => panic!("expected Retransmission, got {other:?}"),
    }
    let first = s.exec();
    assert_eq!((first.cl_ord_id, first.exec_type), (cl1, ExecType::New));
    assert_eq!(s.c.last_seq(), 1);
    let second = s.exec();
    assert_eq!(second.exec_type, ExecType::New);
    assert_eq!(s.c.last_seq(), 2);
    drop(s);
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
}
