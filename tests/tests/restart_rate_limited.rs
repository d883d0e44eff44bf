//! A restart against a venue that enforces Bitget's per-UID quotas of the query endpoints
//! (`unfilled-orders`, `history-orders`, `fills`, `order-info`: reference §7, 20/s/UID each;
//! here a few per second so that a few hundred open orders reach them): the reconciliation
//! completes, and what happened while the gateway was down is reported exactly once.
//! With the gateway told the venue's quota it is never refused for rate; a gateway that does not
//! know the quota is refused, retries the refused pages after a backoff and still ends exact.
//! And the restart's shallower read of the finished orders (`RESTART_HISTORY_PAGES`) loses
//! nothing: an order it leaves out is found by clientOid.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use codec::sbe::{ExecType, OrdStatus, Side, TimeInForce};
use e2e::{
    d, master_account_credentials, master_and_sub_sim_config, settings_for,
    sub_account_credentials, Harness,
};
use gateway::budget::RateConfig;
use gateway::engine::{EngineSettings, Gateway};
use gateway::ids::ClientOid;

/// Orders left open by the first gateway: five pages of `unfilled-orders` (100 a page).
const OPEN: u64 = 450;
/// Of them, cancelled at the venue while no gateway runs.
const CANCELLED: u64 = 10;

fn journaled(s: &mut EngineSettings, dir: PathBuf, rate: RateConfig) {
    s.journal_dir = Some(dir);
    s.rate = rate;
    for a in &mut s.accounts {
        a.position_updates = false;
    }
    for g in &mut s.sessions {
        g.cancel_on_disconnect = false;
    }
    s.tracker.deadlines.push_deadline_ms = 300;
}

fn journal_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bgw-e2e-rl-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The quiet simulator with a sub-account, every quota off but those of the four query
/// endpoints: `per_s` requests per second per UID each. The open-order caps are raised to
/// [`OPEN`] (Bitget's `maxSymbolOrderNum` 200 / `maxProductOrderNum` 400 would refuse this
/// test's 450 resting orders with `25211`, and the gateway would refuse them first): the test
/// needs five pages of open orders, not the cap.
fn venue(per_s: u32) -> sim::SimConfig {
    venue_with_caps(per_s, OPEN as u32)
}

/// [`venue`] with the open-order caps at `caps`.
fn venue_with_caps(per_s: u32, caps: u32) -> sim::SimConfig {
    let mut cfg = master_and_sub_sim_config();
    cfg.rate_limits = sim::ratelimit::RateLimitConfig::queries_only(per_s);
    for i in &mut cfg.instruments {
        i.max_symbol_order_num = caps;
        i.max_product_order_num = caps;
    }
    cfg
}

/// Places [`OPEN`] resting buys (order `i` at 40000 + i, qty 0.002), stops the gateway, cancels
/// the first [`CANCELLED`] and half fills the highest at the venue, restarts the gateway with
/// `restart_rate`, and checks that the restart reports exactly those changes and that the
/// restarted gateway knows every order. Returns the venue's rate refusals during the restart.
fn restart_with_open_orders(test: &str, venue_per_s: u32, restart_rate: RateConfig) -> u64 {
    let dir = journal_dir(test);
    let d2 = dir.clone();
    let mut h = Harness::start_with(venue(venue_per_s), move |s| {
        journaled(s, d2, RateConfig::unlimited())
    });
    let mut s = h.client(4);
    let cls: Vec<u64> = (0..OPEN)
        .map(|i| {
            s.limit(
                Side::Buy,
                TimeInForce::Gtc,
                &format!("{}", 40_000 + i),
                "0.002",
            )
        })
        .collect();
    let mut order_ids = std::collections::HashMap::new();
    for _ in 0..OPEN {
        let er = s.exec();
        assert_eq!(er.exec_type, ExecType::New, "{er:?}");
        order_ids.insert(er.cl_ord_id, er.order_id);
    }
    assert_eq!(s.c.last_seq(), OPEN);
    drop(s);
    if let Some(gw) = h.gw.take() {
        gw.shutdown();
    }

    for cl in &cls[..CANCELLED as usize] {
        h.rest_post(
            master_account_credentials(),
            "/api/v3/trade/cancel-order",
            &format!(
                r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","clientOid":"{}"}}"#,
                ClientOid::new(4, *cl).as_str()
            ),
        );
    }
    let top = *cls.last().unwrap();
    h.rest_post(
        sub_account_credentials(),
        "/api/v3/trade/place-order",
        &format!(
            r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"sell","orderType":"limit","price":"{}","qty":"0.001","clientOid":"outside-1","stpMode":"none"}}"#,
            40_000 + OPEN - 1
        ),
    );

    let refused_before = h.sim().stats().rate_limited;
    let mut settings = settings_for(h.sim(), "demo-secret");
    journaled(&mut settings, dir.clone(), restart_rate);
    h.gw = Some(Gateway::start(settings).expect("gateway restarts"));
    let refused = h.sim().stats().rate_limited - refused_before;

    let mut s = h.client(4);
    assert_eq!(
        s.c.next_seq_from_gateway,
        OPEN + CANCELLED + 2,
        "the cancels and the fill were numbered before the strategy came back, once each"
    );
    let got = s.retransmitted(OPEN + 1, (CANCELLED + 1) as u32);
    for cl in &cls[..CANCELLED as usize] {
        let r = got
            .iter()
            .find(|r| r.cl_ord_id == *cl)
            .expect("cancel reported");
        assert_eq!(
            (r.exec_type, r.ord_status, r.order_id),
            (ExecType::Canceled, OrdStatus::Canceled, order_ids[cl])
        );
    }
    let fill = got
        .iter()
        .find(|r| r.cl_ord_id == top)
        .expect("fill reported");
    assert_eq!(fill.exec_type, ExecType::PartialFill);
    assert_eq!((fill.cum_qty, fill.leaves_qty), (d("0.001"), d("0.001")));
    s.expect_silence(Duration::from_millis(300));

    // The restarted gateway knows the orders the restart did not report on: cancelling one
    // works and reports once.
    let open_one = cls[CANCELLED as usize];
    // A ClOrdID the session has not used (this client's counter restarted at 1).
    let cancel = OPEN + 1_000;
    s.c.send_cancel(&codec::sbe::OrderCancelRequest {
        cl_ord_id: cancel,
        orig_cl_ord_id: open_one,
        transact_time: 0,
        symbol: codec::sbe::Symbol::new("BTCUSDT").unwrap(),
        category: codec::sbe::Category::UsdtFutures,
        side: Side::Buy,
    })
    .unwrap();
    let r = s.exec();
    assert_eq!(
        (r.exec_type, r.cl_ord_id, r.orig_cl_ord_id, r.order_id),
        (ExecType::Canceled, cancel, open_one, order_ids[&open_one])
    );
    s.expect_silence(Duration::from_millis(200));
    drop(s);
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
    refused
}

