//! The tracker's sans-I/O core: order state from requests, trade replies, `order` and `fill`
//! pushes, and the ExecutionReports / OrderCancelRejects that follow.
//!
//! Rules (Bitget UTA v3 reference §4.2, §4.3, §5; FIX 5.0 SP2 ExecutionReport semantics):
//! - every accepted order gets exactly one ExecutionReport New first, on the ACK or on its first
//!   push, whichever comes first ("push before reply" is normal);
//! - fills come from the `fill` topic, counted once per `execId`; each gives PartialFill or Fill
//!   with LastQty/LastPx, CumQty, LeavesQty and AvgPx computed exactly from the fills;
//! - a `cancelled` push gives Canceled (text = `cancelReason`), but only once the fills the
//!   exchange counted (`cumExecQty`) have all arrived ("fill during cancel");
//! - a modify is Replaced when the order channel shows the new price and quantity; a refused
//!   modify or cancel gives OrderCancelReject with the exchange's code and text;
//! - a refused place-order gives ExecutionReport Rejected with the exchange's code and text.
//!
//! Inputs carry their times (`t_read_ns`: monotonic read time of the frame; `utc_ns`: wall
//! clock for TransactTime); the core reads no clock.

mod pushes;

use std::collections::HashMap;

use codec::json::{FillPush, Inbound, OrderPush, OrderStatus as BgStatus, TradeItem};
use codec::sbe::{
    CxlRejReason, CxlRejResponseTo, ExecType, ExecutionReport, OrdRejReason, OrdStatus,
    OrderCancelReject, Text,
};
use codec::Decimal;
use smallvec::SmallVec;

use super::list_state::Lists;
use super::mass::{self, MassCancelEvent, MassCancels, OrderFilter, OrderView};
use super::order::{shows_modify, CancelText, HeldTerminal, Order, PendingReplace};
pub(super) use super::report::{exec_report, Reports};
pub use super::report::{Report, ReportMsg, ORDER_NOT_FOUND, OUTCOME_UNKNOWN_CODES};
use super::request::{RequestKind, SentRequest};
use super::retention::{Ended, Retention, Tombstone};
use super::unknown::{Resolve, UnknownCause};
use crate::ids::{parse_request_id, ClientOid};
use crate::journal::record::Origin;
use crate::key_table::KeyTable;
use crate::metrics::{Leg, LegHistograms};
use crate::rest_objects::OpenOrder;

/// Orders the tracker's table holds before it first grows, by default (`[tracker]
/// order_capacity`). Growing moves the whole table on the tracker thread into new memory: on the
/// 2-vCPU development machine the insert that grows a table of 400-byte slots took 7-32 ms at
/// this size and ~100 ms at 65 536 (issue 12 note). A larger table costs memory once its pages
/// are touched (about 400 bytes per slot, up to twice as many slots as its capacity).
pub const INITIAL_ORDERS: usize = 1 << 14;

/// Requests in flight the tracker's table holds before it first grows (allocated at start; its
/// entries' pages are touched as they are used). A request waits here for its trade reply: normally one exchange round trip, at
/// most the reply timeout. More at once doubles the table (one copy on the tracker thread).
pub const INITIAL_IN_FLIGHT: usize = 1 << 12;

/// Counters of what the tracker saw but did not turn into reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrackerStats {
    /// Fills whose `execId` had already been counted.
    pub duplicate_fills: u64,
    /// Pushes whose clientOid is not one of ours or not known.
    pub unknown_pushes: u64,
    /// Replies whose `id` matches no request in flight.
    pub unknown_replies: u64,
    /// Requests whose outcome became unknown (outcome-unknown code, no reply within the reply
    /// timeout, or in flight when the link dropped); each is resolved by querying the order.
    pub outcome_unknown: u64,
    /// Unknown-outcome requests the exchange's state showed applied.
    pub resolved_applied: u64,
    /// Unknown-outcome requests the exchange's state showed not applied (reported as such).
    pub resolved_not_applied: u64,
    /// Watchdog: trade replies whose order push did not come within the push deadline.
    pub watchdog_ack_without_push: u64,
    /// Watchdog: order pushes whose request's reply did not come within the push deadline.
    pub watchdog_push_without_reply: u64,
    /// Orders open here that the exchange did not show (left out of a reconciliation's lists,
    /// or said ended by a cancel's or modify's "Order does not exist" with no push to say how):
    /// queried by clientOid.
    pub not_shown: u64,
    /// ExecutionReports produced.
    pub execution_reports: u64,
    /// OrderCancelRejects produced.
    pub cancel_rejects: u64,
    /// Order pushes and fills for an evicted order, recognised by its tombstone (late or
    /// duplicated; dropped, nothing reported; see `retention`).
    pub late_for_evicted: u64,
    /// Ended orders evicted from the live table (each leaves a tombstone).
    pub evicted: u64,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct InFlight {
    session_id: u64,
    root: u64,
    kind: RequestKind,
    t_written_ns: u64,
}

