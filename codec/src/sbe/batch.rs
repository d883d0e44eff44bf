//! Batches (templates 107–110): NewOrderList, OrderCancelReplaceList, OrderCancelList and
//! their per-item ListStatus, each with one SBE repeating group ([`crate::sbe::group`]).
//!
//! Entries per frame of the default 4096-byte maximum: NewOrderList 82, OrderCancelReplaceList
//! 76, OrderCancelList 119, ListStatus 47 (see each message's `MAX_ENTRIES_PER_FRAME`). A
//! longer batch is sent as several messages; the gateway splits them into exchange batches of at
//! most 20 and answers every item in ListStatus messages (LastFragment = Yes on the last one).

use crate::decimal::Decimal;
use crate::sbe::types::{
    BoolFlag, Category, ItemStatus, OrdRejReason, OrdType, PosSide, Side, StpMode, Symbol, Text,
    TimeInForce,
};

sbe_group_entry! {
    /// One order of a NewOrderList (the fields of a NewOrderSingle but TransactTime). Entry block length 49.
    pub struct NewOrderListEntry (decoder NewOrderListEntryDecoder, fields NEW_ORDER_LIST_ENTRY_FIELDS) {
        /// ClOrdID (FIX 11): the strategy's id of this order, unique per session.
        cl_ord_id: u64 = "ClOrdID" @ 0,
        /// Price (FIX 44): limit price; `None` (null) for market orders.
        price: Option<Decimal> = "Price" @ 8,
        /// OrderQty (FIX 38): quantity in base units.
        order_qty: Decimal = "OrderQty" @ 17,
        /// Symbol (FIX 55).
        symbol: Symbol = "Symbol" @ 26,
        /// Product category of the symbol.
        category: Category = "Category" @ 42,
        /// Side (FIX 54).
        side: Side = "Side" @ 43,
        /// OrdType (FIX 40).
        ord_type: OrdType = "OrdType" @ 44,
        /// TimeInForce (FIX 59).
        time_in_force: TimeInForce = "TimeInForce" @ 45,
        /// Position side in hedge mode (`None` in one-way mode).
        pos_side: PosSide = "PosSide" @ 46,
        /// Reduce-only flag.
        reduce_only: BoolFlag = "ReduceOnly" @ 47,
        /// Self-trade prevention mode.
        stp_mode: StpMode = "StpMode" @ 48,
    }
}

sbe_group_entry! {
    /// One modification of an OrderCancelReplaceList. Entry block length 53.
    pub struct OrderCancelReplaceListEntry (decoder OrderCancelReplaceListEntryDecoder, fields ORDER_CANCEL_REPLACE_LIST_ENTRY_FIELDS) {
        /// ClOrdID (FIX 11): id of this modification (the order's new ClOrdID).
        cl_ord_id: u64 = "ClOrdID" @ 0,
        /// OrigClOrdID (FIX 41): ClOrdID of the order to modify.
        orig_cl_ord_id: u64 = "OrigClOrdID" @ 8,
        /// Price (FIX 44): new price; `None` keeps the current one.
        price: Option<Decimal> = "Price" @ 16,
        /// OrderQty (FIX 38): new total quantity; required (FIX 35=G): a null refuses the item
        /// with OrderCancelReject (Other, "OrderQty is required").
        order_qty: Option<Decimal> = "OrderQty" @ 25,
        /// Symbol (FIX 55) of the order.
        symbol: Symbol = "Symbol" @ 34,
        /// Product category of the order.
        category: Category = "Category" @ 50,
        /// Side (FIX 54) of the order.
        side: Side = "Side" @ 51,
        /// Cancel the order if the modification fails.
        auto_cancel: BoolFlag = "AutoCancel" @ 52,
    }
}

