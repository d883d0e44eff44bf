//! Follows the gateway's HdrHistogram interval log (`[metrics] hlog_path`, V2 compressed, one
//! line per leg per `report_interval_ms`, flushed after every interval) while the gateway
//! writes it, so the bench can give each of its own intervals (counted in orders) the gateway's
//! per-leg histograms of the same time span: every log interval that *ended* inside the bench
//! interval belongs to it (the boundaries are as exact as the gateway's report interval).

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;

/// One leg's histogram of one gateway report interval.
#[derive(Debug, Clone)]
pub struct LogInterval {
    /// Wall-clock end of the interval (`BaseTime` + start + length).
    pub end: SystemTime,
    /// Leg tag (`strategy_to_exchange`, `exchange_reply`, `first_push`, `push_to_report`).
    pub tag: String,
    /// Latencies, ns.
    pub hist: Histogram<u64>,
}

/// Reads the complete lines appended to one interval log since the last call.
pub struct HlogFollower {
    path: PathBuf,
    offset: u64,
    base: Option<Duration>,
    deserializer: Deserializer,
    /// Intervals read and not yet taken, in file order.
    pending: Vec<LogInterval>,
    /// Lines that did not parse or decode (counted, skipped).
    pub bad_lines: u64,
}

impl HlogFollower {
    /// A follower of `path` (which need not exist yet).
    pub fn new(path: &Path) -> Self {
        HlogFollower {
            path: path.to_path_buf(),
            offset: 0,
            base: None,
            deserializer: Deserializer::new(),
            pending: Vec::new(),
            bad_lines: 0,
        }
    }

    /// Reads what was appended since the last call (whole lines only).
    pub fn poll(&mut self) {
        let Ok(mut f) = std::fs::File::open(&self.path) else {
            return;
        };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return;
        }
        let mut bytes = Vec::new();
        if f.read_to_end(&mut bytes).is_err() {
            return;
        }
        let Some(last_nl) = bytes.iter().rposition(|&b| b == b'\n') else {
            return;
        };
        let whole = &bytes[..=last_nl];
        self.offset += whole.len() as u64;
        for entry in IntervalLogIterator::new(whole) {
            match entry {
                Ok(LogEntry::BaseTime(t)) => self.base = Some(t),
                // The gateway writes StartTime = BaseTime; a log without BaseTime counts from
                // its StartTime.
                Ok(LogEntry::StartTime(t)) => {
                    self.base.get_or_insert(t);
                }
                Ok(LogEntry::Interval(h)) => {
                    let decoded = base64::engine::general_purpose::STANDARD
                        .decode(h.encoded_histogram())
                        .ok()
                        .and_then(|raw| {
                            self.deserializer
                                .deserialize::<u64, _>(&mut raw.as_slice())
                                .ok()
                        });
                    let (Some(hist), Some(tag)) = (decoded, h.tag()) else {
                        self.bad_lines += 1;
                        continue;
                    };
                    let end = SystemTime::UNIX_EPOCH
                        + self.base.unwrap_or_default()
                        + h.start_timestamp()
                        + h.duration();
                    self.pending.push(LogInterval {
                        end,
                        tag: tag.as_str().to_owned(),
                        hist,
                    });
                }
                Err(_) => self.bad_lines += 1,
            }
        }
    }

    /// The latest end of an interval read (`None` before any).
    pub fn covered_until(&self) -> Option<SystemTime> {
        self.pending.iter().map(|i| i.end).max()
    }

    /// Removes and returns every interval read that ended at or before `until`.
    pub fn take_until(&mut self, until: SystemTime) -> Vec<LogInterval> {
        let (taken, kept): (Vec<_>, Vec<_>) = self.pending.drain(..).partition(|i| i.end <= until);
        self.pending = kept;
        taken
    }

    /// Removes and returns every interval read.
    pub fn take_all(&mut self) -> Vec<LogInterval> {
        std::mem::take(&mut self.pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gateway::metrics::{IntervalLog, Leg, LegHistograms};

    #[test]
    fn follows_whole_intervals_as_the_gateway_appends_them() {
        let dir = std::env::temp_dir().join(format!("bgw-hlog-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("g.hlog");
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let mut log = IntervalLog::create(&path, start).expect("log");
        let mut f = HlogFollower::new(&path);
        let mut h = LegHistograms::new();
        h.record(Leg::StrategyToExchange, 5_000);
        h.record(Leg::StrategyToExchange, 7_000);
        log.write_interval(&h, Duration::from_secs(0), Duration::from_secs(1))
            .expect("write");
        log.flush().expect("flush");
        f.poll();
        let first_end = start + Duration::from_secs(1);
        assert_eq!(f.covered_until(), Some(first_end));
        h.reset();
        h.record(Leg::PushToReport, 9_000);
        log.write_interval(&h, Duration::from_secs(1), Duration::from_secs(1))
            .expect("write");
        log.flush().expect("flush");
        f.poll();
        assert_eq!(f.bad_lines, 0);
        let first = f.take_until(first_end);
        assert_eq!(first.len(), Leg::ALL.len());
        let s2e = first
            .iter()
            .find(|i| i.tag == "strategy_to_exchange")
            .expect("leg");
        assert_eq!(s2e.hist.len(), 2);
        assert_eq!(s2e.hist.max(), s2e.hist.highest_equivalent(7_000));
        let rest = f.take_all();
        assert_eq!(rest.len(), Leg::ALL.len());
        assert!(rest.iter().all(|i| i.end == start + Duration::from_secs(2)));
        let p2r = rest
            .iter()
            .find(|i| i.tag == "push_to_report")
            .expect("leg");
        assert_eq!(p2r.hist.len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
