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
//! The ClOrdIDs of one order form a chain through the live table (each entry holds the next
//! ClOrdID of its order), so releasing an order needs no second table and no allocation.
//!
//! The live table is sized at start ([`INITIAL_LIVE`]); it grows only to its high-water mark
//! (open orders plus the retained ended ones, times the ClOrdIDs each used), never with
//! history, and a hash table never shrinks, so a long run stops rehashing once that mark is
//! reached.

use std::collections::HashMap;

use super::used_ids::UsedIds;

/// ClOrdIDs a session's live table holds before it first grows.
pub const INITIAL_LIVE: usize = 1 << 12;

/// What a ClOrdID names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// An order still tracked, of this root ClOrdID.
    Live(u64),
    /// Used in the epoch, but its order has ended and left the tracker, or never reached the
    /// exchange (refused).
    Ended,
    /// Never used in the epoch.
    Unknown,
}

/// A live ClOrdID: the root of its order and the next ClOrdID of the same order's chain
/// (0: none; ClOrdID 0 is never used).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Link {
    root: u64,
    next: u64,
}

/// The used and live ClOrdIDs of one session's epoch.
#[derive(Debug, Clone, Default)]
pub struct ClOrdIds {
    live: HashMap<u64, Link>,
    used: UsedIds,
}

impl ClOrdIds {
    /// Empty, with room for [`INITIAL_LIVE`] live ClOrdIDs.
    pub fn new() -> Self {
        ClOrdIds {
            live: HashMap::with_capacity(INITIAL_LIVE),
            used: UsedIds::new(),
        }
    }

    /// Rebuilt from a journal: `used` (every ClOrdID of the epoch) and the ClOrdIDs of the
    /// orders not ended (ClOrdID → root; a root absent from it is added).
    pub fn restore(live: impl IntoIterator<Item = (u64, u64)>, used: UsedIds) -> Self {
        let mut ids = ClOrdIds {
            used,
            ..ClOrdIds::new()
        };
        let mut amends = Vec::new();
        for (cl, root) in live {
            ids.used.insert(cl);
            ids.used.insert(root);
            if cl == root {
                ids.live.entry(root).or_insert(Link { root, next: 0 });
            } else {
                amends.push((cl, root));
            }
        }
        for (cl, root) in amends {
            ids.live.entry(root).or_insert(Link { root, next: 0 });
            ids.link(cl, root);
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

    /// True when `cl` was used in the epoch.
    pub fn is_used(&self, cl: u64) -> bool {
        self.used.contains(cl)
    }

    /// Marks `cl` used (a NewOrderSingle's ClOrdID, live only once [`ClOrdIds::sent_new`]).
    pub fn use_root(&mut self, cl: u64) {
        self.used.insert(cl);
    }

    /// The place-order of root `root` was written: the order is live.
    pub fn sent_new(&mut self, root: u64) {
        self.used.insert(root);
        self.live.entry(root).or_insert(Link { root, next: 0 });
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
        self.live.insert(cl, Link { root, next });
    }

    /// The order of root `root` left the tracker: its ClOrdIDs leave the live table (they
    /// stay used). Returns how many left.
    pub fn release(&mut self, root: u64) -> usize {
        let mut n = 0;
        let mut at = root;
        while at != 0 {
            match self.live.remove(&at) {
                Some(l) if l.root == root => {
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

    /// The live ClOrdIDs → root, sorted by ClOrdID (for recording).
    pub fn live_sorted(&self) -> Vec<(u64, u64)> {
        let mut v: Vec<(u64, u64)> = self.live.iter().map(|(c, l)| (*c, l.root)).collect();
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_order_is_live_from_its_send_until_released_and_stays_used() {
        let mut ids = ClOrdIds::new();
        ids.use_root(1);
        assert_eq!(ids.named(1), Named::Ended, "used, never sent");
        ids.sent_new(1);
        ids.use_amend(2, 1);
        ids.use_amend(3, 1);
        ids.use_root(4);
        ids.sent_new(4);
        ids.use_amend(5, 4);
        assert_eq!(
            [1, 2, 3, 5].map(|c| ids.named(c)),
            [
                Named::Live(1),
                Named::Live(1),
                Named::Live(1),
                Named::Live(4)
            ]
        );
        assert_eq!(ids.release(1), 3);
        assert_eq!(ids.release(1), 0);
        assert_eq!(
            [1, 2, 3, 4, 5, 6].map(|c| ids.named(c)),
            [
                Named::Ended,
                Named::Ended,
                Named::Ended,
                Named::Live(4),
                Named::Live(4),
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
        let mut ids = ClOrdIds::restore([(12, 10), (10, 10), (11, 10), (20, 20)], UsedIds::new());
        assert_eq!(ids.used_len(), 4);
        assert_eq!(ids.release(10), 3);
        assert_eq!(ids.live_sorted(), [(20, 20)]);
        // A restored amend whose root was not listed brings its root back with it.
        let mut ids = ClOrdIds::restore([(31, 30)], UsedIds::new());
        assert_eq!(ids.named(30), Named::Live(30));
        assert_eq!(ids.release(30), 2);
    }

    #[test]
    fn a_long_run_keeps_the_live_table_at_its_high_water_mark() {
        let mut ids = ClOrdIds::new();
        let cap = ids.live.capacity();
        for root in (1..2_000_000u64).step_by(2) {
            ids.use_root(root);
            ids.sent_new(root);
            ids.use_amend(root + 1, root);
            if root > 1_000 {
                ids.release(root - 1_000);
            }
        }
        assert_eq!(ids.live.capacity(), cap, "no growth with history");
        assert_eq!(ids.used().ranges(), 1);
        assert_eq!(ids.live_len(), 1_000);
    }
}
