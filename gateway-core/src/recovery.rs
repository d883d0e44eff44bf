//! What crash recovery keeps of the sessions' journals for the reconciliation that follows a
//! restart: which of the gateway's own orders ended before the restart.
//!
//! A restart reads each session's newest journal segment: its checkpoint holds the orders not
//! ended and every ClOrdID used in the epoch ([`Recovered`]); the orders that ended (their final
//! ExecutionReport journaled) are no longer rebuilt in the tracker. Reconciliation after the
//! restart lists the account's orders of the last minutes; an ended order among them is not one
//! "the journal did not know" (which the tracker takes over and reports from New on): it was
//! reported to its end, so [`EndedBeforeRestart::drop_from`] removes it, and its fills, from
//! the exchange's state before the tracker applies it.

use std::collections::HashMap;

use crate::ids::ClientOid;
use crate::journal::fold::Recovered;
use crate::session::used_ids::UsedIds;
use crate::tracker::ExchangeState;

/// Per session: its epoch, the ClOrdIDs used in that epoch, and the roots of the orders not
/// ended with the epoch each was placed in.
#[derive(Debug, Clone, Default)]
pub struct EndedBeforeRestart {
    sessions: HashMap<u64, (u32, UsedIds, HashMap<u64, u32>)>,
}

impl EndedBeforeRestart {
    /// Nothing known ended.
    pub fn new() -> Self {
        EndedBeforeRestart::default()
    }

    /// Adds what session `session_id`'s journal says.
    pub fn add(&mut self, session_id: u64, rec: &Recovered) {
        let live = rec
            .roots
            .values()
            .map(|root| {
                (
                    *root,
                    rec.root_epochs.get(root).copied().unwrap_or(rec.epoch),
                )
            })
            .collect();
        self.sessions
            .insert(session_id, (rec.epoch, rec.used.clone(), live));
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
