//! Operator controls (templates 125–127): KillSwitchRequest / KillSwitchReport and
//! RateBudgetRequest (answered by [`crate::sbe::RateBudgetReport`]).

use crate::sbe::types::{BoolFlag, ItemStatus, KillSwitchAction, KillSwitchScope, Text};

sbe_message! {
    /// KillSwitchRequest (template 125): operator command: cancel every open order in scope and refuse new orders (Activate), or accept them again (Release).
    pub struct KillSwitchRequest (template 125, decoder KillSwitchRequestDecoder, fields KILL_SWITCH_REQUEST_FIELDS) {
        /// The strategy's id of this request, unique per session.
        request_id: u64 = "RequestID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// The session's account, or every account.
        kill_switch_scope: KillSwitchScope = "KillSwitchScope" @ 16,
        /// Activate or Release.
        kill_switch_action: KillSwitchAction = "KillSwitchAction" @ 17,
    }
}

sbe_message! {
    /// KillSwitchReport (template 126): the answer to a KillSwitchRequest (each canceled order also gets its ExecutionReport).
    pub struct KillSwitchReport (template 126, decoder KillSwitchReportDecoder, fields KILL_SWITCH_REPORT_FIELDS) {
        /// The strategy's id of this request, unique per session.
        request_id: u64 = "RequestID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// TotalAffectedOrders (FIX 533): orders canceled.
        total_affected_orders: u32 = "TotalAffectedOrders" @ 16,
        /// Yes while the kill switch is on.
        active: BoolFlag = "Active" @ 20,
        /// Accepted or Rejected.
        request_status: ItemStatus = "RequestStatus" @ 21,
        /// The scope of the request.
        kill_switch_scope: KillSwitchScope = "KillSwitchScope" @ 22,
        /// The action of the request.
        kill_switch_action: KillSwitchAction = "KillSwitchAction" @ 23,
        /// Bitget numeric code of a failed cancel; 0 = none.
        exchange_code: u32 = "ExchangeCode" @ 24,
        /// Text (FIX 58): reason.
        text: Text = "Text" @ 28,
    }
}

sbe_message! {
    /// RateBudgetRequest (template 127): ask for the current rate budget of the session's account; answered by RateBudgetReport.
    pub struct RateBudgetRequest (template 127, decoder RateBudgetRequestDecoder, fields RATE_BUDGET_REQUEST_FIELDS) {
        /// The strategy's id of this request, unique per session.
        request_id: u64 = "RequestID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
    }
}
