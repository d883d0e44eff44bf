//! Finished orders kept for REST queries (`order-info`, `history-orders`), bounded.
//!
//! Bitget answers `history-orders` for a 90-day window (reference §7); the venue keeps a
//! finished order for [`History::WINDOW_MS`] after it ended and at most [`History::CAP`]
//! (100 000) of them over all accounts, the oldest leaving first: the count holds memory when
//! millions of orders a day end, the window when few do. 100 000 is ten times what a gateway's
//! restart reconciliation reads per category (100 pages of 100) and about 40 MiB (~30 MiB of
//! `Order`s with their clientOids in the ordered map, 10 MiB of clientOid index, 0.8 MiB of
//! end-order queue; heaptrack under the endurance bench).
//!
//! The clientOid index and the end-order queue are allocated full-sized at start, so no table
//! grows (rehashes) while orders flow; the ordered map grows by nodes, never by copy. The index
//! gets room for twice the cap: a hash table that churns (one key out for each one in) turns
//! some freed slots into tombstones (a freed slot inside a run of 16 full ones), and one filled
//! to 76 % runs out of free slots and grows (the former index, 100 000 keys in 131 072 slots,
//! had doubled by 600 000 orders in the endurance bench); under 40 % full a tombstone is rare
//! (a few per 100 000 orders in the tests).

use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::matching::{AccountId, Order};

/// Bounded memory of finished (filled / cancelled) account orders (see the module docs).
#[derive(Debug)]
pub(super) struct History {
    /// By orderId, ordered: `history-orders` pages newest first from a cursor without
    /// scanning what it skips.
    pub(super) orders: BTreeMap<u64, (usize, Order)>,
    /// The latest finished order of each (account, clientOid) kept.
    pub(super) by_client_oid: HashMap<(AccountId, String), u64>,
    /// The kept orderIds in the order they ended (oldest at the front).
    fifo: VecDeque<u64>,
}

impl History {
    /// Finished orders kept for queries, over all accounts.
    pub(super) const CAP: usize = 100_000;

    /// How long a finished order stays queryable after it ended (its `updatedTime`), ms:
    /// 90 days, Bitget's `history-orders` window.
    pub(super) const WINDOW_MS: u64 = 90 * 24 * 60 * 60 * 1000;

    /// An empty history with its index and queue allocated for [`History::CAP`] orders (the
    /// index for twice that, see the module docs).
    pub(super) fn new() -> History {
        History {
            orders: BTreeMap::new(),
            by_client_oid: HashMap::with_capacity(2 * Self::CAP),
            fifo: VecDeque::with_capacity(Self::CAP + 1),
        }
    }

    /// Keeps the finished order `o` of book `book`; then the oldest leave while more than
    /// [`History::CAP`] are kept or they ended [`History::WINDOW_MS`] or more before `now_ms`.
    pub(super) fn insert(&mut self, book: usize, o: &Order, now_ms: u64) {
        self.by_client_oid
            .insert((o.owner, o.client_oid.clone()), o.order_id);
        if self.orders.insert(o.order_id, (book, o.clone())).is_none() {
            self.fifo.push_back(o.order_id);
        }
        while self.fifo.len() > Self::CAP || self.oldest_expired(now_ms) {
            let Some(old) = self.fifo.pop_front() else {
                break;
            };
            if let Some((_, o)) = self.orders.remove(&old) {
                let key = (o.owner, o.client_oid);
                if self.by_client_oid.get(&key) == Some(&old) {
                    self.by_client_oid.remove(&key);
                }
            }
        }
    }

    /// True when the oldest kept order ended [`History::WINDOW_MS`] or more before `now_ms`.
    fn oldest_expired(&self, now_ms: u64) -> bool {
        self.fifo
            .front()
            .and_then(|id| self.orders.get(id))
            .is_some_and(|(_, o)| o.updated_ms.saturating_add(Self::WINDOW_MS) <= now_ms)
    }