/// The order tracker: owns every order's state (single-threaded; the engine runs it on a
/// pinned thread).
#[derive(Debug, Default)]
pub struct Tracker {
    orders: KeyTable<Order>,
    /// Request id → the single-op request awaiting its trade reply (sized at start: see
    /// [`INITIAL_IN_FLIGHT`]; a `KeyTable` so that the churn of a request per order never
    /// rehashes it).
    in_flight: KeyTable<InFlight, u64>,
    pub(super) reports: Reports,
    pub(super) stats: TrackerStats,
    pub(super) legs: LegHistograms,
    /// Session → account index (from SessionOpened; kept after the session closes).
    session_accounts: HashMap<u64, usize>,
    /// Session → its epoch, once not 0 (new orders' clientOids carry it; see `on_epoch`).
    pub(super) session_epochs: HashMap<u64, u32>,
    /// (session, root) → epoch of orders of earlier epochs a restart is about to restore (the
    /// `Epoch` input comes before `Restore`), taken when the order is registered.
    pub(super) carried_epochs: HashMap<(u64, u64), u32>,
    /// A rollover's OrderStatus reports still to make (see `epochs`), oldest first, and the
    /// set of their orders (kept from eviction until reported).
    pub(super) status_due: super::status_due::StatusDue,
    /// Mass cancels until reported (see `mass`; the watchdog expires what they await).
    pub(super) mass_cancels: MassCancels,
    /// Strategy lists and their exchange batches (see `lists`).
    pub(super) lists: Lists,
    /// Unknown outcomes and the watchdog (see `resolve`).
    pub(super) resolve: Resolve,
    /// Accounts whose subscribed link is down → since when (monotonic ns; see `reconcile`).
    pub(super) links_down: HashMap<usize, u64>,
    /// Ended orders in the live table, tombstones of evicted ones (see `retention`).
    pub(super) ended: Ended,
    /// Session → where its strategy is (see `unseen`: ended orders it may not have seen stay).
    pub(super) presence: HashMap<u64, super::retention::Presence>,
    /// How long an ended order stays held after it ended or its strategy connected (ns; see
    /// `unseen`; [`Retention::unseen_tail_ms`]).
    pub(super) unseen_tail_ns: u64,
    /// Orders whose final report the shell wrote after their session's writer had started the
    /// next epoch (a scheduled rollover's Terminate ends the writer's epoch before the tracker
    /// learns it): at that rollover they count as ended in the new epoch (see `epochs`).
    pub(super) ended_in_next_epoch: std::collections::HashSet<(u64, u64)>,
}

impl Tracker {
    /// An empty tracker with room for [`INITIAL_ORDERS`] open orders plus the default
    /// retention's ended ones ([`Retention::default`]) and [`INITIAL_IN_FLIGHT`] requests before
    /// its tables grow (growing copies the table on the tracker thread: a stall).
    pub fn new() -> Self {
        Tracker::with_retention(INITIAL_ORDERS, Retention::default())
    }

