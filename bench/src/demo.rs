//! The main job: the venue simulator (TLS), the gateway and a demo strategy in one process.
//!
//! The strategy sends a mix of resting limits (then modified and cancelled), crossing IOC and
//! market orders and crossing post-only orders over several symbols, one request in flight at
//! a time, and measures each request's round trip (request written → first report for its
//! ClOrdID). It checks every order's final state against what the flow expects, then the same
//! run measures two baselines: the floor ([`crate::floor`]: the same TLS WebSocket hop to the
//! same simulator, pre-rendered frames, no protocol work) and a raw TCP relay of the same
//! topology ([`crate::relay`]).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use codec::sbe::{
    BoolFlag, ExecType, NewOrderSingle, OrdStatus, OrdType, OrderCancelReplaceRequest,
    OrderCancelRequest, PosSide, Side, StpMode, TimeInForce,
};
use codec::Decimal;
use gateway::idle::IdleStrategy;
use gateway::metrics::{Leg, LegHistograms};
use hdrhistogram::Histogram;
use strategy_client::{Received, StrategyClient};

use crate::rig::{price_at, Market, Rig, RigOptions};

/// Options of one demo run.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// Orders (NewOrderSingle) to send; modifies and cancels come on top.
    pub orders: usize,
    /// Idle strategy of the gateway's io and tracker threads.
    pub idle: IdleStrategy,
    /// Pin the gateway's io thread to core 0 and the tracker to core 1.
    pub pin: bool,
    /// Where the gateway's tracker runs (`[tracker] placement`).
    pub placement: gateway::tracker::port::TrackerPlacement,
    /// Round trips of each baseline, the floor and the raw TCP relay (0 skips them).
    pub relay_round_trips: usize,
    /// HdrHistogram interval log path.
    pub hlog_path: Option<std::path::PathBuf>,
    /// Print progress and periodic tables.
    pub verbose: bool,
    /// Serve the gateway's metrics endpoint here (`/metrics`, `/healthz`, `/readyz`) and print
    /// its URL; a taken port falls back to a free one. `None`: off.
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// Write the gateway's Prometheus exposition at the end of the flow to this file.
    pub metrics_out: Option<std::path::PathBuf>,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            orders: 10_000,
            idle: IdleStrategy::Park,
            pin: false,
            placement: Default::default(),
            relay_round_trips: 20_000,
            hlog_path: None,
            verbose: false,
            metrics_listen: None,
            metrics_out: None,
        }
    }
}

/// What the run produced.
#[derive(Debug)]
pub struct DemoOutcome {
    /// Orders by final OrdStatus.
    pub final_states: HashMap<&'static str, usize>,
    /// ExecutionReports by ExecType, plus OrderCancelReject.
    pub reports: HashMap<&'static str, usize>,
    /// Orders that ended in a state the flow did not expect (ClOrdID, expected, got).
    pub unexpected: Vec<(u64, &'static str, &'static str)>,
    /// Gateway-side legs plus the strategy-side round trip.
    pub legs: LegHistograms,
    /// Round trip of the raw TCP relay baseline (ns).
    pub relay: Option<Histogram<u64>>,
    /// Round trip of the floor relay ([`crate::floor`]: resting place and cancel alternating
    /// over the same TLS WebSocket to the same simulator), ns.
    pub floor: Option<Histogram<u64>>,
    /// The gateway's round trip of the requests the floor also sends (the resting limit's
    /// NewOrderSingle and its OrderCancelRequest), ns.
    pub like_floor: Histogram<u64>,
    /// Orders sent.
    pub orders_sent: usize,
    /// Requests sent (orders, modifies, cancels).
    pub requests_sent: usize,
    /// Wall time of the order flow.
    pub elapsed: Duration,
}

/// What the flow expects an order to end as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Resting, modified, then cancelled.
    Canceled,
    /// Crossing IOC: filled, or partially filled and the rest cancelled.
    FilledOrIocCanceled,
    /// Market: filled.
    Filled,
    /// Post-only crossing the book: cancelled by the venue without fills.
    PostOnlyCanceled,
}

