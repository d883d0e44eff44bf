//! Mass actions on the tracker side: selecting orders by scope (for OrderMassCancelRequest and
//! OrderMassStatusRequest), reconciling with the exchange's open orders, and the bookkeeping of
//! a mass cancel's `batch-cancel` chunks until every one is answered and every order they
//! cancelled has been reported (then one OrderMassCancelReport).
//!
//! Items of a mass cancel never give OrderCancelReject: an item the exchange refuses (e.g. the
//! order filled meanwhile) is simply not affected. Each accepted item's order gets its Canceled
//! ExecutionReport from the order push as usual.
//!
//! Order of the reports (issue 15): the exchange answers a `batch-cancel` before the order
//! pushes that say `cancelled`, so the report waits ([`MassCancels`] "awaiting"): each order an
//! accepted item names that is still open here is awaited until its terminal ExecutionReport
//! (Canceled, or Filled when a fill won the race) has been queued, and the report is queued
//! right after the last one. An order whose push does not come within the push deadline
//! (`[tracker] push_deadline_ms`, counted from the reply that accepted its cancel) stops being
//! awaited: the watchdog flags it as for any reply without its push and its state is queried
//! (`resolve.rs`); the report then goes out without it.

use std::collections::HashMap;

use codec::json::TradeItem;
use codec::sbe::{
    Category, ExecType, ExecutionReport, MassCancelRejectReason, MassCancelRequestType,
    MassCancelResponse, OrderMassCancelReport, Side, Symbol, Text,
};
use codec::Decimal;
use smallvec::SmallVec;

use super::order::Order;
use super::report::{exec_report, Report, ReportMsg};
use crate::ids::ClientOid;
use crate::journal::record::Origin;
use crate::key_table::KeyTable;

/// Whether a mass cancel of ClOrdID `cl_ord_id` answers a strategy's request with an
/// OrderMassCancelReport: every OrderMassCancelRequest does; cancel on disconnect (ClOrdID 0,
/// `crate::decision::mass::MassCancel::on_disconnect`) answers none, and its report would only
/// sit in the session's recoverable flow as the answer to nothing. The one place of the rule:
/// the decision and the tracker both ask it.
pub fn answers_strategy(cl_ord_id: u64) -> bool {
    cl_ord_id != 0
}
use crate::rest_objects::OpenOrder;

/// Whose orders a mass action covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OrderScope {
    /// Orders of one session.
    Session(u64),
    /// Orders of every session bound to one account (by account index).
    Account(usize),
}

/// Which open orders a mass action selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OrderFilter {
    /// Sessions covered.
    pub scope: OrderScope,
    /// Only this symbol.
    pub symbol: Option<Symbol>,
    /// Only this category.
    pub category: Option<Category>,
    /// Only this side.
    pub side: Option<Side>,
}

impl OrderFilter {
    fn matches_instrument(&self, category: Category, symbol: &Symbol, side: Side) -> bool {
        self.category.is_none_or(|c| c == category)
            && self.symbol.is_none_or(|s| s == *symbol)
            && self.side.is_none_or(|s| s == side)
    }
}

/// One selected open order: whose it is and its status as an ExecutionReport (ExecType
/// OrderStatus).
#[derive(Debug, Clone, Copy)]
pub struct OrderView {
    /// Owning session (0 for an exchange order the tracker does not know).
    pub session_id: u64,
    /// Root ClOrdID (its clientOid's last part; 0 for an unknown order).
    pub root: u64,
    /// The epoch of its clientOid (0 for an unknown order).
    pub epoch: u32,
    /// The order's status report.
    pub report: ExecutionReport,
}

/// Text of the status report of an exchange order the tracker does not know.
pub const FOREIGN_ORDER_TEXT: &str = "not placed through this gateway session";

