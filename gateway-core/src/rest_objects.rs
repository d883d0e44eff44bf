//! The exchange's REST objects as the core reads them: an order (`unfilled-orders`,
//! `history-orders`, `order-info`) and a fill (`fills`), reference §7. The shell's REST client
//! (`gateway::exchange`) parses the JSON into these; reconciliation, unknown-outcome resolution
//! and mass status hand them to the tracker.

use codec::sbe::{Category, OrdStatus, OrdType, Side, Symbol, TimeInForce};
use codec::Decimal;

/// Objects per page the gateway asks for in a cursor-paged list (`unfilled-orders`,
/// `history-orders`, `fills`: `limit`, the maximum; reference §7).
pub const PAGE_LIMIT: usize = 100;

/// Pages read at most of one list (10 000 objects, newest first): a list this long may have
/// been cut.
pub const MAX_PAGES: usize = 100;

/// How far back the gateway's history and fills queries look at most, ms: the oldest
/// `startTime` the history queries accept is 90 days back and a span is at most 30 days
/// (reference §7).
pub const MAX_LOOKBACK_MS: u64 = 29 * 24 * 3600 * 1000;

/// One open order as the exchange lists it (REST order object, reference §7).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OpenOrder {
    /// `orderId`.
    pub order_id: u64,
    /// `clientOid` (`""` when absent).
    pub client_oid: String,
    /// `category`.
    pub category: Category,
    /// `symbol`.
    pub symbol: Symbol,
    /// `side`.
    pub side: Side,
    /// `orderType`.
    pub ord_type: OrdType,
    /// `timeInForce` (GTC when absent or not modelled).
    pub time_in_force: TimeInForce,
    /// `price` (`None` for market orders or `0`).
    pub price: Option<Decimal>,
    /// `qty`.
    pub qty: Decimal,
    /// `cumExecQty`.
    pub cum_qty: Decimal,
    /// `avgPrice` (`None` when 0).
    pub avg_px: Option<Decimal>,
    /// `orderStatus` as a FIX status.
    pub status: OrdStatus,
    /// `cumExecValue` (quote coin; zero when absent).
    pub cum_value: Decimal,
    /// `cancelReason` (`""` when absent; history and order-info only).
    pub cancel_reason: String,
    /// `updatedTime`, ms (0 when absent).
    pub updated_time_ms: u64,
}

/// One fill as `GET /api/v3/trade/fills` lists it (reference §7, fill object).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExchangeFill {
    /// `execId` (the fill id; 0 when not numeric).
    pub exec_id: u64,
    /// `orderId`.
    pub order_id: u64,
    /// `clientOid` (`""` when absent).
    pub client_oid: String,
    /// `category`.
    pub category: Category,
    /// `symbol`.
    pub symbol: Symbol,
    /// `side`.
    pub side: Side,
    /// `execPrice`.
    pub exec_price: Decimal,
    /// `execQty` (base coin).
    pub exec_qty: Decimal,
    /// `execValue` (quote coin; zero when absent).
    pub exec_value: Decimal,
    /// `createdTime` (the fill's time), ms.
    pub exec_time_ms: u64,
}
