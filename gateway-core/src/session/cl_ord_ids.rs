//! The ClOrdIDs of one session's epoch: which were used (for ever in the epoch, as ranges:
//! [`UsedIds`]) and which name an order still tracked (a hash table bounded by the orders the
//! tracker holds, not by history).
//!
//! A NewOrderSingle's ClOrdID is the order's root; each cancel or replace adds a ClOrdID that
//! names the same order. A root enters the live table when its place-order is written to the
//! exchange ([`ClOrdIds::sent_new`]): a new order refused before (pre-trade, risk, rate budget,
//! link down) is used but never live. When the tracker evicts the order (ended and past the
//! retention window, `gateway_core::tracker`), [`ClOrdIds::release`] removes the root and every
//! ClOrdID naming it; they stay used, and a cancel or replace that names them is refused at
//! entry (TooLateToCancel) without a round trip.
//!
//! Across a rollover: the new epoch's ClOrdID space is fresh except for the live ClOrdIDs
//! (orders still tracked, carried over). A carried order that ends in the new epoch leaves its
//! ClOrdIDs used for the rest of that epoch ([`ClOrdIds::release`]), as the journal fold has it
//! after a restart (an order not ended at the epoch record keeps its ClOrdIDs in the epoch's
//! used set): a strategy that resends, in the new epoch, a NewOrderSingle of the old one that
//! got no answer before the rollover gets DuplicateOrder, however soon the order ended and left
//! the tracker (found by the soak: with ended orders evicted at once, the resend of an order
//! whose reply came just after the rollover reached the exchange again under the new epoch's
//! clientOid, a second order). Only an order that had ended before the epoch began, reported
//! OrderStatus by the rollover and evicted then, frees its ClOrdIDs in the new epoch
//! ([`ClOrdIds::release_ended_before_epoch`]).
//!
//! The ClOrdIDs of one order form a chain through the live table (each entry holds the next
//! ClOrdID of its order), so releasing an order needs no second table and no allocation.
//!
//! The live table is a [`KeyTable`] sized at start ([`INITIAL_LIVE`]); it grows (doubles) only
//! to its high-water mark (open orders plus the retained ended ones, times the ClOrdIDs each
//! used), never with history, and it never rehashes under the churn of ClOrdIDs entering and
//! leaving (a std `HashMap` does, in place, once its deleted markers pile up: see
//! `key_table`).

use super::used_ids::UsedIds;
use crate::key_table::KeyTable;

/// ClOrdIDs a session's live table holds before it first grows.
pub const INITIAL_LIVE: usize = 1 << 12;

/// What a ClOrdID names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// An order still tracked, of this root ClOrdID (its epoch: [`ClOrdIds::epoch_of`]).
    Live(u64),
    /// Used in the epoch, but its order has ended and left the tracker, or never reached the
    /// exchange (refused).
    Ended,
    /// Never used in the epoch.
    Unknown,
}

/// A live ClOrdID: the root of its order, the epoch the order was placed in, the next
/// ClOrdID of the same order's chain (0: none; ClOrdID 0 is never used), and the exchange
/// connection (index in the account's pool) its place-order was written on (`None`: not
/// known, e.g. restored from a journal). The connection fits the struct's padding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Link {
    root: u64,
    next: u64,
    epoch: u32,
    conn: Option<u8>,
}

/// The used and live ClOrdIDs of one session's epoch.
#[derive(Debug, Clone, Default)]
pub struct ClOrdIds {
    live: KeyTable<Link, u64>,
    used: UsedIds,
    /// The current epoch (new orders are placed in it).
    epoch: u32,
}

impl ClOrdIds {
    /// Empty, with room for [`INITIAL_LIVE`] live ClOrdIDs.
    pub fn new() -> Self {
        ClOrdIds {
            live: KeyTable::with_capacity(INITIAL_LIVE),
            used: UsedIds::new(),
            epoch: 0,
        }
    }