/// The open orders the filter selects (`accounts`: session → account index), as OrderStatus
/// reports stamped `utc_ns`. With `exchange` (the account's open orders from
/// `unfilled-orders`), known orders first take the exchange's `orderId` and `cumExecQty` when
/// the tracker lacks them, and in Account scope the exchange orders the tracker does not know
/// are added (ClOrdID 0, OrderID set, Text [`FOREIGN_ORDER_TEXT`]). `evicted(key, epoch, live
/// order's epoch)` tells an exchange order the tracker evicted (ended, tombstoned): it is
/// neither selected nor foreign.
pub fn select(
    orders: &mut KeyTable<Order>,
    evicted: impl Fn(&(u64, u64), u32, Option<Option<u32>>) -> bool,
    accounts: &HashMap<u64, usize>,
    filter: &OrderFilter,
    exchange: Option<&[OpenOrder]>,
    utc_ns: u64,
) -> Vec<OrderView> {
    let mut foreign = Vec::new();
    for eo in exchange.unwrap_or(&[]) {
        let Some((session_id, epoch, root)) = ClientOid::parse_epoch(&eo.client_oid) else {
            foreign.push(eo);
            continue;
        };
        let key = (session_id, root);
        if evicted(&key, epoch, orders.get(&key).map(|o| o.epoch)) {
            // Ended here (the exchange's list was older): neither selected nor foreign.
            continue;
        }
        match orders.get_mut(&key) {
            Some(o) => reconcile(o, eo),
            None => foreign.push(eo),
        }
    }
    let in_scope = |session: u64| match filter.scope {
        OrderScope::Session(s) => s == session,
        OrderScope::Account(a) => accounts.get(&session) == Some(&a),
    };
    let mut out: Vec<OrderView> = orders
        .values()
        .filter(|o| {
            !o.is_terminal()
                && in_scope(o.session_id)
                && filter.matches_instrument(o.category, &o.symbol, o.side)
        })
        .map(|o| OrderView {
            session_id: o.session_id,
            root: o.root,
            epoch: o.epoch.unwrap_or(0),
            report: exec_report(o, ExecType::OrderStatus, utc_ns),
        })
        .collect();
    out.sort_by_key(|v| (v.session_id, v.root));
    if matches!(filter.scope, OrderScope::Account(_)) {
        out.extend(
            foreign
                .into_iter()
                .filter(|eo| filter.matches_instrument(eo.category, &eo.symbol, eo.side))
                .map(|eo| OrderView {
                    session_id: 0,
                    root: 0,
                    epoch: 0,
                    report: foreign_report(eo, utc_ns),
                }),
        );
    }
    out
}

fn reconcile(o: &mut Order, eo: &OpenOrder) {
    if o.order_id == 0 {
        o.order_id = eo.order_id;
    }
    if eo.cum_qty > o.exchange_cum_qty {
        o.exchange_cum_qty = eo.cum_qty;
    }
}

fn foreign_report(eo: &OpenOrder, utc_ns: u64) -> ExecutionReport {
    let leaves = match eo.qty.checked_sub(eo.cum_qty) {
        Some(l) if l.is_positive() => l,
        _ => Decimal::ZERO,
    };
    ExecutionReport {
        cl_ord_id: 0,
        orig_cl_ord_id: 0,
        order_id: eo.order_id,
        exec_id: 0,
        transact_time: utc_ns,
        price: eo.price,
        order_qty: eo.qty,
        last_qty: None,
        last_px: None,
        cum_qty: eo.cum_qty,
        leaves_qty: leaves,
        avg_px: eo.avg_px,
        exchange_code: 0,
        symbol: eo.symbol,
        category: eo.category,
        side: eo.side,
        ord_type: eo.ord_type,
        time_in_force: eo.time_in_force,
        exec_type: ExecType::OrderStatus,
        ord_status: eo.status,
        ord_rej_reason: None,
        text: Text::new(FOREIGN_ORDER_TEXT),
    }
}

/// What the io thread tells the tracker about a mass cancel.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub enum MassCancelEvent {
    /// A mass cancel of `chunks` `batch-cancel` ops starts (sent before the first chunk).
    Start {
        /// Gateway-wide id of the mass cancel (a request id that is never written).
        mass_id: u64,
        /// The requesting session (the report goes there).
        session_id: u64,
        /// ClOrdID of the OrderMassCancelRequest.
        cl_ord_id: u64,
        /// Scope asked for.
        request_type: MassCancelRequestType,
        /// Number of `batch-cancel` ops that will follow.
        chunks: u32,
    },
    /// Chunk `req_id` is about to be written (sent before the write, so its reply always
    /// finds it).
    Chunk {
        /// The mass cancel.
        mass_id: u64,
        /// The `batch-cancel` op's request id.
        req_id: u64,
    },
    /// Chunk `req_id` was not written (`text`: why).
    NotSent {
        /// The chunk's request id.
        req_id: u64,
        /// Why (e.g. `exchange connection down`).
        text: Text,
    },
}

