//! Retention of ended orders (issue 23): an order in a final state (Filled, Canceled, Rejected)
//! leaves the tracker's live table after a retention window, and leaves a compact
//! [`Tombstone`] behind so that anything late about it is still recognised.
//!
//! - **When an order ends.** Every order ends by exactly one ExecutionReport whose OrdStatus is
//!   final (nothing is reported after it), and every report about an order is queued through one
//!   function ([`Reports::push`](super::report::Reports)): that is where the end is noted, whatever
//!   path ended it (a reply, a push, a fill, a reconciliation, a resolution, a mass cancel's
//!   pushes). The one exception is crash recovery, which rebuilds orders that ended before the
//!   restart without reporting them again ([`Tracker::restore_session`]); it notes them the same
//!   way.
//! - **When it leaves.** Ended orders wait in a FIFO (preallocated, `retention_orders` long). At
//!   the end of each input, the orders that ended in it join the FIFO; when it is full the oldest
//!   leaves first (count). On the idle tick ([`Tracker::on_tick`]) those ended `retention_ms` ago
//!   or more leave (time). An order something still waits on stays (it goes back to the end of
//!   the FIFO with a fresh time): a request of it whose reply has not come (its reply could
//!   otherwise be answered twice, e.g. a cancel whose Canceled push came before its reply), an
//!   unresolved unknown outcome (`resolve`), a mass cancel awaiting its terminal report (`mass`),
//!   an end its strategy may not have seen (`unseen`: kept for a rollover's OrderStatus, with its
//!   end time, at most `HELD_PER_PASS` moved per pass, in `eviction`).
//! - **What stays.** A [`Tombstone`] per evicted order, in a table bounded by count
//!   (`tombstones`, FIFO): current ClOrdID, OrderID, final OrdStatus and CumQty, the epoch of
//!   its clientOid, no heap. A late or
//!   duplicated `order` push or `fill` for it produces nothing and is counted
//!   ([`TrackerStats::late_for_evicted`]), never as an unknown push. A cancel or modify that
//!   raced the eviction is answered exactly once, as the full order would have answered it:
//!   OrderCancelReject TooLateToCancel with the tombstone's ids and status (from its trade reply,
//!   or, when its outcome became unknown, from the exchange's state like any resolution). The
//!   exchange's state about a tombstoned order (reconciliation, restart, open-orders refresh)
//!   never brings it back. A place of the same (SessionID, root) is a new order (order entry
//!   sends a ClOrdID once per epoch: a later epoch reused the root); the tombstone stays, and a
//!   clientOid names the evicted order while its epoch is the tombstone's and not the new
//!   order's.
//!
//! Eviction never changes what is reported, only what is kept: a tombstone answers everything
//! exactly as the ended order would have. So a replay (which replays the recorded ticks only)
//! makes the same reports whether or not, and whenever, the recorded gateway evicted.
//!
//! Sizes: the live table is allocated at start for `order_capacity + retention_orders` orders
//! ([`Tracker::with_retention`]) and the tombstone table for `tombstones`, both
//! [`KeyTable`]s, which neither grow nor rehash while they hold at most that many, however many
//! entries come and go (std's `HashMap` would rehash in place now and then under this churn;
//! see `crate::key_table`). The bound holds: with eviction the live table holds at most the
//! open orders plus `retention_orders` ended ones (plus the few still waited on, which a
//! reply, the reply timeout or the push deadline releases), so it never grows while open
//! orders stay within `order_capacity`; the tombstone table never holds more than
//! `tombstones`. The ended FIFO is allocated for `retention_orders + 1` and the tombstone FIFO
//! for `tombstones`.
//!
//! [`Tracker::with_retention`]: super::core::Tracker::with_retention
//! [`Tracker::restore_session`]: super::core::Tracker::restore_session
//! [`Tracker::on_tick`]: super::core::Tracker::on_tick
//! [`TrackerStats::late_for_evicted`]: super::core::TrackerStats::late_for_evicted

use std::collections::VecDeque;

use codec::sbe::OrdStatus;
use codec::Decimal;

use super::order::Order;
use crate::key_table::KeyTable;

/// Default `[tracker] retention_ms`: an ended order stays in full this long (60 s). Late,
/// duplicated and reordered pushes come within seconds of the order's end on Bitget, and a
/// cancel or modify racing the end is answered within the reply timeout (5 s): a minute covers
/// both many times over while keeping the table small.
pub const DEFAULT_RETENTION_MS: u64 = 60_000;