    /// An empty tracker whose live table has room for `order_capacity` open orders plus
    /// `retention.retention_orders` ended ones, room for `retention.tombstones` tombstones and
    /// for [`INITIAL_IN_FLIGHT`] requests, all allocated now. With eviction the live table holds
    /// at most the open orders plus `retention_orders` ended ones, so it does not grow while the
    /// open orders stay within `order_capacity` (see `retention` for why).
    pub fn with_retention(order_capacity: usize, retention: Retention) -> Self {
        Tracker {
            orders: KeyTable::with_capacity(
                order_capacity.saturating_add(retention.retention_orders),
            ),
            in_flight: KeyTable::with_capacity(INITIAL_IN_FLIGHT),
            resolve: Resolve::with_capacity(INITIAL_IN_FLIGHT),
            lists: Lists::with_capacity(super::list_state::INITIAL_LISTS),
            ended: Ended::new(retention),
            unseen_tail_ns: retention.unseen_tail_ms.saturating_mul(1_000_000),
            ..Tracker::default()
        }
    }

    /// Counters.
    pub fn stats(&self) -> TrackerStats {
        self.stats
    }

    /// The latency legs the tracker measures (written → trade reply, written → first push).
    pub fn legs(&self) -> &LegHistograms {
        &self.legs
    }

    /// Mutable access to the legs (to reset after a report interval).
    pub fn legs_mut(&mut self) -> &mut LegHistograms {
        &mut self.legs
    }

    /// One order by (SessionID, root ClOrdID).
    pub fn order(&self, session_id: u64, root: u64) -> Option<&Order> {
        self.orders.get(&(session_id, root))
    }

    /// The orders in the live table: open ones, and ended ones not evicted yet.
    pub fn orders(&self) -> impl Iterator<Item = &Order> {
        self.orders.values()
    }

    /// Orders in the live table.
    pub(super) fn orders_len(&self) -> usize {
        self.orders.len()
    }

    /// Orders the live table holds before it grows.
    pub(super) fn orders_capacity(&self) -> usize {
        self.orders.capacity()
    }

    /// How many times the live table grew.
    pub(super) fn orders_growths(&self) -> u64 {
        self.orders.growths()
    }

    /// The OrderID of order `key`, live or tombstoned (0: unknown or none yet).
    pub(super) fn order_id_of(&self, key: (u64, u64)) -> u64 {
        match self.orders.get(&key) {
            Some(o) => o.order_id,
            None => self.ended.tombstone(&key).map_or(0, |t| t.order_id),
        }
    }

    /// A request of order `key` was written (`+1`) or left the requests awaiting a reply
    /// (`-1`: replied, timed out, lost with the link); see [`Order::replies_due`].
    pub(super) fn note_reply_due(&mut self, key: (u64, u64), due: bool) {
        if let Some(o) = self.orders.get_mut(&key) {
            o.replies_due = if due {
                o.replies_due.saturating_add(1)
            } else {
                o.replies_due.saturating_sub(1)
            };
        }
    }

