//! The ExecutionReport Rejected of a new order refused by a risk rule or the kill switch.

use codec::sbe::{ExecType, ExecutionReport, OrdStatus, Text};
use codec::Decimal;

use super::check::{OrderView, RiskReject};
use crate::tracker::{NewOrder, ReportMsg};

/// The rule's refusal of `order` as ExecutionReport Rejected (nothing was sent).
pub fn rejected_report(order: &NewOrder, utc_ns: u64, r: &RiskReject) -> ReportMsg {
    ReportMsg::Exec(ExecutionReport {
        cl_ord_id: order.cl_ord_id,
        orig_cl_ord_id: 0,
        order_id: 0,
        exec_id: 0,
        transact_time: utc_ns,
        price: order.price,
        order_qty: order.qty,
        last_qty: None,
        last_px: None,
        cum_qty: Decimal::ZERO,
        leaves_qty: Decimal::ZERO,
        avg_px: None,
        exchange_code: 0,
        symbol: order.symbol,
        category: order.category,
        side: order.side,
        ord_type: order.ord_type,
        time_in_force: order.time_in_force,
        exec_type: ExecType::Rejected,
        ord_status: OrdStatus::Rejected,
        ord_rej_reason: Some(r.reason),
        text: Text::new(&r.text),
    })
}

/// The rules' view of a new order.
pub fn order_view(order: &NewOrder) -> OrderView {
    OrderView {
        side: order.side,
        ord_type: order.ord_type,
        price: order.price,
        qty: order.qty,
    }
}