/// Default `[tracker] retention_orders`: ended orders kept in full at most (16 384, about
/// 6.5 MB of table slots at ~400 bytes). At 1 000 orders a second the count bound takes over
/// from the time bound after ~16 s, still several push deadlines.
pub const DEFAULT_RETENTION_ORDERS: usize = 1 << 14;

/// Default `[tracker] tombstones`: evicted orders still recognised (65 536, about 7 MB: ~110
/// bytes each with their table and FIFO slots): four times the orders kept in full, so that at 1 000 orders a second a push is recognised for
/// over a minute after its order left the table.
pub const DEFAULT_TOMBSTONES: usize = 1 << 16;

/// Default `[tracker] unseen_tail_ms` ([`Retention::unseen_tail_ms`]): how long an ended
/// order stays held after it ended while its strategy is connected, or after its strategy
/// connected again (5 s): the last messages a connection may hold unread when it
/// ends (a rollover's drain grace is 1 s), and the time a strategy that connects takes to ask
/// for what it missed (a scheduled rollover waits 1 s for it). Longer than most strategies
/// need; only a `[tracker] retention_ms` below it makes a difference.
pub const UNSEEN_TAIL_MS: u64 = 5_000;

/// Where a session's strategy is, as the tracker knows it (see `unseen`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Presence {
    /// Connected since this monotonic ns (the tracker's clock then).
    Connected { since_ns: u64 },
    /// Its connection ended, or the gateway restarted, at this monotonic ns (the tracker's
    /// clock then): what is numbered now it reads later, if it comes back in this epoch.
    Away { since_ns: u64 },
}

/// How long ended orders stay in full and how many are remembered afterwards
/// (`[tracker] retention_ms`, `retention_orders`, `tombstones`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// An ended order leaves the live table once it has been ended this many ms (checked on the
    /// idle tick). 0: at the first tick after its end.
    pub retention_ms: u64,
    /// At most this many ended orders stay in the live table; one more ending evicts the
    /// oldest. 0: each leaves at the end of the input that ended it.
    pub retention_orders: usize,
    /// Tombstones kept (oldest dropped first); a push for an order whose tombstone was dropped
    /// counts as unknown. 0: none kept.
    pub tombstones: usize,
    /// An ended order whose end its strategy may not have seen stays, whatever the above, until
    /// a rollover reports it or its strategy has had this many ms to read it: after the order
    /// ended while the strategy is connected, or after the strategy connected again (while it
    /// is away, always; see `unseen`). 0: held only while its strategy is away. Default
    /// [`UNSEEN_TAIL_MS`] (5 000).
    pub unseen_tail_ms: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            retention_ms: DEFAULT_RETENTION_MS,
            retention_orders: DEFAULT_RETENTION_ORDERS,
            tombstones: DEFAULT_TOMBSTONES,
            unseen_tail_ms: UNSEEN_TAIL_MS,
        }
    }
}

/// What the tracker remembers of an evicted order (fixed size, no heap; the key (SessionID,
/// root ClOrdID) is the table's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tombstone {
    /// The order's ClOrdID when it ended (the last replace's).
    pub cl_ord_id: u64,
    /// Exchange `orderId` (0 if it never had one).
    pub order_id: u64,
    /// Final OrdStatus (Filled, Canceled or Rejected).
    pub status: OrdStatus,
    /// Final CumQty.
    pub cum_qty: Decimal,
    /// The epoch of the clientOid its pushes carried (`None`: no push came).
    pub epoch: Option<u32>,
}

impl Tombstone {
    /// The tombstone of ended order `o`.
    pub(super) fn of(o: &Order) -> Self {
        Tombstone {
            cl_ord_id: o.cl_ord_id,
            order_id: o.order_id,
            status: o.status,
            cum_qty: o.cum_qty,
            epoch: o.epoch,
        }
    }
}

/// An order the tracker evicted, for its session's order entry
/// ([`Tracker::drain_evicted`](super::core::Tracker::drain_evicted)), which releases its
/// ClOrdIDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evicted {
    /// SessionID.
    pub session_id: u64,
    /// Root ClOrdID.
    pub root: u64,
    /// The order had ended before its session's current epoch began, and the rollover
    /// reported it (OrderStatus) before it left: its ClOrdIDs are free in the new epoch.
    /// False for every other eviction: the ClOrdIDs stay used for the rest of the epoch, also
    /// those of an order carried over open that ended in the new epoch (a NewOrderSingle naming
    /// it may be the strategy's resend of it; see `crate::session::cl_ord_ids`).
    pub ended_before_epoch: bool,
}

