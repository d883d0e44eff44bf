//! The scheduler: a simulated clock and a queue of events ordered by (time, insertion order),
//! so that two events at the same nanosecond run in the order they were scheduled. Time only
//! moves when the next event is taken (hours of trading take seconds).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Events of type `E` due at simulated times (ns since the run's start).
#[derive(Debug)]
pub struct Scheduler<E> {
    now_ns: u64,
    next_seq: u64,
    heap: BinaryHeap<Reverse<(u64, u64)>>,
    /// Events by insertion number (taken out when run).
    events: std::collections::HashMap<u64, E>,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Scheduler {
            now_ns: 0,
            next_seq: 0,
            heap: BinaryHeap::new(),
            events: std::collections::HashMap::new(),
        }
    }
}

impl<E> Scheduler<E> {
    /// Simulated now, ns since the run's start.
    pub fn now_ns(&self) -> u64 {
        self.now_ns
    }

    /// Schedules `ev` `delay_ns` from now.
    pub fn after(&mut self, delay_ns: u64, ev: E) {
        self.at(self.now_ns.saturating_add(delay_ns), ev);
    }

    /// Schedules `ev` at `t_ns` (now if `t_ns` is past).
    pub fn at(&mut self, t_ns: u64, ev: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse((t_ns.max(self.now_ns), seq)));
        self.events.insert(seq, ev);
    }

    /// Takes the next event and moves the clock to its time; `None` when none is left.
    pub fn pop(&mut self) -> Option<(u64, E)> {
        let Reverse((t, seq)) = self.heap.pop()?;
        self.now_ns = t;
        let ev = self.events.remove(&seq)?;
        Some((t, ev))
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// No event waits.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}
