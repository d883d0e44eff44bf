//! One strategy connection's state on the io thread, below the connection task that reads its
//! frames ([`super::strategy_conn`]) and the request handlers that answer them
//! ([`super::ops`]); it imports neither.

use std::rc::Rc;
use std::sync::Arc;

use super::ctx::IoCtx;
use crate::session::fixp::FixpSession;
use crate::session::order_entry::OrderEntry;
use crate::session::out::SessionOut;
use crate::types::{BudgetPolicy, SessionRole};

/// One strategy connection's state on the io thread (the request handlers in
/// [`super::ops`] work on it).
pub(in crate::engine) struct Conn {
    pub(in crate::engine) ctx: Rc<IoCtx>,
    pub(in crate::engine) out: Arc<SessionOut>,
    pub(in crate::engine) fixp: FixpSession,
    pub(in crate::engine) entry: Option<OrderEntry>,
    /// Index of the account the session is bound to (set at Negotiate).
    pub(in crate::engine) account: usize,
    /// What the session may do (set at Negotiate).
    pub(in crate::engine) role: SessionRole,
    /// What to do when the rate budget has no token (set at Negotiate).
    pub(in crate::engine) budget: BudgetPolicy,
    pub(in crate::engine) registered: bool,
    /// The connection's socket (shared with its reader), attached to the session's writer at
    /// Establish.
    pub(in crate::engine) raw: Option<crate::session::out::SharedSocket>,
    /// `out` is the session's writer (established) rather than this connection's own.
    pub(in crate::engine) bound: bool,
    /// When the session was established on this connection, UTC ms (0 before).
    pub(in crate::engine) established_ms: u64,
    /// The strategy sent Terminate (an orderly end: no cancel on disconnect).
    pub(in crate::engine) strategy_terminated: bool,
    /// The gateway ended the session's epoch on this connection (a scheduled rollover's
    /// Terminate): the connection ends gracefully (`gateway_core::session::epoch_end`).
    pub(in crate::engine) epoch_ended: bool,
    pub(in crate::engine) logged_reject: bool,
    /// Reused buffer for the trade op being written.
    pub(in crate::engine) json: Vec<u8>,
}
