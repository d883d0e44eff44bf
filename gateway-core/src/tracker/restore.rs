//! Crash recovery of the tracker: each order's state rebuilt from the ExecutionReports the
//! session's journal holds (what the strategy was told), so that reconciliation against the
//! exchange afterwards reports only what changed since, exactly once.
//!
//! An order whose ClOrdID the journal holds without any report (accepted, maybe sent, when the
//! gateway stopped) is registered with blank details and queried by clientOid like any unknown
//! outcome: found at the exchange, it is taken over and reported; not found, it is reported
//! Rejected (NotApplied). ERs answering a repeated ClOrdID (DuplicateOrder) change nothing.

use std::collections::HashMap;

use codec::sbe::{ExecType, ExecutionReport, OrdRejReason, OrdStatus};
use codec::Decimal;

use super::core::Tracker;
use super::order::Order;
use super::request::{blank_order, NewOrder, RequestKind};
use super::resolve::UnknownCause;

/// What [`Tracker::restore_session`] rebuilt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RestoreSummary {
    /// Orders rebuilt from reports.
    pub orders: u64,
    /// Of which not finished.
    pub open: u64,
    /// Orders without any report, and cancels / replaces without any answer, queried at the
    /// exchange.
    pub unanswered: u64,
}

impl Tracker {
    /// Rebuilds the orders of session `session_id` from `reports` (its journaled
    /// ExecutionReports, in sequence order); `roots` maps every ClOrdID the session used to the
    /// root ClOrdID of its order; `unanswered_since_ms` gives, for roots no report names, the
    /// UTC ms from which the exchange's lists show the order (their resolution lists the
    /// account from there when many are due at once); `unanswered_amends` are cancel and replace
    /// ClOrdIDs no report names, each resolved so that it gets one answer. The session must be
    /// opened first (its account is known).
    pub fn restore_session(
        &mut self,
        session_id: u64,
        roots: &HashMap<u64, u64>,
        reports: &[ExecutionReport],
        unanswered_since_ms: &HashMap<u64, u64>,
        unanswered_amends: &[u64],
    ) -> RestoreSummary {
        let mut sum = RestoreSummary::default();
        // A restart: the session's strategy connects later, if at all (see `unseen`).
        self.note_away(session_id);
        for er in reports {
            if er.ord_rej_reason == Some(OrdRejReason::DuplicateOrder) {
                continue;
            }
            let root = roots
                .get(&er.cl_ord_id)
                .or_else(|| roots.get(&er.orig_cl_ord_id))
                .copied()
                .unwrap_or(er.cl_ord_id);
            if self.tombstone(session_id, root).is_some() {
                // Evicted: it ended and was reported; never brought back.
                continue;
            }
            if self.order(session_id, root).is_none() {
                sum.orders += 1;
                self.register(
                    session_id,
                    root,
                    RequestKind::New(NewOrder {
                        cl_ord_id: root,
                        category: er.category,
                        symbol: er.symbol,
                        side: er.side,
                        ord_type: er.ord_type,
                        time_in_force: er.time_in_force,
                        price: er.price,
                        qty: er.order_qty,
                    }),
                    0,
                );
            }
            let Some(o) = self.orders_mut().get_mut(&(session_id, root)) else {
                continue;
            };
            let was_final = o.is_terminal();
            if er.order_id != 0 {
                o.order_id = er.order_id;
            }
            match er.exec_type {
                ExecType::New => {
                    o.acknowledged = true;
                    o.pushed = true;
                }
                ExecType::PartialFill | ExecType::Fill => {
                    o.acknowledged = true;
                    o.pushed = true;
                    if er.exec_id != 0 && !o.exec_ids.contains(&er.exec_id) {
                        o.exec_ids.push(er.exec_id);
                    }
                    let value = match (er.last_px, er.last_qty) {
                        (Some(px), Some(qty)) => px.checked_mul(qty).unwrap_or(Decimal::ZERO),
                        _ => Decimal::ZERO,
                    };
                    o.cum_value = o.cum_value.checked_add(value).unwrap_or(o.cum_value);
                    o.cum_qty = er.cum_qty;
                }
                ExecType::Replaced => {
                    o.cl_ord_id = er.cl_ord_id;
                    o.price = er.price;
                    o.qty = er.order_qty;
                }
                ExecType::OrderStatus => {
                    // Any state but PendingNew: the exchange had acknowledged the order.
                    o.acknowledged |= er.ord_status != OrdStatus::PendingNew;
                    o.cum_qty = er.cum_qty;
                    if let Some(avg) = er.avg_px {
                        o.cum_value = avg.checked_mul(er.cum_qty).unwrap_or(o.cum_value);
                    }
                }
                _ => {}
            }
            if o.exchange_cum_qty < o.cum_qty {
                o.exchange_cum_qty = o.cum_qty;
            }
            o.status = er.ord_status;
            o.pending_cancels.clear();
            o.pending_replaces.clear();
            if !was_final && o.is_terminal() {
                // Ended before the restart (its final report was sent then): retained like
                // any ended order.
                self.reports.note_ended((session_id, root));
            }
        }
        sum.open = self
            .orders()
            .filter(|o| o.session_id == session_id && !o.is_terminal())
            .count() as u64;
        // Orders no report answered: those without any report (registered blank), and those
        // whose reports are only OrderStatus PendingNew (a rollover reported them while their
        // place was still in flight).
        let mut unanswered: Vec<(u64, Option<NewOrder>)> = roots
            .iter()
            .filter(|(cl, root)| {
                cl == root
                    && self.order(session_id, **root).is_none()
                    && self.tombstone(session_id, **root).is_none()
            })
            .map(|(_, root)| (*root, None))
            .chain(
                self.orders()
                    .filter(|o| {
                        o.session_id == session_id
                            && o.status == OrdStatus::PendingNew
                            && !o.acknowledged
                    })
                    .map(|o| (o.root, Some(placed(o)))),
            )
            .collect();
        unanswered.sort_unstable_by_key(|(root, _)| *root);
        for (root, placed) in unanswered {
            sum.unanswered += 1;
            let kind = match placed {
                Some(p) => RequestKind::New(p),
                None => {
                    let kind = RequestKind::New(blank_order(root));
                    self.register(session_id, root, kind, 0);
                    kind
                }
            };
            if let Some(ms) = unanswered_since_ms.get(&root).filter(|ms| **ms != 0) {
                self.resolve
                    .restored_written_ms
                    .insert((session_id, root), *ms);
            }
            self.mark_unknown(session_id, root, kind, UnknownCause::Restart);
        }
        // Cancels and replaces accepted but never answered (the ClOrdID is journaled before the
        // op is written, so a kill in between leaves them): resolved like a cancel, so each gets
        // one answer: Canceled when the exchange shows the order cancelled, else an
        // OrderCancelReject (NotApplied, or TooLateToCancel once the order is finished).
        for &cl in unanswered_amends {
            let Some(&root) = roots.get(&cl) else {
                continue;
            };
            let Some(o) = self.orders_mut().get_mut(&(session_id, root)) else {
                continue;
            };
            o.add_cancel(cl);
            sum.unanswered += 1;
            let kind = RequestKind::Cancel { cl_ord_id: cl };
            self.mark_unknown(session_id, root, kind, UnknownCause::Restart);
        }
        self.retire_ended(0);
        sum
    }
}

