//! Strategy → gateway order messages (templates 101–103), FIX names, SBE 1.0 blocks.
//!
//! `ClOrdID` is a `u64` chosen by the strategy, unique per session; times are `u64` UTC ns since
//! the Unix epoch; prices and quantities are exact `Decimal64` (never floating point).

use crate::decimal::Decimal;
use crate::sbe::types::{BoolFlag, Category, OrdType, PosSide, Side, StpMode, Symbol, TimeInForce};

sbe_message! {
    /// NewOrderSingle (template 101, FIX 35=D): place one order.
    pub struct NewOrderSingle (template 101, decoder NewOrderSingleDecoder, fields NEW_ORDER_SINGLE_FIELDS) {
        /// ClOrdID (FIX 11): the strategy's id of this order, unique per session.
        cl_ord_id: u64 = "ClOrdID" @ 0,
        /// TransactTime (FIX 60): creation time, UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// Price (FIX 44): limit price; `None` (null) for market orders.
        price: Option<Decimal> = "Price" @ 16,
        /// OrderQty (FIX 38): quantity in base units (required).
        order_qty: Decimal = "OrderQty" @ 25,
        /// Symbol (FIX 55): the Bitget symbol, e.g. `BTCUSDT`.
        symbol: Symbol = "Symbol" @ 34,
        /// Product category of the symbol.
        category: Category = "Category" @ 50,
        /// Side (FIX 54).
        side: Side = "Side" @ 51,
        /// OrdType (FIX 40).
        ord_type: OrdType = "OrdType" @ 52,
        /// TimeInForce (FIX 59).
        time_in_force: TimeInForce = "TimeInForce" @ 53,
        /// Position side in hedge mode (`None` in one-way mode).
        pos_side: PosSide = "PosSide" @ 54,
        /// Reduce-only flag.
        reduce_only: BoolFlag = "ReduceOnly" @ 55,
        /// Self-trade prevention mode.
        stp_mode: StpMode = "StpMode" @ 56,
    }
}

sbe_message! {
    /// OrderCancelRequest (template 102, FIX 35=F): cancel one order.
    pub struct OrderCancelRequest (template 102, decoder OrderCancelRequestDecoder, fields ORDER_CANCEL_REQUEST_FIELDS) {
        /// ClOrdID (FIX 11): id of this cancel request.
        cl_ord_id: u64 = "ClOrdID" @ 0,
        /// OrigClOrdID (FIX 41): ClOrdID of the order to cancel.
        orig_cl_ord_id: u64 = "OrigClOrdID" @ 8,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 16,
        /// Symbol (FIX 55) of the order.
        symbol: Symbol = "Symbol" @ 24,
        /// Product category of the order.
        category: Category = "Category" @ 40,
        /// Side (FIX 54) of the order.
        side: Side = "Side" @ 41,
    }
}

sbe_message! {
    /// OrderCancelReplaceRequest (template 103, FIX 35=G): modify the price and/or quantity of
    /// one order (Bitget modify-order).
    pub struct OrderCancelReplaceRequest (template 103, decoder OrderCancelReplaceRequestDecoder, fields ORDER_CANCEL_REPLACE_REQUEST_FIELDS) {
        /// ClOrdID (FIX 11): id of this modify request.
        cl_ord_id: u64 = "ClOrdID" @ 0,
        /// OrigClOrdID (FIX 41): ClOrdID of the order to modify.
        orig_cl_ord_id: u64 = "OrigClOrdID" @ 8,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 16,
        /// Price (FIX 44): new price; `None` (null) keeps the current price.
        price: Option<Decimal> = "Price" @ 24,
        /// OrderQty (FIX 38): new total quantity. Required, as OrderQty is in FIX 35=G: the
        /// gateway answers a null with OrderCancelReject (Other, "OrderQty is required").
        order_qty: Option<Decimal> = "OrderQty" @ 33,
        /// Symbol (FIX 55) of the order.
        symbol: Symbol = "Symbol" @ 42,
        /// Product category of the order.
        category: Category = "Category" @ 58,
        /// Side (FIX 54) of the order.
        side: Side = "Side" @ 59,
        /// Cancel the order if the modification fails (Bitget `autoCancel`).
        auto_cancel: BoolFlag = "AutoCancel" @ 60,
    }
}
