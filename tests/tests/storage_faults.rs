//! Storage faults end to end (issue 37; `docs/behaviour.md` "Storage faults"): the gateway's
//! journal on a small tmpfs, filled while a strategy trades over real sockets against the
//! simulator over TLS, then freed; and the same through a restart. The strategy side checks
//! that no message reached it unjournaled and that every sequence number keeps its content
//! across the restart; the simulator that nothing new was placed while the journal failed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use codec::sbe::{ExecType, OrdRejReason, OrderCancelRequest, Side, TimeInForce};
use e2e::{quiet_sim_config, settings_for, Harness, Strategy, Tmpfs};
use gateway::engine::{EngineSettings, Gateway};
use strategy_client::Received;

fn settings(s: &mut EngineSettings, dir: PathBuf) {
    s.journal_dir = Some(dir);
    s.metrics_listen = Some("127.0.0.1:0".parse().unwrap());
    for g in &mut s.sessions {
        // The gateway stopping is not the strategy leaving: keep the orders.
        g.cancel_on_disconnect = false;
    }
    s.tracker.deadlines.push_deadline_ms = 300;
}

/// GET `path` on the metrics endpoint: (status, body).
fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text[9..12].parse().unwrap();
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_owned();
    (status, body)
}

fn wait_for(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What the strategy received, by sequence number (each message's whole content).
#[derive(Default)]
struct Seen(Vec<(u64, String)>);

impl Seen {
    /// The next application message within `wait` (keepalives skipped), recorded.
    fn next(&mut self, s: &mut Strategy, wait: Duration) -> Option<Received> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            match s.c.recv(left).expect("recv") {
                Some(Received::Sequence(_)) => continue,
                Some(m) => {
                    let seq = s.c.last_seq();
                    if let Some(&(last, _)) = self.0.last() {
                        assert_eq!(seq, last + 1, "sequence numbers contiguous: {m:?}");
                    }
                    self.0.push((seq, format!("{m:?}")));
                    return Some(m);
                }
                None => return None,
            }
        }
    }
}

fn cancel(s: &mut Strategy, orig: u64) -> u64 {
    let cl = s.next_cl();
    let m = OrderCancelRequest {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        transact_time: 0,
        symbol: codec::sbe::Symbol::new("BTCUSDT").unwrap(),
        category: codec::sbe::Category::UsdtFutures,
        side: Side::Buy,
    };
    s.c.send_cancel(&m).expect("cancel sent");
    cl
}

/// Places resting buys until one gets no answer within 1 s: the journal is full (its last
/// page taken). Returns the ClOrdIDs that were answered New.
fn trade_until_the_journal_fails(
    s: &mut Strategy,
    seen: &mut Seen,
    metrics: SocketAddr,
) -> Vec<u64> {
    let mut open = Vec::new();
    for i in 0..200 {
        let price = format!("{}", 40_000 + i);
        let cl = s.limit(Side::Buy, TimeInForce::Gtc, &price, "0.001");
        match seen.next(s, Duration::from_secs(1)) {
            Some(Received::Exec(er)) if er.exec_type == ExecType::New => open.push(cl),
            Some(other) => panic!("unexpected {other:?}"),
            None => {
                let (status, body) = get(metrics, "/readyz");
                assert_eq!(status, 503, "no answer but ready: {body}");
                assert!(
                    body.contains("journal failing (session 1: ENOSPC on append)"),
                    "{body}"
                );
                return open;
            }
        }
    }
    panic!("the journal never failed");
}

fn journal_errors(metrics: SocketAddr) -> f64 {
    let (_, text) = get(metrics, "/metrics");
    text.lines()
        .find(|l| l.starts_with("bgw_journal_errors_total{session=\"1\",error=\"ENOSPC\"}"))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
        .unwrap_or(0.0)
}

