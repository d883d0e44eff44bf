//! How a polling thread waits when it has nothing to do.
//!
//! Measured on the 2-core development machine (`shared/reference/latency-on-this-machine.md`):
//! waking a thread parked on the other core costs 20-25 µs, a spinning consumer picks a message
//! up in ~0.3 µs. Spinning burns a core, so it is a per-deployment choice.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Idle strategy of a polling loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum IdleStrategy {
    /// Busy-poll forever (lowest latency, one core fully used).
    Spin,
    /// Spin for a while, then `yield_now` between polls (shares the core with other threads).
    SpinYield,
    /// Spin briefly, then park up to [`PARK_TIMEOUT`] (lowest CPU, pays a wake-up).
    #[default]
    Park,
}

/// Longest park of the [`IdleStrategy::Park`] strategy (timers are checked at least this often).
pub const PARK_TIMEOUT: Duration = Duration::from_millis(1);

/// Polls before [`IdleStrategy::SpinYield`] starts yielding.
pub const SPIN_POLLS: u32 = 20_000;

/// How long [`IdleStrategy::Park`] spins before it parks: long enough to catch a trade reply
/// and its push arriving back to back, short enough that the spinning thread does not take a
/// core from the others between messages. It was 2 000 idle polls (each one a watchdog tick and
/// a flush of every session), which kept the tracker on a core 93 % of the time during the demo
/// and about doubled the demo's p99 on a 2-vCPU machine (issue 12 note).
pub const PARK_SPIN: Duration = Duration::from_micros(5);

/// The state of an idle strategy between two pieces of work.
#[derive(Debug, Clone, Copy)]
pub struct Idler {
    strategy: IdleStrategy,
    idle_polls: u32,
    /// When the current idle stretch began (Park only).
    idle_since: Option<std::time::Instant>,
}

/// What the idler decided for this empty poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleStep {
    /// Poll again at once (a spin-loop hint was issued).
    Spin,
    /// The thread yielded; poll again.
    Yielded,
    /// Block on the queue for at most this long.
    Park(Duration),
}

impl Idler {
    /// A fresh idler.
    pub fn new(strategy: IdleStrategy) -> Self {
        Idler {
            strategy,
            idle_polls: 0,
            idle_since: None,
        }
    }

    /// Work was found: start spinning again.
    pub fn reset(&mut self) {
        self.idle_polls = 0;
        self.idle_since = None;
    }

    /// Nothing was found on this poll.
    pub fn idle(&mut self) -> IdleStep {
        self.idle_polls = self.idle_polls.saturating_add(1);
        match self.strategy {
            IdleStrategy::Spin => {
                std::hint::spin_loop();
                IdleStep::Spin
            }
            IdleStrategy::SpinYield if self.idle_polls > SPIN_POLLS => {
                std::thread::yield_now();
                IdleStep::Yielded
            }
            IdleStrategy::Park => {
                let now = std::time::Instant::now();
                let since = *self.idle_since.get_or_insert(now);
                if now.duration_since(since) >= PARK_SPIN {
                    IdleStep::Park(PARK_TIMEOUT)
                } else {
                    std::hint::spin_loop();
                    IdleStep::Spin
                }
            }
            _ => {
                std::hint::spin_loop();
                IdleStep::Spin
            }
        }
    }
}

/// Sets up this thread's `parking_lot` parking data now. `parking_lot` creates it on a
/// thread's first contended lock (an allocation, and sometimes a regrowth of its global table),
/// which for the io and tracker threads would otherwise happen in the middle of an order; both
/// call this when they start. A wait with a zero timeout parks once and returns at once.
pub fn init_parking() {
    let lock = parking_lot::Mutex::new(());
    let cv = parking_lot::Condvar::new();
    let mut guard = lock.lock();
    let _ = cv.wait_for(&mut guard, Duration::ZERO);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn park_spins_for_park_spin_then_parks_until_work_resets_it() {
        let mut idler = Idler::new(IdleStrategy::Park);
        let start = std::time::Instant::now();
        let mut spins = 0u64;
        while idler.idle() == IdleStep::Spin {
            spins += 1;
        }
        assert!(start.elapsed() >= PARK_SPIN, "parked before {PARK_SPIN:?}");
        assert!(spins > 0);
        assert_eq!(idler.idle(), IdleStep::Park(PARK_TIMEOUT), "stays parked");
        idler.reset();
        assert_eq!(idler.idle(), IdleStep::Spin, "work starts a new spin");
    }

    #[test]
    fn spin_never_parks_and_spin_yield_yields_after_spin_polls() {
        let mut spin = Idler::new(IdleStrategy::Spin);
        let mut yielding = Idler::new(IdleStrategy::SpinYield);
        for _ in 0..SPIN_POLLS {
            assert_eq!(spin.idle(), IdleStep::Spin);
            assert_eq!(yielding.idle(), IdleStep::Spin);
        }
        assert_eq!(spin.idle(), IdleStep::Spin);
        assert_eq!(yielding.idle(), IdleStep::Yielded);
    }
}
