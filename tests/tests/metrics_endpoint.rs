//! The metrics endpoint over real HTTP (`[metrics] listen`): the simulator (TLS) and the gateway
//! in-process, strategy sessions sending orders that fill, are cancelled or are rejected, then
//! `/metrics` scraped with a plain TCP client and its counts compared with what the strategies
//! sent and received; `/healthz` and `/readyz` at start-up, while logged in, and while the
//! exchange is unreachable.
//!
//! `BGW_METRICS_OUT=<file>` makes `scrape_counts_equal_what_the_strategies_saw` write the last
//! exposition it scraped to that file (`scripts/metrics-check.sh` runs `promtool check
//! metrics` on it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use codec::sbe::{
    Category, ExecType, OrdRejReason, OrdStatus, OrderCancelRequest, Side, Symbol, TimeInForce,
};
use e2e::{Harness, Strategy};
use gateway::engine::{EngineSettings, Gateway};
use sim::Scope;
use strategy_client::Received;

/// The demo master account's uid (the gateway trades it).
const MASTER_UID: &str = "1000000001";
/// Deadline of every wait.
const DEADLINE: Duration = Duration::from_secs(20);

/// An HTTP answer: status code and body.
struct Answer {
    status: u16,
    content_type: String,
    body: String,
}

/// `GET path` over a fresh TCP connection (HTTP/1.1, `Connection: close`).
fn get(addr: SocketAddr, path: &str) -> Answer {
    let mut s = std::net::TcpStream::connect(addr).expect("connect to the metrics endpoint");
    s.set_read_timeout(Some(DEADLINE)).expect("timeout");
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("read");
    let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status code");
    let content_type = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type: ")
                .map(str::to_owned)
        })
        .unwrap_or_default();
    Answer {
        status,
        content_type,
        body: body.to_owned(),
    }
}

/// The samples of an exposition: `name{labels}` → value.
fn samples(text: &str) -> HashMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            Some((series.to_owned(), value.parse().ok()?))
        })
        .collect()
}

