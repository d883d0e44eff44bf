//! The exchange's view of an account, as REST gives it (orders, fills, orders not found), and
//! what applying it did (below the tracker core; applying it is in `reconcile.rs`).

use crate::journal::record::Origin;
use crate::rest_objects::{ExchangeFill, OpenOrder};

/// The exchange's view of some orders of one account (from `unfilled-orders`, `history-orders`,
/// `order-info` and `fills`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExchangeState {
    /// Index of the account queried.
    pub account: usize,
    /// Orders (open or finished).
    pub orders: Vec<OpenOrder>,
    /// Fills.
    pub fills: Vec<ExchangeFill>,
    /// clientOids the exchange does not know (order-info answered "Order does not exist").
    pub not_found: Vec<String>,
    /// Why the state was queried; after a restart ([`StateSource::Restart`]) the orders of this
    /// gateway's sessions (clientOid of the gateway's form) that the tracker does not know are
    /// taken over: orders sent but not yet journaled.
    pub source: StateSource,
}

/// Why an [`ExchangeState`] was queried (its reports are journaled with the matching
/// [`Origin`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StateSource {
    /// Reconciliation after the account's link came back.
    #[default]
    Reconnect,
    /// An unknown outcome's order queried by clientOid.
    Resolution,
    /// Crash recovery: reconciliation before strategies are accepted.
    Restart,
}

impl StateSource {
    /// The journal origin of the reports this state produces.
    pub fn origin(self) -> Origin {
        match self {
            StateSource::Reconnect => Origin::Reconcile,
            StateSource::Resolution => Origin::Resolve,
            StateSource::Restart => Origin::Restart,
        }
    }
}

/// What applying an [`ExchangeState`] changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApplySummary {
    /// Fills not seen before (ExecutionReports PartialFill/Fill produced).
    pub new_fills: u64,
    /// Synthetic fills for quantities the fills list missed.
    pub synthetic_fills: u64,
    /// Reports of every kind produced.
    pub reports: u64,
    /// Orders and fills whose clientOid names no order of this gateway.
    pub unknown: u64,
    /// Orders taken over (see [`ExchangeState::source`]).
    pub adopted: u64,
    /// clientOids the exchange did not know.
    pub not_found: u64,
    /// Orders open here that a reconciliation's lists left out, queued to be queried by
    /// clientOid.
    pub not_shown: u64,
}
