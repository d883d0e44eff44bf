//! One HDR histogram per [`Leg`], recording nanoseconds.

use std::fmt;

use hdrhistogram::Histogram;

use super::Leg;

/// Lowest discernible value: 1 ns.
pub const LOWEST_NS: u64 = 1;
/// Highest trackable value: 60 s in ns. Larger values are clamped to it.
pub const HIGHEST_NS: u64 = 60_000_000_000;
/// Significant decimal digits kept (relative error ≤ 0.1 %).
pub const SIGFIG: u8 = 3;

/// A histogram with the gateway's bounds (1 ns ..= 60 s, 3 significant digits, auto-resize
/// off, so recording never allocates).
pub fn new_histogram() -> Histogram<u64> {
    // The bounds are constants that satisfy hdrhistogram's rules (low ≥ 1, high ≥ 2 × low,
    // sigfig ≤ 5), so creation cannot fail.
    #[allow(clippy::expect_used)]
    let mut h = Histogram::new_with_bounds(LOWEST_NS, HIGHEST_NS, SIGFIG)
        .expect("constant histogram bounds are valid");
    h.auto(false);
    h
}

/// Percentiles of one leg in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Percentiles {
    /// Number of samples.
    pub count: u64,
    /// Median, ns.
    pub p50_ns: u64,
    /// 90th percentile, ns.
    pub p90_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// 99.9th percentile, ns.
    pub p999_ns: u64,
    /// Largest sample (to histogram precision), ns.
    pub max_ns: u64,
}

impl Percentiles {
    /// Reads the percentiles of a histogram (all zero when empty).
    pub fn of(h: &Histogram<u64>) -> Percentiles {
        if h.is_empty() {
            return Percentiles::default();
        }
        Percentiles {
            count: h.len(),
            p50_ns: h.value_at_quantile(0.50),
            p90_ns: h.value_at_quantile(0.90),
            p99_ns: h.value_at_quantile(0.99),
            p999_ns: h.value_at_quantile(0.999),
            max_ns: h.max(),
        }
    }
}

/// One histogram per [`Leg`] (nanoseconds; see [`new_histogram`] for bounds).
#[derive(Debug, Clone)]
pub struct LegHistograms {
    hists: [Histogram<u64>; Leg::COUNT],
}

impl Default for LegHistograms {
    fn default() -> Self {
        LegHistograms::new()
    }
}

impl LegHistograms {
    /// Empty histograms for every leg (allocates once, here).
    pub fn new() -> LegHistograms {
        LegHistograms {
            hists: std::array::from_fn(|_| new_histogram()),
        }
    }

    /// Records one latency sample. Values outside 1 ns..=60 s are clamped (0 counts as 1 ns);
    /// never panics, never allocates.
    #[inline]
    pub fn record(&mut self, leg: Leg, ns: u64) {
        if let Some(h) = self.hists.get_mut(leg.index()) {
            h.saturating_record(ns);
        }
    }

    /// Records `end_ns - start_ns` (0 when the clock readings are out of order).
    #[inline]
    pub fn record_between(&mut self, leg: Leg, start_ns: u64, end_ns: u64) {
        self.record(leg, end_ns.saturating_sub(start_ns));
    }

    /// The histogram of one leg.
    pub fn get(&self, leg: Leg) -> &Histogram<u64> {
        // `leg.index()` < Leg::COUNT by construction.
        &self.hists[leg.index()]
    }

    /// Mutable histogram of one leg (e.g. to add an externally recorded histogram).
    pub fn get_mut(&mut self, leg: Leg) -> &mut Histogram<u64> {
        &mut self.hists[leg.index()]
    }

    /// Adds every leg of `other` into `self`.
    ///
    /// Errors: only if `other` holds values beyond this histogram's range, which cannot happen
    /// for histograms made by [`new_histogram`].
    pub fn merge(&mut self, other: &LegHistograms) -> Result<(), hdrhistogram::AdditionError> {
        for (mine, theirs) in self.hists.iter_mut().zip(other.hists.iter()) {
            mine.add(theirs)?;
        }
        Ok(())
    }

    /// Clears every leg (keeps the allocation).
    pub fn reset(&mut self) {
        for h in &mut self.hists {
            h.reset();
        }
    }

    /// Total number of samples over all legs.
    pub fn total_count(&self) -> u64 {
        self.hists.iter().map(Histogram::len).sum()
    }

    /// Percentiles of one leg.
    pub fn percentiles(&self, leg: Leg) -> Percentiles {
        Percentiles::of(self.get(leg))
    }

