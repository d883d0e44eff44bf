//! What the metrics endpoint reads: counters and gauges the gateway's threads publish, shared
//! behind one `Arc<MetricsState>`.
//!
//! Who writes what, and when:
//!
//! - the io thread and the tracker thread bump [`MetricsState::reports`] for every
//!   ExecutionReport, OrderCancelReject and BusinessMessageReject they write (one `Relaxed`
//!   atomic add, no lock, no allocation);
//! - the io thread sets each account's link phase when it changes and, every
//!   [`PUBLISH_PERIOD`], the established sessions, the rate-budget buckets and the journal
//!   byte counts (off the order path: a task of its own);
//! - the tracker thread copies its counters ([`TrackerStats`]) every [`PUBLISH_PERIOD`] while
//!   idle;
//! - the reporter thread publishes the whole run's per-leg latency summary each time it merges
//!   a snapshot (every `[metrics] report_interval_ms`).
//!
//! This module imports nothing else of the gateway (the engine fills it), so every thread can
//! hold it.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use gateway_core::health::{readiness, LinkPhase, NotReady, ReadinessInputs};
use gateway_core::journal::durability::{JournalOp, StorageFault};
use gateway_core::metrics::CumulativeBuckets;
use gateway_core::tracker::{OrderCounts, ReportMsg, TrackerStats};
use parking_lot::Mutex;

use super::{Leg, LegHistograms, Percentiles, ReportCounters};

/// How often the io and tracker threads copy their state for the endpoint.
pub const PUBLISH_PERIOD: Duration = Duration::from_millis(200);

/// One rate-budget bucket of an account, as last published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetGauge {
    /// Account index (names: [`MetricsState::links`]).
    pub account: usize,
    /// Bucket name (`place-order`, ..., `connection`).
    pub bucket: &'static str,
    /// Endpoint id (connection buckets: one per connection, see `gateway_core::budget`).
    pub endpoint_id: u16,
    /// Sends per window (0: unlimited).
    pub limit: u32,
    /// Sends left now (`u32::MAX` when unlimited).
    pub remaining: u32,
}

/// One session's journal file, as last published: failing or not (storage faults,
/// `gateway_core::journal::durability`) and the errors seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JournalHealth {
    /// The session.
    pub session_id: u64,
    /// While failing: the fault and the operation that failed.
    pub failing: Option<(StorageFault, JournalOp)>,
    /// Errors seen since start, by `StorageFault::index`.
    pub errors: [u64; StorageFault::ALL.len()],
}

/// Trade ops written on one exchange connection since start, as last published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnOps {
    /// Account index (names: [`MetricsState::links`]).
    pub account: usize,
    /// Connection index in the account's pool (0 carries the subscriptions).
    pub conn: usize,
    /// Ops by endpoint, in `gateway_core::budget::ENDPOINTS` order (place-order, batch-place,
    /// modify-order, batch-modify, cancel-order, batch-cancel).
    pub ops: [u64; 6],
}

/// Whole-run latency of one leg: [`Percentiles`] (ns), the sum of all samples and their
/// cumulative counts at the Prometheus bucket bounds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LegSummary {
    /// Count and percentiles, ns.
    pub p: Percentiles,
    /// Sum of the samples, ns, as the histogram holds them (each at its bucket's value:
    /// relative error ≤ 0.1 %).
    pub sum_ns: f64,
    /// Samples at or below each of [`gateway_core::metrics::BUCKET_BOUNDS_NS`].
    pub buckets: CumulativeBuckets,
}

impl LegSummary {
    /// The summary of one histogram.
    pub fn of(h: &hdrhistogram::Histogram<u64>) -> LegSummary {
        LegSummary {
            p: Percentiles::of(h),
            sum_ns: if h.is_empty() {
                0.0
            } else {
                h.mean() * h.len() as f64
            },
            buckets: CumulativeBuckets::of(h),
        }
    }
}

