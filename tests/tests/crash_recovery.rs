//! Crash recovery, end to end over the simulator: a gateway started on the journal of a
//! previous one rebuilds its orders from the journaled ExecutionReports, reconciles with the
//! exchange before accepting strategies, and reports what happened while it was down exactly
//! once (retransmitted on request); an order whose ClOrdID was journaled but never reported is
//! looked up by clientOid: taken over when the exchange has it, rejected NotApplied when not.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use codec::sbe::{ExecType, OrdRejReason, OrdStatus, Side, TimeInForce};
use e2e::{
    d, master_account_credentials, master_and_sub_sim_config, quiet_sim_config, settings_for,
    sub_account_credentials, Harness, Strategy,
};
use gateway::engine::{EngineSettings, Gateway};
use gateway::ids::ClientOid;
use gateway::journal::record::put_cl_ord_id;
use gateway::journal::segments::legacy_path;
use gateway::journal::store::MAGIC;
use strategy_client::{Handshake, Received, StrategyClient};

fn journaled(s: &mut EngineSettings, dir: PathBuf) {
    s.journal_dir = Some(dir);
    for a in &mut s.accounts {
        a.position_updates = false;
    }
    for g in &mut s.sessions {
        // The gateway stopping is not the strategy leaving: keep the orders.
        g.cancel_on_disconnect = false;
    }
    s.tracker.deadlines.push_deadline_ms = 300;
}

fn journal_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bgw-e2e-crash-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn restart(h: &mut Harness, dir: &std::path::Path) {
    if let Some(gw) = h.gw.take() {
        gw.shutdown();
    }
    let mut settings = settings_for(h.sim(), "demo-secret");
    journaled(&mut settings, dir.to_path_buf());
    h.gw = Some(Gateway::start(settings).expect("gateway restarts"));
}

