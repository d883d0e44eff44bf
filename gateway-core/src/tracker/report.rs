//! What the tracker produces for the strategy sessions: the reports it queues ([`Report`],
//! [`ReportMsg`]) stamped with the input path that produced them, and the ExecutionReport built
//! from an order's state. Below every part of the tracker that reports.

use codec::sbe::{ExecType, ExecutionReport, OrderCancelReject, OrderMassCancelReport, Text};

use super::order::{is_final, Order};
use crate::journal::record::Origin;

/// Outcome-unknown codes (reference §8): the order may or may not exist; resolved by querying
/// the order, never by resending.
pub const OUTCOME_UNKNOWN_CODES: [u32; 3] = [40010, 40725, 45001];

/// Bitget's "Order does not exist" code (reference §8): the answer to `order-info` for an
/// unknown clientOid, and to a cancel or modify of an order that has already ended.
pub const ORDER_NOT_FOUND: u32 = 25204;

/// A message for one strategy session.
#[derive(Debug, Clone, Copy)]
pub enum ReportMsg {
    /// ExecutionReport.
    Exec(ExecutionReport),
    /// OrderCancelReject.
    CancelReject(OrderCancelReject),
    /// OrderMassCancelReport.
    MassCancel(OrderMassCancelReport),
}

/// A report and whom it is for.
#[derive(Debug, Clone, Copy)]
pub struct Report {
    /// Destination session.
    pub session_id: u64,
    /// Root ClOrdID of the order it is about (0: none, a mass cancel's report).
    pub root: u64,
    /// The message.
    pub msg: ReportMsg,
    /// Monotonic read time of the exchange frame that caused it (for the "push read →
    /// ExecutionReport written" leg).
    pub cause_t_read_ns: u64,
    /// The input path that produced it (journaled beside the message).
    pub origin: Origin,
}

/// The reports an input produces, stamped with the path of the input being applied.
#[derive(Debug)]
pub(super) struct Reports {
    /// The reports queued, oldest first.
    pub(super) list: Vec<Report>,
    /// Path of the input being applied (set by each entry point).
    pub(super) origin: Origin,
    /// Orders (SessionID, root ClOrdID) that ended during the input being applied: their final
    /// ExecutionReport was queued (see `retention`; taken at the end of the input).
    pub(super) ended: Vec<(u64, u64)>,
}

impl Default for Reports {
    fn default() -> Self {
        Reports {
            list: Vec::with_capacity(64),
            origin: Origin::Push,
            ended: Vec::with_capacity(64),
        }
    }
}

impl Reports {
    /// Queues `msg` about order `key` (SessionID, root ClOrdID) for its session, caused by a
    /// frame read at `t_read_ns` (0: none). Every report about an order goes through here: an
    /// ExecutionReport with a final OrdStatus is the order's end (exactly one per order, nothing
    /// is reported after it), noted for retention.
    pub(super) fn push(&mut self, key: (u64, u64), msg: ReportMsg, t_read_ns: u64) {
        if let ReportMsg::Exec(er) = &msg {
            if is_final(er.ord_status) {
                self.note_ended(key);
            }
        }
        self.list.push(Report {
            session_id: key.0,
            root: key.1,
            msg,
            cause_t_read_ns: t_read_ns,
            origin: self.origin,
        });
    }

    /// Order `key` has ended (its final report queued now, or before a restart).
    pub(super) fn note_ended(&mut self, key: (u64, u64)) {
        self.ended.push(key);
    }
}

/// An ExecutionReport with the order's current ids, prices and quantities.
pub(super) fn exec_report(o: &Order, exec_type: ExecType, utc_ns: u64) -> ExecutionReport {
    ExecutionReport {
        cl_ord_id: o.cl_ord_id,
        orig_cl_ord_id: 0,
        order_id: o.order_id,
        exec_id: 0,
        transact_time: utc_ns,
        price: o.price,
        order_qty: o.qty,
        last_qty: None,
        last_px: None,
        cum_qty: o.cum_qty,
        leaves_qty: o.leaves_qty(),
        avg_px: o.avg_px(),
        exchange_code: 0,
        symbol: o.symbol,
        category: o.category,
        side: o.side,
        ord_type: o.ord_type,
        time_in_force: o.time_in_force,
        exec_type,
        ord_status: o.status,
        ord_rej_reason: None,
        text: Text::new(""),
    }
}
