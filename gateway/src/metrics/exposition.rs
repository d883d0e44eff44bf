//! The Prometheus text exposition (format 0.0.4) of the gateway's metrics, encoded by the
//! `prometheus` crate's `TextEncoder` from metric families built here out of the published
//! state ([`MetricsState`]) at scrape time, on the metrics endpoint's thread.
//!
//! Names start with `bgw_`, carry their unit (`_seconds`, `_bytes`) and counters end in
//! `_total`. Label values of message enums are the SBE schema's names (`codec/schema/bgw.xml`:
//! `New`, `PartialFill`, `RiskLimit`, ...).
//!
//! Latency per leg, in seconds, comes from the HDR histograms the reporter merges (the same
//! samples as the gateway's "whole run" table) in two views:
//! - `bgw_leg_latency_seconds`, a Prometheus histogram: cumulative counts at 37 bounds from
//!   1 µs to 1 s ([`gateway_core::metrics::BUCKET_BOUNDS_NS`]) and `+Inf`, `_sum`, `_count`.
//!   This is what rules and dashboards use: `histogram_quantile(0.99, sum by (le, leg)
//!   (rate(bgw_leg_latency_seconds_bucket[5m])))` is the p99 of the last 5 minutes;
//! - `bgw_leg_latency_run_seconds`, a summary of the whole run: quantiles 0.5, 0.9, 0.99,
//!   0.999 and 1 (the max), exact to the HDR histogram's 0.1 %, for a glance at one gateway.
//!
//! Both are refreshed when the reporter merges a snapshot (every `[metrics]
//! report_interval_ms`). The `process_*` families (open and maximum file descriptors, resident
//! memory, CPU seconds, threads, start time) are the `prometheus` crate's process collector.

use codec::sbe::{BusinessRejectReason, CxlRejReason, ExecType, OrdRejReason, OrdStatus};
use gateway_core::health::LinkPhase;
use gateway_core::journal::durability::StorageFault;
use gateway_core::metrics::BUCKET_BOUNDS_NS;
use prometheus::core::Collector;
use prometheus::proto::{Bucket, Histogram, Metric, MetricFamily, MetricType, Quantile, Summary};
use prometheus::{Encoder, TextEncoder};

use super::proto::{bool_f, counter, family, gauge, labels};
use super::state::{BudgetGauge, MetricsState};
use super::Leg;