#[test]
fn changes_while_the_gateway_was_down_are_reported_once_after_the_restart() {
    let dir = journal_dir("down");
    let d2 = dir.clone();
    let mut h = Harness::start_with(master_and_sub_sim_config(), move |s| journaled(s, d2));
    let mut s = h.client(4);
    let a = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.002");
    let a_new = s.exec();
    assert_eq!((a_new.cl_ord_id, a_new.exec_type), (a, ExecType::New));
    let b = s.limit(Side::Buy, TimeInForce::Gtc, "49000", "0.001");
    assert_eq!(s.exec().exec_type, ExecType::New);
    assert_eq!(s.c.last_seq(), 2);
    drop(s);
    if let Some(gw) = h.gw.take() {
        gw.shutdown();
    }

    // While no gateway runs: A is half filled by a crossing order (of the sub-account, without
    // self-trade prevention), B is cancelled.
    h.rest_post(
        sub_account_credentials(),
        "/api/v3/trade/place-order",
        r#"{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"sell","orderType":"limit","price":"50000","qty":"0.001","clientOid":"outside-1","stpMode":"none"}"#,
    );
    h.cancel_at_venue(4, b);

    restart(&mut h, &dir);
    let mut s = h.client(4);
    assert_eq!(
        s.c.next_seq_from_gateway, 5,
        "the two changes were numbered before the strategy came back"
    );
    let got = s.retransmitted(3, 2);
    let fill = got.iter().find(|r| r.cl_ord_id == a).expect("A reported");
    assert_eq!(fill.exec_type, ExecType::PartialFill);
    assert_eq!((fill.cum_qty, fill.leaves_qty), (d("0.001"), d("0.001")));
    assert_eq!(fill.order_id, a_new.order_id);
    let cancel = got.iter().find(|r| r.cl_ord_id == b).expect("B reported");
    assert_eq!(
        (cancel.exec_type, cancel.ord_status),
        (ExecType::Canceled, OrdStatus::Canceled)
    );
    s.expect_silence(Duration::from_millis(300));

    // A restarted gateway knows A: cancelling it works and reports once.
    // (A new Strategy numbers from 1 again: take a ClOrdID the session never used.)
    let cxl = 100;
    s.c.send_cancel(&codec::sbe::OrderCancelRequest {
        cl_ord_id: cxl,
        orig_cl_ord_id: a,
        transact_time: 0,
        symbol: codec::sbe::Symbol::new("BTCUSDT").unwrap(),
        category: codec::sbe::Category::UsdtFutures,
        side: Side::Buy,
    })
    .unwrap();
    let er = s.exec();
    assert_eq!((er.exec_type, er.cum_qty), (ExecType::Canceled, d("0.001")));
    assert_eq!(er.orig_cl_ord_id, a);
    s.expect_silence(Duration::from_millis(300));
    assert_eq!(h.sim().stats().repeated_client_oids, 0);
    drop(s);
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn clordids_journaled_without_a_report_are_taken_over_or_rejected_not_applied() {
    // The journal of a gateway killed between accepting two NewOrderSingles and journaling any
    // report: ClOrdID 7 reached the exchange, ClOrdID 8 did not. Written as a build before
    // journal segments wrote it (one file per session): read and moved into segments.
    let dir = journal_dir("unanswered");
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = MAGIC.to_vec();
    put_cl_ord_id(&mut bytes, 7, 7);
    put_cl_ord_id(&mut bytes, 8, 8);
    std::fs::write(legacy_path(&dir, 5), bytes).unwrap();

    let d2 = dir.clone();
    let (rt, sim) = e2e::start_sim(quiet_sim_config());
    let rest = {
        let tls = gateway::exchange::tls::client_config(Some(&sim.ca_cert_pem())).unwrap();
        gateway::exchange::RestClient::new(
            &sim.rest_url(),
            &tls,
            Duration::from_secs(5),
            Some(master_account_credentials()),
        )
        .unwrap()
    };
    rt.block_on(rest.signed_post(
        "/api/v3/trade/place-order",
        &format!(
            r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"48000","qty":"0.003","clientOid":"{}"}}"#,
            ClientOid::new(5, 7).as_str()
        ),
        SystemTime::now(),
    ))
    .unwrap();
    let mut settings = settings_for(&sim, "demo-secret");
    journaled(&mut settings, d2);
    let h = Harness {
        rt,
        sim: Some(sim),
        gw: Some(Gateway::start(settings).expect("gateway starts on the journal")),
    };
    let mut s = h.client(5);
    // Wait until both are settled (the NotApplied after the grace period), then fetch them.
    let deadline = std::time::Instant::now() + e2e::WAIT;
    let mut announced = s.c.next_seq_from_gateway;
    while announced < 3 && std::time::Instant::now() < deadline {
        drop(s);
        std::thread::sleep(Duration::from_millis(100));
        s = h.client(5);
        announced = s.c.next_seq_from_gateway;
    }
    assert_eq!(announced, 3, "one New and one Rejected were journaled");
    let got = s.retransmitted(1, 2);
    let taken = got.iter().find(|r| r.cl_ord_id == 7).expect("7 reported");
    assert_eq!(
        (taken.exec_type, taken.ord_status),
        (ExecType::New, OrdStatus::New)
    );
    assert_eq!(taken.symbol.as_str(), "BTCUSDT");
    assert_eq!(taken.order_qty, d("0.003"));
    let rejected = got.iter().find(|r| r.cl_ord_id == 8).expect("8 reported");
    assert_eq!(
        (rejected.exec_type, rejected.ord_rej_reason),
        (ExecType::Rejected, Some(OrdRejReason::NotApplied))
    );
    s.expect_silence(Duration::from_millis(300));
    assert_eq!(h.sim().stats().repeated_client_oids, 0);
    drop(s);
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Journal segments (issue 23): with segments of 2 KiB, three kept, the session's history
/// spans several rolled segments and the oldest are deleted before the restart. The restarted
/// gateway reads the newest segment only (its checkpoint holds the orders still open, placed
/// in segments that no longer exist), numbers on without a gap, reports what changed while it
/// was down exactly once, still knows every ClOrdID used, and says that messages before the
/// oldest kept segment are no longer kept.
#[test]
fn a_restart_across_rolled_and_deleted_segments_reports_each_change_exactly_once() {
    use gateway::journal::segments::{session_dir, SegmentPolicy};
    let dir = journal_dir("segments");
    let policy = SegmentPolicy {
        segment_bytes: 2048,
        keep_segments: 3,
        archive_dir: None,
    };
    let with_segments = |s: &mut EngineSettings, dir: PathBuf, policy: &SegmentPolicy| {
        journaled(s, dir);
        s.journal_segments = policy.clone();
    };
    let (d2, p2) = (dir.clone(), policy.clone());
    let mut h = Harness::start_with(master_and_sub_sim_config(), move |s| {
        with_segments(s, d2, &p2)
    });
    let mut s = h.client(4);
    let orders: Vec<u64> = (0..30)
        .map(|_| {
            let cl = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
            assert_eq!((s.exec().cl_ord_id, s.c.last_seq()), (cl, cl));
            cl
        })
        .collect();
    // Cancel the first 20 (ClOrdIDs 31..=50).
    for (i, &orig) in orders[..20].iter().enumerate() {
        let cl = 31 + i as u64;
        s.c.send_cancel(&codec::sbe::OrderCancelRequest {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            transact_time: 0,
            symbol: codec::sbe::Symbol::new("BTCUSDT").unwrap(),
            category: codec::sbe::Category::UsdtFutures,
            side: Side::Buy,
        })
        .unwrap();
        let er = s.exec();
        assert_eq!((er.cl_ord_id, er.exec_type), (cl, ExecType::Canceled));
    }
    assert_eq!(s.c.last_seq(), 50);
    drop(s);
    let sdir = session_dir(&dir, 4);
    let names = |d: &std::path::Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    // The journal thread rolls within a millisecond of a segment filling up (longer on a
    // loaded machine) and retires the oldest right after: waited for (up to 10 s) until the
    // retention holds, not caught between a roll and its retirement.
    let settled = |v: &[String]| v.len() == 3 && v[0] != "e0000000000-s0000000001.journal";
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !settled(&names(&sdir)) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    if let Some(gw) = h.gw.take() {
        gw.shutdown();
    }
    let kept = names(&sdir);
    assert_eq!(kept.len(), 3, "{kept:?}");
    assert_ne!(
        kept[0], "e0000000000-s0000000001.journal",
        "the oldest segments were deleted"
    );

    // While no gateway runs: 21 and 22 (placed in deleted segments) are cancelled.
    for cl in [orders[20], orders[21]] {
        h.cancel_at_venue(4, cl);
    }

    if let Some(gw) = h.gw.take() {
        gw.shutdown();
    }
    let mut settings = settings_for(h.sim(), "demo-secret");
    with_segments(&mut settings, dir.clone(), &policy);
    h.gw = Some(Gateway::start(settings).expect("gateway restarts"));
    let mut s = h.client(4);
    assert_eq!(
        s.c.next_seq_from_gateway, 53,
        "numbering continues; the two cancels were numbered before the strategy came back"
    );
    let got = s.retransmitted(51, 2);
    let mut cls: Vec<u64> = got.iter().map(|r| r.cl_ord_id).collect();
    cls.sort_unstable();
    assert_eq!(cls, [orders[20], orders[21]]);
    assert!(got.iter().all(|r| r.exec_type == ExecType::Canceled));
    s.expect_silence(Duration::from_millis(300));

    // Message 1 lived in a deleted segment.
    s.c.send_retransmit_request(1, 1).unwrap();
    match s.next_message() {
        Received::RetransmitReject(r) => {
            assert_eq!(r.code, codec::sbe::RetransmitRejectCode::Unavailable);
            assert!(
                r.reason.as_str().contains("no longer kept"),
                "{}",
                r.reason.as_str()
            );
        }
        other => panic!("expected RetransmitReject, got {other:?}"),
    }

    // Order 23, placed in a deleted segment, is known: its cancel works and reports once.
    s.c.send_cancel(&codec::sbe::OrderCancelRequest {
        cl_ord_id: 100,
        orig_cl_ord_id: orders[22],
        transact_time: 0,
        symbol: codec::sbe::Symbol::new("BTCUSDT").unwrap(),
        category: codec::sbe::Category::UsdtFutures,
        side: Side::Buy,
    })
    .unwrap();
    let er = s.exec();
    assert_eq!(
        (er.cl_ord_id, er.orig_cl_ord_id, er.exec_type),
        (100, orders[22], ExecType::Canceled)
    );
    assert_eq!(s.c.last_seq(), 53);
    // ClOrdID 5 (an order cancelled long ago, in a deleted segment) stays used.
    let placed = h.sim().stats().orders_received;
    s.c.send_new_order(&e2e::btc_order(
        5,
        Side::Buy,
        codec::sbe::OrdType::Limit,
        TimeInForce::Gtc,
        Some("50000"),
        "0.001",
    ))
    .unwrap();
    let er = s.exec();
    assert_eq!(
        (er.cl_ord_id, er.ord_rej_reason),
        (5, Some(OrdRejReason::DuplicateOrder))
    );
    s.expect_silence(Duration::from_millis(300));
    assert_eq!(h.sim().stats().orders_received, placed, "never sent");
    assert_eq!(h.sim().stats().repeated_client_oids, 0);
    drop(s);
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 37 ("Rollover after a crash", `docs/behaviour.md`): an order ends while its strategy
/// is away (cancelled at the exchange while the gateway is down, reported by the restart's
/// reconciliation, never read), the gateway dies again, and the strategy then asks for the next
/// epoch without catching up in the old one. The journal keeps the end as a held end, the
/// restarted tracker holds it, and the new epoch's OrderStatus reports tell it (before, the
/// checkpoint kept only the orders not ended and the new epoch left the order out).
#[test]
fn an_end_not_read_before_a_crash_is_reported_by_the_next_epoch() {
    let dir = journal_dir("held-end");
    let d2 = dir.clone();
    let mut h = Harness::start_with(master_and_sub_sim_config(), move |s| journaled(s, d2));
    let mut s = h.client(4);
    let b = s.limit(Side::Buy, TimeInForce::Gtc, "49000", "0.001");
    let b_new = s.exec();
    assert_eq!((b_new.cl_ord_id, b_new.exec_type), (b, ExecType::New));
    drop(s);
    if let Some(gw) = h.gw.take() {
        gw.shutdown();
    }
    h.cancel_at_venue(4, b);
    // The restart's reconciliation reports B Canceled (numbered, journaled, not read) ...
    restart(&mut h, &dir);
    // ... and the gateway stops again before the strategy is back.
    restart(&mut h, &dir);

    // The strategy asks for the next epoch at once.
    let c = StrategyClient::connect_with(
        h.gateway().strategy_addr(),
        &Harness::client_options(4),
        Handshake {
            session_ver_id: 1,
            ..Handshake::default()
        },
    )
    .unwrap();
    let mut s = Strategy::from_client(c);
    assert_eq!(s.c.session_ver_id(), 1);
    let next = s.c.next_in_seq();
    if next > 1 {
        s.c.send_retransmit_request(1, u32::try_from(next - 1).unwrap())
            .unwrap();
    }
    // (A deadline of its own: the keepalives would keep `next_message` waiting for ever.)
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        let left = deadline
            .checked_duration_since(std::time::Instant::now())
            .expect("no OrderStatus within 10 s: the end was left out of the new epoch");
        match s.c.recv(left).expect("recv") {
            Some(Received::Exec(er)) => break er,
            Some(Received::Sequence(_) | Received::Retransmission(_)) | None => continue,
            Some(other) => panic!("expected ExecutionReport, got {other:?}"),
        }
    };
    assert_eq!(
        (status.cl_ord_id, status.exec_type, status.ord_status),
        (b, ExecType::OrderStatus, OrdStatus::Canceled)
    );
    assert_eq!(status.order_id, b_new.order_id);
    s.expect_silence(Duration::from_millis(300));
    assert_eq!(h.sim().stats().repeated_client_oids, 0);
    drop(s);
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
}
