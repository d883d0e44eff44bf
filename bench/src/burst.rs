//! `burst`: a cancel storm (issue 24 item 6). A strategy with N resting orders (default 1 000)
//! cancels them all at once, as after a market move, and the bench prints how long until the
//! last cancel reached the venue and until the last Canceled ExecutionReport came back, under
//! three set-ups of the gateway:
//!
//! - **budget off**: the unlimited tier (what a benchmark or a venue without limits allows);
//!   N OrderCancelRequests written back to back;
//! - **budget on, one cancel each**: Bitget's cancel quotas (`cancel-order` 10/s per UID; the
//!   places and the connection's frames left unlimited so that the set-up takes seconds, the
//!   connection's 10 frames/s would bind the same), the session's policy `queue` with a deadline
//!   long enough for all: the gateway holds each cancel until the quota has a token;
//! - **budget on, one OrderMassCancelRequest**: the same quotas; the gateway cancels the
//!   session's orders with `batch-cancel` ops of 20 (Bitget: 5/s per UID).
//!
//! "At the venue" is when the simulator had applied the N-th cancel (its `orders_cancelled`
//! counter, read every 100 µs by a bench thread); "answered" when the strategy read the N-th
//! Canceled ExecutionReport. Both from the first cancel's send.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use codec::sbe::{
    Category, ExecType, MassCancelRequestType, OrderCancelRequest, OrderMassCancelRequest, Side,
    Symbol,
};
use gateway::budget::{Overrides, RateConfig, Tier};
use gateway::idle::IdleStrategy;
use gateway::types::BudgetPolicy;
use strategy_client::Received;

use crate::rig::{limit_buy, price_at, Market, Rig, RigOptions};

/// How the gateway is set up for one storm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// The unlimited tier; N single cancels.
    BudgetOff,
    /// Bitget's cancel quotas, `queue` policy; N single cancels.
    BudgetOnSingles,
    /// Bitget's cancel quotas; one OrderMassCancelRequest (scope Session).
    BudgetOnMass,
}

impl Scenario {
    /// Every scenario, in the order the bench runs them.
    pub const ALL: [Scenario; 3] = [
        Scenario::BudgetOff,
        Scenario::BudgetOnSingles,
        Scenario::BudgetOnMass,
    ];

    /// A short name for the table.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::BudgetOff => "budget off, N cancels",
            Scenario::BudgetOnSingles => "budget on, N cancels",
            Scenario::BudgetOnMass => "budget on, 1 mass cancel",
        }
    }

    /// What bounds the storm in this set-up.
    pub fn bound(self) -> &'static str {
        match self {
            Scenario::BudgetOff => "the hop and the venue (no quota)",
            Scenario::BudgetOnSingles => "cancel-order 10/s per UID: N / 10 s",
            Scenario::BudgetOnMass => "batch-cancel 5/s × 20 per op: N / 100 s",
        }
    }
}

/// What one storm measured.
#[derive(Debug, Clone)]
pub struct BurstResult {
    /// The set-up.
    pub scenario: Scenario,
    /// Orders placed (and then cancelled).
    pub orders: usize,
    /// First cancel sent → the venue had applied the last one.
    pub at_venue: Option<Duration>,
    /// First cancel sent → the first Canceled ExecutionReport read.
    pub first_answer: Option<Duration>,
    /// First cancel sent → the last Canceled ExecutionReport read.
    pub last_answer: Option<Duration>,
    /// Cancels refused (OrderCancelReject) or orders not reported Canceled before the deadline.
    pub refused: usize,
}

/// Runs one storm of `orders` cancels in `scenario` (a fresh simulator and gateway).
///
/// Errors: the rig did not start, a send failed, or the orders were not all placed.
pub fn run(scenario: Scenario, orders: usize) -> Result<BurstResult, String> {
    let session_id = 301;
    let budget_on = scenario != Scenario::BudgetOff;
    let rig = Rig::start_with(
        &RigOptions {
            sessions: vec![session_id],
            idle: IdleStrategy::Park,
            pin: false,
            placement: Default::default(),
            report_interval_ms: 600_000,
            print_reports: false,
            hlog_path: None,
            order_capacity: Some(orders.max(1_024) * 2),
            sim_process: false,
            venue: sim::config::VenueMode::Full,
            // The storm's N resting orders (1 000 by default) are more than Bitget lets one
            // account keep open (25211): caps off.
            open_order_caps: false,
        },
        |s| {
            if budget_on {
                // Bitget's cancel quotas; places and connection frames unlimited so that
                // placing N orders takes seconds.
                s.rate = RateConfig {
                    tier: Tier::Bitget,
                    overrides: Overrides {
                        connection: Some(0),
                        place_order: Some(0),
                        batch_place: Some(0),
                        ..Overrides::default()
                    },
                    ..RateConfig::bitget()
                };
                for g in &mut s.sessions {
                    g.budget = BudgetPolicy::Queue(Duration::from_secs(600));
                }
            }
        },
    )?;
    let result = storm(&rig, session_id, scenario, orders);
    let _ = rig.shutdown();
    result
}