/// The place request of order `o`, as registered.
fn placed(o: &Order) -> NewOrder {
    NewOrder {
        cl_ord_id: o.root,
        category: o.category,
        symbol: o.symbol,
        side: o.side,
        ord_type: o.ord_type,
        time_in_force: o.time_in_force,
        price: o.price,
        qty: o.qty,
    }
}

#[cfg(test)]
mod tests {
    use super::super::request::is_blank;
    use super::*;
    use codec::sbe::{Category, OrdStatus, OrdType, Side, Symbol, Text, TimeInForce};

    const S: u64 = 9;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn er(
        cl: u64,
        orig: u64,
        exec_type: ExecType,
        status: OrdStatus,
        cum: &str,
    ) -> ExecutionReport {
        ExecutionReport {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            order_id: 500 + cl,
            exec_id: 0,
            transact_time: 1,
            price: Some(d("100")),
            order_qty: d("2"),
            last_qty: None,
            last_px: None,
            cum_qty: d(cum),
            leaves_qty: d("0"),
            avg_px: None,
            exchange_code: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Sell,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            exec_type,
            ord_status: status,
            ord_rej_reason: None,
            text: Text::new(""),
        }
    }

    #[test]
    fn orders_are_rebuilt_from_reports_and_unanswered_ones_are_queried() {
        let mut t = Tracker::new();
        t.on_session_opened(S, 0);
        let roots: HashMap<u64, u64> = [(1, 1), (2, 2), (3, 1), (4, 4), (5, 2)].into();
        let mut fill = er(1, 0, ExecType::PartialFill, OrdStatus::PartiallyFilled, "1");
        fill.exec_id = 77;
        fill.last_px = Some(d("100"));
        fill.last_qty = Some(d("1"));
        let mut replaced = er(3, 1, ExecType::Replaced, OrdStatus::PartiallyFilled, "1");
        replaced.order_id = 501;
        let mut dup = er(5, 0, ExecType::Rejected, OrdStatus::Rejected, "0");
        dup.ord_rej_reason = Some(OrdRejReason::DuplicateOrder);
        let reports = [
            er(1, 0, ExecType::New, OrdStatus::New, "0"),
            fill,
            replaced,
            er(2, 0, ExecType::New, OrdStatus::New, "0"),
            dup,
            er(2, 0, ExecType::Canceled, OrdStatus::Canceled, "0"),
        ];
        let since: HashMap<u64, u64> = [(4, 1_700_000_000_000)].into();
        let sum = t.restore_session(S, &roots, &reports, &since, &[]);
        assert_eq!(
            sum,
            RestoreSummary {
                orders: 2,
                open: 1,
                unanswered: 1
            }
        );
        let o = t.order(S, 1).unwrap();
        assert_eq!((o.cl_ord_id, o.order_id), (3, 501));
        assert_eq!(o.status, OrdStatus::PartiallyFilled);
        assert_eq!(o.cum_qty, d("1"));
        assert_eq!(o.cum_value, d("100"));
        assert!(o.exec_ids.contains(&77) && o.acknowledged);
        assert_eq!(t.order(S, 2).unwrap().status, OrdStatus::Canceled);
        // ClOrdID 4 got no report: registered blank and queried.
        let blank = t.order(S, 4).unwrap();
        assert!(is_blank(&blank.symbol, blank.qty));
        let asks: Vec<_> = t.drain_resolve_requests().collect();
        assert_eq!(asks.len(), 1);
        assert_eq!(asks[0].client_oid, crate::ids::ClientOid::new(S, 4));
        assert_eq!(asks[0].cause, UnknownCause::Restart);
        assert_eq!(asks[0].written_ms, 1_700_000_000_000);
        // Nothing is reported by the restore itself.
        assert!(t.drain_reports().next().is_none());
    }