/// Polls until `cond` holds (panics naming `what` after [`DEADLINE`]).
fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + DEADLINE;
    while !cond() {
        assert!(Instant::now() < end, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Metrics on a free port, latency snapshots every 100 ms, a place-order budget of 1000 per
/// window (so that the budget gauges have a bucket; the rest unlimited), quick reconnects.
fn with_metrics(s: &mut EngineSettings) {
    s.metrics_listen = Some("127.0.0.1:0".parse().unwrap());
    s.tracker.report_interval_ms = 100;
    s.rate = gateway::budget::RateConfig::unlimited();
    s.rate.overrides.place_order = Some(1_000);
    s.exchange.reconnect_min_ms = 50;
    s.exchange.reconnect_max_ms = 400;
    s.exchange.connect_timeout_ms = 1_000;
}

fn metrics_addr(gw: &Gateway) -> SocketAddr {
    gw.metrics_addr().expect("metrics endpoint on")
}

/// Every ExecutionReport a strategy received, by ExecType, and the final states.
#[derive(Default)]
struct Seen {
    by_exec_type: HashMap<ExecType, u64>,
    closed: HashMap<OrdStatus, u64>,
    rejected: HashMap<Option<OrdRejReason>, u64>,
}

impl Seen {
    fn exec(&mut self, s: &mut Strategy) -> codec::sbe::ExecutionReport {
        let er = s.exec();
        *self.by_exec_type.entry(er.exec_type).or_default() += 1;
        if matches!(
            er.ord_status,
            OrdStatus::Filled | OrdStatus::Canceled | OrdStatus::Rejected
        ) {
            *self.closed.entry(er.ord_status).or_default() += 1;
        }
        if er.exec_type == ExecType::Rejected {
            *self.rejected.entry(er.ord_rej_reason).or_default() += 1;
        }
        er
    }
}

fn cancel(s: &mut Strategy, orig: u64, side: Side) {
    let cl = s.next_cl();
    s.c.send_cancel(&OrderCancelRequest {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        transact_time: 0,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        category: Category::UsdtFutures,
        side,
    })
    .unwrap();
}

#[test]
fn scrape_counts_equal_what_the_strategies_saw() {
    const FILLED_MAKERS: u64 = 3;
    const CANCELLED: u64 = 4;
    // With a journal directory: the journal's health families are in the scrape.
    let dir = std::env::temp_dir().join(format!("bgw-e2e-metrics-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d2 = dir.clone();
    let h = Harness::start_with(e2e::quiet_sim_config(), move |s| {
        with_metrics(s);
        s.journal_dir = Some(d2);
    });
    let addr = metrics_addr(h.gateway());
    let mut maker = h.client(1);
    let mut taker = h.client(2);
    let mut seen = Seen::default();
    let mut to_exchange = 0u64;

    // Resting sells, then one buy that takes them all: every one of them ends Filled.
    for _ in 0..FILLED_MAKERS {
        maker.limit(Side::Sell, TimeInForce::Gtc, "60000", "0.001");
        to_exchange += 1;
        assert_eq!(seen.exec(&mut maker).exec_type, ExecType::New);
    }
    taker.limit(
        Side::Buy,
        TimeInForce::Gtc,
        "60000",
        &format!("0.00{FILLED_MAKERS}"),
    );
    to_exchange += 1;
    loop {
        if seen.exec(&mut taker).ord_status == OrdStatus::Filled {
            break;
        }
    }
    for _ in 0..FILLED_MAKERS {
        assert_eq!(seen.exec(&mut maker).ord_status, OrdStatus::Filled);
    }
    // Resting buys, each cancelled.
    for i in 0..CANCELLED {
        let cl = taker.limit(
            Side::Buy,
            TimeInForce::Gtc,
            &format!("{}", 50_000 + i),
            "0.001",
        );
        to_exchange += 1;
        assert_eq!(seen.exec(&mut taker).exec_type, ExecType::New);
        cancel(&mut taker, cl, Side::Buy);
        to_exchange += 1;
        assert_eq!(seen.exec(&mut taker).exec_type, ExecType::Canceled);
    }
    // One refused before the exchange: a price off the tick.
    taker.limit(Side::Buy, TimeInForce::Gtc, "41000.05", "0.001");
    let rej = seen.exec(&mut taker);
    assert_eq!(
        rej.ord_rej_reason,
        Some(OrdRejReason::InvalidPriceIncrement)
    );
    // A cancel of an order the gateway does not know: an OrderCancelReject from order entry
    // (never sent).
    cancel(&mut taker, 999_999, Side::Buy);
    match taker.next_message() {
        Received::CancelReject(_) => {}
        other => panic!("expected OrderCancelReject, got {other:?}"),
    }

    // Latency summaries come with the reporter's snapshots (every 100 ms here), the session
    // gauge with the io thread's publication (every 200 ms), the journal bytes once the journal
    // thread has written them (asynchronous to the order path: waited for too).
    let leg_count = |m: &HashMap<String, f64>, leg: &str| {
        m.get(&format!("bgw_leg_latency_seconds_count{{leg=\"{leg}\"}}"))
            .copied()
            .unwrap_or(-1.0)
    };
    let mut last = String::new();
    wait_until("the latency and session figures are published", || {
        let a = get(addr, "/metrics");
        assert_eq!(a.status, 200);
        let m = samples(&a.body);
        // Keepalives go out from `recv` (auto_keepalive); nothing else is due.
        for s in [&mut maker, &mut taker] {
            if let Some(r) = s.c.recv(Duration::from_millis(5)).expect("recv") {
                assert!(matches!(r, Received::Sequence(_)), "unexpected {r:?}");
            }
        }
        last = a.body;
        // Every order that ended is still in the tracker (default retention), less the one
        // refused before the exchange (never tracked).
        let ended: f64 = m
            .iter()
            .filter(|(k, _)| k.starts_with("bgw_orders_total{"))
            .map(|(_, v)| v)
            .sum();
        m.get("bgw_tracker_orders{state=\"ended\"}") == Some(&(ended - 1.0))
            && leg_count(&m, "strategy_to_exchange") == to_exchange as f64
            && leg_count(&m, "exchange_reply") == to_exchange as f64
            && m.get("bgw_sessions{state=\"established\"}") == Some(&2.0)
            && m.get("bgw_journal_written_bytes_total")
                .is_some_and(|b| *b > 0.0)
    });
    let first = get(addr, "/metrics");
    assert!(
        first.content_type.starts_with("text/plain; version=0.0.4"),
        "{}",
        first.content_type
    );
    let m = samples(&last);
    let v = |k: &str| *m.get(k).unwrap_or_else(|| panic!("no {k} in\n{last}"));

    // Orders by final state.
    assert_eq!(
        v("bgw_orders_total{state=\"Filled\"}"),
        (FILLED_MAKERS + 1) as f64
    );
    assert_eq!(v("bgw_orders_total{state=\"Canceled\"}"), CANCELLED as f64);
    assert_eq!(v("bgw_orders_total{state=\"Rejected\"}"), 1.0);
    for (status, n) in &seen.closed {
        let name = format!("{status:?}");
        assert_eq!(
            v(&format!("bgw_orders_total{{state=\"{name}\"}}")),
            *n as f64,
            "{name}"
        );
    }
    // ExecutionReports by ExecType: exactly what the two strategies received.
    for (name, wire) in ExecType::VALUES {
        let want = ExecType::from_wire(*wire)
            .and_then(|t| seen.by_exec_type.get(&t))
            .copied()
            .unwrap_or(0);
        assert_eq!(
            v(&format!(
                "bgw_execution_reports_total{{exec_type=\"{name}\"}}"
            )),
            want as f64,
            "{name}"
        );
    }
    // Rejects.
    assert_eq!(
        v("bgw_rejects_total{message=\"ExecutionReport\",reason=\"InvalidPriceIncrement\"}"),
        1.0
    );
    let er_rejects: f64 = m
        .iter()
        .filter(|(k, _)| k.starts_with("bgw_rejects_total{message=\"ExecutionReport\""))
        .map(|(_, v)| v)
        .sum();
    assert_eq!(er_rejects, seen.rejected.values().sum::<u64>() as f64);
    let cancel_rejects: f64 = m
        .iter()
        .filter(|(k, _)| k.starts_with("bgw_rejects_total{message=\"OrderCancelReject\""))
        .map(|(_, v)| v)
        .sum();
    assert_eq!(cancel_rejects, 1.0);
    // The legs: one strategy_to_exchange and one exchange_reply sample per request sent, and
    // quantiles in order, in seconds.
    let q = |leg: &str, q: &str| {
        v(&format!(
            "bgw_leg_latency_run_seconds{{leg=\"{leg}\",quantile=\"{q}\"}}"
        ))
    };
    let (p50, p99, max) = (
        q("strategy_to_exchange", "0.5"),
        q("strategy_to_exchange", "0.99"),
        q("strategy_to_exchange", "1"),
    );
    assert!(
        0.0 < p50 && p50 <= p99 && p99 <= max && max < 1.0,
        "{p50} {p99} {max}"
    );
    assert!(v("bgw_leg_latency_seconds_sum{leg=\"exchange_reply\"}") > 0.0);
    // The histogram view: cumulative, non-decreasing over the bounds, +Inf = _count, and the
    // bucket holding the run's p50 brackets it (histogram_quantile's input).
    for leg in ["strategy_to_exchange", "exchange_reply"] {
        let mut buckets: Vec<(f64, f64)> = m
            .iter()
            .filter_map(|(k, n)| {
                let rest = k.strip_prefix(&format!(
                    "bgw_leg_latency_seconds_bucket{{leg=\"{leg}\",le=\""
                ))?;
                let le = rest.strip_suffix("\"}")?;
                let le = if le == "+Inf" {
                    f64::INFINITY
                } else {
                    le.parse().ok()?
                };
                Some((le, *n))
            })
            .collect();
        buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(buckets.len(), 38, "37 bounds and +Inf: {buckets:?}");
        assert_eq!(buckets[0].0, 0.000001);
        assert_eq!(buckets[36].0, 1.0);
        assert!(buckets.windows(2).all(|w| w[0].1 <= w[1].1), "{buckets:?}");
        assert_eq!(buckets[37].1, leg_count(&m, leg));
        assert_eq!(
            v(&format!(
                "bgw_leg_latency_run_seconds_count{{leg=\"{leg}\"}}"
            )),
            leg_count(&m, leg)
        );
        let p50 = q(leg, "0.5");
        let half = leg_count(&m, leg) / 2.0;
        let first_over = buckets.iter().find(|(_, n)| *n >= half).expect("a bucket");
        assert!(
            first_over.0 >= p50 * 0.999,
            "{leg}: p50 {p50} above the bucket that holds half the samples {first_over:?}"
        );
    }
    assert!(v("process_open_fds") > 0.0);
    assert!(v("process_max_fds") >= v("process_open_fds"));
    assert!(v("bgw_strategy_connections") >= 0.0);
    assert!(v("bgw_strategy_connections_limit") > 0.0);
    assert_eq!(v("bgw_unknown_outcomes_unresolved"), 0.0);
    assert!(!last.contains("round_trip"));
    // Link, sessions, budget, journal, readiness.
    assert_eq!(v("bgw_exchange_link_up{account=\"main\"}"), 1.0);
    assert_eq!(v("bgw_exchange_reconnects_total{account=\"main\"}"), 0.0);
    assert_eq!(v("bgw_sessions{state=\"not_established\"}"), 6.0);
    assert_eq!(
        v("bgw_rate_budget_limit{account=\"main\",bucket=\"place-order\",endpoint_id=\"1\"}"),
        1_000.0,
        "{last}"
    );
    assert!(v("bgw_journal_written_bytes_total") > 0.0);
    assert_eq!(
        v("bgw_journal_failing{session=\"1\",error=\"none\",op=\"none\"}"),
        0.0
    );
    assert_eq!(
        v("bgw_journal_errors_total{session=\"1\",error=\"ENOSPC\"}"),
        0.0
    );
    assert_eq!(v("bgw_ready"), 1.0);
    assert_eq!(v("bgw_unknown_outcomes_total"), 0.0);
    assert_eq!(v("bgw_tracker_tombstones"), 0.0);
    assert_eq!(v("bgw_tracker_evictions_total"), 0.0);
    assert_eq!(v("bgw_evicted_late_pushes_total"), 0.0);
    for family in [
        "bgw_tracker_orders gauge",
        "bgw_tracker_tombstones gauge",
        "bgw_orders_total counter",
        "bgw_execution_reports_total counter",
        "bgw_rejects_total counter",
        "bgw_leg_latency_seconds histogram",
        "bgw_leg_latency_run_seconds summary",
        "bgw_rate_budget_tokens gauge",
        "bgw_journal_pending_bytes gauge",
        "bgw_journal_failing gauge",
        "bgw_journal_errors_total counter",
    ] {
        assert!(last.contains(&format!("# TYPE {family}\n")), "{family}");
    }
    assert_eq!(get(addr, "/healthz").body, "ok\n");
    let ready = get(addr, "/readyz");
    assert_eq!((ready.status, ready.body.as_str()), (200, "ready\n"));
    assert_eq!(get(addr, "/nothing").status, 404);
    if let Some(path) = std::env::var_os("BGW_METRICS_OUT") {
        std::fs::write(&path, &last).expect("write the exposition");
    }
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn readyz_is_503_while_the_exchange_is_unreachable() {
    let h = Harness::start_with(e2e::quiet_sim_config(), with_metrics);
    let addr = metrics_addr(h.gateway());
    let ready = get(addr, "/readyz");
    assert_eq!((ready.status, ready.body.as_str()), (200, "ready\n"));
    // Logins go unanswered and the sockets are closed: the link is down until the outage ends.
    h.sim()
        .faults()
        .silence(Scope::uid(MASTER_UID), true)
        .unwrap();
    h.sim()
        .faults()
        .close_connections(Scope::uid(MASTER_UID))
        .unwrap();
    wait_until("/readyz 503", || get(addr, "/readyz").status == 503);
    let down = get(addr, "/readyz");
    assert_eq!(down.body, "exchange link down (account main)\n");
    assert_eq!(get(addr, "/healthz").status, 200);
    let m = samples(&get(addr, "/metrics").body);
    assert_eq!(m["bgw_exchange_link_up{account=\"main\"}"], 0.0);
    assert_eq!(
        m["bgw_exchange_link_state{account=\"main\",state=\"down\"}"],
        1.0
    );
    assert_eq!(m["bgw_ready"], 0.0);
    assert!(m["bgw_exchange_link_failures_total{account=\"main\",cause=\"closed\"}"] >= 1.0);
    h.sim()
        .faults()
        .silence(Scope::uid(MASTER_UID), false)
        .unwrap();
    wait_until("/readyz 200 again", || get(addr, "/readyz").status == 200);
    let m = samples(&get(addr, "/metrics").body);
    assert_eq!(m["bgw_exchange_reconnects_total{account=\"main\"}"], 1.0);
    assert_eq!(m["bgw_exchange_link_up{account=\"main\"}"], 1.0);
}

#[test]
fn readyz_is_503_before_the_login() {
    // The venue never answers the login: the gateway's start-up waits for it (then fails),
    // and meanwhile the endpoint is up and says why it is not ready.
    let (rt, sim) = e2e::start_sim(e2e::quiet_sim_config());
    sim.faults().silence(Scope::uid(MASTER_UID), true).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let mut settings = e2e::settings_for(&sim, "demo-secret");
    with_metrics(&mut settings);
    settings.metrics_listen = Some(port);
    settings.exchange.connect_timeout_ms = 3_000;
    let starting = std::thread::spawn(move || Gateway::start(settings).map(drop));
    wait_until("the endpoint answers", || {
        std::net::TcpStream::connect(port).is_ok()
    });
    assert_eq!(get(port, "/healthz").status, 200);
    let r = get(port, "/readyz");
    assert_eq!(
        (r.status, r.body.as_str()),
        (503, "exchange link down (account main)\n")
    );
    assert!(
        starting.join().expect("no panic").is_err(),
        "the login never succeeds"
    );
    rt.block_on(sim.shutdown());
}