    /// The current epoch.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The epoch ends and `epoch` starts (session rollover): the ClOrdID space is fresh except
    /// for the ClOrdIDs of the orders still tracked, which stay live and reserved (a cancel or
    /// replace in the new epoch can still name them; a new order cannot take them); once
    /// released they stay used for the epoch ([`ClOrdIds::release`]), unless the order had
    /// ended before the rollover ([`ClOrdIds::release_ended_before_epoch`]: free). Returns how
    /// many stay reserved.
    pub fn new_epoch(&mut self, epoch: u32) -> usize {
        self.epoch = epoch;
        self.used = UsedIds::new();
        self.live.len()
    }

    /// The epoch of order `root` if it is live, else the current one (a new order's).
    pub fn epoch_of(&self, root: u64) -> u32 {
        self.live.get(&root).map_or(self.epoch, |l| l.epoch)
    }

    /// Rebuilt from a journal: `used` (every ClOrdID of epoch `epoch`) and the ClOrdIDs of the
    /// orders not ended (ClOrdID → (root, epoch the order was placed in); a root absent from it
    /// is added).
    pub fn restore(
        epoch: u32,
        live: impl IntoIterator<Item = (u64, u64, u32)>,
        used: UsedIds,
    ) -> Self {
        let mut ids = ClOrdIds {
            used,
            epoch,
            ..ClOrdIds::new()
        };
        let mut amends = Vec::new();
        for (cl, root, order_epoch) in live {
            ids.used.insert(cl);
            ids.used.insert(root);
            let head = Link {
                root,
                next: 0,
                epoch: order_epoch,
                conn: None,
            };
            if cl == root {
                ids.live.get_or_insert(root, head);
            } else {
                amends.push((cl, head));
            }
        }
        for (cl, head) in amends {
            ids.live.get_or_insert(head.root, head);
            ids.link(cl, head.root);
        }
        ids
    }

    /// What `cl` names.
    pub fn named(&self, cl: u64) -> Named {
        match self.live.get(&cl) {
            Some(l) => Named::Live(l.root),
            None if self.used.contains(cl) => Named::Ended,
            None => Named::Unknown,
        }
    }

    /// True when `cl` was used in the epoch, or names an order still tracked (of an earlier
    /// epoch: reserved).
    pub fn is_used(&self, cl: u64) -> bool {
        self.used.contains(cl) || self.live.contains_key(&cl)
    }

    /// Marks `cl` used (a NewOrderSingle's ClOrdID, live only once [`ClOrdIds::sent_new`]).
    pub fn use_root(&mut self, cl: u64) {
        self.used.insert(cl);
    }

    /// The place-order of root `root` was written, on exchange connection `conn` of the
    /// account's pool (`None`: not known): the order is live.
    pub fn sent_new(&mut self, root: u64, conn: Option<usize>) {
        self.used.insert(root);
        let epoch = self.epoch;
        let conn = conn.and_then(|c| u8::try_from(c).ok());
        self.live.get_or_insert(
            root,
            Link {
                root,
                next: 0,
                epoch,
                conn,
            },
        );
    }

    /// The exchange connection the place-order of live order `root` was written on, if known
    /// (its cancels and replaces go there: `gateway_core::budget`).
    pub fn conn_of(&self, root: u64) -> Option<usize> {
        self.live.get(&root).and_then(|l| l.conn).map(usize::from)
    }

    /// Cancel or replace ClOrdID `cl` names the live order of `root`: used, and live until
    /// that order is released. (A root that is not live only marks `cl` used.)
    pub fn use_amend(&mut self, cl: u64, root: u64) {
        self.used.insert(cl);
        if self.live.contains_key(&root) {
            self.link(cl, root);
        }
    }

    fn link(&mut self, cl: u64, root: u64) {
        let Some(head) = self.live.get_mut(&root) else {
            return;
        };
        let next = std::mem::replace(&mut head.next, cl);
        let (epoch, conn) = (head.epoch, head.conn);
        self.live.insert(
            cl,
            Link {
                root,
                next,
                epoch,
                conn,
            },
        );
    }

    /// The order of root `root` left the tracker: its ClOrdIDs leave the live table and are
    /// used for the rest of the epoch, also when the order was carried over from an earlier
    /// epoch (it had not ended at the rollover: a NewOrderSingle naming it in this epoch may be
    /// a resend of its own, see the module docs). Returns how many left.
    pub fn release(&mut self, root: u64) -> usize {
        self.release_chain(root, true)
    }

