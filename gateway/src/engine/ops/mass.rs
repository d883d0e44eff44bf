//! OrderMassCancelRequest (by session, symbol, side or account) and OrderMassStatusRequest
//! (the tracker's view, optionally refreshed from `unfilled-orders`).

use codec::sbe::{Message, OrderMassCancelRequestDecoder, OrderMassStatusRequestDecoder};

use super::not_supported_yet;
use crate::engine::strategy_conn::Conn;

/// An OrderMassCancelRequest.
pub(in crate::engine) async fn on_mass_cancel(
    conn: &mut Conn,
    m: &OrderMassCancelRequestDecoder<'_>,
    _t_read: u64,
) {
    not_supported_yet(conn, &Message::OrderMassCancelRequest(*m));
}

/// An OrderMassStatusRequest.
pub(in crate::engine) async fn on_mass_status(
    conn: &mut Conn,
    m: &OrderMassStatusRequestDecoder<'_>,
    _t_read: u64,
) {
    not_supported_yet(conn, &Message::OrderMassStatusRequest(*m));
}
