//! What the order path tells the tracker about each trade op it wrote to the exchange.

use codec::sbe::{
    Category, ExecType, ExecutionReport, OrdRejReason, OrdStatus, OrdType, Side, Symbol, Text,
    TimeInForce,
};
use codec::Decimal;

/// One trade op the io thread wrote to the exchange (sent to the tracker right after the write,
/// so the tracker always learns of a request before its reply can be read).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct SentRequest {
    /// The trade op's `id` (gateway-wide counter; see [`crate::ids`]).
    pub req_id: u64,
    /// The strategy session that sent it.
    pub session_id: u64,
    /// The root ClOrdID of the order it concerns (its clientOid's second part).
    pub root: u64,
    /// What was asked.
    pub kind: RequestKind,
    /// When the strategy frame was read (monotonic ns, see `gateway::metrics::now_ns`).
    pub t_read_ns: u64,
    /// When the exchange frame was written (monotonic ns).
    pub t_written_ns: u64,
}

/// The three single-order trade ops.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub enum RequestKind {
    /// `place-order` from a NewOrderSingle.
    New(NewOrder),
    /// `modify-order` from an OrderCancelReplaceRequest.
    Replace {
        /// The replace request's ClOrdID (the order's ClOrdID once replaced).
        cl_ord_id: u64,
        /// New price (`None` keeps the price).
        price: Option<Decimal>,
        /// New quantity.
        qty: Decimal,
    },
    /// `cancel-order` from an OrderCancelRequest.
    Cancel {
        /// The cancel request's ClOrdID.
        cl_ord_id: u64,
    },
}

/// The order as the strategy asked for it (NewOrderSingle fields).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct NewOrder {
    /// ClOrdID (also the root).
    pub cl_ord_id: u64,
    /// Product line.
    pub category: Category,
    /// Symbol.
    pub symbol: Symbol,
    /// Side.
    pub side: Side,
    /// Limit or market.
    pub ord_type: OrdType,
    /// Time in force.
    pub time_in_force: TimeInForce,
    /// Limit price (`None` for market orders).
    pub price: Option<Decimal>,
    /// Order quantity (base coin).
    pub qty: Decimal,
}

/// One item of an exchange batch, in request order.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct BatchItem {
    /// Root ClOrdID of the order it concerns.
    pub root: u64,
    /// What was asked.
    pub kind: RequestKind,
}

/// One exchange batch (`batch-place`, `batch-modify`, `batch-cancel`) of a strategy list,
/// written to the exchange (sent to the tracker right after the write).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SentBatch {
    /// The trade op's `id`.
    pub req_id: u64,
    /// The strategy session.
    pub session_id: u64,
    /// The strategy's ListID.
    pub list_id: u64,
    /// The items in request order.
    pub items: Vec<BatchItem>,
    /// When the exchange frame was written (monotonic ns).
    pub t_written_ns: u64,
}

/// The io thread is done with a strategy list: every exchange batch of it was written (or
/// refused) and these items were refused before sending.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ListDone {
    /// The strategy session.
    pub session_id: u64,
    /// The strategy's ListID.
    pub list_id: u64,
    /// Template id of the list (107, 108 or 109).
    pub ref_msg_type: u16,
    /// How many exchange batches were written ([`SentBatch`] sent for each).
    pub batches_sent: u32,
    /// ListStatus entries of the items refused before sending.
    pub refused: Vec<codec::sbe::ListStatusEntry>,
}

impl NewOrder {
    /// ExecutionReport Rejected of this order, refused before anything was sent (`reason`
    /// and `text` say why; `utc_ns` is TransactTime).
    pub fn rejected(&self, reason: OrdRejReason, text: &str, utc_ns: u64) -> ExecutionReport {
        ExecutionReport {
            cl_ord_id: self.cl_ord_id,
            orig_cl_ord_id: 0,
            order_id: 0,
            exec_id: 0,
            transact_time: utc_ns,
            price: self.price,
            order_qty: self.qty,
            last_qty: None,
            last_px: None,
            cum_qty: Decimal::ZERO,
            leaves_qty: Decimal::ZERO,
            avg_px: None,
            exchange_code: 0,
            symbol: self.symbol,
            category: self.category,
            side: self.side,
            ord_type: self.ord_type,
            time_in_force: self.time_in_force,
            exec_type: ExecType::Rejected,
            ord_status: OrdStatus::Rejected,
            ord_rej_reason: Some(reason),
            text: Text::new(text),
        }
    }
}

/// The order details of a NewOrderSingle known only by its ClOrdID (filled in when the exchange
/// shows the order).
pub(super) fn blank_order(cl_ord_id: u64) -> NewOrder {
    NewOrder {
        cl_ord_id,
        category: Category::UsdtFutures,
        symbol: Symbol::EMPTY,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        price: None,
        qty: Decimal::ZERO,
    }
}

/// True for an order registered by [`blank_order`] whose details the exchange has not given yet.
pub(super) fn is_blank(symbol: &Symbol, qty: Decimal) -> bool {
    symbol.as_str().is_empty() && qty.is_zero()
}
