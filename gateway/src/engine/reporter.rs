//! The metrics reporter thread: merges the latency snapshots the io and tracker threads send,
//! prints the periodic percentile table, and appends each interval to the HdrHistogram
//! interval log. It is off the order path: the hot threads only hand over a histogram set
//! once per interval.

use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use crossbeam_channel::RecvTimeoutError;

use crate::metrics::state::MetricsState;
use crate::metrics::{IntervalLog, LegHistograms, SnapshotRx};

/// Handle to the reporter thread.
#[derive(Debug)]
pub struct Reporter {
    join: JoinHandle<LegHistograms>,
}

impl Reporter {
    /// Starts the thread. It ends when every sender of `rx` is gone.
    pub fn spawn(
        rx: SnapshotRx,
        interval_ms: u64,
        print: bool,
        hlog_path: Option<PathBuf>,
    ) -> std::io::Result<Reporter> {
        Reporter::spawn_publishing(rx, interval_ms, print, hlog_path, None)
    }

    /// [`Reporter::spawn`], also publishing the whole run's latency summary to `publish`
    /// (the metrics endpoint) after every snapshot it merges.
    pub fn spawn_publishing(
        rx: SnapshotRx,
        interval_ms: u64,
        print: bool,
        hlog_path: Option<PathBuf>,
        publish: Option<Arc<MetricsState>>,
    ) -> std::io::Result<Reporter> {
        let join = std::thread::Builder::new()
            .name("bgw-metrics".into())
            .spawn(move || run(rx, interval_ms, print, hlog_path, publish))?;
        Ok(Reporter { join })
    }

    /// Waits for the thread (after the senders are dropped) and returns the whole run's legs.
    pub fn finish(self) -> LegHistograms {
        self.join.join().unwrap_or_default()
    }
}

fn run(
    rx: SnapshotRx,
    interval_ms: u64,
    print: bool,
    hlog_path: Option<PathBuf>,
    publish: Option<Arc<MetricsState>>,
) -> LegHistograms {
    let start = SystemTime::now();
    let mut log = hlog_path.and_then(|p| match IntervalLog::create(&p, start) {
        Ok(l) => Some(l),
        Err(e) => {
            tracing::warn!(error = %e, path = %p.display(), "cannot write the interval log");
            None
        }
    });
    let mut total = LegHistograms::default();
    let mut interval = LegHistograms::default();
    let period = Duration::from_millis(interval_ms.max(1));
    let mut interval_start = SystemTime::now();
    loop {
        let flush = match rx.recv_timeout(period) {
            Ok(snapshot) => {
                let _ = total.merge(&snapshot);
                let _ = interval.merge(&snapshot);
                if let Some(state) = &publish {
                    state.set_legs(&total);
                }
                rx.give_back(snapshot);
                false
            }
            Err(RecvTimeoutError::Timeout) => true,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let due = interval_start
            .elapsed()
            .map(|e| e >= period)
            .unwrap_or(true);
        if (flush || due) && interval.total_count() > 0 {
            let now = SystemTime::now();
            if print {
                crate::logging::status_line(&format!(
                    "-- gateway latency, last interval (µs) --\n{}",
                    interval.table()
                ));
            }
            if let Some(l) = log.as_mut() {
                if let Err(e) = l.write_interval(
                    &interval,
                    interval_start.duration_since(start).unwrap_or_default(),
                    now.duration_since(interval_start).unwrap_or_default(),
                ) {
                    tracing::warn!(error = %e, "interval log write failed");
                }
                // Flushed per interval (off the order path, one write a period): the log can be
                // followed while the gateway runs (the endurance bench does) and keeps every
                // finished interval after a SIGKILL.
                if let Err(e) = l.flush() {
                    tracing::warn!(error = %e, "interval log flush failed");
                }
            }
            interval.reset();
            interval_start = now;
        }
    }
    if interval.total_count() > 0 {
        if let Some(l) = log.as_mut() {
            let _ = l.write_interval(
                &interval,
                interval_start.duration_since(start).unwrap_or_default(),
                interval_start.elapsed().unwrap_or_default(),
            );
        }
    }
    if let Some(l) = log.as_mut() {
        let _ = l.flush();
    }
    total
}
