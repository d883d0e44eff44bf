//! Latency legs of the order path and their HDR histograms (nanoseconds). The clock, the
//! interval logs and the reporter are the shell's (`gateway::metrics`).
//!
//! Design reference: `shared/DESIGN.md` §5 (latency legs and reports).

pub mod buckets;
pub mod counters;
pub mod histograms;
pub mod leg;

pub use buckets::{CumulativeBuckets, BUCKETS, BUCKET_BOUNDS_NS};
pub use counters::ReportCounters;
pub use histograms::{
    new_histogram, write_table, LegHistograms, Percentiles, HIGHEST_NS, LOWEST_NS, SIGFIG,
};
pub use leg::Leg;