#[derive(Debug, Clone, Copy)]
struct MassState {
    session_id: u64,
    cl_ord_id: u64,
    request_type: MassCancelRequestType,
    chunks: u32,
    answered: u32,
    replied: u32,
    whole_op_errors: u32,
    affected: u32,
    first_code: u32,
    first_text: Text,
    /// Orders whose cancel the exchange accepted and whose terminal report is not queued yet.
    awaiting: u32,
    /// The report, built once every chunk is answered; held while `awaiting` > 0.
    ready: Option<OrderMassCancelReport>,
    /// Wall clock of the Start event (UTC ns): its chunks are written right after, so their
    /// reply timeout counts from here ([`MassCancels::expire_unanswered`]).
    started_utc_ns: u64,
}

/// Text of an OrderMassCancelReport some of whose `batch-cancel` chunks got no reply within
/// the reply timeout: what they cancelled is unknown here;
/// each order they did cancel gets its Canceled ExecutionReport from its push as usual.
pub const UNANSWERED_CHUNK_TEXT: &str = "outcome unknown: a batch-cancel got no reply";

/// An order that mass cancels await (see the module docs).
#[derive(Debug, Clone)]
struct Awaited {
    /// Read time (monotonic ns) of the first reply that accepted its cancel: the push
    /// deadline counts from there.
    t_reply_ns: u64,
    /// The mass cancels waiting for it (more than one when two mass cancels covered it).
    masses: SmallVec<[u64; 2]>,
}

/// Mass cancels in progress: chunk request id → mass id, each mass cancel's counts, and the
/// orders whose terminal report the reports wait for.
#[derive(Debug, Default)]
pub struct MassCancels {
    masses: HashMap<u64, MassState>,
    chunks: HashMap<u64, u64>,
    /// Order key (SessionID, root ClOrdID) → the mass cancels awaiting its terminal report.
    awaiting: HashMap<(u64, u64), Awaited>,
}

impl MassCancels {
    /// Mass cancels not yet reported (chunks unanswered, or the report held for pushes).
    pub fn pending(&self) -> usize {
        self.masses.len()
    }

    /// Orders whose terminal report a mass cancel's report waits for.
    pub fn awaited_orders(&self) -> usize {
        self.awaiting.len()
    }

    /// Whether a mass cancel's report waits for order `key`'s terminal report.
    pub fn awaits(&self, key: &(u64, u64)) -> bool {
        !self.awaiting.is_empty() && self.awaiting.contains_key(key)
    }

    /// Applies an event; returns the report once the mass cancel is complete.
    pub fn on_event(&mut self, ev: MassCancelEvent, utc_ns: u64) -> Option<Report> {
        match ev {
            MassCancelEvent::Start {
                mass_id,
                session_id,
                cl_ord_id,
                request_type,
                chunks,
            } => {
                self.masses.insert(
                    mass_id,
                    MassState {
                        session_id,
                        cl_ord_id,
                        request_type,
                        chunks,
                        answered: 0,
                        replied: 0,
                        whole_op_errors: 0,
                        affected: 0,
                        first_code: 0,
                        first_text: Text::new(""),
                        awaiting: 0,
                        ready: None,
                        started_utc_ns: utc_ns,
                    },
                );
                self.finish_if_done(mass_id, utc_ns, 0)
            }
            MassCancelEvent::Chunk { mass_id, req_id } => {
                self.chunks.insert(req_id, mass_id);
                None
            }
            MassCancelEvent::NotSent { req_id, text } => {
                let mass_id = self.chunks.remove(&req_id)?;
                let m = self.masses.get_mut(&mass_id)?;
                m.answered += 1;
                if m.first_text.is_empty() {
                    m.first_text = text;
                }
                self.finish_if_done(mass_id, utc_ns, 0)
            }
        }
    }