    /// Orders kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.orders.len()
    }

    /// The allocations of the clientOid index and the end-order queue (entries they hold
    /// without growing).
    #[cfg(test)]
    pub(super) fn capacity(&self) -> (usize, usize) {
        (self.by_client_oid.capacity(), self.fifo.capacity())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::{OrderStatus, OrderType, Side, StpMode, TimeInForce};

    fn order(id: u64, oid: &str, ended_ms: u64) -> Order {
        Order {
            owner: AccountId(0),
            order_id: id,
            client_oid: oid.to_string(),
            side: Side::Buy,
            order_type: OrderType::Limit,
            tif: TimeInForce::Gtc,
            price: Some(1),
            qty: 1,
            cum_qty: 0,
            cum_value: 0,
            cum_fee: codec::Decimal::ZERO,
            amount: None,
            pos_side: None,
            reduce_only: false,
            stp_mode: StpMode::None,
            status: OrderStatus::Cancelled,
            cancel_reason: None,
            created_ms: ended_ms,
            updated_ms: ended_ms,
        }
    }

    #[test]
    fn the_count_cap_holds_and_the_tables_never_grow() {
        let mut h = History::new();
        let capacity = h.capacity();
        assert!(capacity.0 >= 2 * History::CAP && capacity.1 > History::CAP);
        // The index's figure is its entries plus its free slots: a tombstone lowers it (and
        // reusing one raises it back), a growth would double it. A rehash in place needs the
        // free slots used up, which the few tombstones at the end show is far off.
        let n = History::CAP as u64 + 5_000;
        for id in 1..=n {
            h.insert(0, &order(id, &format!("c{id}"), id), id);
            assert!(h.len() <= History::CAP);
            let now = h.capacity();
            assert!(
                now.0 <= capacity.0 && now.1 == capacity.1,
                "a table grew at order {id}: {capacity:?} → {now:?}"
            );
        }
        assert_eq!(h.len(), History::CAP);
        assert_eq!(h.by_client_oid.len(), History::CAP);
        assert_eq!(h.fifo.len(), History::CAP);
        assert!(h.capacity().0 + 100 >= capacity.0, "{:?}", h.capacity());
        // The oldest left first: the kept window is the last CAP orders.
        assert!(!h.orders.contains_key(&5_000));
        assert!(!h
            .by_client_oid
            .contains_key(&(AccountId(0), "c5000".to_string())));
        assert!(h.orders.contains_key(&5_001));
        assert_eq!(
            h.by_client_oid.get(&(AccountId(0), "c5001".to_string())),
            Some(&5_001)
        );
    }

    #[test]
    fn orders_leave_after_the_window() {
        let mut h = History::new();
        h.insert(0, &order(1, "a", 1_000), 1_000);
        h.insert(0, &order(2, "b", 2_000), 2_000);
        // One ms before the first one's window ends: both kept.
        h.insert(0, &order(3, "c", 3_000), 1_000 + History::WINDOW_MS - 1);
        assert_eq!(h.len(), 3);
        // At its end the first one leaves, with its clientOid.
        h.insert(0, &order(4, "d", 4_000), 1_000 + History::WINDOW_MS);
        assert_eq!(h.len(), 3);
        assert!(!h.orders.contains_key(&1));
        assert!(!h
            .by_client_oid
            .contains_key(&(AccountId(0), "a".to_string())));
        assert!(h.orders.contains_key(&2));
    }

    #[test]
    fn a_clientoid_used_again_keeps_its_latest_order_when_the_older_leaves() {
        let mut h = History::new();
        h.insert(0, &order(1, "same", 1), 1);
        h.insert(0, &order(2, "same", 2), 2);
        for id in 3..=(History::CAP as u64 + 1) {
            h.insert(0, &order(id, &format!("c{id}"), id), id);
        }
        assert!(!h.orders.contains_key(&1));
        assert_eq!(
            h.by_client_oid.get(&(AccountId(0), "same".to_string())),
            Some(&2)
        );
    }
}
