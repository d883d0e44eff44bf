//! NewOrderList, OrderCancelReplaceList and OrderCancelList: split into exchange batches of at
//! most 20 (`batch-place`, `batch-modify`, `batch-cancel`), every item answered in ListStatus.

use codec::sbe::{
    Message, NewOrderListDecoder, OrderCancelListDecoder, OrderCancelReplaceListDecoder,
};

use super::not_supported_yet;
use crate::engine::strategy_conn::Conn;

/// A NewOrderList.
pub(in crate::engine) async fn on_new_order_list(
    conn: &mut Conn,
    m: &NewOrderListDecoder<'_>,
    _t_read: u64,
) {
    not_supported_yet(conn, &Message::NewOrderList(*m));
}

/// An OrderCancelReplaceList.
pub(in crate::engine) async fn on_order_cancel_replace_list(
    conn: &mut Conn,
    m: &OrderCancelReplaceListDecoder<'_>,
    _t_read: u64,
) {
    not_supported_yet(conn, &Message::OrderCancelReplaceList(*m));
}

/// An OrderCancelList.
pub(in crate::engine) async fn on_order_cancel_list(
    conn: &mut Conn,
    m: &OrderCancelListDecoder<'_>,
    _t_read: u64,
) {
    not_supported_yet(conn, &Message::OrderCancelList(*m));
}