    /// A trade reply (`items`) or error (`items` empty, `code` ≠ 0) for request `req_id`, read
    /// at `t_read_ns`. `None` if it is not a mass-cancel chunk (the caller handles it);
    /// `Some(report)` otherwise, the report once the whole mass cancel is answered and no
    /// order it cancelled is awaited. Each accepted item whose clientOid names an order of
    /// `orders` that is not terminal yet is awaited (its Canceled comes from a later push).
    #[allow(clippy::too_many_arguments)]
    pub fn on_reply(
        &mut self,
        req_id: u64,
        code: u32,
        msg: &str,
        items: &[TradeItem<'_>],
        orders: &KeyTable<Order>,
        utc_ns: u64,
        t_read_ns: u64,
    ) -> Option<Option<Report>> {
        if self.chunks.is_empty() {
            return None;
        }
        let mass_id = self.chunks.remove(&req_id)?;
        let Some(m) = self.masses.get_mut(&mass_id) else {
            return Some(None);
        };
        m.answered += 1;
        m.replied += 1;
        if code != 0 && items.is_empty() {
            m.whole_op_errors += 1;
            if m.first_code == 0 {
                m.first_code = code;
                m.first_text = Text::new(msg);
            }
        }
        for it in items {
            if it.code.0 == 0 && code == 0 {
                m.affected += 1;
                let open = ClientOid::parse(it.client_oid)
                    .filter(|key| orders.get(key).is_some_and(|o| !o.is_terminal()));
                if let Some(key) = open {
                    let a = self.awaiting.entry(key).or_insert_with(|| Awaited {
                        t_reply_ns: t_read_ns,
                        masses: SmallVec::new(),
                    });
                    if !a.masses.contains(&mass_id) {
                        a.masses.push(mass_id);
                        m.awaiting += 1;
                    }
                }
            } else if m.first_code == 0 {
                m.first_code = if it.code.0 != 0 { it.code.0 } else { code };
                m.first_text = Text::new(if it.msg.is_empty() { msg } else { it.msg });
            }
        }
        Some(self.finish_if_done(mass_id, utc_ns, t_read_ns))
    }

    /// Order `key` has had its terminal ExecutionReport queued (read time of the frame or
    /// state that ended it: `t_read_ns`): the mass cancels that awaited it and await nothing
    /// more queue their reports to `out`, right after it. No allocation.
    pub fn on_order_ended(&mut self, key: (u64, u64), t_read_ns: u64, out: &mut Vec<Report>) {
        if self.awaiting.is_empty() {
            return;
        }
        if let Some(a) = self.awaiting.remove(&key) {
            for mass_id in a.masses {
                self.stop_awaiting(mass_id, t_read_ns, out);
            }
        }
    }

    /// Watchdog: the awaited orders whose push has not come `deadline_ns` after the reply that
    /// accepted their cancel (`now_ns` monotonic) stop being awaited; they are appended to
    /// `overdue` (sorted) for the caller to flag and query, and the reports that await nothing
    /// more are queued to `out`, in the same order every time (replays repeat it).
    pub fn expire(
        &mut self,
        now_ns: u64,
        deadline_ns: u64,
        overdue: &mut Vec<(u64, u64)>,
        out: &mut Vec<Report>,
    ) {
        if self.awaiting.is_empty() {
            return;
        }
        let from = overdue.len();
        overdue.extend(
            self.awaiting
                .iter()
                .filter(|(_, a)| now_ns.saturating_sub(a.t_reply_ns) >= deadline_ns)
                .map(|(key, _)| *key),
        );
        overdue[from..].sort_unstable();
        for key in &overdue[from..] {
            if let Some(a) = self.awaiting.remove(key) {
                for mass_id in a.masses {
                    // Released by the watchdog, not by an exchange frame.
                    self.stop_awaiting(mass_id, 0, out);
                }
            }
        }
    }

    /// Ends the chunks still unanswered of the mass cancels `expired(session_id, started_utc_ns)`
    /// selects (the tracker's watchdog: the reply timeout passed since the Start; a dropped
    /// link gets there too, its replies never come): each counts
    /// as answered with an unknown outcome (exchange code 40010, text
    /// [`UNANSWERED_CHUNK_TEXT`]; not as refused: the exchange may have applied it), chunks the io thread announced but never
    /// wrote included, so a mass cancel whose reply never comes is reported and leaves the
    /// table instead of staying for ever. Reports (unless orders are still awaited) are queued
    /// to `out` by ascending mass id, dated `utc_ns`. Returns how many mass cancels had
    /// chunks ended.
    pub fn expire_unanswered(
        &mut self,
        expired: impl Fn(u64, u64) -> bool,
        utc_ns: u64,
        out: &mut Vec<Report>,
    ) -> usize {
        if self.masses.is_empty() {
            return 0;
        }
        let mut ids: Vec<u64> = self
            .masses
            .iter()
            .filter(|(_, m)| m.answered < m.chunks && expired(m.session_id, m.started_utc_ns))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        for &mass_id in &ids {
            self.chunks.retain(|_, m| *m != mass_id);
            if let Some(m) = self.masses.get_mut(&mass_id) {
                let missing = m.chunks - m.answered;
                m.answered = m.chunks;
                m.replied = m.replied.saturating_add(missing);
                if m.first_code == 0 {
                    m.first_code = super::report::OUTCOME_UNKNOWN_CODES[0];
                    m.first_text = Text::new(UNANSWERED_CHUNK_TEXT);
                }
            }
            out.extend(self.finish_if_done(mass_id, utc_ns, 0));
        }
        ids.len()
    }

    /// Mass cancel `mass_id` awaits one order fewer; queues its report to `out` when that was
    /// the last one and every chunk is answered.
    fn stop_awaiting(&mut self, mass_id: u64, t_read_ns: u64, out: &mut Vec<Report>) {
        let Some(m) = self.masses.get_mut(&mass_id) else {
            return;
        };
        m.awaiting = m.awaiting.saturating_sub(1);
        if m.awaiting == 0 && m.ready.is_some() {
            out.extend(self.release(mass_id, t_read_ns));
        }
    }

    /// Once every chunk is answered: builds the report (dated `utc_ns`, the answer that
    /// completed it) and returns it unless orders are still awaited (then it is held).
    fn finish_if_done(&mut self, mass_id: u64, utc_ns: u64, t_read_ns: u64) -> Option<Report> {
        let m = self.masses.get_mut(&mass_id)?;
        if m.answered < m.chunks {
            return None;
        }
        let mut r = OrderMassCancelReport {
            cl_ord_id: m.cl_ord_id,
            transact_time: utc_ns,
            total_affected_orders: m.affected,
            exchange_code: m.first_code,
            mass_cancel_request_type: m.request_type,
            mass_cancel_response: scope_response(m.request_type),
            mass_cancel_reject_reason: None,
            text: m.first_text,
        };
        if m.chunks > 0 && m.replied == 0 {
            r.mass_cancel_response = MassCancelResponse::Rejected;
            r.mass_cancel_reject_reason = Some(MassCancelRejectReason::NotApplied);
        } else if m.chunks > 0 && m.whole_op_errors == m.chunks {
            r.mass_cancel_response = MassCancelResponse::Rejected;
            r.mass_cancel_reject_reason = Some(MassCancelRejectReason::ExchangeReject);
        }
        m.ready = Some(r);
        if m.awaiting > 0 {
            return None;
        }
        self.release(mass_id, t_read_ns)
    }

    /// Removes a complete mass cancel and returns its report (`t_read_ns`: read time of the
    /// frame that released it, 0 for none).
    fn release(&mut self, mass_id: u64, t_read_ns: u64) -> Option<Report> {
        let m = self.masses.remove(&mass_id)?;
        if !answers_strategy(m.cl_ord_id) {
            return None;
        }
        Some(Report {
            session_id: m.session_id,
            root: 0,
            msg: ReportMsg::MassCancel(m.ready?),
            cause_t_read_ns: t_read_ns,
            origin: Origin::MassAction,
        })
    }
}

/// The MassCancelResponse that confirms a scope.
pub fn scope_response(t: MassCancelRequestType) -> MassCancelResponse {
    match t {
        MassCancelRequestType::Symbol => MassCancelResponse::Symbol,
        MassCancelRequestType::Account => MassCancelResponse::Account,
        MassCancelRequestType::Session => MassCancelResponse::Session,
        MassCancelRequestType::Side => MassCancelResponse::Side,
    }
}

#[cfg(test)]
mod tests {
    use codec::json::JsonParser;
    use codec::sbe::{MassCancelRejectReason, MassCancelRequestType, MassCancelResponse};

