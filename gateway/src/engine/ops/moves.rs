//! MovePositions: the move-positions rules checked before sending, then
//! `POST /api/v3/account/move-positions`, answered by MovePositionsReport.

use codec::sbe::{Message, MovePositionsDecoder};

use super::not_supported_yet;
use crate::engine::strategy_conn::Conn;

/// A MovePositions request (operator sessions only).
pub(in crate::engine) async fn on_move_positions(conn: &mut Conn, m: &MovePositionsDecoder<'_>) {
    not_supported_yet(conn, &Message::MovePositions(*m));
}
