//! What the resolver asks of the shell ([`Query`]: one REST call of one account) and what the
//! shell hands back ([`Answer`]). Plain values: the shell (or the deterministic simulator's
//! venue) runs the call and feeds the answer to [`super::Resolver::on_answer`].

use codec::sbe::Category;

use crate::ids::ClientOid;
use crate::rest_objects::{ExchangeFill, OpenOrder};

/// One REST call to make for one account (reference §7; paths in
/// [`crate::budget::QueryEndpoint::path`]). Each takes one of the account's pacing slots
/// ([`super::rules::QUERY_INTERVAL_MS`]); a list is read in full (every page, at most
/// [`crate::rest_objects::MAX_PAGES`]) as one query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Query {
    /// Index of the account whose key signs the call.
    pub account: usize,
    /// The call.
    pub kind: QueryKind,
}

/// The REST call of a [`Query`] and the [`Answer`] it expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    /// `GET /api/v3/public/time`: the exchange's clock (`data.serverTime`, UTC ms). Answer:
    /// [`Answer::ServerTime`].
    ServerTime,
    /// `GET /api/v3/trade/history-orders?category=..&startTime=since_ms`, every page: the
    /// finished orders of `category` created since `since_ms` (UTC ms, exchange clock).
    /// Answer: [`Answer::Orders`].
    HistoryOrders {
        /// `category`.
        category: Category,
        /// `startTime`, UTC ms.
        since_ms: u64,
    },
    /// `GET /api/v3/trade/unfilled-orders` (every category), every page: the open orders.
    /// Answer: [`Answer::Orders`].
    OpenOrders,
    /// `GET /api/v3/trade/fills?startTime=since_ms[&category=..][&orderId=..]`, every page.
    /// Answer: [`Answer::Fills`].
    Fills {
        /// `category` (every category when `None`).
        category: Option<Category>,
        /// `orderId` (every order when `None`).
        order_id: Option<u64>,
        /// `startTime`, UTC ms.
        since_ms: u64,
    },
    /// `GET /api/v3/trade/order-info?clientOid=..`: one order. Answer: [`Answer::Order`]
    /// (`None` for Bitget's "order does not exist",
    /// [`crate::tracker::report::ORDER_NOT_FOUND`]).
    OrderInfo {
        /// `clientOid`.
        client_oid: ClientOid,
    },
}

/// The outcome of a [`Query`], fed back with [`super::Resolver::on_answer`]. An answer of
/// another kind than the query expects counts as [`Answer::Failed`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// [`QueryKind::ServerTime`]: the exchange's UTC ms.
    ServerTime(u64),
    /// [`QueryKind::HistoryOrders`] or [`QueryKind::OpenOrders`]: every order listed.
    Orders(Vec<OpenOrder>),
    /// [`QueryKind::OrderInfo`]: the order, `None` when the exchange does not know it.
    Order(Option<OpenOrder>),
    /// [`QueryKind::Fills`]: every fill listed.
    Fills(Vec<ExchangeFill>),
    /// The call failed (network, refused, quota, malformed answer): the text for logs.
    Failed(String),
}
