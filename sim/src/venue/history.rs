//! Finished orders kept for REST queries.

use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::matching::{AccountId, Order};

/// Bounded memory of finished (filled / cancelled) account orders, for `order-info`.
#[derive(Debug, Default)]
pub(super) struct History {
    /// By orderId, ordered: `history-orders` pages newest first from a cursor without
    /// scanning what it skips.
    pub(super) orders: BTreeMap<u64, (usize, Order)>,
    pub(super) by_client_oid: HashMap<(AccountId, String), u64>,
    fifo: VecDeque<u64>,
}

impl History {
    /// Finished orders kept for queries.
    const CAP: usize = 100_000;

    pub(super) fn insert(&mut self, book: usize, o: &Order) {
        self.by_client_oid
            .insert((o.owner, o.client_oid.clone()), o.order_id);
        if self.orders.insert(o.order_id, (book, o.clone())).is_none() {
            self.fifo.push_back(o.order_id);
        }
        while self.fifo.len() > Self::CAP {
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
}
