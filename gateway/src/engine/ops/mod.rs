//! The io thread's handlers for the requests beyond single orders, one module per message
//! family: batches, mass actions, position moves, account requests, operator controls.
//!
//! Each handler gets the strategy connection ([`Conn`]: its account, role, writer and the
//! shared io context) and answers the strategy itself, either at once or from a task spawned on
//! the io thread's `LocalSet` when it waits for the exchange (so the session keeps reading).

pub(super) mod account_requests;
pub(super) mod batch;
pub(super) mod control;
pub(super) mod mass;
pub(super) mod moves;

use codec::sbe::Message;

#[allow(unused_imports)]
use super::conn::Conn;
use super::settings::SessionRole;

/// Why a session of `role` may not send `msg` (`None`: it may).
pub(super) fn refused_for_role(role: SessionRole, msg: &Message<'_>) -> Option<&'static str> {
    match role {
        SessionRole::DropCopy => Some("drop-copy session: read-only"),
        SessionRole::Operator => None,
        SessionRole::Trading => match msg {
            Message::SetLeverage(_)
            | Message::SetHoldMode(_)
            | Message::MovePositions(_)
            | Message::KillSwitchRequest(_) => Some("operator request: session role is trading"),
            _ => None,
        },
    }
}