#[test]
fn a_gateway_unaware_of_the_venue_quota_retries_refused_pages_and_ends_exact() {
    // The venue allows 1 listing per second per endpoint, the gateway paces nothing: the
    // open orders' pages (two categories listed at once) meet 429s.
    let refused = restart_with_open_orders("unaware", 1, RateConfig::unlimited());
    eprintln!("unaware gateway: {refused} listings refused for rate during the restart");
    assert!(refused > 0, "the venue refused some listings");
}

#[test]
fn a_gateway_told_the_venue_quota_is_never_refused_and_ends_exact() {
    // The venue allows 2 listings per second per endpoint and the gateway paces at that.
    let mut rate = RateConfig::unlimited();
    rate.overrides.order_info = Some(2);
    rate.overrides.unfilled_orders = Some(2);
    rate.overrides.history_orders = Some(2);
    rate.overrides.fills = Some(2);
    let refused = restart_with_open_orders("paced", 2, rate);
    assert_eq!(refused, 0, "no listing was refused for rate");
}

#[test]
fn an_open_order_beyond_the_restarts_history_pages_that_ended_is_still_reported_once() {
    // A restart reads the finished orders only RESTART_HISTORY_PAGES deep (newest first): an
    // order open in the journal that ended while the gateway was down, with more finished
    // orders created after it than those pages hold, is found by clientOid instead.
    let beyond = (gateway::engine::RESTART_HISTORY_PAGES * 100 + 50) as u64;
    let dir = journal_dir("deep");
    let d2 = dir.clone();
    // The IOCs are sent at once: until the venue has ended them they count as open, so the
    // caps are above all of them (at 450, a loaded machine's slower venue had more than 450
    // in flight and the gateway refused the rest, OrderExceedsLimit: the test then waited for
    // ends that never came).
    let caps = u32::try_from(beyond + 1).unwrap();
    let mut h = Harness::start_with(venue_with_caps(0, caps), move |s| {
        journaled(s, d2, RateConfig::unlimited())
    });
    let mut s = h.client(4);
    let a = s.limit(Side::Buy, TimeInForce::Gtc, "40000", "0.002");
    let a_new = s.exec();
    assert_eq!((a_new.cl_ord_id, a_new.exec_type), (a, ExecType::New));
    // Immediate-or-cancel buys far below any ask: each ends at once, a finished order newer
    // than A.
    let iocs: std::collections::HashSet<u64> = (0..beyond)
        .map(|_| s.limit(Side::Buy, TimeInForce::Ioc, "30000", "0.001"))
        .collect();
    let mut ended = std::collections::HashSet::new();
    while ended.len() < iocs.len() {
        let er = s.exec();
        assert!(iocs.contains(&er.cl_ord_id), "{er:?}");
        assert_ne!(er.exec_type, ExecType::Rejected, "{er:?}");
        if er.ord_status == OrdStatus::Canceled {
            ended.insert(er.cl_ord_id);
        }
    }
    let last = s.c.last_seq();
    drop(s);
    if let Some(gw) = h.gw.take() {
        gw.shutdown();
    }
    h.cancel_at_venue(4, a);
    let asked_before = h.sim().stats().order_info_queries;
    let mut settings = settings_for(h.sim(), "demo-secret");
    journaled(&mut settings, dir.clone(), RateConfig::unlimited());
    h.gw = Some(Gateway::start(settings).expect("gateway restarts"));
    // A's query by clientOid may settle after the start: wait for its report to be numbered.
    let deadline = std::time::Instant::now() + e2e::WAIT;
    let mut s = h.client(4);
    while s.c.next_seq_from_gateway < last + 2 && std::time::Instant::now() < deadline {
        drop(s);
        std::thread::sleep(Duration::from_millis(100));
        s = h.client(4);
    }
    assert_eq!(
        s.c.next_seq_from_gateway,
        last + 2,
        "one report: A's cancel"
    );
    let got = s.retransmitted(last + 1, 1);
    assert_eq!(
        (got[0].cl_ord_id, got[0].exec_type, got[0].order_id),
        (a, ExecType::Canceled, a_new.order_id)
    );
    s.expect_silence(Duration::from_millis(300));
    assert!(
        h.sim().stats().order_info_queries > asked_before,
        "A was beyond the pages read: found by clientOid"
    );
    drop(s);
    drop(h);
    let _ = std::fs::remove_dir_all(&dir);
}
