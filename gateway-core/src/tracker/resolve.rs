//! Unknown outcomes and the watchdog (issue 5, scope 4).
//!
//! A request's outcome is unknown when its reply carries an outcome-unknown code (40010, 40725,
//! 45001; reference §8), when no reply came within `reply_timeout_ms`, or when the account's
//! link dropped while it was in flight. Its order is then marked unresolved and a
//! [`ResolveRequest`] (clientOid, account) is queued: the io thread queries the order by
//! clientOid (`order-info`, reference §7) and its fills, and hands the exchange's state back
//! (`TrackerInput::ExchangeState`). Nothing is ever resent.
//!
//! The watchdog ([`Tracker::on_tick`]) flags a trade reply whose order push has not come after
//! `push_deadline_ms`, and a push whose request has no reply after the same deadline; both are
//! counted, logged once (off the hot path) and resolved the same way. An order a mass cancel's
//! `batch-cancel` reply accepted is watched the same way (`mass`): without its push by the
//! deadline it is flagged and queried, and the OrderMassCancelReport that waited for it goes
//! out.
//!
//! Once the exchange's state has been applied ([`Tracker::resolve_after_state`]), each
//! unresolved request is reported exactly once: a place found at the exchange was applied (its
//! ExecutionReport New came from the state), a place not found was not (ExecutionReport
//! Rejected, OrdRejReason NotApplied); a cancel or modify the order does not show was not
//! applied (OrderCancelReject, CxlRejReason NotApplied).

use codec::sbe::{
    CxlRejReason, CxlRejResponseTo, ExecType, OrdRejReason, OrdStatus, OrderCancelReject, Text,
};

use super::core::{exec_report, ReportMsg, Tracker};
use super::exchange_state::{ApplySummary, ExchangeState};
use super::order::shows_modify;
use super::request::RequestKind;
use crate::ids::ClientOid;
use crate::journal::record::Origin;

use super::unknown::{same_request, Watch};
pub use super::unknown::{
    ClockOffset, Deadlines, ExchangeView, ResolveRequest, UnknownCause, CLOCK_OFFSET_WINDOW_MS,
    DEFAULT_PUSH_DEADLINE_MS, DEFAULT_REPLY_TIMEOUT_MS, NOT_APPLIED_TEXT,
    SINCE_MARGIN_KNOWN_OFFSET_MS, SINCE_MARGIN_MS,
};

/// A list whose io thread has said nothing (no further batch, no ListDone) for this many reply
/// timeouts, with no batch in flight, is released as it stands ([`Tracker::on_tick`]).
pub const STALE_LIST_REPLY_TIMEOUTS: u64 = 2;

impl Tracker {
    /// Sets the watchdog's deadlines (defaults: [`Deadlines::default`]).
    pub fn set_deadlines(&mut self, deadlines: Deadlines) {
        self.resolve.deadlines = deadlines;
    }

    /// The watchdog's deadlines.
    pub fn deadlines(&self) -> Deadlines {
        self.resolve.deadlines
    }