    /// The order of root `root`, carried over from an earlier epoch and ended before the
    /// current one began, left the tracker once the rollover reported it (OrderStatus): its
    /// ClOrdIDs leave the live table and are free in the current epoch (those used in it
    /// already stay used). Returns how many left.
    pub fn release_ended_before_epoch(&mut self, root: u64) -> usize {
        self.release_chain(root, false)
    }

    fn release_chain(&mut self, root: u64, keep_used: bool) -> usize {
        let mut n = 0;
        let mut at = root;
        while at != 0 {
            match self.live.remove(&at) {
                Some(l) if l.root == root => {
                    if keep_used && l.epoch != self.epoch {
                        self.used.insert(at);
                    }
                    n += 1;
                    at = l.next;
                }
                Some(other) => {
                    // Not this order's (cannot happen: chains never cross); put it back.
                    self.live.insert(at, other);
                    break;
                }
                None => break,
            }
        }
        n
    }

    /// Live ClOrdIDs (of orders still tracked).
    pub fn live_len(&self) -> usize {
        self.live.len()
    }

    /// ClOrdIDs used in the epoch.
    pub fn used_len(&self) -> u64 {
        self.used.len()
    }

    /// The used set.
    pub fn used(&self) -> &UsedIds {
        &self.used
    }