impl Expect {
    fn name(self) -> &'static str {
        match self {
            Expect::Canceled => "Canceled",
            Expect::FilledOrIocCanceled => "Filled or Canceled (IOC)",
            Expect::Filled => "Filled",
            Expect::PostOnlyCanceled => "Canceled (post-only)",
        }
    }

    fn accepts(self, st: OrdStatus) -> bool {
        match self {
            Expect::Canceled | Expect::PostOnlyCanceled => st == OrdStatus::Canceled,
            Expect::FilledOrIocCanceled => st == OrdStatus::Filled || st == OrdStatus::Canceled,
            Expect::Filled => st == OrdStatus::Filled,
        }
    }
}

#[derive(Debug)]
struct Tracked {
    expect: Expect,
    status: OrdStatus,
}

fn status_name(s: OrdStatus) -> &'static str {
    match s {
        OrdStatus::New => "New",
        OrdStatus::PartiallyFilled => "PartiallyFilled",
        OrdStatus::Filled => "Filled",
        OrdStatus::Canceled => "Canceled",
        OrdStatus::PendingCancel => "PendingCancel",
        OrdStatus::Rejected => "Rejected",
        OrdStatus::PendingNew => "PendingNew",
        OrdStatus::PendingReplace => "PendingReplace",
    }
}

fn exec_type_name(e: ExecType) -> &'static str {
    match e {
        ExecType::New => "New",
        ExecType::PartialFill => "PartialFill",
        ExecType::Fill => "Fill",
        ExecType::Canceled => "Canceled",
        ExecType::Replaced => "Replaced",
        ExecType::PendingCancel => "PendingCancel",
        ExecType::Rejected => "Rejected",
        ExecType::PendingNew => "PendingNew",
        ExecType::OrderStatus => "OrderStatus",
        ExecType::PendingReplace => "PendingReplace",
    }
}

/// One tradable instrument of the demo with a reference price.
struct Flow {
    client: StrategyClient,
    next_cl: u64,
    orders: HashMap<u64, Tracked>,
    /// ClOrdID of any request → root ClOrdID of the order.
    roots: HashMap<u64, u64>,
    reports: HashMap<&'static str, usize>,
    round_trip: Histogram<u64>,
    /// Round trips of the requests the floor also sends (the resting limit and its cancel).
    like_floor: Histogram<u64>,
    requests: usize,
}

const RECV_TIMEOUT: Duration = Duration::from_secs(10);

impl Flow {
    fn on_received(&mut self, r: Received) -> Option<u64> {
        match r {
            Received::Exec(er) => {
                *self
                    .reports
                    .entry(exec_type_name(er.exec_type))
                    .or_default() += 1;
                let root = self
                    .roots
                    .get(&er.cl_ord_id)
                    .copied()
                    .unwrap_or(er.cl_ord_id);
                if let Some(o) = self.orders.get_mut(&root) {
                    o.status = er.ord_status;
                }
                Some(er.cl_ord_id)
            }
            Received::CancelReject(r) => {
                *self.reports.entry("OrderCancelReject").or_default() += 1;
                Some(r.cl_ord_id)
            }
            Received::BusinessReject(r) => {
                *self.reports.entry("BusinessMessageReject").or_default() += 1;
                Some(r.business_reject_ref_id)
            }
            _ => None,
        }
    }

    /// Sends one request and waits for the first report about its ClOrdID.
    /// `like_floor`: the floor sends this kind of request too (its round trip also goes to
    /// `like_floor`).
    fn request(
        &mut self,
        cl: u64,
        like_floor: bool,
        send: impl FnOnce(&mut StrategyClient) -> Result<(), strategy_client::ClientError>,
    ) -> Result<(), String> {
        let t0 = Instant::now();
        send(&mut self.client).map_err(|e| e.to_string())?;
        self.requests += 1;
        loop {
            match self.client.recv(RECV_TIMEOUT).map_err(|e| e.to_string())? {
                Some(Received::Terminate(t)) => {
                    return Err(format!("session terminated: {}", t.reason.as_str()))
                }
                Some(r) => {
                    if self.on_received(r) == Some(cl) {
                        let ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
                        let _ = self.round_trip.record(ns.max(1));
                        if like_floor {
                            let _ = self.like_floor.record(ns.max(1));
                        }
                        return Ok(());
                    }
                }
                None => {
                    return Err(format!(
                        "no report for ClOrdID {cl} within {RECV_TIMEOUT:?}"
                    ))
                }
            }
        }
    }

