//! Many seeds on many threads: each thread takes the next seed from a shared counter, runs it
//! and adds its counts; a failing seed is kept with the command that replays it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::faults::FaultCounts;
use crate::world::{run, RunConfig, RunResult};

/// What a sweep did.
#[derive(Debug, Default)]
pub struct SweepSummary {
    /// Seeds run.
    pub seeds: u64,
    /// Orders simulated (NewOrderSingles).
    pub orders: u64,
    /// Cancels and replaces simulated.
    pub amends: u64,
    /// Events run.
    pub events: u64,
    /// Simulated time, ns.
    pub sim_ns: u64,
    /// Faults injected, by kind.
    pub faults: FaultCounts,
    /// The failing runs (seed order), at most the first [`MAX_FAILURES_KEPT`].
    pub failures: Vec<RunResult>,
    /// Failing seeds in all.
    pub failed: u64,
    /// Wall time, s.
    pub wall_s: f64,
    /// Wall time when the first failing seed finished, s (`None`: none failed).
    pub first_failure_s: Option<f64>,
}

/// Failing runs kept in full.
pub const MAX_FAILURES_KEPT: usize = 20;

/// Runs seeds `first..first + count` with `shape` (its seed replaced) on `threads` threads;
/// `progress` is called now and then with the summary so far.
pub fn sweep(
    first: u64,
    count: u64,
    threads: usize,
    shape: RunConfig,
    progress: &(dyn Fn(&SweepSummary) + Sync),
) -> SweepSummary {
    sweep_until(first, count, threads, shape, false, progress)
}

/// [`sweep`]; with `stop_at_first` no seed is started once one has failed (the seeds already
/// running finish: a lower failing seed among them is still kept), so
/// [`SweepSummary::first_failure_s`] is the time to find a bug and the lowest failing seed
/// less `first`, plus one, the seeds it took.
pub fn sweep_until(
    first: u64,
    count: u64,
    threads: usize,
    shape: RunConfig,
    stop_at_first: bool,
    progress: &(dyn Fn(&SweepSummary) + Sync),
) -> SweepSummary {
    let stop = AtomicBool::new(false);
    let next = AtomicU64::new(first);
    let end = first.saturating_add(count);
    let started = Instant::now();
    let summary = Mutex::new(SweepSummary::default());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let seed = next.fetch_add(1, Ordering::Relaxed);
                if seed >= end {
                    break;
                }
                let r = run(RunConfig { seed, ..shape });
                let Ok(mut sum) = summary.lock() else {
                    break;
                };
                sum.seeds += 1;
                sum.orders += r.orders;
                sum.amends += r.amends;
                sum.events += r.events;
                sum.sim_ns += r.sim_ns;
                sum.faults.merge(&r.faults);
                if !r.violations.is_empty() {
                    if stop_at_first {
                        stop.store(true, Ordering::Relaxed);
                    }
                    sum.first_failure_s
                        .get_or_insert(started.elapsed().as_secs_f64());
                    sum.failed += 1;
                    if sum.failures.len() < MAX_FAILURES_KEPT {
                        sum.failures.push(r);
                    }
                }
                sum.wall_s = started.elapsed().as_secs_f64();
                if sum.seeds.is_multiple_of(1000) {
                    progress(&sum);
                }
            });
        }
    });
    let mut sum = summary.into_inner().unwrap_or_default();
    sum.failures.sort_by_key(|r| r.seed);
    sum.wall_s = started.elapsed().as_secs_f64();
    sum
}
