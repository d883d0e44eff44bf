//! Sans-I/O reconnect backoff for the private WebSocket: exponential delays from `min` doubling
//! up to `max`, with "equal jitter" (each delay is drawn in `[d/2, d]`), so that many links
//! dropped at once do not reconnect in lockstep. The caller supplies the random bits.

use std::time::Duration;

/// Exponential backoff with jitter; [`reset`](Backoff::reset) after a successful connect.
#[derive(Debug, Clone)]
pub struct Backoff {
    min: Duration,
    max: Duration,
    attempt: u32,
}

impl Backoff {
    /// Delays start at `min` and double up to `max` (`min` ≥ 1 ms, `max` ≥ `min`).
    pub fn new(min: Duration, max: Duration) -> Backoff {
        let min = min.max(Duration::from_millis(1));
        Backoff {
            min,
            max: max.max(min),
            attempt: 0,
        }
    }

    /// The un-jittered delay of the next attempt: `min · 2^attempt`, at most `max`.
    pub fn ceiling(&self) -> Duration {
        let factor = 1u32.checked_shl(self.attempt.min(31)).unwrap_or(u32::MAX);
        self.min.saturating_mul(factor).min(self.max)
    }

    /// The delay before the next attempt, in `[ceiling/2, ceiling]` picked by `rand`; counts the
    /// attempt.
    pub fn next_delay(&mut self, rand: u64) -> Duration {
        let ceiling = self.ceiling();
        self.attempt = self.attempt.saturating_add(1);
        let ns = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        let half = ns / 2;
        let span = ns - half;
        Duration::from_nanos(half + rand % span.saturating_add(1))
    }

    /// Attempts counted since the last reset.
    pub fn attempts(&self) -> u32 {
        self.attempt
    }

    /// Back to `min` (after a successful reconnect).
    pub fn reset(&mut self) {
        self.attempt = 0;
    }
}

/// A small xorshift64 generator for the jitter (not for anything secret).
#[derive(Debug, Clone)]
pub struct Jitter(u64);

impl Jitter {
    /// Seeded with `seed` (0 is replaced by a fixed odd constant).
    pub fn new(seed: u64) -> Jitter {
        Jitter(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next pseudo-random value.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn doubles_up_to_the_cap_and_resets() {
        let mut b = Backoff::new(ms(100), ms(1_000));
        let ceilings: Vec<_> = (0..6)
            .map(|_| {
                let c = b.ceiling();
                b.next_delay(0);
                c
            })
            .collect();
        assert_eq!(
            ceilings,
            vec![ms(100), ms(200), ms(400), ms(800), ms(1_000), ms(1_000)]
        );
        assert_eq!(b.attempts(), 6);
        b.reset();
        assert_eq!(b.ceiling(), ms(100));
    }

    #[test]
    fn jitter_stays_within_half_and_full_ceiling() {
        let mut j = Jitter::new(42);
        for _ in 0..1_000 {
            let mut b = Backoff::new(ms(100), ms(10_000));
            for _ in 0..10 {
                let c = b.ceiling();
                let d = b.next_delay(j.next_u64());
                assert!(d >= c / 2 && d <= c, "{d:?} vs {c:?}");
            }
        }
        // The extremes of the random input map to the ends of the range.
        let mut b = Backoff::new(ms(100), ms(100));
        assert_eq!(b.next_delay(0), ms(50));
        assert_eq!(b.next_delay(50_000_000), ms(100));
    }

    #[test]
    fn many_attempts_do_not_overflow() {
        let mut b = Backoff::new(ms(1), Duration::from_secs(30));
        for _ in 0..200 {
            assert!(b.next_delay(u64::MAX) <= Duration::from_secs(30));
        }
        assert_eq!(b.ceiling(), Duration::from_secs(30));
    }

    #[test]
    fn bad_bounds_are_fixed_up() {
        let b = Backoff::new(Duration::ZERO, Duration::ZERO);
        assert_eq!(b.ceiling(), ms(1));
        let j1: Vec<u64> = {
            let mut j = Jitter::new(0);
            (0..3).map(|_| j.next_u64()).collect()
        };
        assert!(j1.iter().all(|x| *x != 0));
    }
}