    fn new_order(
        &mut self,
        m: &Market,
        side: Side,
        ord_type: OrdType,
        tif: TimeInForce,
        price: Option<Decimal>,
        expect: Expect,
    ) -> Result<u64, String> {
        self.next_cl += 1;
        let cl = self.next_cl;
        self.orders.insert(
            cl,
            Tracked {
                expect,
                status: OrdStatus::PendingNew,
            },
        );
        self.roots.insert(cl, cl);
        let msg = NewOrderSingle {
            cl_ord_id: cl,
            transact_time: gateway::metrics::utc_now_ns(),
            price,
            order_qty: m.qty,
            symbol: m.symbol,
            category: m.category,
            side,
            ord_type,
            time_in_force: tif,
            pos_side: PosSide::None,
            reduce_only: BoolFlag::No,
            stp_mode: StpMode::Default,
        };
        let like_floor = matches!(expect, Expect::Canceled);
        self.request(cl, like_floor, |c| c.send_new_order(&msg))?;
        Ok(cl)
    }

    fn replace(&mut self, m: &Market, root: u64, orig: u64, price: Decimal) -> Result<u64, String> {
        self.next_cl += 1;
        let cl = self.next_cl;
        self.roots.insert(cl, root);
        let msg = OrderCancelReplaceRequest {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            transact_time: gateway::metrics::utc_now_ns(),
            price: Some(price),
            order_qty: Some(m.qty),
            symbol: m.symbol,
            category: m.category,
            side: Side::Buy,
            auto_cancel: BoolFlag::No,
        };
        self.request(cl, false, |c| c.send_replace(&msg))?;
        Ok(cl)
    }

    fn cancel(&mut self, m: &Market, root: u64, orig: u64) -> Result<(), String> {
        self.next_cl += 1;
        let cl = self.next_cl;
        self.roots.insert(cl, root);
        let msg = OrderCancelRequest {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            transact_time: gateway::metrics::utc_now_ns(),
            symbol: m.symbol,
            category: m.category,
            side: Side::Buy,
        };
        self.request(cl, true, |c| c.send_cancel(&msg))
    }

    /// Reads reports until every order is terminal or nothing arrives for `quiet`.
    fn drain(&mut self, quiet: Duration) -> Result<(), String> {
        while self.orders.values().any(|o| {
            !matches!(
                o.status,
                OrdStatus::Filled | OrdStatus::Canceled | OrdStatus::Rejected
            )
        }) {
            match self.client.recv(quiet).map_err(|e| e.to_string())? {
                Some(r) => {
                    self.on_received(r);
                }
                None => break,
            }
        }
        Ok(())
    }
}