    /// Resolution requests queued since the last drain (the tracker thread sends them to the
    /// io thread).
    pub fn drain_resolve_requests(&mut self) -> std::vec::Drain<'_, ResolveRequest> {
        self.resolve.out.drain(..)
    }

    /// Orders with at least one request whose outcome is still unknown.
    pub fn unresolved(&self) -> usize {
        self.resolve.unresolved.len()
    }

    /// Marks request `kind` of order (`session_id`, `root`) unresolved and queues its
    /// resolution (held while the account's link is down).
    pub(super) fn mark_unknown(
        &mut self,
        session_id: u64,
        root: u64,
        kind: RequestKind,
        cause: UnknownCause,
    ) {
        if matches!(
            cause,
            UnknownCause::Code(_) | UnknownCause::ReplyTimeout | UnknownCause::LinkDown
        ) {
            self.stats.outcome_unknown += 1;
        }
        // An evicted order's request (a cancel or modify sent after the eviction) is resolved
        // like the ended order's: its answer comes from the exchange's state (`settle`).
        if self.order(session_id, root).is_none() && !self.ended.is_tombstoned(&(session_id, root))
        {
            return;
        }
        let pending = self
            .resolve
            .unresolved
            .entry((session_id, root))
            .or_default();
        if !pending.iter().any(|k| same_request(k, &kind)) {
            pending.push(kind);
        }
        let written_ms = match (self.resolve.clock, self.order(session_id, root)) {
            (Some((mono, utc)), Some(o)) if o.t_written_ns != 0 => utc
                .saturating_sub(mono.saturating_sub(o.t_written_ns))
                .div_euclid(1_000_000),
            _ => self
                .resolve
                .restored_written_ms
                .get(&(session_id, root))
                .copied()
                .unwrap_or(0),
        };
        let req = ResolveRequest {
            account: self.account_of(session_id),
            client_oid: self.client_oid_of(session_id, root),
            cause,
            place: matches!(kind, RequestKind::New(_)),
            written_ms,
        };
        if self.links_down.contains_key(&req.account) {
            self.resolve.held.push(req);
        } else {
            self.resolve.out.push(req);
        }
    }

    /// Queries order (`session_id`, `root`), open here, that the exchange does not show
    /// ([`UnknownCause::NotShown`]), unless a query of it is already due. Its state, once
    /// applied, reports how it ended.
    pub(super) fn resolve_not_shown(&mut self, session_id: u64, root: u64) {
        if self.query_open_order(session_id, root, UnknownCause::NotShown) {
            self.stats.not_shown += 1;
        }
    }

    /// Queries order (`session_id`, `root`), open here, with no request of it unanswered
    /// (`cause`: why), unless a query of it is already due; true when one was queued.
    fn query_open_order(&mut self, session_id: u64, root: u64, cause: UnknownCause) -> bool {
        let key = (session_id, root);
        if self.order(session_id, root).is_none_or(|o| o.is_terminal())
            || self.resolve.unresolved.contains_key(&key)
        {
            return false;
        }
        self.resolve.unresolved.insert(key, Vec::new());
        let req = ResolveRequest {
            account: self.account_of(session_id),
            client_oid: self.client_oid_of(session_id, root),
            cause,
            place: false,
            // Queried on its own: the lists of a sweep would not show it either.
            written_ms: 0,
        };
        if self.links_down.contains_key(&req.account) {
            self.resolve.held.push(req);
        } else {
            self.resolve.out.push(req);
        }
        true
    }

    /// A replied request whose order push the watchdog awaits (place accepted, cancel or
    /// modify accepted).
    pub(super) fn watch_reply(&mut self, session_id: u64, root: u64, kind: RequestKind, t: u64) {
        self.resolve.watch.push(Watch {
            key: (session_id, root),
            kind,
            t_reply_ns: t,
        });
    }

    /// The account's subscribed link dropped (called by [`Tracker::on_link_down`]): every
    /// request in flight on it has an unknown outcome; resolutions wait for
    /// [`Tracker::on_link_up`].
    pub(super) fn unknown_on_link_down(&mut self, account: usize) {
        let lost = self.take_in_flight_where(|acc, _, _, _, _| {
            (acc == account).then_some(UnknownCause::LinkDown)
        });
        for (session_id, root, kind, cause) in lost {
            self.mark_unknown(session_id, root, kind, cause);
        }
        self.expire_batches(|s, _| s == account, UnknownCause::LinkDown);
    }

    /// The account's link is back and reconciled (called by [`Tracker::on_link_up`]): held
    /// resolutions go out.
    pub(super) fn release_held_resolutions(&mut self, account: usize) {
        let (go, keep): (Vec<_>, Vec<_>) = self
            .resolve
            .held
            .drain(..)
            .partition(|r| r.account == account);
        self.resolve.held = keep;
        self.resolve.out.extend(go);
    }

    /// Watchdog tick (`now_ns` monotonic, same clock as the frames' read times; `utc_ns` wall
    /// clock, kept beside it to date unknown requests in UTC). Scans at most every tenth of the
    /// push deadline (1 ms to 100 ms). The reports a tick can queue: an OrderMassCancelReport
    /// released at the push deadline, the ListStatus of a list whose last batch timed out.
    /// Every tick also evicts the ended orders past the retention window (`retention`; no
    /// report, see [`Tracker::drain_evicted`]).
    pub fn on_tick(&mut self, now_ns: u64, utc_ns: u64) {
        if utc_ns != 0 {
            self.resolve.clock = Some((now_ns, utc_ns));
        }
        // A rollover's OrderStatus reports, a bounded number per tick (see `epochs`).
        self.report_due_status(utc_ns);
        // Ended orders past the retention window leave (see `retention`).
        self.retire_ended(now_ns);
        self.retire_expired(now_ns);
        if now_ns < self.resolve.next_scan_ns {
            return;
        }
        let d = self.resolve.deadlines;
        let push_ns = d.push_deadline_ms.saturating_mul(1_000_000);
        let reply_ns = d.reply_timeout_ms.saturating_mul(1_000_000);
        self.resolve.next_scan_ns =
            now_ns.saturating_add((push_ns / 10).clamp(1_000_000, 100_000_000));
        // Requests without reply: timed out, or pushed but not replied.
        let expired = self.take_in_flight_where(|_, t, _, kind, order| {
            let age = now_ns.saturating_sub(t);
            if age >= reply_ns {
                return Some(UnknownCause::ReplyTimeout);
            }
            // An evicted order has ended: it shows every cancel and modify, as it did in full.
            let pushed = match order {
                Ok(o) => shows_request(o, &kind),
                Err(tomb) => tomb.is_some(),
            };
            (age >= push_ns && pushed).then_some(UnknownCause::PushWithoutReply)
        });
        for (session_id, root, kind, cause) in expired {
            if cause == UnknownCause::PushWithoutReply {
                self.stats.watchdog_push_without_reply += 1;
                tracing::warn!(
                    session = session_id,
                    cl_ord_id = root,
                    "watchdog: order push without its trade reply"
                );
            }
            self.mark_unknown(session_id, root, kind, cause);
        }
        self.expire_batches(
            |_, t| now_ns.saturating_sub(t) >= reply_ns,
            UnknownCause::ReplyTimeout,
        );
        // A list whose ListDone never came, a mass cancel whose chunk replies never came: they
        // are reported as they stand and leave, rather than stay for ever.
        self.lists
            .release_stale(now_ns, reply_ns.saturating_mul(STALE_LIST_REPLY_TIMEOUTS));
        if utc_ns != 0 {
            self.mass_cancels.expire_unanswered(
                |_, started| utc_ns.saturating_sub(started) >= reply_ns,
                utc_ns,
                &mut self.reports.list,
            );
        }
        // Replies without push.
        let mut watch = std::mem::take(&mut self.resolve.watch);
        let mut flagged = Vec::new();
        watch.retain(|w| {
            let done = self
                .order(w.key.0, w.key.1)
                .is_none_or(|o| o.is_terminal() || shows_request(o, &w.kind));
            if done {
                return false;
            }
            if now_ns.saturating_sub(w.t_reply_ns) >= push_ns {
                flagged.push(*w);
                return false;
            }
            true
        });
        watch.append(&mut self.resolve.watch);
        self.resolve.watch = watch;
        // Orders the exchange said had ended, still open here.
        let mut gone = std::mem::take(&mut self.resolve.gone);
        let mut due = Vec::new();
        gone.retain(|&(key, t)| {
            if now_ns.saturating_sub(t) < push_ns {
                return true;
            }
            due.push(key);
            false
        });
        gone.append(&mut self.resolve.gone);
        self.resolve.gone = gone;
        for (session_id, root) in due {
            self.resolve_not_shown(session_id, root);
        }
        for w in flagged {
            self.stats.watchdog_ack_without_push += 1;
            tracing::warn!(
                session = w.key.0,
                cl_ord_id = w.key.1,
                "watchdog: trade reply without its order push"
            );
            self.mark_unknown(w.key.0, w.key.1, w.kind, UnknownCause::AckWithoutPush);
        }
        // Orders a mass cancel's reply accepted, without their push: the report that waited
        // for them goes out (after every terminal report already queued), and they are queried
        // like any reply without its push; their end is reported from the exchange's state.
        let mut overdue = Vec::new();
        self.mass_cancels
            .expire(now_ns, push_ns, &mut overdue, &mut self.reports.list);
        for (session_id, root) in overdue {
            if self.order(session_id, root).is_none_or(|o| o.is_terminal()) {
                continue;
            }
            self.stats.watchdog_ack_without_push += 1;
            tracing::warn!(
                session = session_id,
                cl_ord_id = root,
                "watchdog: mass cancel accepted without the order's push"
            );
            self.query_open_order(session_id, root, UnknownCause::AckWithoutPush);
        }
    }

    /// Applies the exchange's state ([`Tracker::apply_exchange_state`]), then settles the
    /// unknown outcomes it answers ([`Tracker::resolve_after_state`]).
    pub fn on_exchange_state(
        &mut self,
        t_read_ns: u64,
        utc_ns: u64,
        state: &ExchangeState,
    ) -> ApplySummary {
        let summary = self.apply_exchange_state(t_read_ns, utc_ns, state);
        self.settle_all(
            state
                .orders
                .iter()
                .map(|o| (o.client_oid.as_str(), ExchangeView::from(o))),
            state.not_found.iter().map(String::as_str),
            utc_ns,
            true,
        );
        summary
    }

    /// Settles the unresolved requests of the orders the exchange's state named, after that
    /// state was applied: `found` = clientOids the exchange knows with what it shows,
    /// `not_found` = clientOids it does not know (a place was never created). Each request is
    /// reported exactly once; an applied cancel or modify is reported by the state (or the
    /// order channel), a request not applied here.
    pub fn resolve_after_state<'a>(
        &mut self,
        found: impl IntoIterator<Item = (&'a str, ExchangeView)>,
        not_found: impl IntoIterator<Item = &'a str>,
        utc_ns: u64,
    ) {
        self.settle_all(found, not_found, utc_ns, false);
    }

    /// [`Tracker::resolve_after_state`]; `state_applied`: the orders' states were applied
    /// just before (by [`Tracker::on_exchange_state`]), so a modify they showed has had its
    /// Replaced report, and one still unanswered was not applied, whatever the values show
    /// (an earlier modify to the same values took them: the exchange refuses the later one,
    /// 25571).
    fn settle_all<'a>(
        &mut self,
        found: impl IntoIterator<Item = (&'a str, ExchangeView)>,
        not_found: impl IntoIterator<Item = &'a str>,
        utc_ns: u64,
        state_applied: bool,
    ) {
        for (oid, view) in found {
            self.settle(oid, Some(view), utc_ns, state_applied);
        }
        for oid in not_found {
            self.settle(oid, None, utc_ns, state_applied);
        }
        self.retire_ended(0);
    }

    fn settle(
        &mut self,
        client_oid: &str,
        found: Option<ExchangeView>,
        utc_ns: u64,
        state_applied: bool,
    ) {
        let Some(key) = ClientOid::parse(client_oid) else {
            return;
        };
        let Some(kinds) = self.resolve.unresolved.remove(&key) else {
            return;
        };
        let Some(order) = self.orders_mut().get_mut(&key) else {
            self.settle_evicted(key, kinds, found.is_some(), utc_ns);
            return;
        };
        let mut reports: Vec<ReportMsg> = Vec::new();
        let (mut applied, mut not_applied) = (0u64, 0u64);
        for kind in kinds {
            match kind {
                RequestKind::New(_) => {
                    if found.is_some() || order.acknowledged {
                        applied += 1;
                    } else if !order.is_terminal() {
                        not_applied += 1;
                        order.status = OrdStatus::Rejected;
                        let mut er = exec_report(order, ExecType::Rejected, utc_ns);
                        er.ord_rej_reason = Some(OrdRejReason::NotApplied);
                        er.text = Text::new(NOT_APPLIED_TEXT);
                        reports.push(ReportMsg::Exec(er));
                    }
                }
                RequestKind::Cancel { cl_ord_id } => {
                    if !order.cancel_pending(cl_ord_id) {
                        // Answered already (its reply, or the Canceled report).
                        applied += 1;
                        continue;
                    }
                    let first =
                        order.pending_cancels.first().map(|c| c.cl_ord_id) == Some(cl_ord_id);
                    if first
                        && !order.is_terminal()
                        && found.is_some_and(|v| v.status == OrdStatus::Canceled)
                    {
                        // The Canceled report comes from the state (held until its fills) and
                        // answers the oldest cancel: this one.
                        applied += 1;
                        continue;
                    }
                    not_applied += 1;
                    order.take_cancel(cl_ord_id);
                    reports.push(not_applied_reject(
                        order,
                        cl_ord_id,
                        CxlRejResponseTo::OrderCancelRequest,
                        utc_ns,
                    ));
                }
                RequestKind::Replace {
                    cl_ord_id,
                    price,
                    qty,
                } => {
                    let pending = order.replace_pending(cl_ord_id).is_some();
                    let shown = found.is_some_and(|v| {
                        shows_modify(price, qty, v.price, v.qty) && v.status != OrdStatus::Canceled
                    });
                    if !pending || (shown && !order.is_terminal() && !state_applied) {
                        // Shown: the Replaced report comes with the state's order update.
                        applied += 1;
                        continue;
                    }
                    not_applied += 1;
                    order.take_replace(cl_ord_id);
                    reports.push(not_applied_reject(
                        order,
                        cl_ord_id,
                        CxlRejResponseTo::OrderCancelReplaceRequest,
                        utc_ns,
                    ));
                }
            }
        }
        self.stats.resolved_applied += applied;
        self.stats.resolved_not_applied += not_applied;
        self.reports.origin = Origin::Resolve;
        for msg in reports {
            self.push_report(key, msg, 0);
        }
    }

    /// `settle` for an evicted order (`found`: the exchange knows it): each of its
    /// unresolved cancels and modifies was sent after the eviction (none is unanswered when an
    /// order is evicted), so none was answered, and the ended order would have answered each
    /// with OrderCancelReject TooLateToCancel, not applied: so does its tombstone.
    fn settle_evicted(
        &mut self,
        key: (u64, u64),
        kinds: Vec<RequestKind>,
        found: bool,
        utc_ns: u64,
    ) {
        let Some(tomb) = self.ended.tombstone(&key).copied() else {
            return;
        };
        self.reports.origin = Origin::Resolve;
        for kind in kinds {
            let (cl_ord_id, response_to) = match kind {
                RequestKind::New(_) => {
                    self.stats.resolved_applied += u64::from(found);
                    continue;
                }
                RequestKind::Cancel { cl_ord_id } => {
                    (cl_ord_id, CxlRejResponseTo::OrderCancelRequest)
                }
                RequestKind::Replace { cl_ord_id, .. } => {
                    (cl_ord_id, CxlRejResponseTo::OrderCancelReplaceRequest)
                }
            };
            self.stats.resolved_not_applied += 1;
            let msg = ReportMsg::CancelReject(OrderCancelReject {
                cl_ord_id,
                orig_cl_ord_id: tomb.cl_ord_id,
                order_id: tomb.order_id,
                transact_time: utc_ns,
                exchange_code: 0,
                ord_status: tomb.status,
                cxl_rej_response_to: response_to,
                cxl_rej_reason: CxlRejReason::TooLateToCancel,
                text: Text::new(NOT_APPLIED_TEXT),
            });
            self.push_report(key, msg, 0);
        }
    }
}

/// True when the order channel has shown the effect of `kind` (cancel: the order ended;
/// modify: the replace took effect).
fn shows_request(o: &super::order::Order, kind: &RequestKind) -> bool {
    match kind {
        RequestKind::New(_) => o.pushed,
        RequestKind::Cancel { cl_ord_id } => o.is_terminal() || !o.cancel_pending(*cl_ord_id),
        RequestKind::Replace { cl_ord_id, .. } => {
            o.is_terminal() || o.replace_pending(*cl_ord_id).is_none()
        }
    }
}

fn not_applied_reject(
    o: &super::order::Order,
    cl_ord_id: u64,
    response_to: CxlRejResponseTo,
    utc_ns: u64,
) -> ReportMsg {
    ReportMsg::CancelReject(OrderCancelReject {
        cl_ord_id,
        orig_cl_ord_id: o.cl_ord_id,
        order_id: o.order_id,
        transact_time: utc_ns,
        exchange_code: 0,
        ord_status: o.status,
        cxl_rej_response_to: response_to,
        cxl_rej_reason: if o.is_terminal() {
            CxlRejReason::TooLateToCancel
        } else {
            CxlRejReason::NotApplied
        },
        text: Text::new(NOT_APPLIED_TEXT),
    })
}
