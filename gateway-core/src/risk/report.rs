//! The risk rules' view of a new order (a refusal is answered by `crate::decision`).

use super::check::OrderView;
use crate::tracker::NewOrder;

/// The rules' view of a new order.
pub fn order_view(order: &NewOrder) -> OrderView {
    OrderView {
        side: order.side,
        ord_type: order.ord_type,
        price: order.price,
        qty: order.qty,
    }
}