/// The `Content-Type` of the exposition (`text/plain; version=0.0.4`).
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Exchange link failures and reconnects of one account (from the engine's reconnect
/// counters), by account index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkCounters {
    /// Reconnects completed.
    pub reconnects: u64,
    /// Link failures by cause (`closed`, `pong_timeout`, `write_failed`, `upgrade_notice`,
    /// `silent`).
    pub failures: Vec<(&'static str, u64)>,
    /// Connect or login attempts that failed during reconnects.
    pub failed_attempts: u64,
}

/// Final OrdStatus values an order can end in (label `state` of `bgw_orders_total`).
const FINAL_STATES: [OrdStatus; 3] = [OrdStatus::Filled, OrdStatus::Canceled, OrdStatus::Rejected];

/// Quantiles exported per leg (1.0 is the max).
const QUANTILES: [f64; 5] = [0.5, 0.9, 0.99, 0.999, 1.0];

/// Seconds from nanoseconds.
fn secs(ns: f64) -> f64 {
    ns / 1e9
}

/// Every metric family, in exposition order.
pub fn families(state: &MetricsState, links: &[LinkCounters]) -> Vec<MetricFamily> {
    use MetricType::{COUNTER, GAUGE, HISTOGRAM, SUMMARY};
    let r = &state.reports;
    let mut out = Vec::new();

    out.push(family(
        "bgw_ready",
        "1 when /readyz answers 200: every account's exchange link logged in and reconciled, crash recovery done, sessions accepted.",
        GAUGE,
        vec![gauge(&[], bool_f(state.readiness().is_ok()))],
    ));
    out.push(family(
        "bgw_orders_total",
        "Orders closed, by final OrdStatus (ExecutionReports with a final status, mass status answers left out).",
        COUNTER,
        FINAL_STATES
            .iter()
            .map(|s| counter(&[("state", name_of(OrdStatus::VALUES, s.to_wire()))], r.orders_closed(*s)))
            .collect(),
    ));
    out.push(family(
        "bgw_execution_reports_total",
        "ExecutionReports written to strategy sessions, by ExecType (drop copies and retransmissions left out).",
        COUNTER,
        ExecType::ALL
            .iter()
            .map(|t| counter(&[("exec_type", name_of(ExecType::VALUES, t.to_wire()))], r.execution_reports(*t)))
            .collect(),
    ));
    let mut rejects = Vec::new();
    for reason in OrdRejReason::ALL {
        let v = r.order_rejects(Some(*reason));
        rejects.push(counter(
            &[
                ("message", "ExecutionReport"),
                ("reason", name_of(OrdRejReason::VALUES, reason.to_wire())),
            ],
            v,
        ));
    }
    rejects.push(counter(
        &[("message", "ExecutionReport"), ("reason", "None")],
        r.order_rejects(None),
    ));
    for reason in CxlRejReason::ALL {
        rejects.push(counter(
            &[
                ("message", "OrderCancelReject"),
                ("reason", name_of(CxlRejReason::VALUES, reason.to_wire())),
            ],
            r.cancel_rejects(*reason),
        ));
    }
    for reason in BusinessRejectReason::ALL {
        rejects.push(counter(
            &[
                ("message", "BusinessMessageReject"),
                (
                    "reason",
                    name_of(BusinessRejectReason::VALUES, reason.to_wire()),
                ),
            ],
            r.business_rejects(*reason),
        ));
    }
    out.push(family(
        "bgw_rejects_total",
        "Refusals written to strategy sessions, by message (Rejected ExecutionReport, OrderCancelReject, BusinessMessageReject) and reason (OrdRejReason, CxlRejReason, BusinessRejectReason).",
        COUNTER,
        rejects,
    ));

    let (granted, established) = state.sessions();
    out.push(family(
        "bgw_sessions",
        "Configured strategy sessions by state: established (a connection is attached) or not_established.",
        GAUGE,
        vec![
            gauge(&[("state", "established")], established as f64),
            gauge(&[("state", "not_established")], granted.saturating_sub(established) as f64),
        ],
    ));

    let link_states = state.links();
    out.push(family(
        "bgw_exchange_link_up",
        "1 while the account's subscribed private WebSocket is logged in and reconciled (its orders are accepted).",
        GAUGE,
        link_states
            .iter()
            .map(|(a, p)| gauge(&[("account", a)], bool_f(*p == LinkPhase::Up)))
            .collect(),
    ));
    let mut phases = Vec::new();
    for (a, p) in &link_states {
        for q in [LinkPhase::Down, LinkPhase::Reconciling, LinkPhase::Up] {
            phases.push(gauge(
                &[("account", a), ("state", q.name())],
                bool_f(*p == q),
            ));
        }
    }
    out.push(family(
        "bgw_exchange_link_state",
        "1 for the state the account's subscribed private WebSocket is in: down (connecting or reconnecting), reconciling, up.",
        GAUGE,
        phases,
    ));
    let account = |ix: usize| link_states.get(ix).map_or("?", |(a, _)| *a);
    out.push(family(
        "bgw_exchange_reconnects_total",
        "Exchange link reconnects completed (logged in, resubscribed and, for the subscribed link, reconciled).",
        COUNTER,
        links
            .iter()
            .enumerate()
            .map(|(ix, l)| counter(&[("account", account(ix))], l.reconnects))
            .collect(),
    ));
    out.push(family(
        "bgw_exchange_link_failures_total",
        "Exchange link failures by cause (closed, pong_timeout, write_failed, upgrade_notice, silent).",
        COUNTER,
        links
            .iter()
            .enumerate()
            .flat_map(|(ix, l)| {
                l.failures
                    .iter()
                    .map(move |(cause, n)| counter(&[("account", account(ix)), ("cause", cause)], *n))
            })
            .collect(),
    ));
    out.push(family(
        "bgw_exchange_connect_failures_total",
        "Connect or login attempts that failed while reconnecting (each retried after a backoff).",
        COUNTER,
        links
            .iter()
            .enumerate()
            .map(|(ix, l)| counter(&[("account", account(ix))], l.failed_attempts))
            .collect(),
    ));

    let budget = state.budget();
    // One gauge per limited bucket, labelled by account, bucket and endpoint id.
    let per_bucket = |value: &dyn Fn(&BudgetGauge) -> u32| -> Vec<_> {
        budget
            .iter()
            .filter(|b| b.limit > 0)
            .map(|b| {
                let id = b.endpoint_id.to_string();
                gauge(
                    &[
                        ("account", state.account_name(b.account)),
                        ("bucket", b.bucket),
                        ("endpoint_id", &id),
                    ],
                    f64::from(value(b)),
                )
            })
            .collect()
    };
    out.push(family(
        "bgw_rate_budget_tokens",
        "Sends left in the rate-budget bucket's current window (limited buckets only).",
        GAUGE,
        per_bucket(&|b| b.remaining),
    ));
    out.push(family(
        "bgw_rate_budget_limit",
        "Sends per window of the rate-budget bucket (limited buckets only).",
        GAUGE,
        per_bucket(&|b| b.limit),
    ));
    let ops: Vec<Metric> = state
        .conn_ops()
        .iter()
        .flat_map(|c| {
            let conn = c.conn.to_string();
            let account = state.account_name(c.account);
            gateway_core::budget::ENDPOINTS
                .iter()
                .zip(c.ops)
                .map(move |((op, _), n)| {
                    counter(&[("account", account), ("conn", &conn), ("op", op)], n)
                })
        })
        .collect();
    out.push(family(
        "bgw_exchange_trade_ops_total",
        "Trade ops written per private WebSocket connection of the account (conn 0 carries the subscriptions), by op: new orders spread over the connections, an order's modifies and cancels follow its place.",
        COUNTER,
        ops,
    ));

    let t = state.tracker();
    out.push(family(
        "bgw_unknown_outcomes_total",
        "Requests whose outcome became unknown (outcome-unknown code, reply timeout, link drop); each is resolved by querying the order.",
        COUNTER,
        vec![counter(&[], t.outcome_unknown)],
    ));
    out.push(family(
        "bgw_unknown_outcome_resolutions_total",
        "Unknown outcomes resolved from the exchange's state, by result (applied, not_applied).",
        COUNTER,
        vec![
            counter(&[("result", "applied")], t.resolved_applied),
            counter(&[("result", "not_applied")], t.resolved_not_applied),
        ],
    ));
    out.push(family(
        "bgw_unknown_outcomes_unresolved",
        "Orders with a request whose outcome is still unknown, waiting for the exchange's state (queries held while the link is down).",
        GAUGE,
        vec![gauge(&[], state.unresolved() as f64)],
    ));
    out.push(family(
        "bgw_duplicate_fills_total",
        "Fills whose execId had already been counted (dropped).",
        COUNTER,
        vec![counter(&[], t.duplicate_fills)],
    ));
    out.push(family(
        "bgw_unknown_pushes_total",
        "Exchange pushes whose clientOid is not one of the gateway's or not known.",
        COUNTER,
        vec![counter(&[], t.unknown_pushes)],
    ));
    out.push(family(
        "bgw_evicted_late_pushes_total",
        "Order pushes and fills for an order already evicted from the tracker, recognised by its tombstone (late or duplicated; dropped).",
        COUNTER,
        vec![counter(&[], t.late_for_evicted)],
    ));
    out.push(family(
        "bgw_tracker_evictions_total",
        "Ended orders evicted from the tracker's live table after the retention window (each leaves a tombstone).",
        COUNTER,
        vec![counter(&[], t.evicted)],
    ));
    let held = state.tracker_orders();
    out.push(family(
        "bgw_tracker_orders",
        "Orders in the tracker's live table, by state (open; ended, kept for the retention window).",
        GAUGE,
        vec![
            gauge(&[("state", "open")], held.open as f64),
            gauge(&[("state", "ended")], held.ended as f64),
        ],
    ));
    out.push(family(
        "bgw_tracker_tombstones",
        "Evicted orders the tracker still recognises (compact tombstones, bounded by [tracker] tombstones).",
        GAUGE,
        vec![gauge(&[], held.tombstones as f64)],
    ));

    out.push(family(
        "bgw_strategy_connections_refused_total",
        "Strategy connections closed by admission over [strategy] max_connections or max_unauthenticated: the oldest unauthenticated one evicted, or a new one refused when all are established.",
        COUNTER,
        vec![counter(&[], state.admission.refused())],
    ));
    out.push(family(
        "bgw_strategy_accept_errors_total",
        "Failed accepts on the strategy listener (each pauses the accept loop, 1 ms doubling to 1 s).",
        COUNTER,
        vec![counter(&[], state.admission.accept_errors())],
    ));

    let (open, limit) = state.admission.open();
    out.push(family(
        "bgw_strategy_connections",
        "Strategy TCP connections open (established or not), refreshed every 200 ms.",
        GAUGE,
        vec![gauge(&[], open as f64)],
    ));
    out.push(family(
        "bgw_strategy_connections_limit",
        "[strategy] max_connections: connections beyond it are refused.",
        GAUGE,
        vec![gauge(&[], limit as f64)],
    ));

    let (written, pending) = state.journal();
    out.push(family(
        "bgw_journal_written_bytes_total",
        "Session journal bytes handed to the journal stores (files, or memory without [journal] dir).",
        COUNTER,
        vec![counter(&[], written)],
    ));
    out.push(family(
        "bgw_journal_pending_bytes",
        "Session journal bytes encoded but not yet in the store (the journal's lag; 0 with journal files, written ahead).",
        GAUGE,
        vec![gauge(&[], pending as f64)],
    ));

    let health = state.journal_health();
    out.push(family(
        "bgw_journal_failing",
        "1 while the session's journal fails (storage fault: new orders and replaces refused, messages held until it is writable again), with the error (ENOSPC, EIO, EROFS, short_write, other) and the operation (append, roll, checkpoint); 0 with error=\"none\" while healthy. Refreshed every 200 ms.",
        GAUGE,
        health
            .iter()
            .map(|j| {
                let session = j.session_id.to_string();
                let (error, op) = j.failing.map_or(("none", "none"), |(f, o)| (f.label(), o.label()));
                gauge(&[("session", &session), ("error", error), ("op", op)], bool_f(j.failing.is_some()))
            })
            .collect(),
    ));
    out.push(family(
        "bgw_journal_errors_total",
        "Failed journal writes (appends, rolls, checkpoints, retries included), by session and error.",
        COUNTER,
        health
            .iter()
            .flat_map(|j| {
                let session = j.session_id.to_string();
                StorageFault::ALL.iter().map(move |f| {
                    counter(&[("session", &session), ("error", f.label())], j.errors[f.index()])
                })
            })
            .collect(),
    ));

    out.extend(state.control.families());
    let legs = state.legs();
    let mut histograms = Vec::new();
    let mut summaries = Vec::new();
    for leg in Leg::ALL {
        if leg == Leg::RoundTrip {
            // Recorded by strategies (the load generator), never by the gateway.
            continue;
        }
        let s = legs[leg.index()];
        let mut h = Histogram::default();
        h.set_sample_count(s.buckets.count);
        h.set_sample_sum(secs(s.sum_ns));
        h.set_bucket(
            BUCKET_BOUNDS_NS
                .iter()
                .zip(s.buckets.le)
                .map(|(bound, n)| {
                    let mut b = Bucket::default();
                    b.set_upper_bound(secs(*bound as f64));
                    b.set_cumulative_count(n);
                    b
                })
                .collect(),
        );
        let mut m = Metric::from_label(labels(&[("leg", leg.tag())]));
        m.set_histogram(h);
        histograms.push(m);
        let p = s.p;
        let values = [p.p50_ns, p.p90_ns, p.p99_ns, p.p999_ns, p.max_ns];
        let mut sum = Summary::default();
        sum.set_sample_count(p.count);
        sum.set_sample_sum(secs(s.sum_ns));
        sum.set_quantile(
            QUANTILES
                .iter()
                .zip(values)
                .map(|(q, v)| {
                    let mut x = Quantile::default();
                    x.set_quantile(*q);
                    x.set_value(if p.count == 0 {
                        f64::NAN
                    } else {
                        secs(v as f64)
                    });
                    x
                })
                .collect(),
        );
        let mut m = Metric::from_label(labels(&[("leg", leg.tag())]));
        m.set_summary(sum);
        summaries.push(m);
    }
    out.push(family(
        "bgw_leg_latency_seconds",
        "Latency of each leg of the order path, cumulative since start (rate() it for a window), buckets 1 us to 1 s from the gateway's HDR histograms: strategy_to_exchange (strategy frame read to exchange frame written), exchange_reply (written to trade reply), first_push (written to first order push), push_to_report (push read to ExecutionReport written).",
        HISTOGRAM,
        histograms,
    ));
    out.push(family(
        "bgw_leg_latency_run_seconds",
        "Whole-run quantiles of each leg's latency from the gateway's HDR histograms (quantile 1 is the max; cannot be windowed or aggregated: use bgw_leg_latency_seconds for that).",
        SUMMARY,
        summaries,
    ));
    out.retain(|f| !f.get_metric().is_empty());
    out
}

/// The schema name of a wire value (`"?"` for one outside the schema, which the typed enums
/// cannot hold).
fn name_of(values: &'static [(&'static str, u8)], wire: u8) -> &'static str {
    values
        .iter()
        .find(|(_, v)| *v == wire)
        .map_or("?", |(n, _)| *n)
}