#[test]
fn a_full_disk_refuses_new_risk_holds_reports_and_recovers_without_reusing_a_number() {
    let Some(fs) = Tmpfs::mount("e2e-enospc", 256) else {
        return;
    };
    let dir = fs.dir.join("journal");
    let d2 = dir.clone();
    let mut h = Harness::start_with(quiet_sim_config(), move |s| settings(s, d2));
    let metrics = h.gateway().metrics_addr().unwrap();
    let mut s = h.client(1);
    let mut seen = Seen::default();
    assert_eq!(get(metrics, "/readyz").0, 200);

    // --- the disk fills during trading, then has room again ---------------------------------
    let filler = fs.fill();
    let open = trade_until_the_journal_fails(&mut s, &mut seen, metrics);
    assert!(
        open.len() >= 2,
        "orders answered before the fault: {open:?}"
    );
    let (_, text) = get(metrics, "/metrics");
    assert!(
        text.contains("bgw_journal_failing{session=\"1\",error=\"ENOSPC\",op=\"append\"} 1"),
        "{text}"
    );
    let placed_at_fault = h.sim().stats().orders_placed;
    let cancelled_at_fault = h.sim().stats().orders_cancelled;
    // New orders are refused (their answers held); a cancel reaches the exchange.
    let refused: Vec<u64> = (0..3)
        .map(|_| s.limit(Side::Buy, TimeInForce::Gtc, "39000", "0.001"))
        .collect();
    let cancelled = open[0];
    cancel(&mut s, cancelled);
    wait_for(
        "the cancel reaches the exchange",
        Duration::from_secs(5),
        || h.sim().stats().orders_cancelled > cancelled_at_fault,
    );
    assert!(
        seen.next(&mut s, Duration::from_millis(500)).is_none(),
        "held"
    );
    assert_eq!(
        h.sim().stats().orders_placed,
        placed_at_fault,
        "nothing new placed"
    );
    assert_eq!(get(metrics, "/readyz").0, 503);

    std::fs::remove_file(&filler).unwrap();
    // The held messages arrive in order, on their own (the journal thread's retry).
    let mut rejected = Vec::new();
    let mut canceled = false;
    while !(canceled && rejected.len() == refused.len()) {
        match seen
            .next(&mut s, Duration::from_secs(3))
            .expect("held messages sent")
        {
            Received::Exec(er) if er.exec_type == ExecType::Canceled => {
                assert!(
                    er.orig_cl_ord_id == cancelled || er.cl_ord_id == cancelled,
                    "{er:?}"
                );
                canceled = true;
            }
            Received::Exec(er) if er.exec_type == ExecType::Rejected => {
                if refused.contains(&er.cl_ord_id) {
                    assert_eq!(er.ord_rej_reason, Some(OrdRejReason::NotApplied));
                    assert_eq!(
                        er.text.as_str(),
                        "journal failing (ENOSPC): no new risk until it recovers"
                    );
                    rejected.push(er.cl_ord_id);
                }
            }
            Received::Exec(_) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(rejected, refused);
    wait_for("ready again", Duration::from_secs(3), || {
        get(metrics, "/readyz").0 == 200
    });
    assert!(journal_errors(metrics) >= 1.0);
    let after = s.limit(Side::Buy, TimeInForce::Gtc, "41000", "0.001");
    match seen.next(&mut s, Duration::from_secs(5)) {
        Some(Received::Exec(er)) => {
            assert_eq!((er.cl_ord_id, er.exec_type), (after, ExecType::New))
        }
        other => panic!("expected New, got {other:?}"),
    }

    // --- full again, and the gateway restarts while it is -----------------------------------
    let filler = fs.fill();
    let open2 = trade_until_the_journal_fails(&mut s, &mut seen, metrics);
    let placed_at_fault = h.sim().stats().orders_placed;
    let victim = *open2.first().unwrap_or(&open[1]);
    cancel(&mut s, victim);
    let _ = s.limit(Side::Buy, TimeInForce::Gtc, "39000", "0.001");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        h.sim().stats().orders_placed,
        placed_at_fault,
        "nothing new placed"
    );
    drop(s);
    restart(&mut h, &dir, &filler);
    let mut s = h.client(1);
    let next = s.c.next_in_seq();
    let received = seen.0.len() as u64;
    assert!(
        next > received,
        "the restart resumes after every number the strategy holds ({received}), at {next}"
    );
    // Every number the strategy holds has the content it had: asked again from 1, with what
    // the restart numbered since (its reconciliation, while the strategy was away).
    s.c.send_retransmit_request(1, u32::try_from(next - 1).unwrap())
        .unwrap();
    match s.next_message() {
        Received::Retransmission(r) => assert_eq!(r.next_seq_no, 1),
        other => panic!("expected Retransmission, got {other:?}"),
    }
    for (seq, content) in &seen.0 {
        let m = s.next_message();
        assert_eq!(
            &format!("{m:?}"),
            content,
            "seq {seq} reused for another message"
        );
    }
    // What the lost held messages said is told again from the exchange: the cancel sent while
    // the journal failed, by the restart's reconciliation.
    let after_restart: Vec<Received> = (received + 1..next).map(|_| s.next_message()).collect();
    assert!(
        after_restart.iter().any(|m| matches!(m, Received::Exec(er)
            if er.exec_type == ExecType::Canceled
                && (er.cl_ord_id == victim || er.orig_cl_ord_id == victim))),
        "the cancel's outcome reaches the strategy: {after_restart:?}"
    );
    // The gateway first (it holds the journal's files), then the disk.
    drop(s);
    drop(h);
    drop(fs);
}

fn restart(h: &mut Harness, dir: &Path, filler: &Path) {
    if let Some(gw) = h.gw.take() {
        gw.shutdown();
    }
    std::fs::remove_file(filler).unwrap();
    let mut s = settings_for(h.sim(), "demo-secret");
    settings(&mut s, dir.to_path_buf());
    h.gw = Some(Gateway::start(s).expect("gateway restarts"));
}
