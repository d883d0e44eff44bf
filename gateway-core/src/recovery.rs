//! What crash recovery keeps of the sessions' journals for the reconciliation that follows a
//! restart: which of the gateway's own orders ended before the restart.
//!
//! A restart reads each session's newest journal segment: its checkpoint holds the orders not
//! ended and every ClOrdID used in the epoch ([`Recovered`]); the orders that ended (their final
//! ExecutionReport journaled) are no longer rebuilt in the tracker, but the held ends (ended
//! orders whose end the strategy may not have read, [`Recovered::held_ends`]), rebuilt ended. Reconciliation after the
//! restart lists the account's orders of the last minutes; an ended order among them is not one
//! "the journal did not know" (which the tracker takes over and reports from New on): it was
//! reported to its end, so [`EndedBeforeRestart::drop_from`] removes it, and its fills, from
//! the exchange's state before the tracker applies it.

use std::collections::HashMap;

use crate::ids::ClientOid;
use crate::journal::fold::Recovered;
use crate::session::order_entry::OrderEntry;
use crate::session::used_ids::UsedIds;
use crate::tracker::ExchangeState;

/// How far before the last journaled report a restart looks for changes, in ms (fills and
/// cancels the gateway may have missed while it was stopping).
pub const RESTART_MARGIN_MS: u64 = 5 * 60 * 1000;

/// Pages of finished orders (per category, newest first) a restart reads at most: 2 000
/// orders per category; for the two usual categories 40 pages, about a second of Bitget's
/// 20/s/UID quota of `history-orders`, well within the time the open orders' pages take.
///
/// Why not all: the venue filters them on the creation time, and after a restart under load
/// the window since the last report minus [`RESTART_MARGIN_MS`] holds every order of the last
/// minutes (at 3 000 orders/s, more than the pager's 100 pages per category), almost all of
/// them ended and journaled before the crash, so left out anyway: 200 pages (10 s at 20/s)
/// that tell nothing. The orders whose end the journal may lack are the newest ones (in
/// flight at the crash, sessions × window of them) and are on these pages; an order the
/// journal has open that the lists leave out (it ended while the gateway was down, created
/// earlier) is queried by clientOid (`order-info`, tracker `query_not_shown`), as one created
/// before the window always was: the result stays exact, and the restart stays bounded by
/// the open orders' pages. The price: after a long outage in which many of the journal's
/// open orders created within the window ended (more than these pages hold), those beyond
/// them are queried one by one after the start (10/s, [`crate::resolver`]) instead of being
/// read 100 a page. The fills are not cut so (a fill left out would be made up from the
/// order's quantities, without its ExecID and price).
pub const RESTART_HISTORY_PAGES: usize = 20;

/// Session `session_id`'s order entry as its journal leaves it (`rec`): the epoch, the
/// ClOrdIDs of its orders not ended and of its held ends (each order with the epoch its clientOid names: an order
/// carried over a rollover keeps its own), the ClOrdIDs and ListIDs used in the epoch.
pub fn order_entry(session_id: u64, rec: &Recovered) -> OrderEntry {
    let order_epoch = |root: &u64| rec.root_epochs.get(root).copied().unwrap_or(rec.epoch);
    OrderEntry::restore(
        session_id,
        rec.epoch,
        rec.roots.iter().map(|(c, r)| (*c, *r, order_epoch(r))),
        rec.used.clone(),
        rec.list_ids.clone(),
    )
}

/// Per session: its epoch, the ClOrdIDs used in that epoch, and the roots of the orders not
/// ended with the epoch each was placed in; and the last report journaled by any session.
#[derive(Debug, Clone, Default)]
pub struct EndedBeforeRestart {
    sessions: HashMap<u64, (u32, UsedIds, HashMap<u64, u32>)>,
    /// UTC ms of the newest report any session journaled (`None`: no session recovered).
    until_ms: Option<u64>,
}

impl EndedBeforeRestart {
    /// Nothing known ended.
    pub fn new() -> Self {
        EndedBeforeRestart::default()
    }

    /// Adds what session `session_id`'s journal says.
    pub fn add(&mut self, session_id: u64, rec: &Recovered) {
        // The held ends (ended orders kept for the next epoch's OrderStatus) ended and were
        // reported: not live here.
        let live = rec
            .roots
            .values()
            .filter(|root| !rec.held_ends.contains(root))
            .map(|root| {
                (
                    *root,
                    rec.root_epochs.get(root).copied().unwrap_or(rec.epoch),
                )
            })
            .collect();
        self.sessions
            .insert(session_id, (rec.epoch, rec.used.clone(), live));
        self.until_ms = Some(self.until_ms.unwrap_or(0).max(rec.last_report_ms));
    }

    /// UTC ms from which a restart's reconciliation lists the exchange's orders and fills: the
    /// newest report journaled by the sessions added, less [`RESTART_MARGIN_MS`]. `None` when
    /// no session was added (a fresh start: nothing to reconcile).
    pub fn reconcile_since_ms(&self) -> Option<u64> {
        self.until_ms.map(|ms| ms.saturating_sub(RESTART_MARGIN_MS))
    }