/// Orders held by the tracker, for the metrics endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OrderCounts {
    /// Live orders not ended.
    pub open: usize,
    /// Live orders ended, kept in full for the retention window.
    pub ended: usize,
    /// Evicted orders remembered by a tombstone.
    pub tombstones: usize,
}

/// The tracker's retention state: ended orders in the live table (oldest first), tombstones,
/// and the keys evicted since the shell last drained them.
#[derive(Debug, Default)]
pub(super) struct Ended {
    pub(super) cfg: Retention,
    /// Ended orders in the live table, oldest first, with the monotonic ns they joined at
    /// (0: before the tracker had a clock; stamped at the first tick).
    pub(super) fifo: VecDeque<((u64, u64), u64)>,
    /// Tombstones, each with its burial number.
    tombstones: KeyTable<(Tombstone, u64)>,
    /// Tombstone keys with their burial numbers, oldest first (an entry whose number is not
    /// the tombstone's any more was forgotten and is skipped).
    tomb_fifo: VecDeque<((u64, u64), u64)>,
    /// Burials so far.
    buried: u64,
    /// Orders evicted since the shell last drained them.
    pub(super) evicted: Vec<Evicted>,
    /// The latest monotonic ns the tracker was given.
    pub(super) clock_ns: u64,
}

impl Ended {
    pub(super) fn new(cfg: Retention) -> Self {
        Ended {
            cfg,
            fifo: VecDeque::with_capacity(cfg.retention_orders.saturating_add(1)),
            tombstones: KeyTable::with_capacity(cfg.tombstones),
            tomb_fifo: VecDeque::with_capacity(cfg.tombstones),
            buried: 0,
            evicted: Vec::with_capacity(64),
            clock_ns: 0,
        }
    }

    /// The tombstone of evicted order `key`, if still kept.
    pub(super) fn tombstone(&self, key: &(u64, u64)) -> Option<&Tombstone> {
        if self.tombstones.is_empty() {
            return None;
        }
        self.tombstones.get(key).map(|(t, _)| t)
    }

    pub(super) fn tombstone_mut(&mut self, key: &(u64, u64)) -> Option<&mut Tombstone> {
        self.tombstones.get_mut(key).map(|(t, _)| t)
    }

    pub(super) fn is_tombstoned(&self, key: &(u64, u64)) -> bool {
        self.tombstone(key).is_some()
    }

    /// Whether a clientOid of epoch `epoch` and key `key` names the evicted order rather than
    /// the live one (`live`: the live order of that key, with the epoch its pushes carried):
    /// with no live order, whenever `key` has a tombstone; with one (a later epoch reused the
    /// root), when the tombstone's epoch is `epoch` and the live order's is not.
    pub(super) fn names_evicted(
        &self,
        key: &(u64, u64),
        epoch: u32,
        live: Option<Option<u32>>,
    ) -> bool {
        let Some(t) = self.tombstone(key) else {
            return false;
        };
        match live {
            None => true,
            Some(live_epoch) => t.epoch == Some(epoch) && live_epoch != Some(epoch),
        }
    }

    /// Tombstones held.
    pub(super) fn tombstone_count(&self) -> usize {
        self.tombstones.len()
    }

    /// Tombstones the table holds before it grows.
    pub(super) fn tombstone_capacity(&self) -> usize {
        self.tombstones.capacity()
    }

    /// How many times the tombstone table grew.
    pub(super) fn tombstone_growths(&self) -> u64 {
        self.tombstones.growths()
    }

    /// Keeps `t` for evicted order `key`, dropping the oldest tombstone when full.
    pub(super) fn bury(&mut self, key: (u64, u64), t: Tombstone) {
        if self.cfg.tombstones == 0 {
            return;
        }
        while self.tomb_fifo.len() >= self.cfg.tombstones {
            let Some((old, n)) = self.tomb_fifo.pop_front() else {
                break;
            };
            if self.tombstones.get(&old).is_some_and(|(_, m)| *m == n) {
                self.tombstones.remove(&old);
            }
        }
        self.buried += 1;
        self.tombstones.insert(key, (t, self.buried));
        self.tomb_fifo.push_back((key, self.buried));
    }
}
