//! A rollover's OrderStatus reports still to make (see `epochs`): the queue the tracker's ticks
//! drain, a bounded number each, and the set of the orders in it (kept from eviction until
//! reported). Its own file: both the tracker's state (`core`) and `epochs` use it.

use std::collections::{HashSet, VecDeque};

/// Most OrderStatus reports of a rollover made per tracker tick (each a few µs: a tick stays
/// well under a millisecond; the tracker takes its inputs between ticks).
pub const STATUS_PER_TICK: usize = 128;

/// A rollover's OrderStatus reports still to make, oldest first (each with whether its order
/// had ended when the rollover queued it), and the set of their orders.
#[derive(Debug, Default)]
pub struct StatusDue {
    queue: VecDeque<((u64, u64), bool)>,
    set: HashSet<(u64, u64)>,
}

impl StatusDue {
    /// Queues order `key` (once); `ended`: it had ended by the rollover.
    pub(super) fn push(&mut self, key: (u64, u64), ended: bool) {
        if self.set.insert(key) {
            self.queue.push_back((key, ended));
        }
    }

    /// The next order to report, and whether it had ended by the rollover.
    pub(super) fn pop(&mut self) -> Option<((u64, u64), bool)> {
        let (key, ended) = self.queue.pop_front()?;
        self.set.remove(&key);
        Some((key, ended))
    }

    /// True when nothing is due.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// True when order `key` still waits for its report.
    pub(super) fn contains(&self, key: &(u64, u64)) -> bool {
        !self.set.is_empty() && self.set.contains(key)
    }
}
