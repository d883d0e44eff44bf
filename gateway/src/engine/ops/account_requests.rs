//! SetLeverage, SetHoldMode, MaxOpenAvailableRequest and AccountSettingsRequest: one signed
//! REST call each, answered by AccountRequestReport.

use codec::sbe::{
    AccountSettingsRequestDecoder, MaxOpenAvailableRequestDecoder, Message, SetHoldModeDecoder,
    SetLeverageDecoder,
};

use super::not_supported_yet;
use crate::engine::strategy_conn::Conn;

/// A SetLeverage request (operator sessions only).
pub(in crate::engine) async fn on_set_leverage(conn: &mut Conn, m: &SetLeverageDecoder<'_>) {
    not_supported_yet(conn, &Message::SetLeverage(*m));
}

/// A SetHoldMode request (operator sessions only).
pub(in crate::engine) async fn on_set_hold_mode(conn: &mut Conn, m: &SetHoldModeDecoder<'_>) {
    not_supported_yet(conn, &Message::SetHoldMode(*m));
}

/// A MaxOpenAvailableRequest.
pub(in crate::engine) async fn on_max_open_available(
    conn: &mut Conn,
    m: &MaxOpenAvailableRequestDecoder<'_>,
) {
    not_supported_yet(conn, &Message::MaxOpenAvailableRequest(*m));
}

/// An AccountSettingsRequest.
pub(in crate::engine) async fn on_account_settings(
    conn: &mut Conn,
    m: &AccountSettingsRequestDecoder<'_>,
) {
    not_supported_yet(conn, &Message::AccountSettingsRequest(*m));
}