/// The exposition text of `state` and the engine's link counters.
pub fn render(state: &MetricsState, links: &[LinkCounters]) -> String {
    let mut buf = Vec::with_capacity(16 * 1024);
    // Families are never empty (filtered above) and always named: encoding cannot fail.
    let mut all = families(state, links);
    // The process collector reads /proc/self (Linux); elsewhere it yields nothing. Made once:
    // it reads the boot time and the process's start time when made.
    static PROCESS: std::sync::OnceLock<prometheus::process_collector::ProcessCollector> =
        std::sync::OnceLock::new();
    all.extend(
        PROCESS
            .get_or_init(prometheus::process_collector::ProcessCollector::for_self)
            .collect(),
    );
    let _ = TextEncoder::new().encode(&all, &mut buf);
    String::from_utf8(buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::LegHistograms;

    #[test]
    fn exposition_has_help_type_and_values() {
        let state = MetricsState::new(vec!["main".into()], 3);
        state.set_link(0, LinkPhase::Up);
        state.set_accepting(true);
        state.set_sessions_established(1);
        state
            .reports
            .on_business_reject(BusinessRejectReason::InvalidField);
        let mut h = LegHistograms::new();
        h.record(Leg::StrategyToExchange, 2_000);
        h.record(Leg::StrategyToExchange, 4_000);
        state.set_legs(&h);
        state.set_tracker_orders(&gateway_core::tracker::OrderCounts {
            open: 3,
            ended: 5,
            tombstones: 7,
        });
        let links = vec![LinkCounters {
            reconnects: 2,
            failures: vec![("closed", 2)],
            failed_attempts: 1,
        }];
        let text = render(&state, &links);
        for line in [
            "# TYPE bgw_ready gauge",
            "bgw_ready 1",
            "# TYPE bgw_orders_total counter",
            "bgw_orders_total{state=\"Filled\"} 0",
            "bgw_execution_reports_total{exec_type=\"PartialFill\"} 0",
            "bgw_rejects_total{message=\"BusinessMessageReject\",reason=\"InvalidField\"} 1",
            "bgw_sessions{state=\"established\"} 1",
            "bgw_sessions{state=\"not_established\"} 2",
            "bgw_exchange_link_up{account=\"main\"} 1",
            "bgw_exchange_link_state{account=\"main\",state=\"reconciling\"} 0",
            "bgw_exchange_reconnects_total{account=\"main\"} 2",
            "bgw_exchange_link_failures_total{account=\"main\",cause=\"closed\"} 2",
            "# TYPE bgw_leg_latency_seconds histogram",
            "bgw_leg_latency_seconds_bucket{leg=\"strategy_to_exchange\",le=\"0.000001\"} 0",
            "bgw_leg_latency_seconds_bucket{leg=\"strategy_to_exchange\",le=\"0.000002\"} 1",
            "bgw_leg_latency_seconds_bucket{leg=\"strategy_to_exchange\",le=\"0.000003\"} 1",
            "bgw_leg_latency_seconds_bucket{leg=\"strategy_to_exchange\",le=\"0.000005\"} 2",
            "bgw_leg_latency_seconds_bucket{leg=\"strategy_to_exchange\",le=\"1\"} 2",
            "bgw_leg_latency_seconds_bucket{leg=\"strategy_to_exchange\",le=\"+Inf\"} 2",
            "bgw_leg_latency_seconds_count{leg=\"strategy_to_exchange\"} 2",
            "bgw_leg_latency_seconds_bucket{leg=\"first_push\",le=\"+Inf\"} 0",
            "# TYPE bgw_leg_latency_run_seconds summary",
            "bgw_leg_latency_run_seconds_count{leg=\"strategy_to_exchange\"} 2",
            "bgw_leg_latency_run_seconds{leg=\"first_push\",quantile=\"0.5\"} NaN",
            "bgw_unknown_outcomes_unresolved 0",
            "bgw_strategy_connections 0",
            "# TYPE bgw_tracker_orders gauge",
            "bgw_tracker_orders{state=\"open\"} 3",
            "bgw_tracker_orders{state=\"ended\"} 5",
            "bgw_tracker_tombstones 7",
            "# TYPE bgw_tracker_evictions_total counter",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
        assert!(
            text.contains(
                "bgw_leg_latency_run_seconds{leg=\"strategy_to_exchange\",quantile=\"1\"} 0.000004"
            ),
            "{text}"
        );
        // No unlimited bucket, no budget family; every family has HELP and TYPE.
        assert!(!text.contains("bgw_rate_budget_tokens"));
        let helps = text.lines().filter(|l| l.starts_with("# HELP ")).count();
        let types = text.lines().filter(|l| l.starts_with("# TYPE ")).count();
        assert_eq!(helps, types);
        assert!(!text.contains("round_trip"));
    }
}