/// Starts the simulator and the gateway, runs the flow, stops everything.
pub fn run(opts: &DemoOptions) -> Result<DemoOutcome, String> {
    let session_id = 7;
    let metrics_listen = opts.metrics_listen.map(free_or_any);
    let rig = Rig::start_with(
        &RigOptions {
            sessions: vec![session_id],
            idle: opts.idle,
            pin: opts.pin,
            placement: opts.placement,
            report_interval_ms: if opts.verbose { 2_000 } else { 1_000 },
            print_reports: opts.verbose,
            hlog_path: opts.hlog_path.clone(),
            order_capacity: None,
            sim_process: false,
            // The demo's flow trades (fills, market orders): the full venue.
            venue: sim::config::VenueMode::Full,
            open_order_caps: true,
        },
        |s| s.metrics_listen = metrics_listen,
    )?;
    if let Some(addr) = rig.gateway().metrics_addr() {
        println!("metrics: http://{addr}/metrics (health: /healthz, readiness: /readyz)");
    }
    let markets = rig.markets.clone();
    let client = rig.connect(session_id, true)?;
    let mut flow = Flow {
        client,
        next_cl: 0,
        orders: HashMap::new(),
        roots: HashMap::new(),
        reports: HashMap::new(),
        round_trip: Histogram::new_with_bounds(1, 60_000_000_000, 3).map_err(|e| e.to_string())?,
        like_floor: Histogram::new_with_bounds(1, 60_000_000_000, 3).map_err(|e| e.to_string())?,
        requests: 0,
    };
    let started = Instant::now();
    let mut cycle = 0usize;
    let result = (|| -> Result<(), String> {
        while flow.orders.len() < opts.orders {
            let m = markets[cycle % markets.len()];
            // Resting limit far below the market: New, then Replaced one tick up, then Canceled.
            let px = price_at(&m, "0.9");
            let root = flow.new_order(
                &m,
                Side::Buy,
                OrdType::Limit,
                TimeInForce::Gtc,
                Some(px),
                Expect::Canceled,
            )?;
            let new_px = px.checked_add(m.tick).unwrap_or(px);
            let replaced = flow.replace(&m, root, root, new_px)?;
            flow.cancel(&m, root, replaced)?;
            // Crossing IOC (buy above the market) and, every other cycle, a market sell.
            let cross = price_at(&m, "1.02");
            flow.new_order(
                &m,
                Side::Buy,
                OrdType::Limit,
                TimeInForce::Ioc,
                Some(cross),
                Expect::FilledOrIocCanceled,
            )?;
            if cycle.is_multiple_of(2) {
                flow.new_order(
                    &m,
                    Side::Sell,
                    OrdType::Market,
                    TimeInForce::Ioc,
                    None,
                    Expect::Filled,
                )?;
            } else {
                let sell = price_at(&m, "0.98");
                flow.new_order(
                    &m,
                    Side::Sell,
                    OrdType::Limit,
                    TimeInForce::Ioc,
                    Some(sell),
                    Expect::FilledOrIocCanceled,
                )?;
            }
            // Every fifth cycle, a post-only buy that would cross: cancelled by the venue.
            if cycle.is_multiple_of(5) {
                flow.new_order(
                    &m,
                    Side::Buy,
                    OrdType::Limit,
                    TimeInForce::PostOnly,
                    Some(cross),
                    Expect::PostOnlyCanceled,
                )?;
            }
            cycle += 1;
            if opts.verbose && cycle.is_multiple_of(500) {
                println!(
                    "  {} orders, {} requests, {:?}",
                    flow.orders.len(),
                    flow.requests,
                    started.elapsed()
                );
            }
        }
        flow.drain(Duration::from_secs(2))
    })();
    let elapsed = started.elapsed();
    if let Some(path) = &opts.metrics_out {
        // The latency summaries follow the reporter's snapshots (every second here).
        std::thread::sleep(Duration::from_millis(1_300));
        std::fs::write(path, rig.gateway().render_metrics())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let _ = flow.client.terminate();
    // The floor runs while the simulator is up, after the flow (one thing at a time).
    let floor = if opts.relay_round_trips > 0 && result.is_ok() {
        Some(run_floor(&rig, opts.relay_round_trips)?)
    } else {
        None
    };
    let report = rig.shutdown();
    result?;

    let mut final_states: HashMap<&'static str, usize> = HashMap::new();
    let mut unexpected = Vec::new();
    let mut roots: Vec<_> = flow.orders.iter().collect();
    roots.sort_by_key(|(cl, _)| **cl);
    for (cl, o) in roots {
        *final_states.entry(status_name(o.status)).or_default() += 1;
        if !o.expect.accepts(o.status) {
            unexpected.push((*cl, o.expect.name(), status_name(o.status)));
        }
    }
    let mut legs = report.legs;
    let _ = legs.get_mut(Leg::RoundTrip).add(&flow.round_trip);
    let relay = (opts.relay_round_trips > 0).then(|| {
        crate::relay::run_relay_baseline(opts.relay_round_trips, opts.relay_round_trips / 10)
    });
    Ok(DemoOutcome {
        final_states,
        reports: flow.reports,
        unexpected,
        legs,
        relay,
        floor,
        like_floor: flow.like_floor,
        orders_sent: flow.orders.len(),
        requests_sent: flow.requests,
        elapsed,
    })
}

/// `n` round trips of the floor against the rig's simulator (warm-up: a tenth more), with the
/// demo's resting limit: the first usdt-futures market, at 0.9 × its mid.
///
/// Errors: no usdt-futures market, or the floor failed, as text.
fn run_floor(rig: &Rig, n: usize) -> Result<Histogram<u64>, String> {
    let cfg = crate::floor::FloorConfig::for_rig(rig)?;
    crate::floor::run_floor(&cfg, n, n / 10).map_err(|e| format!("floor: {e}"))
}

/// `addr` if it can be bound now, else the same IP with port 0 (any free port).
fn free_or_any(addr: std::net::SocketAddr) -> std::net::SocketAddr {
    match std::net::TcpListener::bind(addr) {
        Ok(_) => addr,
        Err(e) => {
            eprintln!("demo: metrics address {addr}: {e}; using a free port");
            std::net::SocketAddr::new(addr.ip(), 0)
        }
    }
}

/// Prints the summary, the latency table and the baseline comparison.
pub fn print(outcome: &DemoOutcome) {
    println!(
        "== demo strategy: {} orders, {} requests in {:.2?}",
        outcome.orders_sent, outcome.requests_sent, outcome.elapsed
    );
    println!("\nOrders by final state:");
    let mut states: Vec<_> = outcome.final_states.iter().collect();
    states.sort();
    for (k, v) in states {
        println!("  {k:<18} {v:>8}");
    }
    println!("\nExecutionReports by ExecType (and other replies):");
    let mut reports: Vec<_> = outcome.reports.iter().collect();
    reports.sort();
    for (k, v) in reports {
        println!("  {k:<22} {v:>8}");
    }
    println!("\nLatency per leg (µs):\n{}", outcome.legs.table());
    let rt = outcome.legs.get(Leg::RoundTrip);
    let pct = |h: &Histogram<u64>, q: f64| h.value_at_quantile(q) as f64 / 1e3;
    let mut rows: Vec<(&str, &Histogram<u64>)> = vec![("gateway, every request", rt)];
    if outcome.floor.is_some() {
        rows.push(("gateway, place + cancel", &outcome.like_floor));
    }
    if let Some(f) = &outcome.floor {
        rows.push(("floor (TLS WS, pre-rendered)", f));
    }
    if let Some(r) = &outcome.relay {
        rows.push(("raw TCP relay + echo", r));
    }
    if rows.len() > 1 {
        println!("Strategy round trip against the baselines (same topology, same run), µs:");
        println!(
            "  {:<30} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "", "count", "p50", "p90", "p99", "p99.9"
        );
        for (name, h) in &rows {
            println!(
                "  {:<30} {:>9} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
                name,
                h.len(),
                pct(h, 0.5),
                pct(h, 0.9),
                pct(h, 0.99),
                pct(h, 0.999)
            );
        }
        let ratio = |a: &Histogram<u64>, b: &Histogram<u64>| {
            let r = |q: f64| a.value_at_quantile(q) as f64 / b.value_at_quantile(q).max(1) as f64;
            format!(
                "p50 {:.2}x, p99 {:.2}x, p99.9 {:.2}x",
                r(0.5),
                r(0.99),
                r(0.999)
            )
        };
        if let Some(f) = &outcome.floor {
            println!(
                "  ratio gateway (place + cancel) / floor: {}   (the gateway's own cost; goal p50 ≤ 1.15x, p99 ≤ 1.3x)",
                ratio(&outcome.like_floor, f)
            );
            println!("  ratio gateway (every request) / floor: {}", ratio(rt, f));
        }
        if let Some(r) = &outcome.relay {
            println!(
                "  ratio gateway (every request) / raw relay: {}   (what the gateway, TLS, WebSocket and simulator add)",
                ratio(rt, r)
            );
        }
    }
    if outcome.unexpected.is_empty() {
        println!(
            "\nAll {} orders ended as the flow expected.",
            outcome.orders_sent
        );
    } else {
        println!(
            "\n{} orders ended unexpectedly (first 10):",
            outcome.unexpected.len()
        );
        for (cl, want, got) in outcome.unexpected.iter().take(10) {
            println!("  ClOrdID {cl}: expected {want}, got {got}");
        }
    }
}

/// Writes the percentile distribution of the gateway legs, the strategy round trip and the
/// raw relay's round trip to `path` (SVG; see [`crate::plot`]).
///
/// Errors: the file could not be written, as text.
pub fn plot(outcome: &DemoOutcome, path: &std::path::Path) -> Result<(), String> {
    let mut series: Vec<(&str, &Histogram<u64>)> = [
        (Leg::RoundTrip, "round trip (strategy)"),
        (Leg::StrategyToExchange, "frame read → WS write"),
        (Leg::PushToReport, "push read → report write"),
        (Leg::ExchangeReply, "WS write → trade reply"),
    ]
    .into_iter()
    .map(|(leg, name)| (name, outcome.legs.get(leg)))
    .collect();
    if let Some(floor) = &outcome.floor {
        series.push(("floor round trip (TLS WS, pre-rendered)", floor));
    }
    if let Some(relay) = &outcome.relay {
        series.push(("raw TCP relay round trip", relay));
    }
    crate::plot::percentiles_svg(path, "demo: latency by percentile", &series)
}
