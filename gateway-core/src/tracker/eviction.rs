//! Eviction of ended orders from the tracker (the policy, the sizes and why the tables never
//! grow are in `retention`, below the tracker core; this file is the tracker's side of it).

use super::core::Tracker;
use super::retention::{Evicted, OrderCounts, Retention, Tombstone};

/// Most ended orders held for their strategy (see `unseen`) that one pass of the ended FIFO
/// (an input's end, a tick) moves to the back before it stops (64): a strategy away with
/// thousands of ended orders held would otherwise make every input walk them all. The orders
/// behind them leave at later passes (the FIFO holds more meanwhile).
const HELD_PER_PASS: usize = 64;

impl Tracker {
    /// The retention in force.
    pub fn retention(&self) -> Retention {
        self.ended.cfg
    }

    /// The tombstone of evicted order (`session_id`, `root`), while kept.
    pub fn tombstone(&self, session_id: u64, root: u64) -> Option<&Tombstone> {
        self.ended.tombstone(&(session_id, root))
    }

    /// Orders held: open and ended in the live table, and tombstones.
    pub fn order_counts(&self) -> OrderCounts {
        let ended = self.ended.fifo.len();
        OrderCounts {
            open: self.orders_len().saturating_sub(ended),
            ended,
            tombstones: self.ended.tombstone_count(),
        }
    }

    /// Entries the live table and the tombstone table hold before they grow (constant unless
    /// they grew; see [`KeyTable`](crate::key_table::KeyTable)).
    pub fn table_capacities(&self) -> (usize, usize) {
        (self.orders_capacity(), self.ended.tombstone_capacity())
    }

    /// How many times the live table and the tombstone table grew (0 when sized right).
    pub fn table_growths(&self) -> (u64, u64) {
        (self.orders_growths(), self.ended.tombstone_growths())
    }

    /// Every order evicted since the last call, oldest first (the shell tells each session's
    /// order entry, which then releases its ClOrdIDs, see [`Evicted`]). Call it after each
    /// input and tick: the list keeps what is not drained.
    pub fn drain_evicted(&mut self) -> std::vec::Drain<'_, Evicted> {
        self.ended.evicted.drain(..)
    }

    /// The tracker's clock moved to `now_ns` (monotonic; 0: no time with this input).
    pub(super) fn clock(&mut self, now_ns: u64) {
        if now_ns > self.ended.clock_ns {
            self.ended.clock_ns = now_ns;
        }
    }

    /// End of an input (`now_ns`: its monotonic time, 0 when it has none): the orders that
    /// ended in it join the ended FIFO, and the oldest leave while more than `retention_orders`
    /// are held (an order still waited on goes back to the end; the FIFO then holds more until
    /// what it waits for comes, retried at each input).
    pub(super) fn retire_ended(&mut self, now_ns: u64) {
        self.clock(now_ns);
        let cap = self.ended.cfg.retention_orders;
        if self.reports.ended.is_empty() && self.ended.fifo.len() <= cap {
            return;
        }
        let now = self.ended.clock_ns;
        let mut ended = std::mem::take(&mut self.reports.ended);
        for key in ended.drain(..) {
            self.ended.fifo.push_back((key, now));
        }
        self.reports.ended = ended;
        let mut tries = self.ended.fifo.len().saturating_sub(cap);
        let mut held = 0;
        while tries > 0 && self.ended.fifo.len() > cap && held < HELD_PER_PASS {
            tries -= 1;
            let Some((old, t)) = self.ended.fifo.pop_front() else {
                break;
            };
            if self.end_may_be_unseen(old.0, t) {
                // Its strategy may not have seen its end (see `unseen`): its end time stays.
                self.ended.fifo.push_back((old, t));
                held += 1;
            } else if !self.try_evict(old) {
                self.ended.fifo.push_back((old, t.max(now)));
            }
        }
    }

    /// Idle tick at `now_ns` (monotonic): the ended orders ended `retention_ms` ago or more
    /// leave.
    pub(super) fn retire_expired(&mut self, now_ns: u64) {
        self.clock(now_ns);
        let now = self.ended.clock_ns;
        let window_ns = self.ended.cfg.retention_ms.saturating_mul(1_000_000);
        // Orders that ended before the tracker had a clock (restored ones) start their
        // window now.
        for e in self.ended.fifo.iter_mut() {
            if e.1 != 0 {
                break;
            }
            e.1 = now;
        }
        let mut tries = self.ended.fifo.len();
        let mut held = 0;
        while tries > 0 && held < HELD_PER_PASS {
            tries -= 1;
            let Some(&(key, t)) = self.ended.fifo.front() else {
                break;
            };
            if now.saturating_sub(t) < window_ns {
                break;
            }
            self.ended.fifo.pop_front();
            if self.end_may_be_unseen(key.0, t) {
                // Its strategy may not have seen its end (see `unseen`): its end time stays.
                self.ended.fifo.push_back((key, t));
                held += 1;
            } else if !self.try_evict(key) {
                self.ended.fifo.push_back((key, now));
            }
        }
    }

    /// Session rollover: the session's ended orders leave now (those something still waits
    /// on stay), so that its order entry frees their ClOrdIDs for the new epoch at once.
    pub(super) fn retire_session(&mut self, session_id: u64) {
        let now = self.ended.clock_ns;
        let mut ended = std::mem::take(&mut self.reports.ended);
        for key in ended.drain(..) {
            self.ended.fifo.push_back((key, now));
        }
        self.reports.ended = ended;
        let mut fifo = std::mem::take(&mut self.ended.fifo);
        fifo.retain(|&(key, _)| key.0 != session_id || !self.try_evict(key));
        self.ended.fifo = fifo;
    }

    /// Evicts ended order `key` unless something still waits on it (see the module docs);
    /// true when it left (or was not there any more).
    pub(super) fn try_evict(&mut self, key: (u64, u64)) -> bool {
        self.try_evict_as(key, false)
    }

    /// [`Tracker::try_evict`], telling the order entry whether the order had ended before
    /// its session's current epoch began ([`Evicted::ended_before_epoch`]).
    pub(super) fn try_evict_as(&mut self, key: (u64, u64), ended_before_epoch: bool) -> bool {
        let Some(o) = self.order(key.0, key.1) else {
            return true;
        };
        if !o.is_terminal() {
            // Not ended after all (cannot happen: nothing leaves a final state); never evicted.
            return true;
        }
        if o.replies_due > 0
            || self.resolve.unresolved.contains_key(&key)
            || self.mass_cancels.awaits(&key)
            || self.status_due.contains(&key)
        {
            return false;
        }
        let tomb = Tombstone::of(o);
        self.orders_mut().remove(&key);
        self.resolve.restored_written_ms.remove(&key);
        self.ended.bury(key, tomb);
        self.ended.evicted.push(Evicted {
            session_id: key.0,
            root: key.1,
            ended_before_epoch,
        });
        self.stats.evicted += 1;
        true
    }
}
