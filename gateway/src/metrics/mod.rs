//! Latency metrics: one HDR histogram per leg of the order path (nanoseconds), percentile
//! tables for periodic reports, HdrHistogram interval logs (V2, compressed) and a cheap
//! monotonic clock; and the metrics endpoint (`[metrics] listen`): the state the threads
//! publish ([`state`]), its Prometheus exposition ([`exposition`]) and the HTTP server
//! ([`http`]: `/metrics`, `/healthz`, `/readyz`, and the control surface's routes beside them),
//! and the control surface's counters and gauges ([`control`]).
//!
//! Design reference: `shared/DESIGN.md` §5 (latency legs and reports).

pub mod clock;
pub mod control;
pub use gateway_core::metrics::{histograms, leg};
pub mod exposition;
pub mod http;
pub mod interval_log;
mod proto;
pub mod snapshots;
pub mod state;

pub use clock::{now_ns, utc_now_ns};
pub use gateway_core::metrics::counters::{self, ReportCounters};
pub use histograms::{
    new_histogram, write_table, LegHistograms, Percentiles, HIGHEST_NS, LOWEST_NS, SIGFIG,
};
pub use interval_log::{IntervalLog, IntervalLogError};
pub use leg::Leg;
pub use snapshots::{snapshot_channel, SnapshotRx, SnapshotTx};