fn storm(
    rig: &Rig,
    session_id: u64,
    scenario: Scenario,
    orders: usize,
) -> Result<BurstResult, String> {
    let m: Market = *rig
        .markets
        .iter()
        .find(|m| m.category == Category::UsdtFutures)
        .ok_or("no usdt-futures market")?;
    let mut client = rig.connect(session_id, true)?;
    // Place N resting orders, a window of 64 in flight.
    let price = price_at(&m, "0.9");
    let mut live = 0usize;
    let mut sent = 0usize;
    while live < orders {
        while sent < orders && sent - live < 64 {
            sent += 1;
            client
                .send_new_order(&limit_buy(sent as u64, m.symbol, m.category, price, m.qty))
                .map_err(|e| e.to_string())?;
        }
        match client
            .recv(Duration::from_secs(10))
            .map_err(|e| e.to_string())?
        {
            Some(Received::Exec(er)) if er.exec_type == ExecType::New => live += 1,
            Some(Received::Exec(er)) if er.exec_type == ExecType::Rejected => {
                return Err(format!(
                    "order {} rejected: {}",
                    er.cl_ord_id,
                    er.text.as_str()
                ))
            }
            Some(_) => {}
            None => return Err(format!("{live} of {orders} orders placed, then silence")),
        }
    }
    let base = rig.sim_stats().map_or(0, |s| s.orders_cancelled);
    let venue_done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let watcher = {
        let (venue_done, stop) = (Arc::clone(&venue_done), Arc::clone(&stop));
        let target = base + orders as u64;
        let stats = rig.sim_stats_reader();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if stats
                    .as_ref()
                    .is_some_and(|s| s.read().orders_cancelled >= target)
                {
                    let ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    venue_done.store(ns.max(1), Ordering::Release);
                    return;
                }
                std::thread::sleep(Duration::from_micros(100));
            }
        })
    };
    match scenario {
        Scenario::BudgetOff | Scenario::BudgetOnSingles => {
            for i in 1..=orders as u64 {
                client
                    .send_cancel(&OrderCancelRequest {
                        cl_ord_id: orders as u64 + i,
                        orig_cl_ord_id: i,
                        transact_time: gateway::metrics::utc_now_ns(),
                        symbol: m.symbol,
                        category: m.category,
                        side: Side::Buy,
                    })
                    .map_err(|e| e.to_string())?;
            }
        }
        Scenario::BudgetOnMass => {
            let req = OrderMassCancelRequest {
                cl_ord_id: 2 * orders as u64 + 1,
                transact_time: gateway::metrics::utc_now_ns(),
                symbol: Symbol::default(),
                mass_cancel_request_type: MassCancelRequestType::Session,
                category: None,
                side: None,
            };
            client
                .send_frame(|b| req.encode_frame(b))
                .map_err(|e| e.to_string())?;
        }
    }
    let mut cancelled = 0usize;
    let mut refused = 0usize;
    let mut first_answer = None;
    let deadline = t0 + Duration::from_secs(600);
    while cancelled + refused < orders && Instant::now() < deadline {
        let got = client
            .recv(Duration::from_secs(5))
            .map_err(|e| e.to_string())?;
        match got {
            Some(Received::Exec(er)) if er.exec_type == ExecType::Canceled => {
                cancelled += 1;
                first_answer.get_or_insert_with(|| t0.elapsed());
            }
            Some(Received::CancelReject(_)) => refused += 1,
            Some(_) | None => {}
        }
    }
    let last_answer = (cancelled == orders).then(|| t0.elapsed());
    // The venue applied them all by the time the last report came (or never will).
    std::thread::sleep(Duration::from_millis(5));
    stop.store(true, Ordering::Relaxed);
    let _ = watcher.join();
    let _ = client.terminate();
    let at_venue = match venue_done.load(Ordering::Acquire) {
        0 => None,
        ns => Some(Duration::from_nanos(ns)),
    };
    Ok(BurstResult {
        scenario,
        orders,
        at_venue,
        first_answer,
        last_answer,
        refused: refused + (orders - cancelled - refused),
    })
}

impl BurstResult {
    /// What makes the storm fail (`None`: it passed): a cancel refused or an order not
    /// reported Canceled before the deadline, or the venue not having applied every cancel.
    /// The times are never judged.
    pub fn failure(&self) -> Option<String> {
        if self.refused > 0 {
            return Some(format!(
                "{}: {} of {} orders not cancelled (OrderCancelReject or no Canceled report)",
                self.scenario.name(),
                self.refused,
                self.orders
            ));
        }
        if self.at_venue.is_none() {
            return Some(format!(
                "{}: the venue did not apply every cancel",
                self.scenario.name()
            ));
        }
        None
    }
}

/// Prints the results as a table.
pub fn print(results: &[BurstResult]) {
    let ms = |d: Option<Duration>| {
        d.map_or_else(
            || "-".to_string(),
            |d| format!("{:.1}", d.as_secs_f64() * 1e3),
        )
    };
    println!(
        "{:<26} {:>7} {:>14} {:>14} {:>14} {:>8}  bound",
        "set-up", "orders", "first ans. ms", "at venue ms", "last ans. ms", "refused"
    );
    for r in results {
        println!(
            "{:<26} {:>7} {:>14} {:>14} {:>14} {:>8}  {}",
            r.scenario.name(),
            r.orders,
            ms(r.first_answer),
            ms(r.at_venue),
            ms(r.last_answer),
            r.refused,
            r.scenario.bound()
        );
    }
}