    /// Reports produced since the last drain.
    pub fn drain_reports(&mut self) -> std::vec::Drain<'_, Report> {
        self.reports.list.drain(..)
    }

    /// Number of requests awaiting their trade reply.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// The account index of a session (0 when unknown).
    pub(super) fn account_of(&self, session_id: u64) -> usize {
        self.session_accounts.get(&session_id).copied().unwrap_or(0)
    }

    /// The order table.
    pub(super) fn orders_mut(&mut self) -> &mut KeyTable<Order> {
        &mut self.orders
    }

    /// Queues a report about order `key` built outside this file (counted like the others),
    /// stamped with the current input's origin.
    pub(super) fn push_report(&mut self, key: (u64, u64), msg: ReportMsg, t_read_ns: u64) {
        match msg {
            ReportMsg::Exec(_) => self.stats.execution_reports += 1,
            ReportMsg::CancelReject(_) => self.stats.cancel_rejects += 1,
            ReportMsg::MassCancel(_) => {}
        }
        self.reports.push(key, msg, t_read_ns);
    }

    /// Removes the single-op requests in flight that `f(account, t_written_ns, order key,
    /// kind, order)` gives a cause for (`order`: the live order, or `None` when it is not in
    /// the live table, with its tombstone if it was evicted), and returns them with it.
    pub(super) fn take_in_flight_where(
        &mut self,
        mut f: impl FnMut(
            usize,
            u64,
            (u64, u64),
            RequestKind,
            Result<&Order, Option<&Tombstone>>,
        ) -> Option<UnknownCause>,
    ) -> Vec<(u64, u64, RequestKind, UnknownCause)> {
        let mut out = Vec::new();
        let (orders, accounts, ended) = (&self.orders, &self.session_accounts, &self.ended);
        self.in_flight.retain(|_, r| {
            let account = accounts.get(&r.session_id).copied().unwrap_or(0);
            let key = (r.session_id, r.root);
            let order = orders.get(&key).ok_or_else(|| ended.tombstone(&key));
            match f(account, r.t_written_ns, key, r.kind, order) {
                Some(cause) => {
                    out.push((r.session_id, r.root, r.kind, cause));
                    false
                }
                None => true,
            }
        });
        for &(session_id, root, _, _) in &out {
            self.note_reply_due((session_id, root), false);
        }
        out
    }

    /// A session bound to account `account` was opened (for Account-scope mass actions).
    pub fn on_session_opened(&mut self, session_id: u64, account: usize) {
        self.session_accounts.insert(session_id, account);
        self.note_connected(session_id);
    }

    /// The open orders `filter` selects, as OrderStatus reports; `exchange` (the account's
    /// `unfilled-orders`) reconciles first (see [`mass::select`]).
    pub fn open_orders(
        &mut self,
        filter: &OrderFilter,
        exchange: Option<&[OpenOrder]>,
        utc_ns: u64,
    ) -> Vec<OrderView> {
        let ended = &self.ended;
        mass::select(
            &mut self.orders,
            |key, epoch, live| ended.names_evicted(key, epoch, live),
            &self.session_accounts,
            filter,
            exchange,
            utc_ns,
        )
    }

    /// Reports or list reports are queued, not yet drained (the shell records a watchdog tick
    /// that queued some, so that a replay repeats it).
    pub fn has_queued_output(&self) -> bool {
        !self.reports.list.is_empty() || !self.lists.out.is_empty()
    }

    /// Mass cancels not yet reported, and the orders whose terminal report they await.
    pub fn mass_cancels_pending(&self) -> (usize, usize) {
        (
            self.mass_cancels.pending(),
            self.mass_cancels.awaited_orders(),
        )
    }

    /// Progress of a mass cancel (its report is queued once every chunk is answered and every
    /// order it cancelled has had its terminal report, or the push deadline passed).
    pub fn on_mass_cancel(&mut self, ev: MassCancelEvent, utc_ns: u64) {
        if let Some(r) = self.mass_cancels.on_event(ev, utc_ns) {
            self.reports.list.push(r);
        }
    }

    /// A trade op was written to the exchange.
    pub fn on_sent(&mut self, req: SentRequest) {
        self.register(req.session_id, req.root, req.kind, req.t_written_ns);
        self.note_reply_due((req.session_id, req.root), true);
        self.in_flight.insert(
            req.req_id,
            InFlight {
                session_id: req.session_id,
                root: req.root,
                kind: req.kind,
                t_written_ns: req.t_written_ns,
            },
        );
    }

    /// Records what a written request does to its order (a new order, a pending modify or
    /// cancel).
    pub(super) fn register(
        &mut self,
        session_id: u64,
        root: u64,
        kind: RequestKind,
        t_written_ns: u64,
    ) {
        let key = (session_id, root);
        match kind {
            RequestKind::New(n) => {
                // Order entry never sends a ClOrdID twice in an epoch, so a place of an evicted
                // order's key is a new order of a later epoch that reuses the root (the tracker
                // keys orders by (SessionID, root), without the epoch): it is tracked, and the
                // tombstone stays to tell the old order's late pushes by their epoch.
                self.orders.get_or_insert(
                    key,
                    Order {
                        session_id,
                        root,
                        cl_ord_id: n.cl_ord_id,
                        order_id: 0,
                        category: n.category,
                        symbol: n.symbol,
                        side: n.side,
                        ord_type: n.ord_type,
                        time_in_force: n.time_in_force,
                        price: n.price,
                        qty: n.qty,
                        status: OrdStatus::PendingNew,
                        acknowledged: false,
                        pushed: false,
                        t_written_ns,
                        cum_qty: Decimal::ZERO,
                        cum_value: Decimal::ZERO,
                        exchange_cum_qty: Decimal::ZERO,
                        exec_ids: Default::default(),
                        pending_replaces: SmallVec::new(),
                        pending_cancels: SmallVec::new(),
                        held_terminal: None,
                        epoch: self
                            .carried_epochs
                            .remove(&key)
                            .or_else(|| self.session_epochs.get(&session_id).copied()),
                        replies_due: 0,
                    },
                );
            }
            RequestKind::Replace {
                cl_ord_id,
                price,
                qty,
            } => {
                if let Some(o) = self.orders.get_mut(&key) {
                    if o.replace_pending(cl_ord_id).is_none() {
                        o.pending_replaces.push(PendingReplace {
                            cl_ord_id,
                            price,
                            qty,
                            accepted: false,
                        });
                    }
                }
            }
            RequestKind::Cancel { cl_ord_id } => {
                if let Some(o) = self.orders.get_mut(&key) {
                    o.add_cancel(cl_ord_id);
                }
            }
        }
    }

    /// One parsed frame from the private WebSocket, read at `t_read_ns` (monotonic);
    /// `utc_ns` is the wall clock for TransactTime where the frame carries no time.
    pub fn on_inbound(&mut self, t_read_ns: u64, utc_ns: u64, inbound: &Inbound<'_>) {
        self.apply_inbound(t_read_ns, utc_ns, inbound);
        self.retire_ended(t_read_ns);
    }

    fn apply_inbound(&mut self, t_read_ns: u64, utc_ns: u64, inbound: &Inbound<'_>) {
        self.reports.origin = match inbound {
            Inbound::Trade(_) | Inbound::Error { .. } => Origin::Reply,
            _ => Origin::Push,
        };
        match inbound {
            Inbound::Trade(reply) => {
                if let Some(report) = parse_request_id(reply.id).and_then(|id| {
                    self.mass_cancels.on_reply(
                        id,
                        reply.code.0,
                        reply.msg,
                        &reply.items,
                        &self.orders,
                        utc_ns,
                        t_read_ns,
                    )
                }) {
                    self.reports.list.extend(report);
                    return;
                }
                if self.on_batch_reply(t_read_ns, utc_ns, reply) {
                    return;
                }
                let item = reply.items.first();
                let (code, msg) = match item {
                    Some(it) if it.code.0 != 0 => (it.code.0, it.msg),
                    _ => (reply.code.0, reply.msg),
                };
                self.on_reply(t_read_ns, utc_ns, reply.id, code, msg, item);
            }
            Inbound::Error {
                id: Some(id),
                code,
                msg,
            } => {
                if let Some(report) = parse_request_id(id).and_then(|rid| {
                    self.mass_cancels.on_reply(
                        rid,
                        code.0,
                        msg,
                        &[],
                        &self.orders,
                        utc_ns,
                        t_read_ns,
                    )
                }) {
                    self.reports.list.extend(report);
                    return;
                }
                if self.on_batch_error(t_read_ns, utc_ns, id, code.0, msg) {
                    return;
                }
                self.on_reply(t_read_ns, utc_ns, id, code.0, msg, None);
            }
            Inbound::Orders { orders, .. } => {
                for o in orders.iter() {
                    self.on_order_push(t_read_ns, o);
                }
            }
            Inbound::Fills { fills, .. } => {
                for f in fills.iter() {
                    self.on_fill(t_read_ns, f);
                }
            }
            _ => {}
        }
    }

    fn on_reply(
        &mut self,
        t_read_ns: u64,
        utc_ns: u64,
        id: &str,
        code: u32,
        msg: &str,
        item: Option<&TradeItem<'_>>,
    ) {
        let Some(req) = parse_request_id(id).and_then(|id| self.in_flight.remove(&id)) else {
            self.stats.unknown_replies += 1;
            return;
        };
        self.note_reply_due((req.session_id, req.root), false);
        self.legs.record(
            Leg::ExchangeReply,
            t_read_ns.saturating_sub(req.t_written_ns),
        );
        if OUTCOME_UNKNOWN_CODES.contains(&code) {
            // Resolved by querying the order by clientOid (never resent); the order channel
            // may still tell the outcome first.
            self.mark_unknown(req.session_id, req.root, req.kind, UnknownCause::Code(code));
            return;
        }
        if code == 0 {
            self.watch_reply(req.session_id, req.root, req.kind, t_read_ns);
        }
        let order_id = item.map_or("", |i| i.order_id);
        if self
            .apply_reply(
                t_read_ns,
                utc_ns,
                req.session_id,
                req.root,
                req.kind,
                code,
                msg,
                order_id,
            )
            .is_none()
        {
            self.stats.unknown_replies += 1;
        }
    }

    /// Applies the exchange's answer (`code` 0 = accepted) to one request on order
    /// (`session_id`, `root`): ExecutionReport New or Rejected for a place, OrderCancelReject
    /// for a refused modify or cancel. Returns the order's OrderID, `None` when the order is
    /// not known. An evicted order answers from its tombstone ([`Tracker::reply_to_evicted`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn apply_reply(
        &mut self,
        t_read_ns: u64,
        utc_ns: u64,
        session_id: u64,
        root: u64,
        kind: RequestKind,
        code: u32,
        msg: &str,
        order_id: &str,
    ) -> Option<u64> {
        let Some(order) = self.orders.get_mut(&(session_id, root)) else {
            return self.reply_to_evicted(
                utc_ns,
                t_read_ns,
                (session_id, root),
                kind,
                code,
                msg,
                order_id,
            );
        };
        if let Ok(order_id) = order_id.parse::<u64>() {
            if order.order_id == 0 {
                order.order_id = order_id;
            }
        }
        match kind {
            // Nothing is reported after a terminal report (e.g. Rejected NotApplied by a
            // resolution): a late answer to the place changes nothing.
            RequestKind::New(_) if order.is_terminal() && !order.acknowledged => {}
            RequestKind::New(_) => {
                if code == 0 {
                    if !order.acknowledged {
                        Self::acknowledge(
                            order,
                            &mut self.reports,
                            &mut self.stats,
                            t_read_ns,
                            utc_ns,
                        );
                    }
                } else if !order.acknowledged {
                    order.status = OrdStatus::Rejected;
                    let mut er = exec_report(order, ExecType::Rejected, utc_ns);
                    er.ord_rej_reason = Some(OrdRejReason::ExchangeReject);
                    er.exchange_code = code;
                    er.text = Text::new(msg);
                    push_exec(&mut self.reports, &mut self.stats, order, er, t_read_ns);
                }
            }
            RequestKind::Replace { cl_ord_id, .. } => {
                if code == 0 {
                    order.accept_replace(cl_ord_id);
                }
                // Refused, or accepted after the order ended (its end was reported first):
                // answered with OrderCancelReject (TooLateToCancel once ended).
                let answer = code != 0 || order.is_terminal();
                if answer && order.take_replace(cl_ord_id) {
                    push_cancel_reject(
                        &mut self.reports,
                        &mut self.stats,
                        order,
                        cl_ord_id,
                        CxlRejResponseTo::OrderCancelReplaceRequest,
                        code,
                        msg,
                        utc_ns,
                        t_read_ns,
                    );
                }
            }
            RequestKind::Cancel { cl_ord_id } => {
                if code == 0 {
                    order.accept_cancel(cl_ord_id);
                }
                // Refused, or still unanswered once the order ended another way (a fill).
                let answer = code != 0 || order.is_terminal();
                if answer && order.take_cancel(cl_ord_id) {
                    push_cancel_reject(
                        &mut self.reports,
                        &mut self.stats,
                        order,
                        cl_ord_id,
                        CxlRejResponseTo::OrderCancelRequest,
                        code,
                        msg,
                        utc_ns,
                        t_read_ns,
                    );
                }
            }
        }
        let id = order.order_id;
        let gone =
            code == ORDER_NOT_FOUND && !order.is_terminal() && !matches!(kind, RequestKind::New(_));
        if gone {
            // The exchange says the order has ended; the order channel should say how. If it
            // has not within the push deadline, the order is queried (`on_tick`).
            self.resolve.gone.push(((session_id, root), t_read_ns));
        }
        Some(id)
    }

    /// The exchange's answer to request `kind` of evicted order `key`: what the ended order
    /// would have answered. A place changes nothing (its end was reported); a cancel or modify
    /// (sent after the eviction: an order is not evicted while a reply is due) gets
    /// OrderCancelReject TooLateToCancel with the tombstone's ids and status. Returns the
    /// tombstone's OrderID; `None` when the order has no tombstone either.
    #[allow(clippy::too_many_arguments)]
    fn reply_to_evicted(
        &mut self,
        utc_ns: u64,
        t_read_ns: u64,
        key: (u64, u64),
        kind: RequestKind,
        code: u32,
        msg: &str,
        order_id: &str,
    ) -> Option<u64> {
        let tomb = self.ended.tombstone_mut(&key)?;
        if let Ok(order_id) = order_id.parse::<u64>() {
            if tomb.order_id == 0 {
                tomb.order_id = order_id;
            }
        }
        let tomb = *tomb;
        let (cl_ord_id, response_to) = match kind {
            RequestKind::New(_) => return Some(tomb.order_id),
            RequestKind::Replace { cl_ord_id, .. } => {
                (cl_ord_id, CxlRejResponseTo::OrderCancelReplaceRequest)
            }
            RequestKind::Cancel { cl_ord_id } => (cl_ord_id, CxlRejResponseTo::OrderCancelRequest),
        };
        self.stats.cancel_rejects += 1;
        let reject = too_late(&tomb, cl_ord_id, response_to, code, msg, utc_ns);
        self.reports
            .push(key, ReportMsg::CancelReject(reject), t_read_ns);
        Some(tomb.order_id)
    }

    fn acknowledge(
        order: &mut Order,
        reports: &mut Reports,
        stats: &mut TrackerStats,
        t_read_ns: u64,
        utc_ns: u64,
    ) {
        order.acknowledged = true;
        if order.status == OrdStatus::PendingNew {
            order.status = OrdStatus::New;
        }
        let er = exec_report(order, ExecType::New, utc_ns);
        push_exec(reports, stats, order, er, t_read_ns);
    }
}