    /// The percentile table (see [`write_table`]) as a `String`.
    pub fn table(&self) -> String {
        let mut s = String::new();
        // Writing into a String cannot fail.
        let _ = write_table(&mut s, Leg::ALL.iter().map(|l| (l.tag(), self.get(*l))));
        s
    }
}

impl fmt::Display for LegHistograms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_table(f, Leg::ALL.iter().map(|l| (l.tag(), self.get(*l))))
    }
}

/// Writes `ns` as microseconds with one decimal, rounded half up (`1250` → `1.3`).
fn write_us(out: &mut impl fmt::Write, ns: u64) -> fmt::Result {
    let tenths = ns.saturating_add(50) / 100;
    write!(out, "{}.{}", tenths / 10, tenths % 10)
}

/// Writes a percentile table, one row per named histogram, values in µs with one decimal:
///
/// ```text
/// leg                        count      p50      p90      p99    p99.9      max (us)
/// strategy_to_exchange        1000      1.2      1.9      4.0      9.8     12.1
/// ```
///
/// Empty histograms show `-` for every percentile.
pub fn write_table<'a>(
    out: &mut impl fmt::Write,
    rows: impl IntoIterator<Item = (&'a str, &'a Histogram<u64>)>,
) -> fmt::Result {
    writeln!(
        out,
        "{:<24} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} (us)",
        "leg", "count", "p50", "p90", "p99", "p99.9", "max"
    )?;
    for (name, h) in rows {
        let p = Percentiles::of(h);
        write!(out, "{name:<24} {:>10}", p.count)?;
        for v in [p.p50_ns, p.p90_ns, p.p99_ns, p.p999_ns, p.max_ns] {
            let mut cell = String::new();
            if p.count == 0 {
                cell.push('-');
            } else {
                write_us(&mut cell, v)?;
            }
            write!(out, " {cell:>9}")?;
        }
        writeln!(out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_clamps_and_counts() {
        let mut h = LegHistograms::new();
        h.record(Leg::RoundTrip, 0);
        h.record(Leg::RoundTrip, u64::MAX);
        h.record(Leg::RoundTrip, 1_000);
        h.record_between(Leg::FirstPush, 10, 5);
        assert_eq!(h.get(Leg::RoundTrip).len(), 3);
        assert_eq!(h.get(Leg::FirstPush).len(), 1);
        assert!(h.get(Leg::RoundTrip).max() >= HIGHEST_NS);
        assert!(h.get(Leg::RoundTrip).max() <= HIGHEST_NS + HIGHEST_NS / 1000);
        assert_eq!(h.total_count(), 4);
    }

    #[test]
    fn merge_adds_counts() {
        let mut a = LegHistograms::new();
        let mut b = LegHistograms::new();
        for i in 1..=100 {
            a.record(Leg::ExchangeReply, i * 1_000);
            b.record(Leg::ExchangeReply, i * 2_000);
            b.record(Leg::PushToReport, i);
        }
        a.merge(&b).expect("merge");
        assert_eq!(a.get(Leg::ExchangeReply).len(), 200);
        assert_eq!(a.get(Leg::PushToReport).len(), 100);
        a.reset();
        assert_eq!(a.total_count(), 0);
    }

    #[test]
    fn percentiles_and_table() {
        let mut h = LegHistograms::new();
        for i in 1..=1000u64 {
            h.record(Leg::StrategyToExchange, i * 1_000); // 1..1000 µs
        }
        let p = h.percentiles(Leg::StrategyToExchange);
        assert_eq!(p.count, 1000);
        assert!((499_000..=501_000).contains(&p.p50_ns), "{p:?}");
        assert!((989_000..=991_000).contains(&p.p99_ns), "{p:?}");
        let t = h.table();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 1 + Leg::COUNT);
        assert!(lines[0].contains("p99.9"));
        assert!(lines[1].starts_with("strategy_to_exchange"));
        assert!(lines[1].contains("1000"));
        assert!(
            lines[1].contains("500.") || lines[1].contains("499."),
            "{}",
            lines[1]
        );
        assert!(lines[2].trim_end().ends_with('-'));
        assert_eq!(format!("{h}"), t);
    }

    #[test]
    fn us_formatting() {
        let mut s = String::new();
        write_us(&mut s, 1_250).expect("fmt");
        s.push(' ');
        write_us(&mut s, 49).expect("fmt");
        s.push(' ');
        write_us(&mut s, 12_345_678).expect("fmt");
        assert_eq!(s, "1.3 0.0 12345.7");
    }
}
