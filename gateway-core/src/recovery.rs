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

use std::collections::{HashMap, HashSet};

use crate::ids::ClientOid;
use crate::journal::fold::Recovered;
use crate::session::used_ids::UsedIds;
use crate::tracker::ExchangeState;

/// Per session: the ClOrdIDs used in the epoch and the roots of the orders not ended.
#[derive(Debug, Clone, Default)]
pub struct EndedBeforeRestart {
    sessions: HashMap<u64, (UsedIds, HashSet<u64>)>,
}

impl EndedBeforeRestart {
    /// Nothing known ended.
    pub fn new() -> Self {
        EndedBeforeRestart::default()
    }

    /// Adds what session `session_id`'s journal says.
    pub fn add(&mut self, session_id: u64, rec: &Recovered) {
        let live = rec.roots.values().copied().collect();
        self.sessions.insert(session_id, (rec.used.clone(), live));
    }

    /// True when the order of `client_oid` is one of this gateway's whose ClOrdID its
    /// session's journal shows used and no longer live (ended and reported).
    pub fn ended(&self, client_oid: &str) -> bool {
        let Some((session_id, root)) = ClientOid::parse(client_oid) else {
            return false;
        };
        self.sessions
            .get(&session_id)
            .is_some_and(|(used, live)| used.contains(root) && !live.contains(&root))
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
}