/// The tracker's counters as last published (see [`TrackerStats`]).
#[derive(Debug, Default)]
struct TrackerCell {
    outcome_unknown: AtomicU64,
    resolved_applied: AtomicU64,
    resolved_not_applied: AtomicU64,
    duplicate_fills: AtomicU64,
    unknown_pushes: AtomicU64,
    not_shown: AtomicU64,
    late_for_evicted: AtomicU64,
    evicted: AtomicU64,
    /// Orders with a request whose outcome is still unknown (`Tracker::unresolved`).
    unresolved: AtomicU64,
    /// Orders held (see [`OrderCounts`]).
    orders_open: AtomicU64,
    orders_ended: AtomicU64,
    tombstones: AtomicU64,
}

/// Everything the metrics endpoint reads (see the module doc).
#[derive(Debug)]
pub struct MetricsState {
    /// Strategy-facing message counts.
    pub reports: ReportCounters,
    accounts: Vec<String>,
    links: Vec<AtomicU8>,
    restoring: AtomicBool,
    accepting: AtomicBool,
    sessions_granted: u64,
    sessions_established: AtomicU64,
    journal_written: AtomicU64,
    journal_pending: AtomicU64,
    tracker: TrackerCell,
    budget: Mutex<Vec<BudgetGauge>>,
    conn_ops: Mutex<Vec<ConnOps>>,
    legs: Mutex<[LegSummary; Leg::COUNT]>,
    journal_health: Mutex<Vec<JournalHealth>>,
    /// Strategy connections refused and failed accepts (bumped by the accept loop).
    pub admission: Arc<gateway_core::admission::AdmissionCounters>,
    /// The operator's control surface: actions counted, kill switches, drained sessions.
    pub control: Arc<super::control::ControlMetrics>,
}

impl MetricsState {
    /// State for the named accounts (every link [`LinkPhase::Down`], not accepting) and
    /// `sessions_granted` configured sessions.
    pub fn new(accounts: Vec<String>, sessions_granted: usize) -> MetricsState {
        let control = Arc::new(super::control::ControlMetrics::new(accounts.clone()));
        MetricsState {
            reports: ReportCounters::new(),
            links: accounts
                .iter()
                .map(|_| AtomicU8::new(LinkPhase::Down as u8))
                .collect(),
            accounts,
            restoring: AtomicBool::new(false),
            accepting: AtomicBool::new(false),
            sessions_granted: u64::try_from(sessions_granted).unwrap_or(u64::MAX),
            sessions_established: AtomicU64::new(0),
            journal_written: AtomicU64::new(0),
            journal_pending: AtomicU64::new(0),
            tracker: TrackerCell::default(),
            budget: Mutex::new(Vec::new()),
            conn_ops: Mutex::new(Vec::new()),
            legs: Mutex::new([LegSummary::default(); Leg::COUNT]),
            journal_health: Mutex::new(Vec::new()),
            admission: Arc::default(),
            control,
        }
    }

    /// Counts a report written to a session (not for drop copies or retransmissions).
    #[inline]
    pub fn count_report(&self, msg: &ReportMsg) {
        match msg {
            ReportMsg::Exec(er) => self.reports.on_execution_report(er),
            ReportMsg::CancelReject(r) => self.reports.on_cancel_reject(r),
            ReportMsg::MassCancel(_) => {}
        }
    }

    /// Sets the phase of account `account`'s primary link.
    pub fn set_link(&self, account: usize, phase: LinkPhase) {
        if let Some(l) = self.links.get(account) {
            l.store(phase as u8, Ordering::Relaxed);
        }
    }

    /// The name of account `account` (`"?"` for an unknown index).
    pub fn account_name(&self, account: usize) -> &str {
        self.accounts.get(account).map_or("?", String::as_str)
    }

    /// The account names and their primary links' phases, by account index.
    pub fn links(&self) -> Vec<(&str, LinkPhase)> {
        self.accounts
            .iter()
            .zip(&self.links)
            .map(|(a, l)| (a.as_str(), LinkPhase::from_u8(l.load(Ordering::Relaxed))))
            .collect()
    }

    /// Crash recovery started (`true`) or ended.
    pub fn set_restoring(&self, on: bool) {
        self.restoring.store(on, Ordering::Relaxed);
    }

    /// The strategy listener accepts sessions (`true`) or stopped.
    pub fn set_accepting(&self, on: bool) {
        self.accepting.store(on, Ordering::Relaxed);
    }

