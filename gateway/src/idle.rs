//! How a polling thread waits when it has nothing to do.
//!
//! Measured on the 2-core development machine (`shared/reference/latency-on-this-machine.md`):
//! waking a thread parked on the other core costs 20-25 µs, a spinning consumer picks a message
//! up in ~0.3 µs. Spinning burns a core, so it is a per-deployment choice.

use std::time::Duration;

use serde::Deserialize;

/// Idle strategy of a polling loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
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

/// Polls before a spinning strategy starts yielding or parking.
pub const SPIN_POLLS: u32 = 20_000;

/// The state of an idle strategy between two pieces of work.
#[derive(Debug, Clone, Copy)]
pub struct Idler {
    strategy: IdleStrategy,
    idle_polls: u32,
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
        }
    }

    /// Work was found: start spinning again.
    pub fn reset(&mut self) {
        self.idle_polls = 0;
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
            IdleStrategy::Park if self.idle_polls > SPIN_POLLS / 10 => IdleStep::Park(PARK_TIMEOUT),
            _ => {
                std::hint::spin_loop();
                IdleStep::Spin
            }
        }
    }
}
