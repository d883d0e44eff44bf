//! What a fault is: its scope and target, the per-connection fault state, trade-op faults, and
//! the messages the fault control sends a connection task (below the fault state and its
//! control).

use serde::{Deserialize, Serialize};

use crate::matching::AccountId;

/// Which connections a fault applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scope {
    /// Every connection (public connections and not-yet-logged-in ones included).
    All,
    /// The connections logged in as the account with this uid.
    Uid(String),
}

impl Scope {
    /// [`Scope::Uid`] of `uid`.
    pub fn uid(uid: &str) -> Scope {
        Scope::Uid(uid.to_string())
    }
}

/// A resolved scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    All,
    Account(AccountId),
}

impl Target {
    pub(crate) fn matches(self, owner: Option<AccountId>) -> bool {
        match self {
            Target::All => true,
            Target::Account(a) => owner == Some(a),
        }
    }
}

/// The send-path faults of one connection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ConnFaults {
    /// Replies are written this many ms late.
    pub(crate) reply_delay_ms: u64,
    /// Pushes are written this many ms late.
    pub(crate) push_delay_ms: u64,
    /// Every push is written twice.
    pub(crate) duplicate: bool,
    /// Pushes are swapped pairwise; a held push waits at most this many ms (0 = off).
    pub(crate) reorder_window_ms: u64,
    /// Pushes are dropped.
    pub(crate) paused: bool,
    /// Every frame (pushes, replies, `pong`) is dropped; the socket stays open.
    pub(crate) silent: bool,
}

impl ConnFaults {
    /// The stronger of each fault of `self` and `o`.
    pub(super) fn merge(self, o: ConnFaults) -> ConnFaults {
        ConnFaults {
            reply_delay_ms: self.reply_delay_ms.max(o.reply_delay_ms),
            push_delay_ms: self.push_delay_ms.max(o.push_delay_ms),
            duplicate: self.duplicate || o.duplicate,
            reorder_window_ms: self.reorder_window_ms.max(o.reorder_window_ms),
            paused: self.paused || o.paused,
            silent: self.silent || o.silent,
        }
    }

    /// No fault set.
    pub(super) fn is_clear(self) -> bool {
        self == ConnFaults::default()
    }
}

/// What the trade path does instead of (or besides) the normal handling of one trade op.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TradeFault {
    /// Answer `{"event":"error","id":..,"code":"<code>","msg":..}` without applying the op.
    Reject { code: u32, msg: String },
    /// Answer `40010` "Request timed out", after applying the op (`applied`) or without.
    UnknownOutcome { applied: bool },
}

/// A message from the fault control to one connection task.
#[derive(Debug, Clone)]
pub(crate) enum Control {
    /// Close the connection now.
    Close,
    /// Write `frame`, then close after `close_after_ms`.
    Notice { frame: String, close_after_ms: u64 },
}
