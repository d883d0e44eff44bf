//! Ended orders whose end the strategy may not have seen (issue 23, session rollover): kept
//! from eviction until it has, or until a rollover has reported them.
//!
//! FIXP has no acknowledgement of the messages a strategy has read: a strategy that misses the
//! last messages of an epoch (the connection ended with them unread — the rollover's Terminate
//! follows them, but a connection reset loses what the socket still held —, or the strategy
//! was away when they were numbered and the session rolled without it) can no longer ask for
//! them in the next epoch. The next epoch's first messages (an OrderStatus for every order the
//! tracker holds, see `epochs`) tell it where those orders stand, but only for the orders still
//! held: an order that ended in that unseen tail and left the tracker at once (a short
//! retention) was reported to nobody. The soak found it: `retention_ms = 0`, a reconciliation's
//! Fill numbered 20 ms before a scheduled rollover's Terminate, never read by the strategy; the
//! order was evicted at once, and the new epoch said nothing about it.
//!
//! So an ended order stays in the live table (whatever the retention) while its end may be
//! unseen: while its session's strategy is away (its connection closed, or the gateway
//! restarted, until a strategy connects again), for `unseen_tail_ms` ([`UNSEEN_TAIL_MS`] by
//! default) after a strategy connects (it catches up on what it missed with
//! RetransmitRequests), and for `unseen_tail_ms` after the order ended while one is connected
//! (what its socket may still hold when the connection ends; the connection's end then makes
//! the session away). A rollover reports every held order and evicts the ended ones once
//! reported, those whose end may be unread keeping their ClOrdIDs used in the new epoch (a
//! resend of one may come before the strategy reads its OrderStatus); otherwise they leave by
//! retention once seen. Sessions never opened (the tracker was not told of a strategy
//! connection) are not held. The time is the tracker's clock (the
//! inputs' monotonic ns) and presence comes from recorded inputs (SessionOpened,
//! SessionClosed, Restore), so a replay decides the same.
//!
//! Not covered: a report a connected strategy had not read `unseen_tail_ms` after it was
//! numbered and that the connection's end then lost (such a strategy is cut off for its
//! backlog long before). With `rollover = "none"` the hold is not needed (the whole epoch can
//! be retransmitted) but costs only the orders that ended while their strategy was away.

use super::core::Tracker;
use super::retention::Presence;
#[cfg(doc)]
use super::retention::{Retention, UNSEEN_TAIL_MS};

impl Tracker {
    /// A strategy connection of session `session_id` ended (the session's reports go on being
    /// numbered and journaled; its strategy has not seen them): its ended orders are held until
    /// it is back ([`UNSEEN_TAIL_MS`] after) or a rollover reports them.
    pub fn on_session_closed(&mut self, session_id: u64) {
        let since_ns = self.ended.clock_ns;
        self.presence
            .insert(session_id, Presence::Away { since_ns });
    }

    /// Session `session_id`'s strategy connected (established) at the tracker's clock.
    pub(super) fn note_connected(&mut self, session_id: u64) {
        let since_ns = self.ended.clock_ns;
        self.presence
            .insert(session_id, Presence::Connected { since_ns });
    }

    /// Session `session_id` was restored at start-up: its strategy is not connected yet.
    pub(super) fn note_away(&mut self, session_id: u64) {
        let since_ns = self.ended.clock_ns;
        self.presence
            .insert(session_id, Presence::Away { since_ns });
    }

    /// True when the end of an order of session `session_id` that ended at monotonic ns
    /// `ended_ns` (at the latest) may not have been seen by its strategy (see the module docs).
    pub(super) fn end_may_be_unseen(&self, session_id: u64, ended_ns: u64) -> bool {
        if self.presence.is_empty() {
            return false;
        }
        match self.presence.get(&session_id) {
            None => false,
            Some(Presence::Away { .. }) => true,
            Some(&Presence::Connected { since_ns }) => {
                self.ended.clock_ns < ended_ns.max(since_ns).saturating_add(self.unseen_tail_ns)
            }
        }
    }

    /// At a rollover of session `session_id`, whose strategy left at the end of the old epoch:
    /// true when the end of its order that ended at monotonic ns `ended_ns` (at the latest; 0:
    /// unknown, restored) may not have been read before the strategy left (it ended within
    /// `unseen_tail_ms` of the connection's end, or after it). Such an order keeps its
    /// ClOrdIDs used in the new epoch: the strategy may resend it before it reads the new
    /// epoch's OrderStatus of it.
    pub(super) fn end_unseen_at_rollover(&self, session_id: u64, ended_ns: u64) -> bool {
        match self.presence.get(&session_id) {
            Some(&Presence::Away { since_ns }) => {
                ended_ns.saturating_add(self.unseen_tail_ns) > since_ns
            }
            Some(&Presence::Connected { since_ns }) => {
                ended_ns.max(since_ns).saturating_add(self.unseen_tail_ns) > self.ended.clock_ns
            }
            None => false,
        }
    }
}