    /// True when the order of `client_oid` is one of this gateway's that ended and was reported
    /// before the restart: not an order its session's journal still holds (same root, same
    /// epoch), and either placed in the current epoch with its ClOrdID used, or placed in an
    /// earlier epoch (an order of an earlier epoch the journal does not hold ended before the
    /// rollover, or after it as a carried order).
    pub fn ended(&self, client_oid: &str) -> bool {
        let Some((session_id, epoch, root)) = ClientOid::parse_epoch(client_oid) else {
            return false;
        };
        let Some((current, used, live)) = self.sessions.get(&session_id) else {
            return false;
        };
        if live.get(&root) == Some(&epoch) {
            return false;
        }
        match epoch.cmp(&(current % crate::ids::EPOCH_LIMIT)) {
            std::cmp::Ordering::Equal => used.contains(root),
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
        }
    }

    /// Removes the orders and fills of ended orders from `state`; returns how many entries.
    pub fn drop_from(&self, state: &mut ExchangeState) -> usize {
        let before = state.orders.len() + state.fills.len();
        state.orders.retain(|o| !self.ended(&o.client_oid));
        state.fills.retain(|f| !self.ended(&f.client_oid));
        before - state.orders.len() - state.fills.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_used_and_no_longer_live_orders_are_ended() {
        let rec = Recovered {
            used: [1, 2, 3, 4].into_iter().collect(),
            roots: [(2, 2), (4, 2)].into(),
            ..Recovered::default()
        };
        let mut e = EndedBeforeRestart::new();
        e.add(7, &rec);
        let oid = |s, r| ClientOid::new(s, r).as_str().to_owned();
        assert!(e.ended(&oid(7, 1)));
        assert!(e.ended(&oid(7, 3)));
        assert!(!e.ended(&oid(7, 2)), "live");
        assert!(!e.ended(&oid(7, 9)), "never used: not journaled");
        assert!(!e.ended(&oid(8, 1)), "another session");
        assert!(!e.ended("outside-1"));
        // A held end (ended, kept for the next epoch's OrderStatus) ended.
        let held = Recovered {
            held_ends: [2].into(),
            ..rec
        };
        let mut e = EndedBeforeRestart::new();
        e.add(7, &held);
        assert!(e.ended(&oid(7, 2)), "held end");
    }

    /// A restart reconciles from the newest report of any session less the margin; with no
    /// session recovered, not at all.
    #[test]
    fn reconciliation_starts_at_the_newest_report_less_the_margin() {
        let mut e = EndedBeforeRestart::new();
        assert_eq!(e.reconcile_since_ms(), None);
        for (id, ms) in [(7, 9_000_000), (8, 9_500_000), (9, 0)] {
            let rec = Recovered {
                last_report_ms: ms,
                ..Recovered::default()
            };
            e.add(id, &rec);
        }
        assert_eq!(e.reconcile_since_ms(), Some(9_500_000 - RESTART_MARGIN_MS));
    }

    /// The order entry a journal leaves: live ClOrdIDs with their order's epoch, used ones
    /// refused again.
    #[test]
    fn the_order_entry_keeps_the_journal_s_ids() {
        let rec = Recovered {
            epoch: 1,
            used: [1, 2, 3].into_iter().collect(),
            roots: [(2, 2), (3, 2)].into(),
            root_epochs: [(2, 0)].into(),
            ..Recovered::default()
        };
        assert!(rec.established());
        assert_eq!(rec.epoch_step(), Some((1, vec![(2, 0)])));
        assert_eq!(Recovered::default().epoch_step(), None);
        assert!(!Recovered::default().established());
        let rolled = Recovered {
            epoch: 1,
            next_seq: 1,
            ..Recovered::default()
        };
        assert!(
            rolled.established(),
            "rolled over, nothing sent in the new epoch yet"
        );
        let entry = order_entry(7, &rec);
        let ids = entry.cl_ord_ids();
        assert_eq!(ids.epoch(), 1);
        assert_eq!(ids.live_sorted(), vec![(2, 2, 0), (3, 2, 0)]);
        assert!(ids.is_used(1));
        assert!(!ids.is_used(4));
    }

    /// After a rollover: orders of earlier epochs the journal does not hold ended; a carried
    /// one (listed with its epoch) did not; the current epoch's follow the used/live rule.
    #[test]
    fn orders_of_earlier_epochs_not_held_ended_before_the_restart() {
        let rec = Recovered {
            epoch: 2,
            used: [1, 5].into_iter().collect(),
            roots: [(5, 5), (9, 9)].into(),
            root_epochs: [(9, 1)].into(),
            ..Recovered::default()
        };
        let mut e = EndedBeforeRestart::new();
        e.add(7, &rec);
        let oid = |ep, r| ClientOid::in_epoch(7, ep, r).as_str().to_owned();
        assert!(
            e.ended(&oid(0, 5)),
            "epoch 0's order 5 ended before the rollovers"
        );
        assert!(e.ended(&oid(1, 1)));
        assert!(!e.ended(&oid(1, 9)), "carried from epoch 1");
        assert!(!e.ended(&oid(2, 5)), "live in epoch 2");
        assert!(e.ended(&oid(2, 1)), "used in epoch 2, not live");
        assert!(!e.ended(&oid(2, 3)), "never used");
        assert!(!e.ended(&oid(3, 1)), "a later epoch: not ours to judge");
    }
}