sbe_group_entry! {
    /// One cancel of an OrderCancelList. Entry block length 34.
    pub struct OrderCancelListEntry (decoder OrderCancelListEntryDecoder, fields ORDER_CANCEL_LIST_ENTRY_FIELDS) {
        /// ClOrdID (FIX 11): id of this cancel.
        cl_ord_id: u64 = "ClOrdID" @ 0,
        /// OrigClOrdID (FIX 41): ClOrdID of the order to cancel.
        orig_cl_ord_id: u64 = "OrigClOrdID" @ 8,
        /// Symbol (FIX 55) of the order.
        symbol: Symbol = "Symbol" @ 16,
        /// Product category of the order.
        category: Category = "Category" @ 32,
        /// Side (FIX 54) of the order.
        side: Side = "Side" @ 33,
    }
}

sbe_group_entry! {
    /// The result of one item of a batch. Entry block length 86.
    pub struct ListStatusEntry (decoder ListStatusEntryDecoder, fields LIST_STATUS_ENTRY_FIELDS) {
        /// ClOrdID (FIX 11) of the item.
        cl_ord_id: u64 = "ClOrdID" @ 0,
        /// OrderID (FIX 37): Bitget `orderId`; 0 = none.
        order_id: u64 = "OrderID" @ 8,
        /// Bitget numeric code; 0 = none.
        exchange_code: u32 = "ExchangeCode" @ 16,
        /// Accepted or rejected.
        item_status: ItemStatus = "ItemStatus" @ 20,
        /// OrdRejReason (FIX 103): why; `None` unless rejected.
        ord_rej_reason: Option<OrdRejReason> = "OrdRejReason" @ 21,
        /// Text (FIX 58): reason or exchange message.
        text: Text = "Text" @ 22,
    }
}

sbe_group_message! {
    /// NewOrderList (template 107, FIX 35=E): place a batch of orders of any length (the gateway splits it into exchange batches of at most 20). Answered by ListStatus (per item) and ExecutionReports.
    pub struct NewOrderList (template 107, decoder NewOrderListDecoder, fields NEW_ORDER_LIST_FIELDS) {
        /// ListID (FIX 66): the strategy's id of the batch, unique per session.
        list_id: u64 = "ListID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
    }
    /// The orders (FIX 73 NoOrders).
    group orders: NewOrderListEntry = "Orders" id 73 max u16::MAX;
}

sbe_group_message! {
    /// OrderCancelReplaceList (template 108): modify a batch of orders (Bitget batch-modify-order). Answered by ListStatus and ExecutionReports.
    pub struct OrderCancelReplaceList (template 108, decoder OrderCancelReplaceListDecoder, fields ORDER_CANCEL_REPLACE_LIST_FIELDS) {
        /// ListID (FIX 66): the strategy's id of the batch, unique per session.
        list_id: u64 = "ListID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
    }
    /// The modifications (FIX 73 NoOrders).
    group orders: OrderCancelReplaceListEntry = "Orders" id 73 max u16::MAX;
}

sbe_group_message! {
    /// OrderCancelList (template 109): cancel a batch of orders (Bitget cancel-batch). Answered by ListStatus and ExecutionReports.
    pub struct OrderCancelList (template 109, decoder OrderCancelListDecoder, fields ORDER_CANCEL_LIST_FIELDS) {
        /// ListID (FIX 66): the strategy's id of the batch, unique per session.
        list_id: u64 = "ListID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
    }
    /// The cancels (FIX 73 NoOrders).
    group orders: OrderCancelListEntry = "Orders" id 73 max u16::MAX;
}

sbe_group_message! {
    /// ListStatus (template 110, FIX 35=N): per-item results of a batch; a batch longer than one frame holds is answered by several ListStatus, the last with LastFragment = Yes.
    pub struct ListStatus (template 110, decoder ListStatusDecoder, fields LIST_STATUS_FIELDS) {
        /// ListID (FIX 66): the strategy's id of the batch, unique per session.
        list_id: u64 = "ListID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// RefMsgType (FIX 372): template id of the batch answered.
        ref_msg_type: u16 = "RefMsgType" @ 16,
        /// LastFragment (FIX 893): Yes on the last ListStatus of the batch.
        last_fragment: BoolFlag = "LastFragment" @ 18,
    }
    /// The per-item results (FIX 73 NoOrders).
    group orders: ListStatusEntry = "Orders" id 73 max u16::MAX;
}