    /// A session rollover reports every order it carries OrderStatus, those still in flight
    /// PendingNew. After a restart such an order is still unanswered: it is queried like one
    /// without any report (found by the soak: it stayed PendingNew for good). An OrderStatus
    /// of any other state is an acknowledged order: nothing to ask.
    #[test]
    fn an_order_reported_only_pending_new_is_queried_after_a_restart() {
        let mut t = Tracker::new();
        t.on_session_opened(S, 0);
        let roots: HashMap<u64, u64> = [(7, 7), (8, 8)].into();
        let mut pending = er(7, 0, ExecType::OrderStatus, OrdStatus::PendingNew, "0");
        pending.order_id = 0;
        let reports = [
            pending,
            er(8, 0, ExecType::OrderStatus, OrdStatus::New, "0"),
        ];
        let since: HashMap<u64, u64> = [(7, 1_700_000_000_000)].into();
        let sum = t.restore_session(S, &roots, &reports, &since, &[]);
        assert_eq!((sum.orders, sum.open, sum.unanswered), (2, 2, 1));
        let asks: Vec<_> = t.drain_resolve_requests().collect();
        assert_eq!(asks.len(), 1, "{asks:?}");
        assert_eq!(asks[0].client_oid, crate::ids::ClientOid::new(S, 7));
        assert!(asks[0].place);
        assert_eq!(asks[0].cause, UnknownCause::Restart);
        assert_eq!(asks[0].written_ms, 1_700_000_000_000);
        // Its details are the report's, not blank.
        let o = t.order(S, 7).unwrap();
        assert_eq!((o.symbol.as_str(), o.qty), ("BTCUSDT", d("2")));
        assert!(t.order(S, 8).unwrap().acknowledged);
        assert!(t.drain_reports().next().is_none());
    }

    /// Issue 10, cause 7: a cancel accepted (journaled) right before a SIGKILL and never
    /// answered is resolved after the restart, so it gets exactly one answer.
    #[test]
    fn a_cancel_without_any_answer_is_resolved_after_a_restart() {
        use super::super::report::ReportMsg;
        use super::super::unknown::ExchangeView;
        use codec::sbe::CxlRejReason;
        let mut t = Tracker::new();
        t.on_session_opened(S, 0);
        // Order 1 rests (New); cancel 6 of it was journaled and got no report.
        let roots: HashMap<u64, u64> = [(1, 1), (6, 1)].into();
        let reports = [er(1, 0, ExecType::New, OrdStatus::New, "0")];
        let sum = t.restore_session(S, &roots, &reports, &HashMap::new(), &[6]);
        assert_eq!((sum.orders, sum.open, sum.unanswered), (1, 1, 1));
        let asks: Vec<_> = t.drain_resolve_requests().collect();
        assert_eq!(asks.len(), 1);
        assert_eq!(asks[0].client_oid, crate::ids::ClientOid::new(S, 1));
        assert!(!asks[0].place);
        assert_eq!(asks[0].cause, UnknownCause::Restart);
        assert!(t.drain_reports().next().is_none());
        // The exchange shows the order still open: the cancel was not applied.
        let oid = crate::ids::ClientOid::new(S, 1);
        let view = ExchangeView {
            status: OrdStatus::New,
            price: Some(d("100")),
            qty: d("2"),
        };
        t.resolve_after_state([(oid.as_str(), view)], std::iter::empty(), 9);
        let out: Vec<_> = t.drain_reports().map(|r| r.msg).collect();
        let [ReportMsg::CancelReject(r)] = out[..] else {
            panic!("{out:?}");
        };
        assert_eq!(
            (r.cl_ord_id, r.cxl_rej_reason),
            (6, CxlRejReason::NotApplied)
        );
        // Once only.
        t.resolve_after_state([(oid.as_str(), view)], std::iter::empty(), 9);
        assert!(t.drain_reports().next().is_none());
    }
}