    use super::MassCancelEvent;
    use crate::tracker::core::{ReportMsg, Tracker};

    fn feed(t: &mut Tracker, p: &mut JsonParser, json: &str) -> Vec<ReportMsg> {
        let inbound = p.parse(json.as_bytes()).unwrap();
        t.on_inbound(1_000, 5, &inbound);
        t.drain_reports().map(|r| r.msg).collect()
    }

    fn start(t: &mut Tracker, chunks: u32) {
        t.on_mass_cancel(
            MassCancelEvent::Start {
                mass_id: 1,
                session_id: 7,
                cl_ord_id: 99,
                request_type: MassCancelRequestType::Session,
                chunks,
            },
            5,
        );
        for i in 0..u64::from(chunks) {
            t.on_mass_cancel(
                MassCancelEvent::Chunk {
                    mass_id: 1,
                    req_id: 10 + i,
                },
                5,
            );
        }
    }

    fn report(msgs: &[ReportMsg]) -> codec::sbe::OrderMassCancelReport {
        match msgs {
            [ReportMsg::MassCancel(r)] => *r,
            other => panic!("expected one report, got {other:?}"),
        }
    }

    #[test]
    fn report_counts_accepted_items_once_every_chunk_is_answered() {
        let (mut t, mut p) = (Tracker::new(), JsonParser::new());
        start(&mut t, 2);
        let reply = r#"{"event":"trade","id":"10","topic":"batch-cancel","args":[{"code":"0","msg":"Success","orderId":"1","clientOid":"7:1"},{"code":"25204","msg":"Order does not exist","orderId":"2","clientOid":"7:2"}],"code":"0","msg":"Success","ts":"1"}"#;
        assert!(
            feed(&mut t, &mut p, reply).is_empty(),
            "one chunk still open"
        );
        let reply = r#"{"event":"trade","id":"11","topic":"batch-cancel","args":[{"code":"0","msg":"Success","orderId":"3","clientOid":"7:3"}],"code":"0","msg":"Success","ts":"1"}"#;
        let r = report(&feed(&mut t, &mut p, reply));
        assert_eq!(r.cl_ord_id, 99);
        assert_eq!(r.total_affected_orders, 2);
        assert_eq!(r.mass_cancel_response, MassCancelResponse::Session);
        assert_eq!(r.mass_cancel_reject_reason, None);
        assert_eq!(r.exchange_code, 25204);
        assert_eq!(t.stats().cancel_rejects, 0);
        assert_eq!(t.stats().unknown_replies, 0);
    }

