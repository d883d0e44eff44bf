//! The one source of randomness of a run: a ChaCha8 stream seeded from the run's seed
//! (`rand_chacha`: the same seed gives the same numbers on every machine and version of this
//! crate's dependency pin).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded random stream; every choice of a run (faults, delays, the strategies' orders)
/// draws from one of these, in event order.
#[derive(Debug, Clone)]
pub struct SimRng(ChaCha8Rng);

impl SimRng {
    /// The stream of `seed`.
    pub fn new(seed: u64) -> Self {
        SimRng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// True with probability `p` (0.0..=1.0; outside it clamps).
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.0.random::<f64>() < p
    }

    /// A uniform integer in `lo..=hi` (`lo` when `hi < lo`).
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            lo
        } else {
            self.0.random_range(lo..=hi)
        }
    }

    /// A uniform index below `n` (0 when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.0.random_range(0..n)
        }
    }

    /// A fresh 64-bit number (to seed a sub-stream).
    pub fn next_u64(&mut self) -> u64 {
        self.0.random()
    }
}
