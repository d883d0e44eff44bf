//! Prometheus histogram buckets of the latency legs: fixed upper bounds from 1 µs to 1 s and the
//! cumulative count of an HDR histogram's samples at each (the `_bucket{le=...}` series).
//!
//! The HDR histograms stay the source: the reporter thread reads these counts off the whole
//! run's merged histogram each time it merges a snapshot, so the order path neither locks nor
//! allocates for them. Cumulative counts since start are Prometheus counters: `rate()` windows
//! them and `histogram_quantile()` interpolates inside a bucket, which is what dashboards and
//! alert rules need (a whole-run quantile can be neither windowed nor aggregated).
//!
//! Source: Prometheus, "Histograms and summaries" and the text exposition format 0.0.4
//! (<https://prometheus.io/docs/practices/histograms/>).

use hdrhistogram::Histogram;

/// Upper bounds of the buckets, ns: 1, 1.5, 2, 3, 5 and 7 per decade from 1 µs to 700 ms, then
/// 1 s (37 bounds; `+Inf` is added by the exposition). Adjacent bounds differ by at most
/// 1.67×, so `histogram_quantile` is off by less than one bucket's width; 1 ms, 5 ms and 10 ms,
/// the usual alert bounds, are bucket edges.
pub const BUCKET_BOUNDS_NS: [u64; BUCKETS] = {
    const STEPS: [u64; 6] = [10, 15, 20, 30, 50, 70];
    let mut out = [0u64; BUCKETS];
    let mut decade = 100u64; // 1 µs = 10 × 100 ns
    let mut i = 0;
    while i + 1 < BUCKETS {
        out[i] = STEPS[i % 6] * decade;
        i += 1;
        if i % 6 == 0 {
            decade *= 10;
        }
    }
    out[BUCKETS - 1] = 1_000_000_000;
    out
};

/// Number of finite bucket bounds.
pub const BUCKETS: usize = 37;

/// Cumulative sample counts of one histogram at each of [`BUCKET_BOUNDS_NS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CumulativeBuckets {
    /// `le[i]`: samples ≤ `BUCKET_BOUNDS_NS[i]`. Non-decreasing in `i`.
    pub le: [u64; BUCKETS],
    /// Every sample (the `+Inf` bucket and `_count`).
    pub count: u64,
}

impl Default for CumulativeBuckets {
    fn default() -> Self {
        CumulativeBuckets {
            le: [0; BUCKETS],
            count: 0,
        }
    }
}

impl CumulativeBuckets {
    /// The counts of `h` (ns). A sample counts at a bound when the lowest value of its HDR
    /// bucket is ≤ the bound: a sample recorded exactly on a bound counts there, and one
    /// recorded above it counts there only when within the HDR bucket's width (≤ 0.1 % with 3
    /// significant digits). One pass over the recorded values; no allocation.
    pub fn of(h: &Histogram<u64>) -> CumulativeBuckets {
        let mut out = CumulativeBuckets::default();
        let mut i = 0;
        let mut below = 0u64;
        for v in h.iter_recorded() {
            let value = h.lowest_equivalent(v.value_iterated_to());
            while i < BUCKETS && BUCKET_BOUNDS_NS[i] < value {
                out.le[i] = below;
                i += 1;
            }
            below += v.count_at_value();
        }
        while i < BUCKETS {
            out.le[i] = below;
            i += 1;
        }
        out.count = h.len();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::new_histogram;

    #[test]
    fn bounds_run_from_1_us_to_1_s_increasing() {
        assert_eq!(BUCKET_BOUNDS_NS[0], 1_000);
        assert_eq!(BUCKET_BOUNDS_NS[1], 1_500);
        assert_eq!(BUCKET_BOUNDS_NS[5], 7_000);
        assert_eq!(BUCKET_BOUNDS_NS[6], 10_000);
        assert_eq!(BUCKET_BOUNDS_NS[BUCKETS - 2], 700_000_000);
        assert_eq!(BUCKET_BOUNDS_NS[BUCKETS - 1], 1_000_000_000);
        assert!(BUCKET_BOUNDS_NS.contains(&1_000_000));
        assert!(BUCKET_BOUNDS_NS.contains(&5_000_000));
        for w in BUCKET_BOUNDS_NS.windows(2) {
            assert!(w[0] < w[1], "{w:?}");
            assert!(w[1] * 3 <= w[0] * 5, "ratio above 5/3: {w:?}");
        }
    }

    #[test]
    fn counts_are_cumulative_at_each_bound() {
        let mut h = new_histogram();
        // 500 ns (below the first bound), exactly 1 µs, 1.2 µs, 1 ms, 2 s (above the last).
        for ns in [500, 1_000, 1_200, 1_000_000, 2_000_000_000] {
            h.record(ns).expect("in range");
        }
        h.record_n(40_000, 10).expect("in range");
        let b = CumulativeBuckets::of(&h);
        let at = |bound: u64| {
            let i = BUCKET_BOUNDS_NS
                .iter()
                .position(|b| *b == bound)
                .expect("a bound");
            b.le[i]
        };
        assert_eq!(at(1_000), 2, "500 ns and 1 µs");
        assert_eq!(at(1_500), 3);
        assert_eq!(at(30_000), 3);
        assert_eq!(at(50_000), 13, "the ten 40 µs samples");
        assert_eq!(at(700_000), 13);
        assert_eq!(at(1_000_000), 14, "1 ms sits on its bound");
        assert_eq!(at(1_000_000_000), 14, "2 s only in +Inf");
        assert_eq!(b.count, 15);
        assert!(b.le.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn an_empty_histogram_has_empty_buckets() {
        assert_eq!(
            CumulativeBuckets::of(&new_histogram()),
            CumulativeBuckets::default()
        );
    }
}