    #[test]
    fn whole_op_errors_reject_and_unsent_chunks_are_not_applied() {
        let (mut t, mut p) = (Tracker::new(), JsonParser::new());
        start(&mut t, 1);
        let err = r#"{"event":"error","id":"10","code":"429","msg":"Too Many Requests"}"#;
        let r = report(&feed(&mut t, &mut p, err));
        assert_eq!(r.mass_cancel_response, MassCancelResponse::Rejected);
        assert_eq!(
            r.mass_cancel_reject_reason,
            Some(MassCancelRejectReason::ExchangeReject)
        );
        assert_eq!(r.exchange_code, 429);

        start(&mut t, 1);
        t.on_mass_cancel(
            MassCancelEvent::NotSent {
                req_id: 10,
                text: codec::sbe::Text::new("exchange connection down"),
            },
            5,
        );
        let r = report(&t.drain_reports().map(|r| r.msg).collect::<Vec<_>>());
        assert_eq!(
            r.mass_cancel_reject_reason,
            Some(MassCancelRejectReason::NotApplied)
        );
        assert_eq!(r.text.as_str(), "exchange connection down");
    }

    /// A mass cancel one of whose chunks never gets a reply is reported at the reply timeout
    /// (outcome unknown for that chunk, not refused) and leaves the tracker.
    #[test]
    fn a_chunk_without_reply_is_ended_at_the_reply_timeout() {
        let (mut t, mut p) = (Tracker::new(), JsonParser::new());
        let reply_ns = crate::tracker::unknown::DEFAULT_REPLY_TIMEOUT_MS * 1_000_000;
        start(&mut t, 2);
        let reply = r#"{"event":"trade","id":"10","topic":"batch-cancel","args":[{"code":"0","msg":"Success","orderId":"1","clientOid":"7:1"}],"code":"0","msg":"Success","ts":"1"}"#;
        assert!(
            feed(&mut t, &mut p, reply).is_empty(),
            "chunk 11 unanswered"
        );
        // Started at UTC 5 ns: not yet at 5 + timeout - 1.
        t.on_tick(1, 5 + reply_ns - 1);
        assert!(t.drain_reports().next().is_none());
        assert_eq!(t.mass_cancels_pending(), (1, 0));
        t.on_tick(1_000_000_000, 5 + reply_ns);
        let r = report(&t.drain_reports().map(|r| r.msg).collect::<Vec<_>>());
        assert_eq!(t.mass_cancels_pending(), (0, 0), "left the tracker");
        assert_eq!(r.total_affected_orders, 1);
        assert_eq!(r.mass_cancel_response, MassCancelResponse::Session);
        assert_eq!(r.mass_cancel_reject_reason, None);
        assert_eq!(r.exchange_code, 40010);
        assert_eq!(r.text.as_str(), super::UNANSWERED_CHUNK_TEXT);
        // Its reply, late, is not a chunk any more.
        let late = r#"{"event":"trade","id":"11","topic":"batch-cancel","args":[],"code":"0","msg":"Success","ts":"1"}"#;
        assert!(feed(&mut t, &mut p, late).is_empty());
        assert_eq!(t.mass_cancels_pending(), (0, 0));
    }
}
