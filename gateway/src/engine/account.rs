//! One exchange account as the io thread holds it: its signed REST client and its pool of
//! private WebSocket connections (the first one carries the `order`, `fill`, `position` and
//! `account` subscriptions; every one carries trade ops).

use super::exchange_link::ExchangeLink;
use crate::exchange::rest::RestClient;

/// How a trade op is classed for the rate budget (Bitget REST quota names, reference §2.4, §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TradeOp {
    /// `place-order`.
    Place,
    /// `batch-place` (≤ 20 orders).
    BatchPlace,
    /// `modify-order`.
    Modify,
    /// `batch-modify` (≤ 20 orders).
    BatchModify,
    /// `cancel-order`.
    Cancel,
    /// `batch-cancel` (≤ 20 orders).
    BatchCancel,
}

impl TradeOp {
    /// True for the cancel ops, which the rate budget never lets new orders starve.
    pub fn is_cancel(self) -> bool {
        matches!(self, TradeOp::Cancel | TradeOp::BatchCancel)
    }
}

/// One account: name, REST client, WebSocket pool.
pub(super) struct AccountCtx {
    /// Index in the gateway's account list (what sessions and tracker frames refer to).
    pub(super) ix: usize,
    /// Configured name.
    pub(super) name: String,
    /// Signed REST client of the account's key.
    #[allow(dead_code)] // used by the account-request and mass-status handlers
    pub(super) rest: RestClient,
    /// The private WebSocket connections (at least one).
    pub(super) links: Vec<ExchangeLink>,
}

impl std::fmt::Debug for AccountCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccountCtx")
            .field("ix", &self.ix)
            .field("name", &self.name)
            .field("links", &self.links.len())
            .finish()
    }
}

impl AccountCtx {
    /// True while the primary connection (the one with the subscriptions) is usable.
    pub(super) fn is_up(&self) -> bool {
        self.links.first().is_some_and(ExchangeLink::is_up)
    }

    /// Writes one trade op on a connection of the pool. Returns false if it could not be
    /// written (the link is down or the write failed): the op was not sent.
    pub(super) async fn send_trade(&self, _op: TradeOp, json: &[u8]) -> bool {
        match self.links.first() {
            Some(link) => link.send_text(json).await,
            None => false,
        }
    }
}
