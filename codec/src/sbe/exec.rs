//! Gateway → strategy reports (templates 104–106), FIX names, SBE 1.0 blocks.
//!
//! Times are `u64` UTC ns since the Unix epoch; prices and quantities are exact `Decimal64`;
//! `ExchangeCode` is Bitget's numeric error code (0 = none).

use crate::decimal::Decimal;
use crate::sbe::types::{
    BusinessRejectReason, Category, CxlRejReason, CxlRejResponseTo, ExecType, OrdRejReason,
    OrdStatus, OrdType, Side, Symbol, Text, TimeInForce,
};

sbe_message! {
    /// ExecutionReport (template 104, FIX 35=8): a change of state of an order (ack, fill,
    /// cancel, modify, reject, pending states).
    pub struct ExecutionReport (template 104, decoder ExecutionReportDecoder, fields EXECUTION_REPORT_FIELDS) {
        /// ClOrdID (FIX 11): the request this report answers (or the order's last ClOrdID).
        cl_ord_id: u64 = "ClOrdID" @ 0,
        /// OrigClOrdID (FIX 41): the order's previous ClOrdID for cancel/modify; 0 = none.
        orig_cl_ord_id: u64 = "OrigClOrdID" @ 8,
        /// OrderID (FIX 37): Bitget `orderId`; 0 = not known (yet).
        order_id: u64 = "OrderID" @ 16,
        /// ExecID (FIX 17): Bitget `execId` of a fill; 0 = none.
        exec_id: u64 = "ExecID" @ 24,
        /// TransactTime (FIX 60): time of the event, UTC ns.
        transact_time: u64 = "TransactTime" @ 32,
        /// Price (FIX 44): the order's limit price; `None` for market orders.
        price: Option<Decimal> = "Price" @ 40,
        /// OrderQty (FIX 38): the order's total quantity.
        order_qty: Decimal = "OrderQty" @ 49,
        /// LastQty (FIX 32): quantity of this fill; `None` when not a fill.
        last_qty: Option<Decimal> = "LastQty" @ 58,
        /// LastPx (FIX 31): price of this fill; `None` when not a fill.
        last_px: Option<Decimal> = "LastPx" @ 67,
        /// CumQty (FIX 14): total filled quantity.
        cum_qty: Decimal = "CumQty" @ 76,
        /// LeavesQty (FIX 151): quantity still open (0 once the order is done).
        leaves_qty: Decimal = "LeavesQty" @ 85,
        /// AvgPx (FIX 6): average fill price; `None` before the first fill.
        avg_px: Option<Decimal> = "AvgPx" @ 94,
        /// Bitget numeric code of a rejection; 0 = none.
        exchange_code: u32 = "ExchangeCode" @ 103,
        /// Symbol (FIX 55) of the order.
        symbol: Symbol = "Symbol" @ 107,
        /// Product category of the order.
        category: Category = "Category" @ 123,
        /// Side (FIX 54) of the order.
        side: Side = "Side" @ 124,
        /// OrdType (FIX 40) of the order.
        ord_type: OrdType = "OrdType" @ 125,
        /// TimeInForce (FIX 59) of the order.
        time_in_force: TimeInForce = "TimeInForce" @ 126,
        /// ExecType (FIX 150): what happened.
        exec_type: ExecType = "ExecType" @ 127,
        /// OrdStatus (FIX 39): the order's status after the event.
        ord_status: OrdStatus = "OrdStatus" @ 128,
        /// OrdRejReason (FIX 103): why it was rejected; `None` (null 255) unless
        /// ExecType = Rejected.
        ord_rej_reason: Option<OrdRejReason> = "OrdRejReason" @ 129,
        /// Text (FIX 58): reason or exchange message, UTF-8, ≤ 64 bytes.
        text: Text = "Text" @ 130,
    }
}

sbe_message! {
    /// OrderCancelReject (template 105, FIX 35=9): a cancel or modify request was refused.
    pub struct OrderCancelReject (template 105, decoder OrderCancelRejectDecoder, fields ORDER_CANCEL_REJECT_FIELDS) {
        /// ClOrdID (FIX 11) of the refused request.
        cl_ord_id: u64 = "ClOrdID" @ 0,
        /// OrigClOrdID (FIX 41) of the request: the order it targeted.
        orig_cl_ord_id: u64 = "OrigClOrdID" @ 8,
        /// OrderID (FIX 37): Bitget `orderId`; 0 = unknown.
        order_id: u64 = "OrderID" @ 16,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 24,
        /// Bitget numeric error code; 0 = none.
        exchange_code: u32 = "ExchangeCode" @ 32,
        /// OrdStatus (FIX 39): the order's current status.
        ord_status: OrdStatus = "OrdStatus" @ 36,
        /// CxlRejResponseTo (FIX 434): which kind of request was refused.
        cxl_rej_response_to: CxlRejResponseTo = "CxlRejResponseTo" @ 37,
        /// CxlRejReason (FIX 102): why.
        cxl_rej_reason: CxlRejReason = "CxlRejReason" @ 38,
        /// Text (FIX 58): reason or exchange message, UTF-8, ≤ 64 bytes.
        text: Text = "Text" @ 39,
    }
}

sbe_message! {
    /// BusinessMessageReject (template 106, FIX 35=j): an application message was refused
    /// before reaching the order logic (unknown template, invalid field, throttled, ...).
    pub struct BusinessMessageReject (template 106, decoder BusinessMessageRejectDecoder, fields BUSINESS_MESSAGE_REJECT_FIELDS) {
        /// RefSeqNum (FIX 45): sequence number of the refused message.
        ref_seq_num: u64 = "RefSeqNum" @ 0,
        /// BusinessRejectRefID (FIX 379): the refused message's ClOrdID when known, else 0.
        business_reject_ref_id: u64 = "BusinessRejectRefID" @ 8,
        /// Bitget numeric error code; 0 = none.
        exchange_code: u32 = "ExchangeCode" @ 16,
        /// RefMsgType (FIX 372): template id of the refused message.
        ref_msg_type: u16 = "RefMsgType" @ 20,
        /// BusinessRejectReason (FIX 380): why.
        business_reject_reason: BusinessRejectReason = "BusinessRejectReason" @ 22,
        /// Text (FIX 58): reason, UTF-8, ≤ 64 bytes.
        text: Text = "Text" @ 23,
    }
}
