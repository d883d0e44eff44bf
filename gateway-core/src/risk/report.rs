//! The ExecutionReport Rejected of a new order refused by a risk rule or the kill switch.

use super::check::{OrderView, RiskReject};
use crate::tracker::{NewOrder, ReportMsg};

/// The rule's refusal of `order` as ExecutionReport Rejected (nothing was sent).
pub fn rejected_report(order: &NewOrder, utc_ns: u64, r: &RiskReject) -> ReportMsg {
    ReportMsg::Exec(order.rejected(r.reason, &r.text, utc_ns))
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