    /// The live ClOrdIDs → (root, the order's epoch), sorted by ClOrdID (for recording and
    /// checkpoints).
    pub fn live_sorted(&self) -> Vec<(u64, u64, u32)> {
        let mut v: Vec<(u64, u64, u32)> = self
            .live
            .iter()
            .map(|(c, l)| (*c, l.root, l.epoch))
            .collect();
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live(root: u64) -> Named {
        Named::Live(root)
    }

    #[test]
    fn an_orders_connection_is_remembered_until_it_is_released() {
        let mut ids = ClOrdIds::new();
        ids.use_root(1);
        ids.sent_new(1, Some(3));
        ids.use_amend(2, 1);
        ids.use_root(5);
        ids.sent_new(5, None);
        assert_eq!(ids.conn_of(1), Some(3));
        assert_eq!(ids.conn_of(5), None);
        // An index no u8 holds is not known rather than wrong.
        ids.use_root(6);
        ids.sent_new(6, Some(300));
        assert_eq!(ids.conn_of(6), None);
        ids.release(1);
        assert_eq!(ids.conn_of(1), None);
    }

    #[test]
    fn an_order_is_live_from_its_send_until_released_and_stays_used() {
        let mut ids = ClOrdIds::new();
        ids.use_root(1);
        assert_eq!(ids.named(1), Named::Ended, "used, never sent");
        ids.sent_new(1, None);
        ids.use_amend(2, 1);
        ids.use_amend(3, 1);
        ids.use_root(4);
        ids.sent_new(4, None);
        ids.use_amend(5, 4);
        assert_eq!(
            [1, 2, 3, 5].map(|c| ids.named(c)),
            [live(1), live(1), live(1), live(4)]
        );
        assert_eq!(ids.release(1), 3);
        assert_eq!(ids.release(1), 0);
        assert_eq!(
            [1, 2, 3, 4, 5, 6].map(|c| ids.named(c)),
            [
                Named::Ended,
                Named::Ended,
                Named::Ended,
                live(4),
                live(4),
                Named::Unknown
            ]
        );
        assert_eq!((ids.live_len(), ids.used_len()), (2, 5));
        // An amend of an order no longer live is used but not live.
        ids.use_amend(7, 1);
        assert_eq!(ids.named(7), Named::Ended);
    }

    #[test]
    fn restored_chains_release_whole() {
        let mut ids = ClOrdIds::restore(
            0,
            [(12, 10, 0), (10, 10, 0), (11, 10, 0), (20, 20, 0)],
            UsedIds::new(),
        );
        assert_eq!(ids.used_len(), 4);
        assert_eq!(ids.release(10), 3);
        assert_eq!(ids.live_sorted(), [(20, 20, 0)]);
        // A restored amend whose root was not listed brings its root back with it.
        let mut ids = ClOrdIds::restore(2, [(31, 30, 1)], UsedIds::new());
        assert_eq!(ids.named(30), Named::Live(30));
        assert_eq!((ids.epoch_of(30), ids.epoch_of(99)), (1, 2));
        assert_eq!(ids.release(30), 2);
    }

    /// A rollover keeps the tracked orders' ClOrdIDs reserved (and their epoch), frees the rest.
    #[test]
    fn a_new_epoch_keeps_only_the_live_ids_reserved() {
        let mut ids = ClOrdIds::new();
        for root in [1, 2, 3] {
            ids.use_root(root);
            ids.sent_new(root, None);
        }
        ids.use_amend(4, 2);
        ids.release(1);
        assert_eq!(ids.new_epoch(1), 3);
        assert_eq!(ids.named(1), Named::Unknown, "ended: free again");
        assert_eq!((ids.named(4), ids.epoch_of(2)), (Named::Live(2), 0));
        assert!(ids.is_used(2) && ids.is_used(4) && !ids.is_used(1));
        ids.use_root(1);
        ids.sent_new(1, None);
        assert_eq!((ids.named(1), ids.epoch_of(1)), (Named::Live(1), 1));
        assert_eq!(ids.epoch_of(2), 0);
        // An order that had ended before the rollover (reported OrderStatus, then evicted):
        // its ClOrdIDs are free in the new epoch.
        assert_eq!(ids.release_ended_before_epoch(3), 1);
        assert_eq!(ids.named(3), Named::Unknown);
        // The carried open order ends in the new epoch and leaves the tracker: its ClOrdIDs
        // stay used for the rest of the epoch (as the journal fold rebuilds them).
        assert_eq!(ids.release(2), 2);
        assert!(ids.is_used(2) && ids.is_used(4) && ids.is_used(1));
        assert_eq!([2, 4].map(|c| ids.named(c)), [Named::Ended, Named::Ended]);
        // And free again in the epoch after (order 1, still tracked, carried in turn).
        assert_eq!(ids.new_epoch(2), 1);
        assert!(!ids.is_used(2) && !ids.is_used(4) && !ids.is_used(3));
        assert_eq!(ids.named(1), Named::Live(1));
    }

    /// The soak's failure (seed 20261124, ended orders evicted at once): ClOrdID 582 was
    /// accepted in epoch 1, its reply and fill came after the rollover (numbered in epoch 2),
    /// it was evicted at once, and the strategy's resend of the NewOrderSingle (no answer seen
    /// before the rollover) was taken for a new order of epoch 2: placed again under the
    /// clientOid of epoch 2. It must be a duplicate.
    #[test]
    fn a_resend_of_an_order_carried_open_and_evicted_in_the_new_epoch_stays_a_duplicate() {
        let mut ids = ClOrdIds::restore(1, [], UsedIds::new());
        ids.use_root(582);
        ids.sent_new(582, None);
        ids.new_epoch(2);
        assert_eq!(ids.named(582), Named::Live(582), "reserved at the rollover");
        // Filled in epoch 2, evicted: released.
        assert_eq!(ids.release(582), 1);
        assert!(
            ids.is_used(582),
            "a resend of 582 in epoch 2 is a duplicate"
        );
        assert_eq!(ids.named(582), Named::Ended);
    }

    #[test]
    fn a_long_run_keeps_the_live_table_at_its_high_water_mark() {
        let mut ids = ClOrdIds::new();
        let cap = ids.live.capacity();
        for root in (1..2_000_000u64).step_by(2) {
            ids.use_root(root);
            ids.sent_new(root, None);
            ids.use_amend(root + 1, root);
            if root > 1_000 {
                ids.release(root - 1_000);
            }
        }
        assert_eq!(ids.live.capacity(), cap, "no growth with history");
        assert_eq!(ids.live.growths(), 0);
        assert_eq!(ids.used().ranges(), 1);
        assert_eq!(ids.live_len(), 1_000);
    }
}