    /// `Ok(())` when ready, else the one-line reason (see [`gateway_core::health`]).
    pub fn readiness(&self) -> Result<(), String> {
        let links = self.links();
        let journal_failing = self
            .journal_health
            .lock()
            .iter()
            .find_map(|j| j.failing.map(|(f, op)| (j.session_id, f, op)));
        readiness(&ReadinessInputs {
            links: &links,
            restoring: self.restoring.load(Ordering::Relaxed),
            accepting: self.accepting.load(Ordering::Relaxed),
            journal_failing,
        })
        .map_err(|e: NotReady<'_>| e.to_string())
    }

    /// Publishes the number of established sessions.
    pub fn set_sessions_established(&self, n: usize) {
        self.sessions_established
            .store(u64::try_from(n).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Configured sessions and established ones.
    pub fn sessions(&self) -> (u64, u64) {
        (
            self.sessions_granted,
            self.sessions_established.load(Ordering::Relaxed),
        )
    }

    /// Publishes the journal byte counts summed over the sessions: written to the stores, and
    /// waiting for the journal thread.
    pub fn set_journal(&self, written: u64, pending: u64) {
        self.journal_written.store(written, Ordering::Relaxed);
        self.journal_pending.store(pending, Ordering::Relaxed);
    }

    /// Publishes the journal health of every session with a journal file: `fill` rewrites the
    /// list in place (cleared first, its capacity kept).
    pub fn set_journal_health(&self, fill: impl FnOnce(&mut Vec<JournalHealth>)) {
        let mut list = self.journal_health.lock();
        list.clear();
        fill(&mut list);
    }

    /// The journal health of the sessions as last published.
    pub fn journal_health(&self) -> Vec<JournalHealth> {
        self.journal_health.lock().clone()
    }

    /// Journal bytes written and pending (see [`MetricsState::set_journal`]).
    pub fn journal(&self) -> (u64, u64) {
        (
            self.journal_written.load(Ordering::Relaxed),
            self.journal_pending.load(Ordering::Relaxed),
        )
    }

    /// Publishes the tracker's counters.
    pub fn set_tracker(&self, s: &TrackerStats) {
        let t = &self.tracker;
        t.outcome_unknown
            .store(s.outcome_unknown, Ordering::Relaxed);
        t.resolved_applied
            .store(s.resolved_applied, Ordering::Relaxed);
        t.resolved_not_applied
            .store(s.resolved_not_applied, Ordering::Relaxed);
        t.duplicate_fills
            .store(s.duplicate_fills, Ordering::Relaxed);
        t.unknown_pushes.store(s.unknown_pushes, Ordering::Relaxed);
        t.not_shown.store(s.not_shown, Ordering::Relaxed);
        t.late_for_evicted
            .store(s.late_for_evicted, Ordering::Relaxed);
        t.evicted.store(s.evicted, Ordering::Relaxed);
    }

    /// Publishes the orders the tracker holds (live open, live ended, tombstones).
    pub fn set_tracker_orders(&self, c: &OrderCounts) {
        let t = &self.tracker;
        let n = |v: usize| u64::try_from(v).unwrap_or(u64::MAX);
        t.orders_open.store(n(c.open), Ordering::Relaxed);
        t.orders_ended.store(n(c.ended), Ordering::Relaxed);
        t.tombstones.store(n(c.tombstones), Ordering::Relaxed);
    }

    /// Publishes the number of orders with a request whose outcome is still unknown (queried
    /// from the exchange; see `gateway_core::tracker::Tracker::unresolved`).
    pub fn set_unresolved(&self, orders: usize) {
        self.tracker
            .unresolved
            .store(u64::try_from(orders).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Orders with an unknown outcome not yet resolved, as last published.
    pub fn unresolved(&self) -> u64 {
        self.tracker.unresolved.load(Ordering::Relaxed)
    }

    /// The orders the tracker holds, as last published.
    pub fn tracker_orders(&self) -> OrderCounts {
        let t = &self.tracker;
        let g = |a: &AtomicU64| usize::try_from(a.load(Ordering::Relaxed)).unwrap_or(usize::MAX);
        OrderCounts {
            open: g(&t.orders_open),
            ended: g(&t.orders_ended),
            tombstones: g(&t.tombstones),
        }
    }

    /// The tracker's counters as last published (the fields not published stay 0).
    pub fn tracker(&self) -> TrackerStats {
        let t = &self.tracker;
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        TrackerStats {
            outcome_unknown: g(&t.outcome_unknown),
            resolved_applied: g(&t.resolved_applied),
            resolved_not_applied: g(&t.resolved_not_applied),
            duplicate_fills: g(&t.duplicate_fills),
            unknown_pushes: g(&t.unknown_pushes),
            not_shown: g(&t.not_shown),
            late_for_evicted: g(&t.late_for_evicted),
            evicted: g(&t.evicted),
            ..TrackerStats::default()
        }
    }

    /// Publishes the rate-budget buckets of every account: `fill` rewrites the list in place
    /// (it is cleared first; its capacity stays, so a publisher that fills the same number of
    /// buckets each time allocates only the first time).
    pub fn set_budget(&self, fill: impl FnOnce(&mut Vec<BudgetGauge>)) {
        let mut list = self.budget.lock();
        list.clear();
        fill(&mut list);
    }

    /// The rate-budget buckets as last published.
    pub fn budget(&self) -> Vec<BudgetGauge> {
        self.budget.lock().clone()
    }

    /// Publishes the trade ops written per exchange connection: `fill` rewrites the list in
    /// place (cleared first; its capacity stays, as [`MetricsState::set_budget`]'s).
    pub fn set_conn_ops(&self, fill: impl FnOnce(&mut Vec<ConnOps>)) {
        let mut list = self.conn_ops.lock();
        list.clear();
        fill(&mut list);
    }

    /// The trade ops per exchange connection as last published.
    pub fn conn_ops(&self) -> Vec<ConnOps> {
        self.conn_ops.lock().clone()
    }

    /// Publishes the whole run's latency histograms (summarised here, on the caller's thread).
    pub fn set_legs(&self, legs: &LegHistograms) {
        let summary: [LegSummary; Leg::COUNT] =
            std::array::from_fn(|i| LegSummary::of(legs.get(Leg::ALL[i])));
        *self.legs.lock() = summary;
    }

    /// The whole run's latency per leg, in [`Leg::ALL`] order.
    pub fn legs(&self) -> [LegSummary; Leg::COUNT] {
        *self.legs.lock()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_follows_the_published_state() {
        let s = MetricsState::new(vec!["main".into()], 2);
        assert_eq!(
            s.readiness(),
            Err("exchange link down (account main)".into())
        );
        s.set_link(0, LinkPhase::Up);
        s.set_restoring(true);
        assert_eq!(
            s.readiness(),
            Err("restoring sessions from the journal".into())
        );
        s.set_restoring(false);
        assert_eq!(s.readiness(), Err("not accepting sessions".into()));
        s.set_accepting(true);
        assert_eq!(s.readiness(), Ok(()));
        s.set_link(0, LinkPhase::Reconciling);
        assert_eq!(s.readiness(), Err("reconciling (account main)".into()));
        s.set_link(7, LinkPhase::Up); // no such account: ignored
    }

    #[test]
    fn legs_are_summarised() {
        let s = MetricsState::new(Vec::new(), 0);
        let mut h = LegHistograms::new();
        for i in 1..=100u64 {
            h.record(Leg::StrategyToExchange, i * 1_000);
        }
        s.set_legs(&h);
        let l = s.legs()[Leg::StrategyToExchange.index()];
        assert_eq!(l.p.count, 100);
        assert!(
            (l.sum_ns - 5_050_000.0).abs() / 5_050_000.0 < 0.002,
            "{l:?}"
        );
        assert_eq!(s.legs()[Leg::FirstPush.index()].p.count, 0);
        assert_eq!(l.buckets.count, 100);
        assert_eq!(l.buckets.le[0], 1, "1 µs");
        assert_eq!(l.buckets.le[gateway_core::metrics::BUCKETS - 1], 100);
    }
}
