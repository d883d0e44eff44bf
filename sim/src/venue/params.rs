//! Parameters and results of the venue's calls that its parts share: a history / fills page
//! query, a `cancel-symbol-order` result, the account-relevant fields of a new order (below
//! `venue/mod.rs` and the files that add methods to `Venue`).

use codec::Decimal;

use crate::config::Category;
use crate::matching::{PosSide, Reject, Side};

/// Filters and page of a history / fills query (already validated by the transport).
#[derive(Debug, Clone, Copy)]
pub struct PageQuery<'a> {
    /// Category filter.
    pub category: Option<Category>,
    /// Symbol filter (`None` = all).
    pub symbol: Option<&'a str>,
    /// Order filter (fills only).
    pub order_id: Option<u64>,
    /// Window start, ms (inclusive; on `createdTime`).
    pub start_ms: u64,
    /// Window end, ms (inclusive).
    pub end_ms: u64,
    /// Page size, 1..=100.
    pub limit: usize,
    /// Only ids below this one (`orderId` for orders, `execId` for fills).
    pub cursor: Option<u64>,
}

impl PageQuery<'_> {
    /// Whether an item (`id`, `category`, `symbol`, time `t_ms`) passes the filters.
    pub(super) fn keeps(&self, id: u64, category: Category, symbol: &str, t_ms: u64) -> bool {
        self.cursor.is_none_or(|c| id < c)
            && self.category.is_none_or(|c| c == category)
            && self.symbol.is_none_or(|s| s.is_empty() || s == symbol)
            && (self.start_ms..=self.end_ms).contains(&t_ms)
    }
}

/// One result of `cancel-symbol-order`.
#[derive(Debug, Clone)]
pub struct CancelResult {
    /// Order id.
    pub order_id: u64,
    /// Client order id.
    pub client_oid: String,
    /// `None` = cancelled; otherwise why not.
    pub error: Option<Reject>,
}

/// The account-relevant fields of a new order.
#[derive(Debug, Clone, Copy)]
pub(super) struct EntryOrder {
    pub(super) side: Side,
    pub(super) qty: Decimal,
    pub(super) price: Option<Decimal>,
    pub(super) pos_side: Option<PosSide>,
    pub(super) reduce_only: bool,
}
