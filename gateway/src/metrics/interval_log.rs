//! HdrHistogram interval log writer (format V2 with compressed histograms, readable by the
//! standard `HistogramLogProcessor` and by hdrhistogram's `IntervalLogIterator`).
//!
//! Layout: a format-version comment, `StartTime`/`BaseTime` headers, the legend line, then one
//! line per leg per interval: `Tag=<leg>,<start s>,<length s>,<max ms>,<base64 V2 deflate>`.
//! Interval start times are seconds since `BaseTime`.

use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, SystemTime};

use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::Histogram;

use super::{Leg, LegHistograms};

/// Divisor applied to the `Interval_Max` column, as in the Java `HistogramLogWriter`
/// (values recorded in ns are shown in ms there).
pub const MAX_VALUE_DIVISOR: f64 = 1_000_000.0;

/// Why writing the interval log failed.
#[derive(Debug, thiserror::Error)]
pub enum IntervalLogError {
    /// The underlying writer failed.
    #[error("interval log I/O: {0}")]
    Io(#[from] io::Error),
    /// A histogram could not be serialized.
    #[error("interval log serialization: {0}")]
    Serialize(String),
    /// A tag contains a character the format forbids (`,`, space, CR, LF).
    #[error("invalid interval log tag {0:?}")]
    BadTag(String),
}

/// Writes per-leg histograms to an interval log, one call per reporting interval.
pub struct IntervalLog<W: Write> {
    out: W,
    serializer: V2DeflateSerializer,
    base_time: SystemTime,
}

impl<W: Write> std::fmt::Debug for IntervalLog<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntervalLog")
            .field("base_time", &self.base_time)
            .finish_non_exhaustive()
    }
}

impl IntervalLog<io::BufWriter<std::fs::File>> {
    /// Creates (truncates) the file at `path` and writes the headers (see [`IntervalLog::new`]).
    pub fn create(path: &Path, start: SystemTime) -> Result<Self, IntervalLogError> {
        let file = std::fs::File::create(path)?;
        IntervalLog::new(io::BufWriter::new(file), start)
    }
}

impl<W: Write> IntervalLog<W> {
    /// Writes the log headers to `out`; `start` is both `StartTime` and `BaseTime` (wall clock
    /// when measurement began). Interval start times passed later are offsets from it.
    pub fn new(mut out: W, start: SystemTime) -> Result<Self, IntervalLogError> {
        let mut serializer = V2DeflateSerializer::new();
        writeln!(out, "#[Histogram log format version 1.3]")?;
        IntervalLogWriterBuilder::new()
            .add_comment("gateway latency per leg, values in ns")
            .with_start_time(start)
            .with_base_time(start)
            .with_max_value_divisor(MAX_VALUE_DIVISOR)
            .begin_log_with(&mut out, &mut serializer)?;
        writeln!(
            out,
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\""
        )?;
        Ok(IntervalLog {
            out,
            serializer,
            base_time: start,
        })
    }

    /// The `BaseTime` interval offsets are relative to.
    pub fn base_time(&self) -> SystemTime {
        self.base_time
    }

    /// Writes one histogram line with tag `tag` for the interval starting `start` after
    /// `BaseTime` and lasting `length`.
    pub fn write_histogram(
        &mut self,
        tag: &str,
        hist: &Histogram<u64>,
        start: Duration,
        length: Duration,
    ) -> Result<(), IntervalLogError> {
        let tag = Tag::new(tag).ok_or_else(|| IntervalLogError::BadTag(tag.to_owned()))?;
        // A builder without headers writes nothing; it only lends the serializer to the writer.
        let mut writer = IntervalLogWriterBuilder::new()
            .with_max_value_divisor(MAX_VALUE_DIVISOR)
            .begin_log_with(&mut self.out, &mut self.serializer)?;
        writer
            .write_histogram(hist, start, length, Some(tag))
            .map_err(|e| IntervalLogError::Serialize(e.to_string()))
    }

    /// Writes one line per leg (empty legs included, so every interval has every tag).
    pub fn write_interval(
        &mut self,
        hists: &LegHistograms,
        start: Duration,
        length: Duration,
    ) -> Result<(), IntervalLogError> {
        for leg in Leg::ALL {
            self.write_histogram(leg.tag(), hists.get(leg), start, length)?;
        }
        Ok(())
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> Result<(), IntervalLogError> {
        self.out.flush()?;
        Ok(())
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> Result<W, IntervalLogError> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    use hdrhistogram::serialization::Deserializer;
    use std::collections::HashMap;

    #[test]
    fn log_reads_back_with_same_counts() {
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let mut log = IntervalLog::new(Vec::new(), start).expect("log");
        let mut expected: HashMap<(String, u64), Histogram<u64>> = HashMap::new();
        let mut hists = LegHistograms::new();
        for interval in 0..3u64 {
            hists.reset();
            for (k, leg) in Leg::ALL.into_iter().enumerate() {
                // Leg k gets k*10 + interval samples; leg 0 stays empty in interval 0.
                for i in 0..(k as u64 * 10 + interval) {
                    hists.record(leg, 1_000 + i * 7_919 + interval * 100_000);
                }
                expected.insert((leg.tag().to_owned(), interval), hists.get(leg).clone());
            }
            log.write_interval(
                &hists,
                Duration::from_secs(interval * 10),
                Duration::from_secs(10),
            )
            .expect("write");
        }
        let bytes = log.into_inner().expect("flush");
        let text = String::from_utf8(bytes.clone()).expect("utf8");
        assert!(
            text.starts_with("#[Histogram log format version 1.3]\n"),
            "{text}"
        );
        assert!(text.contains("#[StartTime: 1700000000.000"), "{text}");
        assert!(text.contains("#[BaseTime: 1700000000.000"), "{text}");

        let mut seen = 0;
        let mut base = None;
        let mut deser = Deserializer::new();
        for entry in IntervalLogIterator::new(&bytes) {
            match entry.expect("parse") {
                LogEntry::BaseTime(t) => base = Some(t),
                LogEntry::StartTime(_) => {}
                LogEntry::Interval(h) => {
                    let tag = h.tag().expect("tag").as_str().to_owned();
                    assert!(Leg::from_tag(&tag).is_some(), "{tag}");
                    let interval = h.start_timestamp().as_secs() / 10;
                    assert_eq!(h.duration(), Duration::from_secs(10));
                    let raw = base64::engine::general_purpose::STANDARD
                        .decode(h.encoded_histogram())
                        .expect("base64");
                    let got: Histogram<u64> =
                        deser.deserialize(&mut raw.as_slice()).expect("deserialize");
                    let want = &expected[&(tag.clone(), interval)];
                    assert_eq!(got.len(), want.len(), "{tag} interval {interval}");
                    assert_eq!(got.max(), want.max(), "{tag} interval {interval}");
                    assert_eq!(got, *want, "{tag} interval {interval}");
                    seen += 1;
                }
            }
        }
        assert_eq!(base, Some(Duration::from_secs(1_700_000_000)));
        assert_eq!(seen, 3 * Leg::COUNT);
    }

    #[test]
    fn bad_tag_is_refused() {
        let mut log = IntervalLog::new(Vec::new(), SystemTime::now()).expect("log");
        let h = super::super::new_histogram();
        assert!(matches!(
            log.write_histogram("a,b", &h, Duration::ZERO, Duration::from_secs(1)),
            Err(IntervalLogError::BadTag(_))
        ));
    }
}