pub(super) fn push_exec(
    reports: &mut Reports,
    stats: &mut TrackerStats,
    o: &Order,
    er: ExecutionReport,
    t: u64,
) {
    stats.execution_reports += 1;
    reports.push((o.session_id, o.root), ReportMsg::Exec(er), t);
}

/// OrderCancelReject TooLateToCancel of request `request_cl_ord_id` on evicted order `key`,
/// as [`push_cancel_reject`] makes it for the ended order (same ids, status and reason).
fn too_late(
    tomb: &Tombstone,
    request_cl_ord_id: u64,
    response_to: CxlRejResponseTo,
    code: u32,
    msg: &str,
    utc_ns: u64,
) -> OrderCancelReject {
    OrderCancelReject {
        cl_ord_id: request_cl_ord_id,
        orig_cl_ord_id: tomb.cl_ord_id,
        order_id: tomb.order_id,
        transact_time: utc_ns,
        exchange_code: code,
        ord_status: tomb.status,
        cxl_rej_response_to: response_to,
        cxl_rej_reason: CxlRejReason::TooLateToCancel,
        text: Text::new(msg),
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn push_cancel_reject(
    reports: &mut Reports,
    stats: &mut TrackerStats,
    o: &Order,
    request_cl_ord_id: u64,
    response_to: CxlRejResponseTo,
    code: u32,
    msg: &str,
    utc_ns: u64,
    t: u64,
) {
    stats.cancel_rejects += 1;
    let reason = if o.is_terminal() {
        CxlRejReason::TooLateToCancel
    } else {
        CxlRejReason::ExchangeReject
    };
    reports.push(
        (o.session_id, o.root),
        ReportMsg::CancelReject(OrderCancelReject {
            cl_ord_id: request_cl_ord_id,
            orig_cl_ord_id: o.cl_ord_id,
            order_id: o.order_id,
            transact_time: utc_ns,
            exchange_code: code,
            ord_status: o.status,
            cxl_rej_response_to: response_to,
            cxl_rej_reason: reason,
            text: Text::new(msg),
        }),
        t,
    );
}
