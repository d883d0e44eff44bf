//! Mass actions (templates 111–114): OrderMassCancelRequest / OrderMassCancelReport and
//! OrderMassStatusRequest, answered by one ExecutionReport (ExecType OrderStatus `I`) per order
//! then one OrderMassStatusEnd (the final marker; ExecutionReport keeps its layout).

use crate::sbe::types::{
    BoolFlag, Category, ItemStatus, MassCancelRejectReason, MassCancelRequestType,
    MassCancelResponse, MassStatusReqType, Side, Symbol, Text,
};

sbe_message! {
    /// OrderMassCancelRequest (template 111, FIX 35=q): cancel the orders of a session, a symbol, a side or the whole account.
    pub struct OrderMassCancelRequest (template 111, decoder OrderMassCancelRequestDecoder, fields ORDER_MASS_CANCEL_REQUEST_FIELDS) {
        /// ClOrdID (FIX 11): id of this request.
        cl_ord_id: u64 = "ClOrdID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// Symbol (FIX 55): for type Symbol (and optionally Side); empty otherwise.
        symbol: Symbol = "Symbol" @ 16,
        /// MassCancelRequestType (FIX 530): the scope.
        mass_cancel_request_type: MassCancelRequestType = "MassCancelRequestType" @ 32,
        /// Product category filter; `None` = every category.
        category: Option<Category> = "Category" @ 33,
        /// Side (FIX 54) for type Side; `None` otherwise.
        side: Option<Side> = "Side" @ 34,
    }
}

sbe_message! {
    /// OrderMassCancelReport (template 112, FIX 35=r): the answer to an OrderMassCancelRequest (each canceled order also gets its ExecutionReport).
    pub struct OrderMassCancelReport (template 112, decoder OrderMassCancelReportDecoder, fields ORDER_MASS_CANCEL_REPORT_FIELDS) {
        /// ClOrdID (FIX 11) of the request.
        cl_ord_id: u64 = "ClOrdID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// TotalAffectedOrders (FIX 533): orders canceled.
        total_affected_orders: u32 = "TotalAffectedOrders" @ 16,
        /// Bitget numeric code; 0 = none.
        exchange_code: u32 = "ExchangeCode" @ 20,
        /// MassCancelRequestType (FIX 530) of the request.
        mass_cancel_request_type: MassCancelRequestType = "MassCancelRequestType" @ 24,
        /// MassCancelResponse (FIX 531): scope applied, or Rejected.
        mass_cancel_response: MassCancelResponse = "MassCancelResponse" @ 25,
        /// MassCancelRejectReason (FIX 532); `None` unless rejected.
        mass_cancel_reject_reason: Option<MassCancelRejectReason> = "MassCancelRejectReason" @ 26,
        /// Text (FIX 58): reason or exchange message.
        text: Text = "Text" @ 27,
    }
}

sbe_message! {
    /// OrderMassStatusRequest (template 113, FIX 35=AF): the status of the orders of a session, a symbol or the account; answered by one ExecutionReport (ExecType OrderStatus) per order, then OrderMassStatusEnd.
    pub struct OrderMassStatusRequest (template 113, decoder OrderMassStatusRequestDecoder, fields ORDER_MASS_STATUS_REQUEST_FIELDS) {
        /// MassStatusReqID (FIX 584): id of this request.
        mass_status_req_id: u64 = "MassStatusReqID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// Symbol (FIX 55) for type Symbol; empty otherwise.
        symbol: Symbol = "Symbol" @ 16,
        /// MassStatusReqType (FIX 585): the scope.
        mass_status_req_type: MassStatusReqType = "MassStatusReqType" @ 32,
        /// Product category filter; `None` = every category.
        category: Option<Category> = "Category" @ 33,
        /// Yes: refresh the tracker from `unfilled-orders` first.
        refresh_from_exchange: BoolFlag = "RefreshFromExchange" @ 34,
    }
}

sbe_message! {
    /// OrderMassStatusEnd (template 114): the end of the ExecutionReports answering an OrderMassStatusRequest (or its rejection).
    pub struct OrderMassStatusEnd (template 114, decoder OrderMassStatusEndDecoder, fields ORDER_MASS_STATUS_END_FIELDS) {
        /// MassStatusReqID (FIX 584) of the request.
        mass_status_req_id: u64 = "MassStatusReqID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// TotNumReports (FIX 911): ExecutionReports sent for the request.
        tot_num_reports: u32 = "TotNumReports" @ 16,
        /// Bitget numeric code of a failed refresh; 0 = none.
        exchange_code: u32 = "ExchangeCode" @ 20,
        /// Accepted (reports complete) or Rejected (see Text).
        request_status: ItemStatus = "RequestStatus" @ 24,
        /// Text (FIX 58): reason.
        text: Text = "Text" @ 25,
    }
}
