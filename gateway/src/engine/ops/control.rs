//! Operator controls: KillSwitchRequest (cancel everything in scope, refuse new orders until
//! released) and RateBudgetRequest (the account's token buckets as RateBudgetReport).

use codec::sbe::{KillSwitchRequestDecoder, Message, RateBudgetRequestDecoder};

use super::not_supported_yet;
use crate::engine::strategy_conn::Conn;

/// A KillSwitchRequest (operator sessions only).
pub(in crate::engine) async fn on_kill_switch(conn: &mut Conn, m: &KillSwitchRequestDecoder<'_>) {
    not_supported_yet(conn, &Message::KillSwitchRequest(*m));
}

/// A RateBudgetRequest.
pub(in crate::engine) async fn on_rate_budget(conn: &mut Conn, m: &RateBudgetRequestDecoder<'_>) {
    if let Some(acc) = conn.account_ctx() {
        acc.write_budget_report(&conn.out, m.request_id());
    }
}
